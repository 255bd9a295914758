package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/timbra-mx/timbra/internal/api"
)

// InspectAPI is what the deliveries inspector asks of the API. *api.Client has these methods;
// tests give a fake. The server decides what the caller may see: the inspector shows what the
// API answers.
type InspectAPI interface {
	ListWebhooks(ctx context.Context, page, size int) (api.PagedList[api.Webhook], error)
	GetWebhook(ctx context.Context, id string) (api.Webhook, error)
	WebhookQueue(ctx context.Context, id string) (api.WebhookQueue, error)
	ReplaceWebhook(ctx context.Context, id string, in api.WebhookUpdate) (api.Webhook, error)
	TestWebhook(ctx context.Context, id string) (api.WebhookTested, error)
	RotateWebhookSecret(ctx context.Context, id string) (api.Webhook, error)
	LoadDeliveries(ctx context.Context, webhookID string, q api.DeliveryQuery) (api.DeliveryPage, error)
	GetEvent(ctx context.Context, id string) (json.RawMessage, error)
	ListEvents(ctx context.Context, q api.EventQuery) (api.PagedList[json.RawMessage], error)
	ResendEvent(ctx context.Context, id string, in api.EventResend) (api.EventResent, error)
}

// Webhook values of the API (spec 3 §2.2).
const (
	webhookEnabled  = "enabled"
	webhookDisabled = "disabled"
	kindListener    = "cliListener"
)

// Messages the inspector's commands answer. seq ties an answer to the load that asked for it:
// an answer to a load since replaced (a refresh, another webhook, another filter) is dropped.
type (
	webhooksMsg struct {
		seq, page int
		list      api.PagedList[api.Webhook]
		err       error
	}
	deliveriesMsg struct {
		seq       int
		webhookID string
		skip      int
		page      api.DeliveryPage
		err       error
	}
	// startMsg is the webhook named on the command line, read at the start.
	startMsg struct {
		webhook api.Webhook
		err     error
	}
	// webhookMsg is a fresh read of one webhook (its status and health for a header).
	webhookMsg struct {
		webhook api.Webhook
		err     error
	}
	// queueMsg is a read of a webhook's queue, for the header of its deliveries.
	queueMsg struct {
		seq       int
		webhookID string
		queue     api.WebhookQueue
		err       error
	}
	// deliveryMsg is a fresh read of the delivery shown.
	deliveryMsg struct {
		seq   int
		id    string
		d     api.Delivery
		found bool
		err   error
	}
	eventMsg struct {
		id  string
		raw json.RawMessage
		err error
	}
	// actionMsg is the outcome of a resend, a test or an enable/disable.
	actionMsg struct {
		text      string
		err       error
		failed    string       // what failed, before the API's failures
		webhook   *api.Webhook // the webhook as it is now, when the action changed it
		webhookID string       // whose deliveries to reload; "" for none
	}
	rotatedMsg struct {
		webhook api.Webhook // with its new secret
		err     error
	}
	jumpMsg struct {
		filter  eventFilter
		matches map[string]int // deliveries found per webhook, when asked from the webhooks screen
		err     error
	}
	// refreshTickMsg asks for a quiet refresh while deliveries are pending.
	refreshTickMsg struct{}
)

// eventFilter narrows deliveries to some events: one event, or the events about one object.
type eventFilter struct {
	label string // what was asked, as shown: "event 0195…", "object inv-42 (3 events)"
	ids   []string
}

// deliveryFilter is the filter of the deliveries screen.
type deliveryFilter struct {
	status    string
	eventType string
	events    eventFilter
}

func (f deliveryFilter) active() bool {
	return f.status != "" || f.eventType != "" || len(f.events.ids) > 0
}

func (f deliveryFilter) query(skip, take int) api.DeliveryQuery {
	return api.DeliveryQuery{Status: f.status, EventType: f.eventType, EventIDs: f.events.ids, Skip: skip, Take: take}
}

// input is the filter as typed in the filter prompt.
func (f deliveryFilter) input() string {
	return strings.TrimSpace(f.status + " " + f.eventType)
}

