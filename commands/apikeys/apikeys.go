package apikeys

import (
	"fmt"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// API key statuses as the server reads them (accounts.KeyActive, accounts.KeySuspended).
const (
	keyStatusSuspended = 0
	keyStatusActive    = 1
)

// NewCmd is `timbra api-keys`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "api-keys",
		Usage: "Create, list, suspend and revoke API keys",
		Description: "An API key acts for one person of the tenant. The owner sees and manages every key of the\n" +
			"tenant; anybody else only their own.\n\n" +
			"Examples:\n" +
			"  timbra api-keys create --description \"CI pipeline\"\n" +
			"  timbra api-keys list\n" +
			"  timbra api-keys update 0f9c1e2a-... --status suspended\n" +
			"  timbra api-keys revoke 0f9c1e2a-... --yes",
		Subcommands: []*cli.Command{
			newListCmd(f, nil),
			newCreateCmd(f, nil),
			newGetCmd(f, nil),
			newUpdateCmd(f, nil),
			newRevokeCmd(f, nil),
		},
	}
}

// keyStatusText names an API key status.
func keyStatusText(s int) string {
	switch s {
	case keyStatusActive:
		return "active"
	case keyStatusSuspended:
		return "suspended"
	}
	return fmt.Sprintf("status %d", s)
}

// maskKey shows enough of a key value to tell keys apart: its environment prefix (sk_test_,
// sk_live_) and last four characters.
func maskKey(v string) string {
	if len(v) <= 16 {
		return strings.Repeat("*", len(v))
	}
	prefix := ""
	if rest, ok := strings.CutPrefix(v, "sk_"); ok {
		if i := strings.IndexByte(rest, '_'); i >= 0 && i < 8 {
			prefix = v[:3+i+1]
		}
	}
	return prefix + "…" + v[len(v)-4:]
}

func apiKeyFields(p *cmdutil.Printer, k api.APIKey, showValue bool) []cmdutil.Field {
	value := maskKey(k.APIKeyValue)
	if showValue {
		value = k.APIKeyValue
	}
	return []cmdutil.Field{
		{Label: "ID", Value: k.ID},
		{Label: "Key", Value: value},
		{Label: "Person", Value: k.PersonID},
		{Label: "Status", Value: keyStatusText(k.APIKeyStatus)},
		{Label: "Description", Value: api.Deref(k.Description)},
		{Label: "Environment", Value: k.Environment},
		{Label: "Tenant", Value: k.TenantID},
		{Label: "Created", Value: p.Time(k.CreatedAt)},
		{Label: "Updated", Value: p.Time(k.UpdatedAt)},
	}
}

// ---- list

type listOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List API keys, one page at a time",
		UsageText: "timbra api-keys list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of API keys in creation order: ID, the key with its middle hidden, person,\n" +
			"status, description and creation time. The owner sees every key of the tenant, anybody\n" +
			"else only their own. With -o json, the whole page object as the API answers it (with the\n" +
			"key values).\n\n" +
			"Examples:\n" +
			"  timbra api-keys list\n" +
			"  timbra api-keys list --page 2 --page-size 5 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "keys", 10, ""),
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

var columns = []string{"ID", "KEY", "PERSON", "STATUS", "DESCRIPTION", "CREATED"}

func listRun(c *cli.Context, o *listOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListAPIKeys(ctx, o.Page, o.PageSize)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, k := range page.Items {
		rows = append(rows, []string{k.ID, maskKey(k.APIKeyValue), k.PersonID, keyStatusText(k.APIKeyStatus), api.Deref(k.Description), p.Time(k.CreatedAt)})
	}
	if err := p.Table(page, columns, rows, "No API keys."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, page.PageNumber, page.TotalPages, page.TotalCount, "API keys")
	return nil
}

// ---- create

type createOptions struct {
	f           *cmdutil.Factory
	PersonID    string
	Description *string
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[createOptions]) *cli.Command {
	o := &createOptions{f: f}
	run = cmdutil.OrRun(run, createRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Create an API key and print its value",
		UsageText: "timbra api-keys create [--person ID] [--description TEXT] [-o json]",
		Description: "Creates an active API key for a person: yourself when --person is not given; another\n" +
			"person only if you are the tenant's owner. Prints the key with its value (what X-API-KEY\n" +
			"carries); with -o json, the key object. Store the value where it is needed; the key acts\n" +
			"with the person's permissions until it is suspended or revoked.\n\n" +
			"Examples:\n" +
			"  timbra api-keys create --description \"CI pipeline\"\n" +
			"  timbra api-keys create --person 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "person", Usage: "person `ID` the key acts for (default: you)", Destination: &o.PersonID},
			&cli.StringFlag{Name: "description", Usage: "name or description `TEXT` of the key"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if c.IsSet("person") && strings.TrimSpace(o.PersonID) == "" {
				return cmdutil.UsageErrorf(c, "--person: give a person ID, or leave the flag out for your own key")
			}
			if c.IsSet("description") {
				d := c.String("description")
				o.Description = &d
			}
			return run(c, o)
		},
	}
}

func createRun(c *cli.Context, o *createOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	k, err := client.CreateAPIKey(ctx, api.APIKeyCreate{PersonID: strings.TrimSpace(o.PersonID), Description: o.Description})
	if err != nil {
		return err
	}
	p := o.f.Printer()
	if err := p.Fields(k, apiKeyFields(p, k, true)); err != nil {
		return err
	}
	if !o.f.JSON() {
		o.f.IO.Warn("Store the key now; it acts as person " + k.PersonID + " until you suspend or revoke it.")
	}
	return nil
}

