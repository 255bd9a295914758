package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/commands/webhooks"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
	"github.com/urfave/cli/v2"
)

// NewCmd is `timbra events`.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "events",
		Usage: "List, read and resend the events of your tenant (last 30 days)",
		Description: "An event records that a resource reached a state, for example an invoice cancelled. It is\n" +
			"the envelope signed and delivered to webhooks; its ID is the webhook-id of each delivery.\n\n" +
			"Examples:\n" +
			"  timbra events list --type invoice.canceled --from 24h\n" +
			"  timbra events get 0195a7c4-... -o json\n" +
			"  timbra events resend 0195a7c4-... --webhook 3f2a0c1e-... --wait",
		Subcommands: []*cli.Command{newListCmd(f, nil), newGetCmd(f, nil), newResendCmd(f, nil)},
	}
}

// ---- list

type listOptions struct {
	f       *cmdutil.Factory
	Type    string
	Related string
	From    string // --from as the API takes it (UTC, to the millisecond); "" for none
	To      string // --to likewise
	cmdutil.PagingOptions
}

var eventColumns = []string{"ID", "TYPE", "CREATED", "RELATED OBJECT", "STATUS"}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	var from, to string
	return &cli.Command{
		Name:      "list",
		Usage:     "List events, newest first, one page at a time",
		UsageText: "timbra events list [--type TYPE] [--related ID] [--from TIME] [--to TIME] [--page N] [--page-size N] [-o json]",
		Description: "Prints one page of the events of the last 30 days, newest first: ID, type, time, the object\n" +
			"it is about and the status it reached. With -o json, the whole page object with each\n" +
			"envelope as the API answered it.\n\n" +
			"TIME is an RFC 3339 instant (2025-03-10T12:00:00Z, 2025-03-10T06:00:00-06:00), a date and\n" +
			"time without offset, read in --time-zone or else UTC (2025-03-10T06:00), a date (its\n" +
			"start for --from, its end for --to), or how long ago (90m, 24h, 7d). --to defaults to now;\n" +
			"the range spans at most 30 days.\n\n" +
			"Examples:\n" +
			"  timbra events list\n" +
			"  timbra events list --type webhook.test --from 2h\n" +
			"  timbra events list --related 5b9e1c2a-... --from 2025-03-01 --to 2025-03-10 -o json",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "type", Usage: "only events of type `TYPE`, for example invoice.canceled", Destination: &o.Type},
			&cli.StringFlag{Name: "related", Usage: "only events about the object `ID` (data.relatedObject.id)", Destination: &o.Related},
			&cli.StringFlag{Name: "from", Usage: "only events at or after `TIME`", Destination: &from},
			&cli.StringFlag{Name: "to", Usage: "only events at or before `TIME`", DefaultText: "now", Destination: &to},
		}, cmdutil.PagingFlags(&o.PagingOptions, "events", 50, "")...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := o.Check(c, 0); err != nil {
				return err
			}
			o.Type, o.Related = strings.TrimSpace(o.Type), strings.TrimSpace(o.Related)
			loc := time.UTC
			if f.TimeZone != "" {
				loc, _ = time.LoadLocation(f.TimeZone) // validated when the flag was parsed
			}
			for _, x := range []struct {
				flag, value string
				dst         *string
				end         bool
			}{{"from", from, &o.From, false}, {"to", to, &o.To, true}} {
				if x.value == "" {
					continue
				}
				t, err := parseWhen(x.value, f.Now(), loc, x.end)
				if err != nil {
					return cmdutil.UsageErrorf(c, "invalid value %q for --%s: %v", x.value, x.flag, err)
				}
				*x.dst = t.UTC().Format("2006-01-02T15:04:05.000Z")
			}
			return run(c, o)
		},
	}
}

// parseWhen reads the TIME of --from and --to: RFC 3339, a date-time without offset or a date
// (in loc), or a duration ago (Go syntax, or a number of days such as 7d). A date alone means
// its first instant, or its last when end is set.
func parseWhen(s string, now time.Time, loc *time.Location, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		if end {
			t = t.AddDate(0, 0, 1).Add(-time.Millisecond)
		}
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("want an RFC 3339 time (2025-03-10T12:00:00Z), a date (2025-03-10) or how long ago (24h, 7d)")
}

