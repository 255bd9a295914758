// Package downloads is `timbra downloads`: the bulk download requests of the tenant (the
// official client's downloadRequests), which the server carries out at the SAT with the
// requester's e.firma: create one, follow it, and read its CFDIs, metadata and packages.
package downloads

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// Statuses of a request (catalog DownloadRequestStatuses).
const (
	statusCompleted = "Completed"
	statusFailed    = "Failed"
)

// downloadByUUID is the download type of one CFDI by its UUID (catalog DownloadTypes).
const downloadByUUID = "Uuid"

// NewCmd is `timbra downloads` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "downloads",
		Usage: "Ask the SAT for CFDIs or metadata in bulk, follow the requests and save what they bring",
		Description: "A bulk download request asks the SAT's web service for the CFDIs, the metadata or the\n" +
			"withholding CFDIs (Retenciones) a person issued or received in a period, or for one CFDI by its\n" +
			"UUID. The server signs it with the person's e.firma (upload it with\n" +
			"timbra tax-files), queries, verifies and downloads the packages; a request is Pending, then\n" +
			"InProgress, then Completed (or Failed with the SAT's code and text).\n\n" +
			"Examples:\n" +
			"  timbra downloads request --rule 0c1e... --from 2026-01-01 --to 2026-02-01\n" +
			"  timbra downloads request --requester EKU9003173C9 --type Emitidos --query CFDI --from 2026-01-01 --to 2026-02-01\n" +
			"  timbra downloads request --requester EKU9003173C9 --uuid 96623061-61fe-49de-b298-c7156476aa8b\n" +
			"  timbra downloads wait 5b7d...\n" +
			"  timbra downloads xmls 5b7d... --save cfdis\n" +
			"  timbra downloads package 5b7d... --dir zips",
		Subcommands: []*cli.Command{newRequestCmd(f, nil), newListCmd(f, nil), newGetCmd(f, nil), newWaitCmd(f, nil),
			newXMLsCmd(f, nil), newMetadataCmd(f, nil), newPackageCmd(f, nil)},
	}
}

type requestOptions struct {
	f                               *cmdutil.Factory
	Rule, Requester, Type, Query    string
	InvoiceType, Status, Complement string
	Issuer, Recipient, From, To     string
	UUID, OnBehalf                  string
}

