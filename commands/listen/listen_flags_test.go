package listen

import (
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/listener"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what `timbra listen` parses a command line into, apart from
// connecting to anything.
func TestCommandsParse(t *testing.T) {
	factory := func(outTTY bool, output string) *cmdutil.Factory {
		f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}, OutTTY: outTTY}, "dev")
		f.Now = func() time.Time { return cmdtest.Now }
		if output != "" {
			f.Output = output
		}
		return f
	}
	pipe, term, termJSON := factory(false, ""), factory(true, ""), factory(true, cmdutil.OutputJSON)
	errRan := errors.New("ran")
	for _, c := range []struct {
		f     *cmdutil.Factory
		args  []string
		want  listenOptions
		usage string // a usage error, and the run not called
	}{
		{pipe, []string{"listen", "--forward-to", "3000", "--events", "invoice.stamped,invoice.cancelled", "--forward-timeout", "2s", "--format", "json"},
			listenOptions{f: pipe, Session: "default", Routes: []listenRoute{{URL: "http://localhost:3000"}}, Events: []string{"invoice.stamped", "invoice.cancelled"}, Headers: &headerFlag{},
				ForwardTimeout: 2 * time.Second, JSON: true}, ""},
		{pipe, []string{"listen", "--forward-to", "https://localhost:8443/hooks", "--skip-verify", "--headers", "Authorization: Bearer a,b", "--headers", "X-Dev: 1", "--format", "text"},
			listenOptions{f: pipe, Session: "default", Routes: []listenRoute{{URL: "https://localhost:8443/hooks"}}, Headers: &headerFlag{h: http.Header{"Authorization": {"Bearer a,b"}, "X-Dev": {"1"}}},
				ForwardTimeout: listener.DefaultForwardTimeout, SkipVerify: true}, ""},
		// the format follows stdout: JSON lines off a terminal or with -o json, else the live view
		{pipe, []string{"listen"}, listenOptions{f: pipe, Session: "default", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{term, []string{"listen"}, listenOptions{f: term, Session: "default", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, TUI: true}, ""},
		{termJSON, []string{"listen"}, listenOptions{f: termJSON, Session: "default", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{term, []string{"listen", "--format", "text"}, listenOptions{f: term, Session: "default", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout}, ""},
		{term, []string{"listen", "--print-secret"}, listenOptions{f: term, Session: "default", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, PrintSecret: true}, ""},
		{pipe, []string{"listen", "--print-secret", "--skip-verify"},
			listenOptions{f: pipe, Session: "default", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, SkipVerify: true, PrintSecret: true, JSON: true}, ""},
		// a port (or port/path, or URL) as the argument is the target
		{pipe, []string{"listen", "3000"}, listenOptions{f: pipe, Session: "default", Routes: []listenRoute{{URL: "http://localhost:3000"}}, Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{term, []string{"listen", "3000/hooks", "--events", "invoice.canceled"}, listenOptions{f: term, Session: "default", Routes: []listenRoute{{URL: "http://localhost:3000/hooks"}}, Events: []string{"invoice.canceled"},
			Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, TUI: true}, ""},
		{pipe, []string{"listen", "https://localhost:8443/h", "--skip-verify"}, listenOptions{f: pipe, Session: "default", Routes: []listenRoute{{URL: "https://localhost:8443/h"}}, Headers: &headerFlag{},
			ForwardTimeout: listener.DefaultForwardTimeout, SkipVerify: true, JSON: true}, ""},
		// routes: repeatable, each with the types it takes before '='
		{pipe, []string{"listen", "--forward-to", "invoice.*,webhook.test=localhost:3000/hooks", "--forward-to", "4000/all?a=b", "--forward-to", "*=5000"},
			listenOptions{f: pipe, Session: "default", Routes: []listenRoute{{Types: []string{"invoice.*", "webhook.test"}, URL: "http://localhost:3000/hooks"},
				{URL: "http://localhost:4000/all?a=b"}, {URL: "http://localhost:5000"}}, Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{pipe, []string{"listen", "--forward-to", "http://localhost:3000/h?x=1", "--forward-from-webhooks", "3000"},
			listenOptions{f: pipe, Session: "default", Routes: []listenRoute{{URL: "http://localhost:3000/h?x=1"}}, FromWebhooks: "http://localhost:3000", Headers: &headerFlag{},
				ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{pipe, []string{"listen", "--forward-from-webhooks", "https://localhost:8443", "--skip-verify"},
			listenOptions{f: pipe, Session: "default", FromWebhooks: "https://localhost:8443", Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, SkipVerify: true, JSON: true}, ""},
		{pipe, []string{"listen", "--forward-to", "invoice*=3000"}, listenOptions{}, `invalid value "invoice*=3000" for --forward-to: the pattern "invoice*": a * ends a namespace (invoice.*)`},
		{pipe, []string{"listen", "--forward-to", "invoice.canceled,=3000"}, listenOptions{}, `an empty event type before '='`},
		{pipe, []string{"listen", "--forward-to", "invoice.canceled=ftp://x"}, listenOptions{}, `the scheme "ftp" is not http or https`},
		{pipe, []string{"listen", "--forward-from-webhooks", "ftp://x"}, listenOptions{}, `invalid value "ftp://x" for --forward-from-webhooks`},
		// sessions
		{pipe, []string{"listen", "3000", "--session", "api"}, listenOptions{f: pipe, Session: "api", Routes: []listenRoute{{URL: "http://localhost:3000"}}, Headers: &headerFlag{},
			ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		// catch-up
		{pipe, []string{"listen", "--since", "15m"}, listenOptions{f: pipe, Session: "default", Since: cmdtest.Now.Add(-15 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"),
			Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{pipe, []string{"listen", "--since", "0195A7C4-2B1E-7C3D-9F00-1A2B3C4D5E6F"}, listenOptions{f: pipe, Session: "default", Since: "0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f",
			Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{pipe, []string{"listen", "--since", "2025-03-10T06:00:00-06:00"}, listenOptions{f: pipe, Session: "default", Since: "2025-03-10T12:00:00.000Z",
			Headers: &headerFlag{}, ForwardTimeout: listener.DefaultForwardTimeout, JSON: true}, ""},
		{pipe, []string{"listen", "--since", "yesterday"}, listenOptions{}, `invalid value "yesterday" for --since: give how long ago (15m, 2h, 7d), an RFC 3339 time or an event ID`},
		{pipe, []string{"listen", "--session", "a b"}, listenOptions{}, `invalid value "a b" for --session: give 1 to 40 letters, digits, '.', '_' or '-'`},
		{pipe, []string{"listen", "3000", "--forward-to", "4000"}, listenOptions{}, `give the target once: "3000" or --forward-to`},
		{pipe, []string{"listen", "99999"}, listenOptions{}, `invalid target "99999": invalid port "99999"`},
		{pipe, []string{"listen", "3000", "4000"}, listenOptions{}, `unexpected argument "3000"`},
		{pipe, []string{"listen", "extra"}, listenOptions{}, `unexpected argument "extra": give the port to forward to (timbra listen 3000) or --forward-to`},
		{pipe, []string{"listen", "--forward-to", "ftp://x"}, listenOptions{}, `invalid value "ftp://x" for --forward-to: the scheme "ftp" is not http or https`},
		{pipe, []string{"listen", "--headers", "X-A: 1"}, listenOptions{}, "--headers needs --forward-to or --forward-from-webhooks"},
		{pipe, []string{"listen", "--skip-verify"}, listenOptions{}, "--skip-verify needs --forward-to or --forward-from-webhooks"},
		{pipe, []string{"listen", "--forward-timeout", "2s"}, listenOptions{}, "--forward-timeout needs --forward-to or --forward-from-webhooks"},
		{pipe, []string{"listen", "--forward-to", "3000", "--headers", "nocolon"}, listenOptions{}, "want 'NAME: VALUE'"},
		{pipe, []string{"listen", "--forward-to", "3000", "--headers", "webhook-signature: v1,x"}, listenOptions{}, "Webhook-Signature is set by timbra listen"},
		{pipe, []string{"listen", "--forward-to", "3000", "--forward-timeout", "0s"}, listenOptions{}, "invalid value 0s for --forward-timeout"},
		{pipe, []string{"listen", "--forward-to", "3000", "--forward-timeout", "31s"}, listenOptions{}, "invalid value 31s for --forward-timeout: give a duration from 1ms to 30s (the server waits 40s for the outcome)"},
		{pipe, []string{"listen", "--format", "yaml"}, listenOptions{}, `invalid value "yaml" for --format: use json or text`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *listenOptions
			err := cmdtest.Parse(t, newListenCmd(c.f, func(_ *cli.Context, o *listenOptions) error { got = o; return errRan }), c.args...)
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
