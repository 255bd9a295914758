package listener_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
)

// clientWait bounds every wait of these tests, so that a bug fails instead of hanging.
const clientWait = 10 * time.Second

// fakeListen is a websocket server speaking the listen protocol as each test drives it.
type fakeListen struct {
	*httptest.Server
	conns  chan *websocket.Conn
	mu     sync.Mutex
	reqs   []*http.Request
	refuse func(w http.ResponseWriter) bool // answers instead of upgrading when it returns true
}

func newFakeListen(t *testing.T) *fakeListen {
	t.Helper()
	f := &fakeListen{conns: make(chan *websocket.Conn, 8)}
	up := websocket.Upgrader{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(context.Background()))
		refuse := f.refuse
		f.mu.Unlock()
		if r.URL.Path != listener.Path {
			http.NotFound(w, r)
			return
		}
		if refuse != nil && refuse(w) {
			return
		}
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		f.conns <- ws
	}))
	t.Cleanup(f.Close)
	return f
}

// accept waits for the client's next connection.
func (f *fakeListen) accept(t *testing.T) *websocket.Conn {
	t.Helper()
	select {
	case ws := <-f.conns:
		t.Cleanup(func() { ws.Close() })
		return ws
	case <-time.After(clientWait):
		t.Fatal("the client did not connect")
		return nil
	}
}

func (f *fakeListen) setRefuse(refuse func(w http.ResponseWriter) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = refuse
}

func (f *fakeListen) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

func (f *fakeListen) wsURL(t *testing.T, events ...string) string {
	t.Helper()
	u, err := listener.DialURL(f.URL, events)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func sendJSON(t *testing.T, ws *websocket.Conn, v any) {
	t.Helper()
	if err := ws.WriteJSON(v); err != nil {
		t.Fatalf("server write: %v", err)
	}
}

func sendReady(t *testing.T, ws *websocket.Conn, secret string) {
	t.Helper()
	sendJSON(t, ws, listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"*"}, SessionExpiresAt: "2030-01-01T00:00:00.000Z"})
}

// readAck reads the client's next message, which must be an ack.
func readAck(t *testing.T, ws *websocket.Conn) listener.Ack {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(clientWait))
	_, raw, err := ws.ReadMessage()
	if err != nil {
		t.Fatalf("server read: %v", err)
	}
	var a listener.Ack
	if err := json.Unmarshal(raw, &a); err != nil || a.Type != listener.TypeAck {
		t.Fatalf("not an ack: %s", raw)
	}
	return a
}

// readClose reads until the client's close frame and returns its code; it may run in a goroutine.
func readClose(ws *websocket.Conn) (int, error) {
	ws.SetReadDeadline(time.Now().Add(clientWait))
	for {
		_, _, err := ws.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ce.Code, nil
		}
		if err != nil {
			return 0, fmt.Errorf("server read: %v, want a close frame", err)
		}
	}
}

// stopClosed stops the client while the server reads, and checks that the client closed the
// connection normally.
func stopClosed(t *testing.T, stop func() error, ws *websocket.Conn) {
	t.Helper()
	type closed struct {
		code int
		err  error
	}
	done := make(chan closed, 1)
	go func() {
		code, err := readClose(ws)
		done <- closed{code, err}
	}()
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if c := <-done; c.err != nil || c.code != websocket.CloseNormalClosure {
		t.Fatalf("close code %d, %v", c.code, c.err)
	}
}

