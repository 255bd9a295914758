package products

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each products command parses a command line into, apart from
// running it.
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("list", func(t *testing.T) {
		for _, c := range []struct {
			args       []string
			page, size int
			usage      string // a usage error, and the run not called
		}{
			{[]string{"list", "--page", "3", "--page-size", "10"}, 3, 10, ""},
			{[]string{"list"}, 1, 0, ""},
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
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"get", "pr-1"}, ""},
			{[]string{"get"}, "missing argument: product ID"},
			{[]string{"get", "pr-1", "pr-2"}, `unexpected argument "pr-2"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *getOptions
				err := cmdtest.Parse(t, newGetCmd(f, func(_ *cli.Context, o *getOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.ID != "pr-1" {
					t.Fatalf("err %v, options %+v", err, got)
				}
			})
		}
	})
	str := func(s string) *string { return &s }
	dec := func(s string) *api.Decimal { d := api.Decimal(s); return &d }
	t.Run("create and update", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[writeOptions]) *cli.Command
			args  []string
			check func(o *writeOptions) bool
			usage string
		}{
			{newCreateCmd, []string{"create", "--description", "Lápiz HB", "--unit-price", "12.50", "--tax", "002:Tasa:0.16:T", "--tax", "002:Exento:T"},
				func(o *writeOptions) bool {
					in := o.Input
					taxes := *in.ProductTaxes
					return o.Create && *in.Description == "Lápiz HB" && *in.UnitPrice == *dec("12.50") && len(taxes) == 2 &&
						*taxes[0].TaxID == "002" && *taxes[0].Rate == *dec("0.16") && *taxes[1].TaxTypeID == "Exento" && taxes[1].Rate == nil
				}, ""},
			{newUpdateCmd, []string{"update", "pr-1", "--tax-object", "01", "--no-taxes"},
				func(o *writeOptions) bool {
					return o.ID == "pr-1" && !o.Create && *o.Input.SatTaxObjectID == *str("01") && o.Input.ProductTaxes != nil && len(*o.Input.ProductTaxes) == 0
				}, ""},
			{newUpdateCmd, []string{"update", "pr-1"}, nil, "nothing to change"},
			{newCreateCmd, []string{"create", "--tax", "002:Tasa:0.16:T", "--no-taxes"}, nil, "give either --tax or --no-taxes"},
			{newCreateCmd, []string{"create", "--unit-price", "doce"}, nil, `invalid value "doce" for --unit-price`},
			{newCreateCmd, []string{"create", "--tax", "IVA"}, nil, `invalid --tax "IVA"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *writeOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *writeOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || !c.check(got) {
					t.Fatalf("err %v, options %+v", err, got)
				}
			})
		}
	})
	t.Run("delete", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"delete", "pr-1", "-y"}, ""},
			{[]string{"delete", "--yes", "pr-1"}, ""},
			{[]string{"delete", "pr-1"}, "refusing to delete without confirmation"},
			{[]string{"delete", "--yes"}, "missing argument: product ID"},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *deleteOptions
				err := cmdtest.Parse(t, newDeleteCmd(f, func(_ *cli.Context, o *deleteOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.ID != "pr-1" || !got.Yes {
					t.Fatalf("err %v, options %+v", err, got)
				}
			})
		}
	})
}
