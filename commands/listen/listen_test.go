package listen

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
)

// listenWait bounds the waits of these tests, so that a bug fails instead of hanging.
const listenWait = 10 * time.Second

func TestParseForwardTo(t *testing.T) {
	for in, want := range map[string]string{
		"3000":                         "http://localhost:3000",
		"3000/webhooks":                "http://localhost:3000/webhooks",
		":8080/x":                      "http://localhost:8080/x",
		"localhost:3000":               "http://localhost:3000",
		"localhost:3000/path?a=1":      "http://localhost:3000/path?a=1",
		"127.0.0.1:9000/hooks":         "http://127.0.0.1:9000/hooks",
		"[::1]:3000/h":                 "http://[::1]:3000/h",
		"example.test/hooks":           "http://example.test/hooks",
		"http://localhost:3000/hooks":  "http://localhost:3000/hooks",
		"https://localhost:8443/hooks": "https://localhost:8443/hooks",
		"HTTPS://dev.test/#frag":       "https://dev.test/",
		" 4242 ":                       "http://localhost:4242",
	} {
		got, err := parseForwardTo(in)
		if err != nil || got != want {
			t.Errorf("parseForwardTo(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://localhost/x", "ws://localhost:3000", "99999", "localhost:0", "http://", "http://u:p@localhost:3000", "localhost:abc"} {
		if got, err := parseForwardTo(bad); err == nil {
			t.Errorf("parseForwardTo(%q) = %q, want an error", bad, got)
		}
	}
}

func TestListenUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"listen", "extra"}, `unexpected argument "extra"`},
		{[]string{"listen", "--forward-to", "ftp://x"}, `invalid value "ftp://x" for --forward-to: the scheme "ftp" is not http or https`},
		{[]string{"listen", "--headers", "X-A: 1"}, "--headers needs --forward-to"},
		{[]string{"listen", "--skip-verify"}, "--skip-verify needs --forward-to"},
		{[]string{"listen", "--forward-to", "3000", "--headers", "nocolon"}, "want 'NAME: VALUE'"},
		{[]string{"listen", "--forward-to", "3000", "--headers", "webhook-signature: v1,x"}, "Webhook-Signature is set by timbra listen"},
		{[]string{"listen", "--forward-to", "3000", "--headers", "Bad Name: x"}, `"Bad Name" is not a header name`},
		{[]string{"listen", "--forward-to", "3000", "--forward-timeout", "0s"}, "invalid value 0s for --forward-timeout"},
		{[]string{"listen", "--forward-to", "3000", "--forward-timeout", "1m"}, "invalid value 1m0s for --forward-timeout"},
		{[]string{"listen", "--format", "xml"}, `invalid value "xml" for --format: use json or text`},
	} {
		r := runArgs(t, tc.args...)
		cmdtest.WantCode(t, r, 2)
		cmdtest.WantContains(t, strings.Join(tc.args, " "), r.Err, tc.want, "Run 'timbra listen --help'.")
	}
}

// fakeListenAPI is the API with its listen endpoint: each websocket accepted goes to conns.
type fakeListenAPI struct {
	*cmdtest.FakeAPI
	conns chan *websocket.Conn
}

func newFakeListenAPI(t *testing.T, refuse func(w http.ResponseWriter) bool) *fakeListenAPI {
	t.Helper()
	f := &fakeListenAPI{conns: make(chan *websocket.Conn, 4)}
	up := websocket.Upgrader{}
	f.FakeAPI = cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != listener.Path {
			cmdtest.WriteEnvelope(w, 404, nil, "not here", "t")
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
	})
	return f
}

func (f *fakeListenAPI) accept(t *testing.T) *websocket.Conn {
	t.Helper()
	select {
	case ws := <-f.conns:
		t.Cleanup(func() { ws.Close() })
		return ws
	case <-time.After(listenWait):
		t.Fatal("timbra listen did not connect")
		return nil
	}
}

func listenAck(t *testing.T, ws *websocket.Conn) listener.Ack {
	t.Helper()
	ws.SetReadDeadline(time.Now().Add(listenWait))
	var a listener.Ack
	if err := ws.ReadJSON(&a); err != nil {
		t.Fatalf("read ack: %v", err)
	}
	return a
}

