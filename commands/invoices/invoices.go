// Package invoices is `timbra invoices`: stamping CFDI 4.0 invoices, reading them, their XML and
// PDF, cancelling them, asking SAT's status of one and e-mailing one.
package invoices

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra invoices`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "invoices",
		Usage: "Stamp CFDI 4.0 invoices",
		Description: "Examples:\n" +
			"  timbra invoices create --example                  # the kinds of example bodies\n" +
			"  timbra invoices create --example income | timbra invoices create --file -\n" +
			"  timbra invoices create --file invoice.json\n" +
			"  timbra invoices create --file invoice.json --xml-out factura.xml",
		Subcommands: []*cli.Command{newCreateCmd(f, nil), newListCmd(f, nil), newGetCmd(f, nil), newXMLCmd(f, nil), newPDFCmd(f, nil),
			newCancelCmd(f, nil), newStatusCmd(f, nil), newSendCmd(f, nil)},
	}
}

// `timbra invoices create`: stamping an invoice (POST /api/v4/invoices). The request is the API's
// JSON, read from a file, since an invoice (and the issuer's tax credentials of a by-value
// invoice) does not fit in flags; the key password travels inside that file, never in argv.
type createOptions struct {
	f       *cmdutil.Factory
	File    string
	XMLOut  string
	Example bool   // print an example body instead
	Kind    string // of this kind ("": list the kinds)
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[createOptions]) *cli.Command {
	o := &createOptions{f: f}
	run = cmdutil.OrRun(run, createRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Stamp an invoice described by a JSON file",
		UsageText: "timbra invoices create --file invoice.json [--xml-out FILE] [-o json] | --example [KIND]",
		Description: "Sends the file as the body of POST /api/v4/invoices (the shape of the API: issuer,\n" +
			"recipient and items by value, with the issuer's taxCredentials, or by reference {id}).\n" +
			"Prints the UUID and the totals; with -o json, the whole answer. One stamp is used.\n" +
			"--example KIND prints a body that stamps as it is (below); --example alone lists the kinds.\n\n" +
			"Examples:\n" +
			"  timbra invoices create --example income | timbra invoices create --file -\n" +
			"  timbra invoices create --example payroll > nomina.json\n" +
			"  timbra invoices create --file invoice.json\n" +
			"  timbra invoices create --file - --xml-out factura.xml < invoice.json\n\n" +
			examplesHelp(),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the invoice as JSON from `PATH` (- for stdin); required unless --example", TakesFile: true, Destination: &o.File},
			&cli.StringFlag{Name: "xml-out", Usage: "save the stamped XML to `FILE`", TakesFile: true, Destination: &o.XMLOut},
			&cli.BoolFlag{Name: "example", Usage: "print the example body of the KIND given as the argument (" + strings.Join(exampleKinds(), ", ") + "), or list them", Destination: &o.Example},
		},
		Action: func(c *cli.Context) error {
			if o.Example {
				if c.IsSet("file") || c.IsSet("xml-out") {
					return cmdutil.UsageErrorf(c, "--example prints a body and sends nothing: give it without --file and --xml-out")
				}
				if c.Args().Len() > 1 {
					return cmdutil.UsageErrorf(c, "unexpected argument %q", c.Args().Get(1))
				}
				o.Kind = c.Args().First()
				if o.Kind != "" && exampleOf(o.Kind) == nil {
					msg := fmt.Sprintf("no example %q: use %s", o.Kind, strings.Join(exampleKinds(), ", "))
					if s := cmdutil.Suggest(exampleKinds(), o.Kind); s != "" {
						msg = fmt.Sprintf("no example %q. Did you mean %q?", o.Kind, s)
					}
					return cmdutil.UsageErrorf(c, "%s", msg)
				}
				return run(c, o)
			}
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if !c.IsSet("file") {
				return cmdutil.UsageErrorf(c, "missing flag --file (or --example KIND for a body to start from)")
			}
			return run(c, o)
		},
	}
}

func createRun(c *cli.Context, o *createOptions) error {
	if o.Example {
		if o.Kind == "" {
			writeKinds(o.f.IO.Out)
			return nil
		}
		return writeExample(c.Context, o.f, exampleOf(o.Kind))
	}
	raw, err := cmdutil.ReadInput(o.File, bufio.NewReader(o.f.IO.In))
	if err != nil {
		return err
	}
	if !json.Valid(raw) {
		return cmdutil.UsageErrorf(c, "--file %s is not JSON", o.File)
	}
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	inv, err := client.CreateInvoice(c.Context, raw)
	if err != nil {
		return err
	}
	if o.XMLOut != "" {
		if len(inv.Responses) == 0 {
			return fmt.Errorf("the answer carries no stamped XML")
		}
		xml, err := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
		if err != nil {
			return fmt.Errorf("the stamped XML is not base64: %w", err)
		}
		if err := os.WriteFile(o.XMLOut, xml, 0o644); err != nil {
			return fmt.Errorf("write --xml-out: %w", err)
		}
	}
	fs := []cmdutil.Field{
		{Label: "UUID", Value: inv.UUID},
		{Label: "ID", Value: inv.ID},
		{Label: "Type", Value: inv.TypeCode},
		{Label: "Date", Value: inv.Date},
		{Label: "Issuer", Value: inv.Issuer.Tin},
		{Label: "Recipient", Value: inv.Recipient.Tin},
		{Label: "Subtotal", Value: string(inv.Subtotal) + " " + inv.CurrencyCode},
		{Label: "Discount", Value: string(inv.Discount) + " " + inv.CurrencyCode},
		{Label: "Total", Value: string(inv.Total) + " " + inv.CurrencyCode},
	}
	if o.XMLOut != "" {
		fs = append(fs, cmdutil.Field{Label: "XML", Value: o.XMLOut})
	}
	return o.f.Printer().Fields(inv, fs)
}
