package webhooks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func TestRetryDelay(t *testing.T) {
	cases := []struct {
		n          int
		retryAfter time.Duration
		jitter     float64
		want       time.Duration
	}{
		{1, 0, 1, 5 * time.Second},
		{2, 0, 1, 5 * time.Minute},
		{7, 0, 1, 10 * time.Hour},
		{2, 0, 0.9, 270 * time.Second},
		{1, time.Minute, 1, time.Minute},      // Retry-After lengthens a wait
		{2, time.Second, 1, 5 * time.Minute},  // but never shortens it
		{1, 48 * time.Hour, 1, MaxRetryAfter}, // and is bounded
		{99, 0, 1.1, 11 * time.Hour},          // past the schedule: its last wait
	}
	for _, c := range cases {
		if got := retryDelay(c.n, c.retryAfter, c.jitter); got != c.want {
			t.Errorf("retryDelay(%d, %v, %v) = %v, want %v", c.n, c.retryAfter, c.jitter, got, c.want)
		}
	}
	total := time.Duration(0)
	for _, d := range RetrySchedule {
		total += d
	}
	if len(RetrySchedule) != AutomaticAttempts || total < 27*time.Hour || total > 29*time.Hour {
		t.Fatalf("schedule: %d attempts over %v", len(RetrySchedule), total)
	}
}

// engineRig is a service over a new database with an engine whose attempts go to a fake
// sender: a URL containing "hung" holds its attempt until release is closed.
type engineRig struct {
	t       testing.TB
	svc     *Service
	engine  *Engine
	release chan struct{}

	mu      sync.Mutex
	got     map[string][]string // url → event ids, in arrival order
	current map[string]int      // url → attempts in flight
	peak    map[string]int
}

func newEngineRig(t testing.TB, configure func(*Engine)) *engineRig {
	r := newStoppedRig(t, configure)
	r.start()
	return r
}

// newStoppedRig makes the rig without running its engine (start runs it).
func newStoppedRig(t testing.TB, configure func(*Engine)) *engineRig {
	t.Helper()
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	keys, _ := secrets.New(bytes.Repeat([]byte{1}, secrets.KeySize))
	r := &engineRig{t: t, release: make(chan struct{}), got: map[string][]string{}, current: map[string]int{}, peak: map[string]int{}}
	r.svc = New(Config{Store: db, Keys: keys, Now: time.Now, CheckURL: func(string) string { return "" }, NewSecret: webhook.NewSecret,
		Send: r.send, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	r.engine = r.svc.Engine()
	if configure != nil {
		configure(r.engine)
	}
	return r
}

// start runs the engine until the test ends (hung attempts are released first).
func (r *engineRig) start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.engine.Run(ctx); close(done) }()
	r.t.Cleanup(func() {
		select {
		case <-r.release:
		default:
			close(r.release)
		}
		cancel()
		<-done
	})
}

func (r *engineRig) send(ctx context.Context, url string, h http.Header, body []byte) webhook.Attempt {
	r.mu.Lock()
	r.current[url]++
	r.peak[url] = max(r.peak[url], r.current[url])
	r.mu.Unlock()
	if strings.Contains(url, "hung") {
		<-r.release
	}
	r.mu.Lock()
	r.current[url]--
	r.got[url] = append(r.got[url], h.Get(webhook.HeaderID))
	r.mu.Unlock()
	ok := 200
	return webhook.Attempt{StatusCode: &ok}
}

func (r *engineRig) hook(tenant, url string) {
	r.t.Helper()
	if _, err := r.svc.Create(context.Background(), auth.Caller{TenantID: tenant, PersonID: "p"}, api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}}); err != nil {
		r.t.Fatal(err)
	}
}

func (r *engineRig) emit(tenant string, n int) {
	r.t.Helper()
	for range n {
		if _, err := r.svc.Emit(context.Background(), tenant, "invoice.stamped", "inv", nil); err != nil {
			r.t.Fatal(err)
		}
	}
}

// wait waits until cond holds, failing the test after a minute.
func (r *engineRig) wait(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.t.Fatalf("%s: never happened (received %v, in flight %v)", what, counts(r.got), r.current)
		}
		time.Sleep(time.Millisecond)
	}
}

func counts(m map[string][]string) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		out[k] = len(v)
	}
	return out
}