// listenEvent is an event signed with secret at the tests' clock (the command's clock).
func listenEvent(t *testing.T, secret, deliveryID, eventID string) listener.Event {
	t.Helper()
	body := `{"id":"` + eventID + `","type":"invoice.canceled","createdAt":"2025-03-10T11:59:59.000Z","personId":"p-1",` +
		`"data":{"relatedObject":{"id":"inv-7","type":"invoice","url":"/api/v4/invoices/inv-7"},"status":"Cancelado","previousStatus":"Vigente"}}`
	sig, err := webhook.Sign([]string{secret}, eventID, cmdtest.Now, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	h := map[string]string{}
	for k, vs := range webhook.Headers(eventID, cmdtest.Now, sig) {
		h[strings.ToLower(k)] = vs[0]
	}
	return listener.Event{Type: listener.TypeEvent, DeliveryID: deliveryID, EventID: eventID, EventType: "invoice.canceled", Kind: "manual", Headers: h, Body: body}
}

// runAsync runs a command line in the background; the channel gives its result.
func runAsync(t *testing.T, o cmdtest.Opts, args ...string) <-chan cmdtest.Result {
	t.Helper()
	done := make(chan cmdtest.Result, 1)
	go func() { done <- run1(t, o, args...) }()
	return done
}

func waitResult(t *testing.T, done <-chan cmdtest.Result) cmdtest.Result {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(listenWait):
		t.Fatal("the command did not end")
		return cmdtest.Result{}
	}
}

func TestListenForwardsAndPrintsJSONLines(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, nil)
	cmdtest.UseAPI(t, srv.URL)
	var mu sync.Mutex
	var forwarded []*http.Request
	var bodies []string
	tg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		forwarded, bodies = append(forwarded, r.Clone(context.Background())), append(bodies, string(b))
		mu.Unlock()
		io.WriteString(w, "thanks")
	}))
	defer tg.Close()
	secret := webhook.NewSecret()

	done := runAsync(t, cmdtest.Opts{}, "listen", "--forward-to", tg.URL+"/hooks", "--events", "invoice.canceled",
		"--headers", "Authorization: Bearer a,b", "--headers", "X-Dev: 1")
	ws := srv.accept(t)
	req := srv.Last(t)
	if req.Header.Get("X-TENANT-KEY") != "tenant-1" || req.Header.Get("X-API-KEY") != "sk_test_0123456789abcdefWXYZ" || req.Query != "events=invoice.canceled" {
		t.Fatalf("handshake %+v", req)
	}
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"invoice.canceled"}})

	e := listenEvent(t, secret, "d-1", "e-1")
	ws.WriteJSON(e)
	if a := listenAck(t, ws); a.DeliveryID != "d-1" || a.StatusCode == nil || *a.StatusCode != 200 || a.Excerpt != "thanks" || a.Error != "" {
		t.Fatalf("ack %+v", a)
	}
	ws.WriteJSON(listenEvent(t, webhook.NewSecret(), "d-2", "e-2"))
	if a := listenAck(t, ws); a.DeliveryID != "d-2" || a.StatusCode != nil || a.Error != "signature verification failed" {
		t.Fatalf("ack %+v", a)
	}

	// another timbra listen of the same person takes over: this one stops with code 1
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(listener.CloseReplaced, "replaced"), time.Now().Add(time.Second))
	r := waitResult(t, done)
	cmdtest.WantCode(t, r, 1)

	mu.Lock()
	if len(forwarded) != 1 || bodies[0] != e.Body || forwarded[0].URL.Path != "/hooks" ||
		forwarded[0].Header.Get("Authorization") != "Bearer a,b" || forwarded[0].Header.Get("X-Dev") != "1" ||
		forwarded[0].Header.Get("Webhook-Id") != "e-1" || forwarded[0].Header.Get("Content-Type") != "application/json" {
		t.Fatalf("forwarded %d: %+v", len(forwarded), forwarded)
	}
	mu.Unlock()

	// one line as each event arrives, one more when its forward ends; the error's whole text
	lines := strings.Split(strings.TrimSuffix(r.Out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("stdout:\n%s", r.Out)
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
	}
	want := `{"v":1,"phase":"received","receivedAt":"2025-03-10T12:00:00.000Z","deliveryId":"d-1","eventId":"e-1","type":"invoice.canceled","kind":"manual",` +
		`"headers":{"webhook-id":"e-1","webhook-signature":"` + e.Headers["webhook-signature"] + `","webhook-timestamp":"1741608000"},` +
		`"event":` + e.Body + `,"verified":true,"forwarding":true,"routes":["` + tg.URL + `/hooks"],"replay":false,"late":false}`
	if lines[0] != want {
		t.Errorf("first line:\n%s\nwant:\n%s", lines[0], want)
	}
	want = `{"v":1,"phase":"forwarded","receivedAt":"2025-03-10T12:00:00.000Z","deliveryId":"d-1","eventId":"e-1","type":"invoice.canceled","kind":"manual",` +
		`"verified":true,"forward":{"url":"` + tg.URL + `/hooks","statusCode":200,"error":null,"errorClass":null,"latencyMs":`
	if !strings.HasPrefix(lines[1], want) || !strings.HasSuffix(lines[1], `,"excerpt":"thanks"}],"replay":false,"late":false}`) || !strings.Contains(lines[1], `"forwards":[{"url":"`+tg.URL+`/hooks","statusCode":200`) || !strings.Contains(lines[1], `"content-type":"text/plain; charset=utf-8"`) {
		t.Errorf("second line:\n%s\nwant a prefix:\n%s", lines[1], want)
	}
	cmdtest.WantContains(t, "third line", lines[2], `{"v":1,"phase":"received"`, `"deliveryId":"d-2"`, `"verified":false,"forwarding":false,"routes":[],"replay":false,"late":false}`)

	hint := secret[:10] + "…"
	wantReady := "Ready: listening for invoice.canceled as webhook wh-1; forwarding to " + tg.URL + "/hooks; secret " + hint + " (timbra listen --print-secret)\n"
	if !strings.HasPrefix(r.Err, wantReady) {
		t.Errorf("stderr:\n%s\nwant first:\n%s", r.Err, wantReady)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "SIGNATURE VERIFICATION FAILED for event e-2 (delivery d-2)", "not forwarded",
		`Replaced: another timbra listen of yours took over the session "default"; this one stops`)
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, secret)
	cmdtest.WantNotContains(t, "stderr", r.Err, "Warning")
}

