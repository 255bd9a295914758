package bench

// Listen latency: one `timbra listen` session (a listener.Client) on an in-process server,
// forwarding to a local plain-HTTP receiver, fed by sequential triggers; next to its floor, a
// bare gorilla websocket echo round trip. See BENCHMARKS.md, "Listen latency".

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
)

// Names of the listen scenarios; -only listen selects them all, -only 'listen concurrent' the
// concurrent one and its floor.
const (
	ListenScenario        = "listen: trigger → row shown, → forwarded 2xx, → outcome shown, 1 session"
	ListenFloor           = "listen floor: bare websocket echo round trip"
	ListenConcurrent      = "listen concurrent: trigger clients at once → row shown, forwarded, outcome shown, 1 session"
	ListenConcurrentFloor = "listen concurrent floor: bare websocket echo round trip"
)

// Defaults of the listen scenarios.
const (
	DefaultListenEvents = 1000
	DefaultListenWarmup = 150

	// DefaultListenClients and DefaultListenConcurrentEvents: the trigger clients and the
	// measured events of the concurrent scenario.
	DefaultListenClients          = 8
	DefaultListenConcurrentEvents = 2000
)

// Targets of issue 23, each from sending the trigger: the row shown (OnReceived) p50 and p99 of
// sequential triggers, its p99 with concurrent trigger clients, and the receiver getting the
// forward, p99 (in both scenarios).
const (
	ListenTargetShownP50           = 5 * time.Millisecond
	ListenTargetShownP99           = 15 * time.Millisecond
	ListenConcurrentTargetShownP99 = 40 * time.Millisecond
	ListenTargetForwardedP99       = 25 * time.Millisecond
)

// ListenSample is one event of the listen scenario, each duration from sending its trigger.
type ListenSample struct {
	Trigger   time.Duration // the trigger's 202 read
	Received  time.Duration // the client read the event off the websocket (EventResult.ReceivedAt)
	Shown     time.Duration // OnReceived ran: where `timbra listen` shows the row
	Forwarded time.Duration // the local receiver got the forward (its own clock)
	Outcome   time.Duration // OnEvent ran: the row's outcome shown, after the forward's 2xx, before the Ack
}

// Latencies are p50, p99 and max of a sorted sample.
type Latencies struct{ P50, P99, Max time.Duration }

func latencies(d []time.Duration) Latencies {
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s) == 0 {
		return Latencies{}
	}
	return Latencies{percentile(s, 0.50), percentile(s, 0.99), s[len(s)-1]}
}

// ListenResult is what a listen scenario measured.
type ListenResult struct {
	Name           string
	Clients        int // trigger clients at once
	Events, Warmup int // measured events, unmeasured ones before them
	Errors         int
	First          string
	Keys           int // API keys the triggers used (BusinessWrite: 600 per 60 s per key)
	MessageBytes   int // the websocket message of one event, also the echo's message
	Elapsed        time.Duration

	Trigger, Received, Shown, Forwarded, Outcome Latencies
	// ShownAfter202 and ForwardedAfter202 are, per event, the row shown and the forward less
	// the trigger's 202: the listen path's own part, without the trigger's write.
	ShownAfter202, ForwardedAfter202 Latencies
	Echo                             Latencies // the floor: one round trip
	EchoTrips                        int
}

// Err is nil when every event arrived and was forwarded 2xx.
func (r ListenResult) Err() error {
	switch {
	case r.Errors > 0:
		return fmt.Errorf("%s: %d failures of %d; first: %s", r.Name, r.Errors, r.Events, r.First)
	case r.Events == 0:
		return fmt.Errorf("%s: nothing measured", r.Name)
	}
	return nil
}

// listenSeen is what the session saw of one event.
type listenSeen struct {
	received, outcome time.Time
	status            int // the forward's status, 0 without an answer
	forwardErr        string
	message           []byte // the event re-encoded as the server sent it (its size for the floor)
}