// signedEvent is an event signed with secret, as the server sends it.
func signedEvent(t *testing.T, secret, deliveryID, eventID string) listener.Event {
	t.Helper()
	body := `{"id":"` + eventID + `","type":"invoice.canceled","createdAt":"2030-01-01T00:00:00.000Z","personId":null,` +
		`"data":{"relatedObject":{"id":"inv-1","type":"invoice","url":"/api/v4/invoices/inv-1"},"status":"Cancelado","previousStatus":"Vigente"}}`
	now := time.Now()
	sig, err := webhook.Sign([]string{secret}, eventID, now, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	h := map[string]string{}
	for k, vs := range webhook.Headers(eventID, now, sig) {
		h[strings.ToLower(k)] = vs[0]
	}
	return listener.Event{Type: listener.TypeEvent, DeliveryID: deliveryID, EventID: eventID, EventType: "invoice.canceled", Kind: "automatic", Headers: h, Body: body}
}

// recorder keeps what the callbacks saw.
type recorder struct {
	mu          sync.Mutex
	readies     []bool // reconnected, per Ready
	events      []listener.EventResult
	disconnects []error
}

func (r *recorder) hook(c *listener.Client) {
	c.OnReady = func(_ listener.Ready, reconnected bool) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.readies = append(r.readies, reconnected)
		return nil
	}
	c.OnEvent = func(e listener.EventResult) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.events = append(r.events, e)
	}
	c.OnDisconnect = func(err error, _ time.Duration, _ int) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.disconnects = append(r.disconnects, err)
	}
}

func (r *recorder) results() []listener.EventResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]listener.EventResult(nil), r.events...)
}

// target is a forward target that records what it receives.
type target struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []targetReq
	// block, when set, holds each request until it is closed; got receives each arrival.
	block chan struct{}
	got   chan struct{}
}

type targetReq struct {
	Path   string
	Header http.Header
	Body   string
}

func newTarget(t *testing.T, status int, answer string) *target {
	t.Helper()
	tg := &target{got: make(chan struct{}, 16)}
	tg.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		tg.mu.Lock()
		tg.reqs = append(tg.reqs, targetReq{Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
		block := tg.block
		tg.mu.Unlock()
		tg.got <- struct{}{}
		if block != nil {
			<-block
		}
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *target) requests() []targetReq {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]targetReq(nil), tg.reqs...)
}

// start runs the client until the test ends; stop cancels it and returns Run's error.
func start(t *testing.T, c *listener.Client) (stop func() error, errc chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc = make(chan error, 1)
	go func() { errc <- c.Run(ctx) }()
	wait := func() error {
		select {
		case err := <-errc:
			return err
		case <-time.After(clientWait):
			t.Fatal("Run did not return")
			return nil
		}
	}
	var once sync.Once
	var result error
	stop = func() error {
		once.Do(func() { cancel(); result = wait() })
		return result
	}
	t.Cleanup(func() { cancel() })
	return stop, errc
}

func header(v ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(v); i += 2 {
		h.Set(v[i], v[i+1])
	}
	return h
}