// An event shows the moment it arrives, before the target answers: a JSON line of phase
// received, then one of phase forwarded with the error's whole text when no answer came.
func TestListenShowsArrivalBeforeTheAnswer(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, nil)
	cmdtest.UseAPI(t, srv.URL)
	release := make(chan struct{})
	tg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close() // no answer at all
	}))
	defer tg.Close()
	secret := webhook.NewSecret()
	out := &syncBuffer{}
	done := runAsync(t, cmdtest.Opts{Out: out}, "listen", "--forward-to", tg.URL, "--format", "json")
	ws := srv.accept(t)
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"*"}})
	ws.WriteJSON(listenEvent(t, secret, "d-1", "e-1"))
	deadline := time.Now().Add(listenWait)
	for !strings.Contains(out.String(), `"phase":"received"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no line while the forward is held: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if strings.Contains(out.String(), `"phase":"forwarded"`) {
		t.Fatalf("a forwarded line before the answer: %s", out.String())
	}
	close(release)
	if a := listenAck(t, ws); a.DeliveryID != "d-1" || a.Error != webhook.ErrorConnectionFailed {
		t.Fatalf("ack %+v", a)
	}
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(listener.CloseReplaced, ""), time.Now().Add(time.Second))
	waitResult(t, done)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("stdout:\n%s", out.String())
	}
	var fwd struct {
		Phase   string
		Forward struct {
			StatusCode *int
			Error      string
			ErrorClass string
			LatencyMs  float64
		}
	}
	if err := json.Unmarshal([]byte(lines[1]), &fwd); err != nil {
		t.Fatal(err)
	}
	if f := fwd.Forward; fwd.Phase != "forwarded" || f.StatusCode != nil || f.ErrorClass != "ConnectionFailed" ||
		!strings.HasPrefix(f.Error, "ConnectionFailed: ") || !strings.Contains(f.Error, "EOF") || f.LatencyMs <= 0 {
		t.Fatalf("forwarded line %s", lines[1])
	}
}

// A target where nothing listens is said at once, after the Ready line, rather than at the
// first event.
func TestListenWarnsOfATargetThatDoesNotAnswer(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, nil)
	cmdtest.UseAPI(t, srv.URL)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	done := runAsync(t, cmdtest.Opts{}, "listen", strings.TrimPrefix(gone.URL, "http://127.0.0.1"), "--format", "text")
	ws := srv.accept(t)
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: webhook.NewSecret(), Events: []string{"*"}})
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(listener.CloseReplaced, ""), time.Now().Add(time.Second))
	r := waitResult(t, done)
	port := gone.URL[strings.LastIndex(gone.URL, ":")+1:]
	cmdtest.WantContains(t, "stderr", r.Err, "forwarding to http://localhost:"+port+";",
		"\nWarning: nothing answers at http://localhost:"+port+" (", "refused", "): start your server there, or each event will fail with ConnectionFailed.\n")
}

func TestLatencyMS(t *testing.T) {
	for d, want := range map[time.Duration]float64{
		420 * time.Microsecond: 0.42, 12 * time.Millisecond: 12, 1500*time.Microsecond + 400: 1.5, 3 * time.Second: 3000, 0: 0,
	} {
		if got := latencyMS(d); got != want {
			t.Errorf("latencyMS(%s) = %v, want %v", d, got, want)
		}
	}
}

// Ctrl-C ends the session with a close frame and code 0; without --forward-to the events are
// acknowledged with no status. --format text prints one readable line per event.
func TestListenInterruptedAndText(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, nil)
	cmdtest.UseAPI(t, srv.URL)
	secret := webhook.NewSecret()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := runAsync(t, cmdtest.Opts{Ctx: ctx}, "listen", "--format", "text")
	ws := srv.accept(t)
	if q := srv.Last(t).Query; q != "" {
		t.Fatalf("query %q", q)
	}
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"*"}})
	ws.WriteJSON(listenEvent(t, secret, "d-1", "e-1"))
	if a := listenAck(t, ws); a.DeliveryID != "d-1" || a.StatusCode != nil || a.Error != "" {
		t.Fatalf("ack %+v", a)
	}
	closed := make(chan int, 1)
	go func() {
		ws.SetReadDeadline(time.Now().Add(listenWait))
		_, _, err := ws.ReadMessage()
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			closed <- ce.Code
		}
		close(closed)
	}()
	cancel()
	r := waitResult(t, done)
	cmdtest.WantCode(t, r, 0)
	if code := <-closed; code != websocket.CloseNormalClosure {
		t.Fatalf("close code %d", code)
	}
	want := cmdtest.Now.Local().Format("2006-01-02 15:04:05") + "  invoice.canceled  e-1  [manual]  (not forwarded)\n"
	if r.Out != want {
		t.Errorf("stdout %q, want %q", r.Out, want)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "Ready: listening for all events as webhook wh-1; not forwarding (no --forward-to); secret "+secret[:10]+"…")
}

func TestListenReconnects(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, nil)
	cmdtest.UseAPI(t, srv.URL)
	secret := webhook.NewSecret()
	done := runAsync(t, cmdtest.Opts{}, "listen")
	ws := srv.accept(t)
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"*"}})
	ws.WriteJSON(listenEvent(t, secret, "d-1", "e-1"))
	listenAck(t, ws)
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "server stopping"), time.Now().Add(time.Second))

	ws = srv.accept(t)
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"*"}, Replaying: 1})
	ws.WriteJSON(listenEvent(t, secret, "d-1", "e-1")) // the same delivery again: acked, printed once
	if a := listenAck(t, ws); a.DeliveryID != "d-1" {
		t.Fatalf("ack %+v", a)
	}
	missed := listenEvent(t, secret, "r-2", "e-2") // the catch-up of the reconnection
	missed.Kind, missed.Replay = "manual", true
	ws.WriteJSON(missed)
	if a := listenAck(t, ws); a.DeliveryID != "r-2" {
		t.Fatalf("ack %+v", a)
	}
	ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(listener.CloseReplaced, ""), time.Now().Add(time.Second))
	r := waitResult(t, done)
	cmdtest.WantCode(t, r, 1)
	if n := strings.Count(r.Out, `"deliveryId":"d-1"`); n != 1 {
		t.Errorf("the event was printed %d times:\n%s", n, r.Out)
	}
	cmdtest.WantContains(t, "stdout", r.Out, `"deliveryId":"r-2","eventId":"e-2"`, `"replay":true`)
	cmdtest.WantContains(t, "stderr", r.Err, "Disconnected: websocket: close 1001 (going away): server stopping; reconnecting in ",
		"\nReconnected.\nCatching up: 1 events missed while disconnected first, oldest first, then live ones.\n")
	var queries []string
	for _, q := range srv.Requests() {
		queries = append(queries, q.Query)
	}
	if len(queries) != 2 || strings.Contains(queries[0], "since=") || !strings.Contains(queries[1], "since=e-1") {
		t.Errorf("the handshakes' queries %q: the reconnection asks since= the last event received (e-1)", queries)
	}
	if n := strings.Count(r.Err, "Ready:"); n != 1 {
		t.Errorf("%d ready lines:\n%s", n, r.Err)
	}
}

func TestListenPrintSecret(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, nil)
	cmdtest.UseAPI(t, srv.URL)
	secret := webhook.NewSecret()
	done := runAsync(t, cmdtest.Opts{TTY: true}, "listen", "--print-secret")
	ws := srv.accept(t)
	ws.WriteJSON(listener.Ready{Type: listener.TypeReady, WebhookID: "wh-1", Secret: secret, Events: []string{"*"}})
	r := waitResult(t, done)
	cmdtest.WantCode(t, r, 0)
	if r.Out != secret+"\n" || r.Err != "" {
		t.Fatalf("stdout %q stderr %q", r.Out, r.Err)
	}
}

func TestListenRefused(t *testing.T) {
	cmdtest.Isolate(t)
	srv := newFakeListenAPI(t, func(w http.ResponseWriter) bool {
		cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("events", "El tipo de evento 'nope' no existe.")}, "", "t")
		return true
	})
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "listen", "--events", "nope")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "events: El tipo de evento 'nope' no existe.\n" {
		t.Errorf("stderr %q", r.Err)
	}

	srv.Close()
	r = runArgs(t, "listen")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "cannot reach "+srv.URL)
}