// ListenTarget is a database with one tenant, its server on loopback (Serve: HTTP, engine,
// hub), a local HTTP receiver answering 200, and a listener.Client session forwarding to it.
// One may be called from several goroutines.
type ListenTarget struct {
	T        *Timbra
	srv      *Listening
	rcv      *httptest.Server
	http     *http.Client
	trigger  string
	session  *listenSession
	keys     *keyring
	timeout  time.Duration
	mu       sync.Mutex
	seen     map[string]chan listenSeen // by event id, made by whoever comes first
	shown    map[string]time.Time       // OnReceived: when each event id's row was shown
	got      map[string]time.Time       // receiver: first receipt of each webhook-id (event id)
	disconns []string
}

// NewListenTarget starts everything under dir and waits for the session's Ready; its HTTP
// client keeps one connection for the triggers.
func NewListenTarget(dir string, timeout time.Duration) (*ListenTarget, error) {
	return newListenTarget(dir, timeout, 1)
}

// newListenTarget is NewListenTarget for clients concurrent trigger clients.
func newListenTarget(dir string, timeout time.Duration, clients int) (lt *ListenTarget, err error) {
	t, err := NewTimbra(dir)
	if err != nil {
		return nil, err
	}
	x := &ListenTarget{T: t, timeout: timeout, seen: map[string]chan listenSeen{}, got: map[string]time.Time{},
		shown: map[string]time.Time{},
		http:  Client(max(clients, 1), timeout)}
	defer func() {
		if err != nil {
			x.Close() // lt is nil by now
		}
	}()
	lt = x
	s := t.Server(slog.New(slog.DiscardHandler))
	lt.keys = newKeyring(s.Handler(), t.Header(), "bench listen")
	if lt.srv, err = ServeTimbra(s); err != nil {
		return nil, err
	}
	lt.trigger = lt.srv.URL + "/api/v4/events/trigger"
	lt.rcv = httptest.NewUnstartedServer(http.HandlerFunc(lt.receive))
	lt.rcv.Config.ErrorLog = log.New(io.Discard, "", 0)
	lt.rcv.Start()
	fwd := &listener.Forwarder{URL: lt.rcv.URL + "/hook", Client: listener.NewForwardClient(timeout, false)}
	lt.session, err = startListenSession(lt.srv.URL, t.Header(), fwd, timeout, lt.onReceived, lt.onEvent, func(err error) {
		lt.mu.Lock()
		lt.disconns = append(lt.disconns, err.Error())
		lt.mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	return lt, nil
}

func (lt *ListenTarget) receive(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	now := time.Now()
	id := r.Header.Get(webhook.HeaderID)
	lt.mu.Lock()
	if _, ok := lt.got[id]; !ok {
		lt.got[id] = now
	}
	lt.mu.Unlock()
	w.Header().Set("Content-Length", strconv.Itoa(len(receiverAnswer)))
	w.WriteHeader(http.StatusOK)
	w.Write(receiverAnswer)
}

// wait is the channel on which the event id's outcome comes.
func (lt *ListenTarget) wait(id string) chan listenSeen {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	ch, ok := lt.seen[id]
	if !ok {
		ch = make(chan listenSeen, 1)
		lt.seen[id] = ch
	}
	return ch
}

// onReceived is where `timbra listen` shows the event's row, before its forward.
func (lt *ListenTarget) onReceived(res listener.EventResult) {
	now := time.Now()
	lt.mu.Lock()
	if _, ok := lt.shown[res.Event.EventID]; !ok {
		lt.shown[res.Event.EventID] = now
	}
	lt.mu.Unlock()
}

// onEvent is where `timbra listen` shows the event's outcome, after its forward.
func (lt *ListenTarget) onEvent(res listener.EventResult) {
	s := listenSeen{received: res.ReceivedAt, outcome: time.Now()}
	switch {
	case !res.Verified:
		s.forwardErr = fmt.Sprintf("signature: %v", res.VerifyError)
	case res.Forward == nil:
		s.forwardErr = "not forwarded"
	case res.Forward.StatusCode == nil:
		s.forwardErr = "forward: " + res.Forward.Error
	default:
		s.status = *res.Forward.StatusCode
	}
	s.message, _ = json.Marshal(res.Event)
	select {
	case lt.wait(res.Event.EventID) <- s:
	default: // a repeat after a reconnection: the first one counts
	}
}

// One triggers an event for the session (no webhookId: the caller's listener) and waits until
// OnEvent has seen it (OnReceived showed it before). Several goroutines may call it at once.
func (lt *ListenTarget) One() (ListenSample, []byte, error) {
	key, err := lt.keys.next()
	if err != nil {
		return ListenSample{}, nil, err
	}
	t0 := time.Now()
	id, err := postTrigger(lt.http, lt.trigger, key, `{"type":"`+DeliveryTriggerType+`"}`)
	t202 := time.Now()
	if err != nil {
		return ListenSample{}, nil, err
	}
	ch := lt.wait(id)
	var s listenSeen
	select {
	case s = <-ch:
	case <-time.After(lt.timeout):
		lt.mu.Lock()
		drops := strings.Join(lt.disconns, "; ")
		lt.mu.Unlock()
		return ListenSample{}, nil, fmt.Errorf("event %s: no outcome after %s (disconnections: %q)", id, lt.timeout, drops)
	}
	lt.mu.Lock()
	delete(lt.seen, id)
	fwd, ok := lt.got[id]
	delete(lt.got, id)
	shown, shownOK := lt.shown[id]
	delete(lt.shown, id)
	lt.mu.Unlock()
	switch {
	case s.forwardErr != "":
		return ListenSample{}, nil, fmt.Errorf("event %s: %s", id, s.forwardErr)
	case s.status < 200 || s.status > 299:
		return ListenSample{}, nil, fmt.Errorf("event %s: forward status %d", id, s.status)
	case !ok:
		return ListenSample{}, nil, fmt.Errorf("event %s: forwarded 2xx but the receiver did not see webhook-id %s", id, id)
	case !shownOK:
		return ListenSample{}, nil, fmt.Errorf("event %s: an outcome without OnReceived before it", id)
	}
	return ListenSample{Trigger: t202.Sub(t0), Received: s.received.Sub(t0), Shown: shown.Sub(t0), Forwarded: fwd.Sub(t0), Outcome: s.outcome.Sub(t0)}, s.message, nil
}

// Close ends the session (normal close), the server and the receiver, and removes the
// database.
func (lt *ListenTarget) Close() error {
	var err error
	if lt.session != nil {
		err = lt.session.Close()
	}
	if lt.srv != nil {
		err = errors.Join(err, lt.srv.Close())
	}
	if lt.rcv != nil {
		lt.rcv.Close()
	}
	lt.http.CloseIdleConnections()
	return errors.Join(err, lt.T.Close())
}

// EchoTarget is the floor: a gorilla websocket server on loopback that writes back every
// message it reads, and one client connected to it.
type EchoTarget struct {
	srv *httptest.Server
	ws  *websocket.Conn
	msg []byte
}

// NewEchoTarget starts the echo server and connects; each round trip sends msg.
func NewEchoTarget(msg []byte, timeout time.Duration) (*EchoTarget, error) {
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			typ, m, err := ws.ReadMessage()
			if err != nil {
				return
			}
			if ws.WriteMessage(typ, m) != nil {
				return
			}
		}
	}))
	d := &websocket.Dialer{HandshakeTimeout: timeout}
	ws, _, err := d.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		srv.Close()
		return nil, err
	}
	return &EchoTarget{srv: srv, ws: ws, msg: msg}, nil
}

