package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
)

// Head-of-line blocking: one destination that hangs must not hold the delivery engine's workers
// for everyone else. Each test lets tenant A's destination hang, then checks that tenant B's
// event (and A's other webhook's) arrives while A's hung attempts are all still hung: not one
// of them may have ended by its timeout when B's arrives.

// hungEndpoint is a local TLS endpoint that accepts every request and never answers until the
// test ends; it counts the requests it holds and those the client gave up on (their context
// was cancelled: the engine's attempt timed out and closed the connection).
type hungEndpoint struct {
	srv     *httptest.Server
	held    atomic.Int64 // requests held now
	maxHeld atomic.Int64 // most requests held at once
	total   atomic.Int64 // requests received
	cut     atomic.Int64 // requests the client gave up on while held
	release chan struct{}
}

// newHungEndpoint starts the endpoint. It shares the certificate of every httptest TLS server,
// so the fixture's CA file (the receiver's certificate) trusts it.
func newHungEndpoint(t *testing.T) *hungEndpoint {
	t.Helper()
	h := &hungEndpoint{release: make(chan struct{})}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// the whole body read, the server watches the connection: a client that gives up
		// cancels the request's context
		io.Copy(io.Discard, r.Body)
		n := h.held.Add(1)
		h.total.Add(1)
		for {
			m := h.maxHeld.Load()
			if n <= m || h.maxHeld.CompareAndSwap(m, n) {
				break
			}
		}
		defer h.held.Add(-1)
		select {
		case <-r.Context().Done():
			h.cut.Add(1)
		case <-h.release:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(h.srv.Close)
	// registered after Close, so it runs first: the held handlers return and Close can finish
	t.Cleanup(func() { close(h.release) })
	return h
}

// asTenant is the fixture seen as another tenant: its requests carry that tenant's keys.
func (f *hookFixture) asTenant(creds api.Credentials, rc *receiver) *hookFixture {
	g := *f.fixture
	g.creds = creds
	url := f.url
	if rc != nil {
		url = rc.srv.URL + "/hook"
	}
	return &hookFixture{fixture: &g, clock: f.clock, rc: rc, url: url}
}

// newTenant creates a second tenant on the fixture's server.
func (f *hookFixture) newTenant(email string) api.Credentials {
	f.t.Helper()
	creds, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: email})
	if err != nil {
		f.t.Fatal(err)
	}
	return creds
}

// trigger sends one test event to a webhook (to the caller's listener when hookID is empty) and
// answers its event id.
func (f *hookFixture) trigger(hookID string) string {
	f.t.Helper()
	body := `{"type":"invoice.stamped"}`
	if hookID != "" {
		body = `{"type":"invoice.stamped","webhookId":"` + hookID + `"}`
	}
	r := f.do("POST", "/api/v4/events/trigger", body)
	var trig api.EventTriggered
	json.Unmarshal(r.env.Data, &trig)
	if r.status != 202 || trig.EventID == "" {
		f.t.Fatalf("trigger: %s", r.raw)
	}
	return trig.EventID
}

// deliveryStates counts a webhook's deliveries by status, over every page, and answers the
// distinct lastError values of those that ended.
func (f *hookFixture) deliveryStates(hookID string) (map[string]int, []string) {
	f.t.Helper()
	states := map[string]int{}
	seen := map[string]bool{}
	var errs []string
	for page := 1; ; page++ {
		r := f.do("GET", fmt.Sprintf("/api/v4/webhooks/%s/deliveries?pageSize=50&pageNumber=%d", hookID, page), "")
		var p api.PagedList[api.Delivery]
		if r.status != 200 || json.Unmarshal(r.env.Data, &p) != nil {
			f.t.Fatalf("deliveries of %s: %s", hookID, r.raw)
		}
		for _, d := range p.Items {
			states[d.Status]++
			if d.Status != "pending" && d.LastError != nil && !seen[*d.LastError] {
				seen[*d.LastError] = true
				errs = append(errs, *d.LastError)
			}
		}
		if !p.HasNextPage || len(p.Items) == 0 {
			return states, errs
		}
	}
}

// ended is the number of deliveries no longer pending.
func ended(states map[string]int) int {
	n := 0
	for s, c := range states {
		if s != "pending" {
			n += c
		}
	}
	return n
}