func newRequestCmd(f *cmdutil.Factory, run cmdutil.RunFunc[requestOptions]) *cli.Command {
	o := &requestOptions{f: f}
	run = cmdutil.OrRun(run, requestRun)
	return &cli.Command{
		Name:  "request",
		Usage: "Create a bulk download request, from an approved rule or explicit parameters",
		UsageText: "timbra downloads request --rule ID --from DATE --to DATE [-o json]\n" +
			"timbra downloads request --requester RFC --type Emitidos|Recibidos --query CFDI|Metadata|Retenciones --from DATE --to DATE\n" +
			"    [--invoice-type I|E|T|N|P] [--status Vigente|Cancelado] [--complement C] [--issuer RFC] [--recipient RFC]\n" +
			"    [--on-behalf RFC] [-o json]\n" +
			"timbra downloads request --requester RFC --uuid UUID [--query CFDI|Retenciones] [-o json]",
		Description: "With --rule the rule (approved by the operator) gives the RFC, download type, query type and\n" +
			"invoice status. Otherwise --requester names a person of the tenant with a current e.firma.\n" +
			"The dates are the SAT's period in Mexico City's wall clock (2026-01-01, 2026-01-01T00:00:00 or\n" +
			"with an offset, converted). The SAT gives received CFDIs only Vigente (--status Vigente).\n" +
			"--query Retenciones asks for the withholding CFDIs (CFDI de Retenciones e información de pagos).\n" +
			"--on-behalf keeps the CFDIs with a concept on behalf of that RFC (SAT's RfcACuentaTerceros).\n\n" +
			"--uuid asks for the one CFDI of that UUID, issued or received by the requester (download type\n" +
			"Uuid): no period and no filters; --query is CFDI unless it is a retención (Retenciones).\n\n" +
			"Examples:\n" +
			"  timbra downloads request --rule 0c1e... --from 2026-01-01 --to 2026-02-01\n" +
			"  timbra downloads request --requester EKU9003173C9 --type Recibidos --query Metadata --from 2026-01-01 --to 2026-01-31T23:59:59\n" +
			"  timbra downloads request --requester EKU9003173C9 --uuid 96623061-61fe-49de-b298-c7156476aa8b\n" +
			"  timbra downloads request --requester EKU9003173C9 --type Emitidos --query Retenciones --from 2026-01-01 --to 2026-02-01",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "rule", Usage: "an approved download rule's `ID`", Destination: &o.Rule},
			&cli.StringFlag{Name: "requester", Usage: "the `RFC` of the person whose e.firma signs", Destination: &o.Requester},
			&cli.StringFlag{Name: "type", Usage: "download type `T`: Emitidos or Recibidos", Destination: &o.Type},
			&cli.StringFlag{Name: "query", Usage: "query type `Q`: CFDI, Metadata or Retenciones", Destination: &o.Query},
			&cli.StringFlag{Name: "uuid", Usage: "download the one CFDI of this `UUID` (download type Uuid; no --from, --to or filters)", Destination: &o.UUID},
			&cli.StringFlag{Name: "on-behalf", Usage: "only CFDIs with a concept on behalf of this `RFC` (RfcACuentaTerceros)", Destination: &o.OnBehalf},
			&cli.StringFlag{Name: "invoice-type", Usage: "only CFDIs of type `T` (I, E, T, N or P)", Destination: &o.InvoiceType},
			&cli.StringFlag{Name: "status", Usage: "only CFDIs `S`: Vigente or Cancelado", Destination: &o.Status},
			&cli.StringFlag{Name: "complement", Usage: "only CFDIs with complement `C` (catalog SatInvoiceComplements)", Destination: &o.Complement},
			&cli.StringFlag{Name: "issuer", Usage: "the issuer's `RFC` (received CFDIs)", Destination: &o.Issuer},
			&cli.StringFlag{Name: "recipient", Usage: "the recipient's `RFC` (issued CFDIs)", Destination: &o.Recipient},
			&cli.StringFlag{Name: "from", Usage: "start of the period, `DATE` (required)", Destination: &o.From},
			&cli.StringFlag{Name: "to", Usage: "end of the period, `DATE` (required)", Destination: &o.To},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if c.IsSet("uuid") {
				for _, n := range []string{"rule", "type", "from", "to", "invoice-type", "status", "complement", "issuer", "recipient", "on-behalf"} {
					if c.IsSet(n) {
						return cmdutil.UsageErrorf(c, "--uuid asks for one CFDI, with no period or filters: drop --%s", n)
					}
				}
				if !c.IsSet("requester") {
					return cmdutil.UsageErrorf(c, "missing flag --requester")
				}
				o.Type = downloadByUUID
				if o.Query == "" {
					o.Query = "CFDI"
				}
				return run(c, o)
			}
			for _, n := range []string{"from", "to"} {
				if !c.IsSet(n) {
					return cmdutil.UsageErrorf(c, "missing flag --%s", n)
				}
			}
			if o.Rule != "" {
				for _, n := range []string{"requester", "type", "query", "invoice-type", "status", "complement"} {
					if c.IsSet(n) {
						return cmdutil.UsageErrorf(c, "--rule gives the request's parameters: drop --%s", n)
					}
				}
				return run(c, o)
			}
			for _, n := range []string{"requester", "type", "query"} {
				if !c.IsSet(n) {
					return cmdutil.UsageErrorf(c, "missing flag --%s (or give --rule)", n)
				}
			}
			return run(c, o)
		},
	}
}

