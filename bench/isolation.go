package bench

// Isolation of destinations: one slow destination must not delay another. Two tenants on one
// server (Serve on loopback): tenant A has a webhook whose endpoint hangs and a listen session
// whose forward target hangs, both kept busy by triggers sent first, plus a healthy webhook;
// tenant B has a healthy webhook and a healthy listen session. The scenario measures trigger →
// delivered at the healthy destinations; its floor is the same scenario without the hung
// destinations, measured in the same run. See BENCHMARKS.md, "Isolation".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
)

// Names of the isolation scenarios, in the order they run; -only isolation selects both.
const (
	IsolationFloor    = "isolation floor: the healthy destinations, nothing hung"
	IsolationScenario = "isolation: the healthy destinations beside a hung webhook and a hung listen target"
)

// Defaults and bounds of the isolation scenarios.
const (
	// DefaultIsolationEvents is how many triggers are measured, spread evenly over the healthy
	// destinations.
	DefaultIsolationEvents = 300
	// DefaultIsolationBusy is how many triggers go to each hung destination before measuring.
	DefaultIsolationBusy = 70
	// DefaultIsolationWait bounds the wait for the measured deliveries after the last trigger.
	DefaultIsolationWait = 3 * time.Second
	// IsolationRate is the triggers per second sent to each healthy destination.
	IsolationRate = 100
	// IsolationTargetP99 is the target of the issue: p99 of trigger → delivered at each healthy
	// destination, with the hung ones busy.
	IsolationTargetP99 = 100 * time.Millisecond
	// isolationBusyWait bounds the wait for each hung destination to hold its first request.
	isolationBusyWait = 10 * time.Second
)

// Never is the latency of an event not delivered within the wait: it sorts after every
// measured latency, so a percentile that reaches it reads "not delivered".
const Never = time.Duration(math.MaxInt64)

// HungServer accepts connections and reads requests but never answers one, until Close, which
// cuts every request it holds: the client sees the connection closed without an answer.
type HungServer struct {
	URL string

	srv        *httptest.Server
	stop       chan struct{}
	once       sync.Once
	held, seen atomic.Int64
}

// NewHungServer starts a hung server on 127.0.0.1, over TLS (httptest's certificate, the one
// the Receiver's CA file holds) when tls is set.
func NewHungServer(tls bool) *HungServer {
	hs := &HungServer{stop: make(chan struct{})}
	hs.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.held.Add(1) // before seen: a request seen is held until released
		hs.seen.Add(1)
		defer hs.held.Add(-1)
		select {
		case <-hs.stop:
		case <-r.Context().Done(): // the client gave up
		}
		panic(http.ErrAbortHandler) // close the connection without an answer
	}))
	hs.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	if tls {
		hs.srv.StartTLS()
	} else {
		hs.srv.Start()
	}
	hs.URL = hs.srv.URL
	return hs
}

// Held is how many requests the server holds now; Seen how many it has received.
func (hs *HungServer) Held() int { return int(hs.held.Load()) }

// Seen is how many requests the server has received.
func (hs *HungServer) Seen() int { return int(hs.seen.Load()) }

// Close cuts the requests held and stops the server.
func (hs *HungServer) Close() error {
	hs.once.Do(func() {
		close(hs.stop)
		hs.srv.CloseClientConnections()
		hs.srv.Close()
	})
	return nil
}

// IsolationDest is what one healthy destination measured.
type IsolationDest struct {
	Name      string
	Triggered int       // triggers answered 202
	Delivered int       // of them, delivered within the wait
	Latency   Latencies // trigger sent → delivered, an event not delivered counting as Never
}

// IsolationResult is what one isolation scenario measured.
type IsolationResult struct {
	Name string
	Hung bool
	Busy int // triggers sent to each hung destination before measuring
	// HeldStart and HeldEnd are the requests the hung webhook endpoint and the hung listen
	// target held when measuring started and when the wait ended.
	HeldStart, HeldEnd [2]int
	Dests              []IsolationDest
	All                IsolationDest // every healthy destination together
	Trigger            Latencies     // trigger sent → its 202, measured triggers
	Triggering         time.Duration // first measured trigger → last 202
	Wait               time.Duration
	Keys               int // API keys the triggers used, both tenants
	Errors             int // triggers not answered 202, listen events not forwarded 2xx, dropped sessions
	First              string
}

