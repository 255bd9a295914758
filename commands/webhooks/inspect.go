package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/tui"
	"github.com/urfave/cli/v2"
)

// ---- inspect

type inspectOptions struct {
	f         *cmdutil.Factory
	ID        string // the webhook to open first; "" for the list
	Status    string
	EventType string
}

// NewCmdInspect is the short `timbra inspect`, the same command as `timbra webhooks inspect`.
func NewCmdInspect(f *cmdutil.Factory) *cli.Command {
	return newInspectCmd(f, "timbra inspect", nil)
}

// newInspectCmd is `timbra webhooks inspect`; name is how it is called (inspect under webhooks,
// or the short `timbra inspect`).
func newInspectCmd(f *cmdutil.Factory, name string, run cmdutil.RunFunc[inspectOptions]) *cli.Command {
	o := &inspectOptions{f: f}
	run = cmdutil.OrRun(run, inspectRun)
	return &cli.Command{
		Name:      "inspect",
		Usage:     "Find out why a webhook did not get an event: browse webhooks, deliveries and attempts",
		UsageText: name + " [WEBHOOK_ID] [--status STATUS] [--event-type TYPE] [-o json]",
		ArgsUsage: "[WEBHOOK_ID]",
		Description: "On a terminal, opens the deliveries inspector: the webhooks you may see (an owner sees every\n" +
			"webhook of the tenant; others their own listener and the webhooks they manage), with their\n" +
			"status, why they were disabled and since when they fail; then a webhook's queue (deliveries\n" +
			"pending, attempts in flight, the oldest, the last error: see `timbra webhooks queue`) and its\n" +
			"deliveries, newest first, with status, attempts and the last HTTP code or error; then one\n" +
			"delivery: the event envelope exactly as signed, the headers that were sent, the start of the\n" +
			"receiver's answer and every attempt. Deliveries still pending are followed until they end.\n\n" +
			"Keys: ↑/↓ move, enter open, esc back (first clears a filter), r resend the event to this\n" +
			"webhook, t send a test event, e enable or disable, s rotate the signing secret (the new one\n" +
			"is shown once), / filter deliveries by status and event type (\"failed invoice.canceled\"),\n" +
			"g go to an event ID or the ID of the object an event is about, R or ctrl+r refresh, ? all\n" +
			"keys, q quit. Anything that changes something asks first (y/n).\n\n" +
			"Times are shown in --time-zone, or else the local zone.\n\n" +
			"When stdout is not a terminal, or with -o json, it prints instead what\n" +
			"`timbra webhooks list` prints, or with WEBHOOK_ID what `timbra webhooks deliveries` prints;\n" +
			"`timbra webhooks delivery WEBHOOK_ID DELIVERY_ID` shows one delivery with its event.\n\n" +
			"Examples:\n" +
			"  " + name + "\n" +
			"  " + name + " 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --status failed\n" +
			"  " + name + " 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 --event-type invoice.canceled --time-zone America/Mexico_City",
		Flags: deliveryFilterFlags(&o.Status, &o.EventType),
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 1 {
				return cmdutil.UsageErrorf(c, "unexpected argument %q", c.Args().Get(1))
			}
			o.ID = strings.TrimSpace(c.Args().First())
			if err := checkDeliveryFilter(c, &o.Status, &o.EventType); err != nil {
				return err
			}
			if o.ID == "" && (o.Status != "" || o.EventType != "") && !(f.IO.InTTY && f.IO.OutTTY && !f.JSON()) {
				return cmdutil.UsageErrorf(c, "--status and --event-type need a WEBHOOK_ID when stdout is not a terminal")
			}
			return run(c, o)
		},
	}
}

func deliveryFilterFlags(status, eventType *string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "status", Usage: "only deliveries in `STATUS`: pending, succeeded or failed", Destination: status},
		&cli.StringFlag{Name: "event-type", Usage: "only deliveries of events of `TYPE`, for example invoice.canceled", Destination: eventType},
	}
}

func checkDeliveryFilter(c *cli.Context, status, eventType *string) error {
	*status = strings.ToLower(strings.TrimSpace(*status))
	*eventType = strings.TrimSpace(*eventType)
	switch *status {
	case "", api.DeliveryPending, api.DeliverySucceeded, api.DeliveryFailed:
	default:
		return cmdutil.UsageErrorf(c, "invalid value %q for --status: use pending, succeeded or failed", *status)
	}
	if c.IsSet("event-type") && *eventType == "" {
		return cmdutil.UsageErrorf(c, "--event-type: give an event type, for example invoice.canceled")
	}
	return nil
}

func inspectRun(c *cli.Context, o *inspectOptions) error {
	ctx := c.Context
	ios := o.f.IO
	if !ios.InTTY || !ios.OutTTY || o.f.JSON() {
		if ios.ErrTTY && !o.f.JSON() {
			ios.Warn("stdout is not a terminal: printing a table instead of opening the inspector.")
		}
		if o.ID == "" {
			return printWebhooks(ctx, o.f, cmdutil.PagingOptions{Page: 1, PageSize: 50})
		}
		return printDeliveries(ctx, o.f, deliveryQuery{WebhookID: o.ID, Status: o.Status, EventType: o.EventType,
			PagingOptions: cmdutil.PagingOptions{Page: 1}})
	}
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loc := time.Local
	if o.f.TimeZone != "" {
		loc, _ = time.LoadLocation(o.f.TimeZone) // validated when the flag was parsed
	}
	m := tui.NewInspect(tui.InspectOptions{API: client, Context: ctx, BaseURL: client.BaseURL, Location: loc,
		WebhookID: o.ID, Status: o.Status, EventType: o.EventType})
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(ios.In), tea.WithOutput(ios.Out), tea.WithAltScreen())
	_, err = p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// ---- delivery