func TestClientVerifiesForwardsAndAcks(t *testing.T) {
	srv := newFakeListen(t)
	tg := newTarget(t, 201, "hello")
	secret := webhook.NewSecret()
	var rec recorder
	c := &listener.Client{
		URL:    srv.wsURL(t, "invoice.canceled", "invoice.stamped"),
		Header: header("X-TENANT-KEY", "tenant-1", "X-API-KEY", "sk_test_1"),
		Forward: &listener.Forwarder{URL: tg.URL + "/hooks", Header: header("X-Extra", "yes"),
			Client: listener.NewForwardClient(5*time.Second, false)},
	}
	rec.hook(c)
	stop, _ := start(t, c)

	ws := srv.accept(t)
	r := srv.requests()[0]
	if r.Header.Get("X-TENANT-KEY") != "tenant-1" || r.Header.Get("X-API-KEY") != "sk_test_1" || r.URL.Query().Get("events") != "invoice.canceled,invoice.stamped" {
		t.Fatalf("handshake: %v %v", r.Header, r.URL)
	}
	sendReady(t, ws, secret)

	// a valid event is forwarded as a delivery, and the answer goes back in the ack
	e := signedEvent(t, secret, "d-1", "e-1")
	sendJSON(t, ws, e)
	a := readAck(t, ws)
	if a.DeliveryID != "d-1" || a.StatusCode == nil || *a.StatusCode != 201 || a.Excerpt != "hello" || a.Error != "" {
		t.Fatalf("ack %+v", a)
	}
	got := tg.requests()
	if len(got) != 1 {
		t.Fatalf("%d forwards", len(got))
	}
	f := got[0]
	if f.Path != "/hooks" || f.Body != e.Body || f.Header.Get("Content-Type") != "application/json" || f.Header.Get("X-Extra") != "yes" {
		t.Fatalf("forward %+v", f)
	}
	if err := webhook.Verify(secret, f.Header, []byte(f.Body), time.Now(), 0); err != nil {
		t.Fatalf("the forward does not carry the signature: %v (%v)", err, f.Header)
	}
	res := rec.results()
	if len(res) != 1 || !res[0].Verified || res[0].Forward == nil || *res[0].Forward.StatusCode != 201 || res[0].Forward.URL != tg.URL+"/hooks" {
		t.Fatalf("results %+v", res)
	}

	// a bad signature: not forwarded, said so in the ack
	bad := signedEvent(t, webhook.NewSecret(), "d-2", "e-2")
	sendJSON(t, ws, bad)
	a = readAck(t, ws)
	if a.DeliveryID != "d-2" || a.StatusCode != nil || a.Error != listener.ErrorSignature || a.Excerpt != "" {
		t.Fatalf("ack %+v", a)
	}
	if n := len(tg.requests()); n != 1 {
		t.Fatalf("an unverified event was forwarded (%d forwards)", n)
	}
	res = rec.results()
	if len(res) != 2 || res[1].Verified || !errors.Is(res[1].VerifyError, webhook.ErrNoMatchingSignature) || res[1].Forward != nil {
		t.Fatalf("results %+v", res[1])
	}

	// messages of other types are ignored; the session goes on
	sendJSON(t, ws, map[string]any{"type": "news", "deliveryId": "x"})
	sendJSON(t, ws, signedEvent(t, secret, "d-3", "e-3"))
	if a := readAck(t, ws); a.DeliveryID != "d-3" {
		t.Fatalf("ack %+v", a)
	}

	// the end: a normal close frame, Run returns nil
	stopClosed(t, stop, ws)
}

func TestClientWithoutTargetOrUnreachableTarget(t *testing.T) {
	srv := newFakeListen(t)
	secret := webhook.NewSecret()

	// no target: status null, no error
	c := &listener.Client{URL: srv.wsURL(t)}
	stop, _ := start(t, c)
	ws := srv.accept(t)
	if q := srv.requests()[0].URL.RawQuery; q != "" {
		t.Fatalf("query %q, want none (all events)", q)
	}
	sendReady(t, ws, secret)
	sendJSON(t, ws, signedEvent(t, secret, "d-1", "e-1"))
	if a := readAck(t, ws); a.DeliveryID != "d-1" || a.StatusCode != nil || a.Error != "" || a.Excerpt != "" {
		t.Fatalf("ack %+v", a)
	}
	stopClosed(t, stop, ws)

	// a target that refuses connections: the delivery's error value
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	c = &listener.Client{URL: srv.wsURL(t), Forward: &listener.Forwarder{URL: gone.URL, Client: listener.NewForwardClient(time.Second, false)}}
	stop, _ = start(t, c)
	ws = srv.accept(t)
	sendReady(t, ws, secret)
	sendJSON(t, ws, signedEvent(t, secret, "d-2", "e-2"))
	if a := readAck(t, ws); a.StatusCode != nil || a.Error != webhook.ErrorConnectionFailed || len(a.Error) > listener.MaxErrorLength {
		t.Fatalf("ack %+v", a)
	}
	stopClosed(t, stop, ws)
}

