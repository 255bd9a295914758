package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/catalogs"
)

// reply is a handler's answer when its status is not 200.
type reply struct {
	status int
	data   any
}

// bare is an answer sent as its JSON without the envelope (load queries, spec 3 §4.5).
type bare struct {
	data any
	done func() // run once the answer is written (nil: nothing)
}

// handlerFunc is a resource handler: it returns the data to send (or a reply) or an error.
type handlerFunc func(r *http.Request) (any, error)

type traceKey struct{}

// newTraceID returns a W3C trace-context identifier, continuing the caller's trace when the
// request carries a valid traceparent.
func newTraceID(r *http.Request) string {
	var span [8]byte
	rand.Read(span[:])
	if tp := r.Header.Get("Traceparent"); len(tp) == 55 && tp[2] == '-' && tp[35] == '-' {
		if _, err := hex.DecodeString(tp[3:35]); err == nil && tp[3:35] != "00000000000000000000000000000000" {
			return "00-" + tp[3:35] + "-" + hex.EncodeToString(span[:]) + "-01"
		}
	}
	return newRootTraceID(span)
}

// newRootTraceID starts a new trace, with span as its first span.
func newRootTraceID(span [8]byte) string {
	var trace [16]byte
	rand.Read(trace[:])
	return "00-" + hex.EncodeToString(trace[:]) + "-" + hex.EncodeToString(span[:]) + "-01"
}

func traceID(ctx context.Context) string {
	s, _ := ctx.Value(traceKey{}).(string)
	return s
}

// write sends a successful envelope.
func (s *Server) write(w http.ResponseWriter, r *http.Request, status int, data any) {
	s.send(w, r, api.Envelope{Data: data, Succeeded: true, HTTPStatusCode: status})
}

// writeError is the one place a failure becomes an envelope: an *apierr.Error is sent as it
// says; anything else is a 500 whose cause is logged with the trace id.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apierr.As(err)
	if !ok {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			s.log.Info("request canceled by the client", "trace", traceID(r.Context()), "path", r.URL.Path)
			e = &apierr.Error{Status: 499, Details: "Client Closed Request"}
		} else {
			s.log.Error("request failed", "trace", traceID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", err)
			e = &apierr.Error{Status: http.StatusInternalServerError, Details: apierr.DetailsServer}
		}
	}
	for k, vs := range e.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	var data any = e.Data
	if len(e.Failures) > 0 {
		data = e.Failures
	}
	if info, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
		info.err = errorText(e)
	}
	s.send(w, r, api.Envelope{Data: data, Message: apierr.MessageFor(e.Status), Details: e.Details, HTTPStatusCode: e.Status})
}

func (s *Server) send(w http.ResponseWriter, r *http.Request, env api.Envelope) {
	env.TraceIdentifier = traceID(r.Context())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		s.log.Error("encode answer", "trace", env.TraceIdentifier, "err", err)
		buf.Reset()
		env = api.Envelope{Message: apierr.MsgServer, Details: apierr.DetailsServer, HTTPStatusCode: 500, TraceIdentifier: env.TraceIdentifier}
		_ = json.NewEncoder(&buf).Encode(env)
	}
	h := w.Header()
	h["Content-Type"] = headerJSON
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	h["X-Trace-Id"] = []string{env.TraceIdentifier}
	status := env.HTTPStatusCode
	if status == 499 {
		status = http.StatusBadRequest // never reaches a client; keeps the log honest
	}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// sendBare writes v as JSON with status 200 and no envelope.
func (s *Server) sendBare(w http.ResponseWriter, r *http.Request, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		s.writeError(w, r, err)
		return
	}
	h := w.Header()
	h["Content-Type"] = headerJSON
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	h["X-Trace-Id"] = []string{traceID(r.Context())}
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// sendShared writes an answer made once for every caller (public data, no envelope): its
// bytes as they are, compressed when the client takes gzip, and 304 when the client's copy has
// its entity tag. Nothing is encoded or copied per caller.
func sendShared(w http.ResponseWriter, r *http.Request, a *catalogs.Answer) {
	h := w.Header()
	h.Set("ETag", a.ETag)
	h.Set("Cache-Control", "no-cache") // public data: a copy may be kept, then asked for again
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Trace-Id", traceID(r.Context()))
	if etagMatches(r.Header.Get("If-None-Match"), a.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.JSON
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		body = a.Gzip
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// etagMatches tells whether an If-None-Match header names tag (or is "*"); weak tags compare
// as their strong form (RFC 9110 §13.1.2).
func etagMatches(header, tag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// acceptsGzip tells whether an Accept-Encoding header takes gzip (not refused with q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if c := strings.ToLower(strings.TrimSpace(coding)); c != "gzip" && c != "x-gzip" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		return !(q == "q=0" || strings.HasPrefix(q, "q=0.") && strings.Trim(q[4:], "0") == "")
	}
	return false
}

// run calls a resource handler and writes its answer.
func (s *Server) run(w http.ResponseWriter, r *http.Request, h handlerFunc) {
	data, err := h(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if b, ok := data.(bare); ok {
		s.sendBare(w, r, b.data)
		if b.done != nil {
			b.done()
		}
		return
	}
	if a, ok := data.(*catalogs.Answer); ok {
		sendShared(w, r, a)
		return
	}
	if rp, ok := data.(reply); ok {
		s.write(w, r, rp.status, rp.data)
		return
	}
	s.write(w, r, http.StatusOK, data)
}