// opt is nil for an empty flag (the field left out of the body).
func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func requestRun(c *cli.Context, o *requestOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	in := api.DownloadRequestInput{DownloadRuleID: opt(o.Rule), RequesterTin: opt(o.Requester), DownloadTypeID: opt(o.Type),
		SatQueryTypeID: opt(o.Query), SatInvoiceTypeID: opt(o.InvoiceType), SatInvoiceStatusID: opt(o.Status),
		SatInvoiceComplementID: opt(o.Complement), IssuerTin: opt(o.Issuer), RecipientTin: opt(o.Recipient),
		StartDate: opt(o.From), EndDate: opt(o.To), UUID: opt(o.UUID), OnBehalfTin: opt(o.OnBehalf)}
	r, err := client.CreateDownloadRequest(c.Context, in)
	if err != nil {
		return cmdutil.Explain(err, cmdutil.Sources{"DownloadRuleId": "--rule", "RequesterTin": "--requester",
			"DownloadTypeId": "--type", "SatQueryTypeId": "--query", "SatInvoiceTypeId": "--invoice-type",
			"SatInvoiceStatusId": "--status", "SatInvoiceComplementId": "--complement", "IssuerTin": "--issuer",
			"RecipientTin": "--recipient", "StartDate": "--from", "EndDate": "--to", "Uuid": "--uuid", "OnBehalfTin": "--on-behalf"})
	}
	if err := printRequest(o.f, r); err != nil {
		return err
	}
	if !o.f.JSON() {
		fmt.Fprintf(o.f.IO.Err, "Follow it with: timbra downloads wait %s\n", r.ID)
	}
	return nil
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
		Usage:     "List the bulk download requests of your tenant, one page at a time",
		UsageText: "timbra downloads list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of requests, the newest last (1 to 50 per page, 10 by default): ID,\n" +
			"number, RFC, download and query type, period, status and CFDIs found. With -o json, the whole\n" +
			"page object.\n\n" +
			"Examples:\n" +
			"  timbra downloads list\n" +
			"  timbra downloads list --page 2 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "requests", 50, ""),
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
	out, err := client.ListDownloadRequests(c.Context, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(out.Items))
	for _, r := range out.Items {
		rows = append(rows, []string{r.ID, strconv.FormatInt(r.Consecutive, 10), r.RequesterTin, r.DownloadTypeID, r.SatQueryTypeID,
			period(r), r.DownloadRequestStatusID, strconv.Itoa(r.InvoiceCount)})
	}
	if err := o.f.Printer().Table(out, []string{"ID", "#", "RFC", "TYPE", "QUERY", "PERIOD", "STATUS", "FOUND"}, rows, "No download requests."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, out.PageNumber, out.TotalPages, out.TotalCount, "requests")
	return nil
}

// Fields are the `label: value` lines of one request.
func Fields(p *cmdutil.Printer, r api.DownloadRequest) []cmdutil.Field {
	fs := []cmdutil.Field{
		{Label: "ID", Value: r.ID},
		{Label: "Number", Value: strconv.FormatInt(r.Consecutive, 10)},
		{Label: "Status", Value: cmdutil.CatalogText(&r.DownloadRequestStatusID, r.DownloadRequestStatus)},
		{Label: "Request type", Value: r.DownloadRequestTypeID},
		{Label: "Rule", Value: api.Deref(r.DownloadRuleID)},
		{Label: "Requester", Value: r.RequesterTin},
		{Label: "Issuer", Value: api.Deref(r.IssuerTin)},
		{Label: "Recipient", Value: api.Deref(r.RecipientTin)},
		{Label: "Download type", Value: r.DownloadTypeID},
		{Label: "Query type", Value: r.SatQueryTypeID},
		{Label: "Invoice type", Value: r.SatInvoiceTypeID},
		{Label: "Invoice status", Value: r.SatInvoiceStatusID},
		{Label: "Period", Value: period(r)},
		{Label: "On behalf of", Value: api.Deref(r.OnBehalfTin)},
		{Label: "SAT request", Value: api.Deref(r.SatRequestID)},
		{Label: "SAT status", Value: satStatus(r)},
		{Label: "Found", Value: strconv.Itoa(r.InvoiceCount)},
		{Label: "Packages", Value: strconv.Itoa(len(r.PackageIDs))},
		{Label: "Ready", Value: cmdutil.YesNo(r.IsReadyToDownload)},
		{Label: "Retries", Value: strconv.Itoa(r.RetriesCount)},
	}
	if r.NextAttemptDate != nil {
		fs = append(fs, cmdutil.Field{Label: "Next attempt", Value: p.Time(*r.NextAttemptDate)})
	}
	return append(fs, cmdutil.Field{Label: "Created", Value: p.Time(r.CreatedAt)}, cmdutil.Field{Label: "Updated", Value: p.Time(r.UpdatedAt)})
}

