package tui

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/timbra-mx/timbra/internal/api"
)

func TestInspectWebhooksScreen(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	if d.m.screen != screenWebhooks || len(d.m.hooks.items) != 3 || d.m.hooks.sel != 0 {
		t.Fatalf("screen %v, %d webhooks, selected %d", d.m.screen, len(d.m.hooks.items), d.m.hooks.sel)
	}
	d.wantView("https://shop.example/hooks", "2025-03-10 09:30:00", "disabled (failingTooLong)", "invoice.canceled,invoice.stamped",
		"p-1", "listener of p-2", "everyone", "times in UTC")
	d.keys("down", "j")
	if d.m.hooks.sel != 2 {
		t.Fatalf("selected %d after two downs, want 2", d.m.hooks.sel)
	}
	d.keys("down", "k")
	if d.m.hooks.sel != 1 {
		t.Fatalf("selected %d, want 1 (the end holds, k goes up)", d.m.hooks.sel)
	}
	d.keys("r")
	if d.m.status.text != "Open a webhook (enter) and pick the delivery to resend." {
		t.Fatalf("status %q", d.m.status.text)
	}
}

func TestInspectOpenDeliveriesAndOneDelivery(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	d.keys("enter")
	if d.m.screen != screenDeliveries || d.m.dlv.hook.ID != "wh-1" || len(d.m.dlv.items) != 3 || d.m.dlv.total != 3 {
		t.Fatalf("screen %v, webhook %q, %d of %d deliveries", d.m.screen, d.m.dlv.hook.ID, len(d.m.dlv.items), d.m.dlv.total)
	}
	if q := f.lastQuery(); q.Skip != 0 || q.Take != DefaultInspectPageSize || q.Status != "" {
		t.Fatalf("first read %+v", q)
	}
	d.wantView("Webhooks › https://shop.example/hooks", "failing since 2025-03-10 09:30:00", "3 of 3 deliveries",
		"2025-03-10 12:03:00", "ConnectionFailed", "evt-3")
	// newest first; open the second
	d.keys("j", "enter")
	if d.m.screen != screenDelivery || d.m.detail.d.ID != "dlv-2" {
		t.Fatalf("screen %v, delivery %q", d.m.screen, d.m.detail.d.ID)
	}
	d.keys("esc", "enter") // the oldest: failed, connection refused
	d.keys("esc", "j", "enter")
	if d.m.detail.d.ID != "dlv-1" {
		t.Fatalf("delivery %q, want dlv-1", d.m.detail.d.ID)
	}
	d.keys("esc", "k", "k", "enter") // the newest: 500 after 5 attempts
	d.wantView("Status    failed · 5 attempts · kind automatic", "Last      500 Internal Server Error",
		"webhook-id: evt-3", "webhook-timestamp: 1741608180", "webhook-signature: v1,…", "user-agent: timbra-webhooks/1",
		`{"error":"boom"}`, "Attempts (5)", "2025-03-10 12:03:00  500 Internal Server Error", "120 ms",
		`"id": "inv-42"`, "GET /api/v4/events/evt-3")
	if n := f.count("GetEvent"); n != 3 {
		t.Fatalf("%d event reads for three events", n)
	}
	// back twice reaches the webhooks; the event read is kept
	d.keys("esc", "enter")
	if n := f.count("GetEvent"); n != 3 {
		t.Fatalf("the event was read again (%d reads)", n)
	}
	d.keys("esc", "esc")
	if d.m.screen != screenWebhooks {
		t.Fatalf("screen %v after esc, esc", d.m.screen)
	}
}

