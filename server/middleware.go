package server

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ratelimit"
	"github.com/timbra-mx/timbra/internal/secrets"
)

// statusWriter remembers the status for the request log, and bounds the writing of the answer
// from its first byte (writeTimeout).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

// started sets the write deadline when the answer starts: the handler's own time is not
// counted, only the client's reading.
func (w *statusWriter) started(code int) {
	w.status = code
	_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(writeTimeout))
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.started(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.started(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection (websockets, flushing).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Hijack hands the connection to a websocket; the log records 101.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.status == 0 {
		w.status = http.StatusSwitchingProtocols
	}
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// bodyReadTimeout bounds reading one request's body (MaxBodyBytes at 85 KB/s), so a client
// that trickles a body cannot hold a connection and its handler forever; the headers have
// their own bound (ReadHeaderTimeout). A variable so a test can shorten it.
var bodyReadTimeout = 2 * time.Minute

// MaxHeaderBytes bounds a request's header fields (names and values); more is answered 431.
const MaxHeaderBytes = 64 << 10

// headerBytes counts the bytes of h's names and values.
func headerBytes(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v)
		}
	}
	return n
}

// cleanPath is p as the router reads it: no empty, "." or ".." segment; a final slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		np += "/"
	}
	return np
}

// writeTimeout bounds writing one answer from its first byte, so a client that stops reading (or
// reads a byte a second) cannot hold the answer's memory and its connection for long: the write
// fails, the handler ends, the connection closes. A whole SAT catalog (5 MB, 0.5 MB compressed)
// needs 85 KB/s to finish in time. A websocket session (listen) writes through its hijacked
// connection, with deadlines of its own. A variable so a test can shorten it.
var writeTimeout = time.Minute

// securityHeaders are sent on every answer: answers carry secrets (API key values, webhook
// secrets, tax file contents), so no cache may keep them, and no browser may sniff a JSON
// answer into something else.
func securityHeaders(h http.Header, r *http.Request) {
	h["X-Content-Type-Options"] = headerNosniff
	h["Cache-Control"] = headerNoStore
	if r.TLS != nil {
		h["Strict-Transport-Security"] = headerHSTS
	}
}

// The values of the headers every answer carries, set as they are (keys in canonical form): a
// header set with Header.Set costs a slice, and a key not in canonical form one more, on every
// request. net/http only reads them; an Add makes its own slice (their capacity is 1).
var (
	headerNosniff = []string{"nosniff"}
	headerNoStore = []string{"no-store"}
	headerHSTS    = []string{"max-age=31536000"}
	headerJSON    = []string{"application/json; charset=utf-8"}
)

// serveHTTP is the outer layer of every request: trace id, security headers, body limit and
// read deadline, recovery, request log.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	trace := newTraceID(r)
	info := &requestInfo{}
	r = r.WithContext(context.WithValue(context.WithValue(r.Context(), traceKey{}, trace), infoKey{}, info))
	tlsState(r)
	securityHeaders(w.Header(), r)
	w.Header()[api.EnvironmentHeader] = s.environment
	if r.Body != nil && r.Body != http.NoBody {
		// not supported by every writer (a test's recorder): then only the size is bounded
		_ = http.NewResponseController(w).SetReadDeadline(start.Add(bodyReadTimeout))
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.Error("panic", "trace", trace, "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if sw.status == 0 {
				s.writeError(sw, r, &apierr.Error{Status: http.StatusInternalServerError, Details: apierr.DetailsServer})
			}
		}
		s.metrics.request(r.Pattern, sw.status, time.Since(start))
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"ms", float64(time.Since(start).Microseconds())/1000, "bytes", sw.bytes, "trace", trace)
		if info.tenant != "" && r.Pattern != requestLogPattern {
			s.requests.Publish(info.tenant, logEntry(r, info, sw.status, start, trace))
		}
	}()
	// what the router would refuse in plain text, or redirect, is answered here in the envelope
	switch {
	case headerBytes(r.Header) > MaxHeaderBytes:
		s.writeError(sw, r, &apierr.Error{Status: http.StatusRequestHeaderFieldsTooLarge, Details: msgHeadersTooLarge})
	case r.URL.Path != cleanPath(r.URL.Path):
		s.noRoute(sw, r) // 404, never a redirect
	default:
		s.mux.ServeHTTP(sw, r)
	}
}