// After a drop the client reconnects; an event sent again with the same deliveryId is reported
// once, forwarded once, and acknowledged again.
func TestClientReconnectsWithoutDuplicates(t *testing.T) {
	srv := newFakeListen(t)
	tg := newTarget(t, 200, "ok")
	secret := webhook.NewSecret()
	var rec recorder
	c := &listener.Client{URL: srv.wsURL(t), MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		Forward: &listener.Forwarder{URL: tg.URL, Client: listener.NewForwardClient(5*time.Second, false)}}
	rec.hook(c)
	stop, _ := start(t, c)

	ws := srv.accept(t)
	sendReady(t, ws, secret)
	e1 := signedEvent(t, secret, "d-1", "e-1")
	sendJSON(t, ws, e1)
	if a := readAck(t, ws); a.DeliveryID != "d-1" || *a.StatusCode != 200 {
		t.Fatalf("ack %+v", a)
	}
	ws.NetConn().Close() // the connection drops, without a close frame

	ws = srv.accept(t)
	sendReady(t, ws, secret)
	sendJSON(t, ws, signedEvent(t, secret, "d-1", "e-1")) // sent again, re-signed
	if a := readAck(t, ws); a.DeliveryID != "d-1" || a.StatusCode == nil || *a.StatusCode != 200 || a.Excerpt != "ok" {
		t.Fatalf("ack of the repeated delivery %+v", a)
	}
	sendJSON(t, ws, signedEvent(t, secret, "d-2", "e-2"))
	if a := readAck(t, ws); a.DeliveryID != "d-2" {
		t.Fatalf("ack %+v", a)
	}
	stopClosed(t, stop, ws)

	res := rec.results()
	if len(res) != 2 || res[0].Event.DeliveryID != "d-1" || res[1].Event.DeliveryID != "d-2" {
		t.Fatalf("results %+v", res)
	}
	if n := len(tg.requests()); n != 2 {
		t.Fatalf("%d forwards, want 2", n)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.readies) != 2 || rec.readies[0] || !rec.readies[1] {
		t.Fatalf("readies %v", rec.readies)
	}
	if len(rec.disconnects) != 1 {
		t.Fatalf("disconnects %v", rec.disconnects)
	}
}

// An event sent again while its first copy is still being forwarded (its connection dropped
// meanwhile) is forwarded once; the new connection gets the outcome.
func TestClientRepeatWhileForwarding(t *testing.T) {
	srv := newFakeListen(t)
	tg := newTarget(t, 202, "later")
	tg.block = make(chan struct{})
	secret := webhook.NewSecret()
	var rec recorder
	c := &listener.Client{URL: srv.wsURL(t), MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		Forward: &listener.Forwarder{URL: tg.URL, Client: listener.NewForwardClient(20*time.Second, false)}}
	rec.hook(c)
	stop, _ := start(t, c)

	ws := srv.accept(t)
	sendReady(t, ws, secret)
	sendJSON(t, ws, signedEvent(t, secret, "d-1", "e-1"))
	select {
	case <-tg.got:
	case <-time.After(clientWait):
		t.Fatal("no forward")
	}
	ws.NetConn().Close()

	ws = srv.accept(t)
	sendReady(t, ws, secret)
	sendJSON(t, ws, signedEvent(t, secret, "d-1", "e-1"))
	close(tg.block)
	if a := readAck(t, ws); a.DeliveryID != "d-1" || a.StatusCode == nil || *a.StatusCode != 202 || a.Excerpt != "later" {
		t.Fatalf("ack %+v", a)
	}
	stopClosed(t, stop, ws)
	if n := len(tg.requests()); n != 1 {
		t.Fatalf("%d forwards, want 1", n)
	}
	if n := len(rec.results()); n != 1 {
		t.Fatalf("%d results, want 1", n)
	}
}

