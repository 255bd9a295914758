// Package invoices is `timbra invoices`: stamping CFDI 4.0 invoices, reading them, their XML and
// PDF, cancelling them, asking SAT's status of one and e-mailing one.
package invoices

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra invoices`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "invoices",
		Usage: "Stamp CFDI 4.0 invoices",
		Description: "Examples:\n" +
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
	f      *cmdutil.Factory
	File   string
	XMLOut string
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[createOptions]) *cli.Command {
	o := &createOptions{f: f}
	run = cmdutil.OrRun(run, createRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Stamp an invoice described by a JSON file",
		UsageText: "timbra invoices create --file invoice.json [--xml-out FILE] [-o json]",
		Description: "Sends the file as the body of POST /api/v4/invoices (the shape of the API: issuer,\n" +
			"recipient and items by value, with the issuer's taxCredentials, or by reference {id}).\n" +
			"Prints the UUID and the totals; with -o json, the whole answer. One stamp is used.\n\n" +
			"Examples:\n" +
			"  timbra invoices create --file invoice.json\n" +
			"  timbra invoices create --file - --xml-out factura.xml < invoice.json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the invoice as JSON from `PATH` (- for stdin)", TakesFile: true, Required: true, Destination: &o.File},
			&cli.StringFlag{Name: "xml-out", Usage: "save the stamped XML to `FILE`", TakesFile: true, Destination: &o.XMLOut},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func createRun(c *cli.Context, o *createOptions) error {
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
