// Package admin is `timbra admin`: the operator's commands, which call a server's operator API
// (/admin/v1) with the operator token instead of a tenant's API key.
package admin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// Options are the options shared by the operator commands (and `timbra server backup`): where
// the server is and where its token comes from. One value is shared by a whole command tree,
// whose every command takes the flags (Flags), so that they may come before a subcommand:
// `timbra admin --base-url URL tenants list`.
type Options struct {
	f         *cmdutil.Factory
	BaseURL   string // --base-url
	TokenFile string // --admin-token-file
}

// NewOptions are the operator options of commands run with f.
func NewOptions(f *cmdutil.Factory) *Options { return &Options{f: f} }

// NewCmd is `timbra admin` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	a := NewOptions(f)
	return &cli.Command{
		Name:  "admin",
		Usage: "Operate a timbra server: create tenants, grant credits",
		Description: "Operator commands call the server's operator API with the token `timbra server` wrote\n" +
			"beside its database. The token comes from TIMBRA_ADMIN_TOKEN, or from the file given by\n" +
			"--admin-token-file (or TIMBRA_ADMIN_TOKEN_FILE), or from the default file\n" +
			"<user data dir>/timbra/timbra.db.admin-token. The base URL comes from --base-url,\n" +
			"TIMBRA_BASE_URL, the profile, or " + cmdutil.DefaultBaseURL + ".\n\n" +
			"Examples:\n" +
			"  timbra admin tenants create --owner-email ana@example.com --owner-name \"Ana López\"\n" +
			"  timbra admin credits grant --tenant 0f9c... --type 1 --amount 100",
		Flags: Flags(a),
		Subcommands: []*cli.Command{
			{
				Name:  "tenants",
				Usage: "Create and list tenants",
				Description: "Examples:\n" +
					"  timbra admin tenants create --owner-email ana@example.com\n" +
					"  timbra admin tenants list -o json",
				Flags:       Flags(a),
				Subcommands: []*cli.Command{newTenantsCreateCmd(a, nil), newTenantsListCmd(a, nil)},
			},
			{
				Name:  "credits",
				Usage: "Grant or withdraw credits",
				Description: "Example:\n" +
					"  timbra admin credits grant --tenant 0f9c... --type 1 --amount 100",
				Flags:       Flags(a),
				Subcommands: []*cli.Command{newCreditsGrantCmd(a, nil)},
			},
			newSubscriptionsCmd(a),
			newDownloadRulesCmd(a),
		},
	}
}

// Flags are --base-url and --admin-token-file, stored in o. Each command takes its own copy.
func Flags(o *Options) []cli.Flag {
	const category = "OPERATOR"
	return []cli.Flag{
		&cli.StringFlag{
			Name:     "base-url",
			Usage:    "address `URL` of the server (default: TIMBRA_BASE_URL, the profile's, or " + cmdutil.DefaultBaseURL + ")",
			Category: category,
			Action: func(c *cli.Context, v string) error {
				if err := cmdutil.CheckBaseURL(v); err != nil {
					return cmdutil.UsageErrorf(c, "%v", err)
				}
				o.BaseURL = v
				return nil
			},
		},
		&cli.StringFlag{
			Name:     "admin-token-file",
			Usage:    "`PATH` of the file holding the operator token (default: TIMBRA_ADMIN_TOKEN_FILE, or the file beside the default database)",
			Category: category,
			Action: func(c *cli.Context, v string) error {
				o.TokenFile = v
				return nil
			},
		},
	}
}

// Client builds the operator client. The token is read from, in order: the file given by
// --admin-token-file, TIMBRA_ADMIN_TOKEN, the file named by TIMBRA_ADMIN_TOKEN_FILE, the file
// beside the default database.
func (o *Options) Client() (*api.Client, error) {
	base, err := o.baseURL()
	if err != nil {
		return nil, err
	}
	var token string
	switch {
	case o.TokenFile != "":
		token, err = readTokenFile(o.TokenFile, "--admin-token-file")
	case os.Getenv("TIMBRA_ADMIN_TOKEN") != "":
		token = strings.TrimSpace(os.Getenv("TIMBRA_ADMIN_TOKEN"))
	case os.Getenv("TIMBRA_ADMIN_TOKEN_FILE") != "":
		token, err = readTokenFile(os.Getenv("TIMBRA_ADMIN_TOKEN_FILE"), "TIMBRA_ADMIN_TOKEN_FILE")
	default:
		path := cmdutil.DefaultDataPath() + cmdutil.AdminTokenSuffix
		token, err = readTokenFile(path, "")
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no operator token: set TIMBRA_ADMIN_TOKEN or pass --admin-token-file (%s does not exist)", path)
		}
	}
	if err != nil {
		return nil, err
	}
	if token == "" {
		return nil, errors.New("no operator token: the token is empty")
	}
	c := api.NewAdminClient(base, token)
	c.TimeZone = o.f.TimeZone
	c.UserAgent = o.f.UserAgent()
	c.HTTP = o.f.HTTP
	return c, nil
}

