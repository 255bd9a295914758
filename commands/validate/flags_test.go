package validate

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each validate command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	dir := t.TempDir()
	for _, name := range []string{"b.xml", "a.xml", "c.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("<x/>"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a.xml"), filepath.Join(dir, "b.xml")
	t.Run("validate", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  validateOptions // Types as its values
			types []string
			usage string // a usage error, and the run not called
		}{
			{[]string{"validate", "f.xml", "--all"}, validateOptions{All: true, Concurrency: 4, Files: []string{"f.xml"}}, nil, ""},
			{[]string{"validate", filepath.Join(dir, "*.xml"), a, "--types", "sat.cfdi.sello,sat.tfd.sello", "--types", "sat.xml.structure", "--concurrency", "2"},
				validateOptions{Concurrency: 2, Files: []string{a, b}}, []string{"sat.cfdi.sello", "sat.tfd.sello", "sat.xml.structure"}, ""},
			{[]string{"validate", "--tin", "EKU9003173C9", "--all"}, validateOptions{All: true, TIN: "EKU9003173C9", Concurrency: 4}, nil, ""},
			{[]string{"validate", "f.xml"}, validateOptions{}, nil, "give --types TYPE,... or --all"},
			{[]string{"validate", "f.xml", "--all", "--types", "sat.cfdi.sello"}, validateOptions{}, nil, "give --types TYPE,... or --all"},
			{[]string{"validate", "f.xml", "--all", "--concurrency", "0"}, validateOptions{}, nil, "invalid value 0 for --concurrency: give 1 or more"},
			{[]string{"validate", "f.xml", "--tin", "EKU9003173C9", "--all"}, validateOptions{}, nil, "give files or --tin, not both"},
			{[]string{"validate", "--all"}, validateOptions{}, nil, "missing argument: FILE.xml (or --tin RFC)"},
			{[]string{"validate", filepath.Join(dir, "*.csv"), "--all"}, validateOptions{}, nil, "no file matches"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *validateOptions
				err := cmdtest.Parse(t, newValidateCmd(f, func(_ *cli.Context, o *validateOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) {
					t.Fatalf("err %v", err)
				}
				g := *got
				g.f = nil
				if types := g.Types.Value(); !reflect.DeepEqual(types, c.types) {
					t.Fatalf("types %q, want %q", types, c.types)
				}
				g.Types = cli.StringSlice{}
				if !reflect.DeepEqual(g, c.want) {
					t.Fatalf("options %+v\nwant    %+v", g, c.want)
				}
			})
		}
	})
	t.Run("types", func(t *testing.T) {
		var got *typesOptions
		err := cmdtest.Parse(t, newTypesCmd(f, func(_ *cli.Context, o *typesOptions) error { got = o; return errRan }), "types")
		if !errors.Is(err, errRan) || got == nil || got.f != f {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newTypesCmd(f, func(_ *cli.Context, o *typesOptions) error { got = o; return errRan }), "types", "extra")
		cmdtest.WantUsage(t, err, got != nil, `unexpected argument "extra"`)
	})
	t.Run("statuses", func(t *testing.T) {
		var got *statusesOptions
		err := cmdtest.Parse(t, newStatusesCmd(f, func(_ *cli.Context, o *statusesOptions) error { got = o; return errRan }), "statuses", "sat.cfdi.status")
		if !errors.Is(err, errRan) || got.Type != "sat.cfdi.status" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newStatusesCmd(f, func(_ *cli.Context, o *statusesOptions) error { got = o; return errRan }), "statuses")
		cmdtest.WantUsage(t, err, got != nil, "missing argument: validation type")
	})
}
