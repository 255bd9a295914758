package admin

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

func newSubscriptionsCmd(a *Options) *cli.Command {
	return &cli.Command{
		Name:  "subscriptions",
		Usage: "Read and set a tenant's subscription (Auto CFDI, bulk-download seats)",
		Description: "A new tenant has the environment's default until set: in test, Auto CFDI and one seat;\n" +
			"in production, nothing. A seat is one RFC and one download type of the tenant's rules.\n\n" +
			"Examples:\n" +
			"  timbra admin subscriptions get 0f9c...\n" +
			"  timbra admin subscriptions set 0f9c... --auto-cfdi --download-seats 3\n" +
			"  timbra admin subscriptions set 0f9c... --auto-cfdi=false",
		Flags:       Flags(a),
		Subcommands: []*cli.Command{newSubscriptionsGetCmd(a, nil), newSubscriptionsSetCmd(a, nil)},
	}
}

type subscriptionsGetOptions struct {
	*Options
	Tenant string
}

func newSubscriptionsGetCmd(a *Options, run cmdutil.RunFunc[subscriptionsGetOptions]) *cli.Command {
	o := &subscriptionsGetOptions{Options: a}
	run = cmdutil.OrRun(run, subscriptionsGetRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show a tenant's subscription",
		UsageText: "timbra admin subscriptions get TENANT [-o json]",
		ArgsUsage: "TENANT",
		Description: "Example:\n" +
			"  timbra admin subscriptions get 0f9c... -o json",
		Flags: Flags(a),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tenant key"); err != nil {
				return err
			}
			o.Tenant = c.Args().First()
			return run(c, o)
		},
	}
}

func subscriptionsGetRun(c *cli.Context, o *subscriptionsGetOptions) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	s, err := client.GetSubscription(c.Context, strings.TrimSpace(o.Tenant))
	if err != nil {
		return err
	}
	return printSubscription(o.f, s)
}

type subscriptionsSetOptions struct {
	*Options
	Tenant        string
	AutoCfdi      *bool // nil: --auto-cfdi not given
	DownloadSeats *int  // nil: --download-seats not given
}

func newSubscriptionsSetCmd(a *Options, run cmdutil.RunFunc[subscriptionsSetOptions]) *cli.Command {
	o := &subscriptionsSetOptions{Options: a}
	run = cmdutil.OrRun(run, subscriptionsSetRun)
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
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "auto-cfdi", Usage: "Auto CFDI invoicing (--auto-cfdi=false removes it)", Destination: &autoCfdi},
			&cli.IntFlag{Name: "download-seats", Usage: "`N` bulk-download seats (0 to 10000)", Destination: &seats},
		}, Flags(a)...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tenant key"); err != nil {
				return err
			}
			if c.IsSet("auto-cfdi") {
				o.AutoCfdi = &autoCfdi
			}
			if c.IsSet("download-seats") {
				if seats < 0 {
					return cmdutil.UsageErrorf(c, "invalid value %d for --download-seats: give 0 or more", seats)
				}
				o.DownloadSeats = &seats
			}
			if o.AutoCfdi == nil && o.DownloadSeats == nil {
				return cmdutil.UsageErrorf(c, "nothing to change: give --auto-cfdi or --download-seats")
			}
			o.Tenant = c.Args().First()
			return run(c, o)
		},
	}
}

func subscriptionsSetRun(c *cli.Context, o *subscriptionsSetOptions) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	s, err := client.SetSubscription(c.Context, strings.TrimSpace(o.Tenant), api.SubscriptionUpdate{AutoCfdi: o.AutoCfdi, DownloadSeats: o.DownloadSeats})
	if err != nil {
		return err
	}
	return printSubscription(o.f, s)
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

func newDownloadRulesCmd(a *Options) *cli.Command {
	return &cli.Command{
		Name:  "download-rules",
		Usage: "Approve or reject a tenant's bulk-download rules",
		Description: "Examples:\n" +
			"  timbra admin download-rules approve 0f9c... 0c1e...\n" +
			"  timbra admin download-rules reject 0f9c... 0c1e...",
		Flags: Flags(a),
		Subcommands: []*cli.Command{
			newRuleStatusCmd(a, nil, "approve", "Approve a rule (status 2, Aprobada)", "2"),
			newRuleStatusCmd(a, nil, "reject", "Reject a rule (status -1, Rechazada; it frees its seat)", "-1"),
			newRuleStatusCmd(a, nil, "pending", "Put a rule back to Pendiente (status 1)", "1"),
		},
	}
}

type ruleStatusOptions struct {
	*Options
	Status string // the status the command sets
	Tenant string
	RuleID string
}

// newRuleStatusCmd is the command name, which sets a rule's status to status.
func newRuleStatusCmd(a *Options, run cmdutil.RunFunc[ruleStatusOptions], name, usage, status string) *cli.Command {
	o := &ruleStatusOptions{Options: a, Status: status}
	run = cmdutil.OrRun(run, ruleStatusRun)
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: "timbra admin download-rules " + name + " TENANT RULE [-o json]",
		ArgsUsage: "TENANT RULE",
		Description: "Example:\n" +
			"  timbra admin download-rules " + name + " 0f9c... 0c1e...",
		Flags: Flags(a),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "tenant key", "rule ID"); err != nil {
				return err
			}
			o.Tenant, o.RuleID = c.Args().Get(0), c.Args().Get(1)
			return run(c, o)
		},
	}
}

func ruleStatusRun(c *cli.Context, o *ruleStatusOptions) error {
	client, err := o.Client()
	if err != nil {
		return err
	}
	r, err := client.SetDownloadRuleStatus(c.Context, strings.TrimSpace(o.Tenant), o.RuleID, o.Status)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(r, downloadrules.Fields(p, r))
}