func (f deliveryFilter) text() string {
	var parts []string
	if f.status != "" {
		parts = append(parts, "status "+f.status)
	}
	if f.eventType != "" {
		parts = append(parts, "type "+f.eventType)
	}
	if f.events.label != "" {
		parts = append(parts, f.events.label)
	}
	return strings.Join(parts, " · ")
}

// parseFilter reads the filter prompt: a delivery status (pending, succeeded, failed) and an
// event type, in any order, also written status:failed and type:invoice.canceled. Empty clears.
func parseFilter(s string) (status, eventType string, err error) {
	for _, w := range strings.Fields(s) {
		name, value, named := strings.Cut(w, ":")
		if !named {
			name, value = "", w
		}
		switch strings.ToLower(name) {
		case "":
			switch v := strings.ToLower(value); v {
			case api.DeliveryPending, api.DeliverySucceeded, api.DeliveryFailed:
				status = v
				continue
			}
			fallthrough
		case "type":
			if eventType != "" {
				return "", "", fmt.Errorf("one event type at a time (%s, %s)", eventType, value)
			}
			eventType = value
		case "status":
			switch v := strings.ToLower(value); v {
			case api.DeliveryPending, api.DeliverySucceeded, api.DeliveryFailed:
				status = v
			default:
				return "", "", fmt.Errorf("unknown status %q: use pending, succeeded or failed", value)
			}
		default:
			return "", "", fmt.Errorf("unknown filter %q: use status:STATUS or type:TYPE", name)
		}
	}
	return status, eventType, nil
}

// The commands below call the API outside Update; each captures values, never the model.

func (m InspectModel) loadWebhooks(seq, page int) tea.Cmd {
	a, ctx, size := m.opts.API, m.ctx, m.opts.PageSize
	return func() tea.Msg {
		list, err := a.ListWebhooks(ctx, page, size)
		return webhooksMsg{seq: seq, page: page, list: list, err: err}
	}
}

func (m InspectModel) loadStart(id string) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		w, err := a.GetWebhook(ctx, id)
		return startMsg{webhook: w, err: err}
	}
}

func (m InspectModel) reloadWebhook(id string) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		w, err := a.GetWebhook(ctx, id)
		return webhookMsg{webhook: w, err: err}
	}
}

func (m InspectModel) loadQueue(seq int, id string) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		q, err := a.WebhookQueue(ctx, id)
		return queueMsg{seq: seq, webhookID: id, queue: q, err: err}
	}
}

func (m InspectModel) loadDeliveries(seq int, webhookID string, q api.DeliveryQuery) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		page, err := a.LoadDeliveries(ctx, webhookID, q)
		return deliveriesMsg{seq: seq, webhookID: webhookID, skip: q.Skip, page: page, err: err}
	}
}

func (m InspectModel) loadDelivery(seq int, webhookID, id string) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		page, err := a.LoadDeliveries(ctx, webhookID, api.DeliveryQuery{ID: id, Take: 1})
		msg := deliveryMsg{seq: seq, id: id, err: err}
		if err == nil && len(page.Data) > 0 {
			msg.d, msg.found = page.Data[0], true
		}
		return msg
	}
}

func (m InspectModel) loadEvent(id string) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		raw, err := a.GetEvent(ctx, id)
		return eventMsg{id: id, raw: raw, err: err}
	}
}

func (m InspectModel) resendCmd(d api.Delivery, w api.Webhook) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	eventID, hookID, target := d.EventID, w.ID, webhookTarget(w)
	return func() tea.Msg {
		res, err := a.ResendEvent(ctx, eventID, api.EventResend{WebhookID: &hookID})
		if err != nil {
			return actionMsg{err: err, failed: "Resend of event " + eventID + " failed"}
		}
		return actionMsg{text: fmt.Sprintf("Resent event %s to %s: new delivery %s.", eventID, target, res.DeliveryID), webhookID: hookID}
	}
}

func (m InspectModel) testCmd(w api.Webhook) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	hookID, target := w.ID, webhookTarget(w)
	return func() tea.Msg {
		res, err := a.TestWebhook(ctx, hookID)
		if err != nil {
			return actionMsg{err: err, failed: "Test of " + target + " failed"}
		}
		return actionMsg{text: fmt.Sprintf("Sent test event %s to %s: delivery %s.", res.EventID, target, res.DeliveryID), webhookID: hookID}
	}
}