// waitFor polls cond every 10 ms until it holds or the wait passes.
func waitFor(wait time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// TestHeadOfLineWebhookEndpoint: tenant A's webhook endpoint accepts every request and never
// answers. Tenant B's webhook, and A's other, healthy webhook, must still get their events
// while A's hung requests are all still hung (none yet cut by the 15 s attempt timeout).
func TestHeadOfLineWebhookEndpoint(t *testing.T) {
	const hungEvents = 70 // more than the engine's 64 workers
	f := newHookFixture(t, "")
	hung := newHungEndpoint(t)
	rcB, _ := newReceiver(t) // same certificate as the fixture's receiver
	b := f.asTenant(f.newTenant("tenant-b@example.com"), rcB)

	hungHook := f.create(`{"url":"` + hung.srv.URL + `/hook","description":"hangs","enabledEvents":["*"]}`)
	healthyA := f.create(`{"url":"` + f.url + `","description":"healthy","enabledEvents":["*"]}`)
	hookB := b.create(`{"url":"` + b.url + `","enabledEvents":["*"]}`)

	for range hungEvents {
		f.trigger(hungHook.ID)
	}
	if !waitFor(10*time.Second, func() bool { return hung.held.Load() >= 1 }) {
		t.Fatal("tenant A's hung endpoint received no request within 10 s")
	}
	// B's and A-healthy's events come a moment after A's: the outbox is ordered by due time
	f.clock.Add(time.Millisecond)
	evB := b.trigger(hookB.ID)
	evA := f.trigger(healthyA.ID)

	type arrival struct {
		who string
		cut int64 // hung requests already cut when it arrived
	}
	var arrivals []arrival
	pending := map[string]bool{"tenant B's event": true, "tenant A's healthy webhook's event": true}
	deadline := time.After(30 * time.Second)
	for len(pending) > 0 {
		select {
		case got := <-rcB.got:
			if got.header.Get("webhook-id") != evB {
				t.Fatalf("tenant B's receiver got event %q, want %q", got.header.Get("webhook-id"), evB)
			}
			arrivals = append(arrivals, arrival{"tenant B's event", hung.cut.Load()})
			delete(pending, "tenant B's event")
		case got := <-f.rc.got:
			if got.header.Get("webhook-id") != evA {
				t.Fatalf("tenant A's healthy receiver got event %q, want %q", got.header.Get("webhook-id"), evA)
			}
			arrivals = append(arrivals, arrival{"tenant A's healthy webhook's event", hung.cut.Load()})
			delete(pending, "tenant A's healthy webhook's event")
		case <-deadline:
			var missing []string
			for who := range pending {
				missing = append(missing, who)
			}
			t.Fatalf("head-of-line blocking: %s did not arrive within 30 s; tenant A's hung endpoint holds %d requests (at most %d at once, %d cut by the client's timeout)",
				strings.Join(missing, " and "), hung.held.Load(), hung.maxHeld.Load(), hung.cut.Load())
		}
	}
	// an attempt to the hung endpoint ends only by its timeout: any that ended (it is recorded
	// before its worker takes another delivery) was ahead of B in line
	states, errs := f.deliveryStates(hungHook.ID)
	t.Logf("tenant A's hung endpoint: %d requests received, at most %d held at once; its deliveries now %v", hung.total.Load(), hung.maxHeld.Load(), states)
	for _, a := range arrivals {
		if a.cut > 0 {
			t.Errorf("head-of-line blocking: %s arrived only after %d of tenant A's hung attempts had been cut by the 15 s attempt timeout (A's hung endpoint held every worker)", a.who, a.cut)
		}
	}
	if n := ended(states); n > 0 && !t.Failed() {
		t.Errorf("head-of-line blocking: tenant B's and A's healthy events arrived only after %d of tenant A's hung deliveries had ended (errors %v): A's hung endpoint held every worker", n, errs)
	}
}

// TestHeadOfLineListener: tenant A's listen session hangs, in two ways: it reads its events and
// never acknowledges them (a forward that hangs), or it never reads at all (a client stopped in
// a debugger). Tenant B's session, which acknowledges at once, must still get its event while
// none of A's deliveries has yet failed by the server's ack timeout.
func TestHeadOfLineListener(t *testing.T) {
	for _, mode := range []string{"never acknowledges", "never reads"} {
		t.Run(mode, func(t *testing.T) { headOfLineListener(t, mode == "never reads") })
	}
}

func headOfLineListener(t *testing.T, neverReads bool) {
	const hungEvents = 70 // more than the engine's 64 workers
	f := newHookFixture(t, "")
	b := f.asTenant(f.newTenant("tenant-b@example.com"), nil)

	connA, readyA := f.dialListen(t, "")
	connB, _ := b.dialListen(t, "")

	var readA atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { connA.Close(); connB.Close(); wg.Wait() })
	if !neverReads {
		// A reads every event (so its pings are answered) and never acknowledges one
		wg.Go(func() {
			connA.SetReadDeadline(time.Time{})
			for {
				var ev listener.Event
				if err := connA.ReadJSON(&ev); err != nil {
					return
				}
				if ev.Type == listener.TypeEvent {
					readA.Add(1)
				}
			}
		})
	}
	// B acknowledges every event at once, as a listener without a forward target does
	gotB := make(chan listener.Event, 10)
	wg.Go(func() {
		connB.SetReadDeadline(time.Time{})
		for {
			var ev listener.Event
			if err := connB.ReadJSON(&ev); err != nil {
				return
			}
			if ev.Type != listener.TypeEvent {
				continue
			}
			if err := connB.WriteJSON(listener.Ack{Type: listener.TypeAck, DeliveryID: ev.DeliveryID}); err != nil {
				return
			}
			select {
			case gotB <- ev:
			default:
			}
		}
	})

	for range hungEvents {
		f.trigger("")
	}
	// A's session holds every slot of its destination before B's event is made
	full := func() bool {
		r := f.do("GET", "/api/v4/webhooks/"+readyA.WebhookID+"/queue", "")
		var q api.WebhookQueue
		return json.Unmarshal(r.env.Data, &q) == nil && q.InFlight == q.Concurrency && q.Concurrency > 0
	}
	if !waitFor(10*time.Second, full) {
		t.Fatal("tenant A's listen session did not have its attempts in flight within 10 s")
	}
	f.clock.Add(time.Millisecond) // B's event comes a moment after A's
	evB := b.trigger("")

	select {
	case ev := <-gotB:
		if ev.EventID != evB {
			t.Fatalf("tenant B's session got event %q, want %q", ev.EventID, evB)
		}
	case <-time.After(60 * time.Second):
		states, errs := f.deliveryStates(readyA.WebhookID)
		t.Fatalf("head-of-line blocking: tenant B's event did not reach its session within 60 s; tenant A's session has %d unacknowledged events, its deliveries %v (errors %v)",
			readA.Load(), states, errs)
	}
	// a delivery to A's session ends only when the server's ack wait passes (or, for a client
	// that never reads, its write wait): any that ended was ahead of B in line
	states, errs := f.deliveryStates(readyA.WebhookID)
	t.Logf("tenant A's session: %d unacknowledged events read; its deliveries now %v", readA.Load(), states)
	if n := ended(states); n > 0 {
		t.Errorf("head-of-line blocking: tenant B's event arrived only after %d of tenant A's listener deliveries had failed (errors %v, the server's %v ack wait): A's session held every worker",
			n, errs, listener.AckWait)
	}
}

