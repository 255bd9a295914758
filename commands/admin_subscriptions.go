package commands

import (
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/commands/downloadrules"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// `timbra admin subscriptions` and `timbra admin download-rules`: what a tenant has subscribed
// to, and the operator's approval of bulk-download rules.

func newAdminSubscriptionsCmd(a *adminOptions) *cli.Command {
	return &cli.Command{
		Name:  "subscriptions",
		Usage: "Read and set a tenant's subscription (Auto CFDI, bulk-download seats)",
		Description: "A new tenant has the environment's default until set: in test, Auto CFDI and one seat;\n" +
			"in production, nothing. A seat is one RFC and one download type of the tenant's rules.\n\n" +
			"Examples:\n" +
			"  timbra admin subscriptions get 0f9c...\n" +
			"  timbra admin subscriptions set 0f9c... --auto-cfdi --download-seats 3\n" +
			"  timbra admin subscriptions set 0f9c... --auto-cfdi=false",
		Subcommands: []*cli.Command{
			{
				Name:      "get",
				Usage:     "Show a tenant's subscription",
				UsageText: "timbra admin subscriptions get TENANT [-o json]",
				ArgsUsage: "TENANT",
				Description: "Example:\n" +
					"  timbra admin subscriptions get 0f9c... -o json",
				Action: func(c *cli.Context) error {
					if err := cmdutil.ExactArgs(c, "tenant key"); err != nil {
						return err
					}
					client, err := a.client()
					if err != nil {
						return err
					}
					s, err := client.GetSubscription(c.Context, strings.TrimSpace(c.Args().First()))
					if err != nil {
						return err
					}
					return printSubscription(a.f, s)
				},
			},
			newAdminSubscriptionsSetCmd(a),
		},
	}
}

func newAdminSubscriptionsSetCmd(a *adminOptions) *cli.Command {
	var autoCfdi bool
	var seats int
	return &cli.Command{
		Name:      "set",
		Usage:     "Change a tenant's subscription; flags not given keep their value",
		UsageText: "timbra admin subscriptions set TENANT [--auto-cfdi[=false]] [--download-seats N] [-o json]",
		ArgsUsage: "TENANT",
		Description: "Fewer seats than the rules use take no rule away; they only stop new RFC and download\n" +
			"type pairs.\n\n" +
			"Examples:\n" +
			"  timbra admin subscriptions set 0f9c... --auto-cfdi --download-seats 3\n" +
			"  timbra admin subscriptions set 0f9c... --auto-cfdi=false",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "auto-cfdi", Usage: "Auto CFDI invoicing (--auto-cfdi=false removes it)", Destination: &autoCfdi},
			&cli.IntFlag{Name: "download-seats", Usage: "`N` bulk-download seats (0 to 10000)", Destination: &seats},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tenant key"); err != nil {
				return err
			}
			var in api.SubscriptionUpdate
			if c.IsSet("auto-cfdi") {
				in.AutoCfdi = &autoCfdi
			}
			if c.IsSet("download-seats") {
				if seats < 0 {
					return cmdutil.UsageErrorf(c, "invalid value %d for --download-seats: give 0 or more", seats)
				}
				in.DownloadSeats = &seats
			}
			if in.AutoCfdi == nil && in.DownloadSeats == nil {
				return cmdutil.UsageErrorf(c, "nothing to change: give --auto-cfdi or --download-seats")
			}
			client, err := a.client()
			if err != nil {
				return err
			}
			s, err := client.SetSubscription(c.Context, strings.TrimSpace(c.Args().First()), in)
			if err != nil {
				return err
			}
			return printSubscription(a.f, s)
		},
	}
}

func printSubscription(f *cmdutil.Factory, s api.Subscription) error {
	p := f.Printer()
	updated := "never (the environment's default)"
	if s.UpdatedAt != "" {
		updated = p.Time(s.UpdatedAt)
	}
	return p.Fields(s, []cmdutil.Field{
		{Label: "Tenant", Value: s.TenantKey},
		{Label: "Auto CFDI", Value: strconv.FormatBool(s.AutoCfdi)},
		{Label: "Download seats", Value: strconv.Itoa(s.DownloadSeats)},
		{Label: "Updated", Value: updated},
	})
}

func newAdminDownloadRulesCmd(a *adminOptions) *cli.Command {
	return &cli.Command{
		Name:  "download-rules",
		Usage: "Approve or reject a tenant's bulk-download rules",
		Description: "Examples:\n" +
			"  timbra admin download-rules approve 0f9c... 0c1e...\n" +
			"  timbra admin download-rules reject 0f9c... 0c1e...",
		Subcommands: []*cli.Command{
			adminRuleStatusCmd(a, "approve", "Approve a rule (status 2, Aprobada)", "2"),
			adminRuleStatusCmd(a, "reject", "Reject a rule (status -1, Rechazada; it frees its seat)", "-1"),
			adminRuleStatusCmd(a, "pending", "Put a rule back to Pendiente (status 1)", "1"),
		},
	}
}

func adminRuleStatusCmd(a *adminOptions, name, usage, status string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: "timbra admin download-rules " + name + " TENANT RULE [-o json]",
		ArgsUsage: "TENANT RULE",
		Description: "Example:\n" +
			"  timbra admin download-rules " + name + " 0f9c... 0c1e...",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tenant key", "rule ID"); err != nil {
				return err
			}
			client, err := a.client()
			if err != nil {
				return err
			}
			r, err := client.SetDownloadRuleStatus(c.Context, strings.TrimSpace(c.Args().Get(0)), c.Args().Get(1), status)
			if err != nil {
				return err
			}
			p := a.f.Printer()
			return p.Fields(r, downloadrules.Fields(p, r))
		},
	}
}