// One sends the message and waits for it to come back.
func (e *EchoTarget) One() (time.Duration, error) {
	t0 := time.Now()
	if err := e.ws.WriteMessage(websocket.TextMessage, e.msg); err != nil {
		return 0, err
	}
	_, m, err := e.ws.ReadMessage()
	d := time.Since(t0)
	if err == nil && len(m) != len(e.msg) {
		err = fmt.Errorf("echo: %d bytes back, %d sent", len(m), len(e.msg))
	}
	return d, err
}

// Close closes the client and the server.
func (e *EchoTarget) Close() error {
	e.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	err := e.ws.Close()
	e.srv.Close()
	return err
}

// RunListen measures n sequential events of one listen session after warmup unmeasured ones,
// then n echo round trips of the same message size (after as many warm-up trips), in the
// same run. It stops at the first failure.
func RunListen(dir string, n, warmup int, timeout time.Duration, progress func(string, ...any)) (res ListenResult, err error) {
	res.Name, res.Clients, res.Warmup = ListenScenario, 1, warmup
	lt, err := NewListenTarget(dir, timeout)
	if err != nil {
		return res, err
	}
	defer func() {
		res.Keys = lt.keys.count()
		err = errors.Join(err, lt.Close())
	}()
	var msg []byte
	for i := range warmup {
		if _, msg, err = lt.One(); err != nil {
			return res, fmt.Errorf("%s (warm-up, event %d): %w", ListenScenario, i+1, err)
		}
	}
	progress("measure %s (%d events after %d warm-up)", ListenScenario, n, warmup)
	samples := make([]ListenSample, 0, n)
	start := time.Now()
	for range n {
		s, m, err := lt.One()
		if err != nil {
			res.Errors++
			res.First = err.Error()
			break
		}
		msg = m
		samples = append(samples, s)
	}
	res.Elapsed = time.Since(start)
	res.Events = len(samples) + res.Errors
	return res, res.summarize(samples, msg, ListenFloor, n, warmup, timeout, progress)
}