func TestInspectQueueInTheHeader(t *testing.T) {
	f := newFakeAPI()
	f.queues["wh-1"] = busyQueue()
	d := newDriver(t, f, nil)
	d.keys("enter")
	d.wantView("Queue     3 pending · 2 of 8 in flight · oldest 1m12s · last error Timeout at 2025-03-10 12:09:30",
		"3 of 3 deliveries")
	if n := f.count("WebhookQueue"); n != 1 {
		t.Fatalf("%d queue reads on opening the webhook", n)
	}
	// deliveries pending in the queue keep the view refreshing, though none shows in the list;
	// each refresh reads the queue with the webhook
	if d.ticks != 1 {
		t.Fatalf("%d ticks with 3 deliveries pending in the queue", d.ticks)
	}
	f.queues["wh-1"] = api.WebhookQueue{WebhookID: "wh-1", Concurrency: 8, LastStatusCode: code(500),
		LastError: str("HTTP 500"), LastErrorAt: str("2025-03-10T12:11:00.000Z")}
	d.send(refreshTickMsg{})
	if f.count("WebhookQueue") != 2 || f.count("GetWebhook") != 1 || d.ticks != 1 {
		t.Fatalf("%d queue reads, %d webhook reads, %d ticks", f.count("WebhookQueue"), f.count("GetWebhook"), d.ticks)
	}
	d.wantView("Queue     empty · last error HTTP 500 at 2025-03-10 12:11:00")

	// one line, cut to the width like the others
	d.send(tea.WindowSizeMsg{Width: 40, Height: 40})
	var line string
	for _, l := range strings.Split(d.view(), "\n") {
		if strings.HasPrefix(l, "Queue") {
			line = l
		}
	}
	if line != "Queue     empty · last error HTTP 500 a…" {
		t.Fatalf("queue line %q at width 40", line)
	}
	d.send(tea.WindowSizeMsg{Width: 160, Height: 40})

	// a queue that cannot be read leaves a short note; the deliveries show and the status line
	// stays quiet
	f.fail["WebhookQueue"] = &api.Error{Status: http.StatusNotFound, Details: "No such resource for the given Id: wh-1"}
	d.keys("R")
	d.wantView("Queue     not available (404: No such resource for the given Id: wh-1)", "3 of 3 deliveries", "evt-3")
	if d.m.status.text != "" || d.m.screen != screenDeliveries {
		t.Fatalf("status %+v, screen %v", d.m.status, d.m.screen)
	}
	delete(f.fail, "WebhookQueue")

	// the delivery screen's refresh reads it too, for the way back
	f.queues["wh-1"] = busyQueue()
	d.keys("enter", "R", "esc")
	if n := f.count("WebhookQueue"); n != 4 {
		t.Fatalf("%d queue reads", n)
	}
	d.wantView("Queue     3 pending · 2 of 8 in flight")

	// another webhook: its own queue; late answers, about the first or to an older read, are dropped
	old := d.m.queue.seq
	d.keys("esc", "j", "enter")
	d.send(queueMsg{seq: old, webhookID: "wh-1", queue: busyQueue()}, queueMsg{seq: old, webhookID: "wh-2", queue: busyQueue()})
	if d.m.queue.webhookID != "wh-2" || d.m.queue.q.Pending != 0 || !d.m.queue.loaded {
		t.Fatalf("queue %+v", d.m.queue)
	}
	d.wantView("Webhooks › https://erp.example/in", "Queue     empty")
}

func TestInspectResendConfirmYes(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	d.keys("enter", "r")
	if d.m.prompt == nil || d.m.prompt.kind != promptConfirm || f.count("ResendEvent") != 0 {
		t.Fatalf("r did not ask first (prompt %v, %d resends)", d.m.prompt, f.count("ResendEvent"))
	}
	d.wantView("Resend event evt-3 (invoice.canceled) to https://shop.example/hooks? One new signed attempt, no retries. [y/n]")
	reads := f.count("LoadDeliveries")
	d.keys("y")
	if !slices.Equal(f.resends, []string{"evt-3→wh-1"}) {
		t.Fatalf("resends %v", f.resends)
	}
	if d.m.status.err || !strings.HasPrefix(d.m.status.text, "Resent event evt-3 to https://shop.example/hooks: new delivery dlv-new-") {
		t.Fatalf("status %+v", d.m.status)
	}
	// the list is read again: the new delivery on top, the cursor still on the one resent
	if f.count("LoadDeliveries") != reads+1 || len(d.m.dlv.items) != 4 || d.m.dlv.items[0].Status != "pending" {
		t.Fatalf("after the resend: %d reads, items %+v", f.count("LoadDeliveries")-reads, d.m.dlv.items)
	}
	if cur, _ := d.m.currentDelivery(); cur.ID != "dlv-3" {
		t.Fatalf("cursor on %q, want dlv-3", cur.ID)
	}
	if d.ticks != 1 {
		t.Fatalf("%d refresh ticks while a delivery is pending, want 1", d.ticks)
	}
}

