// Package cmdtest runs command lines in tests: through an app built like the binary's, with
// streams in memory, a fixed clock and a fake API that records what it receives.
package cmdtest

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

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// Result is what one command line did.
type Result struct {
	Code     int
	Out, Err string
}

// Opts sets up the streams of a test run.
type Opts struct {
	Stdin  string
	In     io.Reader // replaces stdin when set
	TTY    bool      // stdout and stderr are terminals
	InTTY  bool
	Now    time.Time
	Ctx    context.Context
	Config func(*cmdutil.Factory)
	// Out also receives stdout as it is written (a command that runs until stopped).
	Out io.Writer
}

// APIKey is the API key UseAPI sets.
const APIKey = "sk_test_0123456789abcdefWXYZ"

// Now is the clock of the tests.
var Now = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// App returns the builder of an app of the commands that newCmds build, set up as the binary's
// (cmdutil.Setup).
func App(newCmds ...func(*cmdutil.Factory) *cli.Command) func(*cmdutil.Factory) *cli.App {
	return func(f *cmdutil.Factory) *cli.App {
		app := &cli.App{Name: "timbra", HelpName: "timbra"}
		for _, n := range newCmds {
			app.Commands = append(app.Commands, n(f))
		}
		cmdutil.Setup(f, app)
		return app
	}
}

// Run runs one command line (without the program name) through the app newApp builds, with
// the streams and clock of o.
func Run(t *testing.T, newApp func(*cmdutil.Factory) *cli.App, o Opts, args ...string) Result {
	t.Helper()
	var out, errb bytes.Buffer
	var in io.Reader = strings.NewReader(o.Stdin)
	if o.In != nil {
		in = o.In
	}
	ios := &cmdutil.IOStreams{In: in, Out: &out, Err: &errb, InTTY: o.InTTY, OutTTY: o.TTY, ErrTTY: o.TTY}
	if o.Out != nil {
		ios.Out = io.MultiWriter(&out, o.Out)
	}
	f := cmdutil.NewFactory(ios, "dev")
	f.Now = func() time.Time { return Now }
	if !o.Now.IsZero() {
		f.Now = func() time.Time { return o.Now }
	}
	if o.Config != nil {
		o.Config(f)
	}
	ctx := o.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	code := cmdutil.Execute(ctx, f, newApp(f), args)
	return Result{Code: code, Out: out.String(), Err: errb.String()}
}

// Isolate gives the test its own configuration folder, the file backend for keys, and an
// environment without timbra variables. It returns the configuration folder.
func Isolate(t *testing.T) string {
	t.Helper()
	for _, k := range []string{
		"TIMBRA_BASE_URL", "TIMBRA_TENANT_KEY", "TIMBRA_API_KEY", "TIMBRA_PROFILE",
		"TIMBRA_ADMIN_TOKEN", "TIMBRA_ADMIN_TOKEN_FILE", "NO_COLOR", "TERM",
	} {
		Unsetenv(t, k)
	}
	dir := t.TempDir()
	t.Setenv("TIMBRA_CONFIG_DIR", dir)
	t.Setenv("TIMBRA_KEYRING", "file")
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the default operator token file
	return dir
}

func Unsetenv(t *testing.T, k string) {
	t.Helper()
	t.Setenv(k, "") // restores the old value after the test
	os.Unsetenv(k)
}

// Seen is one request the fake API received.
type Seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// FakeAPI is an httptest server answering envelopes; it records the requests.
type FakeAPI struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Seen
}

func NewFakeAPI(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *FakeAPI {
	t.Helper()
	f := &FakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		f.reqs = append(f.reqs, Seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: string(body)})
		f.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *FakeAPI) Requests() []Seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Seen(nil), f.reqs...)
}

func (f *FakeAPI) Last(t *testing.T) Seen {
	t.Helper()
	rs := f.Requests()
	if len(rs) == 0 {
		t.Fatal("the API received no request")
	}
	return rs[len(rs)-1]
}

// WriteEnvelope answers like the API: {data, succeeded, message, details, httpStatusCode, traceIdentifier}.
func WriteEnvelope(w http.ResponseWriter, status int, data any, details, trace string) {
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

func Failure(prop, msg string) map[string]any {
	return map[string]any{
		"propertyName": prop, "errorMessage": msg, "attemptedValue": nil, "customState": nil,
		"severity": 0, "errorCode": "NotEmptyValidator", "formattedMessagePlaceholderValues": map[string]any{},
	}
}

func WantCode(t *testing.T, r Result, code int) {
	t.Helper()
	if r.Code != code {
		t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.Code, code, r.Out, r.Err)
	}
}

func WantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

func WantNotContains(t *testing.T, what, got string, nots ...string) {
	t.Helper()
	for _, n := range nots {
		if strings.Contains(got, n) {
			t.Errorf("%s contains %q:\n%s", what, n, got)
		}
	}
}

// UseAPI points the client at base with keys given by the environment.
func UseAPI(t *testing.T, base string) {
	t.Helper()
	t.Setenv("TIMBRA_BASE_URL", base)
	t.Setenv("TIMBRA_TENANT_KEY", "tenant-1")
	t.Setenv("TIMBRA_API_KEY", APIKey)
}

// Parse runs one command line through cmd alone, as run does (flags may follow the arguments),
// with the run function the test gave cmd: what the flags and arguments Parse into, with no
// server and nothing sent.
func Parse(t *testing.T, cmd *cli.Command, args ...string) error {
	t.Helper()
	var out bytes.Buffer
	app := &cli.App{Name: "timbra", Commands: []*cli.Command{cmd}, Writer: &out, ErrWriter: &out,
		ExitErrHandler: func(*cli.Context, error) {}}
	return app.RunContext(context.Background(), append([]string{"timbra"}, cmdutil.ReorderArgs(app.Commands, nil, args)...))
}

// WantUsage checks that a command line was refused with the usage error usage, its run not
// called.
func WantUsage(t *testing.T, err error, ran bool, usage string) {
	t.Helper()
	if ran || err == nil || !strings.Contains(err.Error(), usage) {
		t.Fatalf("err %v (ran: %v), want a usage error %q", err, ran, usage)
	}
}