// summarize sets the latencies of the samples and, when every event went through, measures the
// echo floor of the same message (n round trips after warmup).
func (res *ListenResult) summarize(samples []ListenSample, msg []byte, floor string, n, warmup int, timeout time.Duration, progress func(string, ...any)) error {
	var trig, recv, shown, fwd, outcome, shown202, fwd202 []time.Duration
	for _, s := range samples {
		trig, recv, shown = append(trig, s.Trigger), append(recv, s.Received), append(shown, s.Shown)
		fwd, outcome = append(fwd, s.Forwarded), append(outcome, s.Outcome)
		shown202, fwd202 = append(shown202, s.Shown-s.Trigger), append(fwd202, s.Forwarded-s.Trigger)
	}
	res.Trigger, res.Received, res.Shown = latencies(trig), latencies(recv), latencies(shown)
	res.Forwarded, res.Outcome = latencies(fwd), latencies(outcome)
	res.ShownAfter202, res.ForwardedAfter202 = latencies(shown202), latencies(fwd202)
	if res.Errors > 0 || len(msg) == 0 {
		return nil
	}
	res.MessageBytes = len(msg)
	progress("measure %s (%d round trips of %d bytes)", floor, n, len(msg))
	var err error
	res.Echo, res.EchoTrips, err = measureEcho(floor, msg, n, warmup, timeout)
	return err
}

// measureEcho is the floor of the listen scenarios: n round trips of msg through a bare
// websocket echo server on loopback, one at a time, after warmup unmeasured ones.
func measureEcho(name string, msg []byte, n, warmup int, timeout time.Duration) (l Latencies, trips int, err error) {
	et, err := NewEchoTarget(msg, timeout)
	if err != nil {
		return l, 0, err
	}
	defer func() { err = errors.Join(err, et.Close()) }()
	for range warmup {
		if _, err := et.One(); err != nil {
			return l, 0, fmt.Errorf("%s (warm-up): %w", name, err)
		}
	}
	echo := make([]time.Duration, 0, n)
	for range n {
		d, err := et.One()
		if err != nil {
			return l, 0, fmt.Errorf("%s: %w", name, err)
		}
		echo = append(echo, d)
	}
	return latencies(echo), len(echo), nil
}

