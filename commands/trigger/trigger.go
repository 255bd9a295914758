package trigger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
	Synthetic       bool
	Fixture         string
	Yes             bool
	Edits           []edit
}

// NewCmd is `timbra trigger`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return newTriggerCmd(f, nil)
}

func newTriggerCmd(f *cmdutil.Factory, run cmdutil.RunFunc[triggerOptions]) *cli.Command {
	o := &triggerOptions{f: f}
	run = cmdutil.OrRun(run, triggerRun)
	var adds, overrides, removes cli.StringSlice
	return &cli.Command{
		Name:  "trigger",
		Usage: "Make an event happen in the test environment: a real invoice stamped or cancelled, or a synthetic event",
		UsageText: "timbra trigger TYPE [--related-object-id ID] [--yes] [--add|--override|--remove ...] [-o json]\n" +
			"   timbra trigger TYPE --synthetic [--related-object-id ID] [--person-id ID] [--webhook-id ID] [-o json]\n" +
			"   timbra trigger --fixture FILE [--add|--override|--remove ...] [-o json]\n" +
			"   timbra trigger --list [-o json]",
		ArgsUsage: "TYPE",
		Description: "Runs, in the test environment, what makes an event of the type happen, as API calls made\n" +
			"with your key: invoice.stamped stamps a real test invoice (issued by you, sealed with your\n" +
			"default CSD, to XAXX010101000, 100 MXN; one stamp credit), invoice.canceled stamps one and\n" +
			"cancels it. The server then sends the real events, with real objects, to your `timbra listen`\n" +
			"session and every webhook subscribed to them. Prints each step and the events it caused.\n\n" +
			"With --related-object-id the flow acts on that invoice instead: invoice.canceled cancels it,\n" +
			"invoice.cancellation_requested asks to, invoice.cancellation_rejected asks and rejects (an\n" +
			"invoice whose cancellation needs the recipient's acceptance: over 1,000 MXN, to an RFC,\n" +
			"stamped over 24 h ago). What cannot be undone is asked first on a terminal, or needs --yes.\n" +
			"download_request.completed and download_request.failed come from the SAT's answer to a bulk\n" +
			"download request (timbra downloads request): only --synthetic sends them.\n\n" +
			"--add, --override and --remove edit the requests: [STEP:]PATH=VALUE, the steps being\n" +
			"invoice, cancel and answer (the first one when STEP is left out), PATH keys joined by dots\n" +
			"and list items as [n] (recipient.tin, items[0].discount). A VALUE that is JSON is sent as\n" +
			"JSON (2, true, \"07\"), other text as a string; --override of a string keeps a string.\n\n" +
			"--synthetic sends one event built by the server (POST /api/v4/events/trigger): to your\n" +
			"listener, or with --webhook-id to that webhook; its object need not exist (a synthetic\n" +
			"invoice.canceled about an invoice that is valid is refused). --fixture FILE runs your own\n" +
			"sequence of API requests (docs/guides/developer.md, \"Fixtures\"). --list prints the types.\n\n" +
			"Examples:\n" +
			"  timbra trigger --list\n" +
			"  timbra trigger invoice.stamped\n" +
			"  timbra trigger invoice.stamped --add invoice:series=F --override invoice:items[0].unitPrice=250\n" +
			"  timbra trigger invoice.canceled --override cancel:cancellationReasonCode=03\n" +
			"  timbra trigger invoice.canceled --related-object-id 0195a7c4-2b1e-7c3d-9f00-00000000002a --yes\n" +
			"  timbra trigger invoice.canceled --synthetic --webhook-id 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 -o json\n" +
			"  timbra trigger --fixture docs/examples/fixture.json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "related-object-id", Usage: "the invoice `ID` the flow acts on; with --synthetic, any ID (data.relatedObject.id)", DefaultText: "a new invoice; with --synthetic a random ID", Destination: &o.RelatedObjectID},
			&cli.BoolFlag{Name: "synthetic", Usage: "send one event built by the server, about no real object", Destination: &o.Synthetic},
			&cli.StringFlag{Name: "person-id", Usage: "with --synthetic: `ID` of the person the event belongs to (personId)", DefaultText: "none", Destination: &o.PersonID},
			&cli.StringFlag{Name: "webhook-id", Usage: "with --synthetic: deliver to the webhook `ID`", DefaultText: "your listener", Destination: &o.WebhookID},
			&cli.StringSliceFlag{Name: "add", Usage: "add a parameter to a request: `[STEP:]PATH=VALUE` (repeatable)", Destination: &adds},
			&cli.StringSliceFlag{Name: "override", Usage: "change a parameter of a request: `[STEP:]PATH=VALUE` (repeatable)", Destination: &overrides},
			&cli.StringSliceFlag{Name: "remove", Usage: "remove a parameter of a request: `[STEP:]PATH` (repeatable)", Destination: &removes},
			&cli.StringFlag{Name: "fixture", Usage: "run the API requests of the fixture `FILE`", TakesFile: true, Destination: &o.Fixture},
			cmdutil.YesFlag(&o.Yes),
			&cli.BoolFlag{Name: "list", Usage: "list the event types that can be triggered", Destination: &o.List},
		},
		BashComplete: completeTypes,
		Action: func(c *cli.Context) error {
			for _, x := range []struct {
				op   string
				args []string
			}{{"add", adds.Value()}, {"override", overrides.Value()}, {"remove", removes.Value()}} {
				for _, a := range x.args {
					e, err := parseEdit(x.op, a)
					if err != nil {
						return cmdutil.UsageErrorf(c, "%v", err)
					}
					o.Edits = append(o.Edits, e)
				}
			}
			for _, x := range []struct {
				name  string
				value *string
			}{{"related-object-id", &o.RelatedObjectID}, {"person-id", &o.PersonID}, {"webhook-id", &o.WebhookID}, {"fixture", &o.Fixture}} {
				*x.value = strings.TrimSpace(*x.value)
				if c.IsSet(x.name) && *x.value == "" {
					if x.name == "fixture" {
						return cmdutil.UsageErrorf(c, "--fixture: give a FILE")
					}
					return cmdutil.UsageErrorf(c, "--%s: give an ID", x.name)
				}
			}
			switch {
			case o.List, o.Fixture != "":
				flag := "--list"
				if !o.List {
					flag = "--fixture"
				} else if o.Fixture != "" {
					return cmdutil.UsageErrorf(c, "--list takes no --fixture")
				}
				if err := cmdutil.ExactArgs(c); err != nil {
					return err
				}
				taken := []string{"related-object-id", "person-id", "webhook-id", "synthetic", "yes"}
				if o.List {
					taken = append(taken, "add", "override", "remove")
				}
				for _, name := range taken {
					if c.IsSet(name) {
						return cmdutil.UsageErrorf(c, "%s takes no --%s", flag, name)
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
			if t, ok := webhooks.Lookup(o.Type); !ok || t.Name == webhooks.TypeTest {
				msg := fmt.Sprintf("unknown event type %q", o.Type)
				if s := webhooks.Suggest(o.Type, true); s != "" {
					msg += fmt.Sprintf("; did you mean %s?", s)
				}
				if o.Type == webhooks.TypeTest {
					msg = "webhook.test is sent by timbra webhooks test ID, not triggered"
				}
				return cmdutil.UsageErrorf(c, "%s (timbra trigger --list names them)", msg)
			}
			if !o.Synthetic {
				for _, name := range []string{"person-id", "webhook-id"} {
					if c.IsSet(name) {
						return cmdutil.UsageErrorf(c, "--%s goes with --synthetic: a real trigger's events belong to you and go to your listener and every webhook subscribed to them", name)
					}
				}
			} else if c.IsSet("yes") {
				return cmdutil.UsageErrorf(c, "--synthetic changes nothing: it takes no --yes")
			}
			return run(c, o)
		},
	}
}

// completeTypes completes `timbra trigger <TAB>` with the event types, and flags as usual
// when the word being completed starts with a dash.
func completeTypes(c *cli.Context) {
	if args := os.Args; len(args) >= 2 && strings.HasPrefix(args[len(args)-2], "-") {
		cli.DefaultCompleteWithFlags(c.Command)(c)
		return
	}
	if c.NArg() > 0 || c.Bool("list") || c.String("fixture") != "" {
		return
	}
	for _, name := range webhooks.TriggerableNames() {
		fmt.Fprintln(c.App.Writer, name)
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

// triggerRun makes the event: a real flow, a fixture, or a synthetic event; or with --list
// prints the types that can be triggered.
func triggerRun(c *cli.Context, o *triggerOptions) error {
	if o.List {
		return printTriggerable(o.f)
	}
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	if o.Synthetic {
		return runSynthetic(ctx, client, o)
	}
	var p plan
	if o.Fixture != "" {
		fx, err := readFixture(o.Fixture)
		if err != nil {
			return err
		}
		p.steps = fx.Fixtures
	} else if p, err = realPlan(ctx, client, o.Type, o.RelatedObjectID); err != nil {
		return err
	}
	fx := &Fixture{Fixtures: p.steps}
	if err := applyEdits(fx, o.Edits); err != nil {
		return cmdutil.UsageErrorf(c, "%v", err)
	}
	if err := checkFixture(fx); err != nil {
		return err
	}
	r := &runner{client: client, answers: map[string]any{}, getenv: os.LookupEnv}
	var caller any
	r.caller = func(ctx context.Context) (any, error) {
		if caller == nil {
			v, err := findCaller(ctx, client)
			if err != nil {
				return nil, err
			}
			caller = v
		}
		return caller, nil
	}
	if o.Fixture == "" {
		if err := issuerCheck(ctx, client, fx.Fixtures, r.caller, o.Type); err != nil {
			return err
		}
	}
	if p.confirm != "" && !o.Yes {
		if !o.f.IO.InTTY {
			return fmt.Errorf("%s\nstdin is not a terminal to ask on: pass --yes to go on", p.confirm)
		}
		if err := cmdutil.Confirm(ctx, o.f.IO, p.confirm, "nothing sent"); err != nil {
			return err
		}
	}
	before, err := newestEvent(ctx, client, p.related)
	if err != nil {
		return err
	}
	var results []StepResult
	var runErr error
	for _, s := range fx.Fixtures {
		res, err := r.run(ctx, s)
		if err != nil {
			runErr = err
			break
		}
		results = append(results, res)
		if !o.f.JSON() {
			printStep(o.f, res)
		}
	}
	related := p.related
	if related == "" && o.Fixture == "" {
		if v, ok := lookup(r.answers[stepInvoice], []segment{{key: "id", index: -1}}); ok {
			related, _ = v.(string)
		}
	}
	var events []eventLine
	if len(results) > 0 {
		if events, err = eventsSince(ctx, client, related, before); err != nil && runErr == nil {
			runErr = err
		}
	}
	if o.f.JSON() {
		if runErr != nil {
			return runErr
		}
		return cmdutil.WriteJSON(o.f.IO.Out, struct {
			Steps  []StepResult `json:"steps"`
			Events []eventLine  `json:"events"`
		}{results, events})
	}
	printEvents(o.f, events, len(results) > 0)
	return runErr
}

// runSynthetic sends POST /api/v4/events/trigger: one event built by the server.
func runSynthetic(ctx context.Context, client *api.Client, o *triggerOptions) error {
	t, _ := webhooks.Lookup(o.Type)
	if err := syntheticCheck(ctx, client, o.Type, t.Status, o.RelatedObjectID); err != nil {
		return err
	}
	params := map[string]any{"type": o.Type}
	for _, x := range []struct{ name, value string }{{"relatedObjectId", o.RelatedObjectID}, {"personId", o.PersonID}, {"webhookId", o.WebhookID}} {
		if x.value != "" {
			params[x.name] = x.value
		}
	}
	fx := &Fixture{Fixtures: []Step{{Name: stepTrigger, Path: "/api/v4/events/trigger", Method: "post", Params: params}}}
	if err := applyEdits(fx, o.Edits); err != nil {
		return err
	}
	var in api.EventTrigger
	b, _ := json.Marshal(fx.Fixtures[0].Params)
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("the edited request is not a trigger's: %v", err)
	}
	res, err := client.TriggerEvent(ctx, in)
	if err != nil {
		return cmdutil.Explain(err, cmdutil.Sources{"Type": "TYPE", "RelatedObjectId": "--related-object-id", "PersonId": "--person-id", "WebhookId": "--webhook-id"})
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(o.f.IO.Out, res)
	}
	to := "listener"
	if in.WebhookID != nil {
		id := res.WebhookID
		if id == "" {
			id = *in.WebhookID
		}
		to = "webhook " + id
	}
	_, err = fmt.Fprintf(o.f.IO.Out, "Triggered %s as event %s, sent to %s\n", api.Deref(in.Type), res.EventID, to)
	return err
}

// printStep prints one step that ran: its name, request, and the id and status it answered.
func printStep(f *cmdutil.Factory, s StepResult) {
	line := fmt.Sprintf("%-8s %s %s", s.Name, s.Method, s.Path)
	if v, err := decodeJSON(s.Data); err == nil {
		if m, ok := v.(map[string]any); ok {
			for _, k := range []string{"id", "uuid", "status", "eventId"} {
				if x, ok := m[k].(string); ok && x != "" {
					line += fmt.Sprintf("  %s %s", k, x)
				}
			}
		}
	}
	fmt.Fprintln(f.IO.Out, line)
}

// eventLine is one event a trigger caused.
type eventLine struct {
	ID              string `json:"id"`
	Type            string `json:"type"`
	RelatedObjectID string `json:"relatedObjectId"`
}

// newestEvent is the id of the newest event (of the related object, when one is given) before
// the run: the events after it are the run's. Ids are UUID v7, so no clock is compared.
func newestEvent(ctx context.Context, client *api.Client, related string) (string, error) {
	page, err := client.ListEvents(ctx, api.EventQuery{RelatedObjectID: related, Page: 1, PageSize: 1})
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Status == 403 {
			return "", nil // without Webhooks.Manage the events are not listed; the run goes on
		}
		return "", err
	}
	if len(page.Items) == 0 {
		return "", nil
	}
	var e api.Event
	if err := json.Unmarshal(page.Items[0], &e); err != nil {
		return "", err
	}
	return e.ID, nil
}

// eventsSince lists the events newer than before (of the related object when one is given),
// oldest first: at most the newest 50.
func eventsSince(ctx context.Context, client *api.Client, related, before string) ([]eventLine, error) {
	page, err := client.ListEvents(ctx, api.EventQuery{RelatedObjectID: related, Page: 1, PageSize: 50})
	if err != nil {
		return nil, err
	}
	var out []eventLine
	for _, raw := range page.Items {
		var e api.Event
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, err
		}
		if e.ID == before {
			break
		}
		out = append([]eventLine{{ID: e.ID, Type: e.Type, RelatedObjectID: e.Data.RelatedObject.ID}}, out...)
	}
	return out, nil
}

// printEvents prints the events a run caused and where they went.
func printEvents(f *cmdutil.Factory, events []eventLine, ran bool) {
	if !ran {
		return
	}
	w := f.IO.Out
	if len(events) == 0 {
		fmt.Fprintln(w, "No event.")
		return
	}
	fmt.Fprintln(w, "Events (to your listener and the webhooks subscribed to them; timbra events get ID):")
	for _, e := range events {
		fmt.Fprintf(w, "  %-31s %s\n", e.Type, e.ID)
	}
}
