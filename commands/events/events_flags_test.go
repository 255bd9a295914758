package events

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each events command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	f.Now = func() time.Time { return cmdtest.Now }
	errRan := errors.New("ran")
	t.Run("list", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  listOptions
			usage string // a usage error, and the run not called
		}{
			{[]string{"list"}, listOptions{f: f, PagingOptions: cmdutil.PagingOptions{Page: 1}}, ""},
			{[]string{"list", "--type", " invoice.canceled ", "--related", " inv-7 ", "--from", "2025-03-01", "--to", "2025-03-09", "--page", "2", "--page-size", "5"},
				listOptions{f: f, Type: "invoice.canceled", Related: "inv-7", From: "2025-03-01T00:00:00.000Z", To: "2025-03-09T23:59:59.999Z",
					PagingOptions: cmdutil.PagingOptions{Page: 2, PageSize: 5}}, ""},
			{[]string{"list", "--from", "90m", "--to", "2025-03-10T11:00:00-06:00"},
				listOptions{f: f, From: "2025-03-10T10:30:00.000Z", To: "2025-03-10T17:00:00.000Z", PagingOptions: cmdutil.PagingOptions{Page: 1}}, ""},
			{[]string{"list", "--from", "yesterday"}, listOptions{}, `invalid value "yesterday" for --from: want an RFC 3339 time`},
			{[]string{"list", "--to", "-1d"}, listOptions{}, `invalid value "-1d" for --to`},
			{[]string{"list", "--page", "0"}, listOptions{}, "invalid value 0 for --page: pages start at 1"},
			{[]string{"list", "extra"}, listOptions{}, `unexpected argument "extra"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *listOptions
				err := cmdtest.Parse(t, newListCmd(f, func(_ *cli.Context, o *listOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
					t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
				}
			})
		}
	})
	t.Run("get", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  getOptions
			usage string
		}{
			{[]string{"get", eventID}, getOptions{f: f, ID: eventID}, ""},
			{[]string{"get"}, getOptions{}, "missing argument: event ID"},
			{[]string{"get", eventID, "x"}, getOptions{}, `unexpected argument "x"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *getOptions
				err := cmdtest.Parse(t, newGetCmd(f, func(_ *cli.Context, o *getOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
					t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
				}
			})
		}
	})
	t.Run("resend", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  resendOptions
			usage string
		}{
			{[]string{"resend", eventID}, resendOptions{f: f, ID: eventID, Timeout: time.Minute}, ""},
			{[]string{"resend", eventID, "--webhook", hookID, "--wait", "--timeout", "5s"},
				resendOptions{f: f, ID: eventID, WebhookID: hookID, Wait: true, Timeout: 5 * time.Second}, ""},
			{[]string{"resend", eventID, "--webhook", " "}, resendOptions{}, "--webhook: give a webhook ID"},
			{[]string{"resend", eventID, "--wait", "--timeout", "0s"}, resendOptions{}, "invalid value 0s for --timeout: give a positive duration such as 30s"},
			{[]string{"resend", "--webhook", hookID}, resendOptions{}, "missing argument: event ID"},
			// many at once
			{[]string{"resend", "--since", "15m", "--type", "invoice.*", "--type", "webhook.test", "--to-listener", "--session", "api"},
				resendOptions{f: f, Since: cmdtest.Now.Add(-15 * time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"), Types: []string{"invoice.*", "webhook.test"},
					Session: "api", Timeout: time.Minute}, ""},
			{[]string{"resend", eventID, "--since", "15m"}, resendOptions{}, "give an event ID or --since, not both"},
			{[]string{"resend", eventID, "--type", "invoice.canceled"}, resendOptions{}, "--type needs --since"},
			{[]string{"resend", "--since", "15m", "--wait"}, resendOptions{}, "--wait follows one resend"},
			{[]string{"resend", "--since", "yesterday"}, resendOptions{}, `invalid value "yesterday" for --since`},
			{[]string{"resend", eventID, "--webhook", hookID, "--session", "api"}, resendOptions{}, "--webhook goes to a webhook: leave out --to-listener and --session"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *resendOptions
				err := cmdtest.Parse(t, newResendCmd(f, func(_ *cli.Context, o *resendOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
					t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
				}
			})
		}
	})
}
