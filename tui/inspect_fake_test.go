package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/timbra-mx/timbra/internal/api"
)

// fakeAPI answers the inspector from memory, records what it was asked, and fails a method
// when told to. It is safe for the goroutines of teatest.
type fakeAPI struct {
	mu         sync.Mutex
	hooks      []api.Webhook
	deliveries map[string][]api.Delivery // per webhook, newest first
	events     map[string]json.RawMessage
	queues     map[string]api.WebhookQueue // answered as set; else counted from the deliveries
	fail       map[string]error            // by method name
	calls      []string
	queries    []api.DeliveryQuery
	resends    []string // eventId→webhookId
	replaced   []api.WebhookUpdate
	next       int // for new ids
}

func str(s string) *string { return &s }

func newFakeAPI() *fakeAPI {
	f := &fakeAPI{deliveries: map[string][]api.Delivery{}, events: map[string]json.RawMessage{}, queues: map[string]api.WebhookQueue{},
		fail: map[string]error{}}
	f.hooks = []api.Webhook{
		{ID: "wh-1", Kind: "url", URL: str("https://shop.example/hooks"), EnabledEvents: []string{"*"}, Status: "enabled",
			FailingSince: str("2025-03-10T09:30:00.000Z"), CreatedAt: "2025-03-01T10:00:00.000Z", UpdatedAt: "2025-03-01T10:00:00.000Z",
			Description: "shop"},
		{ID: "wh-2", Kind: "url", URL: str("https://erp.example/in"), EnabledEvents: []string{"invoice.canceled", "invoice.stamped"},
			PersonIDs: []string{"p-1"}, Status: "disabled", DisabledReason: str("failingTooLong"), DisabledAt: str("2025-03-09T08:00:00.000Z"),
			CreatedAt: "2025-03-02T10:00:00.000Z", UpdatedAt: "2025-03-09T08:00:00.000Z"},
		{ID: "wh-3", Kind: "cliListener", EnabledEvents: []string{"*"}, Status: "enabled", ListenerPersonID: str("p-2"),
			CreatedAt: "2025-03-03T10:00:00.000Z", UpdatedAt: "2025-03-03T10:00:00.000Z"},
	}
	f.addEvent("evt-1", "invoice.canceled", "inv-42")
	f.addEvent("evt-2", "invoice.stamped", "inv-43")
	f.addEvent("evt-3", "invoice.canceled", "inv-42")
	f.deliveries["wh-1"] = []api.Delivery{
		delivery("dlv-3", "wh-1", "evt-3", "invoice.canceled", "automatic", "failed", 5, code(500), nil, "12:03:00"),
		delivery("dlv-2", "wh-1", "evt-2", "invoice.stamped", "automatic", "succeeded", 1, code(200), nil, "12:02:00"),
		delivery("dlv-1", "wh-1", "evt-1", "invoice.canceled", "manual", "failed", 1, nil, str("ConnectionFailed"), "12:01:00"),
	}
	return f
}

func (f *fakeAPI) addEvent(id, typ, related string) {
	f.events[id] = json.RawMessage(`{"id":"` + id + `","type":"` + typ + `","createdAt":"2025-03-10T12:00:00.000Z","personId":null,` +
		`"data":{"relatedObject":{"id":"` + related + `","type":"invoice","url":"/api/v4/invoices/` + related + `"},"status":"Cancelado","previousStatus":"Vigente"}}`)
}

func delivery(id, hook, event, typ, kind, status string, attempts int, code *int, errText *string, at string) api.Delivery {
	d := api.Delivery{ID: id, WebhookID: hook, EventID: event, EventType: typ, Kind: kind, Status: status, Attempts: attempts,
		LastStatusCode: code, LastError: errText, CreatedAt: "2025-03-10T" + at + ".000Z", History: []api.Attempt{}}
	if code != nil && *code >= 300 {
		d.LastResponseExcerpt = `{"error":"boom"}`
	}
	for i := range attempts {
		d.History = append(d.History, api.Attempt{At: fmt.Sprintf("2025-03-10T%s.%03dZ", at, 250+i), StatusCode: code, Error: errText, DurationMS: 120})
	}
	return d
}

func (f *fakeAPI) record(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name)
	return f.fail[name]
}

func (f *fakeAPI) count(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if c == name {
			n++
		}
	}
	return n
}

func (f *fakeAPI) lastQuery() api.DeliveryQuery {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[len(f.queries)-1]
}

func notFound(id string) error {
	return &api.Error{Status: http.StatusNotFound, Details: "No such resource for the given Id: " + id}
}