// Err is nil when every trigger was accepted and nothing else failed; an event not delivered
// within the wait is a measurement (the target not met), not a failure.
func (r IsolationResult) Err() error {
	switch {
	case r.Errors > 0:
		return fmt.Errorf("%s: %d failures; first: %s", r.Name, r.Errors, r.First)
	case r.All.Triggered == 0:
		return fmt.Errorf("%s: nothing triggered", r.Name)
	}
	return nil
}

// isoListen records what a healthy listen session printed.
type isoListen struct {
	mu      sync.Mutex
	printed map[string]time.Time // by event id: when OnEvent ran, after the forward's 2xx
	fails   []string
}

func (il *isoListen) onEvent(res listener.EventResult) {
	now := time.Now()
	il.mu.Lock()
	defer il.mu.Unlock()
	switch {
	case !res.Verified:
		il.fails = append(il.fails, fmt.Sprintf("event %s: signature: %v", res.Event.EventID, res.VerifyError))
	case res.Forward == nil || res.Forward.StatusCode == nil:
		il.fails = append(il.fails, fmt.Sprintf("event %s: not forwarded: %+v", res.Event.EventID, res.Forward))
	case *res.Forward.StatusCode < 200 || *res.Forward.StatusCode > 299:
		il.fails = append(il.fails, fmt.Sprintf("event %s: forward status %d", res.Event.EventID, *res.Forward.StatusCode))
	default:
		if _, ok := il.printed[res.Event.EventID]; !ok {
			il.printed[res.Event.EventID] = now
		}
	}
}

func (il *isoListen) onDisconnect(err error) {
	il.mu.Lock()
	il.fails = append(il.fails, "listen session dropped: "+err.Error())
	il.mu.Unlock()
}

func (il *isoListen) at(id string) (time.Time, bool) {
	il.mu.Lock()
	defer il.mu.Unlock()
	t, ok := il.printed[id]
	return t, ok
}

// isoDest is one healthy destination while it runs.
type isoDest struct {
	name   string
	keys   *keyring
	body   string     // the trigger
	listen *isoListen // nil for a webhook: the receiver tells when it got the event
	recs   []triggerRecord
	errs   int
	first  string
}

