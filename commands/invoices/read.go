package invoices

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

// `timbra invoices list|get|xml|cancel|status`: reading invoices, their XML, cancelling one and
// asking SAT's status of one. -o is the output format on every command, so the XML file is
// --out FILE.

type listOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
	From, To, Issuer, Recipient, TypeCode, Status, Series string
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the invoices of your tenant, one page at a time",
		UsageText: "timbra invoices list [--from DATE] [--to DATE] [--issuer RFC] [--recipient RFC] [--type I|E|T|N|P] [--status S] [--series S] [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of invoices in creation order: ID, UUID, type, series, date, issuer,\n" +
			"recipient, total and status. Dates are the CFDI's (AAAA-MM-DD, inclusive). With -o json,\n" +
			"the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra invoices list --from 2026-11-01 --to 2026-11-30\n" +
			"  timbra invoices list --recipient XAXX010101000 --status Cancelado -o json",
		Flags: append(cmdutil.PagingFlags(&o.PagingOptions, "invoices", 50, ""),
			&cli.StringFlag{Name: "from", Usage: "invoices dated on or after `DATE`", Destination: &o.From},
			&cli.StringFlag{Name: "to", Usage: "invoices dated on or before `DATE`", Destination: &o.To},
			&cli.StringFlag{Name: "issuer", Usage: "issuer `RFC`", Destination: &o.Issuer},
			&cli.StringFlag{Name: "recipient", Usage: "recipient `RFC`", Destination: &o.Recipient},
			&cli.StringFlag{Name: "type", Usage: "invoice type `CODE` (I, E, T, N, P)", Destination: &o.TypeCode},
			&cli.StringFlag{Name: "status", Usage: "`STATUS`: Vigente, EnProcesoDeCancelacion or Cancelado", Destination: &o.Status},
			&cli.StringFlag{Name: "series", Usage: "`SERIES` of the invoice", Destination: &o.Series},
		),
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
	f := o.f
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("pageNumber", strconv.Itoa(o.Page))
	if o.PageSize > 0 {
		set("pageSize", strconv.Itoa(o.PageSize))
	}
	set("from", o.From)
	set("to", o.To)
	set("issuerTin", o.Issuer)
	set("recipientTin", o.Recipient)
	set("typeCode", o.TypeCode)
	set("status", o.Status)
	set("series", o.Series)
	client, err := f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListInvoices(c.Context, q)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(page.Items))
	for _, inv := range page.Items {
		rows = append(rows, []string{inv.ID, inv.UUID, inv.TypeCode, api.Deref(inv.Series), inv.Date, inv.Issuer.Tin, inv.Recipient.Tin,
			string(inv.Total) + " " + inv.CurrencyCode, inv.Status})
	}
	if err := f.Printer().Table(page, []string{"ID", "UUID", "TYPE", "SERIES", "DATE", "ISSUER", "RECIPIENT", "TOTAL", "STATUS"}, rows, "No invoices."); err != nil {
		return err
	}
	cmdutil.PageFooter(f, page.PageNumber, page.TotalPages, page.TotalCount, "invoices")
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
		Usage:     "Show an invoice",
		UsageText: "timbra invoices get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the invoice's UUID, type, date, parties, totals and status; with -o json the\n" +
			"whole answer (with the stamp: seals, QR code and the XML in base64).\n\n" +
			"Examples:\n" +
			"  timbra invoices get 0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77 -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "invoice ID"); err != nil {
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
	inv, err := client.GetInvoice(c.Context, o.ID)
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(inv, []cmdutil.Field{
		{Label: "ID", Value: inv.ID}, {Label: "UUID", Value: inv.UUID}, {Label: "Type", Value: inv.TypeCode}, {Label: "Series", Value: api.Deref(inv.Series)}, {Label: "Date", Value: inv.Date},
		{Label: "Issuer", Value: inv.Issuer.Tin + " " + inv.Issuer.LegalName}, {Label: "Recipient", Value: inv.Recipient.Tin + " " + inv.Recipient.LegalName},
		{Label: "Subtotal", Value: string(inv.Subtotal) + " " + inv.CurrencyCode}, {Label: "Total", Value: string(inv.Total) + " " + inv.CurrencyCode},
		{Label: "Status", Value: inv.Status},
	})
}

type xmlOptions struct {
	f       *cmdutil.Factory
	ID, Out string
}

