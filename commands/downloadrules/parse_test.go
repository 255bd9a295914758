package downloadrules

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each download-rules command parses a command line into, apart
// from running it (each constructor takes the run function).
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
			{[]string{"list", "--page", "2", "--page-size", "50"}, 2, 50, ""},
			{[]string{"list", "--page", "0"}, 0, 0, "pages start at 1"},
			{[]string{"list", "--page-size", "-1"}, 0, 0, "give a positive number"},
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
		run := func(_ *cli.Context, o *getOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newGetCmd(f, run), "get", "r-1")
		if !errors.Is(err, errRan) || got.ID != "r-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newGetCmd(f, run), "get"), got != nil, "missing argument: rule ID")
	})
	t.Run("create", func(t *testing.T) {
		var got *createOptions
		run := func(_ *cli.Context, o *createOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newCreateCmd(f, run), "create", "--person", "p-1", "--description", "Emitidos",
			"--query", "Metadata", "--type", "Recibidos", "--status", "Cancelado")
		if !errors.Is(err, errRan) || got.Person != "p-1" || got.Description != "Emitidos" || got.Query != "Metadata" ||
			got.Type != "Recibidos" || got.Status != "Cancelado" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"create", "--person", "p-1"}, "missing flag --description"},
			{[]string{"create", "--person", "p-1", "--description", "d", "--query", "CFDI", "--type", "Emitidos"}, "missing flag --status"},
			{[]string{"create", "x"}, `unexpected argument "x"`},
		} {
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newCreateCmd(f, run), c.args...), got != nil, c.usage)
		}
	})
	t.Run("update", func(t *testing.T) {
		var got *updateOptions
		run := func(_ *cli.Context, o *updateOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newUpdateCmd(f, run), "update", "r-1", "--description", "")
		if !errors.Is(err, errRan) || got.ID != "r-1" || got.Description != "" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newUpdateCmd(f, run), "update", "r-1"), got != nil, "missing flag --description")
		cmdtest.WantUsage(t, cmdtest.Parse(t, newUpdateCmd(f, run), "update", "--description", "d"), got != nil, "missing argument: rule ID")
	})
	t.Run("delete", func(t *testing.T) {
		var got *deleteOptions
		run := func(_ *cli.Context, o *deleteOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newDeleteCmd(f, run), "delete", "r-1", "-y")
		if !errors.Is(err, errRan) || got.ID != "r-1" || !got.Yes {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newDeleteCmd(f, run), "delete", "r-1"), got != nil, "pass --yes")
		cmdtest.WantUsage(t, cmdtest.Parse(t, newDeleteCmd(f, run), "delete", "--yes"), got != nil, "missing argument: rule ID")
	})
}