func TestInspectResendConfirmNo(t *testing.T) {
	for _, no := range []string{"n", "esc"} {
		f := newFakeAPI()
		d := newDriver(t, f, nil)
		d.keys("enter", "enter", "r") // from the delivery screen
		d.wantView("Resend event evt-3")
		d.keys("x", "q") // other keys do nothing while the question waits
		if d.quit || d.m.prompt == nil {
			t.Fatalf("%s: a key other than y or n answered the question", no)
		}
		d.keys(no)
		if d.m.prompt != nil || f.count("ResendEvent") != 0 || d.m.status.text != "Cancelled." {
			t.Fatalf("%s: prompt %v, %d resends, status %q", no, d.m.prompt, f.count("ResendEvent"), d.m.status.text)
		}
		if d.m.screen != screenDelivery {
			t.Fatalf("%s: screen %v", no, d.m.screen)
		}
	}
}

func TestInspectFilter(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	d.keys("enter", "/", "failed inv", "backspace", "backspace", "backspace", "type:invoice.canceled")
	d.wantView("Filter (status and/or event type", "failed type:invoice.canceled█")
	d.keys("enter")
	if q := f.lastQuery(); q.Status != "failed" || q.EventType != "invoice.canceled" || q.Skip != 0 {
		t.Fatalf("filtered read %+v", q)
	}
	if len(d.m.dlv.items) != 2 || d.m.dlv.items[0].ID != "dlv-3" || d.m.dlv.items[1].ID != "dlv-1" {
		t.Fatalf("filtered items %+v", d.m.dlv.items)
	}
	d.wantView("Filter    status failed · type invoice.canceled  (esc clears)", "2 of 2 deliveries")

	// the prompt starts from the filter; a wrong word is said in place, the filter stays
	d.keys("/")
	if got := d.m.prompt.text(); got != "failed invoice.canceled" {
		t.Fatalf("prompt starts with %q", got)
	}
	d.keys("space", "status:lost", "enter")
	if !d.m.status.err || d.m.status.text != `Filter: unknown status "lost": use pending, succeeded or failed` || d.m.filter.status != "failed" {
		t.Fatalf("status %+v, filter %+v", d.m.status, d.m.filter)
	}
	d.wantView(`✗ Filter: unknown status "lost"`)

	// esc clears the filter first, then goes back
	d.keys("esc")
	if d.m.screen != screenDeliveries || d.m.filter.active() || len(d.m.dlv.items) != 3 || f.lastQuery().Status != "" {
		t.Fatalf("after esc: screen %v, filter %+v, %d items", d.m.screen, d.m.filter, len(d.m.dlv.items))
	}
	d.keys("esc")
	if d.m.screen != screenWebhooks {
		t.Fatalf("screen %v after the second esc", d.m.screen)
	}
}