func newXMLCmd(f *cmdutil.Factory, run cmdutil.RunFunc[xmlOptions]) *cli.Command {
	o := &xmlOptions{f: f}
	run = cmdutil.OrRun(run, xmlRun)
	return &cli.Command{
		Name:      "xml",
		Usage:     "Download the stamped XML of an invoice",
		UsageText: "timbra invoices xml ID [--out FILE]",
		ArgsUsage: "ID",
		Description: "Writes the stamped CFDI to --out FILE (default: <UUID>.xml in the current folder; - for\n" +
			"stdout).\n\n" +
			"Examples:\n" +
			"  timbra invoices xml 0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77 --out factura.xml\n" +
			"  timbra invoices xml 0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77 --out - | xmllint --format -",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write the XML to `FILE` (- for stdout)", TakesFile: true, Destination: &o.Out},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "invoice ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func xmlRun(c *cli.Context, o *xmlOptions) error {
	f := o.f
	client, err := f.Client()
	if err != nil {
		return err
	}
	file, err := client.InvoiceXML(c.Context, o.ID)
	if err != nil {
		return err
	}
	xml, err := base64.StdEncoding.DecodeString(file.Base64File)
	if err != nil {
		return fmt.Errorf("the XML is not base64: %w", err)
	}
	path := o.Out
	if path == "" {
		if path, err = file.LocalName(); err != nil {
			return err
		}
	}
	if path == "-" {
		_, err := f.IO.Out.Write(xml)
		return err
	}
	if err := os.WriteFile(path, xml, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Printer().Fields(map[string]any{"fileName": path, "bytes": len(xml)}, []cmdutil.Field{{Label: "XML", Value: path}, {Label: "Bytes", Value: strconv.Itoa(len(xml))}})
}

type cancelOptions struct {
	f                             *cmdutil.Factory
	ID, Reason, Replacement, File string
	Yes                           bool
}

func newCancelCmd(f *cmdutil.Factory, run cmdutil.RunFunc[cancelOptions]) *cli.Command {
	o := &cancelOptions{f: f}
	run = cmdutil.OrRun(run, cancelRun)
	return &cli.Command{
		Name:      "cancel",
		Usage:     "Cancel an invoice before the SAT",
		UsageText: "timbra invoices cancel ID --reason 01|02|03|04 [--replacement UUID] [--yes]\n   timbra invoices cancel --file cancel.json [--yes]",
		ArgsUsage: "ID",
		Description: "Reasons (c_MotivosCancelacion): 01 issued with errors, replaced (--replacement is the\n" +
			"UUID of the invoice that replaces it), 02 issued with errors, 03 the operation did not take\n" +
			"place, 04 nominative operation in a global invoice. Without the recipient's acceptance the\n" +
			"invoice is cancelled at once; otherwise it stays EnProcesoDeCancelacion until the recipient\n" +
			"answers. --file sends the API's body as it is (for example invoiceUuid, tin and the\n" +
			"issuer's taxCredentials; the key password travels in that file, never in argv). On a\n" +
			"terminal it asks first; elsewhere --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra invoices cancel 0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77 --reason 02\n" +
			"  timbra invoices cancel 0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77 --reason 01 --replacement 5FB2822E-396D-4725-8521-CDC4BDD20CCF --yes",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "cancellation reason `CODE` (01 to 04)", Destination: &o.Reason},
			&cli.StringFlag{Name: "replacement", Usage: "`UUID` of the replacing invoice (reason 01)", Destination: &o.Replacement},
			&cli.StringFlag{Name: "file", Aliases: []string{"f"}, Usage: "the request as JSON from `PATH` (- for stdin)", TakesFile: true, Destination: &o.File},
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if o.File != "" {
				if err := cmdutil.ExactArgs(c); err != nil {
					return err
				}
				if o.File == "-" && !o.Yes {
					return cmdutil.UsageErrorf(c, "--file - reads stdin: pass --yes")
				}
				return run(c, o)
			}
			if err := cmdutil.ExactArgs(c, "invoice ID"); err != nil {
				return err
			}
			if o.Reason == "" {
				return cmdutil.UsageErrorf(c, "missing --reason (01 to 04)")
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func cancelRun(c *cli.Context, o *cancelOptions) error {
	ctx, f := c.Context, o.f
	var in api.InvoiceCancel
	if o.File == "" {
		in = api.InvoiceCancel{ID: o.ID, CancellationReasonCode: o.Reason, ReplacementUUID: o.Replacement}
	} else {
		raw, err := cmdutil.ReadInput(o.File, bufio.NewReader(f.IO.In))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			return cmdutil.UsageErrorf(c, "--file %s is not a cancellation request: %v", o.File, err)
		}
	}
	// after --file is read, so that an unreadable or wrong file is told first
	if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "cancel"); err != nil {
		return err
	}
	client, err := f.Client()
	if err != nil {
		return err
	}
	if !o.Yes {
		what := in.ID
		if what == "" {
			what = in.InvoiceUUID
		}
		if err := cmdutil.Confirm(ctx, f.IO, fmt.Sprintf("Cancel invoice %s with reason %s? This cannot be undone.", what, in.CancellationReasonCode), "not cancelled"); err != nil {
			return err
		}
	}
	ack, err := client.CancelInvoice(ctx, in)
	if err != nil {
		return err
	}
	fs := []cmdutil.Field{{Label: "Status", Value: ack.Status}}
	for u, code := range ack.InvoiceUUIDs {
		fs = append(fs, cmdutil.Field{Label: "UUID", Value: u + " (" + code + ")"})
	}
	return f.Printer().Fields(ack, fs)
}

type statusOptions struct {
	f  *cmdutil.Factory
	ID string
}

func newStatusCmd(f *cmdutil.Factory, run cmdutil.RunFunc[statusOptions]) *cli.Command {
	o := &statusOptions{f: f}
	run = cmdutil.OrRun(run, statusRun)
	return &cli.Command{
		Name:      "status",
		Usage:     "Ask SAT's status of an invoice",
		UsageText: "timbra invoices status ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the status (Vigente, Cancelado), whether it can be cancelled and how, and the\n" +
			"state of its cancellation.\n\n" +
			"Examples:\n" +
			"  timbra invoices status 0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "invoice ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func statusRun(c *cli.Context, o *statusOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	s, err := client.InvoiceStatusOf(c.Context, api.InvoiceStatusQuery{ID: o.ID})
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(s, []cmdutil.Field{{Label: "Status", Value: s.Status}, {Label: "Cancelable", Value: s.CancelableStatus},
		{Label: "Cancellation", Value: s.CancellationStatus}, {Label: "Code", Value: s.StatusCode}})
}