func (o *Options) baseURL() (string, error) {
	if o.BaseURL != "" {
		return strings.TrimRight(o.BaseURL, "/"), nil
	}
	if v := os.Getenv("TIMBRA_BASE_URL"); v != "" {
		return strings.TrimRight(v, "/"), nil
	}
	dir, err := cmdutil.ConfigDir()
	if err == nil {
		cfg, err := cmdutil.LoadConfig(dir)
		if err != nil {
			return "", err
		}
		if p := cfg.Profiles[o.f.Profile]; p.BaseURL != "" {
			return p.BaseURL, nil
		}
	}
	return cmdutil.DefaultBaseURL, nil
}

// readTokenFile reads a token file; the error never quotes its content.
func readTokenFile(path, from string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		if from != "" {
			return "", fmt.Errorf("operator token (%s): %w", from, err)
		}
		return "", err
	}
	return strings.TrimSpace(string(raw)), nil
}

type tenantsCreateOptions struct {
	*Options
	OwnerEmail string
	OwnerName  string
}

func newTenantsCreateCmd(a *Options, run cmdutil.RunFunc[tenantsCreateOptions]) *cli.Command {
	o := &tenantsCreateOptions{Options: a}
	run = cmdutil.OrRun(run, tenantsCreateRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Create a tenant with its owner, and print its keys",
		UsageText: "timbra admin tenants create --owner-email EMAIL [--owner-name NAME] [-o json]",
		Description: "Creates a tenant and its owner person, and prints the tenant key, the owner's API key (shown\n" +
			"only this once), the owner's person ID and the environment.\n\n" +
			"Example:\n" +
			"  timbra admin tenants create --owner-email ana@example.com --owner-name \"Ana López\" -o json",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "owner-email", Usage: "`EMAIL` of the tenant's owner (required)", Destination: &o.OwnerEmail},
			&cli.StringFlag{Name: "owner-name", Usage: "legal `NAME` of the tenant's owner", Destination: &o.OwnerName},
		}, Flags(a)...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if strings.TrimSpace(o.OwnerEmail) == "" {
				return cmdutil.UsageErrorf(c, "missing flag --owner-email")
			}
			return run(c, o)
		},
	}
}

func tenantsCreateRun(c *cli.Context, o *tenantsCreateOptions) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	creds, err := client.CreateTenant(c.Context, api.TenantCreate{OwnerEmail: strings.TrimSpace(o.OwnerEmail), OwnerLegalName: o.OwnerName})
	if err != nil {
		return err
	}
	f := o.f
	if err := f.Printer().Fields(creds, []cmdutil.Field{
		{Label: "Tenant key", Value: creds.TenantKey},
		{Label: "API key", Value: creds.APIKey},
		{Label: "Person ID", Value: creds.PersonID},
		{Label: "Environment", Value: creds.Environment},
	}); err != nil {
		return err
	}
	if f.IO.OutTTY && !f.JSON() {
		fmt.Fprintln(f.IO.Err, "Keep the API key now: it is not shown again.")
	}
	return nil
}

type tenantsListOptions struct {
	*Options
}