func TestParseFilter(t *testing.T) {
	for _, c := range []struct{ in, status, typ, err string }{
		{"", "", "", ""},
		{"failed", "failed", "", ""},
		{"Pending invoice.canceled", "pending", "invoice.canceled", ""},
		{"type:invoice.stamped status:succeeded", "succeeded", "invoice.stamped", ""},
		{"a.b c.d", "", "", "one event type at a time (a.b, c.d)"},
		{"status:x", "", "", `unknown status "x": use pending, succeeded or failed`},
		{"kind:manual", "", "", `unknown filter "kind": use status:STATUS or type:TYPE`},
	} {
		status, typ, err := parseFilter(c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if status != c.status || typ != c.typ || got != c.err {
			t.Errorf("parseFilter(%q) = %q, %q, %q; want %q, %q, %q", c.in, status, typ, got, c.status, c.typ, c.err)
		}
	}
}

func TestInspectErrorsShownInPlace(t *testing.T) {
	f := newFakeAPI()
	f.fail["ListWebhooks"] = &api.Error{Status: http.StatusTooManyRequests, Details: "Too Many Requests (Retry-After: 3s)"}
	d := newDriver(t, f, nil)
	d.wantView("✗ Could not read the webhooks: 429: Too Many Requests (Retry-After: 3s)")
	delete(f.fail, "ListWebhooks")
	d.keys("R")
	if d.m.status.text != "" || len(d.m.hooks.items) != 3 {
		t.Fatalf("after a refresh: status %+v, %d webhooks", d.m.status, len(d.m.hooks.items))
	}

	// a refused resend: the API's text, the view goes on
	f.fail["ResendEvent"] = &api.Error{Status: http.StatusBadRequest, Details: "El webhook está deshabilitado: habilítalo antes de reenviarle eventos."}
	d.keys("enter", "r", "y")
	d.wantView("✗ Resend of event evt-3 failed: 400: El webhook está deshabilitado: habilítalo antes de reenviarle eventos.", "3 of 3 deliveries")

	// validation failures are `property: message`
	f.fail["ReplaceWebhook"] = &api.Error{Status: http.StatusBadRequest, Failures: []api.Failure{{PropertyName: "Url", ErrorMessage: "La URL es obligatoria."}}}
	d.keys("e", "y")
	d.wantView("✗ Could not disable https://shop.example/hooks: Url: La URL es obligatoria.")

	// the server out of reach
	f.fail["LoadDeliveries"] = &api.Error{Details: "cannot reach http://127.0.0.1:8080: connection refused"}
	d.keys("ctrl+r")
	d.wantView("✗ Could not read the deliveries: cannot reach http://127.0.0.1:8080: connection refused", "3 of 3 deliveries")

	// an event that cannot be read shows its error where the envelope goes
	f.fail["GetEvent"] = errors.New("boom")
	d.keys("enter")
	d.wantView("Event  GET /api/v4/events/evt-3", "  boom")
}

func TestInspectPagingLoadsTheNextPage(t *testing.T) {
	f := newFakeAPI()
	var many []api.Delivery
	for i := 120; i >= 1; i-- {
		many = append(many, delivery(fmt.Sprintf("d-%03d", i), "wh-1", "evt-1", "invoice.canceled", "automatic", "succeeded", 1, code(200), nil, "11:00:00"))
	}
	f.deliveries["wh-1"] = many
	d := newDriver(t, f, nil)
	d.keys("enter")
	if len(d.m.dlv.items) != 50 || d.m.dlv.total != 120 {
		t.Fatalf("%d of %d read at first", len(d.m.dlv.items), d.m.dlv.total)
	}
	d.keys("down")
	if f.count("LoadDeliveries") != 1 {
		t.Fatal("moving inside the page read more")
	}
	d.keys("end") // the cursor reaches the end: the next page is read
	if len(d.m.dlv.items) != 100 || f.lastQuery().Skip != 50 || f.lastQuery().Take != 50 {
		t.Fatalf("%d read, last query %+v", len(d.m.dlv.items), f.lastQuery())
	}
	if d.m.dlv.sel != 49 {
		t.Fatalf("cursor at %d, want 49 (it stays where the page ended)", d.m.dlv.sel)
	}
	d.keys("end", "end")
	if len(d.m.dlv.items) != 120 || d.m.dlv.items[119].ID != "d-001" {
		t.Fatalf("%d read, last %q", len(d.m.dlv.items), d.m.dlv.items[len(d.m.dlv.items)-1].ID)
	}
	reads := f.count("LoadDeliveries")
	d.keys("end", "down", "pgdown")
	if f.count("LoadDeliveries") != reads {
		t.Fatal("read again past the last delivery")
	}
	d.wantView("120 of 120 deliveries", "> 2025-03-10 11:00:00")
	// a refresh reads as many as are shown, in one request
	d.keys("R")
	if q := f.lastQuery(); q.Skip != 0 || q.Take != 150 || len(d.m.dlv.items) != 120 || d.m.dlv.sel != 119 {
		t.Fatalf("refresh query %+v, %d items, cursor %d", q, len(d.m.dlv.items), d.m.dlv.sel)
	}

	// webhooks page the same way
	f2 := newFakeAPI()
	d2 := newDriver(t, f2, func(o *InspectOptions) { o.PageSize = 2 })
	if len(d2.m.hooks.items) != 2 || !d2.m.hooks.more {
		t.Fatalf("%d webhooks, more %v", len(d2.m.hooks.items), d2.m.hooks.more)
	}
	d2.keys("down")
	if len(d2.m.hooks.items) != 3 || d2.m.hooks.more || f2.count("ListWebhooks") != 2 {
		t.Fatalf("%d webhooks, more %v, %d reads", len(d2.m.hooks.items), d2.m.hooks.more, f2.count("ListWebhooks"))
	}
	d2.keys("down", "down")
	if f2.count("ListWebhooks") != 2 || d2.m.hooks.sel != 2 {
		t.Fatalf("%d reads, cursor %d", f2.count("ListWebhooks"), d2.m.hooks.sel)
	}
}

func TestInspectAutoRefreshWhilePending(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	d.keys("enter")
	if d.ticks != 0 {
		t.Fatalf("%d ticks with nothing pending", d.ticks)
	}
	d.keys("t", "y") // a test: a pending delivery on top
	if f.count("TestWebhook") != 1 || d.m.dlv.items[0].Status != "pending" || d.ticks != 1 {
		t.Fatalf("%d tests, first %+v, %d ticks", f.count("TestWebhook"), d.m.dlv.items[0], d.ticks)
	}
	// a tick while still pending reads again and asks for the next tick
	reads := f.count("LoadDeliveries")
	d.send(refreshTickMsg{})
	if f.count("LoadDeliveries") != reads+1 || d.ticks != 2 || d.m.status.text == "" {
		t.Fatalf("%d reads, %d ticks, status %q", f.count("LoadDeliveries")-reads, d.ticks, d.m.status.text)
	}
	// the delivery ends: the next tick reads it (and the queue), and no tick follows
	f.settle("wh-1")
	d.send(refreshTickMsg{})
	if d.m.dlv.items[0].Status != "failed" || d.m.queue.q.Pending != 0 || d.ticks != 2 {
		t.Fatalf("first %+v, queue %+v, %d ticks", d.m.dlv.items[0], d.m.queue.q, d.ticks)
	}
	// a tick that finds nothing pending (or another screen) reads nothing
	reads = f.count("LoadDeliveries")
	d.send(refreshTickMsg{})
	d.keys("esc")
	d.send(refreshTickMsg{})
	if f.count("LoadDeliveries") != reads || d.ticks != 2 {
		t.Fatalf("%d reads, %d ticks after the deliveries ended", f.count("LoadDeliveries")-reads, d.ticks)
	}
}

func TestInspectTickWhileBusyWaits(t *testing.T) {
	f := newFakeAPI()
	f.deliveries["wh-1"][0].Status = "pending"
	m := NewInspect(InspectOptions{API: f})
	var ticks int
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { ticks++; return func() tea.Msg { return nil } }
	next, _ := m.Update(webhooksMsg{page: 1, list: api.NewPage(f.hooks, 1, 50, 3)})
	next, cmd := next.(InspectModel).Update(inspectKey("enter"))
	m = next.(InspectModel)
	if !m.dlv.loading || cmd == nil {
		t.Fatal("enter did not read the deliveries")
	}
	for _, c := range cmd().(tea.BatchMsg) { // the deliveries and the queue
		next, _ = next.Update(c())
	}
	m = next.(InspectModel)
	if ticks != 1 || !m.ticking {
		t.Fatalf("%d ticks, ticking %v, with a pending delivery", ticks, m.ticking)
	}
	next, cmd = m.Update(inspectKey("R")) // a read on its way
	m = next.(InspectModel)
	if ticks != 1 || !m.busy() {
		t.Fatalf("%d ticks, busy %v", ticks, m.busy())
	}
	next, _ = m.Update(refreshTickMsg{}) // a tick while it is on its way waits for its answer
	m = next.(InspectModel)
	if ticks != 1 || m.ticking {
		t.Fatalf("a tick while busy asked for another (%d ticks)", ticks)
	}
	reads := cmd().(tea.BatchMsg) // the deliveries, the webhook, the queue
	next, _ = m.Update(reads[0]())
	m = next.(InspectModel)
	if ticks != 1 || m.ticking {
		t.Fatalf("the deliveries asked for a tick before the queue came (%d ticks)", ticks)
	}
	for _, c := range reads[1:] {
		next, _ = next.Update(c())
	}
	m = next.(InspectModel)
	if ticks != 2 || !m.ticking {
		t.Fatalf("the answers did not ask for the next tick (%d ticks)", ticks)
	}
}

func TestInspectEnableDisableTestRotate(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	// e on the first webhook: disable, with the full model sent back
	d.keys("e")
	d.wantView("Disable https://shop.example/hooks? Deliveries waiting for it are closed unsent. [y/n]")
	d.keys("y")
	if len(f.replaced) != 1 {
		t.Fatalf("%d PUTs", len(f.replaced))
	}
	in := f.replaced[0]
	if *in.ID != "wh-1" || *in.URL != "https://shop.example/hooks" || *in.Description != "shop" || *in.Status != "disabled" ||
		!slices.Equal(in.EnabledEvents, []string{"*"}) {
		t.Fatalf("PUT %+v", in)
	}
	if d.m.hooks.items[0].Status != "disabled" || d.m.status.text != "https://shop.example/hooks is now disabled." {
		t.Fatalf("webhook %+v, status %q", d.m.hooks.items[0], d.m.status.text)
	}
	d.wantView("disabled (manual)")
	d.keys("e", "y")
	if *f.replaced[1].Status != "enabled" || d.m.hooks.items[0].Status != "enabled" {
		t.Fatalf("enable sent %q", *f.replaced[1].Status)
	}

	// t on the deliveries screen
	d.keys("enter", "t")
	d.wantView("Send a webhook.test event to https://shop.example/hooks? [y/n]")
	d.keys("y")
	if f.count("TestWebhook") != 1 || !strings.HasPrefix(d.m.status.text, "Sent test event evt-test-") || d.m.dlv.items[0].Kind != "test" {
		t.Fatalf("status %q, first %+v", d.m.status.text, d.m.dlv.items[0])
	}
}

func TestInspectRotatedSecretShownOnce(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	const secret = "whsec_NEWSECRETNEWSECRETNEWSECRETNEWSECRETNEWSE="
	d.keys("s")
	d.wantView("Rotate the signing secret of https://shop.example/hooks? The new one is shown once; the old one keeps signing for 24 hours. [y/n]")
	d.keys("y")
	d.wantView("New signing secret of https://shop.example/hooks", secret, "shown only this once", "Press any key to hide it.")
	for _, w := range d.m.hooks.items {
		if w.Secret != "" {
			t.Fatalf("the secret stays in the webhook list: %+v", w)
		}
	}
	if strings.Contains(d.m.status.text, secret) {
		t.Fatal("the secret went to the status line")
	}
	d.keys("j") // any key hides it, and does nothing else
	if d.m.secret != nil || d.m.hooks.sel != 0 || strings.Contains(d.view(), secret) {
		t.Fatalf("the secret is still shown, or the key moved the cursor (%d)", d.m.hooks.sel)
	}
	d.wantView("The new secret is no longer shown.")
}

func TestInspectGoTo(t *testing.T) {
	// an event id, from a webhook's deliveries
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	d.keys("enter", "g", "evt-1", "enter")
	if q := f.lastQuery(); !slices.Equal(q.EventIDs, []string{"evt-1"}) {
		t.Fatalf("query %+v", q)
	}
	if len(d.m.dlv.items) != 1 || d.m.dlv.items[0].ID != "dlv-1" {
		t.Fatalf("items %+v", d.m.dlv.items)
	}
	d.wantView("Filter    event evt-1", "1 of 1 deliveries")

	// an object id: the events about it, from the webhooks screen; one webhook has them
	d.keys("esc", "esc", "g", "inv-42", "enter")
	if f.count("ListEvents") != 1 || d.m.screen != screenDeliveries || d.m.dlv.hook.ID != "wh-1" {
		t.Fatalf("%d event lists, screen %v, webhook %q", f.count("ListEvents"), d.m.screen, d.m.dlv.hook.ID)
	}
	if ids := f.lastQuery().EventIDs; !slices.Equal(ids, []string{"evt-3", "evt-1"}) {
		t.Fatalf("event ids %v", ids)
	}
	d.wantView("object inv-42 (2 events)", "2 of 2 deliveries")

	// found in two webhooks: they are marked, and the one opened is filtered
	f.deliveries["wh-2"] = []api.Delivery{delivery("dlv-9", "wh-2", "evt-3", "invoice.canceled", "automatic", "failed", 1, code(410), nil, "12:05:00")}
	d.keys("esc", "esc", "g", "inv-42", "enter")
	if d.m.screen != screenWebhooks || d.m.hooks.matches["wh-1"] != 2 || d.m.hooks.matches["wh-2"] != 1 {
		t.Fatalf("screen %v, matches %v", d.m.screen, d.m.hooks.matches)
	}
	d.wantView("★ 2", "★ 1", "delivered to 2 webhooks (marked ★); open one.")
	d.keys("j", "enter")
	if len(d.m.dlv.items) != 1 || d.m.dlv.items[0].ID != "dlv-9" {
		t.Fatalf("items %+v", d.m.dlv.items)
	}

	// nothing found
	d.keys("esc", "g", "nope", "enter")
	d.wantView("✗ Go to: no event nope, and no event about an object nope, in the last 30 days")
	if d.m.screen != screenDeliveries {
		t.Fatalf("screen %v", d.m.screen)
	}
}

func TestInspectStartsOnAWebhook(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, func(o *InspectOptions) { o.WebhookID, o.Status = "wh-1", "FAILED" })
	if d.m.screen != screenDeliveries || d.m.dlv.hook.ID != "wh-1" || len(d.m.dlv.items) != 2 || f.lastQuery().Status != "failed" {
		t.Fatalf("screen %v, webhook %q, %d items, query %+v", d.m.screen, d.m.dlv.hook.ID, len(d.m.dlv.items), f.lastQuery())
	}
	f2 := newFakeAPI()
	d2 := newDriver(t, f2, func(o *InspectOptions) { o.WebhookID = "wh-404" })
	if d2.m.screen != screenWebhooks {
		t.Fatalf("screen %v", d2.m.screen)
	}
	d2.wantView("✗ Could not open webhook wh-404: 404: No such resource for the given Id: wh-404", "https://shop.example/hooks")
}

