package catalogs

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each catalogs command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("list", func(t *testing.T) {
		var got *listOptions
		run := func(_ *cli.Context, o *listOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newListCmd(f, run), "list"); !errors.Is(err, errRan) || got == nil {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newListCmd(f, run), "list", "SatTaxRegimes"), got != nil, `unexpected argument "SatTaxRegimes"`)
	})
	t.Run("search", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  searchOptions
			usage string // a usage error, and the run not called
		}{
			{[]string{"search", "SatProductCodes", "leche"}, searchOptions{Name: "SatProductCodes", Term: "leche", PagingOptions: cmdutil.PagingOptions{Page: 1}}, ""},
			{[]string{"search", "SatUnitMeasurements", "pieza", "--page-size", "5", "--page", "3"},
				searchOptions{Name: "SatUnitMeasurements", Term: "pieza", PagingOptions: cmdutil.PagingOptions{Page: 3, PageSize: 5}}, ""},
			{[]string{"search", "SatProductCodes"}, searchOptions{}, "missing argument: search TERM"},
			{[]string{"search", "SatProductCodes", "leche", "--page-size", "101"}, searchOptions{}, "give 1 to 100"},
			{[]string{"search", "SatProductCodes", "leche", "--page", "0"}, searchOptions{}, "pages start at 1"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *searchOptions
				err := cmdtest.Parse(t, newSearchCmd(f, func(_ *cli.Context, o *searchOptions) error { got = o; return errRan }), c.args...)
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
	t.Run("get", func(t *testing.T) {
		var got *getOptions
		run := func(_ *cli.Context, o *getOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newGetCmd(f, run), "get", "SatTaxRegimes", "626")
		if !errors.Is(err, errRan) || got.Name != "SatTaxRegimes" || got.ID != "626" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newGetCmd(f, run), "get", "SatTaxRegimes"), got != nil, "missing argument: record ID")
	})
	t.Run("download", func(t *testing.T) {
		var got *downloadOptions
		run := func(_ *cli.Context, o *downloadOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newDownloadCmd(f, run), "download")
		if !errors.Is(err, errRan) || !got.List || got.Name != "" {
			t.Fatalf("no NAME: err %v, options %+v", err, got)
		}
		err = cmdtest.Parse(t, newDownloadCmd(f, run), "download", "SatInvoiceTypes")
		if !errors.Is(err, errRan) || got.List || got.Name != "SatInvoiceTypes" {
			t.Fatalf("a NAME: err %v, options %+v", err, got)
		}
		err = cmdtest.Parse(t, newDownloadCmd(f, run), "download", "")
		if !errors.Is(err, errRan) || got.List || got.Name != "" {
			t.Fatalf("an empty NAME: err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newDownloadCmd(f, run), "download", "a", "b"), got != nil, "too many arguments")
	})
	t.Run("status", func(t *testing.T) {
		var got *statusOptions
		run := func(_ *cli.Context, o *statusOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newStatusCmd(f, run), "status", "--all"); !errors.Is(err, errRan) || !got.All {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newStatusCmd(f, run), "status", "x"), got != nil, `unexpected argument "x"`)
	})
	t.Run("import", func(t *testing.T) {
		t.Setenv("TIMBRA_DATA", "")
		var got *importOptions
		run := func(_ *cli.Context, o *importOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newImportCmd(f, run), "import", "default", "--data", "./t.db")
		if !errors.Is(err, errRan) || got.Source != "default" || got.Data != "./t.db" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newImportCmd(f, run), "import"), got != nil, "missing argument: SOURCE")
	})
}