// toggleCmd enables a disabled webhook or disables an enabled one. The API's PUT replaces the
// whole webhook, so the command reads it first and sends it back with the new status.
func (m InspectModel) toggleCmd(w api.Webhook) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	hookID, target := w.ID, webhookTarget(w)
	want := webhookDisabled
	if w.Status == webhookDisabled {
		want = webhookEnabled
	}
	return func() tea.Msg {
		failed := "Could not " + strings.TrimSuffix(want, "d") + " " + target
		cur, err := a.GetWebhook(ctx, hookID)
		if err != nil {
			return actionMsg{err: err, failed: failed}
		}
		id, desc := cur.ID, cur.Description
		out, err := a.ReplaceWebhook(ctx, hookID, api.WebhookUpdate{ID: &id, URL: cur.URL, Description: &desc,
			EnabledEvents: cur.EnabledEvents, PersonIDs: cur.PersonIDs, Status: &want})
		if err != nil {
			return actionMsg{err: err, failed: failed}
		}
		return actionMsg{text: fmt.Sprintf("%s is now %s.", target, out.Status), webhook: &out, webhookID: hookID}
	}
}

func (m InspectModel) rotateCmd(w api.Webhook) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	hookID := w.ID
	return func() tea.Msg {
		out, err := a.RotateWebhookSecret(ctx, hookID)
		return rotatedMsg{webhook: out, err: err}
	}
}

// jumpCmd finds the events an id names: the event itself, or else the events about the object
// of that id (first 50, newest first). From the webhooks screen (hooks given) it also counts the
// deliveries of those events to each webhook listed.
func (m InspectModel) jumpCmd(q string, hooks []api.Webhook) tea.Cmd {
	a, ctx := m.opts.API, m.ctx
	return func() tea.Msg {
		f, err := resolveJump(ctx, a, q)
		if err != nil {
			return jumpMsg{err: err}
		}
		msg := jumpMsg{filter: f}
		if hooks != nil {
			msg.matches = map[string]int{}
			for _, w := range hooks {
				page, err := a.LoadDeliveries(ctx, w.ID, api.DeliveryQuery{EventIDs: f.ids, Take: 1})
				if err != nil {
					return jumpMsg{err: err}
				}
				if page.TotalCount > 0 {
					msg.matches[w.ID] = page.TotalCount
				}
			}
		}
		return msg
	}
}

func resolveJump(ctx context.Context, a InspectAPI, q string) (eventFilter, error) {
	raw, err := a.GetEvent(ctx, q)
	if err == nil {
		var e struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &e) != nil || e.ID == "" {
			e.ID = q
		}
		return eventFilter{label: "event " + e.ID, ids: []string{e.ID}}, nil
	}
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		return eventFilter{}, err
	}
	list, err := a.ListEvents(ctx, api.EventQuery{RelatedObjectID: q, PageSize: 50})
	if err != nil {
		return eventFilter{}, err
	}
	var ids []string
	for _, raw := range list.Items {
		var e struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &e) == nil && e.ID != "" {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		return eventFilter{}, fmt.Errorf("no event %s, and no event about an object %s, in the last 30 days", q, q)
	}
	label := fmt.Sprintf("object %s (%d events)", q, len(ids))
	if len(ids) == 1 {
		label = fmt.Sprintf("object %s (1 event)", q)
	}
	return eventFilter{label: label, ids: ids}, nil
}

// errText is an error as the status line shows it: the API's failures as `property: message`.
func errText(err error) string {
	var ae *api.Error
	switch {
	case errors.As(err, &ae) && ae.Status == 0:
		return oneLine(ae.Details)
	case errors.As(err, &ae):
		return oneLine(strings.Join(ae.Lines(), "; "))
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	return oneLine(err.Error())
}

// webhookTarget is where a webhook delivers: its URL, or the person of a listener.
func webhookTarget(w api.Webhook) string {
	if w.Kind == kindListener || w.URL == nil {
		if w.ListenerPersonID != nil {
			return "listener of " + *w.ListenerPersonID
		}
		return "listener " + w.ID
	}
	return *w.URL
}

// *api.Client is what the command gives the inspector.
var _ InspectAPI = (*api.Client)(nil)