func TestInspectStaleAnswersAreDropped(t *testing.T) {
	f := newFakeAPI()
	d := newDriver(t, f, nil)
	d.keys("enter")
	old := d.m.dlv.seq
	d.keys("esc", "j", "enter") // another webhook
	d.send(deliveriesMsg{seq: old, webhookID: "wh-1", page: api.DeliveryPage{Data: f.deliveries["wh-1"], TotalCount: 3}})
	if d.m.dlv.hook.ID != "wh-2" || len(d.m.dlv.items) != 0 {
		t.Fatalf("an answer for the previous webhook was shown: %q, %d items", d.m.dlv.hook.ID, len(d.m.dlv.items))
	}
	d.wantView("No deliveries in the last 30 days.")
}

func TestInspectQuitAndHelp(t *testing.T) {
	d := newDriver(t, newFakeAPI(), nil)
	d.keys("?")
	d.wantView("pgdn page down", "rotate secret")
	d.keys("g", "q") // q types inside a prompt
	if d.quit || d.m.prompt.text() != "q" {
		t.Fatalf("quit %v, prompt %q", d.quit, d.m.prompt.text())
	}
	d.keys("esc", "q")
	if !d.quit {
		t.Fatal("q did not quit")
	}
	d2 := newDriver(t, newFakeAPI(), nil)
	d2.keys("s", "ctrl+c") // ctrl+c quits, also from a question
	if !d2.quit {
		t.Fatal("ctrl+c did not quit")
	}
}

