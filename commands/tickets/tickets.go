// Package tickets is `timbra tickets`: Auto CFDI's tickets (sale receipts) of the tenant, their
// invoices and the global invoices of the ones nobody invoiced.
package tickets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra tickets`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "tickets",
		Usage: "Record sale receipts for Auto CFDI, invoice them, make global invoices",
		Description: "A ticket is a sale receipt that a customer can turn into a CFDI on the tenant's portal\n" +
			"(or a cashier at the counter). Recording one uses a ticket credit of yours; invoicing uses a\n" +
			"stamp of the issuer. The ones nobody invoiced go into a global invoice.\n\n" +
			"Examples:\n" +
			"  timbra tickets record --file ticket.json\n" +
			"  timbra tickets list --status pending --from 2026-11-01 --to 2026-11-30\n" +
			"  timbra tickets invoice 0193... --tin EKU9003173C9 --legal-name \"ESCUELA KEMPER URGATE\" \\\n" +
			"      --zip-code 42501 --tax-regime 601 --cfdi-use G01 --xml-out factura.xml\n" +
			"  timbra tickets globalize --issuer 3f2a... --periodicity 04 --month 11 --year 2026\n" +
			"  timbra tickets cancel 0193... --yes",
		Subcommands: []*cli.Command{newRecordCmd(f, nil), newListCmd(f, nil), newGetCmd(f, nil), newInvoiceCmd(f, nil),
			newCancelCmd(f, nil), newGlobalizeCmd(f, nil)},
	}
}

func ticketFields(t api.Ticket) []cmdutil.Field {
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return []cmdutil.Field{
		{Label: "ID", Value: t.ID}, {Label: "Number", Value: t.Number}, {Label: "Status", Value: t.Status},
		{Label: "Issuer", Value: strings.TrimSpace(t.Issuer.Tin + " " + t.Issuer.LegalName)},
		{Label: "Recorded by", Value: strings.TrimSpace(t.RecordedBy.Tin + " " + t.RecordedBy.LegalName)},
		{Label: "Paid at", Value: t.PaidAt}, {Label: "Payment form", Value: t.PaymentFormCode},
		{Label: "Subtotal", Value: string(t.Subtotal) + " " + t.CurrencyCode}, {Label: "Total", Value: string(t.Total) + " " + t.CurrencyCode},
		{Label: "Invoiceable until", Value: opt(t.InvoiceableUntil)}, {Label: "Invoice UUID", Value: opt(t.InvoiceUUID)},
		{Label: "Global invoice UUID", Value: opt(t.GlobalInvoiceUUID)},
	}
}

type recordOptions struct {
	f    *cmdutil.Factory
	File string
}

func newRecordCmd(f *cmdutil.Factory, run cmdutil.RunFunc[recordOptions]) *cli.Command {
	o := &recordOptions{f: f}
	run = cmdutil.OrRun(run, recordRun)
	return &cli.Command{
		Name:      "record",
		Usage:     "Record one ticket, or many from a JSON array",
		UsageText: "timbra tickets record --file ticket.json [-o json]",
		Description: "The file is the body of POST /api/v4/auto-invoice/tickets: issuerId, number (as printed on the\n" +
			"receipt), paidAt (Mexico City time, 2026-11-20T13:45:00), paymentFormCode and items (invoice\n" +
			"items by value, or {id, quantity} of a product). An array records each ticket in turn and\n" +
			"prints a line per ticket; the exit status is 1 when any failed. Each ticket uses one ticket\n" +
			"credit of yours.\n\n" +
			"A ticket.json:\n" +
			"  {\"issuerId\": \"3f2a...\", \"number\": \"A-0001\", \"paidAt\": \"2026-11-20T13:45:00\", \"paymentFormCode\": \"01\",\n" +
			"   \"items\": [{\"itemCode\": \"44121706\", \"quantity\": 2, \"unitOfMeasurementCode\": \"H87\",\n" +
			"              \"description\": \"Lápiz de madera HB\", \"unitPrice\": \"12.50\", \"taxObjectCode\": \"02\",\n" +
			"              \"itemTaxes\": [{\"taxCode\": \"002\", \"taxTypeCode\": \"Tasa\", \"taxRate\": \"0.160000\", \"taxFlagCode\": \"T\"}]}]}\n\n" +
			"Examples:\n" +
			"  timbra tickets record --file ticket.json\n" +
			"  timbra tickets record --file - < tickets-of-today.json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the ticket (or an array of them) as JSON from `PATH` (- for stdin)", TakesFile: true, Required: true, Destination: &o.File},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func recordRun(c *cli.Context, o *recordOptions) error {
	f := o.f
	raw, err := cmdutil.ReadInput(o.File, bufio.NewReader(f.IO.In))
	if err != nil {
		return err
	}
	var many []api.TicketInput
	var one api.TicketInput
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(trimmed, &many); err != nil {
			return cmdutil.UsageErrorf(c, "--file %s is not a JSON array of tickets: %v", o.File, err)
		}
	default:
		if err := json.Unmarshal(trimmed, &one); err != nil {
			return cmdutil.UsageErrorf(c, "--file %s is not a JSON ticket: %v", o.File, err)
		}
	}
	client, err := f.Client()
	if err != nil {
		return err
	}
	if many == nil {
		t, err := client.RecordTicket(c.Context, one)
		if err != nil {
			return err
		}
		return f.Printer().Fields(t, ticketFields(t))
	}
	return recordMany(c.Context, f, client, many)
}

// recordMany records tickets one after the other; a failure does not stop the rest.
func recordMany(ctx context.Context, f *cmdutil.Factory, client *api.Client, many []api.TicketInput) error {
	type outcome struct {
		Number string      `json:"number"`
		Ticket *api.Ticket `json:"ticket,omitempty"`
		Error  string      `json:"error,omitempty"`
	}
	var out []outcome
	var rows [][]string
	failed := 0
	for _, in := range many {
		t, err := client.RecordTicket(ctx, in)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			failed++
			out = append(out, outcome{Number: in.Number, Error: err.Error()})
			rows = append(rows, []string{in.Number, "failed", "", err.Error()})
			continue
		}
		out = append(out, outcome{Number: t.Number, Ticket: &t})
		rows = append(rows, []string{t.Number, t.Status, t.ID, string(t.Total)})
	}
	if err := f.Printer().Table(out, []string{"NUMBER", "STATUS", "ID", "TOTAL / ERROR"}, rows, "no tickets in the file"); err != nil {
		return err
	}
	if failed > 0 {
		return cli.Exit(fmt.Sprintf("%d of %d tickets were not recorded", failed, len(many)), 1)
	}
	return nil
}

type listOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
	Status, Issuer, From, To string
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List tickets, the latest paid first, one page at a time",
		UsageText: "timbra tickets list [--status S] [--issuer ID] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--page N] [--page-size N] [-o json]",
		Description: "The owner sees every ticket; anybody else those they issue or recorded. --from and --to are\n" +
			"Mexico City days of the payment. Statuses: pending, invoicing, invoiced, globalizing,\n" +
			"globalized, cancelled.\n\n" +
			"Examples:\n" +
			"  timbra tickets list --status pending\n" +
			"  timbra tickets list --from 2026-11-01 --to 2026-11-30 -o json",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "status", Usage: "only tickets in status `S`", Destination: &o.Status},
			&cli.StringFlag{Name: "issuer", Usage: "only tickets of the issuer with person `ID`", Destination: &o.Issuer},
			&cli.StringFlag{Name: "from", Usage: "paid on or after `DAY` (YYYY-MM-DD, Mexico City)", Destination: &o.From},
			&cli.StringFlag{Name: "to", Usage: "paid on or before `DAY` (YYYY-MM-DD, Mexico City)", Destination: &o.To},
		}, cmdutil.PagingFlags(&o.PagingOptions, "tickets", 100, "50")...),
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

func listRun(c *cli.Context, o *listOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	list, err := client.ListTickets(c.Context, api.TicketFilter{Status: o.Status, IssuerID: o.Issuer, From: o.From, To: o.To, Page: o.Page, Size: o.PageSize})
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(list.Items))
	for _, t := range list.Items {
		rows = append(rows, []string{t.ID, t.Number, t.Status, t.PaidAt, t.Issuer.Tin, string(t.Total)})
	}
	return o.f.Printer().Table(list, []string{"ID", "NUMBER", "STATUS", "PAID AT", "ISSUER", "TOTAL"}, rows, "no tickets")
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
		Usage:     "Show one ticket",
		UsageText: "timbra tickets get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the ticket, its state, until when a customer can invoice it and its invoices.\n\n" +
			"Example:\n" +
			"  timbra tickets get 0193a0c4-... -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "id"); err != nil {
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
	t, err := client.GetTicket(c.Context, o.ID)
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(t, ticketFields(t))
}

type invoiceOptions struct {
	f         *cmdutil.Factory
	ID        string
	Recipient api.InvoiceRecipientInput
	XMLOut    string
}

func newInvoiceCmd(f *cmdutil.Factory, run cmdutil.RunFunc[invoiceOptions]) *cli.Command {
	o := &invoiceOptions{f: f}
	run = cmdutil.OrRun(run, invoiceRun)
	return &cli.Command{
		Name:      "invoice",
		Usage:     "Turn a pending ticket into a CFDI for a customer (at the counter)",
		UsageText: "timbra tickets invoice ID (--recipient-id ID | --tin RFC --legal-name NAME --zip-code CP --tax-regime CODE --cfdi-use CODE) [--email E] [--xml-out FILE] [-o json]",
		ArgsUsage: "ID",
		Description: "Stamps an income CFDI of the ticket's sale to the customer, issued by the ticket's issuer\n" +
			"(its default tax files seal, one of its stamps is used). Customers can do the same on the\n" +
			"tenant's portal. The ticket must be pending and within its billing window.\n\n" +
			"Example:\n" +
			"  timbra tickets invoice 0193... --tin EKU9003173C9 --legal-name \"ESCUELA KEMPER URGATE\" \\\n" +
			"      --zip-code 42501 --tax-regime 601 --cfdi-use G01 --xml-out factura.xml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "recipient-id", Usage: "the customer is the person `ID` of the tenant", Destination: &o.Recipient.ID},
			&cli.StringFlag{Name: "tin", Usage: "the customer's `RFC`", Destination: &o.Recipient.Tin},
			&cli.StringFlag{Name: "legal-name", Usage: "the customer's legal `NAME` as SAT has it", Destination: &o.Recipient.LegalName},
			&cli.StringFlag{Name: "zip-code", Usage: "the customer's fiscal postal code `CP`", Destination: &o.Recipient.ZipCode},
			&cli.StringFlag{Name: "tax-regime", Usage: "the customer's tax regime `CODE` (c_RegimenFiscal)", Destination: &o.Recipient.TaxRegimeCode},
			&cli.StringFlag{Name: "cfdi-use", Usage: "the CFDI use `CODE` (c_UsoCFDI)", Destination: &o.Recipient.CfdiUseCode},
			&cli.StringFlag{Name: "email", Usage: "the customer's e-mail `ADDRESS`", Destination: &o.Recipient.Email},
			&cli.StringFlag{Name: "xml-out", Usage: "save the stamped XML to `FILE`", TakesFile: true, Destination: &o.XMLOut},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "id"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if o.Recipient.ID == "" && o.Recipient.Tin == "" {
				return cmdutil.UsageErrorf(c, "give the customer: --recipient-id, or --tin with --legal-name, --zip-code, --tax-regime and --cfdi-use")
			}
			return run(c, o)
		},
	}
}

func invoiceRun(c *cli.Context, o *invoiceOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	inv, err := client.InvoiceTicket(c.Context, o.ID, api.TicketInvoiceInput{Recipient: &o.Recipient})
	if err != nil {
		return err
	}
	return printStamped(o.f, inv, o.XMLOut)
}

// printStamped saves the XML of a stamped invoice when asked and prints its summary.
func printStamped(f *cmdutil.Factory, inv api.Invoice, xmlOut string) error {
	if xmlOut != "" {
		if len(inv.Responses) == 0 {
			return errors.New("the answer carries no stamped XML")
		}
		xml, err := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
		if err != nil {
			return fmt.Errorf("the stamped XML is not base64: %w", err)
		}
		if err := os.WriteFile(xmlOut, xml, 0o644); err != nil {
			return fmt.Errorf("write --xml-out: %w", err)
		}
	}
	fs := []cmdutil.Field{{Label: "UUID", Value: inv.UUID}, {Label: "ID", Value: inv.ID}, {Label: "Issuer", Value: inv.Issuer.Tin}, {Label: "Recipient", Value: inv.Recipient.Tin},
		{Label: "Total", Value: string(inv.Total) + " " + inv.CurrencyCode}}
	if xmlOut != "" {
		fs = append(fs, cmdutil.Field{Label: "XML", Value: xmlOut})
	}
	return f.Printer().Fields(inv, fs)
}

type cancelOptions struct {
	f   *cmdutil.Factory
	ID  string
	Yes bool
}

func newCancelCmd(f *cmdutil.Factory, run cmdutil.RunFunc[cancelOptions]) *cli.Command {
	o := &cancelOptions{f: f}
	run = cmdutil.OrRun(run, cancelRun)
	return &cli.Command{
		Name:      "cancel",
		Usage:     "Cancel a pending ticket",
		UsageText: "timbra tickets cancel ID [--yes] [-o json]",
		ArgsUsage: "ID",
		Description: "A cancelled ticket can no longer be invoiced nor go into a global invoice; its ticket credit\n" +
			"is not returned. On a terminal it asks first; elsewhere --yes is required.\n\n" +
			"Example:\n" +
			"  timbra tickets cancel 0193... --yes",
		Flags: []cli.Flag{cmdutil.YesFlag(&o.Yes)},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "id"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "cancel"); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func cancelRun(c *cli.Context, o *cancelOptions) error {
	f := o.f
	if !o.Yes {
		if err := cmdutil.Confirm(c.Context, f.IO, "Cancel ticket "+o.ID+"?", "not cancelled"); err != nil {
			return errors.New("not cancelled")
		}
	}
	client, err := f.Client()
	if err != nil {
		return err
	}
	t, err := client.CancelTicket(c.Context, o.ID)
	if err != nil {
		return err
	}
	return f.Printer().Fields(t, ticketFields(t))
}

type globalizeOptions struct {
	f                                *cmdutil.Factory
	Issuer, Periodicity, Month, Year string
	Tickets                          []string
	XMLOut                           string
}

func newGlobalizeCmd(f *cmdutil.Factory, run cmdutil.RunFunc[globalizeOptions]) *cli.Command {
	o := &globalizeOptions{f: f}
	run = cmdutil.OrRun(run, globalizeRun)
	return &cli.Command{
		Name:      "globalize",
		Usage:     "Make the global invoice of an issuer's pending tickets of a period",
		UsageText: "timbra tickets globalize --issuer ID --periodicity CODE --month CODE --year YYYY [--ticket ID]... [--xml-out FILE] [-o json]",
		Description: "Stamps one CFDI to PUBLICO EN GENERAL (XAXX010101000) with every pending ticket of the\n" +
			"issuer paid in the period (or only the --ticket ones): one concept per ticket. Periodicity\n" +
			"01 daily, 02 weekly, 03 fortnightly, 04 monthly (months 01-12), 05 bimonthly (months 13-18).\n" +
			"The owner or the issuer may do it; one stamp of the issuer is used.\n\n" +
			"Examples:\n" +
			"  timbra tickets globalize --issuer 3f2a... --periodicity 04 --month 11 --year 2026\n" +
			"  timbra tickets globalize --issuer 3f2a... --periodicity 05 --month 18 --year 2026 --xml-out global.xml",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "issuer", Usage: "the issuer's person `ID`", Required: true, Destination: &o.Issuer},
			&cli.StringFlag{Name: "periodicity", Usage: "`CODE` of c_Periodicidad (01-05)", Required: true, Destination: &o.Periodicity},
			&cli.StringFlag{Name: "month", Usage: "`CODE` of c_Meses (01-12, or 13-18 for two months)", Required: true, Destination: &o.Month},
			&cli.StringFlag{Name: "year", Usage: "the `YYYY` of the period", Required: true, Destination: &o.Year},
			&cli.StringSliceFlag{Name: "ticket", Usage: "only the ticket `ID` (repeat for more)"},
			&cli.StringFlag{Name: "xml-out", Usage: "save the stamped XML to `FILE`", TakesFile: true, Destination: &o.XMLOut},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			o.Tickets = c.StringSlice("ticket")
			return run(c, o)
		},
	}
}

func globalizeRun(c *cli.Context, o *globalizeOptions) error {
	f := o.f
	in := api.GlobalInvoiceInput{IssuerID: o.Issuer, PeriodicityCode: o.Periodicity, MonthCode: o.Month, Year: api.Amount(o.Year), TicketIDs: o.Tickets}
	client, err := f.Client()
	if err != nil {
		return err
	}
	g, err := client.GlobalizeTickets(c.Context, in)
	if err != nil {
		return err
	}
	if f.JSON() {
		return f.Printer().Fields(g, nil)
	}
	if err := printStamped(f, g.Invoice, o.XMLOut); err != nil {
		return err
	}
	_, err = fmt.Fprintf(f.IO.Out, "Tickets: %d\n", len(g.TicketIDs))
	return err
}