// RunIsolation runs one isolation scenario over a new database, with hung destinations (the
// scenario) or without (its floor), and the healthy webhooks sending to rc. opt gives Dir,
// Duration (a bound on the measured triggering), Timeout (per HTTP request) and the Isolation
// bounds. Everything it started is stopped before it returns: the hung servers first, which
// cuts the attempts they hold.
func RunIsolation(opt Options, rc *Receiver, hung bool) (res IsolationResult, err error) {
	opt.defaults()
	res = IsolationResult{Name: IsolationFloor, Wait: opt.IsolationWait}
	if hung {
		res.Name, res.Hung, res.Busy = IsolationScenario, true, opt.IsolationBusy
	}
	t, err := NewTimbra(opt.Dir)
	if err != nil {
		return res, err
	}
	var (
		l                    *Listening
		sessA, sessB         *listenSession
		hungHook, hungTarget *HungServer
		healthy              *httptest.Server
		c                    = Client(8, opt.Timeout)
	)
	defer func() {
		if hungHook != nil {
			hungHook.Close()
		}
		if hungTarget != nil {
			hungTarget.Close()
		}
		for _, s := range []*listenSession{sessA, sessB} {
			if s != nil {
				err = errors.Join(err, s.Close())
			}
		}
		if l != nil {
			err = errors.Join(err, l.Close())
		}
		if healthy != nil {
			healthy.Close()
		}
		c.CloseIdleConnections()
		err = errors.Join(err, t.Close())
	}()

	s, err := t.WebhookServer(slog.New(slog.DiscardHandler), rc.CAFile)
	if err != nil {
		return res, err
	}
	h := s.Handler()
	credsB, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "bench-b@example.com"})
	if err != nil {
		return res, err
	}
	ownerA, ownerB := t.Header(), http.Header{"X-Tenant-Key": {credsB.TenantKey}, "X-Api-Key": {credsB.APIKey}}
	keysA, keysB := newKeyring(h, ownerA, "bench isolation"), newKeyring(h, ownerB, "bench isolation")
	hook := func(owner http.Header, url string) (string, error) {
		var w api.Webhook
		create, _ := json.Marshal(api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}})
		err := inProcess(h, http.MethodPost, "/api/v4/webhooks", owner, string(create), http.StatusCreated, &w)
		return w.ID, err
	}
	toHook := func(id string) string {
		b, _ := json.Marshal(map[string]string{"type": DeliveryTriggerType, "webhookId": id})
		return string(b)
	}
	toListener := `{"type":"` + DeliveryTriggerType + `"}` // no webhookId: the caller's listen session
	hookA, err := hook(ownerA, rc.URL+"/tenant-a")
	if err != nil {
		return res, err
	}
	hookB, err := hook(ownerB, rc.URL+"/tenant-b")
	if err != nil {
		return res, err
	}
	var hungHookID string
	if hung {
		hungHook = NewHungServer(true)
		if hungHookID, err = hook(ownerA, hungHook.URL+"/hook"); err != nil {
			return res, err
		}
		hungTarget = NewHungServer(false)
	}
	healthy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write(receiverAnswer)
	}))
	healthy.Config.ErrorLog = log.New(io.Discard, "", 0)

	if l, err = ServeTimbra(s); err != nil {
		return res, err
	}
	triggerURL := l.URL + "/api/v4/events/trigger"
	// the forward client of `timbra listen` by default (listener.DefaultForwardTimeout)
	fwd := func(url string) *listener.Forwarder {
		return &listener.Forwarder{URL: url, Client: listener.NewForwardClient(listener.DefaultForwardTimeout, false)}
	}
	lsB := &isoListen{printed: map[string]time.Time{}}
	if sessB, err = startListenSession(l.URL, ownerB, fwd(healthy.URL+"/hook"), opt.Timeout, nil, lsB.onEvent, lsB.onDisconnect); err != nil {
		return res, err
	}
	rc.Reset()

	if hung {
		lsA := &isoListen{printed: map[string]time.Time{}} // its events are not measured
		if sessA, err = startListenSession(l.URL, ownerA, fwd(hungTarget.URL+"/hook"), opt.Timeout, nil, lsA.onEvent, nil); err != nil {
			return res, err
		}
		var wg sync.WaitGroup
		var busyErrs atomic.Int64
		var busyFirst atomic.Pointer[string]
		for _, body := range []string{toHook(hungHookID), toListener} {
			wg.Go(func() {
				for range opt.IsolationBusy {
					key, err := keysA.next()
					if err == nil {
						_, err = postTrigger(c, triggerURL, key, body)
					}
					if err != nil {
						busyErrs.Add(1)
						msg := "busy trigger: " + err.Error()
						busyFirst.CompareAndSwap(nil, &msg)
					}
				}
			})
		}
		wg.Wait()
		if n := busyErrs.Load(); n > 0 {
			res.Errors, res.First = int(n), *busyFirst.Load()
			return res, nil
		}
		for deadline := time.Now().Add(isolationBusyWait); hungHook.Seen() == 0 || hungTarget.Seen() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				return res, fmt.Errorf("%s: after %s the hung webhook endpoint had %d requests and the hung listen target %d: the hung destinations are not busy",
					res.Name, isolationBusyWait, hungHook.Seen(), hungTarget.Seen())
			}
		}
		res.HeldStart = [2]int{hungHook.Held(), hungTarget.Held()}
	}

	dests := []*isoDest{
		{name: "tenant A: healthy webhook", keys: keysA, body: toHook(hookA)},
		{name: "tenant B: healthy webhook", keys: keysB, body: toHook(hookB)},
		{name: "tenant B: listen session", keys: keysB, body: toListener, listen: lsB},
	}
	per := max(opt.IsolationEvents/len(dests), 1)
	interval := time.Second / IsolationRate
	start := time.Now()
	deadline := start.Add(opt.Duration)
	var wg sync.WaitGroup
	for _, d := range dests {
		d.recs = make([]triggerRecord, 0, per)
		wg.Go(func() {
			for i := range per {
				at := start.Add(time.Duration(i) * interval)
				if i > 0 && at.After(deadline) {
					return
				}
				time.Sleep(time.Until(at))
				key, err := d.keys.next()
				sent := time.Now()
				var id string
				if err == nil {
					id, err = postTrigger(c, triggerURL, key, d.body)
				}
				done := time.Now()
				if err != nil {
					if d.errs == 0 {
						d.first = d.name + ": " + err.Error()
					}
					d.errs++
					continue
				}
				d.recs = append(d.recs, triggerRecord{id, sent, done})
			}
		})
	}
	wg.Wait()
	res.Triggering = time.Since(start)

	delivered := func(d *isoDest, id string) (time.Time, bool) {
		if d.listen != nil {
			return d.listen.at(id)
		}
		return rc.Seen(id)
	}
	allDelivered := func() bool {
		for _, d := range dests {
			for _, r := range d.recs {
				if _, ok := delivered(d, r.id); !ok {
					return false
				}
			}
		}
		return true
	}
	for end := time.Now().Add(opt.IsolationWait); !allDelivered() && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	if hung {
		res.HeldEnd = [2]int{hungHook.Held(), hungTarget.Held()}
	}

	var all, trig []time.Duration
	res.All.Name = "all healthy destinations"
	for _, d := range dests {
		x := IsolationDest{Name: d.name, Triggered: len(d.recs)}
		lat := make([]time.Duration, 0, len(d.recs))
		for _, r := range d.recs {
			trig = append(trig, r.done.Sub(r.sent))
			if at, ok := delivered(d, r.id); ok {
				lat = append(lat, at.Sub(r.sent))
				x.Delivered++
			} else {
				lat = append(lat, Never)
			}
		}
		x.Latency = latencies(lat)
		all = append(all, lat...)
		res.Dests = append(res.Dests, x)
		res.All.Triggered += x.Triggered
		res.All.Delivered += x.Delivered
		res.Errors += d.errs
		if res.First == "" {
			res.First = d.first
		}
	}
	res.All.Latency, res.Trigger = latencies(all), latencies(trig)
	res.Keys = keysA.count() + keysB.count()
	lsB.mu.Lock()
	if len(lsB.fails) > 0 {
		res.Errors += len(lsB.fails)
		if res.First == "" {
			res.First = "tenant B's listen session: " + lsB.fails[0]
		}
	}
	lsB.mu.Unlock()
	return res, nil
}

