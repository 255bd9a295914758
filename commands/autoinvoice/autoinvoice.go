// Package autoinvoice is `timbra auto-invoice`: the Auto CFDI settings and portal name of the
// tenant (spec 3 §2.5, §4.6), and its usage report.
package autoinvoice

import (
	"fmt"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra auto-invoice`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "auto-invoice",
		Usage: "Read and set the Auto CFDI settings and portal name of your tenant",
		Description: "Changes are the owner's and need Auto CFDI in the tenant's subscription.\n\n" +
			"Examples:\n" +
			"  timbra auto-invoice settings get\n" +
			"  timbra auto-invoice settings set --outside-month --privacy-notice-url https://example.com/aviso\n" +
			"  timbra auto-invoice portal-name check mi-tienda\n" +
			"  timbra auto-invoice portal-name set mi-tienda\n" +
			"  timbra auto-invoice report --from 2026-11-01 --to 2026-11-30",
		Subcommands: []*cli.Command{newSettingsCmd(f), newPortalNameCmd(f), newReportCmd(f, nil)},
	}
}

func settingsFields(s api.AutoInvoiceSettings) []cmdutil.Field {
	url := "none"
	if s.PrivacyNoticeURL != nil {
		url = *s.PrivacyNoticeURL
	}
	return []cmdutil.Field{
		{Label: "Billing outside the month", Value: fmt.Sprint(s.AllowBillingOutsideMonth)},
		{Label: "Billing outside the year", Value: fmt.Sprint(s.AllowBillingOutsideYear)},
		{Label: "Privacy notice URL", Value: url},
	}
}

func newSettingsCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "settings",
		Usage: "Read or replace the Auto CFDI settings",
		Description: "Examples:\n" +
			"  timbra auto-invoice settings get\n" +
			"  timbra auto-invoice settings set --outside-month --outside-year",
		Subcommands: []*cli.Command{newSettingsGetCmd(f, nil), newSettingsSetCmd(f, nil)},
	}
}

type settingsGetOptions struct{ f *cmdutil.Factory }

func newSettingsGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[settingsGetOptions]) *cli.Command {
	o := &settingsGetOptions{f: f}
	run = cmdutil.OrRun(run, settingsGetRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show the Auto CFDI settings (the defaults when never saved)",
		UsageText: "timbra auto-invoice settings get [-o json]",
		Description: "Billing outside the month or year lets customers invoice a ticket after its payment\n" +
			"month or year; the privacy notice URL is shown on the portal.\n\n" +
			"Example:\n" +
			"  timbra auto-invoice settings get -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func settingsGetRun(c *cli.Context, o *settingsGetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	s, err := client.GetAutoInvoiceSettings(c.Context)
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(s, settingsFields(s))
}

type settingsSetOptions struct {
	f                *cmdutil.Factory
	OutsideMonth     bool
	OutsideYear      bool
	PrivacyNoticeURL string
}

func newSettingsSetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[settingsSetOptions]) *cli.Command {
	o := &settingsSetOptions{f: f}
	run = cmdutil.OrRun(run, settingsSetRun)
	return &cli.Command{
		Name:      "set",
		Usage:     "Replace the Auto CFDI settings; flags not given take their defaults",
		UsageText: "timbra auto-invoice settings set [--outside-month] [--outside-year] [--privacy-notice-url URL] [-o json]",
		Description: "Every setting is replaced: a flag not given is false or none.\n" +
			"--outside-year needs --outside-month.\n\n" +
			"Example:\n" +
			"  timbra auto-invoice settings set --outside-month --privacy-notice-url https://example.com/aviso",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "outside-month", Usage: "allow invoicing a ticket after its payment month", Destination: &o.OutsideMonth},
			&cli.BoolFlag{Name: "outside-year", Usage: "allow invoicing a ticket after its payment year", Destination: &o.OutsideYear},
			&cli.StringFlag{Name: "privacy-notice-url", Usage: "https `URL` of the privacy notice (none by default)", Destination: &o.PrivacyNoticeURL},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func settingsSetRun(c *cli.Context, o *settingsSetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	in := api.AutoInvoiceSettingsInput{AllowBillingOutsideMonth: &o.OutsideMonth, AllowBillingOutsideYear: &o.OutsideYear}
	if o.PrivacyNoticeURL != "" {
		in.PrivacyNoticeURL = &o.PrivacyNoticeURL
	}
	s, err := client.SetAutoInvoiceSettings(c.Context, in)
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(s, settingsFields(s))
}

func portalNameFields(p api.PortalName) []cmdutil.Field {
	text := func(s *string) string {
		if s == nil {
			return "none"
		}
		return *s
	}
	return []cmdutil.Field{{Label: "Name", Value: text(p.Name)}, {Label: "Assigned", Value: text(p.AssignedAt)}, {Label: "Next change allowed", Value: text(p.NextChangeAllowedAt)}}
}

func newPortalNameCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "portal-name",
		Usage: "Read, check and change the portal name",
		Description: "Examples:\n" +
			"  timbra auto-invoice portal-name get\n" +
			"  timbra auto-invoice portal-name check mi-tienda\n" +
			"  timbra auto-invoice portal-name set mi-tienda",
		Subcommands: []*cli.Command{newPortalNameGetCmd(f, nil), newPortalNameCheckCmd(f, nil), newPortalNameSetCmd(f, nil)},
	}
}

type portalNameGetOptions struct{ f *cmdutil.Factory }

func newPortalNameGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[portalNameGetOptions]) *cli.Command {
	o := &portalNameGetOptions{f: f}
	run = cmdutil.OrRun(run, portalNameGetRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show the portal name",
		UsageText: "timbra auto-invoice portal-name get [-o json]",
		Description: "Prints the name, when it was assigned and when it may change again (none while unset).\n\n" +
			"Example:\n" +
			"  timbra auto-invoice portal-name get",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func portalNameGetRun(c *cli.Context, o *portalNameGetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	p, err := client.GetPortalName(c.Context)
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(p, portalNameFields(p))
}

type portalNameCheckOptions struct {
	f    *cmdutil.Factory
	Name string
}

func newPortalNameCheckCmd(f *cmdutil.Factory, run cmdutil.RunFunc[portalNameCheckOptions]) *cli.Command {
	o := &portalNameCheckOptions{f: f}
	run = cmdutil.OrRun(run, portalNameCheckRun)
	return &cli.Command{
		Name:      "check",
		Usage:     "Tell whether a portal name can be yours",
		UsageText: "timbra auto-invoice portal-name check NAME [-o json]",
		Description: "Reason is invalidFormat, reserved or taken when the name cannot be yours; your current\n" +
			"or previous name is available.\n\n" +
			"Example:\n" +
			"  timbra auto-invoice portal-name check mi-tienda",
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "name"); err != nil {
				return err
			}
			o.Name = c.Args().First()
			return run(c, o)
		},
	}
}

func portalNameCheckRun(c *cli.Context, o *portalNameCheckOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	a, err := client.PortalNameAvailable(c.Context, o.Name)
	if err != nil {
		return err
	}
	reason := "none"
	if a.Reason != nil {
		reason = *a.Reason
	}
	return o.f.Printer().Fields(a, []cmdutil.Field{{Label: "Name", Value: a.Name}, {Label: "Available", Value: fmt.Sprint(a.Available)}, {Label: "Reason", Value: reason}})
}

type portalNameSetOptions struct {
	f    *cmdutil.Factory
	Name string
}

func newPortalNameSetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[portalNameSetOptions]) *cli.Command {
	o := &portalNameSetOptions{f: f}
	run = cmdutil.OrRun(run, portalNameSetRun)
	return &cli.Command{
		Name:      "set",
		Usage:     "Change the portal name (once every 30 days)",
		UsageText: "timbra auto-invoice portal-name set NAME [-o json]",
		ArgsUsage: "NAME",
		Description: "3 to 40 lower-case letters, digits and hyphens, starting with a letter. The previous\n" +
			"name stays yours.\n\n" +
			"Example:\n" +
			"  timbra auto-invoice portal-name set mi-tienda",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "name"); err != nil {
				return err
			}
			o.Name = c.Args().First()
			return run(c, o)
		},
	}
}

func portalNameSetRun(c *cli.Context, o *portalNameSetOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	p, err := client.SetPortalName(c.Context, o.Name)
	if err != nil {
		return err
	}
	return o.f.Printer().Fields(p, portalNameFields(p))
}

type reportOptions struct {
	f                *cmdutil.Factory
	From, To, Person string
}

func newReportCmd(f *cmdutil.Factory, run cmdutil.RunFunc[reportOptions]) *cli.Command {
	o := &reportOptions{f: f}
	run = cmdutil.OrRun(run, reportRun)
	return &cli.Command{
		Name:      "report",
		Usage:     "Show the Auto CFDI usage report of a period",
		UsageText: "timbra auto-invoice report --from YYYY-MM-DD --to YYYY-MM-DD [--person ID] [-o json]",
		Description: "Issuers: the tickets paid in the period by issuing person and where they are (pending, in\n" +
			"progress, invoiced, globalized, cancelled). Payers: the ticket credits used recording\n" +
			"tickets in the period, by the person who recorded them. Days are Mexico City calendar days,\n" +
			"both included, at most 366. Each table ends with its totals.\n\n" +
			"Examples:\n" +
			"  timbra auto-invoice report --from 2026-11-01 --to 2026-11-30\n" +
			"  timbra auto-invoice report --from 2026-01-01 --to 2026-12-31 --person 3f2a... -o json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "first `DAY` of the period (YYYY-MM-DD)", Required: true, Destination: &o.From},
			&cli.StringFlag{Name: "to", Usage: "last `DAY` of the period (YYYY-MM-DD)", Required: true, Destination: &o.To},
			&cli.StringFlag{Name: "person", Usage: "only the tickets issued and the credits used by person `ID`", Destination: &o.Person},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func reportRun(c *cli.Context, o *reportOptions) error {
	f := o.f
	client, err := f.Client()
	if err != nil {
		return err
	}
	rep, err := client.ConsumptionReport(c.Context, o.From, o.To, o.Person)
	if err != nil {
		return err
	}
	p := f.Printer()
	if p.JSON {
		return cmdutil.WriteJSON(f.IO.Out, rep)
	}
	n := func(i int) string { return fmt.Sprint(i) }
	issuers := make([][]string, 0, len(rep.Issuers)+1)
	for _, r := range rep.Issuers {
		issuers = append(issuers, []string{r.Tin, r.LegalName, n(r.Ingested), n(r.Pending), n(r.InProgress), n(r.Invoiced), n(r.Globalized), n(r.Cancelled)})
	}
	t := rep.Totals
	issuers = append(issuers, []string{"TOTAL", "", n(t.Ingested), n(t.Pending), n(t.InProgress), n(t.Invoiced), n(t.Globalized), n(t.Cancelled)})
	fmt.Fprintf(f.IO.Out, "Tickets paid from %s to %s, by issuer\n", rep.From, rep.To)
	if err := p.Table(rep, []string{"RFC", "NAME", "INGESTED", "PENDING", "IN PROGRESS", "INVOICED", "GLOBALIZED", "CANCELLED"}, issuers, ""); err != nil {
		return err
	}
	payers := make([][]string, 0, len(rep.Payers)+1)
	for _, r := range rep.Payers {
		payers = append(payers, []string{r.Tin, r.LegalName, n(r.TicketCreditsConsumed)})
	}
	payers = append(payers, []string{"TOTAL", "", n(t.TicketCreditsConsumed)})
	fmt.Fprintf(f.IO.Out, "\nTicket credits used from %s to %s, by who recorded the tickets\n", rep.From, rep.To)
	return p.Table(rep, []string{"RFC", "NAME", "TICKET CREDITS"}, payers, "")
}
