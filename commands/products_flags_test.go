package commands

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

// TestProductsCommandsParse checks what each products command parses a command line into,
// apart from running it.
func TestProductsCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("list", func(t *testing.T) {
		var got *productsListOptions
		err := cmdtest.Parse(t, newProductsListCmd(f, func(_ *cli.Context, o *productsListOptions) error { got = o; return errRan }), "list", "--page", "3", "--page-size", "10")
		if !errors.Is(err, errRan) || got.Page != 3 || got.PageSize != 10 {
			t.Fatalf("err %v, options %+v", err, got)
		}
	})
	t.Run("get", func(t *testing.T) {
		var got *productsGetOptions
		err := cmdtest.Parse(t, newProductsGetCmd(f, func(_ *cli.Context, o *productsGetOptions) error { got = o; return errRan }), "get", "pr-1")
		if !errors.Is(err, errRan) || got.ID != "pr-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
	})
	str := func(s string) *string { return &s }
	dec := func(s string) *api.Decimal { d := api.Decimal(s); return &d }
	t.Run("create and update", func(t *testing.T) {
		for _, c := range []struct {
			cmd   func(*cmdutil.Factory, cmdutil.RunFunc[productWriteOptions]) *cli.Command
			args  []string
			check func(o *productWriteOptions) bool
			usage string
		}{
			{newProductsCreateCmd, []string{"create", "--description", "Lápiz HB", "--unit-price", "12.50", "--tax", "002:Tasa:0.16:T", "--tax", "002:Exento:T"},
				func(o *productWriteOptions) bool {
					in := o.Input
					taxes := *in.ProductTaxes
					return o.Create && *in.Description == "Lápiz HB" && *in.UnitPrice == *dec("12.50") && len(taxes) == 2 &&
						*taxes[0].TaxID == "002" && *taxes[0].Rate == *dec("0.16") && *taxes[1].TaxTypeID == "Exento" && taxes[1].Rate == nil
				}, ""},
			{newProductsUpdateCmd, []string{"update", "pr-1", "--tax-object", "01", "--no-taxes"},
				func(o *productWriteOptions) bool {
					return o.ID == "pr-1" && !o.Create && *o.Input.SatTaxObjectID == *str("01") && o.Input.ProductTaxes != nil && len(*o.Input.ProductTaxes) == 0
				}, ""},
			{newProductsUpdateCmd, []string{"update", "pr-1"}, nil, "nothing to change"},
			{newProductsCreateCmd, []string{"create", "--tax", "002:Tasa:0.16:T", "--no-taxes"}, nil, "give either --tax or --no-taxes"},
			{newProductsCreateCmd, []string{"create", "--unit-price", "doce"}, nil, `invalid value "doce" for --unit-price`},
			{newProductsCreateCmd, []string{"create", "--tax", "IVA"}, nil, `invalid --tax "IVA"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *productWriteOptions
				err := cmdtest.Parse(t, c.cmd(f, func(_ *cli.Context, o *productWriteOptions) error { got = o; return errRan }), c.args...)
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
		var got *productsDeleteOptions
		err := cmdtest.Parse(t, newProductsDeleteCmd(f, func(_ *cli.Context, o *productsDeleteOptions) error { got = o; return errRan }), "delete", "pr-1", "-y")
		if !errors.Is(err, errRan) || got.ID != "pr-1" || !got.Yes {
			t.Fatalf("err %v, options %+v", err, got)
		}
	})
}