// TestWebhookQueue: a webhook's queue tells its pending deliveries, the oldest one's age, its
// attempts in flight and the last failure; /metrics tells the same per destination.
func TestWebhookQueue(t *testing.T) {
	f := newHookFixture(t, "")
	f.rc.status.Store(503)
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["*"]}`)
	r := f.do("GET", "/api/v4/webhooks/"+w.ID+"/queue", "")
	var q api.WebhookQueue
	json.Unmarshal(r.env.Data, &q)
	if r.status != 200 || q.WebhookID != w.ID || q.Pending != 0 || q.InFlight != 0 || q.Concurrency != 8 || q.OldestPendingAt != nil || q.LastError != nil {
		t.Fatalf("queue of a new webhook: %s", r.raw)
	}
	// an automatic delivery that fails stays pending for its retry
	if _, err := f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.canceled", "inv-1", nil); err != nil {
		t.Fatal(err)
	}
	f.rc.next(t)
	f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Attempts == 1 })
	f.clock.Add(2 * time.Second)
	r = f.do("GET", "/api/v4/webhooks/"+w.ID+"/queue", "")
	json.Unmarshal(r.env.Data, &q)
	if q.Pending != 1 || q.InFlight != 0 || q.OldestPendingAt == nil || q.OldestPendingAgeSeconds <= 0 || q.LastError == nil || *q.LastError != "HTTP 503" ||
		q.LastStatusCode == nil || *q.LastStatusCode != 503 || q.LastAttemptAt == nil {
		t.Fatalf("queue after a failed attempt: %s", r.raw)
	}
	_, metrics := f.raw("/metrics", "op-token")
	for _, want := range []string{
		`timbra_webhook_queue_depth{tenant="` + f.creds.TenantKey + `",webhook="` + w.ID + `"} 1`,
		`timbra_webhook_in_flight{tenant="` + f.creds.TenantKey + `",webhook="` + w.ID + `"} 0`,
		`timbra_webhook_oldest_pending_seconds{tenant="` + f.creds.TenantKey + `",webhook="` + w.ID + `"} 2`,
		`timbra_webhook_last_error_timestamp_seconds{tenant="` + f.creds.TenantKey + `",webhook="` + w.ID + `",error="HTTP 503"}`,
	} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, metrics)
		}
	}
	if r := f.do("GET", "/api/v4/webhooks/0193a0c4-0000-7000-8000-000000000000/queue", ""); r.status != 404 {
		t.Fatalf("queue of an absent webhook: %s", r.raw)
	}
}
