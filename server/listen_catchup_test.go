package server

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
)

// TestListenClientCatchesUpAfterADrop: a listener.Client whose connection drops reconnects
// with since= the last event it received; the events emitted meanwhile (none was delivered: the
// session was closed) come first, marked replay, each once; then live ones.
func TestListenClientCatchesUpAfterADrop(t *testing.T) {
	f := newHookFixture(t, "")
	var (
		mu       sync.Mutex
		conns    []net.Conn
		received []listener.Event
		readies  []listener.Ready
	)
	gate := make(chan struct{}) // the reconnection waits for it
	u, err := listener.DialURL(f.http.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &listener.Client{URL: u, Now: f.clock.Now, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		Header: map[string][]string{"X-Tenant-Key": {f.creds.TenantKey}, "X-Api-Key": {f.creds.APIKey}},
		OnReady: func(r listener.Ready, _ bool) error {
			mu.Lock()
			defer mu.Unlock()
			readies = append(readies, r)
			return nil
		},
		OnReceived: func(r listener.EventResult) {
			mu.Lock()
			defer mu.Unlock()
			received = append(received, r.Event)
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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(received) }
	if !waitFor(5*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(readies) == 1 }) {
		t.Fatal("no ready")
	}
	hook := readies[0].WebhookID
	emit := func() string {
		f.clock.Add(time.Millisecond)
		id, err := f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.stamped", "inv-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	live := emit()
	if !waitFor(5*time.Second, func() bool { return count() == 1 }) {
		t.Fatal("the live event did not arrive")
	}
	f.waitDelivery(hook, func(d api.Delivery) bool { return d.EventID == live && d.Status == "succeeded" })
	mu.Lock()
	conns[0].Close()
	mu.Unlock()
	if !waitFor(5*time.Second, func() bool { _, ok := f.srv.hub.Connected(f.creds.TenantKey, hook); return !ok }) {
		t.Fatal("the session is still open")
	}
	var missed []string
	for range 3 { // no delivery is made to a closed session
		missed = append(missed, emit())
	}
	close(gate)
	if !waitFor(5*time.Second, func() bool { return count() == 4 }) {
		t.Fatalf("after the reconnection: %d events, want the live one and the 3 missed", count())
	}
	after := emit()
	if !waitFor(5*time.Second, func() bool { return count() == 5 }) {
		t.Fatal("the live event after the catch-up did not arrive")
	}
	for _, id := range append(missed, after) {
		f.waitDelivery(hook, func(d api.Delivery) bool { return d.EventID == id && d.Status == "succeeded" })
	}
	mu.Lock()
	defer mu.Unlock()
	var ids []string
	for i, e := range received {
		ids = append(ids, e.EventID)
		if replay := i >= 1 && i <= 3; e.Replay != replay {
			t.Errorf("event %d (%s): replay %v", i, e.EventID, e.Replay)
		}
	}
	if want := append(append([]string{live}, missed...), after); !slices.Equal(ids, want) {
		t.Fatalf("received %q, want %q (each once, the missed ones in order)", ids, want)
	}
	if len(readies) != 2 || readies[1].Replaying != 3 {
		t.Fatalf("readies %+v, want a second one replaying 3", readies)
	}
}
