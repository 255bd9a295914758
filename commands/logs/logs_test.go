package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what `timbra logs tail` parses a command line into, apart from any
// server.
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	for _, c := range []struct {
		args  []string
		want  tailOptions
		usage string
	}{
		{[]string{"tail"}, tailOptions{f: f, JSON: true}, ""}, // stdout is no terminal: JSON
		{[]string{"tail", "--format", "text"}, tailOptions{f: f}, ""},
		{[]string{"tail", "--filter-status-code", "4xx,500", "--filter-status-code", "201", "--filter-http-method", "post,delete",
			"--filter-request-path", "/api/v4/invoices/,/api/v4/invoices/*/xml", "--format", "json"},
			tailOptions{f: f, Statuses: []string{"4XX", "500", "201"}, Methods: []string{"POST", "DELETE"},
				Paths: []string{"/api/v4/invoices", "/api/v4/invoices/*/xml"}, JSON: true}, ""},
		{[]string{"tail", "x"}, tailOptions{}, `unexpected argument "x"`},
		{[]string{"tail", "--filter-status-code", "4X"}, tailOptions{}, `invalid value "4X" for --filter-status-code: give a code (404) or a class (4XX)`},
		{[]string{"tail", "--filter-status-code", "600"}, tailOptions{}, `invalid value "600" for --filter-status-code`},
		{[]string{"tail", "--filter-http-method", "FETCH"}, tailOptions{}, `invalid value "FETCH" for --filter-http-method`},
		{[]string{"tail", "--filter-request-path", "api/v4"}, tailOptions{}, `invalid value "api/v4" for --filter-request-path`},
		{[]string{"tail", "--filter-request-path", "/api/[v4"}, tailOptions{}, `invalid value "/api/[v4" for --filter-request-path`},
		{[]string{"tail", "--format", "yaml"}, tailOptions{}, `invalid value "yaml" for --format: use json or text`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *tailOptions
			err := cmdtest.Parse(t, newTailCmd(f, func(_ *cli.Context, o *tailOptions) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	o := &tailOptions{Statuses: []string{"4XX", "500"}, Methods: []string{"POST", "GET"}, Paths: []string{"/api/v4/invoices", "/api/v4/people/*/employee"}}
	for _, c := range []struct {
		e    api.RequestLogEntry
		want bool
	}{
		{api.RequestLogEntry{Method: "POST", Path: "/api/v4/invoices", Status: 400}, true},
		{api.RequestLogEntry{Method: "GET", Path: "/api/v4/invoices/abc/xml", Status: 404}, true},
		{api.RequestLogEntry{Method: "GET", Path: "/api/v4/invoicesX", Status: 404}, false},
		{api.RequestLogEntry{Method: "GET", Path: "/api/v4/people/p-1/employee", Status: 500}, true},
		{api.RequestLogEntry{Method: "GET", Path: "/api/v4/people/p-1/employer", Status: 500}, false},
		{api.RequestLogEntry{Method: "GET", Path: "/api/v4/invoices", Status: 200}, false},
		{api.RequestLogEntry{Method: "DELETE", Path: "/api/v4/invoices", Status: 400}, false},
		{api.RequestLogEntry{Method: "POST", Path: "/api/v4/invoices", Status: 502}, false},
	} {
		if got := o.match(c.e); got != c.want {
			t.Errorf("%+v: %v", c.e, got)
		}
	}
}

// safeBuffer is stdout as the command writes it, read while it runs.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// sse writes one event of the stream.
func sse(w io.Writer, event string, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	w.(http.Flusher).Flush()
}

// TestTail: entries are printed as they arrive, filtered; a tail the server drops reconnects,
// and the recent entries the new stream replays are not printed twice; Ctrl-C ends it.
func TestTail(t *testing.T) {
	cmdtest.Isolate(t)
	old := retryFirst
	retryFirst = time.Millisecond
	t.Cleanup(func() { retryFirst = old })
	at := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)
	a := api.RequestLogEntry{Time: at, Method: "GET", Path: "/api/v4/people", Query: []string{"pageSize"}, Status: 200, LatencyMs: 0.42, RequestID: "00-a-01", PersonID: "p-1"}
	b := api.RequestLogEntry{Time: at, Method: "POST", Path: "/api/v4/invoices", Status: 400, LatencyMs: 12.5, RequestID: "00-b-01", PersonID: "p-1", Error: "Type: El tipo de evento 'x' no existe."}
	c := api.RequestLogEntry{Time: at, Method: "GET", Path: "/api/v4/invoices/i-1/xml", Status: 500, LatencyMs: 3, RequestID: "00-c-01", PersonID: "p-1", Error: "Error interno."}
	var mu sync.Mutex
	conns := 0
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != api.RequestLogPath || r.Header.Get("X-API-KEY") != cmdtest.APIKey {
			cmdtest.WriteEnvelope(w, 401, nil, "unauthorized", "t")
			return
		}
		mu.Lock()
		conns++
		n := conns
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		sse(w, "ready", map[string]string{"tenantId": "t-1", "personId": "p-1", "scope": "tenant"})
		if n == 1 {
			sse(w, "request", a)
			fmt.Fprint(w, ": ping\n\n")
			sse(w, "request", b)
			sse(w, "dropped", api.RequestLogDropped{Message: "behind"})
			return
		}
		sse(w, "request", a) // replayed: not printed again
		sse(w, "request", c)
		<-r.Context().Done()
	})
	cmdtest.UseAPI(t, srv.URL)

	run := func(wantLine string, args ...string) cmdtest.Result {
		t.Helper()
		mu.Lock()
		conns = 0
		mu.Unlock()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := &safeBuffer{}
		go func() {
			for !strings.Contains(out.String(), wantLine) {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		return run1(t, cmdtest.Opts{Ctx: ctx, Out: out, Config: func(f *cmdutil.Factory) { f.TimeZone = "UTC" }}, args...)
	}

	r := run("00-c-01", "logs", "tail", "--format", "text")
	cmdtest.WantCode(t, r, 0)
	want := "2026-03-10 18:00:00  GET    /api/v4/people  200 OK  420µs  00-a-01\n" +
		"2026-03-10 18:00:00  POST   /api/v4/invoices  400 Bad Request  13ms  00-b-01  Type: El tipo de evento 'x' no existe.\n" +
		"2026-03-10 18:00:00  GET    /api/v4/invoices/i-1/xml  500 Internal Server Error  3ms  00-c-01  Error interno.\n"
	if r.Out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.Out, want)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "Ready: tailing the API requests of tenant t-1, every person's requests; Ctrl-C to stop\n",
		"Disconnected: the server dropped this tail: it fell behind (more than 256 requests); reconnecting in 1ms\n", "Reconnected.\n")

	// filtered, as JSON lines with their schema version
	r = run("00-c-01", "logs", "tail", "--filter-status-code", "4XX,5XX", "--filter-request-path", "/api/v4/invoices")
	cmdtest.WantCode(t, r, 0)
	lines := strings.Split(strings.TrimSpace(r.Out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"v":1,"time":"2026-03-10T18:00:00Z","method":"POST","path":"/api/v4/invoices","status":400,`) ||
		!strings.Contains(lines[1], `"requestId":"00-c-01"`) {
		t.Errorf("stdout:\n%s", r.Out)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "(status 4XX,5XX; path /api/v4/invoices)")
}

// TestTailRefused: a refusal of the API ends the command with its text; no reconnection.
func TestTailRefused(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cmdtest.WriteEnvelope(w, 401, nil, "Credenciales inválidas.", "t")
	})
	cmdtest.UseAPI(t, srv.URL)
	r := run1(t, cmdtest.Opts{}, "logs", "tail")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "401: Credenciales inválidas.\n" || len(srv.Requests()) != 1 {
		t.Errorf("stderr %q, %d requests", r.Err, len(srv.Requests()))
	}
}