// An event is reported the moment it arrives (OnReceived, Pending), while its forward is held
// by the target, and again with the outcome (OnEvent): the answer's status, header and body.
func TestClientReportsArrivalBeforeTheForwardEnds(t *testing.T) {
	srv := newFakeListen(t)
	tg := newTarget(t, 500, "<html>"+strings.Repeat("x", 2000)+"</html>")
	tg.block = make(chan struct{})
	secret := webhook.NewSecret()
	arrived := make(chan listener.EventResult, 4)
	var rec recorder
	c := &listener.Client{URL: srv.wsURL(t), Forward: &listener.Forwarder{URL: tg.URL, Header: header("X-Dev", "1"),
		Client: listener.NewForwardClient(20*time.Second, false)}}
	rec.hook(c)
	c.OnReceived = func(r listener.EventResult) { arrived <- r }
	stop, _ := start(t, c)
	ws := srv.accept(t)
	sendReady(t, ws, secret)
	sendJSON(t, ws, signedEvent(t, secret, "d-1", "e-1"))
	sendJSON(t, ws, signedEvent(t, webhook.NewSecret(), "d-2", "e-2"))
	var got []listener.EventResult
	for range 2 {
		select {
		case r := <-arrived:
			got = append(got, r)
		case <-time.After(clientWait):
			t.Fatal("no arrival while the forward is held")
		}
	}
	if r := got[0]; r.Event.DeliveryID != "d-1" || !r.Verified || !r.Pending || r.Forward != nil {
		t.Fatalf("arrival %+v", r)
	}
	if r := got[1]; r.Event.DeliveryID != "d-2" || r.Verified || r.Pending || r.Forward != nil {
		t.Fatalf("arrival of a bad signature %+v", r)
	}
	if a := readAck(t, ws); a.DeliveryID != "d-2" { // not forwarded: acknowledged at once
		t.Fatalf("ack %+v", a)
	}
	if n := len(rec.results()); n != 1 {
		t.Fatalf("%d outcomes while the forward is held, want 1 (the bad signature)", n)
	}
	close(tg.block)
	if a := readAck(t, ws); a.DeliveryID != "d-1" || a.StatusCode == nil || *a.StatusCode != 500 || len(a.Excerpt) != 1024 {
		t.Fatalf("ack %+v", a)
	}
	stopClosed(t, stop, ws)
	res := rec.results()
	if len(res) != 2 || res[1].Event.DeliveryID != "d-1" || res[1].Pending || res[1].Forward == nil {
		t.Fatalf("outcomes %+v", res)
	}
	fr := res[1].Forward
	if len(fr.Body) != 2013 || !strings.HasPrefix(fr.Body, "<html>") || fr.Header.Get("Content-Type") == "" ||
		fr.RequestHeader.Get("X-Dev") != "1" || fr.RequestHeader.Get("Webhook-Signature") == "" || fr.ErrorText() != "" {
		t.Fatalf("forward %+v", fr)
	}
	if s := (&listener.ForwardResult{Error: "ConnectionFailed", Err: errors.New("dial tcp: connection refused")}).ErrorText(); s != "ConnectionFailed: dial tcp: connection refused" {
		t.Fatalf("ErrorText %q", s)
	}
}

// CloseReplaced ends Run with ErrReplaced, without reconnecting.
func TestClientReplaced(t *testing.T) {
	srv := newFakeListen(t)
	c := &listener.Client{URL: srv.wsURL(t), MinBackoff: time.Millisecond}
	var rec recorder
	rec.hook(c)
	_, errc := start(t, c)
	ws := srv.accept(t)
	sendReady(t, ws, webhook.NewSecret())
	msg := websocket.FormatCloseMessage(listener.CloseReplaced, "replaced by a newer timbra listen of the same person")
	if err := ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(clientWait)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, listener.ErrReplaced) {
			t.Fatalf("Run: %v, want ErrReplaced", err)
		}
	case <-time.After(clientWait):
		t.Fatal("Run did not return")
	}
	if n := len(srv.requests()); n != 1 {
		t.Fatalf("%d connections, want 1", n)
	}
	if len(rec.disconnects) != 0 {
		t.Fatalf("disconnects %v", rec.disconnects)
	}
}

// OnReady can end the session at once (timbra listen --print-secret).
func TestClientStopAtReady(t *testing.T) {
	srv := newFakeListen(t)
	secret := webhook.NewSecret()
	for _, stopWith := range []error{listener.ErrStop, errors.New("no thanks")} {
		var got string
		c := &listener.Client{URL: srv.wsURL(t), OnReady: func(r listener.Ready, _ bool) error {
			got = r.Secret
			return stopWith
		}}
		_, errc := start(t, c)
		ws := srv.accept(t)
		sendReady(t, ws, secret)
		if code, err := readClose(ws); err != nil || code != websocket.CloseNormalClosure {
			t.Fatalf("close code %d, %v", code, err)
		}
		var err error
		select {
		case err = <-errc:
		case <-time.After(clientWait):
			t.Fatal("Run did not return")
		}
		want := stopWith
		if stopWith == listener.ErrStop {
			want = nil
		}
		if err != want || got != secret {
			t.Fatalf("Run: %v, want %v; secret %q", err, want, got)
		}
	}
}

