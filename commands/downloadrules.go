package commands

import (
	"context"
	"fmt"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// `timbra download-rules`: the bulk-download rules of the tenant (spec 2 §2.6, §4.6).

func newDownloadRulesCmd(f *cmdutil.Factory) *cli.Command {
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
		Subcommands: []*cli.Command{newDownloadRulesListCmd(f), newDownloadRulesGetCmd(f), newDownloadRulesCreateCmd(f),
			newDownloadRulesUpdateCmd(f), newDownloadRulesDeleteCmd(f)},
	}
}

func newDownloadRulesListCmd(f *cmdutil.Factory) *cli.Command {
	var pg cmdutil.PagingOptions
	return &cli.Command{
		Name:      "list",
		Usage:     "List the download rules of your tenant, one page at a time",
		UsageText: "timbra download-rules list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of rules (1 to 50 per page, 10 by default): ID, RFC, query type, download\n" +
			"type, invoice status, rule status and description. With -o json, the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra download-rules list\n" +
			"  timbra download-rules list --page 2 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&pg, "rules", 50, ""),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := pg.Check(c, 0); err != nil {
				return err
			}
			client, err := f.Client()
			if err != nil {
				return err
			}
			out, err := client.ListDownloadRules(c.Context, pg.Page, pg.PageSize)
			if err != nil {
				return err
			}
			p := f.Printer()
			rows := make([][]string, 0, len(out.Items))
			for _, r := range out.Items {
				rows = append(rows, []string{r.ID, r.Tin, r.SatQueryTypeID, r.DownloadTypeID, r.SatInvoiceStatusID,
					ruleStatusText(r), r.Description})
			}
			if err := p.Table(out, []string{"ID", "RFC", "QUERY", "TYPE", "INVOICES", "STATUS", "DESCRIPTION"}, rows, "No download rules."); err != nil {
				return err
			}
			if f.IO.OutTTY && !f.JSON() && out.TotalPages > 1 {
				fmt.Fprintf(f.IO.Err, "Page %d of %d (%d rules).\n", out.PageNumber, out.TotalPages, out.TotalCount)
			}
			return nil
		},
	}
}

// ruleStatusText is a rule's status as "1 Pendiente" (the description when the answer has it).
func ruleStatusText(r api.DownloadRule) string {
	if r.DownloadRuleStatus != nil {
		return r.DownloadRuleStatusID + " " + r.DownloadRuleStatus.Description
	}
	return r.DownloadRuleStatusID
}

func downloadRuleFields(p *cmdutil.Printer, r api.DownloadRule) []cmdutil.Field {
	person := r.PersonID
	if r.Person != nil {
		person += " (" + r.Person.LegalName + ")"
	}
	return []cmdutil.Field{
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
}

func newDownloadRulesGetCmd(f *cmdutil.Factory) *cli.Command {
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
			client, err := f.Client()
			if err != nil {
				return err
			}
			r, err := client.GetDownloadRule(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			p := f.Printer()
			return p.Fields(r, downloadRuleFields(p, r))
		},
	}
}

func newDownloadRulesCreateCmd(f *cmdutil.Factory) *cli.Command {
	var person, desc, query, typ, status string
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
			&cli.StringFlag{Name: "person", Usage: "person `ID` (required)", Destination: &person},
			&cli.StringFlag{Name: "description", Usage: "`TEXT`, up to 100 characters (required)", Destination: &desc},
			&cli.StringFlag{Name: "query", Usage: "query type `Q`: CFDI, Metadata or Retenciones (required)", Destination: &query},
			&cli.StringFlag{Name: "type", Usage: "download type `T`: Emitidos or Recibidos (required)", Destination: &typ},
			&cli.StringFlag{Name: "status", Usage: "invoice status `S`: Vigente or Cancelado (required)", Destination: &status},
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
			client, err := f.Client()
			if err != nil {
				return err
			}
			r, err := client.CreateDownloadRule(c.Context, api.DownloadRuleInput{PersonID: &person, Description: &desc,
				SatQueryTypeID: &query, DownloadTypeID: &typ, SatInvoiceStatusID: &status})
			if err != nil {
				return err
			}
			p := f.Printer()
			return p.Fields(r, downloadRuleFields(p, r))
		},
	}
}

func newDownloadRulesUpdateCmd(f *cmdutil.Factory) *cli.Command {
	var desc string
	return &cli.Command{
		Name:      "update",
		Usage:     "Change the description of a download rule",
		UsageText: "timbra download-rules update ID --description TEXT [-o json]",
		ArgsUsage: "ID",
		Description: "Only the description changes; the owner's rules only by the owner.\n\n" +
			"Example:\n" +
			"  timbra download-rules update 0c1e... --description \"Emitidos 2026\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "description", Usage: "new `TEXT`, up to 100 characters (required)", Destination: &desc},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "rule ID"); err != nil {
				return err
			}
			if !c.IsSet("description") {
				return cmdutil.UsageErrorf(c, "missing flag --description")
			}
			client, err := f.Client()
			if err != nil {
				return err
			}
			id := c.Args().First()
			r, err := client.UpdateDownloadRule(c.Context, id, api.DownloadRuleInput{ID: &id, Description: &desc})
			if err != nil {
				return err
			}
			p := f.Printer()
			return p.Fields(r, downloadRuleFields(p, r))
		},
	}
}

func newDownloadRulesDeleteCmd(f *cmdutil.Factory) *cli.Command {
	var yes bool
	return &cli.Command{
		Name:      "delete",
		Usage:     "Delete a download rule",
		UsageText: "timbra download-rules delete ID [--yes]",
		ArgsUsage: "ID",
		Description: "On a terminal it asks first; elsewhere (scripts, pipes) --yes is required.\n\n" +
			"Example:\n" +
			"  timbra download-rules delete 0c1e... --yes",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation", Destination: &yes},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "rule ID"); err != nil {
				return err
			}
			if !yes && !f.IO.InTTY {
				return cmdutil.UsageErrorf(c, "refusing to delete without confirmation: stdin is not a terminal; pass --yes")
			}
			return downloadRulesDeleteRun(c.Context, f, c.Args().First(), yes)
		},
	}
}

func downloadRulesDeleteRun(ctx context.Context, f *cmdutil.Factory, id string, yes bool) error {
	client, err := f.Client()
	if err != nil {
		return err
	}
	if !yes {
		r, err := client.GetDownloadRule(ctx, id)
		if err != nil {
			return err
		}
		if err := cmdutil.Confirm(ctx, f.IO, fmt.Sprintf("Delete download rule %s (%s)?", r.ID, r.Description), "not deleted"); err != nil {
			return err
		}
	}
	if err := client.DeleteDownloadRule(ctx, id); err != nil {
		return err
	}
	if f.JSON() {
		return cmdutil.WriteJSON(f.IO.Out, map[string]any{"id": id, "deleted": true})
	}
	fmt.Fprintf(f.IO.Out, "Deleted download rule %s.\n", id)
	return nil
}