func TestInspectResizeTiny(t *testing.T) {
	d := newDriver(t, newFakeAPI(), nil)
	d.keys("enter", "enter", "?")
	for _, scr := range []string{"delivery", "deliveries", "webhooks"} {
		for _, size := range [][2]int{{0, 0}, {1, 1}, {2, 0}, {0, 5}, {5, 2}, {10, 3}, {-1, -1}, {300, 2}, {40, 12}} {
			d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			v := d.view()
			if size[0] > 0 {
				for _, l := range strings.Split(v, "\n") {
					if w := lipgloss.Width(l); w > size[0] {
						t.Errorf("%s, size %v: line %q is %d wide", scr, size, l, w)
					}
				}
			}
			if size[1] > 0 && strings.Count(v, "\n")+1 > size[1] {
				t.Errorf("%s, size %v: %d lines", scr, size, strings.Count(v, "\n")+1)
			}
		}
		d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
		d.keys("esc")
	}
}

func TestWaited(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		want    string
	}{{-1, "<1s"}, {0.4, "<1s"}, {0.6, "1s"}, {45, "45s"}, {72.4, "1m12s"}, {3599.6, "1h0m"}, {3*3600 + 5*60 + 20, "3h5m"},
		{47*3600 + 59*60 + 20, "47h59m"}, {47*3600 + 59*60 + 50, "2d0h"}, {2*86400 + 4*3600 + 10*60, "2d4h"}} {
		if got := waited(c.seconds); got != c.want {
			t.Errorf("waited(%v) = %q, want %q", c.seconds, got, c.want)
		}
	}
}