func listRun(c *cli.Context, o *listOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	q := api.EventQuery{Type: o.Type, RelatedObjectID: o.Related, From: o.From, To: o.To, Page: o.Page, PageSize: o.PageSize}
	page, err := client.ListEvents(c.Context, q)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	rows := make([][]string, 0, len(page.Items))
	for _, raw := range page.Items {
		var e api.Event
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("decode an event of the list: %w", err)
		}
		rows = append(rows, []string{e.ID, e.Type, p.APITime(e.CreatedAt), relatedText(e.Data.RelatedObject), eventStatusText(e.Data)})
	}
	if err := p.Table(page, eventColumns, rows, "No events."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, page.PageNumber, page.TotalPages, page.TotalCount, "events")
	return nil
}

func relatedText(r api.RelatedObject) string {
	return strings.TrimSpace(r.Type + " " + r.ID)
}

func eventStatusText(d api.EventData) string {
	if d.PreviousStatus != "" {
		return d.Status + " (was " + d.PreviousStatus + ")"
	}
	return d.Status
}

// ---- get

type getOptions struct {
	f  *cmdutil.Factory
	ID string
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[getOptions]) *cli.Command {
	o := &getOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Print one event: the exact envelope that was signed and delivered",
		UsageText: "timbra events get ID [-o json]",
		ArgsUsage: "ID",
		Description: "Prints the event envelope as indented JSON. With -o json, the bytes exactly as the server\n" +
			"answered them (no newline added unless stdout is a terminal): the body your webhooks\n" +
			"received, so that a signature can be checked against it.\n\n" +
			"Examples:\n" +
			"  timbra events get 0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f\n" +
			"  timbra events get 0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f -o json > body.json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "event ID"); err != nil {
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
	raw, err := client.GetEvent(ctx, o.ID)
	if err != nil {
		return err
	}
	out := o.f.IO.Out
	if o.f.JSON() {
		if _, err := out.Write(raw); err != nil {
			return err
		}
		if o.f.IO.OutTTY {
			_, err = fmt.Fprintln(out)
		}
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return fmt.Errorf("the event %s is not JSON: %w", o.ID, err)
	}
	buf.WriteByte('\n')
	_, err = out.Write(buf.Bytes())
	return err
}

// ---- resend

type resendOptions struct {
	f         *cmdutil.Factory
	ID        string
	WebhookID string
	Wait      bool
	Timeout   time.Duration
	// Since (the API's instant) resends every event since then, oldest first, of Types when
	// given (exact types or namespace.* patterns); "" for one event, ID.
	Since string
	Types []string
	// Session names the listen session to resend to (--session); "" for the default rule.
	Session string
}

// resendEvery is the pace of a resend of many: the BusinessWrite limit, 600 a minute per key
// (spec 1 §8).
const resendEvery = time.Minute / 600

