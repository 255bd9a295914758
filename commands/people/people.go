package people

import (
	"fmt"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra people`: the people of the tenant, and their employer and employee data.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "people",
		Usage: "List, read, create, change and delete the people of your tenant",
		Description: "Examples:\n" +
			"  timbra people list --page 2\n" +
			"  timbra people get 3f2a0c1e-... -o json\n" +
			"  timbra people create --legal-name \"Ana López\" --email ana@example.com --password-file pw.txt\n" +
			"  timbra people update 3f2a0c1e-... --tax-regime 626\n" +
			"  timbra people delete 3f2a0c1e-... --yes",
		Subcommands: []*cli.Command{newListCmd(f, nil), newGetCmd(f, nil), newCreateCmd(f, nil), newUpdateCmd(f, nil),
			newDeleteCmd(f, nil), newEmployerCmd(f), newEmployeeCmd(f)},
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
		Usage:     "List the people of your tenant, one page at a time",
		UsageText: "timbra people list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of people: ID, name, email, whether the person owns the tenant, tax\n" +
			"identification number and creation time. With -o json, the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra people list\n" +
			"  timbra people list --page 2 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "people", 0, ""),
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

var columns = []string{"ID", "NAME", "EMAIL", "OWNER", "TIN", "CREATED"}

func listRun(c *cli.Context, o *listOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListPeople(ctx, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, it := range page.Items {
		rows = append(rows, []string{it.ID, it.LegalName, it.Email, cmdutil.YesNo(it.IsOwner), api.Deref(it.Tin), p.Time(it.CreatedAt)})
	}
	if err := p.Table(page, columns, rows, "No people."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, page.PageNumber, page.TotalPages, page.TotalCount, "people")
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
		Usage:     "Show one person",
		UsageText: "timbra people get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the person's fields as `label: value` lines; with -o json, the person object as\n" +
			"the API answers it.\n\n" +
			"Example:\n" +
			"  timbra people get 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func getRun(c *cli.Context, o *getOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	person, err := client.GetPerson(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(person, personFields(p, person))
}

func personFields(p *cmdutil.Printer, x api.Person) []cmdutil.Field {
	fs := []cmdutil.Field{
		{Label: "ID", Value: x.ID},
		{Label: "Name", Value: x.LegalName},
		{Label: "Email", Value: x.Email},
		{Label: "Owner", Value: cmdutil.YesNo(x.IsOwner)},
		{Label: "Phone", Value: api.Deref(x.PhoneNumber)},
		{Label: "TIN", Value: api.Deref(x.Tin)},
		{Label: "CURP", Value: api.Deref(x.Curp)},
		{Label: "Tax regime", Value: cmdutil.CatalogText(x.SatTaxRegimeID, x.SatTaxRegime)},
		{Label: "CFDI use", Value: cmdutil.CatalogText(x.SatCfdiUseID, x.SatCfdiUse)},
		{Label: "Zip code", Value: api.Deref(x.ZipCode)},
		{Label: "User type", Value: cmdutil.CatalogText(&x.UserTypeID, x.UserType)},
		{Label: "Manifest status", Value: cmdutil.CatalogText(&x.ManifestStatusID, x.ManifestStatus)},
		{Label: "Balances", Value: balancesText(x.Balances)},
		{Label: "Valid to", Value: p.Time(api.Deref(x.ValidTo))},
		{Label: "Tenant", Value: x.TenantID},
		{Label: "Created", Value: p.Time(x.CreatedAt)},
		{Label: "Updated", Value: p.Time(x.UpdatedAt)},
	}
	return fs
}

func balancesText(bs []api.Balance) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("%s %s", cmdutil.CreditTypeName(b.CreditType), cmdutil.FormatAmount(b.Available)))
	}
	return strings.Join(parts, ", ")
}
