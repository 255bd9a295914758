package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
)

func (f *hookFixture) dialListen(t *testing.T, query string) (*websocket.Conn, listener.Ready) {
	t.Helper()
	h := http.Header{"X-Tenant-Key": {f.creds.TenantKey}, "X-Api-Key": {f.creds.APIKey}}
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(f.http.URL, "http")+listener.Path+query, h)
	if err != nil {
		t.Fatalf("dial listen: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	var ready listener.Ready
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := conn.ReadJSON(&ready); err != nil || ready.Type != "ready" || !strings.HasPrefix(ready.Secret, "whsec_") {
		t.Fatalf("ready: %+v %v", ready, err)
	}
	return conn, ready
}

func readEvent(t *testing.T, conn *websocket.Conn) listener.Event {
	t.Helper()
	var ev listener.Event
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := conn.ReadJSON(&ev); err != nil || ev.Type != "event" {
		t.Fatalf("event: %+v %v", ev, err)
	}
	return ev
}

func ackEvent(conn *websocket.Conn, ev listener.Event, status int) {
	conn.WriteJSON(listener.Ack{Type: "ack", DeliveryID: ev.DeliveryID, StatusCode: &status})
}

func TestListenerSession(t *testing.T) {
	f := newHookFixture(t, "")
	if r := f.do("GET", listener.Path, ""); r.status != 400 || r.env.Details != MsgNotWebsocket {
		t.Fatalf("plain GET: %s", r.raw)
	}
	conn, ready := f.dialListen(t, "?events=invoice.canceled")
	// the listener is a webhook of kind cliListener, url null, listed for its person
	r := f.do("GET", "/api/v4/webhooks/"+ready.WebhookID, "")
	var w api.Webhook
	json.Unmarshal(r.env.Data, &w)
	if w.Kind != "cliListener" || w.URL != nil || w.ListenerPersonID == nil || *w.ListenerPersonID != f.creds.PersonID || w.SessionExpiresAt == nil {
		t.Fatalf("listener webhook: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", ""); r.status != 400 || r.env.Details != "Una escucha de CLI no se edita ni se prueba; usa timbra listen y timbra trigger." {
		t.Fatalf("test of a listener: %s", r.raw)
	}
	// a trigger without webhookId goes to the caller's listener, signed with its secret
	r = f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped"}`)
	var trig api.EventTriggered
	json.Unmarshal(r.env.Data, &trig)
	if r.status != 202 || trig.WebhookID != ready.WebhookID {
		t.Fatalf("trigger to the listener: %s", r.raw)
	}
	ev := readEvent(t, conn)
	h := http.Header{}
	for k, v := range ev.Headers {
		h.Set(k, v)
	}
	if err := webhook.Verify(ready.Secret, h, []byte(ev.Body), f.clock.Now(), 5*time.Minute); err != nil || ev.EventID != trig.EventID || ev.Kind != "test" {
		t.Fatalf("event %+v does not verify: %v", ev, err)
	}
	code := 201
	conn.WriteJSON(listener.Ack{Type: "ack", DeliveryID: ev.DeliveryID, StatusCode: &code, Excerpt: "created"})
	d := f.waitDelivery(ready.WebhookID, func(d api.Delivery) bool { return d.ID == ev.DeliveryID && d.Status != "pending" })
	if d.Status != "succeeded" || *d.LastStatusCode != 201 || d.LastResponseExcerpt != "created" {
		t.Fatalf("acknowledged delivery: %+v", d)
	}
	// real events reach an open session filtered by its types
	f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.stamped", "inv-1", nil)
	f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.canceled", "inv-1", nil)
	ev = readEvent(t, conn)
	if ev.EventType != "invoice.canceled" || ev.Kind != "automatic" {
		t.Fatalf("a real event: %+v (the session asked only for invoice.canceled)", ev)
	}
	conn.WriteJSON(listener.Ack{Type: "ack", DeliveryID: ev.DeliveryID, Error: "connection refused"})
	d = f.waitDelivery(ready.WebhookID, func(d api.Delivery) bool { return d.ID == ev.DeliveryID && d.Status != "pending" })
	if d.Status != "failed" || d.LastError == nil || *d.LastError != "connection refused" || d.Attempts != 1 {
		t.Fatalf("a forward error: %+v", d)
	}
	// resend without webhookId goes to the listener too
	if r := f.do("POST", "/api/v4/events/"+ev.EventID+"/resend", `{}`); r.status != 202 {
		t.Fatalf("resend to the listener: %s", r.raw)
	}
	ev2 := readEvent(t, conn)
	if ev2.EventID != ev.EventID || ev2.Kind != "manual" || ev2.Body != ev.Body {
		t.Fatalf("resent: %+v", ev2)
	}
	// a newer session of the same person replaces this one: it gets no new event, and is closed
	// once what it was sent is acknowledged (or past its deadline), so its acks are recorded
	conn2, ready2 := f.dialListen(t, "")
	if ready2.WebhookID != ready.WebhookID || ready2.Secret != ready.Secret {
		t.Fatal("the listener and its secret must be stable per person")
	}
	if ev2.Deadline == "" {
		t.Fatal("an event carries its attempt's deadline")
	}
	ackEvent(conn, ev2, 200)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := conn.ReadMessage()
	if !websocket.IsCloseError(err, listener.CloseReplaced) {
		t.Fatalf("the older session: %v, want close %d", err, listener.CloseReplaced)
	}
	d = f.waitDelivery(ready.WebhookID, func(d api.Delivery) bool { return d.ID != ev.DeliveryID && d.Kind == "manual" && d.Status != "pending" })
	if d.Status != "succeeded" || d.LastStatusCode == nil || *d.LastStatusCode != 200 {
		t.Fatalf("the ack of a replaced session: %+v", d)
	}
	// once no session is open, trigger and resend answer 409
	conn2.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped"}`)
		if r.status == 409 && r.env.Details == "La escucha de CLI no está conectada; ejecuta timbra listen." {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trigger after the session closed: %s", r.raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	expectFailure(t, func() result {
		h := http.Header{"X-Tenant-Key": {f.creds.TenantKey}, "X-Api-Key": {f.creds.APIKey}}
		_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(f.http.URL, "http")+listener.Path+"?events=nope", h)
		if err == nil {
			t.Fatal("a session for an unknown type opened")
		}
		defer resp.Body.Close()
		var env api.RawEnvelope
		json.NewDecoder(resp.Body).Decode(&env)
		return result{status: resp.StatusCode, env: env, raw: string(env.Data)}
	}(), "events", "El tipo de evento 'nope' no existe.")
}

