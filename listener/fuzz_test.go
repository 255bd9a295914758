package listener

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/webhook"
)

// FuzzClientFrames: what a server (or anything that answers the websocket) sends to `timbra
// listen`: a first frame, meant to be the Ready, then frames separated by newlines. The client
// never panics and never hangs; without a valid Ready it handles no event; OnEvent sees each
// delivery id once; an event counts as verified only when its signature is the Ready's secret's
// over its exact body, and a refused one is acknowledged with the signature error.
func FuzzClientFrames(f *testing.F) {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	ready := `{"type":"ready","webhookId":"w1","secret":"` + secret + `","events":["*"],"sessionExpiresAt":"2026-01-01T00:00:00Z"}`
	now := time.Now()
	body := `{"type":"invoice.stamped","data":{}}`
	sig, _ := webhook.Sign([]string{secret}, "01", now, []byte(body))
	hs := webhook.Headers("01", now, sig)
	event := `{"type":"event","deliveryId":"d1","eventId":"01","eventType":"invoice.stamped","kind":"test","headers":{"webhook-id":"01","webhook-timestamp":"` +
		hs.Get(webhook.HeaderTimestamp) + `","webhook-signature":"` + sig + `"},"body":` + quoteJSON(body) + `}`
	f.Add([]byte(ready), []byte(event+"\n"+event))
	f.Add([]byte(ready), []byte(`{"type":"event","deliveryId":"d2","headers":{},"body":"x"}`+"\n"+`{"type":"ack"}`+"\n"+`[1,2]`+"\n"+`{"type":"event"}`))
	f.Add([]byte(`{"type":"event"}`), []byte(event))
	f.Add([]byte(`not json`), []byte(nil))
	f.Fuzz(func(t *testing.T, first, rest []byte) {
		if len(rest) > 1<<16 {
			return
		}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			up := websocket.Upgrader{}
			ws, err := up.Upgrade(w, r, nil)
			if err != nil {
				return
			}
			defer ws.Close()
			ws.WriteMessage(websocket.TextMessage, first)
			for _, fr := range bytes.Split(rest, []byte("\n")) {
				ws.WriteMessage(websocket.TextMessage, fr)
			}
			// read acks until the client goes, at most a moment
			ws.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			for {
				if _, _, err := ws.ReadMessage(); err != nil {
					break
				}
			}
			ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		}))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var mu sync.Mutex
		var readySeen *Ready
		seen := map[string]bool{}
		var problems []string
		c := &Client{
			URL: "ws" + strings.TrimPrefix(srv.URL, "http") + Path,
			OnReady: func(r Ready, _ bool) error {
				mu.Lock()
				readySeen = &r
				mu.Unlock()
				return nil
			},
			OnEvent: func(res EventResult) {
				mu.Lock()
				defer mu.Unlock()
				id := res.Event.DeliveryID
				switch {
				case readySeen == nil:
					problems = append(problems, "event before a ready")
				case id == "" || seen[id]:
					problems = append(problems, "delivery id empty or seen twice: "+id)
				case res.Verified != (webhook.Verify(readySeen.Secret, headerOf(res.Event.Headers), []byte(res.Event.Body), res.ReceivedAt, SignatureTolerance) == nil):
					problems = append(problems, "verified does not match the signature of "+id)
				case !res.Verified && res.Ack.Error != ErrorSignature:
					problems = append(problems, "a refused event acknowledged without the signature error: "+id)
				case res.Ack.DeliveryID != id || res.Ack.Type != TypeAck:
					problems = append(problems, "ack does not name the delivery "+id)
				}
				seen[id] = true
			},
			OnDisconnect: func(error, time.Duration, int) { cancel() },
		}
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the client did not end after the connection closed")
		}
		mu.Lock()
		defer mu.Unlock()
		if len(problems) > 0 {
			t.Fatal(strings.Join(problems, "; "))
		}
	})
}

func headerOf(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