// RunListenConcurrent is RunListen with clients trigger clients at once, each sending its next
// trigger when OnEvent has shown its previous event's outcome, all to the one session: warmup events
// unmeasured, then n measured; then the echo floor as RunListen's (n sequential round trips).
// It stops at the first failure.
func RunListenConcurrent(dir string, clients, n, warmup int, timeout time.Duration, progress func(string, ...any)) (res ListenResult, err error) {
	clients = max(clients, 1)
	res.Name, res.Clients, res.Warmup = ListenConcurrent, clients, warmup
	lt, err := newListenTarget(dir, timeout, clients)
	if err != nil {
		return res, err
	}
	defer func() {
		res.Keys = lt.keys.count()
		err = errors.Join(err, lt.Close())
	}()
	// run sends count events from the clients; it stops at the first failure.
	run := func(count int) ([]ListenSample, []byte, int, string) {
		per := make([][]ListenSample, clients)
		msgs := make([][]byte, clients)
		var next atomic.Int64
		var nerr atomic.Int64
		var first atomic.Pointer[string]
		var wg sync.WaitGroup
		for w := range clients {
			per[w] = make([]ListenSample, 0, count/clients+1)
			wg.Go(func() {
				for nerr.Load() == 0 && int(next.Add(1)) <= count {
					s, m, err := lt.One()
					if err != nil {
						nerr.Add(1)
						msg := err.Error()
						first.CompareAndSwap(nil, &msg)
						return
					}
					per[w], msgs[w] = append(per[w], s), m
				}
			})
		}
		wg.Wait()
		var all []ListenSample
		var msg []byte
		for w := range clients {
			all = append(all, per[w]...)
			if msgs[w] != nil {
				msg = msgs[w]
			}
		}
		f := ""
		if p := first.Load(); p != nil {
			f = *p
		}
		return all, msg, int(nerr.Load()), f
	}
	if warmup > 0 {
		if _, _, nerr, first := run(warmup); nerr > 0 {
			return res, fmt.Errorf("%s (warm-up): %s", ListenConcurrent, first)
		}
	}
	progress("measure %s (%d clients, %d events after %d warm-up)", ListenConcurrent, clients, n, warmup)
	start := time.Now()
	samples, msg, nerr, first := run(n)
	res.Elapsed = time.Since(start)
	res.Errors, res.First = nerr, first
	res.Events = len(samples) + nerr
	return res, res.summarize(samples, msg, ListenConcurrentFloor, n, warmup, timeout, progress)
}

// runListen runs the listen scenarios Options select: the sequential one and the concurrent
// one, each with its echo floor.
func runListen(opt Options, rep *Report) error {
	selected := func(names ...string) bool {
		return opt.Only == nil || slices.ContainsFunc(names, opt.Only.MatchString)
	}
	report := func(r ListenResult, err error) error {
		if err == nil {
			opt.Progress("  shown p50 %s p99 %s (after the 202: p99 %s); forwarded p99 %s; outcome p99 %s; echo p50 %s p99 %s; errors %d",
				ms(r.Shown.P50), ms(r.Shown.P99), ms(r.ShownAfter202.P99), ms(r.Forwarded.P99), ms(r.Outcome.P99), ms(r.Echo.P50), ms(r.Echo.P99), r.Errors)
			err = r.Err()
		}
		return err
	}
	if selected(ListenScenario, ListenFloor) {
		r, err := RunListen(opt.Dir, opt.ListenEvents, opt.ListenWarmup, opt.Timeout, opt.Progress)
		rep.Listen = &r
		if err := report(r, err); err != nil {
			return err
		}
	}
	if selected(ListenConcurrent, ListenConcurrentFloor) {
		r, err := RunListenConcurrent(opt.Dir, opt.ListenClients, opt.ListenConcurrentEvents, opt.ListenWarmup, opt.Timeout, opt.Progress)
		rep.ListenConcurrent = &r
		if err := report(r, err); err != nil {
			return err
		}
	}
	return nil
}

// ListenTargetCheck is one target of issue 23 against a measured percentile.
type ListenTargetCheck struct {
	Name     string // "trigger → row shown, p99"
	Measured time.Duration
	Target   time.Duration
}

// Met tells whether the percentile is under its target.
func (c ListenTargetCheck) Met() bool { return c.Measured < c.Target }

// Targets are the targets of issue 23 that apply to the result: sequential (one trigger
// client) row shown p50 and p99 and forwarded p99; concurrent row shown p99 and forwarded p99.
func (x *ListenResult) Targets() []ListenTargetCheck {
	if x.Clients <= 1 {
		return []ListenTargetCheck{
			{"trigger → row shown, p50", x.Shown.P50, ListenTargetShownP50},
			{"trigger → row shown, p99", x.Shown.P99, ListenTargetShownP99},
			{"trigger → forwarded, p99", x.Forwarded.P99, ListenTargetForwardedP99},
		}
	}
	return []ListenTargetCheck{
		{"trigger → row shown, p99", x.Shown.P99, ListenConcurrentTargetShownP99},
		{"trigger → forwarded, p99", x.Forwarded.P99, ListenTargetForwardedP99},
	}
}