// TestListenerSessionsOfOnePerson: each session name of a person is its own listener (its
// deliveries, its types, its secret); a session is replaced only by one of the same name; a
// resend or trigger without webhookId goes to the session named, else the default one, else the
// only one open.
func TestListenerSessionsOfOnePerson(t *testing.T) {
	f := newHookFixture(t, "")
	def, readyDef := f.dialListen(t, "")
	apiConn, readyAPI := f.dialListen(t, "?session=api&events=invoice.*")
	if readyDef.Session != "default" || readyAPI.Session != "api" || readyDef.WebhookID == readyAPI.WebhookID || readyDef.Secret == readyAPI.Secret {
		t.Fatalf("two sessions: %+v %+v", readyDef, readyAPI)
	}
	// the list shows each listener's session; the default one is stored as every listener was
	// before sessions had names
	for id, want := range map[string]string{readyDef.WebhookID: "default", readyAPI.WebhookID: "api"} {
		var w api.Webhook
		json.Unmarshal(f.do("GET", "/api/v4/webhooks/"+id, "").env.Data, &w)
		if w.ListenerSession == nil || *w.ListenerSession != want || w.EnabledEvents[0] != map[string]string{"default": "*", "api": "invoice.*"}[want] {
			t.Fatalf("listener %s: %+v", id, w)
		}
	}
	// a real event reaches both, each through its own delivery
	f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.canceled", "inv-1", nil)
	e1, e2 := readEvent(t, def), readEvent(t, apiConn)
	if e1.EventID != e2.EventID || e1.DeliveryID == e2.DeliveryID {
		t.Fatalf("one event, two sessions: %+v %+v", e1, e2)
	}
	ackEvent(def, e1, 200)
	ackEvent(apiConn, e2, 200)
	// without webhookId: the session named, else the default one
	if r := f.do("POST", "/api/v4/events/"+e1.EventID+"/resend", `{"listenerSession":"api"}`); r.status != 202 || !strings.Contains(r.raw, readyAPI.WebhookID) {
		t.Fatalf("resend to the session api: %s", r.raw)
	}
	if ev := readEvent(t, apiConn); ev.Kind != "manual" {
		t.Fatalf("resent to api: %+v", ev)
	} else {
		ackEvent(apiConn, ev, 200)
	}
	if r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped"}`); r.status != 202 || !strings.Contains(r.raw, readyDef.WebhookID) {
		t.Fatalf("trigger to the default session: %s", r.raw)
	}
	ackEvent(def, readEvent(t, def), 200)
	if r := f.do("POST", "/api/v4/events/"+e1.EventID+"/resend", `{"listenerSession":"nope"}`); r.status != 409 || r.env.Details != "La sesión 'nope' de timbra listen no está conectada; ejecuta timbra listen --session nope." {
		t.Fatalf("resend to a session not open: %s", r.raw)
	}
	// a newer api session replaces the api one only
	_, readyAPI2 := f.dialListen(t, "?session=api")
	if readyAPI2.WebhookID != readyAPI.WebhookID {
		t.Fatal("a session name keeps its listener")
	}
	apiConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := apiConn.ReadMessage(); !websocket.IsCloseError(err, listener.CloseReplaced) {
		t.Fatalf("the older api session: %v", err)
	}
	if _, ok := f.srv.hub.Connected(f.creds.TenantKey, readyDef.WebhookID); !ok {
		t.Fatal("the default session was closed by another name's")
	}
	// with the default one gone, the only one open takes them; with two others, a name is needed
	def.Close()
	if !waitFor(5*time.Second, func() bool { _, ok := f.srv.hub.Connected(f.creds.TenantKey, readyDef.WebhookID); return !ok }) {
		t.Fatal("the default session is still open")
	}
	if r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped"}`); r.status != 202 || !strings.Contains(r.raw, readyAPI.WebhookID) {
		t.Fatalf("trigger to the only session open: %s", r.raw)
	}
	f.dialListen(t, "?session=b")
	if r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped"}`); r.status != 409 || r.env.Details != "Tienes varias sesiones de timbra listen abiertas (api, b): nombra una (timbra events resend --session NOMBRE)." {
		t.Fatalf("trigger with two sessions open, none default: %s", r.raw)
	}
	// a session's name is checked
	h := http.Header{"X-Tenant-Key": {f.creds.TenantKey}, "X-Api-Key": {f.creds.APIKey}}
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(f.http.URL, "http")+listener.Path+"?session=a%20b", h)
	if err == nil || resp.StatusCode != 400 {
		t.Fatalf("a bad session name: %v %v", err, resp)
	}
	resp.Body.Close()
}