// TestEngineSlowDestinationDelaysOnlyItself: one tenant's hung endpoint holds at most
// PerDestination attempts, and the same tenant's other endpoint and another tenant's get every
// delivery while it hangs; once it answers, its own deliveries all arrive, and every delivery
// is recorded succeeded.
func TestEngineSlowDestinationDelaysOnlyItself(t *testing.T) {
	r := newEngineRig(t, func(e *Engine) { e.PerDestination = 3 })
	r.hook("a", "https://a.example/hung")
	r.hook("a", "https://a.example/ok")
	r.hook("b", "https://b.example/ok")
	r.emit("a", 100)
	r.wait("the hung endpoint holds its share", func() bool { return r.current["https://a.example/hung"] == 3 })
	r.emit("b", 20)
	r.wait("the other destinations get every delivery", func() bool {
		return len(r.got["https://a.example/ok"]) == 100 && len(r.got["https://b.example/ok"]) == 20
	})
	r.mu.Lock()
	if len(r.got["https://a.example/hung"]) != 0 || r.peak["https://a.example/hung"] != 3 {
		t.Errorf("the hung endpoint: %d answered, %d at once; want 0 and 3", len(r.got["https://a.example/hung"]), r.peak["https://a.example/hung"])
	}
	r.mu.Unlock()
	close(r.release)
	r.wait("the hung endpoint's own deliveries", func() bool { return len(r.got["https://a.example/hung"]) == 100 })
	r.waitSettled()
	for url, n := range r.peak {
		if n > 3 {
			t.Errorf("%s had %d attempts at once, more than PerDestination", url, n)
		}
	}
}

// holdsNothing tells whether the engine has no delivery queued, in flight or waiting for its
// record.
func (e *Engine) holdsNothing() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inFlight > 0 || e.unrecorded > 0 {
		return false
	}
	for _, d := range e.dests {
		if len(d.queue) > 0 || len(d.taken) > 0 {
			return false
		}
	}
	return true
}

// waitSettled waits until no delivery is pending and checks that every one succeeded once.
func (r *engineRig) waitSettled() {
	r.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		empty := false
		r.svc.Store.View(context.Background(), func(tx storage.Tx) error { empty = tx.Outbox().Empty(); return nil })
		if empty {
			break
		}
		if time.Now().After(deadline) {
			r.t.Fatal("the outbox never emptied")
		}
		time.Sleep(time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for url, ids := range r.got {
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				r.t.Errorf("%s received %s twice", url, id)
			}
			seen[id] = true
		}
	}
}

// TestEngineTenantShare: a tenant whose every destination hangs holds at most PerTenant
// attempts, so another tenant still gets its deliveries when the engine's slots are few.
func TestEngineTenantShare(t *testing.T) {
	r := newEngineRig(t, func(e *Engine) { e.PerDestination, e.PerTenant, e.InFlight = 2, 3, 4 })
	for i := range 4 {
		r.hook("a", fmt.Sprintf("https://a.example/hung/%d", i))
	}
	r.hook("b", "https://b.example/ok")
	r.emit("a", 10)
	r.wait("tenant a holds its share", func() bool {
		n := 0
		for _, c := range r.current {
			n += c
		}
		return n == 3
	})
	r.emit("b", 30)
	r.wait("tenant b gets every delivery", func() bool { return len(r.got["https://b.example/ok"]) == 30 })
	close(r.release)
	r.wait("tenant a's deliveries", func() bool {
		n := 0
		for url, ids := range r.got {
			if strings.Contains(url, "hung") {
				n += len(ids)
			}
		}
		return n == 40
	})
	r.waitSettled()
}

// TestEngineOrderOfOneAtATime: with one attempt per destination, a destination that always
// answers receives its events in the order they were made.
func TestEngineOrderOfOneAtATime(t *testing.T) {
	r := newEngineRig(t, func(e *Engine) { e.PerDestination = 1 })
	r.hook("a", "https://a.example/ok")
	var want []string
	for range 50 {
		id, err := r.svc.Emit(context.Background(), "a", "invoice.stamped", "inv", nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	r.wait("every event", func() bool { return len(r.got["https://a.example/ok"]) == 50 })
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.got["https://a.example/ok"], want) {
		t.Fatalf("arrival order %v, want %v", r.got["https://a.example/ok"], want)
	}
}

// TestEngineDisabledWhileQueued: disabling a webhook closes the deliveries the engine holds
// but has not started: only the attempt already on the wire reaches the endpoint.
func TestEngineDisabledWhileQueued(t *testing.T) {
	r := newEngineRig(t, func(e *Engine) { e.PerDestination = 1 })
	url := "https://a.example/hung"
	w, err := r.svc.Create(context.Background(), auth.Caller{TenantID: "a", PersonID: "p"}, api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	r.emit("a", 10)
	r.wait("one attempt on the wire", func() bool { return r.current[url] == 1 })
	disabled := StatusDisabled
	if _, err := r.svc.Replace(context.Background(), auth.Caller{TenantID: "a", PersonID: "p"}, w.ID,
		api.WebhookUpdate{ID: &w.ID, URL: &url, EnabledEvents: []string{"*"}, Status: &disabled}); err != nil {
		t.Fatal(err)
	}
	close(r.release)
	r.waitSettled()
	// the queued ones were closed by the disable: wait until the engine has let go of all ten
	r.wait("the engine holds nothing", func() bool { return r.engine.holdsNothing() })
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.got[url]); n != 1 {
		t.Fatalf("%d attempts reached the disabled webhook, want only the one in flight", n)
	}
}
