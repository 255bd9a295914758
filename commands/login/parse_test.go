package login

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what login and logout parse a command line into, apart from running
// them (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("login", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  loginOptions
			usage string // a usage error, and the run not called
		}{
			{[]string{"login"}, loginOptions{}, ""},
			{[]string{"login", "--base-url", "http://127.0.0.1:8080", "--tenant-key", "tenant-1", "--api-key-stdin"},
				loginOptions{BaseURL: "http://127.0.0.1:8080", TenantKey: "tenant-1", APIKeyStdin: true}, ""},
			{[]string{"login", "sk_test_0123456789"}, loginOptions{}, `unexpected argument "sk_test_0123456789"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *loginOptions
				err := cmdtest.Parse(t, newLoginCmd(f, func(_ *cli.Context, o *loginOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) {
					t.Fatalf("err %v", err)
				}
				g := *got
				g.f = nil
				if g != c.want {
					t.Fatalf("options %+v\nwant    %+v", g, c.want)
				}
			})
		}
	})
	t.Run("logout", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"logout"}, ""},
			{[]string{"logout", "live"}, `unexpected argument "live"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *logoutOptions
				err := cmdtest.Parse(t, newLogoutCmd(f, func(_ *cli.Context, o *logoutOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.f != f {
					t.Fatalf("err %v, options %+v", err, got)
				}
			})
		}
	})
}
