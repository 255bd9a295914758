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
	ListenScenario        = "listen: trigger → event printed and → forwarded 2xx, 1 session"
	ListenFloor           = "listen floor: bare websocket echo round trip"
	ListenConcurrent      = "listen concurrent: trigger clients at once → event printed, 1 session"
	ListenConcurrentFloor = "listen concurrent floor: bare websocket echo round trip"
)

// Defaults of the listen scenarios.
const (
	DefaultListenEvents = 1000
	DefaultListenWarmup = 150
	// ListenTargetP99 is the target of the issue: trigger → event printed, p99.
	ListenTargetP99 = 25 * time.Millisecond

	// DefaultListenClients and DefaultListenConcurrentEvents: the trigger clients and the
	// measured events of the concurrent scenario.
	DefaultListenClients          = 32
	DefaultListenConcurrentEvents = 2000
	// Targets of the concurrent scenario: trigger → event printed.
	ListenConcurrentTargetP50 = 20 * time.Millisecond
	ListenConcurrentTargetP99 = 60 * time.Millisecond
)

// ListenSample is one event of the listen scenario, each duration from sending its trigger.
type ListenSample struct {
	Trigger   time.Duration // the trigger's 202 read
	Received  time.Duration // the client read the event off the websocket (EventResult.ReceivedAt)
	Forwarded time.Duration // the local receiver got the forward (its own clock)
	Printed   time.Duration // OnEvent ran: after the forward's 2xx, before the Ack
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

	Trigger, Received, Forwarded, Printed Latencies
	Echo                                  Latencies // the floor: one round trip
	EchoTrips                             int
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
	received, printed time.Time
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
		http: Client(max(clients, 1), timeout)}
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
	lt.session, err = startListenSession(lt.srv.URL, t.Header(), fwd, timeout, lt.onEvent, func(err error) {
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

// onEvent is where `timbra listen` prints the event.
func (lt *ListenTarget) onEvent(res listener.EventResult) {
	s := listenSeen{received: res.ReceivedAt, printed: time.Now()}
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
// OnEvent has seen it. Several goroutines may call it at once.
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
		return ListenSample{}, nil, fmt.Errorf("event %s: not printed after %s (disconnections: %q)", id, lt.timeout, drops)
	}
	lt.mu.Lock()
	delete(lt.seen, id)
	fwd, ok := lt.got[id]
	delete(lt.got, id)
	lt.mu.Unlock()
	switch {
	case s.forwardErr != "":
		return ListenSample{}, nil, fmt.Errorf("event %s: %s", id, s.forwardErr)
	case s.status < 200 || s.status > 299:
		return ListenSample{}, nil, fmt.Errorf("event %s: forward status %d", id, s.status)
	case !ok:
		return ListenSample{}, nil, fmt.Errorf("event %s: forwarded 2xx but the receiver did not see webhook-id %s", id, id)
	}
	return ListenSample{Trigger: t202.Sub(t0), Received: s.received.Sub(t0), Forwarded: fwd.Sub(t0), Printed: s.printed.Sub(t0)}, s.message, nil
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
	trig, recv, fwd, printed := make([]time.Duration, 0, len(samples)), make([]time.Duration, 0, len(samples)), make([]time.Duration, 0, len(samples)), make([]time.Duration, 0, len(samples))
	for _, s := range samples {
		trig, recv, fwd, printed = append(trig, s.Trigger), append(recv, s.Received), append(fwd, s.Forwarded), append(printed, s.Printed)
	}
	res.Trigger, res.Received, res.Forwarded, res.Printed = latencies(trig), latencies(recv), latencies(fwd), latencies(printed)
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
// trigger when OnEvent has printed its previous event, all to the one session: warmup events
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
			opt.Progress("  printed p50 %s p99 %s; echo p50 %s p99 %s; errors %d", ms(r.Printed.P50), ms(r.Printed.P99), ms(r.Echo.P50), ms(r.Echo.P99), r.Errors)
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

// listenMarkdown writes the listen results and their ratios to the echo floor.
func (r *Report) listenMarkdown(b *strings.Builder) {
	if x := r.Listen; x != nil {
		fmt.Fprintf(b, "#### Listen latency\n\nOne listener.Client session on the in-process server (Serve on loopback, discard logger), forwarding to a plain-HTTP "+
			"receiver on 127.0.0.1 answering 200; %d sequential triggers (no webhookId, one HTTP client, %d API keys of the same person) after %d unmeasured. "+
			"Every latency is from sending the trigger. Event message %d bytes; the floor echoes the same bytes. Errors: %d.\n\n",
			x.Events, x.Keys, x.Warmup, x.MessageBytes, x.Errors)
		x.latencyTables(b)
		met := "met"
		if x.Printed.P99 >= ListenTargetP99 || x.Errors > 0 {
			met = "NOT met"
		}
		fmt.Fprintf(b, "\nTarget p99 (trigger → printed) under %s: %s (%s).\n\n", ms(ListenTargetP99), met, ms(x.Printed.P99))
	}
	if x := r.ListenConcurrent; x != nil {
		rate := 0.0
		if x.Elapsed > 0 {
			rate = float64(x.Events-x.Errors) / x.Elapsed.Seconds()
		}
		fmt.Fprintf(b, "#### Listen latency, %d concurrent trigger clients\n\nThe same session and receiver as the sequential listen scenario; %d trigger clients "+
			"(keep-alive, one connection each, %d API keys of the same person), each sending its next trigger when OnEvent has printed its previous event: "+
			"%d events measured after %d unmeasured, %.0f events/s. Every latency is from sending the trigger. Event message %d bytes; "+
			"the floor echoes the same bytes, one round trip at a time. Errors: %d.\n\n",
			x.Clients, x.Clients, x.Keys, x.Events, x.Warmup, rate, x.MessageBytes, x.Errors)
		x.latencyTables(b)
		met := "met"
		if x.Printed.P50 >= ListenConcurrentTargetP50 || x.Printed.P99 >= ListenConcurrentTargetP99 || x.Errors > 0 {
			met = "NOT met"
		}
		fmt.Fprintf(b, "\nTarget (trigger → printed) p50 under %s and p99 under %s: %s (p50 %s, p99 %s).\n\n",
			ms(ListenConcurrentTargetP50), ms(ListenConcurrentTargetP99), met, ms(x.Printed.P50), ms(x.Printed.P99))
	}
}

// latencyTables writes the latencies of a listen result and their ratios to its echo floor.
func (x *ListenResult) latencyTables(b *strings.Builder) {
	b.WriteString("| measurement | p50 | p99 | max |\n|---|---:|---:|---:|\n")
	row := func(name string, l Latencies) {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", name, ms(l.P50), ms(l.P99), ms(l.Max))
	}
	row("trigger → its 202", x.Trigger)
	row("trigger → event read by the client", x.Received)
	row("trigger → receiver got the forward", x.Forwarded)
	row("trigger → event printed (OnEvent, after the 2xx)", x.Printed)
	row(fmt.Sprintf("floor: websocket echo round trip (%d trips)", x.EchoTrips), x.Echo)
	b.WriteString("\n| A / floor | p50 | p99 |\n|---|---:|---:|\n")
	for _, p := range []struct {
		name string
		l    Latencies
	}{{"printed / echo", x.Printed}, {"forwarded / echo", x.Forwarded}} {
		fmt.Fprintf(b, "| %s | %s | %s |\n", p.name, ratio(float64(p.l.P50), float64(x.Echo.P50)), ratio(float64(p.l.P99), float64(x.Echo.P99)))
	}
}