func newTenantsListCmd(a *Options, run cmdutil.RunFunc[tenantsListOptions]) *cli.Command {
	o := &tenantsListOptions{Options: a}
	run = cmdutil.OrRun(run, tenantsListRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the tenants",
		UsageText: "timbra admin tenants list [-o json]",
		Description: "Prints each tenant's key, its owner's email and person ID, how many people it has and\n" +
			"when it was created.\n\n" +
			"Example:\n" +
			"  timbra admin tenants list --base-url http://127.0.0.1:8080",
		Flags: Flags(a),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func tenantsListRun(c *cli.Context, o *tenantsListOptions) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	tenants, err := client.ListTenants(c.Context)
	if err != nil {
		return err
	}
	if tenants == nil {
		tenants = []api.Tenant{}
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(tenants))
	for _, t := range tenants {
		rows = append(rows, []string{t.ID, t.OwnerEmail, t.OwnerPersonID, strconv.Itoa(t.People), p.Time(t.CreatedAt)})
	}
	return p.Table(tenants, []string{"TENANT", "OWNER EMAIL", "OWNER ID", "PEOPLE", "CREATED"}, rows, "No tenants.")
}

type creditsGrantOptions struct {
	*Options
	Tenant    string
	PersonID  string
	TypeArg   string // --type as given
	AmountArg string // --amount as given
	Type      int
	Amount    int64
}

func newCreditsGrantCmd(a *Options, run cmdutil.RunFunc[creditsGrantOptions]) *cli.Command {
	o := &creditsGrantOptions{Options: a}
	run = cmdutil.OrRun(run, creditsGrantRun)
	return &cli.Command{
		Name:      "grant",
		Usage:     "Add (or, with a negative amount, withdraw) credits of one type",
		UsageText: "timbra admin credits grant --tenant KEY [--person ID] --type 1|2|3 --amount N [-o json]",
		Description: "Adds credits to a person of a tenant (the owner when --person is not given) and prints the\n" +
			"person's balances after the grant. Types: 1 stamps, 2 validation, 3 tickets. A negative\n" +
			"amount withdraws; a balance never goes below zero.\n\n" +
			"Examples:\n" +
			"  timbra admin credits grant --tenant 0f9c... --type 1 --amount 100\n" +
			"  timbra admin credits grant --tenant 0f9c... --person 3f2a... --type 2 --amount -5 -o json",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "tenant", Usage: "tenant `KEY` (required)", Destination: &o.Tenant},
			&cli.StringFlag{Name: "person", Usage: "person `ID` (default: the tenant's owner)", Destination: &o.PersonID},
			&cli.StringFlag{Name: "type", Usage: "credit type `N`: 1 stamps, 2 validation, 3 tickets (required)", Destination: &o.TypeArg},
			&cli.StringFlag{Name: "amount", Usage: "`N` credits to add; negative to withdraw (required)", Destination: &o.AmountArg},
		}, Flags(a)...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if strings.TrimSpace(o.Tenant) == "" {
				return cmdutil.UsageErrorf(c, "missing flag --tenant")
			}
			if o.TypeArg == "" {
				return cmdutil.UsageErrorf(c, "missing flag --type")
			}
			t, err := strconv.Atoi(o.TypeArg)
			if err != nil || t < api.CreditStamps || t > api.CreditTickets {
				return cmdutil.UsageErrorf(c, "invalid value %q for --type: use 1 (stamps), 2 (validation) or 3 (tickets)", o.TypeArg)
			}
			if o.AmountArg == "" {
				return cmdutil.UsageErrorf(c, "missing flag --amount")
			}
			n, err := strconv.ParseInt(o.AmountArg, 10, 64)
			if err != nil {
				return cmdutil.UsageErrorf(c, "invalid value %q for --amount: give a whole number", o.AmountArg)
			}
			o.Type, o.Amount = t, n
			return run(c, o)
		},
	}
}

func creditsGrantRun(c *cli.Context, o *creditsGrantOptions) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	out, err := client.GrantCredits(c.Context, strings.TrimSpace(o.Tenant), api.CreditGrant{PersonID: o.PersonID, CreditType: o.Type, Amount: o.Amount})
	if err != nil {
		return err
	}
	f := o.f
	if f.IO.OutTTY && !f.JSON() {
		fmt.Fprintf(f.IO.Err, "Balances of person %s in tenant %s:\n", out.PersonID, out.TenantKey)
	}
	rows := make([][]string, 0, len(out.Balances))
	for _, b := range out.Balances {
		rows = append(rows, []string{strconv.Itoa(b.CreditType), cmdutil.CreditTypeName(b.CreditType), cmdutil.FormatAmount(b.Available)})
	}
	return f.Printer().Table(out, []string{"TYPE", "NAME", "AVAILABLE"}, rows, "No balances.")
}
