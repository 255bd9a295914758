package products

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// `timbra products`: the products and services of the tenant, what invoice items by reference
// name. A tax is written TAX:FACTOR:RATE:FLAG (002:Tasa:0.16:T), the same form the commands show.

// NewCmd is `timbra products`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "products",
		Usage: "List, read, create, change and delete the products and services of your tenant",
		Description: "Examples:\n" +
			"  timbra products list\n" +
			"  timbra products create --description \"Lápiz HB\" --unit-price 12.50 --product-code 44121706 --tax 002:Tasa:0.16:T\n" +
			"  timbra products update 3f2a0c1e-... --unit-price 13\n" +
			"  timbra products delete 3f2a0c1e-... --yes",
		Subcommands: []*cli.Command{newListCmd(f, nil), newGetCmd(f, nil), newCreateCmd(f, nil),
			newUpdateCmd(f, nil), newDeleteCmd(f, nil)},
	}
}

type listOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the products of your tenant, one page at a time",
		UsageText: "timbra products list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of products (1 to 50 per page, 50 by default): ID, description, unit\n" +
			"price, unit, product code, taxes and creation time. With -o json, the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra products list\n" +
			"  timbra products list --page 2 --page-size 10 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "products", 50, ""),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

var columns = []string{"ID", "DESCRIPTION", "UNIT PRICE", "UNIT", "PRODUCT CODE", "TAXES", "CREATED"}

