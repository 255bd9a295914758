package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// result is what one command line did.
type result struct {
	code     int
	out, err string
}

// runOpts sets up the streams of a test run.
type runOpts struct {
	stdin  string
	in     io.Reader // replaces stdin when set
	tty    bool      // stdout and stderr are terminals
	inTTY  bool
	now    time.Time
	ctx    context.Context
	config func(*Factory)
}

// testNow is the clock of the tests.
var testNow = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

func run1(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	var in io.Reader = strings.NewReader(o.stdin)
	if o.in != nil {
		in = o.in
	}
	ios := &IOStreams{In: in, Out: &out, Err: &errb, InTTY: o.inTTY, OutTTY: o.tty, ErrTTY: o.tty}
	f := NewFactory(ios)
	f.Now = func() time.Time { return testNow }
	if !o.now.IsZero() {
		f.Now = func() time.Time { return o.now }
	}
	if o.config != nil {
		o.config(f)
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	code := run(ctx, args, f)
	return result{code: code, out: out.String(), err: errb.String()}
}

func runArgs(t *testing.T, args ...string) result {
	t.Helper()
	return run1(t, runOpts{}, args...)
}

// isolate gives the test its own configuration folder, the file backend for keys, and an
// environment without timbra variables. It returns the configuration folder.
func isolate(t *testing.T) string {
	t.Helper()
	for _, k := range []string{
		"TIMBRA_BASE_URL", "TIMBRA_TENANT_KEY", "TIMBRA_API_KEY", "TIMBRA_PROFILE",
		"TIMBRA_ADMIN_TOKEN", "TIMBRA_ADMIN_TOKEN_FILE", "NO_COLOR", "TERM",
	} {
		unsetenv(t, k)
	}
	dir := t.TempDir()
	t.Setenv("TIMBRA_CONFIG_DIR", dir)
	t.Setenv("TIMBRA_KEYRING", "file")
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the default operator token file
	return dir
}

func unsetenv(t *testing.T, k string) {
	t.Helper()
	t.Setenv(k, "") // restores the old value after the test
	os.Unsetenv(k)
}

// seen is one request the fake API received.
type seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// fakeAPI is an httptest server answering envelopes; it records the requests.
type fakeAPI struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []seen
}

func newFakeAPI(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		f.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func (f *fakeAPI) last(t *testing.T) seen {
	t.Helper()
	rs := f.requests()
	if len(rs) == 0 {
		t.Fatal("the API received no request")
	}
	return rs[len(rs)-1]
}

// writeEnvelope answers like the API: {data, succeeded, message, details, httpStatusCode, traceIdentifier}.
func writeEnvelope(w http.ResponseWriter, status int, data any, details, trace string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	ok := status < 400
	msg := ""
	if !ok {
		msg = http.StatusText(status)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"data": data, "succeeded": ok, "message": msg, "details": details,
		"httpStatusCode": status, "traceIdentifier": trace,
	})
}

func failure(prop, msg string) map[string]any {
	return map[string]any{
		"propertyName": prop, "errorMessage": msg, "attemptedValue": nil, "customState": nil,
		"severity": 0, "errorCode": "NotEmptyValidator", "formattedMessagePlaceholderValues": map[string]any{},
	}
}

func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.out, r.err)
	}
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

func wantNotContains(t *testing.T, what, got string, nots ...string) {
	t.Helper()
	for _, n := range nots {
		if strings.Contains(got, n) {
			t.Errorf("%s contains %q:\n%s", what, n, got)
		}
	}
}

// useAPI points the client at base with keys given by the environment.
func useAPI(t *testing.T, base string) {
	t.Helper()
	t.Setenv("TIMBRA_BASE_URL", base)
	t.Setenv("TIMBRA_TENANT_KEY", "tenant-1")
	t.Setenv("TIMBRA_API_KEY", "sk_test_0123456789abcdefWXYZ")
}

// parse runs one command line through cmd alone, as run does (flags may follow the arguments),
// with the run function the test gave cmd: what the flags and arguments parse into, with no
// server and nothing sent.
func parse(t *testing.T, cmd *cli.Command, args ...string) error {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{Name: "timbra", Commands: []*cli.Command{cmd}, Writer: &out, ErrWriter: &out,
		ExitErrHandler: func(*cli.Context, error) {}}
	return app.RunContext(context.Background(), append([]string{"timbra"}, reorderArgs(app.Commands, nil, args)...))
}

// wantUsage checks that a command line was refused with the usage error usage, its run not
// called.
func wantUsage(t *testing.T, err error, ran bool, usage string) {
	t.Helper()
	if ran || err == nil || !strings.Contains(err.Error(), usage) {
		t.Fatalf("err %v (ran: %v), want a usage error %q", err, ran, usage)
	}
}
