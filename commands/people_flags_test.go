package commands

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

// TestPeopleCommandsParse checks what each people command parses a command line into, apart
// from running it (each constructor takes the run function).
func TestPeopleCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("list", func(t *testing.T) {
		for _, c := range []struct {
			args       []string
			page, size int
			usage      string // a usage error, and the run not called
		}{
			{[]string{"list"}, 1, 0, ""},
			{[]string{"list", "--page", "2", "--page-size", "5"}, 2, 5, ""},
			{[]string{"list", "--page", "0"}, 0, 0, "pages start at 1"},
			{[]string{"list", "--page-size", "0"}, 0, 0, "give a positive number"},
			{[]string{"list", "extra"}, 0, 0, `unexpected argument "extra"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *peopleListOptions
				err := cmdtest.Parse(t, newPeopleListCmd(f, func(_ *cli.Context, o *peopleListOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.Page != c.page || got.PageSize != c.size {
					t.Fatalf("err %v, options %+v; want page %d size %d", err, got, c.page, c.size)
				}
			})
		}
	})
	t.Run("get", func(t *testing.T) {
		var got *peopleGetOptions
		err := cmdtest.Parse(t, newPeopleGetCmd(f, func(_ *cli.Context, o *peopleGetOptions) error { got = o; return errRan }), "get", "p-1")
		if !errors.Is(err, errRan) || got.ID != "p-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		if err := cmdtest.Parse(t, newPeopleGetCmd(f, func(_ *cli.Context, o *peopleGetOptions) error { got = o; return errRan }), "get"); got != nil || err == nil || !strings.Contains(err.Error(), "missing argument: person ID") {
			t.Fatalf("get without an ID: err %v (ran: %v)", err, got != nil)
		}
	})
	t.Run("create and update", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[personWriteOptions]) *cli.Command
			args  []string
			want  personWriteOptions
			usage string
		}{
			{newPeopleCreateCmd, []string{"create", "--legal-name", "Ana López", "--email", "ana@example.com", "--password-file", "pw.txt"},
				personWriteOptions{Create: true, Fields: map[string]string{"legal-name": "Ana López", "email": "ana@example.com"}, PasswordFile: "pw.txt"}, ""},
			{newPeopleUpdateCmd, []string{"update", "p-1", "--tin", ""},
				personWriteOptions{ID: "p-1", Fields: map[string]string{"tin": ""}}, ""},
			{newPeopleUpdateCmd, []string{"update", "p-1", "--password-stdin", "--tax-password-stdin"},
				personWriteOptions{}, "only one of --file -, --password-stdin and --tax-password-stdin can read stdin"},
			{newPeopleCreateCmd, []string{"create", "--password-stdin", "--password-file", "pw.txt"},
				personWriteOptions{}, "give the sign-in password one way"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *personWriteOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *personWriteOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) {
					t.Fatalf("err %v", err)
				}
				g := *got
				g.f = nil
				if !reflect.DeepEqual(g, c.want) {
					t.Fatalf("options %+v\nwant    %+v", g, c.want)
				}
			})
		}
	})
	t.Run("delete", func(t *testing.T) {
		var got *peopleDeleteOptions
		err := cmdtest.Parse(t, newPeopleDeleteCmd(f, func(_ *cli.Context, o *peopleDeleteOptions) error { got = o; return errRan }), "delete", "p-1", "--yes")
		if !errors.Is(err, errRan) || got.ID != "p-1" || !got.Yes {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newPeopleDeleteCmd(f, func(_ *cli.Context, o *peopleDeleteOptions) error { got = o; return errRan }), "delete", "p-1")
		if got != nil || err == nil || !strings.Contains(err.Error(), "pass --yes") {
			t.Fatalf("delete off a terminal without --yes: err %v (ran: %v)", err, got != nil)
		}
	})
}