func (f *fakeAPI) ListWebhooks(_ context.Context, page, size int) (api.PagedList[api.Webhook], error) {
	if err := f.record("ListWebhooks"); err != nil {
		return api.PagedList[api.Webhook]{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	from := min((page-1)*size, len(f.hooks))
	return api.NewPage(slices.Clone(f.hooks[from:min(from+size, len(f.hooks))]), page, size, len(f.hooks)), nil
}

func (f *fakeAPI) GetWebhook(_ context.Context, id string) (api.Webhook, error) {
	if err := f.record("GetWebhook"); err != nil {
		return api.Webhook{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.hooks {
		if w.ID == id {
			return w, nil
		}
	}
	return api.Webhook{}, notFound(id)
}

// fakeNow is the fake server's clock, for the age of the oldest pending delivery.
var fakeNow = time.Date(2025, 3, 10, 12, 11, 12, 0, time.UTC)

func (f *fakeAPI) WebhookQueue(_ context.Context, id string) (api.WebhookQueue, error) {
	if err := f.record("WebhookQueue"); err != nil {
		return api.WebhookQueue{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.ContainsFunc(f.hooks, func(w api.Webhook) bool { return w.ID == id }) {
		return api.WebhookQueue{}, notFound(id)
	}
	if q, ok := f.queues[id]; ok {
		return q, nil
	}
	q := api.WebhookQueue{WebhookID: id, Concurrency: 8}
	for _, d := range f.deliveries[id] { // newest first: the last pending is the oldest
		if d.Status == "pending" {
			q.Pending++
			q.OldestPendingAt = str(d.CreatedAt)
		}
	}
	if q.OldestPendingAt != nil {
		if t, err := time.Parse(time.RFC3339Nano, *q.OldestPendingAt); err == nil {
			q.OldestPendingAgeSeconds = fakeNow.Sub(t).Seconds()
		}
	}
	return q, nil
}

func (f *fakeAPI) ReplaceWebhook(_ context.Context, id string, in api.WebhookUpdate) (api.Webhook, error) {
	if err := f.record("ReplaceWebhook"); err != nil {
		return api.Webhook{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.replaced = append(f.replaced, in)
	for i, w := range f.hooks {
		if w.ID == id {
			if in.Status != nil {
				w.Status = *in.Status
				w.DisabledReason = nil
				if w.Status == "disabled" {
					w.DisabledReason = str("manual")
				}
			}
			f.hooks[i] = w
			return w, nil
		}
	}
	return api.Webhook{}, notFound(id)
}

func (f *fakeAPI) TestWebhook(_ context.Context, id string) (api.WebhookTested, error) {
	if err := f.record("TestWebhook"); err != nil {
		return api.WebhookTested{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	ev, dlv := fmt.Sprintf("evt-test-%d", f.next), fmt.Sprintf("dlv-test-%d", f.next)
	f.addEvent(ev, "webhook.test", id)
	f.deliveries[id] = append([]api.Delivery{delivery(dlv, id, ev, "webhook.test", "test", "pending", 0, nil, nil, "12:10:00")}, f.deliveries[id]...)
	return api.WebhookTested{EventID: ev, DeliveryID: dlv}, nil
}

func (f *fakeAPI) RotateWebhookSecret(_ context.Context, id string) (api.Webhook, error) {
	if err := f.record("RotateWebhookSecret"); err != nil {
		return api.Webhook{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, w := range f.hooks {
		if w.ID == id {
			w.Secret = "whsec_NEWSECRETNEWSECRETNEWSECRETNEWSECRETNEWSE="
			return w, nil
		}
	}
	return api.Webhook{}, notFound(id)
}

func (f *fakeAPI) LoadDeliveries(_ context.Context, webhookID string, q api.DeliveryQuery) (api.DeliveryPage, error) {
	if err := f.record("LoadDeliveries"); err != nil {
		return api.DeliveryPage{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	var match []api.Delivery
	for _, d := range f.deliveries[webhookID] {
		if (q.ID == "" || d.ID == q.ID) && (q.Status == "" || d.Status == q.Status) &&
			(q.EventType == "" || d.EventType == q.EventType) && (q.EventIDs == nil || slices.Contains(q.EventIDs, d.EventID)) {
			match = append(match, d)
		}
	}
	from := min(q.Skip, len(match))
	to := len(match)
	if q.Take > 0 {
		to = min(from+q.Take, len(match))
	}
	return api.DeliveryPage{Data: slices.Clone(match[from:to]), TotalCount: len(match)}, nil
}

func (f *fakeAPI) GetEvent(_ context.Context, id string) (json.RawMessage, error) {
	if err := f.record("GetEvent"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if raw, ok := f.events[id]; ok {
		return raw, nil
	}
	return nil, notFound(id)
}

func (f *fakeAPI) ListEvents(_ context.Context, q api.EventQuery) (api.PagedList[json.RawMessage], error) {
	if err := f.record("ListEvents"); err != nil {
		return api.PagedList[json.RawMessage]{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []json.RawMessage
	ids := make([]string, 0, len(f.events))
	for id := range f.events {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	slices.Reverse(ids) // newest first
	for _, id := range ids {
		if strings.Contains(string(f.events[id]), `"relatedObject":{"id":"`+q.RelatedObjectID+`"`) {
			out = append(out, f.events[id])
		}
	}
	return api.NewPage(out, 1, 50, len(out)), nil
}

func (f *fakeAPI) ResendEvent(_ context.Context, id string, in api.EventResend) (api.EventResent, error) {
	if err := f.record("ResendEvent"); err != nil {
		return api.EventResent{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	hook := ""
	if in.WebhookID != nil {
		hook = *in.WebhookID
	}
	f.resends = append(f.resends, id+"→"+hook)
	f.next++
	dlv := fmt.Sprintf("dlv-new-%d", f.next)
	typ := "invoice.canceled"
	f.deliveries[hook] = append([]api.Delivery{delivery(dlv, hook, id, typ, "manual", "pending", 0, nil, nil, "12:10:00")}, f.deliveries[hook]...)
	return api.EventResent{DeliveryID: dlv, WebhookID: hook}, nil
}

// settle marks a webhook's pending deliveries failed, as the engine would after an attempt.
func (f *fakeAPI) settle(hook string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, d := range f.deliveries[hook] {
		if d.Status == "pending" {
			f.deliveries[hook][i] = delivery(d.ID, hook, d.EventID, d.EventType, d.Kind, "failed", 1, code(500), nil, "12:10:01")
		}
	}
}

// tickScheduled stands for a refresh tick: the driver counts it instead of waiting for it.
type tickScheduled struct{}

// driver feeds an InspectModel messages as bubbletea would, running the commands it returns
// (synchronously, against the fake) and feeding back their messages; ticks are only counted.
type driver struct {
	t     *testing.T
	m     InspectModel
	ticks int
	quit  bool
}

func newDriver(t *testing.T, f *fakeAPI, change func(*InspectOptions)) *driver {
	t.Helper()
	o := InspectOptions{API: f, BaseURL: "http://127.0.0.1:8080", Location: time.UTC}
	if change != nil {
		change(&o)
	}
	m := NewInspect(o)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd {
		return func() tea.Msg { return tickScheduled{} }
	}
	d := &driver{t: t, m: m}
	d.feed(tea.WindowSizeMsg{Width: 160, Height: 40})
	d.runAll(m.Init())
	return d
}

// send applies messages one by one, each with every message its commands lead to.
func (d *driver) send(msgs ...tea.Msg) *driver {
	d.t.Helper()
	for _, msg := range msgs {
		d.feed(msg)
	}
	return d
}

// keys sends key presses: runes, or the names enter, esc, up, down, end, home, pgdown, ctrl+c.
func (d *driver) keys(ks ...string) *driver {
	d.t.Helper()
	for _, k := range ks {
		d.feed(inspectKey(k))
	}
	return d
}

func (d *driver) feed(msg tea.Msg) {
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		next, cmd := d.m.Update(queue[0])
		d.m = next.(InspectModel)
		queue = append(queue[1:], d.run(cmd)...)
	}
}

func (d *driver) runAll(cmd tea.Cmd) {
	for _, msg := range d.run(cmd) {
		d.feed(msg)
	}
}

func (d *driver) run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, d.run(c)...)
		}
		return out
	case tickScheduled:
		d.ticks++
		return nil
	case tea.QuitMsg:
		d.quit = true
		return nil
	default:
		return []tea.Msg{msg}
	}
}

func (d *driver) view() string { return d.m.View() }

func (d *driver) wantView(subs ...string) {
	d.t.Helper()
	v := d.view()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			d.t.Errorf("the view lacks %q:\n%s", s, v)
		}
	}
}

// inspectKey is the key message of a key name, or of runes.
func inspectKey(k string) tea.KeyMsg {
	names := map[string]tea.KeyType{"enter": tea.KeyEnter, "esc": tea.KeyEsc, "up": tea.KeyUp, "down": tea.KeyDown,
		"end": tea.KeyEnd, "home": tea.KeyHome, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "ctrl+c": tea.KeyCtrlC,
		"ctrl+r": tea.KeyCtrlR, "backspace": tea.KeyBackspace, "space": tea.KeySpace}
	if t, ok := names[k]; ok {
		if t == tea.KeySpace {
			return tea.KeyMsg{Type: t, Runes: []rune{' '}}
		}
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// busyQueue is a queue of wh-1 with deliveries waiting and a recent error.
func busyQueue() api.WebhookQueue {
	return api.WebhookQueue{WebhookID: "wh-1", Pending: 3, InFlight: 2, Concurrency: 8,
		OldestPendingAt: str("2025-03-10T12:10:00.000Z"), OldestPendingAgeSeconds: 72.4,
		LastAttemptAt: str("2025-03-10T12:10:30.000Z"), LastError: str("Timeout"), LastErrorAt: str("2025-03-10T12:09:30.000Z")}
}
