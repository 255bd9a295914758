// Package downloadrules is `timbra download-rules`: the bulk-download rules of the tenant
// (spec 2 §2.6, §4.6).
package downloadrules

import (
	"fmt"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra download-rules` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "download-rules",
		Usage: "List, read, create, rename and delete the bulk-download rules of your tenant",
		Description: "A rule asks the SAT for a person's CFDIs, metadata or withholding CFDIs, issued or\n" +
			"received. The person needs an RFC and a current e.firma (upload it with timbra tax-files).\n" +
			"Each RFC and download type takes one seat of the tenant's subscription.\n\n" +
			"Examples:\n" +
			"  timbra download-rules list\n" +
			"  timbra download-rules create --person 3f2a... --description \"Emitidos\" --query CFDI --type Emitidos --status Vigente\n" +
			"  timbra download-rules update 0c1e... --description \"Emitidos 2026\"\n" +
			"  timbra download-rules delete 0c1e... --yes",
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
		Usage:     "List the download rules of your tenant, one page at a time",
		UsageText: "timbra download-rules list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of rules (1 to 50 per page, 10 by default): ID, RFC, query type, download\n" +
			"type, invoice status, rule status and description. An approved rule whose person has no\n" +
			"current e.firma is \"paused\": it downloads nothing until one is uploaded, then the whole\n" +
			"period since its last run (get shows why). With -o json, the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra download-rules list\n" +
			"  timbra download-rules list --page 2 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "rules", 50, ""),
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
	out, err := client.ListDownloadRules(c.Context, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(out.Items))
	for _, r := range out.Items {
		rows = append(rows, []string{r.ID, r.Tin, r.SatQueryTypeID, r.DownloadTypeID, r.SatInvoiceStatusID,
			ruleStatusText(r), r.Description})
	}
	if err := p.Table(out, []string{"ID", "RFC", "QUERY", "TYPE", "INVOICES", "STATUS", "DESCRIPTION"}, rows, "No download rules."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, out.PageNumber, out.TotalPages, out.TotalCount, "rules")
	return nil
}

// ruleStatusText is a rule's status as "1 Pendiente" (the description when the answer has it),
// with ", paused" when the server pauses the approved rule (its person has no current e.firma).
func ruleStatusText(r api.DownloadRule) string {
	s := r.DownloadRuleStatusID
	if r.DownloadRuleStatus != nil {
		s += " " + r.DownloadRuleStatus.Description
	}
	if r.PausedReason != nil {
		s += ", paused"
	}
	return s
}

// Fields are the `label: value` lines of one rule, as get, create and update (and the operator's
// `timbra admin download-rules`) print it.
func Fields(p *cmdutil.Printer, r api.DownloadRule) []cmdutil.Field {
	person := r.PersonID
	if r.Person != nil {
		person += " (" + r.Person.LegalName + ")"
	}
	fs := []cmdutil.Field{
		{Label: "ID", Value: r.ID},
		{Label: "Description", Value: r.Description},
		{Label: "Person", Value: person},
		{Label: "RFC", Value: r.Tin},
		{Label: "Query type", Value: r.SatQueryTypeID},
		{Label: "Download type", Value: r.DownloadTypeID},
		{Label: "Invoice status", Value: r.SatInvoiceStatusID},
		{Label: "Status", Value: ruleStatusText(r)},
		{Label: "Test", Value: fmt.Sprint(r.IsTest)},
		{Label: "Created", Value: p.Time(r.CreatedAt)},
		{Label: "Updated", Value: p.Time(r.UpdatedAt)},
	}
	if r.PausedReason != nil {
		since := ""
		if r.PausedSince != nil {
			since = " (since " + p.Time(*r.PausedSince) + ")"
		}
		fs = append(fs, cmdutil.Field{Label: "Paused", Value: *r.PausedReason + since})
	}
	return fs
}

// printRule prints one rule, as get, create and update do.
func printRule(f *cmdutil.Factory, r api.DownloadRule) error {
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
		Usage:     "Show one download rule",
		UsageText: "timbra download-rules get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the rule's fields, the person and the status with their descriptions.\n\n" +
			"Example:\n" +
			"  timbra download-rules get 0c1e5b7d-4c39-9a61-2d8e-4f0b7c153f2a -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "rule ID"); err != nil {
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
	r, err := client.GetDownloadRule(c.Context, o.ID)
	if err != nil {
		return err
	}
	return printRule(o.f, r)
}

type createOptions struct {
	f                                        *cmdutil.Factory
	Person, Description, Query, Type, Status string
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[createOptions]) *cli.Command {
	o := &createOptions{f: f}
	run = cmdutil.OrRun(run, createRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Create a download rule (it starts Pendiente)",
		UsageText: "timbra download-rules create --person ID --description TEXT --query CFDI|Metadata|Retenciones --type Emitidos|Recibidos --status Vigente|Cancelado [-o json]",
		Description: "Cancelado is allowed only with --query Metadata. The server checks the person's RFC, its\n" +
			"current e.firma and the seats of the subscription.\n\n" +
			"Examples:\n" +
			"  timbra download-rules create --person 3f2a... --description \"Emitidos\" --query CFDI --type Emitidos --status Vigente\n" +
			"  timbra download-rules create --person 3f2a... --description \"Cancelados\" --query Metadata --type Recibidos --status Cancelado",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "person", Usage: "person `ID` (required)", Destination: &o.Person},
			&cli.StringFlag{Name: "description", Usage: "`TEXT`, up to 100 characters (required)", Destination: &o.Description},
			&cli.StringFlag{Name: "query", Usage: "query type `Q`: CFDI, Metadata or Retenciones (required)", Destination: &o.Query},
			&cli.StringFlag{Name: "type", Usage: "download type `T`: Emitidos or Recibidos (required)", Destination: &o.Type},
			&cli.StringFlag{Name: "status", Usage: "invoice status `S`: Vigente or Cancelado (required)", Destination: &o.Status},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			for _, n := range []string{"person", "description", "query", "type", "status"} {
				if !c.IsSet(n) {
					return cmdutil.UsageErrorf(c, "missing flag --%s", n)
				}
			}
			return run(c, o)
		},
	}
}

func createRun(c *cli.Context, o *createOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	r, err := client.CreateDownloadRule(c.Context, api.DownloadRuleInput{PersonID: &o.Person, Description: &o.Description,
		SatQueryTypeID: &o.Query, DownloadTypeID: &o.Type, SatInvoiceStatusID: &o.Status})
	if err != nil {
		return err
	}
	return printRule(o.f, r)
}

type updateOptions struct {
	f           *cmdutil.Factory
	ID          string
	Description string
}

func newUpdateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[updateOptions]) *cli.Command {
	o := &updateOptions{f: f}
	run = cmdutil.OrRun(run, updateRun)
	return &cli.Command{
		Name:      "update",
		Usage:     "Change the description of a download rule",
		UsageText: "timbra download-rules update ID --description TEXT [-o json]",
		ArgsUsage: "ID",
		Description: "Only the description changes; the owner's rules only by the owner.\n\n" +
			"Example:\n" +
			"  timbra download-rules update 0c1e... --description \"Emitidos 2026\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "description", Usage: "new `TEXT`, up to 100 characters (required)", Destination: &o.Description},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "rule ID"); err != nil {
				return err
			}
			if !c.IsSet("description") {
				return cmdutil.UsageErrorf(c, "missing flag --description")
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func updateRun(c *cli.Context, o *updateOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	id := o.ID
	r, err := client.UpdateDownloadRule(c.Context, id, api.DownloadRuleInput{ID: &id, Description: &o.Description})
	if err != nil {
		return err
	}
	return printRule(o.f, r)
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
		Usage:     "Delete a download rule",
		UsageText: "timbra download-rules delete ID [--yes]",
		ArgsUsage: "ID",
		Description: "On a terminal it asks first; elsewhere (scripts, pipes) --yes is required.\n\n" +
			"Example:\n" +
			"  timbra download-rules delete 0c1e... --yes",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "rule ID"); err != nil {
				return err
			}
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "delete"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func deleteRun(c *cli.Context, o *deleteOptions) error {
	ctx, f := c.Context, o.f
	client, err := f.Client()
	if err != nil {
		return err
	}
	if !o.Yes {
		r, err := client.GetDownloadRule(ctx, o.ID)
		if err != nil {
			return err
		}
		if err := cmdutil.Confirm(ctx, f.IO, fmt.Sprintf("Delete download rule %s (%s)?", r.ID, r.Description), "not deleted"); err != nil {
			return err
		}
	}
	if err := client.DeleteDownloadRule(ctx, o.ID); err != nil {
		return err
	}
	if f.JSON() {
		return cmdutil.WriteJSON(f.IO.Out, map[string]any{"id": o.ID, "deleted": true})
	}
	fmt.Fprintf(f.IO.Out, "Deleted download rule %s.\n", o.ID)
	return nil
}
