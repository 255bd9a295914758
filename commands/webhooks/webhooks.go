package webhooks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra webhooks`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "webhooks",
		Usage: "Create, inspect, test and remove the webhooks that receive your events",
		Description: "A webhook is an https URL that receives your tenant's events, signed with its secret\n" +
			"(Standard Webhooks). Listeners opened by `timbra listen` show in the list too.\n\n" +
			"Examples:\n" +
			"  timbra webhooks create --url https://example.com/hooks --events invoice.canceled,invoice.stamped\n" +
			"  timbra webhooks list\n" +
			"  timbra webhooks test 3f2a0c1e-... --wait\n" +
			"  timbra webhooks deliveries 3f2a0c1e-...\n" +
			"  timbra webhooks inspect",
		Subcommands: []*cli.Command{
			newCreateCmd(f, nil),
			newListCmd(f, nil),
			newGetCmd(f, nil),
			newQueueCmd(f, nil),
			newUpdateCmd(f, nil),
			newEnableCmd(f, nil),
			newDisableCmd(f, nil),
			newDeleteCmd(f, nil),
			newTestCmd(f, nil),
			newRotateCmd(f, nil),
			newDeliveriesCmd(f, nil),
			newDeliveryCmd(f, nil),
			newInspectCmd(f, "timbra webhooks inspect", nil),
		},
	}
}

// ---- create

type createOptions struct {
	f           *cmdutil.Factory
	URL         string
	Events      []string
	Description *string
	People      []string
}

func newCreateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[createOptions]) *cli.Command {
	o := &createOptions{f: f}
	run = cmdutil.OrRun(run, createRun)
	return &cli.Command{
		Name:      "create",
		Usage:     "Create a webhook and print its signing secret, this one time",
		UsageText: "timbra webhooks create --url URL --events TYPE[,TYPE...]|'*' [--description TEXT] [--person ID ...] [-o json]",
		Description: "Creates a webhook that receives the event types given ('*' for all of them), optionally only\n" +
			"for some people. Prints the webhook and its signing secret (whsec_...). The secret is shown\n" +
			"only now: store it where your receiver can read it. If it is lost, make a new one with\n" +
			"`timbra webhooks rotate-secret`.\n\n" +
			"Examples:\n" +
			"  timbra webhooks create --url https://example.com/hooks --events invoice.canceled,invoice.cancellation_rejected\n" +
			"  timbra webhooks create --url https://example.com/all --events '*' --description \"all events\" -o json\n" +
			"  timbra webhooks create --url https://example.com/ana --events '*' --person 3f2a0c1e-... --person 9b1d...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "https `URL` that receives the events (required)", Destination: &o.URL},
			&cli.StringSliceFlag{Name: "events", Usage: "event `TYPES`, comma-separated or repeated, or '*' for all (required)"},
			&cli.StringFlag{Name: "description", Usage: "free `TEXT`, up to 256 characters"},
			&cli.StringSliceFlag{Name: "person", Usage: "receive only the events of the person `ID` (repeatable; default: everyone's)"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if strings.TrimSpace(o.URL) == "" {
				return cmdutil.UsageErrorf(c, "missing flag --url")
			}
			o.Events = cmdutil.CleanList(c.StringSlice("events"))
			if len(o.Events) == 0 {
				return cmdutil.UsageErrorf(c, "missing flag --events (event types, or '*' for all)")
			}
			if c.IsSet("description") {
				d := c.String("description")
				o.Description = &d
			}
			o.People = cmdutil.CleanList(c.StringSlice("person"))
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
	url := strings.TrimSpace(o.URL)
	w, err := client.CreateWebhook(ctx, api.WebhookCreate{URL: &url, Description: o.Description, EnabledEvents: o.Events, PersonIDs: o.People})
	if err != nil {
		return explain(err)
	}
	p := o.f.Printer()
	if err := p.Fields(w, webhookFields(p, w)); err != nil {
		return err
	}
	secretNote(o.f.IO, "")
	return nil
}

// secretNote tells, on stderr, that the secret just printed is not shown again.
func secretNote(ios *cmdutil.IOStreams, extra string) {
	ios.Warn("Store the signing secret now: it will not be shown again." + extra)
}

// ---- list

type listOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
}

var webhookColumns = []string{"ID", "KIND", "URL", "STATUS", "EVENTS", "FAILING SINCE", "CREATED"}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the webhooks and listeners of your tenant, one page at a time",
		UsageText: "timbra webhooks list [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of webhooks in creation order: ID, kind (url or cliListener), URL (or the\n" +
			"person a listener belongs to), status with the reason it was disabled, event types, since\n" +
			"when it fails and creation time. With -o json, the whole page object.\n\n" +
			"Examples:\n" +
			"  timbra webhooks list\n" +
			"  timbra webhooks list --page 2 --page-size 50 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "webhooks", 50, ""),
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
	return printWebhooks(c.Context, o.f, o.PagingOptions)
}

// printWebhooks prints one page of the webhooks: `timbra webhooks list`, and the inspector off a
// terminal.
func printWebhooks(ctx context.Context, f *cmdutil.Factory, paging cmdutil.PagingOptions) error {
	client, err := f.Client()
	if err != nil {
		return err
	}
	page, err := client.ListWebhooks(ctx, paging.Page, paging.PageSize)
	if err != nil {
		return err
	}
	p := f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, w := range page.Items {
		rows = append(rows, []string{
			w.ID, w.Kind, webhookTarget(w), webhookStatusText(w), strings.Join(w.EnabledEvents, ","),
			p.APITime(api.Deref(w.FailingSince)), p.APITime(w.CreatedAt),
		})
	}
	if err := p.StatusTable(page, webhookColumns, rows, "No webhooks.", "STATUS"); err != nil {
		return err
	}
	cmdutil.PageFooter(f, page.PageNumber, page.TotalPages, page.TotalCount, "webhooks")
	return nil
}

// webhookTarget is where a webhook delivers: its URL, or the person of a listener (and its
// session, when not the default one).
func webhookTarget(w api.Webhook) string {
	if w.Kind == api.WebhookKindListener || w.URL == nil {
		t := "listener of " + api.Deref(w.ListenerPersonID)
		if s := api.Deref(w.ListenerSession); s != "" && s != "default" {
			t += " (session " + s + ")"
		}
		return t
	}
	return *w.URL
}

// webhookStatusText is the status, with the reason a webhook was disabled.
func webhookStatusText(w api.Webhook) string {
	if r := api.Deref(w.DisabledReason); r != "" && w.Status == api.WebhookDisabled {
		return w.Status + " (" + r + ")"
	}
	return w.Status
}

func webhookFields(p *cmdutil.Printer, w api.Webhook) []cmdutil.Field {
	people := "everyone"
	if w.PersonIDs != nil {
		people = strings.Join(w.PersonIDs, ",")
	}
	fs := []cmdutil.Field{
		{Label: "ID", Value: w.ID},
		{Label: "Kind", Value: w.Kind},
		{Label: "URL", Value: webhookTarget(w)},
		{Label: "Description", Value: w.Description},
		{Label: "Events", Value: strings.Join(w.EnabledEvents, ",")},
		{Label: "People", Value: people},
		{Label: "Status", Value: p.ColorStatus(w.Status, webhookStatusText(w))},
		{Label: "Disabled at", Value: p.APITime(api.Deref(w.DisabledAt))},
		{Label: "Failing since", Value: p.APITime(api.Deref(w.FailingSince))},
	}
	if w.Kind == api.WebhookKindListener {
		fs = append(fs, cmdutil.Field{Label: "Listener person", Value: api.Deref(w.ListenerPersonID)}, cmdutil.Field{Label: "Session expires", Value: p.APITime(api.Deref(w.SessionExpiresAt))})
	}
	fs = append(fs, cmdutil.Field{Label: "Created", Value: p.APITime(w.CreatedAt)}, cmdutil.Field{Label: "Updated", Value: p.APITime(w.UpdatedAt)})
	if w.Secret != "" {
		fs = append(fs, cmdutil.Field{Label: "Secret", Value: w.Secret})
	}
	return fs
}

// ---- get

type idOptions struct {
	f  *cmdutil.Factory
	ID string
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[idOptions]) *cli.Command {
	o := &idOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show one webhook",
		UsageText: "timbra webhooks get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the webhook's fields as `label: value` lines, then its queue (pending deliveries,\n" +
			"attempts in flight, the oldest pending, the last error: see `timbra webhooks queue`); with\n" +
			"-o json, the webhook object as the API answers it (never with its secret).\n\n" +
			"Example:\n" +
			"  timbra webhooks get 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func getRun(c *cli.Context, o *idOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	w, err := client.GetWebhook(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	if p.JSON {
		return p.Fields(w, nil)
	}
	q, err := client.WebhookQueue(ctx, w.ID)
	if err != nil {
		return err
	}
	return p.Fields(w, append(webhookFields(p, w), queueFields(p, q)...))
}

// queueFields shows a webhook's queue.
func queueFields(p *cmdutil.Printer, q api.WebhookQueue) []cmdutil.Field {
	oldest := ""
	if q.OldestPendingAt != nil {
		oldest = fmt.Sprintf("%s (%s)", p.APITime(*q.OldestPendingAt), (time.Duration(q.OldestPendingAgeSeconds * float64(time.Second))).Round(time.Millisecond))
	}
	last := p.APITime(api.Deref(q.LastAttemptAt))
	if q.LastStatusCode != nil {
		last += fmt.Sprintf(" (HTTP %d)", *q.LastStatusCode)
	}
	lastErr := api.Deref(q.LastError)
	if q.LastErrorAt != nil {
		lastErr += ", " + p.APITime(*q.LastErrorAt)
	}
	return []cmdutil.Field{
		{Label: "Pending", Value: strconv.Itoa(q.Pending)},
		{Label: "In flight", Value: fmt.Sprintf("%d of %d", q.InFlight, q.Concurrency)},
		{Label: "Oldest pending", Value: oldest},
		{Label: "Last attempt", Value: last},
		{Label: "Last error", Value: lastErr},
	}
}

// ---- queue

func newQueueCmd(f *cmdutil.Factory, run cmdutil.RunFunc[idOptions]) *cli.Command {
	o := &idOptions{f: f}
	run = cmdutil.OrRun(run, queueRun)
	return &cli.Command{
		Name:      "queue",
		Usage:     "Show a webhook's queue: pending deliveries, attempts in flight, the last error",
		UsageText: "timbra webhooks queue ID [-o json]",
		ArgsUsage: "ID",
		Description: "Each destination (a webhook or a listen session) has its own queue and at most\n" +
			"`timbra server --webhook-concurrency` attempts in flight (8 by default): a slow or failing one\n" +
			"delays only itself. Pending counts the deliveries not yet finished, in flight included; the\n" +
			"oldest pending tells how far behind the destination is; the last attempt and last error are\n" +
			"those since the server started.\n\n" +
			"Examples:\n" +
			"  timbra webhooks queue 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra webhooks queue 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json | jq .pending",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func queueRun(c *cli.Context, o *idOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	q, err := client.WebhookQueue(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	return p.Fields(q, append([]cmdutil.Field{{Label: "Webhook", Value: q.WebhookID}}, queueFields(p, q)...))
}

// ---- update, enable, disable

type updateOptions struct {
	f           *cmdutil.Factory
	ID          string
	URL         *string
	Events      []string
	Description *string
	People      []string
	AllPeople   bool
	Status      *string // enable, disable
}

func newUpdateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[updateOptions]) *cli.Command {
	o := &updateOptions{f: f}
	run = cmdutil.OrRun(run, updateRun)
	return &cli.Command{
		Name:      "update",
		Usage:     "Change a webhook's URL, event types, description or people",
		UsageText: "timbra webhooks update ID [--url URL] [--events TYPES] [--description TEXT] [--person ID ... | --all-people] [-o json]",
		ArgsUsage: "ID",
		Description: "Reads the webhook, applies the changes given and sends the whole webhook back (the API\n" +
			"replaces every field): what you do not name stays as it was, including its status. The\n" +
			"--person flags replace the list of people; --all-people removes the filter.\n\n" +
			"Examples:\n" +
			"  timbra webhooks update 3f2a0c1e-... --events '*'\n" +
			"  timbra webhooks update 3f2a0c1e-... --url https://example.com/v2/hooks --description \"v2\"\n" +
			"  timbra webhooks update 3f2a0c1e-... --person 9b1d... --person 77aa...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "new https `URL`"},
			&cli.StringSliceFlag{Name: "events", Usage: "new event `TYPES`, comma-separated or repeated, or '*' for all"},
			&cli.StringFlag{Name: "description", Usage: "new description `TEXT` (\"\" clears it)"},
			&cli.StringSliceFlag{Name: "person", Usage: "receive only the events of the person `ID` (repeatable; replaces the list)"},
			&cli.BoolFlag{Name: "all-people", Usage: "receive the events of everyone (removes the people filter)", Destination: &o.AllPeople},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if c.IsSet("url") {
				u := strings.TrimSpace(c.String("url"))
				o.URL = &u
			}
			if c.IsSet("events") {
				if o.Events = cmdutil.CleanList(c.StringSlice("events")); len(o.Events) == 0 {
					return cmdutil.UsageErrorf(c, "--events: give at least one event type, or '*' for all")
				}
			}
			if c.IsSet("description") {
				d := c.String("description")
				o.Description = &d
			}
			if c.IsSet("person") {
				if o.AllPeople {
					return cmdutil.UsageErrorf(c, "--person and --all-people cannot be used together")
				}
				if o.People = cmdutil.CleanList(c.StringSlice("person")); len(o.People) == 0 {
					return cmdutil.UsageErrorf(c, "--person: give a person ID")
				}
			}
			if o.URL == nil && o.Events == nil && o.Description == nil && o.People == nil && !o.AllPeople {
				return cmdutil.UsageErrorf(c, "nothing to change: give --url, --events, --description, --person or --all-people")
			}
			return run(c, o)
		},
	}
}

func newEnableCmd(f *cmdutil.Factory, run cmdutil.RunFunc[updateOptions]) *cli.Command {
	return newSetStatusCmd(f, api.WebhookEnabled, run)
}

func newDisableCmd(f *cmdutil.Factory, run cmdutil.RunFunc[updateOptions]) *cli.Command {
	return newSetStatusCmd(f, api.WebhookDisabled, run)
}

// newSetStatusCmd is enable or disable: an update of the status alone.
func newSetStatusCmd(f *cmdutil.Factory, status string, run cmdutil.RunFunc[updateOptions]) *cli.Command {
	o := &updateOptions{f: f, Status: &status}
	run = cmdutil.OrRun(run, updateRun)
	name, usage, desc := "enable", "Enable a disabled webhook", "Turns deliveries back on. The reason it was disabled and the time since when it failed are cleared."
	if status == api.WebhookDisabled {
		name, usage, desc = "disable", "Disable a webhook: it receives nothing until enabled", "Stops deliveries to the webhook; the ones waiting are closed unsent. Tests are refused while disabled."
	}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: "timbra webhooks " + name + " ID [-o json]",
		ArgsUsage: "ID",
		Description: desc + "\nPrints the webhook; with -o json, the webhook object.\n\n" +
			"Example:\n" +
			"  timbra webhooks " + name + " 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

// updateRun reads the webhook and PUTs its full model with the changes: the API's PUT
// replaces every field. The status is sent only by enable and disable; omitted, the server
// keeps the state it has then (which it may have changed since the read, for example on a 410).
func updateRun(c *cli.Context, o *updateOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	w, err := client.GetWebhook(ctx, o.ID)
	if err != nil {
		return err
	}
	in := webhookModel(w)
	if o.URL != nil {
		in.URL = o.URL
	}
	if o.Events != nil {
		in.EnabledEvents = o.Events
	}
	if o.Description != nil {
		in.Description = o.Description
	}
	if o.People != nil {
		in.PersonIDs = o.People
	}
	if o.AllPeople {
		in.PersonIDs = nil
	}
	in.Status = o.Status
	out, err := client.ReplaceWebhook(ctx, w.ID, in)
	if err != nil {
		return explain(err)
	}
	p := o.f.Printer()
	return p.Fields(out, webhookFields(p, out))
}

// explain names the flags of a webhook's properties in the API's failures, with what to do
// when a URL is refused.
func explain(err error) error {
	return cmdutil.Explain(err, cmdutil.Sources{"Url": "--url", "EnabledEvents": "--events", "Description": "--description", "PersonIds": "--person"},
		cmdutil.Hint{Property: "Url", Message: webhook.MessageURLNotHTTPS,
			Text: "a receiver on this machine can be http://127.0.0.1:PORT in the test environment when the server allows the address (timbra server --webhook-allow-cidr 127.0.0.1); or run `timbra listen --forward-to URL`, which needs no webhook"},
		cmdutil.Hint{Property: "Url", Message: webhook.MessageURLForbidden,
			Text: "private, loopback and local addresses are refused unless the server's operator allows them (timbra server --webhook-allow-cidr 127.0.0.1, or the receiver's network); or run `timbra listen --forward-to URL`, which needs no webhook"})
}

// webhookModel is the full model of w for a PUT, without a status.
func webhookModel(w api.Webhook) api.WebhookUpdate {
	id, desc := w.ID, w.Description
	return api.WebhookUpdate{ID: &id, URL: w.URL, Description: &desc, EnabledEvents: w.EnabledEvents, PersonIDs: w.PersonIDs}
}

// ---- delete

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
		Usage:     "Delete a webhook; its delivery log stays",
		UsageText: "timbra webhooks delete ID [--yes]",
		ArgsUsage: "ID",
		Description: "Deletes the webhook: deliveries waiting for it are closed unsent, and its delivery log can\n" +
			"still be read with `timbra webhooks deliveries ID`. On a terminal it asks first; elsewhere\n" +
			"(scripts, pipes) --yes is required.\n\n" +
			"Examples:\n" +
			"  timbra webhooks delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra webhooks delete 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --yes",
		Flags: []cli.Flag{
			cmdutil.YesFlag(&o.Yes),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			if err := cmdutil.CanConfirm(c, f.IO, o.Yes, "delete"); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func deleteRun(c *cli.Context, o *deleteOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	ios := o.f.IO
	if !o.Yes {
		w, err := client.GetWebhook(ctx, o.ID)
		if err != nil {
			return err
		}
		if err := cmdutil.Confirm(ctx, ios, fmt.Sprintf("Delete webhook %s (%s)? Deliveries to it stop; its delivery log stays.", w.ID, webhookTarget(w)), "not deleted"); err != nil {
			return err
		}
	}
	if err := client.DeleteWebhook(ctx, o.ID); err != nil {
		return err
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(ios.Out, map[string]any{"id": o.ID, "deleted": true})
	}
	fmt.Fprintf(ios.Out, "Deleted webhook %s.\n", o.ID)
	return nil
}

// ---- test

type testOptions struct {
	f       *cmdutil.Factory
	ID      string
	Wait    bool
	Timeout time.Duration
}

// WaitFlags are --wait and --timeout of a command that sends a delivery and may follow it
// (webhooks test, events resend): see WaitAndReport.
func WaitFlags(wait *bool, timeout *time.Duration) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "wait", Usage: "wait until the delivery is sent or fails, print its outcome, exit 1 if it failed", Destination: wait},
		&cli.DurationFlag{Name: "timeout", Usage: "with --wait, give up after `DURATION`", Value: time.Minute, Destination: timeout},
	}
}

func newTestCmd(f *cmdutil.Factory, run cmdutil.RunFunc[testOptions]) *cli.Command {
	o := &testOptions{f: f}
	run = cmdutil.OrRun(run, testRun)
	return &cli.Command{
		Name:      "test",
		Usage:     "Send a signed webhook.test event to one webhook",
		UsageText: "timbra webhooks test ID [--wait [--timeout DURATION]] [-o json]",
		ArgsUsage: "ID",
		Description: "Sends a webhook.test event to this webhook only: one signed attempt, which does not count for\n" +
			"the webhook's health. Prints the event and delivery IDs. With --wait, follows the delivery\n" +
			"until it is sent or fails and prints its outcome (status, HTTP code, error, start of the\n" +
			"response); the exit code is 1 if it failed. With -o json, the API's answer, or with --wait\n" +
			"the delivery object.\n\n" +
			"Examples:\n" +
			"  timbra webhooks test 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra webhooks test 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --wait -o json",
		Flags: WaitFlags(&o.Wait, &o.Timeout),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			if o.Timeout <= 0 {
				return cmdutil.UsageErrorf(c, "invalid value %s for --timeout: give a positive duration such as 30s", o.Timeout)
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func testRun(c *cli.Context, o *testOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	res, err := client.TestWebhook(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	if !o.Wait {
		return p.Fields(res, []cmdutil.Field{{Label: "Event", Value: res.EventID}, {Label: "Delivery", Value: res.DeliveryID}})
	}
	if !p.JSON {
		if err := p.Fields(nil, []cmdutil.Field{{Label: "Event", Value: res.EventID}, {Label: "Delivery", Value: res.DeliveryID}}); err != nil {
			return err
		}
	}
	return WaitAndReport(ctx, o.f, client, o.ID, res.DeliveryID, o.Timeout)
}

// deliveryPoll is the first wait between two reads of a delivery log; it doubles up to a second.
var deliveryPoll = 200 * time.Millisecond

// WaitAndReport follows a delivery until it is no longer pending, prints its outcome, and
// answers an error (exit code 1) when it failed.
func WaitAndReport(ctx context.Context, f *cmdutil.Factory, client *api.Client, webhookID, deliveryID string, timeout time.Duration) error {
	if f.IO.ErrTTY && !f.JSON() {
		fmt.Fprintln(f.IO.Err, "Waiting for the delivery…")
	}
	d, err := waitDelivery(ctx, client, webhookID, deliveryID, timeout)
	if err != nil {
		return err
	}
	p := f.Printer()
	if err := p.Fields(d, deliveryOutcome(p, d)); err != nil {
		return err
	}
	if d.Status == api.DeliveryFailed {
		return fmt.Errorf("delivery %s failed", d.ID)
	}
	return nil
}

// waitDelivery reads a webhook's delivery log until the delivery is there and no longer pending.
func waitDelivery(ctx context.Context, client *api.Client, webhookID, deliveryID string, timeout time.Duration) (api.Delivery, error) {
	deadline := time.Now().Add(timeout)
	wait := deliveryPoll
	for {
		d, found, err := findDelivery(ctx, client, webhookID, deliveryID)
		if err != nil {
			return api.Delivery{}, err
		}
		if found && d.Status != api.DeliveryPending {
			return d, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return api.Delivery{}, fmt.Errorf("delivery %s is still pending after %s; follow it with 'timbra webhooks deliveries %s'", deliveryID, timeout, webhookID)
		}
		t := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return api.Delivery{}, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, time.Second)
	}
}

// findDelivery looks for a delivery in a webhook's log, newest first (a new one is on the
// first page, unless many came after it).
func findDelivery(ctx context.Context, client *api.Client, webhookID, deliveryID string) (api.Delivery, bool, error) {
	for page := 1; ; page++ {
		list, err := client.ListDeliveries(ctx, webhookID, page, 50)
		if err != nil {
			return api.Delivery{}, false, err
		}
		for _, d := range list.Items {
			if strings.EqualFold(d.ID, deliveryID) {
				return d, true, nil
			}
		}
		if !list.HasNextPage || len(list.Items) == 0 {
			return api.Delivery{}, false, nil
		}
	}
}

func deliveryOutcome(p *cmdutil.Printer, d api.Delivery) []cmdutil.Field {
	code := ""
	if d.LastStatusCode != nil {
		code = strconv.Itoa(*d.LastStatusCode)
	}
	return []cmdutil.Field{
		{Label: "Status", Value: p.ColorStatus(d.Status, d.Status)},
		{Label: "Attempts", Value: strconv.Itoa(d.Attempts)},
		{Label: "Status code", Value: code},
		{Label: "Error", Value: d.LastFailure()},
		{Label: "Response", Value: d.LastResponseExcerpt},
	}
}

// ---- rotate-secret

func newRotateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[idOptions]) *cli.Command {
	o := &idOptions{f: f}
	run = cmdutil.OrRun(run, rotateRun)
	return &cli.Command{
		Name:      "rotate-secret",
		Usage:     "Give a webhook a new signing secret and print it, this one time",
		UsageText: "timbra webhooks rotate-secret ID [-o json]",
		ArgsUsage: "ID",
		Description: "Makes a new signing secret and prints it once. For 24 hours deliveries carry two\n" +
			"signatures, one with the new secret and one with the old, so the receiver can switch\n" +
			"without losing events. With -o json, the webhook object with its new secret.\n\n" +
			"Example:\n" +
			"  timbra webhooks rotate-secret 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func rotateRun(c *cli.Context, o *idOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	w, err := client.RotateWebhookSecret(ctx, o.ID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	if err := p.Fields(w, []cmdutil.Field{{Label: "ID", Value: w.ID}, {Label: "URL", Value: webhookTarget(w)}, {Label: "Secret", Value: w.Secret}}); err != nil {
		return err
	}
	secretNote(o.f.IO, " The previous secret keeps signing too for 24 hours.")
	return nil
}

// ---- deliveries

type deliveriesOptions struct {
	f         *cmdutil.Factory
	ID        string
	Status    string
	EventType string
	cmdutil.PagingOptions
}

var deliveryColumns = []string{"ID", "CREATED", "EVENT", "TYPE", "KIND", "STATUS", "ATTEMPTS", "LAST CODE/ERROR", "NEXT ATTEMPT"}

func newDeliveriesCmd(f *cmdutil.Factory, run cmdutil.RunFunc[deliveriesOptions]) *cli.Command {
	o := &deliveriesOptions{f: f}
	run = cmdutil.OrRun(run, deliveriesRun)
	return &cli.Command{
		Name:      "deliveries",
		Usage:     "List a webhook's deliveries, newest first",
		UsageText: "timbra webhooks deliveries ID [--status STATUS] [--event-type TYPE] [--page N] [--page-size N] [-o json]",
		ArgsUsage: "ID",
		Description: "Prints one page of the delivery log of the last 30 days, newest first: delivery ID, time,\n" +
			"event ID and type, kind (automatic, manual, test), status, attempts, the HTTP code or\n" +
			"error of the last attempt, and when the next attempt is due. The log of a deleted webhook\n" +
			"stays readable. --status and --event-type keep only the deliveries that match (both must\n" +
			"hold); pages then count matching deliveries. With -o json, the whole page object.\n" +
			"`timbra webhooks delivery ID DELIVERY_ID` shows one of them with its event and attempts;\n" +
			"on a terminal, `timbra webhooks inspect ID` browses them.\n\n" +
			"Examples:\n" +
			"  timbra webhooks deliveries 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15\n" +
			"  timbra webhooks deliveries 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --status failed --event-type invoice.canceled\n" +
			"  timbra webhooks deliveries 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --page-size 50 -o json",
		Flags: append(deliveryFilterFlags(&o.Status, &o.EventType), cmdutil.PagingFlags(&o.PagingOptions, "deliveries", 50, "")...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID"); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			if err := checkDeliveryFilter(c, &o.Status, &o.EventType); err != nil {
				return err
			}
			if (o.Status != "" || o.EventType != "") && o.PageSize > maxPageSize {
				return cmdutil.UsageErrorf(c, "invalid value %d for --page-size: give 1 to %d", o.PageSize, maxPageSize)
			}
			o.ID = c.Args().First()
			return run(c, o)
		},
	}
}

func deliveriesRun(c *cli.Context, o *deliveriesOptions) error {
	return printDeliveries(c.Context, o.f, deliveryQuery{WebhookID: o.ID, Status: o.Status, EventType: o.EventType, PagingOptions: o.PagingOptions})
}

// deliveryQuery is one page of a webhook's delivery log, with the deliveries of a status and an
// event type only when they are given.
type deliveryQuery struct {
	WebhookID string
	Status    string
	EventType string
	cmdutil.PagingOptions
}

// printDeliveries prints one page of a webhook's delivery log: `timbra webhooks deliveries`, and
// the inspector of a webhook off a terminal.
func printDeliveries(ctx context.Context, f *cmdutil.Factory, q deliveryQuery) error {
	client, err := f.Client()
	if err != nil {
		return err
	}
	page, err := listDeliveries(ctx, client, q)
	if err != nil {
		return err
	}
	p := f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, d := range page.Items {
		next := ""
		if d.Status == api.DeliveryPending {
			next = p.APITime(api.Deref(d.NextAttemptAt))
		}
		rows = append(rows, []string{
			d.ID, p.APITime(d.CreatedAt), d.EventID, d.EventType, d.Kind, d.Status,
			strconv.Itoa(d.Attempts), lastResult(d), next,
		})
	}
	if err := p.StatusTable(page, deliveryColumns, rows, "No deliveries.", "STATUS"); err != nil {
		return err
	}
	cmdutil.PageFooter(f, page.PageNumber, page.TotalPages, page.TotalCount, "deliveries")
	return nil
}

// Page sizes of the API's lists (spec 3 §4.5).
const (
	defaultPageSize = 10
	maxPageSize     = 50
)

// listDeliveries reads one page of a webhook's deliveries: from the paged list, or with a
// filter from the load endpoint, paged the same way.
func listDeliveries(ctx context.Context, client *api.Client, q deliveryQuery) (api.PagedList[api.Delivery], error) {
	if q.Status == "" && q.EventType == "" {
		return client.ListDeliveries(ctx, q.WebhookID, q.Page, q.PageSize)
	}
	size := q.PageSize
	if size <= 0 {
		size = defaultPageSize
	}
	in := api.DeliveryQuery{Status: q.Status, EventType: q.EventType, Skip: (q.Page - 1) * size, Take: size}
	res, err := client.LoadDeliveries(ctx, q.WebhookID, in)
	if err != nil {
		return api.PagedList[api.Delivery]{}, err
	}
	return api.NewPage(res.Data, q.Page, size, res.TotalCount), nil
}

// lastResult is the HTTP code and the error of a delivery's last attempt, as far as known.
func lastResult(d api.Delivery) string {
	var parts []string
	if d.LastStatusCode != nil {
		parts = append(parts, strconv.Itoa(*d.LastStatusCode))
	}
	if e := d.LastFailure(); e != "" {
		parts = append(parts, e)
	}
	return strings.Join(parts, " ")
}