// ---- get

type getOptions struct {
	f         *cmdutil.Factory
	ID        string
	ShowValue bool
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[getOptions]) *cli.Command {
	o := &getOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show one API key",
		UsageText: "timbra api-keys get ID [--show-value] [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the key's fields as `label: value` lines, the key value with its middle hidden\n" +
			"unless --show-value is given; with -o json, the key object as the API answers it.\n\n" +
			"Examples:\n" +
			"  timbra api-keys get 0f9c1e2a-7b3d-4e5f-8a9b-1c2d3e4f5a6b\n" +
			"  timbra api-keys get 0f9c1e2a-7b3d-4e5f-8a9b-1c2d3e4f5a6b --show-value",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "show-value", Usage: "print the whole key value", Destination: &o.ShowValue},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "API key ID"); err != nil {
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
	k, err := client.GetAPIKey(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(k, apiKeyFields(p, k, o.ShowValue))
}

// ---- update

type updateOptions struct {
	f           *cmdutil.Factory
	ID          string
	Status      *int
	Description *string
}

func newUpdateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[updateOptions]) *cli.Command {
	o := &updateOptions{f: f}
	run = cmdutil.OrRun(run, updateRun)
	return &cli.Command{
		Name:      "update",
		Usage:     "Suspend or reactivate an API key, or change its description",
		UsageText: "timbra api-keys update ID [--status active|suspended] [--description TEXT] [-o json]",
		ArgsUsage: "ID",
		Description: "Changes what you name and keeps the rest. A suspended key (status 0) authenticates\n" +
			"nothing until it is made active (status 1) again; its value does not change.\n\n" +
			"Examples:\n" +
			"  timbra api-keys update 0f9c1e2a-... --status suspended\n" +
			"  timbra api-keys update 0f9c1e2a-... --status active --description \"CI pipeline\"\n" +
			"  timbra api-keys update 0f9c1e2a-... --description \"\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Usage: "new `STATUS`: active (1) or suspended (0)"},
			&cli.StringFlag{Name: "description", Usage: "new description `TEXT` (\"\" clears it)"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "API key ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if c.IsSet("status") {
				var s int
				switch strings.ToLower(strings.TrimSpace(c.String("status"))) {
				case "active", "1":
					s = keyStatusActive
				case "suspended", "0":
					s = keyStatusSuspended
				default:
					return cmdutil.UsageErrorf(c, "invalid value %q for --status: use active (1) or suspended (0)", c.String("status"))
				}
				o.Status = &s
			}
			if c.IsSet("description") {
				d := c.String("description")
				o.Description = &d
			}
			if o.Status == nil && o.Description == nil {
				return cmdutil.UsageErrorf(c, "nothing to change: give --status or --description")
			}
			return run(c, o)
		},
	}
}

func updateRun(c *cli.Context, o *updateOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	// the API replaces the description with what the body says: keep it unless asked
	description := o.Description
	if description == nil {
		k, err := client.GetAPIKey(ctx, o.ID)
		if err != nil {
			return err
		}
		description = k.Description
	} else if *description == "" {
		description = nil
	}
	k, err := client.UpdateAPIKey(ctx, o.ID, api.APIKeyUpdate{ID: o.ID, Description: description, APIKeyStatus: o.Status})
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(k, apiKeyFields(p, k, false))
}

// ---- revoke

type revokeOptions struct {
	f   *cmdutil.Factory
	ID  string
	Yes bool
}

func newRevokeCmd(f *cmdutil.Factory, run cmdutil.RunFunc[revokeOptions]) *cli.Command {
	o := &revokeOptions{f: f}
	run = cmdutil.OrRun(run, revokeRun)
	return &cli.Command{
		Name:      "revoke",
		Usage:     "Revoke an API key for good",
		UsageText: "timbra api-keys revoke ID [--yes]",
		ArgsUsage: "ID",
		Description: "Deletes the key: it stops authenticating at once and is gone from the list. To stop a key\n" +
			"for a while instead, suspend it with `timbra api-keys update ID --status suspended`. On a\n" +
			"terminal it asks first; elsewhere (scripts, pipes) --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra api-keys revoke 0f9c1e2a-7b3d-4e5f-8a9b-1c2d3e4f5a6b\n" +
			"  timbra api-keys revoke 0f9c1e2a-7b3d-4e5f-8a9b-1c2d3e4f5a6b --yes",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "API key ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "revoke"); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func revokeRun(c *cli.Context, o *revokeOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	ios := o.f.IO
	if !o.Yes {
		k, err := client.GetAPIKey(ctx, o.ID)
		if err != nil {
			return err
		}
		what := maskKey(k.APIKeyValue)
		if d := api.Deref(k.Description); d != "" {
			what += ", " + d
		}
		if err := cmdutil.Confirm(ctx, ios, fmt.Sprintf("Revoke API key %s (%s) of person %s? It stops working at once.", k.ID, what, k.PersonID), "not revoked"); err != nil {
			return err
		}
	}
	if err := client.DeleteAPIKey(ctx, o.ID); err != nil {
		return err
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(ios.Out, map[string]any{"id": o.ID, "revoked": true})
	}
	fmt.Fprintf(ios.Out, "Revoked API key %s.\n", o.ID)
	return nil
}
