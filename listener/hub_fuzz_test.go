package listener

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// FuzzHubAcks: what a `timbra listen` client (or anything that connects as one) sends back to
// the server, frames separated by newlines ("@id@" stands for the delivery id under way). The
// hub never panics; a delivery ends with an ack of its own delivery id whose error is at most
// MaxErrorLength characters, or with an error of Deliver's when the session ends without one;
// an ack the client sent is passed on as sent (its error cut to the limit).
func FuzzHubAcks(f *testing.F) {
	f.Add([]byte(`{"type":"ack","deliveryId":"@id@","statusCode":200,"excerpt":"ok"}`))
	f.Add([]byte(`{"type":"ack","deliveryId":"other"}` + "\n" + `{"type":"ack","deliveryId":"@id@","error":"` + strings.Repeat("é", 100) + `"}`))
	f.Add([]byte(`not json` + "\n" + `{"type":"event"}` + "\n" + `{"type":"ack","deliveryId":"@id@","statusCode":-1}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, frames []byte) {
		if len(frames) > 32<<10 {
			return
		}
		hub := NewHub()
		// an Event written to a session that ends without its Ack waits for the Ack of the next
		// connection until its deadline: short here
		hub.AckWait = 200 * time.Millisecond
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			up := websocket.Upgrader{}
			conn, err := up.Upgrade(w, r, nil)
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
		const id = "d-1"
		type result struct {
			ack Ack
			err error
		}
		done := make(chan result, 1)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		go func() {
			a, err := hub.Deliver(ctx, "t", "p", Event{DeliveryID: id, EventID: "e", EventType: "x", Body: "{}"})
			done <- result{a, err}
		}()
		var ev Event
		if err := ws.ReadJSON(&ev); err != nil || ev.DeliveryID != id {
			t.Fatalf("event: %+v %v", ev, err)
		}
		var sent []Ack
		for _, fr := range bytes.Split(bytes.ReplaceAll(frames, []byte("@id@"), []byte(id)), []byte("\n")) {
			var a Ack
			if json.Unmarshal(fr, &a) == nil && a.Type == TypeAck && a.DeliveryID == id {
				sent = append(sent, a)
			}
			if err := ws.WriteMessage(websocket.TextMessage, fr); err != nil {
				break // the hub closed the session (a frame over its limit)
			}
		}
		ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		r := <-done
		if r.err != nil {
			// the session ended without an ack, or with one that its close overtook: no Ack
			// came on another connection before the deadline, the delivery fails
			if !errors.Is(r.err, ErrDropped) && !errors.Is(r.err, ErrAckTimeout) {
				t.Fatalf("deliver: %v", r.err)
			}
			return
		}
		if r.ack.DeliveryID != id || utf8.RuneCountInString(r.ack.Error) > MaxErrorLength {
			t.Fatalf("ack %+v", r.ack)
		}
		matched := false
		for _, a := range sent {
			cut := a.Error
			if utf8.RuneCountInString(cut) > MaxErrorLength {
				cut = string([]rune(cut)[:MaxErrorLength])
			}
			matched = matched || (cut == r.ack.Error && a.Excerpt == r.ack.Excerpt && equalStatus(a.StatusCode, r.ack.StatusCode))
		}
		if !matched {
			t.Fatalf("ack %+v is none of those sent %+v", r.ack, sent)
		}
	})
}

func equalStatus(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
