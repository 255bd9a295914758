package bench

// Webhook delivery scenarios: the engine (webhooks.Engine, 64 workers) sending to a local TLS
// receiver, next to its floor, the same receiver hit directly by 64 Go clients. See
// BENCHMARKS.md, "Webhook deliveries".

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// WideFloorClients is the concurrency of the wide floors, 64 clients (the engine's worker count
// before it bounded attempts per destination).
const WideFloorClients = 64

// Names of the delivery scenarios, in the order they run; -only deliveries selects them all,
// -only drains the two drains.
const (
	DeliveryDrain       = "deliveries: engine drains a preloaded outbox"
	DeliveryDrainLoaded = "deliveries: engine drains a preloaded outbox under API load"
	DeliveryTriggerOne  = "deliveries: trigger → receiver, 1 trigger client"
	DeliveryTrigger     = "deliveries: trigger → receiver, concurrent trigger clients"
	DeliveryFloor       = "deliveries floor: 64 direct clients, 64 connections"
	DeliveryFloorHook   = "deliveries floor: 64 direct clients, webhook.Send"
	DeliveryFloorSign   = "deliveries floor: sign-and-POST loop, -floor-clients clients"
)

// Defaults of the drain under API load and of the sign-and-POST floor.
const (
	// DefaultAPILoadClients is how many clients send GET /api/v4/people during the drain under
	// API load.
	DefaultAPILoadClients = 8
	// DefaultAPILoadShare is the part of the API's capacity (what the load clients get alone,
	// measured in the same run) they offer during the drain under API load, unless a rate is
	// given: a busy server, not a saturated one (a drain that needs the whole machine keeps about
	// the part of it the API leaves).
	DefaultAPILoadShare = 0.1
	// DefaultFloorClients is the concurrency of the sign-and-POST floor: the attempts the engine
	// keeps in flight to one destination.
	DefaultFloorClients = webhooks.DefaultPerDestination
)

// apiCapacityProbe is how long the API load clients run alone to measure the API's capacity.
const apiCapacityProbe = 2 * time.Second

// Targets of the drains, as ratios of deliveries per second measured in the same run.
const (
	DrainTargetFloorRatio  = 0.5 // drain ≥ 0.5 × the sign-and-POST floor, on a quiet server
	DrainTargetLoadedRatio = 0.7 // drain under API load ≥ 0.7 × the quiet drain
)

// DeliveryTriggerType is the event type the scenarios trigger.
const DeliveryTriggerType = "invoice.canceled"

// triggersPerKey is how many triggers one API key sends: the trigger endpoint is BusinessWrite,
// 600 per 60 s per key, so the harness spreads triggers over as many keys as it needs.
const triggersPerKey = 500

// DefaultDeliveryEvents is the size of the preloaded outbox per second of Options.Duration.
const DefaultDeliveryEvents = 1000

// MemUsage is the memory of the whole process (client, server and receiver) during a scenario,
// from runtime.MemStats sampled every 50 ms and the resident set of /proc/self/statm.
type MemUsage struct {
	HeapStart, HeapPeak, HeapEnd uint64 // HeapInuse: at start and end after a GC; peak sampled
	RSSStart, RSSPeak, RSSEnd    uint64 // 0 where the system does not tell
	Alloc                        uint64 // bytes allocated during the scenario (TotalAlloc)
	GCs                          uint32
}

// DeliveryResult is what one delivery scenario measured.
type DeliveryResult struct {
	Name        string
	Clients     int           // trigger clients (engine scenarios) or posting clients (floors)
	Events      int           // deliveries expected: events triggered, or requests posted
	Delivered   int           // distinct webhook-ids the receiver answered 2xx (floors: 2xx answers)
	Requests    int           // requests the receiver answered, repeats included
	Conns       int           // connections the receiver accepted (TLS handshakes)
	Errors      int           // triggers or posts that failed, and events never received
	First       string        // the first failure
	Elapsed     time.Duration // engine start or first trigger → last receipt; floors: whole run
	Settled     time.Duration // engine start or first trigger → outbox empty (engine scenarios)
	P50, P99    time.Duration // trigger sent → receiver answered (engine); one post (floors)
	Max         time.Duration
	TriggerP50  time.Duration // POST /api/v4/events/trigger → its 202
	TriggerP99  time.Duration
	TriggerRate float64 // triggers answered 202 per second
	Preload     time.Duration
	Mem         MemUsage
	Load        *APILoad // the API clients of the drain under API load
}

// PerSecond is deliveries received per second over Elapsed.
func (r DeliveryResult) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Delivered) / r.Elapsed.Seconds()
}

// Err is nil when the scenario delivered something and nothing failed.
func (r DeliveryResult) Err() error {
	switch {
	case r.Errors > 0:
		return fmt.Errorf("%s: %d failures of %d; first: %s", r.Name, r.Errors, r.Events, r.First)
	case r.Delivered == 0:
		return fmt.Errorf("%s: nothing delivered", r.Name)
	case r.Load != nil && r.Load.Errors > 0:
		return fmt.Errorf("%s: %d API requests failed; first: %s", r.Name, r.Load.Errors, r.Load.First)
	case r.Load != nil && r.Load.Ops == 0:
		return fmt.Errorf("%s: no API request finished during the drain", r.Name)
	}
	return nil
}