// period is a request's period, or the UUID of a download by UUID.
func period(r api.DownloadRequest) string {
	if r.UUID != nil {
		return "UUID " + *r.UUID
	}
	return r.StartDate + " – " + r.EndDate
}

// satStatus is the SAT's state of the request and its last answer: "2 (En proceso): 5000 Solicitud recibida con éxito".
func satStatus(r api.DownloadRequest) string {
	s := cmdutil.CatalogText(&r.SatRequestStatusID, r.SatRequestStatus)
	if code := api.Deref(r.SatStatusCode); code != "" {
		s += ": " + code
		if m := api.Deref(r.SatMessage); m != "" {
			s += " " + cmdutil.OneLine(m)
		}
	}
	return s
}

func printRequest(f *cmdutil.Factory, r api.DownloadRequest) error {
	p := f.Printer()
	return p.Fields(r, Fields(p, r))
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
		Usage:     "Show one bulk download request",
		UsageText: "timbra downloads get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the request's parameters, its status and the SAT's last answer.\n\n" +
			"Example:\n" +
			"  timbra downloads get 5b7d... -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "request ID"); err != nil {
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
	r, err := client.GetDownloadRequest(c.Context, o.ID)
	if err != nil {
		return err
	}
	return printRequest(o.f, r)
}

type waitOptions struct {
	f        *cmdutil.Factory
	ID       string
	Interval time.Duration
	Timeout  time.Duration
}

