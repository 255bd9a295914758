package trigger

import (
	"fmt"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/urfave/cli/v2"
)

type triggerOptions struct {
	f               *cmdutil.Factory
	Type            string
	RelatedObjectID string
	PersonID        string
	WebhookID       string
	List            bool
}

// NewCmd is `timbra trigger`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return newTriggerCmd(f, nil)
}

func newTriggerCmd(f *cmdutil.Factory, run cmdutil.RunFunc[triggerOptions]) *cli.Command {
	o := &triggerOptions{f: f}
	run = cmdutil.OrRun(run, triggerRun)
	return &cli.Command{
		Name:      "trigger",
		Usage:     "Make a sample event of a type and send it to your listener or one webhook (test environment)",
		UsageText: "timbra trigger TYPE [--related-object-id ID] [--person-id ID] [--webhook-id ID] [-o json]\n   timbra trigger --list [-o json]",
		ArgsUsage: "TYPE",
		Description: "Builds an event of the type given, as if it had happened, and delivers it once: to your own\n" +
			"`timbra listen` session, or with --webhook-id to that webhook, whatever event types it\n" +
			"receives. The event is real (it is listed by `timbra events list`) but its object need not\n" +
			"exist. Only in the test environment. Prints the event ID and where it went; with -o json,\n" +
			"the API's answer. --list prints the event types that can be triggered.\n\n" +
			"Examples:\n" +
			"  timbra trigger --list\n" +
			"  timbra trigger invoice.canceled\n" +
			"  timbra trigger invoice.stamped --related-object-id 5b9e1c2a-... --webhook-id 3f2a0c1e-... -o json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "related-object-id", Usage: "`ID` of the object the event is about (data.relatedObject.id)", DefaultText: "a new random ID", Destination: &o.RelatedObjectID},
			&cli.StringFlag{Name: "person-id", Usage: "`ID` of the person the event belongs to (personId)", DefaultText: "none", Destination: &o.PersonID},
			&cli.StringFlag{Name: "webhook-id", Usage: "deliver to the webhook `ID`", DefaultText: "your listener", Destination: &o.WebhookID},
			&cli.BoolFlag{Name: "list", Usage: "list the event types that can be triggered", Destination: &o.List},
		},
		Action: func(c *cli.Context) error {
			if o.List {
				if err := cmdutil.ExactArgs(c); err != nil {
					return err
				}
				for _, name := range []string{"related-object-id", "person-id", "webhook-id"} {
					if c.IsSet(name) {
						return cmdutil.UsageErrorf(c, "--list takes no --%s", name)
					}
				}
				return run(c, o)
			}
			if err := cmdutil.ExactArgs(c, "event type (see timbra trigger --list)"); err != nil {
				return err
			}
			o.Type = strings.TrimSpace(c.Args().First())
			if o.Type == "" {
				return cmdutil.UsageErrorf(c, "missing argument: event type (see timbra trigger --list)")
			}
			for _, x := range []struct {
				name  string
				value *string
			}{{"related-object-id", &o.RelatedObjectID}, {"person-id", &o.PersonID}, {"webhook-id", &o.WebhookID}} {
				*x.value = strings.TrimSpace(*x.value)
				if c.IsSet(x.name) && *x.value == "" {
					return cmdutil.UsageErrorf(c, "--%s: give an ID", x.name)
				}
			}
			return run(c, o)
		},
	}
}

// triggerable is one line of trigger --list.
type triggerable struct {
	Name              string `json:"name"`
	RelatedObjectType string `json:"relatedObjectType"`
	Description       string `json:"description"`
}

// printTriggerable prints the event types that can be triggered: trigger --list.
func printTriggerable(f *cmdutil.Factory) error {
	var types []triggerable
	var rows [][]string
	for _, t := range webhooks.Catalog {
		if t.Name == webhooks.TypeTest {
			continue // made by timbra webhooks test; the trigger refuses it
		}
		types = append(types, triggerable{Name: t.Name, RelatedObjectType: t.RelatedType, Description: t.Description})
		rows = append(rows, []string{t.Name, t.RelatedType, t.Description})
	}
	return f.Printer().Table(types, []string{"TYPE", "OBJECT", "DESCRIPTION"}, rows, "")
}

// triggerRun makes the event, or with --list prints the types that can be triggered.
func triggerRun(c *cli.Context, o *triggerOptions) error {
	if o.List {
		return printTriggerable(o.f)
	}
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	in := api.EventTrigger{Type: &o.Type}
	for _, x := range []struct {
		value string
		dst   **string
	}{{o.RelatedObjectID, &in.RelatedObjectID}, {o.PersonID, &in.PersonID}, {o.WebhookID, &in.WebhookID}} {
		if x.value != "" {
			v := x.value
			*x.dst = &v
		}
	}
	res, err := client.TriggerEvent(ctx, in)
	if err != nil {
		return err
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(o.f.IO.Out, res)
	}
	to := "listener"
	if o.WebhookID != "" {
		id := res.WebhookID
		if id == "" {
			id = o.WebhookID
		}
		to = "webhook " + id
	}
	_, err = fmt.Fprintf(o.f.IO.Out, "Triggered %s as event %s, sent to %s\n", o.Type, res.EventID, to)
	return err
}
