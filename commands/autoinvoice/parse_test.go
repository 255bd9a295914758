package autoinvoice

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each auto-invoice command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	t.Run("settings get", func(t *testing.T) {
		testParse(t, newSettingsGetCmd, func(o *settingsGetOptions) { o.f = nil },
			parseCase[settingsGetOptions]{args: []string{"get"}},
			parseCase[settingsGetOptions]{args: []string{"get", "extra"}, usage: `unexpected argument "extra"`},
		)
	})
	t.Run("settings set", func(t *testing.T) {
		testParse(t, newSettingsSetCmd, func(o *settingsSetOptions) { o.f = nil },
			parseCase[settingsSetOptions]{args: []string{"set"}},
			parseCase[settingsSetOptions]{args: []string{"set", "--outside-month", "--outside-year", "--privacy-notice-url", "https://example.com/aviso"},
				want: settingsSetOptions{OutsideMonth: true, OutsideYear: true, PrivacyNoticeURL: "https://example.com/aviso"}},
			parseCase[settingsSetOptions]{args: []string{"set", "true"}, usage: `unexpected argument "true"`},
		)
	})
	t.Run("portal-name get", func(t *testing.T) {
		testParse(t, newPortalNameGetCmd, func(o *portalNameGetOptions) { o.f = nil },
			parseCase[portalNameGetOptions]{args: []string{"get"}},
			parseCase[portalNameGetOptions]{args: []string{"get", "mi-tienda"}, usage: `unexpected argument "mi-tienda"`},
		)
	})
	t.Run("portal-name check", func(t *testing.T) {
		testParse(t, newPortalNameCheckCmd, func(o *portalNameCheckOptions) { o.f = nil },
			parseCase[portalNameCheckOptions]{args: []string{"check", "mi-tienda"}, want: portalNameCheckOptions{Name: "mi-tienda"}},
			parseCase[portalNameCheckOptions]{args: []string{"check"}, usage: "missing argument: name"},
			parseCase[portalNameCheckOptions]{args: []string{"check", "a", "b"}, usage: `unexpected argument "b"`},
		)
	})
	t.Run("portal-name set", func(t *testing.T) {
		testParse(t, newPortalNameSetCmd, func(o *portalNameSetOptions) { o.f = nil },
			parseCase[portalNameSetOptions]{args: []string{"set", "mi-tienda"}, want: portalNameSetOptions{Name: "mi-tienda"}},
			parseCase[portalNameSetOptions]{args: []string{"set"}, usage: "missing argument: name"},
		)
	})
	t.Run("report", func(t *testing.T) {
		testParse(t, newReportCmd, func(o *reportOptions) { o.f = nil },
			parseCase[reportOptions]{args: []string{"report", "--from", "2026-11-01", "--to", "2026-11-30"},
				want: reportOptions{From: "2026-11-01", To: "2026-11-30"}},
			parseCase[reportOptions]{args: []string{"report", "--from", "2026-01-01", "--to", "2026-12-31", "--person", "p-1"},
				want: reportOptions{From: "2026-01-01", To: "2026-12-31", Person: "p-1"}},
			parseCase[reportOptions]{args: []string{"report", "--to", "2026-11-30"}, usage: `Required flag "from" not set`},
			parseCase[reportOptions]{args: []string{"report", "--from", "2026-11-01", "--to", "2026-11-30", "extra"}, usage: `unexpected argument "extra"`},
		)
	})
}

// parseCase is one command line and the options it gives, or the usage error it is refused with.
type parseCase[O any] struct {
	args  []string
	want  O      // the options, without the factory
	usage string // a usage error, and the run not called
}

// testParse runs each case through the command newCmd makes, with a run function that keeps the
// options; noFactory clears the options' factory so that they compare with want.
func testParse[O any](t *testing.T, newCmd func(*cmdutil.Factory, cmdutil.RunFunc[O]) *cli.Command, noFactory func(*O), cases ...parseCase[O]) {
	t.Helper()
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *O
			err := cmdtest.Parse(t, newCmd(f, func(_ *cli.Context, o *O) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) {
				t.Fatalf("err %v", err)
			}
			g := *got
			noFactory(&g)
			if !reflect.DeepEqual(g, c.want) {
				t.Fatalf("options %+v\nwant    %+v", g, c.want)
			}
		})
	}
}
