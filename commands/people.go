package commands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

func newPeopleCmd(f *Factory) *cli.Command {
	return &cli.Command{
		Name:  "people",
		Usage: "List, read, create, change and delete the people of your tenant",
		Description: "Examples:\n" +
			"  timbra people list --page 2\n" +
			"  timbra people get 3f2a0c1e-... -o json\n" +
			"  timbra people create --legal-name \"Ana López\" --email ana@example.com --password-file pw.txt\n" +
			"  timbra people update 3f2a0c1e-... --tax-regime 626\n" +
			"  timbra people delete 3f2a0c1e-... --yes",
		Subcommands: []*cli.Command{newPeopleListCmd(f, nil), newPeopleGetCmd(f, nil), newPeopleCreateCmd(f, nil), newPeopleUpdateCmd(f, nil),
			newPeopleDeleteCmd(f, nil), newPeopleEmployerCmd(f), newPeopleEmployeeCmd(f)},
	}
}

type peopleListOptions struct {
	f *Factory
	pagingOptions
}

func newPeopleListCmd(f *Factory, run runFunc[peopleListOptions]) *cli.Command {
	o := &peopleListOptions{f: f}
	run = orRun(run, peopleListRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the people of your tenant, one page at a time",
		UsageText: "timbra people list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of people: ID, name, email, whether the person owns the tenant, tax\n" +
			"identification number and creation time. With -o json, the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra people list\n" +
			"  timbra people list --page 2 --page-size 50 -o json",
		Flags: pagingFlags(&o.pagingOptions, "people", 0, ""),
		Action: func(c *cli.Context) error {
			if err := exactArgs(c); err != nil {
				return err
			}
			if err := o.check(c, 0); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

var peopleColumns = []string{"ID", "NAME", "EMAIL", "OWNER", "TIN", "CREATED"}

func peopleListRun(c *cli.Context, o *peopleListOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListPeople(ctx, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.printer()
	rows := make([][]string, 0, len(page.Items))
	for _, it := range page.Items {
		rows = append(rows, []string{it.ID, it.LegalName, it.Email, yesNo(it.IsOwner), deref(it.Tin), p.time(it.CreatedAt)})
	}
	if err := p.table(page, peopleColumns, rows, "No people."); err != nil {
		return err
	}
	if o.f.IO.OutTTY && !o.f.JSON() && page.TotalPages > 1 {
		fmt.Fprintf(o.f.IO.Err, "Page %d of %d (%d people).\n", page.PageNumber, page.TotalPages, page.TotalCount)
	}
	return nil
}

type peopleGetOptions struct {
	f  *Factory
	ID string
}

func newPeopleGetCmd(f *Factory, run runFunc[peopleGetOptions]) *cli.Command {
	o := &peopleGetOptions{f: f}
	run = orRun(run, peopleGetRun)
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
			if err := exactArgs(c, "person ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func peopleGetRun(c *cli.Context, o *peopleGetOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	person, err := client.GetPerson(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.printer()
	return p.fields(person, personFields(p, person))
}

func personFields(p *printer, x api.Person) []field {
	fs := []field{
		{"ID", x.ID},
		{"Name", x.LegalName},
		{"Email", x.Email},
		{"Owner", yesNo(x.IsOwner)},
		{"Phone", deref(x.PhoneNumber)},
		{"TIN", deref(x.Tin)},
		{"CURP", deref(x.Curp)},
		{"Tax regime", catalogText(x.SatTaxRegimeID, x.SatTaxRegime)},
		{"CFDI use", catalogText(x.SatCfdiUseID, x.SatCfdiUse)},
		{"Zip code", deref(x.ZipCode)},
		{"User type", catalogText(&x.UserTypeID, x.UserType)},
		{"Manifest status", catalogText(&x.ManifestStatusID, x.ManifestStatus)},
		{"Balances", balancesText(x.Balances)},
		{"Valid to", p.time(deref(x.ValidTo))},
		{"Tenant", x.TenantID},
		{"Created", p.time(x.CreatedAt)},
		{"Updated", p.time(x.UpdatedAt)},
	}
	return fs
}

// catalogText shows a catalog reference as "id (description)".
func catalogText(id *string, rec *api.CatalogRecord) string {
	v := deref(id)
	if v == "" && rec != nil {
		v = rec.ID
	}
	if rec != nil && rec.Description != "" && v != "" {
		return v + " (" + rec.Description + ")"
	}
	return v
}

func creditTypeName(t int) string {
	switch t {
	case api.CreditStamps:
		return "stamps"
	case api.CreditValidation:
		return "validation"
	case api.CreditTickets:
		return "tickets"
	}
	return "type " + strconv.Itoa(t)
}

func balancesText(bs []api.Balance) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("%s %s", creditTypeName(b.CreditType), formatAmount(b.Available)))
	}
	return strings.Join(parts, ", ")
}

func formatAmount(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