type deliveryOptions struct {
	f          *cmdutil.Factory
	WebhookID  string
	DeliveryID string
}

func newDeliveryCmd(f *cmdutil.Factory, run cmdutil.RunFunc[deliveryOptions]) *cli.Command {
	o := &deliveryOptions{f: f}
	run = cmdutil.OrRun(run, deliveryRun)
	return &cli.Command{
		Name:      "delivery",
		Usage:     "Show one delivery: its outcome, every attempt, the headers sent and the event",
		UsageText: "timbra webhooks delivery WEBHOOK_ID DELIVERY_ID [-o json]",
		ArgsUsage: "WEBHOOK_ID DELIVERY_ID",
		Description: "Prints one delivery of the webhook's log (last 30 days): status, attempts, the HTTP code or\n" +
			"error of the last attempt and the start of the receiver's answer; the signed headers\n" +
			"(webhook-id is the event ID, the same on every attempt; webhook-timestamp is when the last\n" +
			"attempt was signed, to the second as far as the log tells; webhook-signature is computed\n" +
			"with the webhook's secret, which the API never shows); every attempt; and the event\n" +
			"envelope exactly as delivered, indented. Find the IDs with `timbra webhooks deliveries`.\n" +
			"With -o json: {\"delivery\": the delivery object, \"event\": the envelope}.\n\n" +
			"Examples:\n" +
			"  timbra webhooks delivery 3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15 0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f\n" +
			"  timbra webhooks delivery 3f2a0c1e-... 0195a7c4-... -o json | jq .event.data",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "webhook ID", "delivery ID"); err != nil {
				return err
			}
			o.WebhookID, o.DeliveryID = strings.TrimSpace(c.Args().Get(0)), strings.TrimSpace(c.Args().Get(1))
			return run(c, o)
		},
	}
}

func deliveryRun(c *cli.Context, o *deliveryOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	page, err := client.LoadDeliveries(ctx, o.WebhookID, api.DeliveryQuery{ID: o.DeliveryID, Take: 1})
	if err != nil {
		return err
	}
	if len(page.Data) == 0 {
		return fmt.Errorf("no delivery %s in the log of webhook %s (last 30 days)", o.DeliveryID, o.WebhookID)
	}
	d := page.Data[0]
	event, err := client.GetEvent(ctx, d.EventID)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	if p.JSON {
		return cmdutil.WriteJSON(o.f.IO.Out, struct {
			Delivery api.Delivery    `json:"delivery"`
			Event    json.RawMessage `json:"event"`
		}{d, event})
	}
	next := ""
	if d.Status == api.DeliveryPending {
		next = p.APITime(api.Deref(d.NextAttemptAt))
	}
	fs := []cmdutil.Field{
		{Label: "ID", Value: d.ID},
		{Label: "Webhook", Value: d.WebhookID},
		{Label: "Event", Value: d.EventID},
		{Label: "Type", Value: d.EventType},
		{Label: "Kind", Value: d.Kind},
		{Label: "Created", Value: p.APITime(d.CreatedAt)},
		{Label: "Next attempt", Value: next},
	}
	if err := p.Fields(nil, append(fs, deliveryOutcome(p, d)...)); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("\nSigned headers:\n")
	fmt.Fprintf(&b, "  %s: %s\n", webhook.HeaderID, d.EventID)
	if ts, ok := signedAt(d, p.Loc); ok {
		fmt.Fprintf(&b, "  %s: %d (about when the last attempt was signed)\n", webhook.HeaderTimestamp, ts)
	} else {
		fmt.Fprintf(&b, "  %s: (no attempt yet)\n", webhook.HeaderTimestamp)
	}
	fmt.Fprintf(&b, "  %s: v1,... (HMAC-SHA256 with the webhook's signing secret, not shown by the API)\n", webhook.HeaderSignature)
	attempts := strconv.Itoa(len(d.History)) + " attempts"
	if len(d.History) == 1 {
		attempts = "1 attempt"
	}
	fmt.Fprintf(&b, "\nHistory (%s, newest first):\n", attempts)
	for i := len(d.History) - 1; i >= 0; i-- {
		a := d.History[i]
		fmt.Fprintf(&b, "  %s  %s  %d ms\n", p.APITime(a.At), attemptResult(a), a.DurationMS)
	}
	b.WriteString("\nEvent:\n")
	if err := json.Indent(&b, event, "", "  "); err != nil {
		b.Write(event)
	}
	b.WriteByte('\n')
	_, err = io.Copy(o.f.IO.Out, &b)
	return err
}

// attemptResult is the HTTP code and the error of one attempt.
func attemptResult(a api.Attempt) string {
	var parts []string
	if a.StatusCode != nil {
		parts = append(parts, strconv.Itoa(*a.StatusCode))
	}
	if e := a.Failure(); e != "" {
		parts = append(parts, e)
	}
	if len(parts) == 0 {
		return "no response"
	}
	return strings.Join(parts, " ")
}

// signedAt is about when the last attempt of d was signed (webhook-timestamp, Unix seconds): an
// attempt is recorded when it ends and lasted its duration. Times without offset are in loc.
func signedAt(d api.Delivery, loc *time.Location) (int64, bool) {
	if len(d.History) == 0 {
		return 0, false
	}
	a := d.History[len(d.History)-1]
	t, err := cmdutil.ParseAPITime(a.At, loc)
	if err != nil {
		return 0, false
	}
	return t.Add(-time.Duration(a.DurationMS) * time.Millisecond).Unix(), true
}