func newWaitCmd(f *cmdutil.Factory, run cmdutil.RunFunc[waitOptions]) *cli.Command {
	o := &waitOptions{f: f}
	run = cmdutil.OrRun(run, waitRun)
	return &cli.Command{
		Name:      "wait",
		Usage:     "Wait until a bulk download request is finished, showing its progress",
		UsageText: "timbra downloads wait ID [--interval D] [--timeout D] [-o json]",
		ArgsUsage: "ID",
		Description: "Reads the request every --interval and writes each change of status on stderr; once it is\n" +
			"Completed prints it (exit 0); Failed prints it and exits 1 with the SAT's answer. The SAT\n" +
			"may take minutes or hours; --timeout gives up (exit 1).\n\n" +
			"Examples:\n" +
			"  timbra downloads wait 5b7d...\n" +
			"  timbra downloads wait 5b7d... --interval 30s --timeout 2h -o json",
		Flags: []cli.Flag{
			&cli.DurationFlag{Name: "interval", Value: 5 * time.Second, Usage: "read the request every `D`", Destination: &o.Interval},
			&cli.DurationFlag{Name: "timeout", Usage: "give up after `D` (0: never)", Destination: &o.Timeout},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "request ID"); err != nil {
				return err
			}
			if o.Interval <= 0 {
				return cmdutil.UsageErrorf(c, "--interval must be more than 0")
			}
			if o.Timeout < 0 {
				return cmdutil.UsageErrorf(c, "--timeout must be 0 or more")
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

// progress is the line wait writes for a state of the request.
func progress(r api.DownloadRequest) string {
	s := r.DownloadRequestStatusID
	if r.SatRequestStatusID != "" && r.SatRequestStatusID != "0" {
		s += ", SAT " + satStatus(r)
	}
	if r.InvoiceCount > 0 || r.IsReadyToDownload {
		s += fmt.Sprintf(", %d found in %d packages", r.InvoiceCount, len(r.PackageIDs))
	}
	if r.RetriesCount > 0 {
		s += fmt.Sprintf(", %d retries", r.RetriesCount)
	}
	return s
}

func waitRun(c *cli.Context, o *waitOptions) error {
	ctx := c.Context
	if o.Timeout > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	last := ""
	for {
		r, err := client.GetDownloadRequest(ctx, o.ID)
		if err != nil {
			if ctx.Err() != nil && c.Context.Err() == nil {
				return fmt.Errorf("request %s not finished after %s", o.ID, o.Timeout)
			}
			return err
		}
		if line := progress(r); line != last {
			fmt.Fprintf(o.f.IO.Err, "%s  %s\n", o.f.Now().UTC().Format("15:04:05"), line)
			last = line
		}
		switch r.DownloadRequestStatusID {
		case statusCompleted:
			return printRequest(o.f, r)
		case statusFailed:
			if err := printRequest(o.f, r); err != nil {
				return err
			}
			return fmt.Errorf("request %s failed: SAT %s", r.ID, strings.TrimSpace(api.Deref(r.SatStatusCode)+" "+api.Deref(r.SatMessage)))
		}
		t := time.NewTimer(o.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			if c.Context.Err() == nil {
				return fmt.Errorf("request %s not finished after %s (%s)", o.ID, o.Timeout, r.DownloadRequestStatusID)
			}
			return c.Context.Err()
		case <-t.C:
		}
	}
}

type xmlsOptions struct {
	f  *cmdutil.Factory
	ID string
	cmdutil.PagingOptions
	Save string
}

func newXMLsCmd(f *cmdutil.Factory, run cmdutil.RunFunc[xmlsOptions]) *cli.Command {
	o := &xmlsOptions{f: f}
	run = cmdutil.OrRun(run, xmlsRun)
	return &cli.Command{
		Name:      "xmls",
		Usage:     "List the CFDIs a finished request downloaded, and save them",
		UsageText: "timbra downloads xmls ID [--page N] [--page-size N] [--save DIR] [-o json]",
		ArgsUsage: "ID",
		Description: "Prints one page of CFDIs (1 to 100, 50 by default): UUID, date, type, issuer, recipient and\n" +
			"total. --save DIR writes each CFDI of the page as DIR/UUID.xml. With -o json, the whole page\n" +
			"object (each with its XML in base64Content).\n\n" +
			"Examples:\n" +
			"  timbra downloads xmls 5b7d...\n" +
			"  timbra downloads xmls 5b7d... --page 2 --page-size 100 --save cfdis",
		Flags: append(cmdutil.PagingFlags(&o.PagingOptions, "CFDIs", 100, ""),
			&cli.StringFlag{Name: "save", Usage: "write each CFDI as `DIR`/UUID.xml", TakesFile: true, Destination: &o.Save}),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "request ID"); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func xmlsRun(c *cli.Context, o *xmlsOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	out, err := client.DownloadRequestXMLs(c.Context, o.ID, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	if o.Save != "" {
		if err := os.MkdirAll(o.Save, 0o755); err != nil {
			return err
		}
		for _, x := range out.Items {
			b, err := base64.StdEncoding.DecodeString(x.Base64Content)
			if err != nil {
				return fmt.Errorf("CFDI %s: %w", x.InvoiceUUID, err)
			}
			if err := os.WriteFile(filepath.Join(o.Save, safeName(x.InvoiceUUID)+".xml"), b, 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(o.f.IO.Err, "Saved %d CFDIs in %s.\n", len(out.Items), o.Save)
	}
	rows := make([][]string, 0, len(out.Items))
	for _, x := range out.Items {
		rows = append(rows, []string{x.InvoiceUUID, x.Date, x.InvoiceType, x.XMLIssuer.Tin, x.XMLRecipient.Tin,
			cmdutil.FormatAmount(x.Total) + " " + x.Currency})
	}
	if err := o.f.Printer().Table(out, []string{"UUID", "DATE", "TYPE", "ISSUER", "RECIPIENT", "TOTAL"}, rows, "No CFDIs."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, out.PageNumber, out.TotalPages, out.TotalCount, "CFDIs")
	return nil
}

// safeName keeps a name from the server to one path element.
func safeName(s string) string {
	s = filepath.Base(filepath.Clean("/" + s))
	if s == "/" || s == "." || s == "" {
		return "_"
	}
	return s
}

type metadataOptions struct {
	f  *cmdutil.Factory
	ID string
	cmdutil.PagingOptions
}

func newMetadataCmd(f *cmdutil.Factory, run cmdutil.RunFunc[metadataOptions]) *cli.Command {
	o := &metadataOptions{f: f}
	run = cmdutil.OrRun(run, metadataRun)
	return &cli.Command{
		Name:      "metadata",
		Usage:     "List the metadata lines a finished request downloaded",
		UsageText: "timbra downloads metadata ID [--page N] [--page-size N] [-o json]",
		ArgsUsage: "ID",
		Description: "Prints one page of the SAT's metadata lines (1 to 100, 50 by default): UUID, issuer,\n" +
			"recipient, date, amount, type, status (Vigente or Cancelado) and the cancellation date.\n\n" +
			"Examples:\n" +
			"  timbra downloads metadata 5b7d...\n" +
			"  timbra downloads metadata 5b7d... --page-size 100 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "lines", 100, ""),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "request ID"); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func metadataRun(c *cli.Context, o *metadataOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	out, err := client.DownloadRequestMetadata(c.Context, o.ID, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	rows := make([][]string, 0, len(out.Items))
	for _, m := range out.Items {
		status := "Vigente"
		if m.Status == 0 {
			status = "Cancelado"
		}
		rows = append(rows, []string{m.InvoiceUUID, m.IssuerTin, m.RecipientTin, m.InvoiceDate, cmdutil.FormatAmount(m.Amount),
			m.InvoiceType, status, api.Deref(m.CancellationDate)})
	}
	if err := o.f.Printer().Table(out, []string{"UUID", "ISSUER", "RECIPIENT", "DATE", "AMOUNT", "TYPE", "STATUS", "CANCELLED"}, rows, "No metadata lines."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, out.PageNumber, out.TotalPages, out.TotalCount, "lines")
	return nil
}

type packageOptions struct {
	f   *cmdutil.Factory
	ID  string
	Dir string
}

func newPackageCmd(f *cmdutil.Factory, run cmdutil.RunFunc[packageOptions]) *cli.Command {
	o := &packageOptions{f: f}
	run = cmdutil.OrRun(run, packageRun)
	return &cli.Command{
		Name:      "package",
		Usage:     "Save the packages (ZIP files, as the SAT sent them) of a finished request",
		UsageText: "timbra downloads package ID [--dir DIR] [-o json]",
		ArgsUsage: "ID",
		Description: "Writes each package of the request as DIR/PACKAGE-ID.zip (the current folder by default),\n" +
			"its progress on stderr, and the files written on stdout (-o json: file, bytes).\n\n" +
			"Examples:\n" +
			"  timbra downloads package 5b7d...\n" +
			"  timbra downloads package 5b7d... --dir zips -o json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: ".", Usage: "write the ZIP files in `DIR` (made if missing)", TakesFile: true, Destination: &o.Dir},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "request ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

// savedPackage is one file package wrote (-o json).
type savedPackage struct {
	File  string `json:"file"`
	Bytes int    `json:"bytes"`
}

func packageRun(c *cli.Context, o *packageOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	fmt.Fprintf(o.f.IO.Err, "Downloading the packages of %s...\n", o.ID)
	files, err := client.DownloadRequestPackages(c.Context, o.ID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	saved := make([]savedPackage, 0, len(files))
	for i, p := range files {
		b, err := base64.StdEncoding.DecodeString(p.Base64File)
		if err != nil {
			return fmt.Errorf("package %s: %w", p.FileName, err)
		}
		name := safeName(p.FileName)
		if !strings.Contains(name, ".") && p.FileExtension != "" {
			name += "." + p.FileExtension
		}
		path := filepath.Join(o.Dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(o.f.IO.Err, "[%d/%d] %s (%d bytes)\n", i+1, len(files), path, len(b))
		saved = append(saved, savedPackage{File: path, Bytes: len(b)})
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(o.f.IO.Out, saved)
	}
	if len(saved) == 0 {
		fmt.Fprintln(o.f.IO.Out, "The request has no packages.")
		return nil
	}
	for _, s := range saved {
		fmt.Fprintln(o.f.IO.Out, s.File)
	}
	return nil
}