func newResendCmd(f *cmdutil.Factory, run cmdutil.RunFunc[resendOptions]) *cli.Command {
	o := &resendOptions{f: f}
	run = cmdutil.OrRun(run, resendRun)
	var since, session string
	var toListener bool
	return &cli.Command{
		Name:  "resend",
		Usage: "Deliver an event once more, or every event since a time, to one webhook or listen session",
		UsageText: "timbra events resend ID [--webhook WEBHOOK_ID | --to-listener [--session NAME]] [--wait [--timeout DURATION]] [-o json]\n" +
			"timbra events resend --since TIME [--type TYPE ...] [--webhook WEBHOOK_ID | --to-listener [--session NAME]] [-o json]",
		ArgsUsage: "ID",
		Description: "Makes one new signed delivery of the event to the webhook: one attempt, no retries, whatever\n" +
			"event types or people the webhook filters. Without --webhook (or with --to-listener) it goes\n" +
			"to your own `timbra listen` session: the one --session names, else the session named\n" +
			"default if it is open, else the only one open. Prints the delivery and webhook IDs; with\n" +
			"--wait, follows the delivery and prints its outcome, exit code 1 if it failed.\n\n" +
			"With --since, resends every event of the tenant since TIME (an RFC 3339 time, a date, or how\n" +
			"long ago: 15m, 24h, 7d; the last 30 days at most), oldest first, of the --type given (exact\n" +
			"types or namespace.*, repeatable; default all). Each event is one request of the family\n" +
			"BusinessWrite, limited to 600 a minute per API key: the resends go at that pace (a thousand\n" +
			"events take a little under two minutes), and wait as the server's Retry-After says when the\n" +
			"key is also used elsewhere. Progress goes to stderr; the summary to stdout (with -o json:\n" +
			"{total, resent, failed, webhookId, deliveries: [{eventId, deliveryId}], errors: [{eventId,\n" +
			"error}]}). Exit code 1 when a resend failed.\n\n" +
			"Examples:\n" +
			"  timbra events resend 0195a7c4-... --webhook 3f2a0c1e-...\n" +
			"  timbra events resend 0195a7c4-... --webhook 3f2a0c1e-... --wait\n" +
			"  timbra events resend --since 15m --type 'invoice.*' --to-listener\n" +
			"  timbra events resend --since 2h --to-listener --session api -o json",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "webhook", Usage: "`WEBHOOK_ID` to deliver to (default: your listener)", Destination: &o.WebhookID},
			&cli.BoolFlag{Name: "to-listener", Usage: "deliver to your timbra listen session (the default without --webhook)", Destination: &toListener},
			&cli.StringFlag{Name: "session", Usage: "the listen session `NAME` to deliver to", Destination: &session},
			&cli.StringFlag{Name: "since", Usage: "resend every event since `TIME` (15m, 24h, 2025-03-10, RFC 3339)", Destination: &since},
			&cli.StringSliceFlag{Name: "type", Usage: "with --since, only events of `TYPE` (exact or namespace.*; repeatable)"},
		}, webhooks.WaitFlags(&o.Wait, &o.Timeout)...),
		Action: func(c *cli.Context) error {
			if since == "" {
				if err := cmdutil.ExactArgs(c, "event ID"); err != nil {
					return err
				}
				o.ID = c.Args().First()
			} else if c.Args().Len() > 0 {
				return cmdutil.UsageErrorf(c, "give an event ID or --since, not both")
			}
			if c.IsSet("webhook") && strings.TrimSpace(o.WebhookID) == "" {
				return cmdutil.UsageErrorf(c, "--webhook: give a webhook ID")
			}
			if c.IsSet("webhook") && (toListener || c.IsSet("session")) {
				return cmdutil.UsageErrorf(c, "--webhook goes to a webhook: leave out --to-listener and --session")
			}
			if c.IsSet("session") {
				o.Session = strings.TrimSpace(session)
				if o.Session == "" {
					return cmdutil.UsageErrorf(c, "--session: give a session name")
				}
			}
			if o.Timeout <= 0 {
				return cmdutil.UsageErrorf(c, "invalid value %s for --timeout: give a positive duration such as 30s", o.Timeout)
			}
			o.Types = cmdutil.CleanList(c.StringSlice("type"))
			if since == "" {
				if len(o.Types) > 0 {
					return cmdutil.UsageErrorf(c, "--type needs --since")
				}
				return run(c, o)
			}
			if o.Wait {
				return cmdutil.UsageErrorf(c, "--wait follows one resend: follow many with timbra webhooks deliveries")
			}
			loc := time.UTC
			if f.TimeZone != "" {
				loc, _ = time.LoadLocation(f.TimeZone) // validated when the flag was parsed
			}
			t, err := parseWhen(since, f.Now(), loc, false)
			if err != nil {
				return cmdutil.UsageErrorf(c, "invalid value %q for --since: %v", since, err)
			}
			o.Since = t.UTC().Format("2006-01-02T15:04:05.000Z")
			return run(c, o)
		},
	}
}

func resendRun(c *cli.Context, o *resendOptions) error {
	ctx := c.Context
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	var in api.EventResend
	if id := strings.TrimSpace(o.WebhookID); id != "" {
		in.WebhookID = &id
	}
	if o.Session != "" {
		in.ListenerSession = &o.Session
	}
	if o.Since != "" {
		return resendMany(c, o, client, in)
	}
	res, err := client.ResendEvent(ctx, o.ID, in)
	if err != nil {
		return err
	}
	p := o.f.Printer()
	ids := []cmdutil.Field{{Label: "Delivery", Value: res.DeliveryID}, {Label: "Webhook", Value: res.WebhookID}}
	if !o.Wait {
		return p.Fields(res, ids)
	}
	if !p.JSON {
		if err := p.Fields(nil, ids); err != nil {
			return err
		}
	}
	return webhooks.WaitAndReport(ctx, o.f, client, res.WebhookID, res.DeliveryID, o.Timeout)
}

// resendSummary is the JSON answer of a resend of many.
type resendSummary struct {
	Total      int             `json:"total"`
	Resent     int             `json:"resent"`
	Failed     int             `json:"failed"`
	WebhookID  string          `json:"webhookId"`
	Deliveries []resentOne     `json:"deliveries"`
	Errors     []resendFailure `json:"errors"`
}