// APILoad is what the API clients of the drain under API load did while the engine drained:
// from the engine's start to the last delivery received.
type APILoad struct {
	Clients       int
	Rate          int     // offered requests per second; 0: each client sent as fast as answered
	Capacity      float64 // requests per second the clients got alone, closed loop, when Rate was derived from it
	Ops, Errors   int     // requests finished in the window; failed ones, warm-up included
	First         string
	Elapsed       time.Duration
	P50, P99, Max time.Duration
}

// PerSecond is the requests finished per second of the window.
func (a APILoad) PerSecond() float64 {
	if a.Elapsed <= 0 {
		return 0
	}
	return float64(a.Ops) / a.Elapsed.Seconds()
}

// apiLoad is clients goroutines sending one authenticated GET after another until end.
type apiLoad struct {
	rate      int // requests per second offered in all; 0: as fast as answered
	capacity  float64
	c         *http.Client
	stop      chan struct{}
	wg        sync.WaitGroup
	finished  atomic.Int64 // requests finished, measured or not
	measuring atomic.Bool  // record the requests that finish while set
	workers   []apiWorker
	start     time.Time
}

type apiWorker struct {
	lat    []time.Duration
	errors int
	first  error
}

// startAPILoad starts the clients, each with its own keep-alive connection to url, and waits
// until each has finished a few requests (at most 5 s): the load is steady when measuring
// starts. rate > 0 paces them to that many requests per second in all.
func startAPILoad(url string, header http.Header, clients, rate int, timeout time.Duration) *apiLoad {
	l := &apiLoad{c: Client(clients, timeout), stop: make(chan struct{}), workers: make([]apiWorker, clients), rate: rate}
	var every time.Duration // between two requests of one client
	if rate > 0 {
		every = time.Duration(float64(clients) * float64(time.Second) / float64(rate))
	}
	for i := range l.workers {
		w := &l.workers[i]
		w.lat = make([]time.Duration, 0, 1<<14)
		op := HTTPOp(l.c, http.MethodGet, url, header, "")
		l.wg.Go(func() {
			next := time.Now().Add(every * time.Duration(i) / time.Duration(clients))
			for {
				if every > 0 {
					next = next.Add(every)
					time.Sleep(time.Until(next))
				}
				select {
				case <-l.stop:
					return
				default:
				}
				t0 := time.Now()
				err := op()
				d := time.Since(t0)
				l.finished.Add(1)
				if err != nil {
					if w.errors == 0 {
						w.first = err
					}
					w.errors++
					continue
				}
				if l.measuring.Load() {
					w.lat = append(w.lat, d)
				}
			}
		})
	}
	for deadline := time.Now().Add(5 * time.Second); l.finished.Load() < int64(4*clients) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return l
}

// measure starts the window.
func (l *apiLoad) measure() {
	l.start = time.Now()
	l.measuring.Store(true)
}

// end closes the window and stops the clients.
func (l *apiLoad) end() APILoad {
	l.measuring.Store(false)
	out := APILoad{Clients: len(l.workers), Rate: l.rate, Capacity: l.capacity, Elapsed: time.Since(l.start)}
	close(l.stop)
	l.wg.Wait()
	l.c.CloseIdleConnections()
	var all []time.Duration
	for _, w := range l.workers {
		all = append(all, w.lat...)
		out.Errors += w.errors
		if w.first != nil && out.First == "" {
			out.First = w.first.Error()
		}
	}
	slices.Sort(all)
	out.Ops = len(all)
	out.P50, out.P99 = percentile(all, 0.50), percentile(all, 0.99)
	if len(all) > 0 {
		out.Max = all[len(all)-1]
	}
	return out
}

// Receiver is a local TLS webhook receiver: it reads the body, notes when it first saw each
// webhook-id and answers 200 with a short body. It verifies nothing, so the engine and the
// floor pay the same for it.
type Receiver struct {
	URL    string // https://127.0.0.1:port/hook
	CAFile string // its certificate as PEM, for server.Config.WebhookCAFile
	Cert   *x509.Certificate

	srv      *httptest.Server
	dir      string
	requests atomic.Int64
	conns    atomic.Int64 // connections accepted (each a TLS handshake)
	mu       sync.Mutex
	seen     map[string]time.Time
}

// NewReceiver starts a receiver on 127.0.0.1 (HTTP/1.1, as httptest serves TLS), writing its
// CA file in a new folder under dir.
func NewReceiver(dir string) (*Receiver, error) {
	tmp, err := os.MkdirTemp(dir, "receiver-")
	if err != nil {
		return nil, err
	}
	rc := &Receiver{dir: tmp, seen: map[string]time.Time{}}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes cut by clients going away
	rc.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rc.conns.Add(1)
		}
	}
	rc.srv.StartTLS()
	rc.URL, rc.Cert = rc.srv.URL+"/hook", rc.srv.Certificate()
	rc.CAFile = filepath.Join(tmp, "ca.pem")
	if err := os.WriteFile(rc.CAFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Cert.Raw}), 0o600); err != nil {
		rc.Close()
		return nil, err
	}
	return rc, nil
}

