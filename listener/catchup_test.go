package listener_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
)

// catchUpServer is a hub served over HTTP with an event log: it catches a session up as the
// server does (query since=: the events after that id the listener has not acknowledged 2xx,
// oldest first, each a new delivery marked replay, one after the other).
type catchUpServer struct {
	hub    *listener.Hub
	secret string
	mu     sync.Mutex
	log    []listener.Event // every event emitted, oldest first, with its automatic delivery
	ok     map[string]bool  // event ids acknowledged 2xx
	since  []string         // the since= of each handshake ("" for none)
	replay sync.WaitGroup
}

func newCatchUpServer(t *testing.T) (*catchUpServer, string) {
	t.Helper()
	s := &catchUpServer{hub: listener.NewHub(), secret: webhook.NewSecret(), ok: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		since := r.URL.Query().Get("since")
		conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.since = append(s.since, since)
		var missed []listener.Event
		for _, e := range s.log {
			if since != "" && e.EventID > since && !s.ok[e.EventID] {
				missed = append(missed, e)
			}
		}
		s.mu.Unlock()
		ready := listener.Ready{Type: listener.TypeReady, WebhookID: "w", Secret: s.secret, Events: []string{"*"}, Replaying: len(missed)}
		s.replay.Add(1)
		s.hub.ServeThen(conn, "t", "w", ready, nil, func() {
			defer s.replay.Done()
			for _, e := range missed {
				e.DeliveryID, e.Kind = "r-"+e.EventID, "manual"
				s.hub.MarkReplays("t", "w", []string{e.DeliveryID})
				s.deliver(e)
			}
		})
	}))
	t.Cleanup(srv.Close)
	u, err := listener.DialURL(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, u
}

// deliver is one attempt, as the engine makes it; it records a 2xx Ack.
func (s *catchUpServer) deliver(e listener.Event) error {
	a, err := s.hub.Deliver(context.Background(), "t", "w", e)
	if err == nil && a.StatusCode != nil && *a.StatusCode/100 == 2 {
		s.mu.Lock()
		s.ok[e.EventID] = true
		s.mu.Unlock()
	}
	return err
}

// emit logs event n and makes its automatic delivery's first attempt.
func (s *catchUpServer) emit(t *testing.T, n int) (listener.Event, error) {
	e := signedEvent(t, s.secret, fmt.Sprintf("d-%02d", n), fmt.Sprintf("e-%02d", n))
	s.mu.Lock()
	s.log = append(s.log, e)
	s.mu.Unlock()
	return e, s.deliver(e)
}

// TestClientCatchesUpOnReconnection: the events emitted while the connection was down (not
// delivered: no session) come after the reconnection, which asks since= the last event
// received, marked replay. Another delivery of an event already handled is acknowledged with
// the first one's outcome, not shown or forwarded again, whichever came first: the automatic
// attempt after the replay (an engine restart offers a pending attempt again), or the replay
// after the live attempt (an event emitted as the session reopens is both sent live and listed
// for the catch-up). Each event arrives once.
func TestClientCatchesUpOnReconnection(t *testing.T) {
	s, u := newCatchUpServer(t)
	tg := newTarget(t, 200, "ok")
	var (
		mu       sync.Mutex
		received []listener.EventResult
		outcomes []listener.EventResult
		conns    []net.Conn
	)
	gate := make(chan struct{}) // the reconnection waits for it
	c := &listener.Client{URL: u, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Forward: &listener.Forwarder{URL: tg.URL, Client: listener.NewForwardClient(clientWait, false)},
		OnReceived: func(r listener.EventResult) {
			mu.Lock()
			defer mu.Unlock()
			received = append(received, r)
		},
		OnEvent: func(r listener.EventResult) {
			mu.Lock()
			defer mu.Unlock()
			outcomes = append(outcomes, r)
		},
	}
	c.Dialer = &websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		again := len(conns) > 0
		mu.Unlock()
		if again {
			select {
			case <-gate:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
		return conn, err
	}}
	start(t, c)
	waitUntil(t, "the session opens", func() bool { _, ok := s.hub.Connected("t", "w"); return ok })

	for n := 1; n <= 2; n++ { // live
		if _, err := s.emit(t, n); err != nil {
			t.Fatalf("e-%02d: %v", n, err)
		}
	}
	mu.Lock()
	conns[0].Close() // the connection drops
	mu.Unlock()
	waitUntil(t, "the server sees the drop", func() bool { _, ok := s.hub.Connected("t", "w"); return !ok })
	var away []listener.Event
	for n := 3; n <= 5; n++ {
		e, err := s.emit(t, n)
		if err == nil {
			t.Fatalf("e-%02d: delivered while the client was away", n)
		}
		away = append(away, e)
	}
	close(gate)
	waitUntil(t, "the client reconnects", func() bool { mu.Lock(); defer mu.Unlock(); return len(conns) == 2 })
	waitUntil(t, "the catch-up is acknowledged", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.ok["e-03"] && s.ok["e-04"] && s.ok["e-05"]
	})
	s.replay.Wait()
	for _, e := range away { // automatic attempts after their replays
		if err := s.deliver(e); err != nil {
			t.Fatalf("automatic attempt of %s after its replay: %v", e.DeliveryID, err)
		}
	}
	live, err := s.emit(t, 6) // live again
	if err != nil {
		t.Fatalf("e-06: %v", err)
	}
	live.DeliveryID, live.Kind = "r-e-06", "manual" // and replayed after it
	s.hub.MarkReplays("t", "w", []string{live.DeliveryID})
	if err := s.deliver(live); err != nil {
		t.Fatalf("replay of e-06 after its live attempt: %v", err)
	}

	s.mu.Lock()
	since := slices.Clone(s.since)
	for n := 1; n <= 6; n++ {
		if id := fmt.Sprintf("e-%02d", n); !s.ok[id] {
			t.Errorf("%s: not acknowledged 2xx", id)
		}
	}
	s.mu.Unlock()
	if !slices.Equal(since, []string{"", "e-02"}) {
		t.Fatalf("since= of the handshakes: %q, want none, then the last event received (e-02)", since)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"e-01", "e-02", "e-03", "e-04", "e-05", "e-06"}
	var got, done, replays []string
	for _, r := range received {
		got = append(got, r.Event.EventID)
		if r.Event.Replay {
			replays = append(replays, r.Event.EventID)
		}
	}
	for _, r := range outcomes {
		done = append(done, r.Event.EventID)
	}
	slices.Sort(done)
	if !slices.Equal(got, want) || !slices.Equal(done, want) {
		t.Fatalf("OnReceived saw %q, OnEvent %q; want each of %q once", got, done, want)
	}
	if !slices.Equal(replays, []string{"e-03", "e-04", "e-05"}) {
		t.Fatalf("replays %q, want the three emitted while away", replays)
	}
	forwarded := map[string]int{}
	for _, r := range tg.requests() {
		forwarded[r.Header.Get("webhook-id")]++
	}
	for _, id := range want {
		if forwarded[id] != 1 {
			t.Errorf("%s forwarded %d times, want once", id, forwarded[id])
		}
	}
}