// runIsolation runs the isolation scenarios Options select, the floor first.
func runIsolation(opt Options, rep *Report) error {
	selected := func(name string) bool { return opt.Only == nil || opt.Only.MatchString(name) }
	if !selected(IsolationFloor) && !selected(IsolationScenario) {
		return nil
	}
	rc, err := NewReceiver(opt.Dir)
	if err != nil {
		return err
	}
	defer rc.Close()
	for _, sc := range []struct {
		name string
		hung bool
	}{{IsolationFloor, false}, {IsolationScenario, true}} {
		if !selected(sc.name) {
			continue
		}
		opt.Progress("measure %s (%d triggers at %d/s per healthy destination, wait %s)", sc.name, opt.IsolationEvents, IsolationRate, opt.IsolationWait)
		r, err := RunIsolation(opt, rc, sc.hung)
		rep.Isolation = append(rep.Isolation, r)
		if err == nil {
			opt.Progress("  delivered %d of %d, p50 %s p99 %s max %s; errors %d", r.All.Delivered, r.All.Triggered,
				latencyText(r.All.Latency.P50), latencyText(r.All.Latency.P99), latencyText(r.All.Latency.Max), r.Errors)
			err = r.Err()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// latencyText is ms, or "not delivered" for Never.
func latencyText(d time.Duration) string {
	if d == Never {
		return "not delivered"
	}
	return ms(d)
}

// IsolationResult finds an isolation result by scenario name.
func (r *Report) IsolationResult(name string) (IsolationResult, bool) {
	i := slices.IndexFunc(r.Isolation, func(x IsolationResult) bool { return x.Name == name })
	if i < 0 {
		return IsolationResult{}, false
	}
	return r.Isolation[i], true
}

// isolationMarkdown writes the isolation results, the ratios to the floor and the target.
func (r *Report) isolationMarkdown(b *strings.Builder) {
	if len(r.Isolation) == 0 {
		return
	}
	x := r.Isolation[0]
	busy := DefaultIsolationBusy
	for _, y := range r.Isolation {
		if y.Hung {
			busy = y.Busy
		}
	}
	fmt.Fprintf(b, "#### Isolation: healthy destinations beside hung ones\n\n"+
		"Two tenants on one server (Serve on loopback, discard logger). Tenant A: a webhook whose endpoint hangs (TLS on 127.0.0.1: accepts the connection, "+
		"reads the request, never answers) and its owner's listen session (listener.Client, forward timeout %s as `timbra listen`'s default) forwarding to a "+
		"local HTTP server that hangs the same way, each sent %d triggers first; plus a healthy webhook. Tenant B: a healthy webhook and its owner's listen "+
		"session forwarding to a local HTTP server answering 200. Healthy webhooks go to the TLS receiver of the delivery scenarios. Measured: triggers at %d "+
		"per second to each healthy destination (keep-alive HTTP, stopped after %s), from sending the trigger to the receiver's answer (webhooks) or to "+
		"OnEvent, after the forward's 2xx (listen). An event not delivered %s after the last trigger is \"not delivered\". The floor is the same without "+
		"the hung destinations (no hung webhook, no listen session for tenant A, no triggers first), on a new database in the same run.\n\n",
		listener.DefaultForwardTimeout, busy, IsolationRate, r.Options.Duration, x.Wait)
	b.WriteString("| scenario | destination | triggered | delivered | p50 | p99 | max |\n|---|---|---:|---:|---:|---:|---:|\n")
	for _, y := range r.Isolation {
		for _, d := range append(slices.Clone(y.Dests), y.All) {
			fmt.Fprintf(b, "| %s | %s | %d | %d | %s | %s | %s |\n", y.Name, d.Name, d.Triggered, d.Delivered,
				latencyText(d.Latency.P50), latencyText(d.Latency.P99), latencyText(d.Latency.Max))
		}
	}
	b.WriteString("\n| scenario | requests held by the hung webhook endpoint, start / end | by the hung listen target, start / end | trigger 202 p50 / p99 | triggering | API keys | errors |\n" +
		"|---|---:|---:|---:|---:|---:|---:|\n")
	for _, y := range r.Isolation {
		held := [2]string{"", ""}
		if y.Hung {
			held = [2]string{fmt.Sprintf("%d / %d", y.HeldStart[0], y.HeldEnd[0]), fmt.Sprintf("%d / %d", y.HeldStart[1], y.HeldEnd[1])}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s / %s | %s | %d | %d |\n", y.Name, held[0], held[1], ms(y.Trigger.P50), ms(y.Trigger.P99),
			y.Triggering.Round(time.Millisecond), y.Keys, y.Errors)
	}
	hungRes, okH := r.IsolationResult(IsolationScenario)
	floor, okF := r.IsolationResult(IsolationFloor)
	if okH && okF {
		lr := func(a, b time.Duration) string {
			if a == Never || b == Never {
				return "n/a (not delivered)"
			}
			return ratio(float64(a), float64(b))
		}
		b.WriteString("\n| hung / floor | p50 | p99 |\n|---|---:|---:|\n")
		for i, d := range append(slices.Clone(hungRes.Dests), hungRes.All) {
			f := floor.All
			if i < len(floor.Dests) {
				f = floor.Dests[i]
			}
			fmt.Fprintf(b, "| %s | %s | %s |\n", d.Name, lr(d.Latency.P50, f.Latency.P50), lr(d.Latency.P99, f.Latency.P99))
		}
	}
	if okH {
		met := "met"
		for _, d := range hungRes.Dests {
			if d.Latency.P99 >= IsolationTargetP99 {
				met = "NOT met"
			}
		}
		if hungRes.Errors > 0 {
			met = "NOT met"
		}
		fmt.Fprintf(b, "\nTarget p99 (trigger → delivered) under %s at every healthy destination beside the hung ones: %s (all together: p99 %s, %d of %d delivered).\n",
			ms(IsolationTargetP99), met, latencyText(hungRes.All.Latency.P99), hungRes.All.Delivered, hungRes.All.Triggered)
	}
	b.WriteString("\n")
}