var receiverAnswer = []byte(`{"received":true}`)

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	id := r.Header.Get(webhook.HeaderID)
	now := time.Now()
	rc.mu.Lock()
	if _, ok := rc.seen[id]; !ok {
		rc.seen[id] = now
	}
	rc.mu.Unlock()
	rc.requests.Add(1)
	w.Header().Set("Content-Length", strconv.Itoa(len(receiverAnswer)))
	w.WriteHeader(http.StatusOK)
	w.Write(receiverAnswer)
}

// Close stops the receiver and removes its folder.
func (rc *Receiver) Close() error {
	rc.srv.Close()
	return os.RemoveAll(rc.dir)
}

// Reset forgets what the receiver has seen.
func (rc *Receiver) Reset() {
	rc.mu.Lock()
	rc.seen = map[string]time.Time{}
	rc.mu.Unlock()
	rc.requests.Store(0)
	rc.conns.Store(0)
}

// Conns is how many connections the receiver has accepted: each one a TLS handshake.
func (rc *Receiver) Conns() int { return int(rc.conns.Load()) }

// Distinct is how many webhook-ids the receiver has seen.
func (rc *Receiver) Distinct() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.seen)
}

// Requests is how many requests the receiver has answered.
func (rc *Receiver) Requests() int { return int(rc.requests.Load()) }

// Seen tells when the receiver first answered id.
func (rc *Receiver) Seen(id string) (time.Time, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t, ok := rc.seen[id]
	return t, ok
}

// Last is the latest first receipt of any id.
func (rc *Receiver) Last() time.Time {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var last time.Time
	for _, t := range rc.seen {
		if t.After(last) {
			last = t
		}
	}
	return last
}

// WaitDistinct waits until the receiver has seen n ids, or timeout passes.
func (rc *Receiver) WaitDistinct(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for rc.Distinct() < n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// WebhookServer is a real timbra server over the database whose webhooks may reach 127.0.0.1
// and trust caFile, with the limits of Server.
func (t *Timbra) WebhookServer(logger *slog.Logger, caFile string) (*server.Server, error) {
	policy, err := webhook.NewPolicy("127.0.0.1/32")
	if err != nil {
		return nil, err
	}
	return server.New(server.Config{
		Environment: t.Data.Environment, Version: "bench", Logger: logger,
		StandardLimit: HighLimit, AnonymousLimit: HighLimit, ShutdownTimeout: 5 * time.Second,
		WebhookPolicy: policy, WebhookCAFile: caFile,
	}, t.Data.Store, t.Data.Keys)
}

// inProcess answers one request to h in process and decodes the envelope's data into out.
func inProcess(h http.Handler, method, path string, header http.Header, body string, want int, out any) error {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		return fmt.Errorf("%s %s: status %d: %.300s", method, path, rec.Code, rec.Body.Bytes())
	}
	var env api.RawEnvelope
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(env.Data, out)
}

// DeliveryTarget is a database with one tenant, a server whose webhooks may reach the
// receiver, one webhook to it, and API keys for the trigger endpoint.
type DeliveryTarget struct {
	T      *Timbra
	Server *server.Server
	HookID string
	Secret string
	body   string // of a trigger

	mu   sync.Mutex
	keys []http.Header
	used int // triggers given to the last key
}

// NewDeliveryTarget makes the database (in a new folder under dir) and the webhook.
func NewDeliveryTarget(dir string, rc *Receiver) (*DeliveryTarget, error) {
	t, err := NewTimbra(dir)
	if err != nil {
		return nil, err
	}
	s, err := t.WebhookServer(slog.New(slog.DiscardHandler), rc.CAFile)
	if err != nil {
		t.Close()
		return nil, err
	}
	dt := &DeliveryTarget{T: t, Server: s, keys: []http.Header{t.Header()}}
	var w api.Webhook
	create, _ := json.Marshal(api.WebhookCreate{URL: &rc.URL, EnabledEvents: []string{"*"}})
	if err := inProcess(s.Handler(), http.MethodPost, "/api/v4/webhooks", t.Header(), string(create), http.StatusCreated, &w); err != nil {
		t.Close()
		return nil, err
	}
	dt.HookID, dt.Secret = w.ID, w.Secret
	trigger, _ := json.Marshal(map[string]string{"type": DeliveryTriggerType, "webhookId": w.ID})
	dt.body = string(trigger)
	return dt, nil
}

// Close closes the database and removes its folder.
func (dt *DeliveryTarget) Close() error { return dt.T.Close() }

// key is the credentials header for one more trigger: each key sends at most triggersPerKey,
// and a new one is made (in process) when the last is used up.
func (dt *DeliveryTarget) key() (http.Header, error) {
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if dt.used >= triggersPerKey {
		desc := "bench deliveries"
		body, _ := json.Marshal(api.APIKeyCreate{Description: &desc})
		var k api.APIKey
		if err := inProcess(dt.Server.Handler(), http.MethodPost, KeysPath, dt.T.Header(), string(body), http.StatusOK, &k); err != nil {
			return nil, err
		}
		dt.keys = append(dt.keys, http.Header{"X-Tenant-Key": {dt.T.Creds.TenantKey}, "X-Api-Key": {k.APIKeyValue}})
		dt.used = 0
	}
	dt.used++
	return dt.keys[len(dt.keys)-1], nil
}

