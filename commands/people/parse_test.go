package people

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

// TestCommandsParse checks what each people command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
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
				var got *listOptions
				err := cmdtest.Parse(t, newListCmd(f, func(_ *cli.Context, o *listOptions) error { got = o; return errRan }), c.args...)
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
		var got *getOptions
		err := cmdtest.Parse(t, newGetCmd(f, func(_ *cli.Context, o *getOptions) error { got = o; return errRan }), "get", "p-1")
		if !errors.Is(err, errRan) || got.ID != "p-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		if err := cmdtest.Parse(t, newGetCmd(f, func(_ *cli.Context, o *getOptions) error { got = o; return errRan }), "get"); got != nil || err == nil || !strings.Contains(err.Error(), "missing argument: person ID") {
			t.Fatalf("get without an ID: err %v (ran: %v)", err, got != nil)
		}
	})
	t.Run("create and update", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[writeOptions]) *cli.Command
			args  []string
			want  writeOptions
			usage string
		}{
			{newCreateCmd, []string{"create", "--legal-name", "Ana López", "--email", "ana@example.com", "--password-file", "pw.txt"},
				writeOptions{Create: true, Fields: map[string]string{"legal-name": "Ana López", "email": "ana@example.com"}, PasswordFile: "pw.txt"}, ""},
			{newUpdateCmd, []string{"update", "p-1", "--tin", ""},
				writeOptions{ID: "p-1", Fields: map[string]string{"tin": ""}}, ""},
			{newUpdateCmd, []string{"update", "p-1", "--password-stdin", "--tax-password-stdin"},
				writeOptions{}, "only one of --file -, --password-stdin and --tax-password-stdin can read stdin"},
			{newCreateCmd, []string{"create", "--password-stdin", "--password-file", "pw.txt"},
				writeOptions{}, "give the sign-in password one way"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *writeOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *writeOptions) error { got = o; return errRan }), c.args...)
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
		var got *deleteOptions
		err := cmdtest.Parse(t, newDeleteCmd(f, func(_ *cli.Context, o *deleteOptions) error { got = o; return errRan }), "delete", "p-1", "--yes")
		if !errors.Is(err, errRan) || got.ID != "p-1" || !got.Yes {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newDeleteCmd(f, func(_ *cli.Context, o *deleteOptions) error { got = o; return errRan }), "delete", "p-1")
		if got != nil || err == nil || !strings.Contains(err.Error(), "pass --yes") {
			t.Fatalf("delete off a terminal without --yes: err %v (ran: %v)", err, got != nil)
		}
	})
	t.Run("employer and employee get", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[employmentGetOptions]) *cli.Command
			args  []string
			usage string
		}{
			{newEmployerGetCmd, []string{"get", "p-1"}, ""},
			{newEmployeeGetCmd, []string{"get", "p-1"}, ""},
			{newEmployerGetCmd, []string{"get"}, "missing argument: person ID"},
			{newEmployeeGetCmd, []string{"get", "p-1", "p-2"}, `unexpected argument "p-2"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *employmentGetOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *employmentGetOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.ID != "p-1" {
					t.Fatalf("err %v, options %+v", err, got)
				}
			})
		}
	})
	t.Run("employer and employee set", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[employmentSetOptions]) *cli.Command
			args  []string
			want  employmentSetOptions
			usage string
		}{
			// amounts are checked when the command runs, after the saved data is read
			{newEmployerSetCmd, []string{"set", "p-1", "--registration", "B5510768108", "--own-resource-amount", "12,5", "--file", "employer.json"},
				employmentSetOptions{ID: "p-1", File: "employer.json", Fields: map[string]string{"registration": "B5510768108", "own-resource-amount": "12,5"}}, ""},
			{newEmployeeSetCmd, []string{"set", "p-1", "--daily-salary", "512.40", "--bank", ""},
				employmentSetOptions{ID: "p-1", Fields: map[string]string{"daily-salary": "512.40", "bank": ""}}, ""},
			{newEmployerSetCmd, []string{"set"}, employmentSetOptions{}, "missing argument: person ID"},
			{newEmployeeSetCmd, []string{"set", "p-1", "p-2"}, employmentSetOptions{}, `unexpected argument "p-2"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *employmentSetOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *employmentSetOptions) error { got = o; return errRan }), c.args...)
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
	t.Run("employer and employee delete", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[employmentDeleteOptions]) *cli.Command
			args  []string
			want  employmentDeleteOptions
			usage string
		}{
			{newEmployerDeleteCmd, []string{"delete", "p-1", "--yes"}, employmentDeleteOptions{Kind: "employer", ID: "p-1", Yes: true}, ""},
			{newEmployeeDeleteCmd, []string{"delete", "-y", "p-1"}, employmentDeleteOptions{Kind: "employee", ID: "p-1", Yes: true}, ""},
			{newEmployeeDeleteCmd, []string{"delete", "p-1"}, employmentDeleteOptions{}, "pass --yes"},
			{newEmployerDeleteCmd, []string{"delete", "--yes"}, employmentDeleteOptions{}, "missing argument: person ID"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *employmentDeleteOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *employmentDeleteOptions) error { got = o; return errRan }), c.args...)
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
					t.Fatalf("options %+v, want %+v", g, c.want)
				}
			})
		}
	})
}
