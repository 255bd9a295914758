package listener_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
)

// sleepyConn is the client's connection of a laptop that can be put to sleep: while asleep
// nothing is read or written (what the server sends waits in the socket), and, as the
// monotonic clock of a sleeping machine, the time asleep does not count towards the read
// deadline.
type sleepyConn struct {
	net.Conn
	mu     sync.Mutex
	wake   chan struct{} // non-nil while asleep; closed at the wake
	slept  time.Duration
	sleeps int
	since  time.Time
	rd     time.Time // the read deadline asked
}

func (c *sleepyConn) sleep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wake, c.since = make(chan struct{}), time.Now()
	c.sleeps++
}

func (c *sleepyConn) awake() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wake != nil {
		c.slept += time.Since(c.since)
		close(c.wake)
		c.wake = nil
		if !c.rd.IsZero() {
			c.Conn.SetReadDeadline(c.rd.Add(c.slept))
		}
	}
}

// waitAwake blocks while asleep, and tells the number of sleeps so far.
func (c *sleepyConn) waitAwake() int {
	c.mu.Lock()
	w, n := c.wake, c.sleeps
	c.mu.Unlock()
	if w != nil {
		<-w
	}
	return n
}

func (c *sleepyConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd = t
	if t.IsZero() {
		return c.Conn.SetReadDeadline(t)
	}
	return c.Conn.SetReadDeadline(t.Add(c.slept))
}

func (c *sleepyConn) Read(b []byte) (int, error) {
	for {
		before := c.waitAwake()
		n, err := c.Conn.Read(b)
		after := c.waitAwake() // what came while asleep is read at the wake
		var ne net.Error
		if n == 0 && after != before && errors.As(err, &ne) && ne.Timeout() {
			continue // the deadline passed during the sleep: not on a sleeping machine's clock
		}
		return n, err
	}
}

func (c *sleepyConn) Write(b []byte) (int, error) {
	c.waitAwake()
	return c.Conn.Write(b)
}

// pauseRig is a hub served over HTTP, a client of it whose connections can sleep, and the
// client's forward target.
type pauseRig struct {
	hub    *listener.Hub
	client *listener.Client
	tg     *target
	mu     sync.Mutex
	conns  []*sleepyConn
	secret string
}

func newPauseRig(t *testing.T, hub *listener.Hub, c *listener.Client) *pauseRig {
	t.Helper()
	r := &pauseRig{hub: hub, client: c, tg: newTarget(t, 200, "ok"), secret: webhook.NewSecret()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		conn, err := (&websocket.Upgrader{}).Upgrade(w, req, nil)
		if err != nil {
			return
		}
		hub.Serve(conn, "t", "w", listener.Ready{WebhookID: "w", Secret: r.secret, Events: []string{"*"}}, nil)
	}))
	t.Cleanup(srv.Close)
	u, err := listener.DialURL(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.URL = u
	c.Dialer = &websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		sc := &sleepyConn{Conn: conn}
		r.mu.Lock()
		r.conns = append(r.conns, sc)
		r.mu.Unlock()
		return sc, nil
	}}
	c.Forward = &listener.Forwarder{URL: r.tg.URL, Client: listener.NewForwardClient(time.Second, false)}
	start(t, c)
	waitUntil(t, "the session opens", func() bool { _, ok := hub.Connected("t", "w"); return ok })
	return r
}

func (r *pauseRig) conn() *sleepyConn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns[len(r.conns)-1]
}

// deliver makes n attempts at once, as the engine would, and returns their outcomes once
// every one has ended: the server's record of each.
func (r *pauseRig) deliver(t *testing.T, n int, first int) map[string]error {
	t.Helper()
	var mu sync.Mutex
	out := map[string]error{}
	var wg sync.WaitGroup
	for i := range n {
		id := fmt.Sprintf("d-%d", first+i)
		e := signedEvent(t, r.secret, id, "e-"+id)
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := r.hub.Deliver(context.Background(), "t", "w", e)
			if err == nil && (a.StatusCode == nil || *a.StatusCode != 200) {
				err = fmt.Errorf("ack %+v", a)
			}
			mu.Lock()
			out[id] = err
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// agree checks that the server's records and what reached the target are the same: every
// attempt recorded succeeded was forwarded, once, and none recorded failed was.
func (r *pauseRig) agree(t *testing.T, records map[string]error) {
	t.Helper()
	got := map[string]int{}
	for _, req := range r.tg.requests() {
		got[req.Header.Get("webhook-id")]++
	}
	for id, err := range records {
		if n := got["e-"+id]; (err == nil && n != 1) || (err != nil && n != 0) {
			t.Errorf("%s: recorded %v, forwarded %d times", id, err, n)
		}
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(clientWait) // a bound for a broken session, not a timing check
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, clientWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPauseLongerThanTheDeadline: a client asleep past its attempts' deadline finds their
// events in its socket at the wake; the server recorded them failed, and the client drops them
// unforwarded (late), then goes on with new ones.
func TestPauseLongerThanTheDeadline(t *testing.T) {
	hub := listener.NewHub()
	hub.AckWait = 300 * time.Millisecond
	var mu sync.Mutex
	var late []string
	c := &listener.Client{DeadlineMargin: 50 * time.Millisecond, OnReceived: func(r listener.EventResult) {
		if r.Late {
			mu.Lock()
			late = append(late, r.Event.DeliveryID)
			mu.Unlock()
		}
	}}
	r := newPauseRig(t, hub, c)

	r.conn().sleep()
	records := r.deliver(t, 3, 1) // every one ends at its deadline, the client asleep
	for id, err := range records {
		if !errors.Is(err, listener.ErrAckTimeout) {
			t.Fatalf("%s: %v, want %v", id, err, listener.ErrAckTimeout)
		}
	}
	r.conn().awake()
	waitUntil(t, "the client reads the three late events", func() bool { mu.Lock(); defer mu.Unlock(); return len(late) == 3 })
	// the session goes on: a new attempt is forwarded and recorded
	for id, err := range r.deliver(t, 1, 4) {
		records[id] = err
	}
	if records["d-4"] != nil {
		t.Fatalf("after the wake: %v", records["d-4"])
	}
	r.agree(t, records)
}

// TestPauseLongerThanTheConnection: asleep long enough for the server to drop the connection
// but not past the deadline, the client forwards what it finds in its socket at the wake and
// sends the Acks on its next connection, where the server takes them: every attempt is recorded
// as it went. Whatever the order of the wake's events, records and forwards agree.
func TestPauseLongerThanTheConnection(t *testing.T) {
	hub := listener.NewHub()
	hub.AckWait, hub.PongWait, hub.PingEvery = 5*time.Second, 300*time.Millisecond, 50*time.Millisecond
	c := &listener.Client{DeadlineMargin: 100 * time.Millisecond, PongWait: 300 * time.Millisecond, PingEvery: 50 * time.Millisecond,
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}
	r := newPauseRig(t, hub, c)

	sc := r.conn()
	sc.sleep()
	var records map[string]error
	done := make(chan struct{})
	go func() { records = r.deliver(t, 3, 1); close(done) }()
	waitUntil(t, "the server drops the sleeping client", func() bool { _, ok := hub.Connected("t", "w"); return !ok })
	sc.awake()
	<-done
	for id, err := range records {
		if err != nil {
			t.Errorf("%s: %v: the Ack of the next connection was not taken", id, err)
		}
	}
	r.agree(t, records)
}