// Preload triggers n events in process (no TCP) from workers goroutines, before the engine
// runs, and returns their ids.
func (dt *DeliveryTarget) Preload(n, workers int) ([]string, error) {
	ids := make([]string, n)
	var next atomic.Int64
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	h := dt.Server.Handler()
	for range max(workers, 1) {
		wg.Go(func() {
			for failed.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				key, err := dt.key()
				var out api.EventTriggered
				if err == nil {
					err = inProcess(h, http.MethodPost, "/api/v4/events/trigger", key, dt.body, http.StatusAccepted, &out)
				}
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
				ids[i] = out.EventID
			}
		})
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		return nil, *e
	}
	return ids, nil
}

// OutboxEmpty tells whether no delivery is pending.
func (dt *DeliveryTarget) OutboxEmpty() bool {
	empty := false
	dt.T.Data.Store.View(context.Background(), func(tx storage.Tx) error {
		empty = tx.Outbox().Empty()
		return nil
	})
	return empty
}

// waitOutboxEmpty waits until no delivery is pending, or timeout passes.
func (dt *DeliveryTarget) waitOutboxEmpty(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !dt.OutboxEmpty() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// memSampler follows the memory of the process during a scenario.
type memSampler struct {
	stop, done chan struct{}
	start      runtime.MemStats
	mu         sync.Mutex
	u          MemUsage
}

func rss() uint64 {
	raw, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

func startMem() *memSampler {
	runtime.GC()
	s := &memSampler{stop: make(chan struct{}), done: make(chan struct{})}
	runtime.ReadMemStats(&s.start)
	s.u.HeapStart, s.u.HeapPeak = s.start.HeapInuse, s.start.HeapInuse
	s.u.RSSStart = rss()
	s.u.RSSPeak = s.u.RSSStart
	go func() {
		defer close(s.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *memSampler) sample() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r := rss()
	s.mu.Lock()
	s.u.HeapPeak = max(s.u.HeapPeak, m.HeapInuse)
	s.u.RSSPeak = max(s.u.RSSPeak, r)
	s.mu.Unlock()
}

// end stops sampling: the allocation counts are taken now, the heap after a GC.
func (s *memSampler) end() MemUsage {
	close(s.stop)
	<-s.done
	s.sample()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.u.Alloc, s.u.GCs = m.TotalAlloc-s.start.TotalAlloc, m.NumGC-s.start.NumGC
	runtime.GC()
	runtime.ReadMemStats(&m)
	s.u.HeapEnd, s.u.RSSEnd = m.HeapInuse, rss()
	return s.u
}

// deliveryTimeout bounds the wait for n deliveries.
func deliveryTimeout(n int) time.Duration {
	return 2*time.Minute + time.Duration(n)*10*time.Millisecond
}

// RunDrain preloads n pending deliveries, then starts the server (Serve on loopback, which runs
// the engine) and measures until the receiver has every one, and until the outbox is empty.
// When profile is not empty, a CPU profile of the drain goes there.
func RunDrain(dir string, rc *Receiver, n, preloadWorkers int, profile string) (DeliveryResult, error) {
	return runDrain(DeliveryDrain, dir, rc, n, preloadWorkers, profile, 0, 0, 0)
}

// RunDrainLoaded is RunDrain while loadClients clients send GET /api/v4/people with the
// tenant's keys, one request after another over their own keep-alive connections, to the same
// server (its handler on a loopback listener of its own, as Serve serves it). The clients start
// before the engine, so the load is steady when the clock starts, and stop when the last
// delivery arrives; timeout bounds each request. The clients together offer rate requests per
// second, each on its own schedule; with rate 0, DefaultAPILoadShare of what they got alone
// from the same server in apiCapacityProbe just before (a busy server); with rate < 0 each
// sends as fast as the server answers (a saturated one).
func RunDrainLoaded(dir string, rc *Receiver, n, preloadWorkers, loadClients, rate int, timeout time.Duration) (DeliveryResult, error) {
	return runDrain(DeliveryDrainLoaded, dir, rc, n, preloadWorkers, "", max(loadClients, 1), rate, timeout)
}

func runDrain(name, dir string, rc *Receiver, n, preloadWorkers int, profile string, loadClients, rate int, timeout time.Duration) (res DeliveryResult, err error) {
	res = DeliveryResult{Name: name, Events: n}
	dt, err := NewDeliveryTarget(dir, rc)
	if err != nil {
		return res, err
	}
	defer dt.Close()
	t0 := time.Now()
	ids, err := dt.Preload(n, preloadWorkers)
	if err != nil {
		return res, err
	}
	res.Preload = time.Since(t0)
	rc.Reset()
	var load *apiLoad
	if loadClients > 0 {
		apiSrv, err := ServeBare(dt.Server.Handler())
		if err != nil {
			return res, err
		}
		defer func() { err = errors.Join(err, apiSrv.Close()) }()
		url := apiSrv.URL + PeoplePath
		var capacity float64
		switch {
		case rate == 0: // half of what the same clients get alone from the same server
			probe := startAPILoad(url, dt.T.Header(), loadClients, 0, timeout)
			probe.measure()
			time.Sleep(apiCapacityProbe)
			capacity = probe.end().PerSecond()
			rate = max(int(capacity*DefaultAPILoadShare), 1)
		case rate < 0:
			rate = 0
		}
		load = startAPILoad(url, dt.T.Header(), loadClients, rate, timeout)
		load.capacity = capacity
		defer func() {
			if res.Load == nil { // an early return
				load.end()
			}
		}()
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return res, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return res, err
		}
	}
	mem := startMem()
	if load != nil {
		load.measure()
	}
	start := time.Now()
	l, err := ServeTimbra(dt.Server)
	if err != nil {
		mem.end()
		pprof.StopCPUProfile()
		return res, err
	}
	ok := rc.WaitDistinct(n, deliveryTimeout(n))
	if load != nil {
		a := load.end()
		res.Load = &a
	}
	if ok && dt.waitOutboxEmpty(time.Minute) {
		res.Settled = time.Since(start)
	}
	if profile != "" {
		pprof.StopCPUProfile()
	}
	res.Elapsed = rc.Last().Sub(start)
	err = l.Close()
	res.Mem = mem.end()
	res.Delivered, res.Requests, res.Conns = rc.Distinct(), rc.Requests(), rc.Conns()
	for _, id := range ids {
		if _, seen := rc.Seen(id); !seen {
			res.Errors++
			if res.First == "" {
				res.First = "event " + id + " never received"
			}
		}
	}
	return res, err
}

// triggerRecord is one trigger answered 202.
type triggerRecord struct {
	id         string
	sent, done time.Time
}

// triggerOp posts one trigger over HTTP and returns the event id.
func (dt *DeliveryTarget) triggerOp(c *http.Client, url string) (string, error) {
	key, err := dt.key()
	if err != nil {
		return "", err
	}
	return postTrigger(c, url, key, dt.body)
}

// triggerFor runs clients trigger workers over c for d, at most maxOps triggers together.
func (dt *DeliveryTarget) triggerFor(c *http.Client, url string, clients int, d time.Duration, maxOps int) ([]triggerRecord, int, string) {
	per := max(maxOps/clients, 1)
	recs := make([][]triggerRecord, clients)
	errs := make([]int, clients)
	firsts := make([]string, clients)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range clients {
		recs[w] = make([]triggerRecord, 0, min(per, 1024))
		wg.Go(func() {
			for len(recs[w])+errs[w] < per {
				sent := time.Now()
				id, err := dt.triggerOp(c, url)
				done := time.Now()
				if err != nil {
					if errs[w] == 0 {
						firsts[w] = err.Error()
					}
					errs[w]++
				} else {
					recs[w] = append(recs[w], triggerRecord{id, sent, done})
				}
				if done.After(deadline) {
					return
				}
			}
		})
	}
	wg.Wait()
	var all []triggerRecord
	nerr, first := 0, ""
	for w := range clients {
		all = append(all, recs[w]...)
		nerr += errs[w]
		if first == "" {
			first = firsts[w]
		}
	}
	return all, nerr, first
}

// RunTriggered serves a new target on loopback (Serve: HTTP and engine) and has clients
// workers trigger events over TCP for d (after a warm-up whose deliveries are awaited and not
// counted), then waits until every accepted event reached the receiver. Latency is from
// sending the trigger to the receiver's answer.
func RunTriggered(name, dir string, rc *Receiver, clients int, warmup, d time.Duration, maxOps int, timeout time.Duration) (DeliveryResult, error) {
	res := DeliveryResult{Name: name, Clients: clients}
	dt, err := NewDeliveryTarget(dir, rc)
	if err != nil {
		return res, err
	}
	defer dt.Close()
	l, err := ServeTimbra(dt.Server)
	if err != nil {
		return res, err
	}
	c := Client(clients, timeout)
	defer c.CloseIdleConnections()
	url := l.URL + "/api/v4/events/trigger"
	if warmup > 0 {
		rc.Reset()
		recs, nerr, first := dt.triggerFor(c, url, clients, warmup, maxOps)
		if nerr > 0 {
			l.Close()
			return res, fmt.Errorf("%s (warm-up): %d triggers failed; first: %s", name, nerr, first)
		}
		if !rc.WaitDistinct(len(recs), deliveryTimeout(len(recs))) || !dt.waitOutboxEmpty(time.Minute) {
			l.Close()
			return res, fmt.Errorf("%s (warm-up): deliveries did not all arrive", name)
		}
	}
	rc.Reset()
	mem := startMem()
	recs, nerr, first := dt.triggerFor(c, url, clients, d, maxOps)
	res.Events, res.Errors, res.First = len(recs)+nerr, nerr, first
	rc.WaitDistinct(len(recs), deliveryTimeout(len(recs)))
	var start, lastTrigger time.Time
	for i, r := range recs {
		if i == 0 || r.sent.Before(start) {
			start = r.sent
		}
		lastTrigger = maxTime(lastTrigger, r.done)
	}
	if dt.waitOutboxEmpty(time.Minute) {
		res.Settled = time.Since(start)
	}
	err = l.Close()
	res.Mem = mem.end()
	res.Delivered, res.Requests, res.Conns = rc.Distinct(), rc.Requests(), rc.Conns()
	lat := make([]time.Duration, 0, len(recs))
	trig := make([]time.Duration, 0, len(recs))
	var last time.Time
	for _, r := range recs {
		trig = append(trig, r.done.Sub(r.sent))
		got, ok := rc.Seen(r.id)
		if !ok {
			res.Errors++
			if res.First == "" {
				res.First = "event " + r.id + " never received"
			}
			continue
		}
		lat = append(lat, got.Sub(r.sent))
		last = maxTime(last, got)
	}
	slices.Sort(lat)
	slices.Sort(trig)
	res.P50, res.P99 = percentile(lat, 0.50), percentile(lat, 0.99)
	if len(lat) > 0 {
		res.Max = lat[len(lat)-1]
	}
	res.TriggerP50, res.TriggerP99 = percentile(trig, 0.50), percentile(trig, 0.99)
	if len(recs) > 0 {
		res.Elapsed = last.Sub(start)
		res.TriggerRate = float64(len(recs)) / lastTrigger.Sub(start).Seconds()
	}
	return res, err
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// FloorRequest is a delivery as the engine sends it, signed once: its body, the Standard
// Webhooks headers and the secret that signed them. The floor sends it again and again with a
// new webhook-id each time (so the receiver records as many ids as for the engine), keeping
// the one signature, which the receiver does not check.
type FloorRequest struct {
	Body   []byte
	Header http.Header
}

// NewFloorRequest signs an event envelope shaped like a triggered one with secret.
func NewFloorRequest(secret string) (FloorRequest, error) {
	now := time.Now().UTC()
	id := "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c58"
	body, err := json.Marshal(api.Event{
		ID: id, Type: DeliveryTriggerType, CreatedAt: api.FormatInstant(now),
		Data: api.EventData{
			RelatedObject: api.RelatedObject{ID: id, Type: "invoice", URL: "/api/v4/invoices/" + id},
			Status:        "Cancelado", PreviousStatus: "Vigente",
		},
	})
	if err != nil {
		return FloorRequest{}, err
	}
	sig, err := webhook.Sign([]string{secret}, id, now, body)
	if err != nil {
		return FloorRequest{}, err
	}
	return FloorRequest{Body: body, Header: webhook.Headers(id, now, sig)}, nil
}

// floorIDs numbers the floor's requests.
var floorIDs atomic.Int64

func (f FloorRequest) header() http.Header {
	h := f.Header.Clone()
	h.Set(webhook.HeaderID, "floor-"+strconv.FormatInt(floorIDs.Add(1), 10))
	return h
}

// FloorClient is a plain HTTP client for the floor: TLS trusting the receiver, keep-alive, one
// connection per worker (no cap per host), like a pool of independent senders.
func FloorClient(rc *Receiver, workers int, timeout time.Duration) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(rc.Cert)
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
			MaxIdleConns:        2 * workers,
			MaxIdleConnsPerHost: 2 * workers,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
		},
	}
}

