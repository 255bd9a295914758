package listener

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestHubRefusesTextThatIsNotUTF8: a text frame that is not UTF-8 ends the session with close
// code 1007 (RFC 6455 §8.1); a valid one keeps it open.
func TestHubRefusesTextThatIsNotUTF8(t *testing.T) {
	for _, c := range []struct {
		name  string
		frame []byte
		code  int // 0: the session stays open
	}{
		{"UTF-8 that is not an ack", []byte(`{"type":"nota","x":"ñ"}`), 0},
		{"a lone continuation byte", []byte{'{', 0x80, '}'}, websocket.CloseInvalidFramePayloadData},
		{"a truncated sequence", []byte(`{"type":"ack","error":"` + "\xc3" + `"}`), websocket.CloseInvalidFramePayloadData},
	} {
		t.Run(c.name, func(t *testing.T) {
			hub := NewHub()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
				if err != nil {
					return
				}
				hub.Serve(conn, "t", "p", Ready{WebhookID: "w", Secret: "whsec_x", Events: []string{"*"}}, nil)
			}))
			defer srv.Close()
			ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			ws.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound for a broken hub, not a timing check
			var ready Ready
			if err := ws.ReadJSON(&ready); err != nil || ready.Type != TypeReady {
				t.Fatalf("ready: %+v %v", ready, err)
			}
			if err := ws.WriteMessage(websocket.TextMessage, c.frame); err != nil {
				t.Fatal(err)
			}
			if c.code == 0 {
				// still open: a ping from the client is answered with a pong
				pong := make(chan struct{}, 1)
				ws.SetPongHandler(func(string) error { pong <- struct{}{}; return nil })
				if err := ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second)); err != nil {
					t.Fatal(err)
				}
				go ws.ReadMessage()
				select {
				case <-pong:
				case <-time.After(10 * time.Second):
					t.Fatal("the session did not answer a ping after a valid frame")
				}
				return
			}
			_, _, err = ws.ReadMessage()
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != c.code {
				t.Fatalf("read after the frame: %v, want close %d", err, c.code)
			}
		})
	}
}

// A dead connection is noticed within 10 s on both sides: each pings often enough that a live
// peer is heard from several times within the silence allowed.
func TestLivenessTimings(t *testing.T) {
	if PongWait > 10*time.Second || 3*PingEvery > PongWait || RenewEvery < PongWait {
		t.Fatalf("PingEvery %s, PongWait %s, RenewEvery %s", PingEvery, PongWait, RenewEvery)
	}
}

// hubSession serves one hub session to a websocket client; the client's pings are counted.
func hubSession(t *testing.T, hub *Hub, onPong func()) *websocket.Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		hub.Serve(conn, "t", "p", Ready{WebhookID: "w", Secret: "whsec_x", Events: []string{"*"}}, onPong)
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	ws.SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound for a broken hub, not a timing check
	var ready Ready
	if err := ws.ReadJSON(&ready); err != nil || ready.Type != TypeReady {
		t.Fatalf("ready: %+v %v", ready, err)
	}
	return ws
}

// A client that stops answering (it reads nothing, so answers no ping) is dropped: its session
// leaves the hub and a delivery to it fails at once.
func TestHubDropsASilentClient(t *testing.T) {
	hub := &Hub{sessions: map[string]*session{}, PingEvery: 5 * time.Millisecond, PongWait: 50 * time.Millisecond}
	hubSession(t, hub, nil) // never read again
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := hub.Connected("t", "p"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the silent client's session is still open")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := hub.Deliver(t.Context(), "t", "p", Event{DeliveryID: "d"}); !errors.Is(err, ErrNotConnected) {
		t.Fatalf("Deliver: %v", err)
	}
}

// A client that answers pings keeps its session, and renews the listener at most once per
// RenewEvery however often it answers.
func TestHubRenewsAtMostOncePerRenewEvery(t *testing.T) {
	for _, c := range []struct {
		every    time.Duration
		min, max int
	}{{time.Hour, 1, 1}, {time.Nanosecond, 5, 1 << 30}} {
		var mu sync.Mutex
		renewals := 0
		hub := &Hub{sessions: map[string]*session{}, PingEvery: time.Millisecond, PongWait: 5 * time.Second, RenewEvery: c.every}
		ws := hubSession(t, hub, func() { mu.Lock(); renewals++; mu.Unlock() })
		pings := make(chan struct{}, 100)
		ws.SetPingHandler(func(data string) error {
			select {
			case pings <- struct{}{}:
			default:
			}
			return ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
		})
		go ws.ReadMessage()
		for range 20 {
			select {
			case <-pings:
			case <-time.After(10 * time.Second):
				t.Fatal("no ping")
			}
		}
		if _, ok := hub.Connected("t", "p"); !ok {
			t.Fatal("a client answering pings was dropped")
		}
		ws.Close()
		// the pongs sent before the close may still be on their way: count once the session ended
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, ok := hub.Connected("t", "p"); !ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the session outlived its connection")
			}
		}
		mu.Lock()
		n := renewals
		mu.Unlock()
		if n < c.min || n > c.max {
			t.Errorf("RenewEvery %s: %d renewals for 20 pings, want %d to %d", c.every, n, c.min, c.max)
		}
	}
}