func listRun(c *cli.Context, o *listOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListProducts(c.Context, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, it := range page.Items {
		rows = append(rows, []string{it.ID, it.Description, string(it.UnitPrice), it.SatUnitMeasurementID, it.SatProductCodeID,
			productTaxesText(it.ProductTaxes), p.Time(it.CreatedAt)})
	}
	if err := p.Table(page, columns, rows, "No products."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, page.PageNumber, page.TotalPages, page.TotalCount, "products")
	return nil
}

type getOptions struct {
	f  *cmdutil.Factory
	ID string
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[getOptions]) *cli.Command {
	o := &getOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show one product",
		UsageText: "timbra products get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the product's fields as `label: value` lines, SAT keys with their catalog\n" +
			"description; with -o json, the product object as the API answers it.\n\n" +
			"Example:\n" +
			"  timbra products get 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "product ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func getRun(c *cli.Context, o *getOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	prod, err := client.GetProduct(c.Context, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(prod, productFields(p, prod))
}

func productFields(p *cmdutil.Printer, x api.Product) []cmdutil.Field {
	return []cmdutil.Field{
		{Label: "ID", Value: x.ID},
		{Label: "Description", Value: x.Description},
		{Label: "Unit price", Value: string(x.UnitPrice)},
		{Label: "Unit", Value: cmdutil.CatalogText(&x.SatUnitMeasurementID, x.SatUnitMeasurement)},
		{Label: "Tax object", Value: cmdutil.CatalogText(&x.SatTaxObjectID, x.SatTaxObject)},
		{Label: "Product code", Value: cmdutil.CatalogText(&x.SatProductCodeID, x.SatProductCode)},
		{Label: "Taxes", Value: productTaxesText(x.ProductTaxes)},
		{Label: "Created", Value: p.Time(x.CreatedAt)},
		{Label: "Updated", Value: p.Time(x.UpdatedAt)},
	}
}

// productTaxesText writes taxes as the --tax flag takes them: "002:Tasa:0.160000:T, 003:Exento::T".
func productTaxesText(ts []api.ProductTax) string {
	parts := make([]string, 0, len(ts))
	for _, t := range ts {
		rate := ""
		if t.Rate != nil {
			rate = string(*t.Rate)
		}
		parts = append(parts, t.TaxID+":"+t.TaxTypeID+":"+rate+":"+t.TaxFlagID)
	}
	return strings.Join(parts, ", ")
}

// productTextFlags are the flags of the product's text fields.
var productTextFlags = []struct {
	name, usage string
	field       func(*api.ProductInput) **string
}{
	{"description", "`TEXT` of the item (1 to 1000 characters, no '|')", func(p *api.ProductInput) **string { return &p.Description }},
	{"unit", "SAT unit `KEY` (c_ClaveUnidad, for example H87 pieza, E48 servicio; H87 when created without it)", func(p *api.ProductInput) **string { return &p.SatUnitMeasurementID }},
	{"tax-object", "SAT tax object `KEY` (c_ObjetoImp: 01 no objeto, 02 sí objeto...; 02 when created without it)", func(p *api.ProductInput) **string { return &p.SatTaxObjectID }},
	{"product-code", "SAT product or service `KEY` (c_ClaveProdServ; 01010101 when created without it)", func(p *api.ProductInput) **string { return &p.SatProductCodeID }},
}

// jsonNumber is what --unit-price and a tax's rate take: a plain decimal number.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// productSources are the flags of the API's properties of a product (failures name them).
var productSources = cmdutil.Sources{
	"Description": "--description", "SatUnitMeasurementId": "--unit", "SatTaxObjectId": "--tax-object",
	"SatProductCodeId": "--product-code", "UnitPrice": "--unit-price", "ProductTaxes": "--tax",
}

type writeOptions struct {
	f      *cmdutil.Factory
	ID     string // update
	Create bool
	File   string
	Input  api.ProductInput // from --file and the flags
}

func writeFlags(o *writeOptions) []cli.Flag {
	var fs []cli.Flag
	for _, tf := range productTextFlags {
		fs = append(fs, &cli.StringFlag{Name: tf.name, Usage: tf.usage})
	}
	return append(fs,
		&cli.StringFlag{Name: "unit-price", Usage: "unit `PRICE` before taxes (0 or more, up to 6 decimals)"},
		&cli.StringSliceFlag{Name: "tax", Usage: "a tax `TAX:FACTOR:RATE:FLAG`, repeated for several: 002:Tasa:0.16:T (IVA 16%), 001:Tasa:0.10:R (ISR withheld), 002:Exento::T; replaces the product's taxes (IVA 16% when created without any)"},
		&cli.BoolFlag{Name: "no-taxes", Usage: "the product has no taxes (with --tax-object 01, for example)"},
		&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the product as JSON from `PATH` (- for stdin); flags override its fields", TakesFile: true, Destination: &o.File},
	)
}

// parseTax reads TAX:FACTOR:RATE:FLAG; RATE may be empty (Exento), and TAX:Exento:FLAG is
// accepted too.
func parseTax(s string) (api.ProductTaxInput, error) {
	parts := strings.Split(s, ":")
	if len(parts) == 3 && parts[1] == "Exento" {
		parts = []string{parts[0], parts[1], "", parts[2]}
	}
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[3] == "" {
		return api.ProductTaxInput{}, fmt.Errorf("invalid --tax %q: write TAX:FACTOR:RATE:FLAG, for example 002:Tasa:0.16:T", s)
	}
	t := api.ProductTaxInput{TaxID: &parts[0], TaxTypeID: &parts[1], TaxFlagID: &parts[3]}
	if parts[2] != "" {
		if !jsonNumber.MatchString(parts[2]) {
			return api.ProductTaxInput{}, fmt.Errorf("invalid rate %q in --tax %q: give a decimal number, for example 0.16", parts[2], s)
		}
		r := api.Decimal(parts[2])
		t.Rate = &r
	}
	return t, nil
}

// productInput builds the body from --file and the flags.
func productInput(c *cli.Context, o *writeOptions) (api.ProductInput, error) {
	var in api.ProductInput
	if o.File != "" {
		raw, err := cmdutil.ReadInput(o.File, bufio.NewReader(o.f.IO.In))
		if err != nil {
			return in, err
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return in, cmdutil.UsageErrorf(c, "--file %s: not a JSON product: %v", o.File, err)
		}
	}
	for _, tf := range productTextFlags {
		if c.IsSet(tf.name) {
			v := c.String(tf.name)
			*tf.field(&in) = &v
		}
	}
	if c.IsSet("unit-price") {
		v := c.String("unit-price")
		if !jsonNumber.MatchString(v) {
			return in, cmdutil.UsageErrorf(c, "invalid value %q for --unit-price: give a decimal number, for example 12.50", v)
		}
		d := api.Decimal(v)
		in.UnitPrice = &d
	}
	if c.IsSet("tax") && c.Bool("no-taxes") {
		return in, cmdutil.UsageErrorf(c, "give either --tax or --no-taxes")
	}
	if c.IsSet("tax") {
		taxes := []api.ProductTaxInput{}
		for _, s := range c.StringSlice("tax") {
			t, err := parseTax(s)
			if err != nil {
				return in, cmdutil.UsageErrorf(c, "%v", err)
			}
			taxes = append(taxes, t)
		}
		in.ProductTaxes = &taxes
	}
	if c.Bool("no-taxes") {
		in.ProductTaxes = &[]api.ProductTaxInput{}
	}
	return in, nil
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[writeOptions]) *cli.Command {
	o := &writeOptions{f: f, Create: true}
	run = cmdutil.OrRun(run, writeRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Create a product or service",
		UsageText: "timbra products create --description TEXT --unit-price PRICE [--unit KEY] [--tax-object KEY] [--product-code KEY] [--tax TAX:FACTOR:RATE:FLAG ...] [--file product.json]",
		Description: "Creates a product in your tenant and prints it. Description and unit price are required;\n" +
			"the SAT keys not given are H87 (pieza), 02 (sí objeto de impuesto) and 01010101, and without\n" +
			"--tax the product carries IVA 16% transferred. Rates follow SAT's c_TasaOCuota.\n\n" +
			"Examples:\n" +
			"  timbra products create --description \"Lápiz HB\" --unit-price 12.50 --product-code 44121706\n" +
			"  timbra products create --description \"Asesoría\" --unit-price 1000 --unit E48 --product-code 80101500 \\\n" +
			"      --tax 002:Tasa:0.16:T --tax 001:Tasa:0.10:R --tax 002:Tasa:0.106667:R\n" +
			"  timbra products create --file product.json -o json",
		Flags: writeFlags(o),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			in, err := productInput(c, o)
			if err != nil {
				return err
			}
			o.Input = in
			return run(c, o)
		},
	}
}

func newUpdateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[writeOptions]) *cli.Command {
	o := &writeOptions{f: f}
	run = cmdutil.OrRun(run, writeRun)
	return &cli.Command{
		Name:      "update",
		Usage:     "Change fields of a product",
		UsageText: "timbra products update ID [--description TEXT] [--unit-price PRICE] [--unit KEY] [--tax-object KEY] [--product-code KEY] [--tax TAX:FACTOR:RATE:FLAG ... | --no-taxes] [--file product.json]",
		ArgsUsage: "ID",
		Description: "Sends only the fields given (flags, or the fields of --file); the rest keep their value.\n" +
			"--tax replaces all the product's taxes with the ones given; --no-taxes removes them.\n\n" +
			"Examples:\n" +
			"  timbra products update 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --unit-price 13\n" +
			"  timbra products update 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --tax 002:Tasa:0.08:T\n" +
			"  timbra products update 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --tax-object 01 --no-taxes -o json",
		Flags: writeFlags(o),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "product ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			in, err := productInput(c, o)
			if err != nil {
				return err
			}
			if in == (api.ProductInput{}) {
				return cmdutil.UsageErrorf(c, "nothing to change: give at least one field flag or --file")
			}
			o.Input = in
			return run(c, o)
		},
	}
}

