package admin

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each admin command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("tenants create", func(t *testing.T) {
		var got *tenantsCreateOptions
		run := func(_ *cli.Context, o *tenantsCreateOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newTenantsCreateCmd(NewOptions(f), run), "create", "--owner-email", "ana@example.com",
			"--owner-name", "Ana López", "--base-url", "http://127.0.0.1:8080", "--admin-token-file", "tok")
		if !errors.Is(err, errRan) || got.OwnerEmail != "ana@example.com" || got.OwnerName != "Ana López" ||
			got.BaseURL != "http://127.0.0.1:8080" || got.TokenFile != "tok" || got.f != f {
			t.Fatalf("err %v, options %+v %+v", err, got, got.Options)
		}
		for _, c := range []struct {
			args  []string
			usage string // a usage error, and the run not called
		}{
			{[]string{"create"}, "missing flag --owner-email"},
			{[]string{"create", "--owner-email", " "}, "missing flag --owner-email"},
			{[]string{"create", "--owner-email", "a@b.mx", "x"}, `unexpected argument "x"`},
			{[]string{"create", "--owner-email", "a@b.mx", "--base-url", "ftp://x"}, "invalid base URL"},
		} {
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newTenantsCreateCmd(NewOptions(f), run), c.args...), got != nil, c.usage)
		}
	})
	t.Run("tenants list", func(t *testing.T) {
		var got *tenantsListOptions
		run := func(_ *cli.Context, o *tenantsListOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newTenantsListCmd(NewOptions(f), run), "list", "--base-url", "http://h:1")
		if !errors.Is(err, errRan) || got.BaseURL != "http://h:1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newTenantsListCmd(NewOptions(f), run), "list", "x"), got != nil, `unexpected argument "x"`)
	})
	t.Run("credits grant", func(t *testing.T) {
		var got *creditsGrantOptions
		run := func(_ *cli.Context, o *creditsGrantOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newCreditsGrantCmd(NewOptions(f), run), "grant", "--tenant", "tk-1", "--person", "p-9", "--type", "2", "--amount", "-5")
		if !errors.Is(err, errRan) || got.Tenant != "tk-1" || got.PersonID != "p-9" || got.Type != 2 || got.Amount != -5 {
			t.Fatalf("err %v, options %+v", err, got)
		}
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"grant", "--type", "1", "--amount", "1"}, "missing flag --tenant"},
			{[]string{"grant", "--tenant", "t"}, "missing flag --type"},
			{[]string{"grant", "--tenant", "t", "--type", "4", "--amount", "1"}, `invalid value "4" for --type`},
			{[]string{"grant", "--tenant", "t", "--type", "1"}, "missing flag --amount"},
			{[]string{"grant", "--tenant", "t", "--type", "1", "--amount", "1.5"}, `invalid value "1.5" for --amount`},
		} {
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newCreditsGrantCmd(NewOptions(f), run), c.args...), got != nil, c.usage)
		}
	})
	t.Run("subscriptions get", func(t *testing.T) {
		var got *subscriptionsGetOptions
		run := func(_ *cli.Context, o *subscriptionsGetOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newSubscriptionsGetCmd(NewOptions(f), run), "get", "tk-1"); !errors.Is(err, errRan) || got.Tenant != "tk-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newSubscriptionsGetCmd(NewOptions(f), run), "get"), got != nil, "missing argument: tenant key")
	})
	t.Run("subscriptions set", func(t *testing.T) {
		var got *subscriptionsSetOptions
		run := func(_ *cli.Context, o *subscriptionsSetOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newSubscriptionsSetCmd(NewOptions(f), run), "set", "tk-1", "--download-seats", "3")
		if !errors.Is(err, errRan) || got.Tenant != "tk-1" || got.AutoCfdi != nil || got.DownloadSeats == nil || *got.DownloadSeats != 3 {
			t.Fatalf("seats: err %v, options %+v", err, got)
		}
		err = cmdtest.Parse(t, newSubscriptionsSetCmd(NewOptions(f), run), "set", "tk-1", "--auto-cfdi=false")
		if !errors.Is(err, errRan) || got.AutoCfdi == nil || *got.AutoCfdi || got.DownloadSeats != nil {
			t.Fatalf("--auto-cfdi=false: err %v, options %+v", err, got)
		}
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"set", "tk-1"}, "nothing to change"},
			{[]string{"set", "tk-1", "--download-seats", "-1"}, "give 0 or more"},
			{[]string{"set", "--auto-cfdi"}, "missing argument: tenant key"},
		} {
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newSubscriptionsSetCmd(NewOptions(f), run), c.args...), got != nil, c.usage)
		}
	})
	t.Run("download-rules", func(t *testing.T) {
		for _, c := range []struct{ name, status string }{{"approve", "2"}, {"reject", "-1"}, {"pending", "1"}} {
			var got *ruleStatusOptions
			run := func(_ *cli.Context, o *ruleStatusOptions) error { got = o; return errRan }
			err := cmdtest.Parse(t, newRuleStatusCmd(NewOptions(f), run, c.name, "", c.status), c.name, "tk-1", "r-1")
			if !errors.Is(err, errRan) || got.Tenant != "tk-1" || got.RuleID != "r-1" || got.Status != c.status {
				t.Fatalf("%s: err %v, options %+v", c.name, err, got)
			}
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newRuleStatusCmd(NewOptions(f), run, c.name, "", c.status), c.name, "tk-1"), got != nil, "missing argument: rule ID")
		}
	})
}