// listenMarkdown writes the listen results, their ratios to the echo floor and the targets.
func (r *Report) listenMarkdown(b *strings.Builder) {
	if x := r.Listen; x != nil {
		fmt.Fprintf(b, "#### Listen latency\n\nOne listener.Client session on the in-process server (Serve on loopback, discard logger), forwarding to a plain-HTTP "+
			"receiver on 127.0.0.1 answering 200; %d sequential triggers (no webhookId, one HTTP client, %d API keys of the same person) after %d unmeasured. "+
			"Every latency is from sending the trigger. Event message %d bytes; the floor echoes the same bytes. Errors: %d.\n\n",
			x.Events, x.Keys, x.Warmup, x.MessageBytes, x.Errors)
		x.latencyTables(b)
		x.targetTable(b)
	}
	if x := r.ListenConcurrent; x != nil {
		rate := 0.0
		if x.Elapsed > 0 {
			rate = float64(x.Events-x.Errors) / x.Elapsed.Seconds()
		}
		fmt.Fprintf(b, "#### Listen latency, %d concurrent trigger clients\n\nThe same session and receiver as the sequential listen scenario; %d trigger clients "+
			"(keep-alive, one connection each, %d API keys of the same person), each sending its next trigger when OnEvent has shown its previous event's outcome: "+
			"%d events measured after %d unmeasured, %.0f events/s. Every latency is from sending the trigger. Event message %d bytes; "+
			"the floor echoes the same bytes, one round trip at a time. Errors: %d.\n\n",
			x.Clients, x.Clients, x.Keys, x.Events, x.Warmup, rate, x.MessageBytes, x.Errors)
		x.latencyTables(b)
		x.targetTable(b)
	}
}

// latencyTables writes the latencies of a listen result and each one's ratio to its echo
// floor at the same percentile.
func (x *ListenResult) latencyTables(b *strings.Builder) {
	b.WriteString("| from sending the trigger to… | p50 | p99 | max | p50 / floor | p99 / floor |\n|---|---:|---:|---:|---:|---:|\n")
	row := func(name string, l Latencies) {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", name, ms(l.P50), ms(l.P99), ms(l.Max),
			ratio(float64(l.P50), float64(x.Echo.P50)), ratio(float64(l.P99), float64(x.Echo.P99)))
	}
	row("its 202", x.Trigger)
	row("the event read by the client", x.Received)
	row("**the row shown** (OnReceived, before the forward)", x.Shown)
	row("**the receiver got the forward**", x.Forwarded)
	row("the outcome shown (OnEvent, after the 2xx)", x.Outcome)
	fmt.Fprintf(b, "| floor: websocket echo round trip (%d trips) | %s | %s | %s | 1 | 1 |\n", x.EchoTrips, ms(x.Echo.P50), ms(x.Echo.P99), ms(x.Echo.Max))
	b.WriteString("\nThe listen path's own part, per event (a 202 can come after the event: negative):\n\n| from the trigger's 202 to… | p50 | p99 | max |\n|---|---:|---:|---:|\n")
	fmt.Fprintf(b, "| the row shown | %s | %s | %s |\n", ms(x.ShownAfter202.P50), ms(x.ShownAfter202.P99), ms(x.ShownAfter202.Max))
	fmt.Fprintf(b, "| the receiver got the forward | %s | %s | %s |\n", ms(x.ForwardedAfter202.P50), ms(x.ForwardedAfter202.P99), ms(x.ForwardedAfter202.Max))
}

// targetTable writes each target of the result, met or not; any error makes every one not met.
func (x *ListenResult) targetTable(b *strings.Builder) {
	b.WriteString("\n| target | measured | under | met |\n|---|---:|---:|---|\n")
	for _, c := range x.Targets() {
		met := "met"
		if !c.Met() || x.Errors > 0 {
			met = "**NOT met**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", c.Name, ms(c.Measured), ms(c.Target), met)
	}
	b.WriteString("\n")
}