// TestListenerCatchUp: a session opened with since= is sent first, oldest first and marked
// replay, the events since then of its types that its listener has not received successfully,
// then live ones.
func TestListenerCatchUp(t *testing.T) {
	f := newHookFixture(t, "")
	start := f.clock.Now().Add(-time.Second).UTC().Format(time.RFC3339Nano)
	conn, ready := f.dialListen(t, "?events=invoice.*")
	emit := func(typ string) string {
		f.clock.Add(time.Millisecond)
		id, err := f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, typ, "inv-1", nil)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	got := emit("invoice.stamped")
	ackEvent(conn, readEvent(t, conn), 200) // received: not replayed
	f.waitDelivery(ready.WebhookID, func(d api.Delivery) bool { return d.EventID == got && d.Status == "succeeded" })
	conn.Close()
	if !waitFor(5*time.Second, func() bool { _, ok := f.srv.hub.Connected(f.creds.TenantKey, ready.WebhookID); return !ok }) {
		t.Fatal("the session is still open")
	}
	missed := []string{emit("invoice.canceled"), emit("invoice.stamped"), emit("invoice.canceled")}

	conn, ready = f.dialListen(t, "?events=invoice.*&since="+url.QueryEscape(start))
	if ready.Replaying != 3 {
		t.Fatalf("replaying %d, want 3", ready.Replaying)
	}
	for i, id := range missed {
		ev := readEvent(t, conn)
		if ev.EventID != id || !ev.Replay || ev.Kind != "manual" {
			t.Fatalf("replay %d: %+v, want %s", i, ev, id)
		}
		status := 200
		if i == 2 {
			status = 500
		}
		ackEvent(conn, ev, status)
	}
	live := emit("invoice.stamped")
	if ev := readEvent(t, conn); ev.EventID != live || ev.Replay {
		t.Fatalf("live after the catch-up: %+v", ev)
	} else {
		ackEvent(conn, ev, 200)
	}
	// since an event's id: after it; the one that failed is offered again
	for _, id := range []string{missed[2], live} {
		f.waitDelivery(ready.WebhookID, func(d api.Delivery) bool { return d.EventID == id && d.Status != "pending" })
	}
	_, ready = f.dialListen(t, "?events=invoice.*&since="+missed[1])
	if ready.Replaying != 1 {
		t.Fatalf("since %s: replaying %d, want 1 (%s, which failed)", missed[1], ready.Replaying, missed[2])
	}
	r := f.do("GET", listener.Path+"?since=nope", "")
	if r.status != 400 {
		t.Fatalf("a bad since: %s", r.raw)
	}
}
