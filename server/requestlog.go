package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/requestlog"
)

// The tenant's live request log (GET /api/v4/logs/tail, `timbra logs tail`): serveHTTP
// publishes every request that authenticated (its tenant and person set by guard) once it is
// answered; the route streams them as Server-Sent Events.

// requestLogPattern is the route of the tail: its own requests are not in the log (each would
// be published only when its tail ends).
const requestLogPattern = "GET " + api.RequestLogPath

// Timings of a tail: a comment line keeps idle proxies and the client's liveness check content,
// and a write that takes longer than tailWriteTimeout ends a reader that stopped reading.
var (
	tailPing         = 15 * time.Second
	tailWriteTimeout = 10 * time.Second
)

// maxErrorText bounds the error text of an entry.
const maxErrorText = 300

type infoKey struct{}

// requestInfo is what the layers of a request learn for its log entry.
type requestInfo struct {
	tenant, person string
	err            string
}

// errorText is an error answer's text for the log: the details, then the first failure.
func errorText(e *apierr.Error) string {
	text := e.Details
	if len(e.Failures) > 0 {
		f := e.Failures[0]
		prop := f.PropertyName
		if prop == "" {
			prop = "$"
		}
		text = prop + ": " + f.ErrorMessage
		if n := len(e.Failures); n > 1 {
			text += fmt.Sprintf(" (and %d more)", n-1)
		}
	}
	if text == "" {
		text = http.StatusText(e.Status)
	}
	if len(text) > maxErrorText {
		text = strings.ToValidUTF8(text[:maxErrorText], "") + "…"
	}
	return text
}

// logEntry is a request's entry: never a body, a header or a query value.
func logEntry(r *http.Request, info *requestInfo, status int, start time.Time, trace string) requestlog.Entry {
	var names []string
	if r.URL.RawQuery != "" {
		for k := range r.URL.Query() {
			names = append(names, k)
		}
		slices.Sort(names)
	}
	return requestlog.Entry{
		Time: start.UTC(), Method: r.Method, Path: r.URL.Path, Query: names, Status: status,
		LatencyMs: float64(time.Since(start).Microseconds()) / 1000, RequestID: trace, PersonID: info.person, Error: info.err,
	}
}

// tailRequests streams the caller's tenant's requests (the owner's view: every person's; anyone
// else's: their own) as Server-Sent Events: `ready`, then a `request` per entry (the recent
// ones first), `: ping` comments, and `dropped` before the end of a tail that fell behind.
func (s *Server) tailRequests(w http.ResponseWriter, r *http.Request) {
	c := caller(r)
	person := c.PersonID
	if c.IsOwner {
		person = ""
	}
	t := s.requests.Open(c.TenantID, person)
	defer t.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no") // a proxy in front must not hold the stream
	h.Set("X-Trace-Id", traceID(r.Context()))
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(event string, v any) error {
		_ = rc.SetWriteDeadline(time.Now().Add(tailWriteTimeout))
		var err error
		if event == "" {
			_, err = fmt.Fprint(w, ": ping\n\n")
		} else {
			b, _ := json.Marshal(v)
			_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		}
		if err != nil {
			return err
		}
		return rc.Flush()
	}
	scope := "tenant"
	if person != "" {
		scope = "person"
	}
	if send("ready", map[string]string{"tenantId": c.TenantID, "personId": c.PersonID, "scope": scope}) != nil {
		return
	}
	ping := time.NewTicker(tailPing)
	defer ping.Stop()
	for {
		select {
		case e, ok := <-t.C:
			if !ok {
				if t.Dropped() {
					_ = send("dropped", api.RequestLogDropped{Message: requestlog.DropMessage})
				}
				return
			}
			if send("request", e) != nil {
				return
			}
		case <-ping.C:
			if send("", nil) != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
