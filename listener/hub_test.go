package listener

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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