// clientAddr is the address a request came from, the subject of anonymous limits.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// limit counts the request in family f for subject and sets the RateLimit-* headers; when the
// limit is exceeded it answers 429 and returns false.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, subject string, f ratelimit.Family) bool {
	d := s.limiter.Take(subject, f)
	h := w.Header()
	h["Ratelimit-Limit"] = []string{strconv.Itoa(d.Limit)} // the canonical form of RateLimit-Limit
	h["Ratelimit-Remaining"] = []string{strconv.Itoa(d.Remaining)}
	h["Ratelimit-Reset"] = []string{strconv.Itoa(d.ResetSeconds())}
	if d.Allowed {
		return true
	}
	h.Set("Retry-After", strconv.Itoa(d.RetryAfterSeconds()))
	s.writeError(w, r, &apierr.Error{Status: http.StatusTooManyRequests, Details: fmt.Sprintf(
		"Se excedió el límite de la familia %s: %d peticiones cada %d s. Espera %d s antes de reintentar.",
		f.Name, f.Limit, int(f.Window/time.Second), d.RetryAfterSeconds())})
	return false
}

// apiRoute guards a resource handler: authentication (X-TENANT-KEY, X-API-KEY), the rate limit
// of its family per API key, and the time zone of X-TIME-ZONE.
func (s *Server) apiRoute(f ratelimit.Family, h handlerFunc) http.Handler {
	return s.guard(f, func(w http.ResponseWriter, r *http.Request) { s.run(w, r, h) })
}

// guard is apiRoute for a handler that writes its own answer (the listen websocket).
func (s *Server) guard(f ratelimit.Family, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.accounts.Authenticate(r.Context(), r.Header.Get("X-Tenant-Key"), r.Header.Get("X-Api-Key"))
		if err != nil {
			if s.limit(w, r, "addr:"+clientAddr(r), s.anonymous) {
				s.writeError(w, r, err)
			}
			return
		}
		if info, ok := r.Context().Value(infoKey{}).(*requestInfo); ok {
			info.tenant, info.person = c.TenantID, c.PersonID // the request goes to its tenant's log
		}
		if !s.limit(w, r, "key:"+c.APIKeyID, f) {
			return
		}
		loc, err := s.zone(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		c.Zone = loc
		h(w, r.WithContext(auth.With(r.Context(), c)))
	})
}

// adminRoute guards an operator handler with the operator token.
func (s *Server) adminRoute(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.operator(w, r) {
			s.run(w, r, h)
		}
	})
}

// operator counts the request in the operator's own family (per address: the operator's calls
// and scrapes never use up what anonymous callers from the same address may send, nor the
// reverse) and checks the operator token, answering 429 or 401 and returning false when the
// request may not go on.
func (s *Server) operator(w http.ResponseWriter, r *http.Request) bool {
	if !s.limit(w, r, "addr:"+clientAddr(r), s.operatorFamily) {
		return false
	}
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if s.cfg.AdminToken == "" || !ok || !secrets.Equal(token, s.cfg.AdminToken) {
		s.writeError(w, r, &apierr.Error{Status: http.StatusUnauthorized, Details: "Falta el token de operador válido: envía Authorization: Bearer <token>."})
		return false
	}
	return true
}

// publicRoute answers without credentials, counted per address in family f.
func (s *Server) publicRoute(f ratelimit.Family, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limit(w, r, "addr:"+clientAddr(r), f) {
			s.run(w, r, h)
		}
	})
}

// zone reads X-TIME-ZONE (also spelled X-TIMEZONE); nil when absent.
func (s *Server) zone(r *http.Request) (*time.Location, error) {
	name := r.Header.Get("X-Time-Zone")
	if name == "" {
		name = r.Header.Get("X-Timezone")
	}
	if name == "" {
		return nil, nil
	}
	if loc, ok := s.zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, apierr.Invalid(apierr.Field("X-TIME-ZONE", "La zona horaria '"+name+"' no existe: usa un nombre IANA, por ejemplo America/Mexico_City.", name, "", nil))
	}
	s.zones.Store(name, loc)
	return loc, nil
}

// noRoute answers every request no route matched: 405 when the path exists under another
// method, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	if !s.limit(w, r, "addr:"+clientAddr(r), s.anonymous) {
		return
	}
	var allowed []string
	if r.URL.Path != cleanPath(r.URL.Path) {
		// "//x", "/a/../x": no resource is named so (the router would redirect to one that is)
		s.writeError(w, r, apierr.NotFoundText(apierr.DetailsNotFound))
		return
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		s.writeError(w, r, &apierr.Error{Status: http.StatusMethodNotAllowed, Details: "Method Not Allowed",
			Header: http.Header{"Allow": {strings.Join(allowed, ", ")}}})
		return
	}
	s.writeError(w, r, apierr.NotFoundText(apierr.DetailsNotFound))
}