func writeRun(c *cli.Context, o *writeOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	var prod api.Product
	if o.Create {
		prod, err = client.CreateProduct(c.Context, o.Input)
	} else {
		prod, err = client.UpdateProduct(c.Context, o.ID, o.Input)
	}
	if err != nil {
		return cmdutil.Explain(err, productSources)
	}
	p := o.f.Printer()
	return p.Fields(prod, productFields(p, prod))
}

type deleteOptions struct {
	f   *cmdutil.Factory
	ID  string
	Yes bool
}

func newDeleteCmd(f *cmdutil.Factory, run cmdutil.RunFunc[deleteOptions]) *cli.Command {
	o := &deleteOptions{f: f}
	run = cmdutil.OrRun(run, deleteRun)
	return &cli.Command{
		Name:      "delete",
		Usage:     "Delete a product",
		UsageText: "timbra products delete ID [--yes]",
		ArgsUsage: "ID",
		Description: "Deletes the product; invoices already stamped keep their items. On a terminal it asks\n" +
			"first; elsewhere (scripts, pipes) --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra products delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra products delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --yes -o json",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "product ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "delete"); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func deleteRun(c *cli.Context, o *deleteOptions) error {
	ctx, f, id := c.Context, o.f, o.ID
	client, err := f.Client()
	if err != nil {
		return err
	}
	ios := f.IO
	if !o.Yes {
		p, err := client.GetProduct(ctx, id)
		if err != nil {
			return err
		}
		if err := cmdutil.Confirm(ctx, ios, fmt.Sprintf("Delete product %s (%s)?", p.ID, p.Description), "not deleted"); err != nil {
			return err
		}
	}
	if err := client.DeleteProduct(ctx, id); err != nil {
		return err
	}
	if f.JSON() {
		return cmdutil.WriteJSON(ios.Out, map[string]any{"id": id, "deleted": true})
	}
	fmt.Fprintf(ios.Out, "Deleted product %s.\n", id)
	return nil
}