func TestClientHandshakeRefused(t *testing.T) {
	srv := newFakeListen(t)
	srv.setRefuse(func(w http.ResponseWriter) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"data":null,"succeeded":false,"message":"Unauthorized","details":"bad keys","httpStatusCode":401,"traceIdentifier":"t"}`)
		return true
	})
	err := (&listener.Client{URL: srv.wsURL(t)}).Run(context.Background())
	var he *listener.HandshakeError
	if !errors.As(err, &he) || he.StatusCode != 401 || !strings.Contains(string(he.Body), "bad keys") {
		t.Fatalf("Run: %v", err)
	}

	// the first connection is not retried
	srv.Close()
	var rec recorder
	c := &listener.Client{URL: srv.wsURL(t), MinBackoff: time.Millisecond}
	rec.hook(c)
	if err := c.Run(context.Background()); err == nil || len(rec.disconnects) != 0 {
		t.Fatalf("Run: %v, disconnects %v", err, rec.disconnects)
	}
}

// A connection on which nothing arrives (not even pongs) counts as dropped.
func TestClientSilentConnectionIsDropped(t *testing.T) {
	srv := newFakeListen(t)
	secret := webhook.NewSecret()
	var rec recorder
	c := &listener.Client{URL: srv.wsURL(t), MinBackoff: time.Millisecond, PingEvery: 20 * time.Millisecond, PongWait: 100 * time.Millisecond}
	rec.hook(c)
	stop, _ := start(t, c)
	ws := srv.accept(t)
	sendReady(t, ws, secret) // then never reads, so never answers a ping
	ws2 := srv.accept(t)
	sendReady(t, ws2, secret)
	go func() {
		for { // answers pings while it reads
			if _, _, err := ws2.ReadMessage(); err != nil {
				return
			}
		}
	}()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.disconnects) == 0 || !strings.Contains(rec.disconnects[0].Error(), "no message from the server") {
		t.Fatalf("disconnects %v", rec.disconnects)
	}
}

func TestDialURL(t *testing.T) {
	for _, tc := range []struct {
		base   string
		events []string
		want   string
	}{
		{"http://127.0.0.1:8080", nil, "ws://127.0.0.1:8080/api/v4/listen"},
		{"https://api.example.com/", []string{"invoice.canceled", "invoice.stamped"}, "wss://api.example.com/api/v4/listen?events=invoice.canceled%2Cinvoice.stamped"},
		{"http://localhost:8080/timbra/", []string{"*"}, "ws://localhost:8080/timbra/api/v4/listen?events=%2A"},
	} {
		got, err := listener.DialURL(tc.base, tc.events)
		if err != nil || got != tc.want {
			t.Errorf("DialURL(%q, %v) = %q, %v; want %q", tc.base, tc.events, got, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x", "http://", "localhost:8080"} {
		if _, err := listener.DialURL(bad, nil); err == nil {
			t.Errorf("DialURL(%q) accepted", bad)
		}
	}
}

// Reachable tells a target where something listens from one where nothing does.
func TestForwarderReachable(t *testing.T) {
	tg := newTarget(t, 200, "ok")
	if err := (&listener.Forwarder{URL: tg.URL + "/hooks"}).Reachable(context.Background()); err != nil {
		t.Fatalf("a listening target: %v", err)
	}
	if n := len(tg.requests()); n != 0 {
		t.Fatalf("the check sent %d requests", n)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	err := (&listener.Forwarder{URL: gone.URL}).Reachable(context.Background())
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("a closed port: %v", err)
	}
}

// TestClientRoutes: an event goes to every route that takes its type, at once; the ack carries
// the first route that failed, else the first; an event no route takes is acknowledged as not
// forwarded.
func TestClientRoutes(t *testing.T) {
	srv := newFakeListen(t)
	invoices, all, failing := newTarget(t, 200, "invoices"), newTarget(t, 202, "all"), newTarget(t, 500, "boom")
	secret := webhook.NewSecret()
	var rec recorder
	hc := listener.NewForwardClient(5*time.Second, false)
	c := &listener.Client{URL: srv.wsURL(t), Routes: []listener.Route{
		{Types: []string{"invoice.*"}, Forward: &listener.Forwarder{URL: invoices.URL + "/inv", Client: hc}},
		{Forward: &listener.Forwarder{URL: all.URL + "/all", Client: hc}},
		{Types: []string{"webhook.test"}, Forward: &listener.Forwarder{URL: failing.URL + "/test", Client: hc}},
	}}
	rec.hook(c)
	start(t, c)
	ws := srv.accept(t)
	sendReady(t, ws, secret)

	sendJSON(t, ws, signedEvent(t, secret, "d-1", "e-1")) // invoice.canceled: the first two routes
	if a := readAck(t, ws); a.StatusCode == nil || *a.StatusCode != 200 || a.Excerpt != "invoices" {
		t.Fatalf("ack %+v", a)
	}
	if len(invoices.requests()) != 1 || len(all.requests()) != 1 || len(failing.requests()) != 0 {
		t.Fatalf("forwards: %d %d %d", len(invoices.requests()), len(all.requests()), len(failing.requests()))
	}
	res := rec.results()
	if r := res[0]; len(r.Targets) != 2 || len(r.Forwards) != 2 || r.Forwards[1].URL != all.URL+"/all" || r.Forward.URL != invoices.URL+"/inv" {
		t.Fatalf("result %+v", r)
	}

	e := signedEvent(t, secret, "d-2", "e-2") // webhook.test: the last two; the failing one is acked
	e.EventType = "webhook.test"
	sendJSON(t, ws, e)
	if a := readAck(t, ws); a.StatusCode == nil || *a.StatusCode != 500 || a.Excerpt != "boom" {
		t.Fatalf("ack %+v", a)
	}
	if len(invoices.requests()) != 1 || len(all.requests()) != 2 || len(failing.requests()) != 1 {
		t.Fatalf("forwards: %d %d %d", len(invoices.requests()), len(all.requests()), len(failing.requests()))
	}

	c2 := &listener.Client{URL: srv.wsURL(t), Routes: c.Routes[:1]}
	var rec2 recorder
	rec2.hook(c2)
	start(t, c2)
	ws2 := srv.accept(t)
	sendReady(t, ws2, secret)
	e = signedEvent(t, secret, "d-3", "e-3")
	e.EventType = "webhook.test"
	sendJSON(t, ws2, e)
	if a := readAck(t, ws2); a.StatusCode != nil || a.Error != "" {
		t.Fatalf("ack of an event no route takes: %+v", a)
	}
	if r := rec2.results(); len(r) != 1 || r[0].Forward != nil || len(r[0].Targets) != 0 {
		t.Fatalf("result %+v", r)
	}
}

func TestTypeMatches(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		typ      string
		want     bool
	}{
		{[]string{"*"}, "invoice.canceled", true},
		{[]string{"invoice.*"}, "invoice.canceled", true},
		{[]string{"invoice.*"}, "invoicex.canceled", false},
		{[]string{"invoice.*"}, "webhook.test", false},
		{[]string{"webhook.test", "invoice.stamped"}, "invoice.stamped", true},
		{[]string{"invoice.stamped"}, "invoice.stamped.more", false},
		{nil, "invoice.stamped", false},
	} {
		if got := listener.TypeMatches(c.patterns, c.typ); got != c.want {
			t.Errorf("TypeMatches(%v, %q) = %v", c.patterns, c.typ, got)
		}
	}
}