type resentOne struct {
	EventID    string `json:"eventId"`
	DeliveryID string `json:"deliveryId"`
}

type resendFailure struct {
	EventID string `json:"eventId"`
	Error   string `json:"error"`
}

// resendMany resends every event since o.Since of o.Types, oldest first, at the pace of the
// BusinessWrite limit, and reports progress on stderr and a summary.
func resendMany(c *cli.Context, o *resendOptions, client *api.Client, in api.EventResend) error {
	ctx := c.Context
	var all []api.Event
	q := api.EventQuery{From: o.Since, PageSize: 50}
	if len(o.Types) == 1 && !strings.HasSuffix(o.Types[0], "*") {
		q.Type = o.Types[0]
	}
	for q.Page = 1; ; q.Page++ {
		page, err := client.ListEvents(ctx, q)
		if err != nil {
			return err
		}
		for _, raw := range page.Items {
			var e api.Event
			if err := json.Unmarshal(raw, &e); err != nil {
				return fmt.Errorf("decode an event of the list: %w", err)
			}
			if len(o.Types) == 0 || listener.TypeMatches(o.Types, e.Type) {
				all = append(all, e)
			}
		}
		if q.Page >= page.TotalPages {
			break
		}
	}
	slices.Reverse(all) // oldest first
	sum := resendSummary{Total: len(all), Deliveries: []resentOne{}, Errors: []resendFailure{}}
	errOut := o.f.IO.Err
	progress := func(final bool) {
		line := fmt.Sprintf("Resent %d of %d events", sum.Resent, sum.Total)
		if sum.Failed > 0 {
			line += fmt.Sprintf(" (%d failed)", sum.Failed)
		}
		switch {
		case o.f.IO.ErrTTY && !final:
			fmt.Fprintf(errOut, "\r%s…", line)
		case o.f.IO.ErrTTY:
			fmt.Fprintf(errOut, "\r%s.\n", line)
		case final || (sum.Resent+sum.Failed)%50 == 0:
			fmt.Fprintln(errOut, line+".")
		}
	}
	tick := time.NewTicker(resendEvery)
	defer tick.Stop()
	for i := 0; i < len(all); {
		e := all[i]
		res, err := client.ResendEvent(ctx, e.ID, in)
		var ae *api.Error
		switch {
		case err == nil:
			sum.Resent++
			sum.WebhookID = res.WebhookID
			sum.Deliveries = append(sum.Deliveries, resentOne{EventID: e.ID, DeliveryID: res.DeliveryID})
		case errors.As(err, &ae) && ae.Status == http.StatusTooManyRequests:
			wait := max(ae.RetryAfter, time.Second)
			fmt.Fprintf(errOut, "%sthe API key's limit is reached: waiting %s\n", map[bool]string{true: "\n"}[o.f.IO.ErrTTY], wait)
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return ctx.Err()
			}
			continue // the same event again
		case errors.As(err, &ae) && (ae.Status == http.StatusConflict || ae.Status == http.StatusForbidden || ae.Status == http.StatusUnauthorized ||
			(ae.Status == http.StatusBadRequest && ae.Failures == nil && in.WebhookID != nil)):
			progress(true)
			return err // the destination or the key refuses every one: stop
		default:
			sum.Failed++
			sum.Errors = append(sum.Errors, resendFailure{EventID: e.ID, Error: cmdutil.OneLine(err.Error())})
		}
		i++
		progress(false)
		if i < len(all) {
			select {
			case <-tick.C:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	progress(true)
	p := o.f.Printer()
	if p.JSON {
		if err := p.Fields(sum, nil); err != nil {
			return err
		}
	} else {
		switch {
		case sum.Total == 0:
			fmt.Fprintf(o.f.IO.Out, "No events since %s%s.\n", o.Since, typesText(o.Types))
		default:
			fmt.Fprintf(o.f.IO.Out, "Resent %d of %d events since %s%s, oldest first, to webhook %s (timbra webhooks deliveries %s).\n",
				sum.Resent, sum.Total, o.Since, typesText(o.Types), sum.WebhookID, sum.WebhookID)
			for _, f := range sum.Errors {
				fmt.Fprintf(o.f.IO.Out, "  %s: %s\n", f.EventID, f.Error)
			}
		}
	}
	if sum.Failed > 0 {
		return fmt.Errorf("%d of %d resends failed", sum.Failed, sum.Total)
	}
	return nil
}

func typesText(types []string) string {
	if len(types) == 0 {
		return ""
	}
	return " of " + strings.Join(types, ", ")
}