// FloorOp posts the floor request once through c and reads the answer.
func FloorOp(c *http.Client, url string, f FloorRequest) func() error {
	return func() error { return floorPost(c, url, f.header(), f.Body) }
}

// SignFloorOp is the plain sign-and-POST loop: each call signs the floor request's body with
// secret under a new webhook-id and the current time, as the engine signs each attempt, and
// posts it through c.
func SignFloorOp(c *http.Client, url, secret string, f FloorRequest) func() error {
	secrets := []string{secret}
	return func() error {
		id := "floor-" + strconv.FormatInt(floorIDs.Add(1), 10)
		now := time.Now()
		sig, err := webhook.Sign(secrets, id, now, f.Body)
		if err != nil {
			return err
		}
		return floorPost(c, url, webhook.Headers(id, now, sig), f.Body)
	}
}

// floorPost posts body with the headers h (the Standard Webhooks ones) as the engine does, and
// reads the answer to the end.
func floorPost(c *http.Client, url string, h http.Header, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header = h
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", webhook.UserAgent)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// HookFloorOp posts the floor request once with webhook.Send through c (the engine's own
// client, webhook.Policy.Client: webhook.MaxIdleConnsPerHost connections per host kept).
func HookFloorOp(c *http.Client, url string, f FloorRequest) func() error {
	return func() error {
		a := webhook.Send(context.Background(), c, url, f.header(), f.Body)
		if !a.OK() {
			return fmt.Errorf("attempt: %s %v", a.Error, a.Err)
		}
		return nil
	}
}

// runFloor runs one floor scenario with Run from clients workers and follows its memory.
func runFloor(name string, rc *Receiver, opt Options, clients int, newOp func(int) func() error) DeliveryResult {
	if opt.Warmup > 0 {
		Run(name+" (warm-up)", clients, opt.Warmup, opt.MaxOps, newOp)
	}
	rc.Reset()
	mem := startMem()
	r := Run(name, clients, opt.Duration, opt.MaxOps, newOp)
	out := DeliveryResult{
		Name: name, Clients: clients, Events: r.Ops, Delivered: r.Ops - r.Errors, Requests: rc.Requests(), Conns: rc.Conns(),
		Errors: r.Errors, First: r.First, Elapsed: r.Elapsed, P50: r.P50, P99: r.P99, Max: r.Max,
	}
	out.Mem = mem.end()
	return out
}

// runDeliveries runs the delivery scenarios Options select, adding them to rep.Deliveries.
func runDeliveries(opt Options, rep *Report) error {
	selected := func(name string) bool { return opt.Only == nil || opt.Only.MatchString(name) }
	names := []string{DeliveryDrain, DeliveryDrainLoaded, DeliveryTriggerOne, DeliveryTrigger, DeliveryFloor, DeliveryFloorHook, DeliveryFloorSign}
	if !slices.ContainsFunc(names, selected) {
		return nil
	}
	rc, err := NewReceiver(opt.Dir)
	if err != nil {
		return err
	}
	defer rc.Close()
	add := func(r DeliveryResult, err error) error {
		rep.Deliveries = append(rep.Deliveries, r)
		if err == nil {
			opt.Progress("  %.0f deliveries/s, p50 %s p99 %s, errors %d", r.PerSecond(), ms(r.P50), ms(r.P99), r.Errors)
			err = r.Err()
		}
		return err
	}
	if selected(DeliveryDrain) {
		n := opt.DeliveryEvents
		opt.Progress("measure %s (%d events preloaded)", DeliveryDrain, n)
		if err := add(RunDrain(opt.Dir, rc, n, opt.Concurrency, opt.DrainCPUProfile)); err != nil {
			return err
		}
	}
	if selected(DeliveryDrainLoaded) {
		n := opt.DeliveryEvents
		opt.Progress("measure %s (%d events preloaded, %d API clients)", DeliveryDrainLoaded, n, opt.APILoadClients)
		r, err := RunDrainLoaded(opt.Dir, rc, n, opt.Concurrency, opt.APILoadClients, opt.APILoadRate, opt.Timeout)
		if err == nil && r.Load != nil {
			opt.Progress("  API load: %.0f GET/s, p50 %s p99 %s, errors %d", r.Load.PerSecond(), ms(r.Load.P50), ms(r.Load.P99), r.Load.Errors)
		}
		if err := add(r, err); err != nil {
			return err
		}
	}
	for _, sc := range []struct {
		name    string
		clients int
	}{{DeliveryTriggerOne, 1}, {DeliveryTrigger, opt.Concurrency}} {
		if !selected(sc.name) {
			continue
		}
		opt.Progress("measure %s (%s, %d clients)", sc.name, opt.Duration, sc.clients)
		if err := add(RunTriggered(sc.name, opt.Dir, rc, sc.clients, opt.Warmup, opt.Duration, opt.MaxOps, opt.Timeout)); err != nil {
			return err
		}
	}
	if !selected(DeliveryFloor) && !selected(DeliveryFloorHook) && !selected(DeliveryFloorSign) {
		return nil
	}
	f, err := NewFloorRequest(webhook.NewSecret())
	if err != nil {
		return err
	}
	if selected(DeliveryFloor) {
		opt.Progress("measure %s (%s)", DeliveryFloor, opt.Duration)
		c := FloorClient(rc, WideFloorClients, opt.Timeout)
		err := add(runFloor(DeliveryFloor, rc, opt, WideFloorClients, func(int) func() error { return FloorOp(c, rc.URL, f) }), nil)
		c.CloseIdleConnections()
		if err != nil {
			return err
		}
	}
	if selected(DeliveryFloorHook) {
		opt.Progress("measure %s (%s)", DeliveryFloorHook, opt.Duration)
		policy, err := webhook.NewPolicy("127.0.0.1/32")
		if err != nil {
			return err
		}
		c, err := policy.Client(rc.CAFile)
		if err != nil {
			return err
		}
		err = add(runFloor(DeliveryFloorHook, rc, opt, WideFloorClients, func(int) func() error { return HookFloorOp(c, rc.URL, f) }), nil)
		c.CloseIdleConnections()
		if err != nil {
			return err
		}
	}
	if selected(DeliveryFloorSign) {
		opt.Progress("measure %s (%s, %d clients)", DeliveryFloorSign, opt.Duration, opt.FloorClients)
		c := FloorClient(rc, opt.FloorClients, opt.Timeout)
		secret := webhook.NewSecret()
		err := add(runFloor(DeliveryFloorSign, rc, opt, opt.FloorClients, func(int) func() error { return SignFloorOp(c, rc.URL, secret, f) }), nil)
		c.CloseIdleConnections()
		if err != nil {
			return err
		}
	}
	return nil
}

// DeliveryResult finds a delivery result by scenario name.
func (r *Report) DeliveryResult(name string) (DeliveryResult, bool) {
	for _, x := range r.Deliveries {
		if x.Name == name {
			return x, true
		}
	}
	return DeliveryResult{}, false
}

func mib(b uint64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

// deliveriesMarkdown writes the delivery results, their memory and the ratios to the floors.
func (r *Report) deliveriesMarkdown(b *strings.Builder) {
	if len(r.Deliveries) == 0 {
		return
	}
	fmt.Fprintf(b, "#### Webhook deliveries\n\nEngine: at most %d attempts in flight to one destination (webhooks.DefaultPerDestination), TLS receiver on 127.0.0.1 (HTTP/1.1) answering 200 at once; "+
		"in-process server through Serve on loopback, discard logger. Latency of the engine scenarios: trigger sent → receiver answered; of the floors: one POST. "+
		"The sign-and-POST floor signs every request (a new webhook-id and timestamp, HMAC-SHA256 of the body) over one keep-alive connection per client.\n\n", webhooks.DefaultPerDestination)
	b.WriteString("| scenario | clients | deliveries | errors | TLS connections | deliveries/s | p50 | p99 | max | trigger 202 p50 / p99 | triggers/s | outbox empty after |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Deliveries {
		clients, p50, p99, maxLat, trig, rate, settled := strconv.Itoa(x.Clients), ms(x.P50), ms(x.P99), ms(x.Max), "", "", ""
		if x.P50 == 0 {
			clients, p50, p99, maxLat = "", "", "", ""
		}
		if x.TriggerP50 > 0 {
			trig = ms(x.TriggerP50) + " / " + ms(x.TriggerP99)
			rate = fmt.Sprintf("%.0f", x.TriggerRate)
		}
		if x.Settled > 0 {
			settled = x.Settled.Round(time.Millisecond).String()
		}
		name := x.Name
		if x.Preload > 0 {
			name += fmt.Sprintf(" (preload %s)", x.Preload.Round(time.Millisecond))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %.0f | %s | %s | %s | %s | %s | %s |\n", name, clients, x.Delivered, x.Errors, x.Conns,
			x.PerSecond(), p50, p99, maxLat, trig, rate, settled)
	}
	b.WriteString("\nMemory of the whole process (client, server, receiver): HeapInuse at start and end after a GC, peak sampled every 50 ms; RSS (MiB); allocation per delivery.\n\n")
	b.WriteString("| scenario | heap start / peak / end (MiB) | RSS start / peak / end (MiB) | allocated per delivery | GCs |\n|---|---:|---:|---:|---:|\n")
	for _, x := range r.Deliveries {
		m := x.Mem
		per := "n/a"
		if x.Delivered > 0 {
			per = fmt.Sprintf("%.1f KiB", float64(m.Alloc)/float64(x.Delivered)/1024)
		}
		fmt.Fprintf(b, "| %s | %s / %s / %s | %s / %s / %s | %s | %d |\n", x.Name, mib(m.HeapStart), mib(m.HeapPeak), mib(m.HeapEnd),
			mib(m.RSSStart), mib(m.RSSPeak), mib(m.RSSEnd), per, m.GCs)
	}
	for _, x := range r.Deliveries {
		if l := x.Load; l != nil {
			offered := "each as fast as answered"
			switch {
			case l.Capacity > 0:
				offered = fmt.Sprintf("%d per s offered in all: %.0f%% of the %.0f per s they got alone from the same server just before", l.Rate, DefaultAPILoadShare*100, l.Capacity)
			case l.Rate > 0:
				offered = fmt.Sprintf("%d per s offered in all", l.Rate)
			}
			fmt.Fprintf(b, "\nAPI load of %q: %d clients sending GET %s (tenant keys, keep-alive; %s) to the same server from before the engine started; "+
				"during the drain (%s): %d requests, %.0f per s, p50 %s, p99 %s, max %s, %d errors.\n",
				x.Name, l.Clients, PeoplePath, offered, l.Elapsed.Round(time.Millisecond), l.Ops, l.PerSecond(), ms(l.P50), ms(l.P99), ms(l.Max), l.Errors)
		}
	}
	pairs := []struct {
		a, b   string
		target float64 // 0: none
	}{
		{DeliveryDrain, DeliveryFloor, 0}, {DeliveryDrain, DeliveryFloorHook, 0}, {DeliveryDrain, DeliveryFloorSign, DrainTargetFloorRatio},
		{DeliveryDrainLoaded, DeliveryDrain, DrainTargetLoadedRatio}, {DeliveryDrainLoaded, DeliveryFloorSign, 0},
		{DeliveryTrigger, DeliveryFloor, 0}, {DeliveryFloorHook, DeliveryFloor, 0}, {DeliveryFloorSign, DeliveryFloor, 0},
	}
	b.WriteString("\n| A | B | deliveries/s A/B | target |\n|---|---|---:|---|\n")
	for _, p := range pairs {
		a, okA := r.DeliveryResult(p.a)
		c, okB := r.DeliveryResult(p.b)
		if !okA || !okB {
			continue
		}
		target := ""
		if p.target > 0 {
			met := "met"
			if c.PerSecond() == 0 || a.PerSecond()/c.PerSecond() < p.target {
				met = "NOT met"
			}
			target = fmt.Sprintf("≥ %.2f: %s", p.target, met)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", p.a, p.b, ratio(a.PerSecond(), c.PerSecond()), target)
	}
	b.WriteString("\n")
}
