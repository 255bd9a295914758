package bench

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/listener"
)

// The soak test: a real server on loopback (Server.Serve, so the delivery engine runs) under
// mixed traffic at a steady rate for a long time, with the heap (after a GC), the goroutines and
// the open files sampled at intervals. It fails on any answer other than the expected one and on
// growth between the first and the last third of the run.
//
//	TIMBRA_SOAK=10m go test ./bench -run Soak -v
//
// Without TIMBRA_SOAK it runs for soakShort, so it is part of every test run. Samples are
// taken on a count of cycles done, not on the clock, and the run goes on past its duration
// until it has soakMinSamples of them: a slow or busy machine runs longer, not with fewer
// samples. Traffic, from
// soakWorkers workers each ticking soakTick apart: people create, get, update, list and delete;
// API keys create, get, list and delete; events triggered to a URL webhook whose TLS receiver
// answers 500 to one request in soakFailEvery (so retries are scheduled), and to the caller's
// listen session (a listener.Client forwarding to a local target); catalog reads from the mini
// SAT catalogs; and, when SAT's test CSD is beside the repository, one invoice by value per
// cycle of the first worker.
const (
	soakShort     = 25 * time.Second
	soakWorkers   = 4
	soakTick      = time.Second
	soakFailEvery = 7
	// soakSamples is how many samples a run takes when the cycles keep to their ticks: one
	// every soakCyclesPerSample cycles.
	soakSamples = 30
	// soakMinSamples is how many samples under traffic a run takes at least, whatever the
	// machine's speed: the run goes on past its duration until it has them (the growth check
	// compares thirds).
	soakMinSamples = 9
	// soakOverrun bounds how long past its duration a run may go to reach soakMinSamples, as a
	// multiple of the duration (at least soakOverrunMin).
	soakOverrun    = 3
	soakOverrunMin = 2 * time.Minute
	// soakTriggersPerKey keeps each key under the BusinessWrite limit of the trigger endpoint
	// (600 a minute per key), which the bench server's high limits do not lift.
	soakTriggersPerKey = 300
)

// Growth tolerances between the median of the first third of the samples and the median of
// the last third. Samples are taken between cycles (no request of the soak under way), but the
// delivery engine and the listen session go on meanwhile (a few attempts and their buffers),
// the HTTP client and server keep a varying number of idle connections with their buffers,
// and bbolt keeps its free-page list on the heap, which grows a little with the file. Hence a
// fixed allowance plus a proportional one. A leak of 1 KB per request is over 20 MB in ten
// minutes at this rate, far beyond both; in the short run only gross leaks show.
const (
	soakHeapFixed      = 4 << 20 // bytes
	soakHeapRatio      = 0.25
	soakGoroutineSlack = 16 // connections of the client pool and the engine's workers coming and going
	soakFileSlack      = 16 // the same connections as descriptors
)

// soakSample is one measurement.
type soakSample struct {
	at         time.Duration
	heap       uint64
	goroutines int
	files      int
}

// soakReceiver is the webhook destination: TLS on loopback, answering 500 to every
// soakFailEvery-th request and 200 otherwise.
type soakReceiver struct {
	srv              *httptest.Server
	url, caFile      string
	requests, failed atomic.Int64
}

func newSoakReceiver(t *testing.T) *soakReceiver {
	rc := &soakReceiver{}
	rc.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if n := rc.requests.Add(1); n%soakFailEvery == 0 {
			rc.failed.Add(1)
			http.Error(w, "soak: planned failure", http.StatusInternalServerError)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	rc.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	rc.srv.StartTLS()
	t.Cleanup(rc.srv.Close)
	rc.url = rc.srv.URL + "/hook"
	rc.caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(rc.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

// soak is the running test's state.
type soak struct {
	t       *testing.T
	h       http.Handler // in process, for set-up only
	base    string
	client  *http.Client
	owner   http.Header
	hookID  string
	invoice string // by-value body; "" when SAT's CSD is absent

	// gate lets a sample wait for the cycles under way and hold the next ones: samples measure
	// what the server keeps, not what the requests of that instant hold (a person's password
	// hash alone is argon2id's 64 MiB).
	gate sync.RWMutex

	mu          sync.Mutex
	triggerKeys []http.Header
	triggers    int

	requests, unexpected, invoices atomic.Int64
	listenTriggered, listenSeen    atomic.Int64
	firstUnexpected                atomic.Pointer[string]
}

func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv("TIMBRA_SOAK")
	if v == "" {
		return soakShort
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("TIMBRA_SOAK=%q: want a duration such as 10m", v)
	}
	return d
}

func TestSoak(t *testing.T) {
	d := soakDuration(t)
	rc := newSoakReceiver(t)
	tb, err := NewTimbra(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	srv, err := tb.WebhookServer(slog.New(slog.DiscardHandler), rc.caFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := source.Open(ctx, testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = srv.Catalogs().Import(ctx, src, time.Now(), nil)
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	l, err := ServeTimbra(srv)
	if err != nil {
		t.Fatal(err)
	}
	s := &soak{t: t, h: srv.Handler(), base: l.URL, client: Client(soakWorkers+2, 30*time.Second), owner: tb.Header()}
	s.triggerKeys = []http.Header{tb.Header()}

	var hook api.Webhook
	create, _ := json.Marshal(api.WebhookCreate{URL: &rc.url, EnabledEvents: []string{DeliveryTriggerType}})
	if err := inProcess(s.h, "POST", "/api/v4/webhooks", s.owner, string(create), http.StatusCreated, &hook); err != nil {
		t.Fatal(err)
	}
	s.hookID = hook.ID
	s.setUpInvoice(tb)

	// the listen session of the owner, forwarding to a local target
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("ok"))
	}))
	t.Cleanup(target.Close)
	wsURL, err := listener.DialURL(l.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{}, 1)
	var disconnects atomic.Int64
	lc := &listener.Client{
		URL: wsURL, Header: tb.Header(), Dialer: &websocket.Dialer{HandshakeTimeout: 10 * time.Second},
		Forward: &listener.Forwarder{URL: target.URL, Client: listener.NewForwardClient(10*time.Second, false)},
		OnReady: func(listener.Ready, bool) error {
			select {
			case ready <- struct{}{}:
			default:
			}
			return nil
		},
		OnEvent: func(res listener.EventResult) {
			if res.Event.EventType != DeliveryTriggerType {
				return // invoice.stamped of the invoices
			}
			if res.Verified && res.Forward != nil && res.Forward.StatusCode != nil && *res.Forward.StatusCode == 200 {
				s.listenSeen.Add(1)
			} else {
				s.fail(fmt.Sprintf("listen: event %s not verified or not forwarded: %+v", res.Event.EventID, res.Forward))
			}
		},
		OnDisconnect: func(error, time.Duration, int) { disconnects.Add(1) },
	}
	lctx, stopListen := context.WithCancel(ctx)
	listenDone := make(chan error, 1)
	go func() { listenDone <- lc.Run(lctx) }()
	select {
	case <-ready:
	case err := <-listenDone:
		t.Fatalf("listen session: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("listen session: no Ready")
	}

	// one cycle before measuring: first uses of every path (lazy set-ups, caches) are not growth
	s.cycle(0, 0)

	start := time.Now()
	var samples []soakSample
	// one sample every perSample cycles done: the samples count work, not time
	perSample := soakCyclesPerSample(d)
	var cycles, nextSample atomic.Int64 // cycles done; the count at which the next sample is due
	nextSample.Store(perSample)
	wake := make(chan struct{}, 1)
	sample := func() {
		s.gate.Lock()
		defer s.gate.Unlock()
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		samples = append(samples, soakSample{time.Since(start), ms.HeapAlloc, runtime.NumGoroutine(), openFiles()})
	}
	sample()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range soakWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(soakTick)
			defer tick.Stop()
			for n := 1; ; n++ {
				select {
				case <-stop:
					return
				case <-tick.C:
				}
				s.gate.RLock()
				s.cycle(w, n)
				s.gate.RUnlock()
				if cycles.Add(1) >= nextSample.Load() {
					select {
					case wake <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	// A sample once perSample cycles are done since the previous one (cycles wait while a
	// sample is taken); stop once the duration has passed and there are soakMinSamples samples
	// under traffic, or at the overrun bound.
	limit := start.Add(max(soakOverrun*d, d+soakOverrunMin))
	poll := time.NewTicker(100 * time.Millisecond)
	for {
		if cycles.Load() >= nextSample.Load() {
			sample()
			nextSample.Store(cycles.Load() + perSample)
		}
		if now := time.Now(); (now.Sub(start) >= d && len(samples)-1 >= soakMinSamples) || now.After(limit) {
			break
		}
		select {
		case <-wake:
		case <-poll.C:
		}
	}
	poll.Stop()
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)

	// every listen trigger reaches the session (the last ones may still be under way)
	for deadline := time.Now().Add(30 * time.Second); s.listenSeen.Load() < s.listenTriggered.Load() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stopListen()
	if err := <-listenDone; err != nil {
		t.Errorf("listen session ended with %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("server stop: %v", err)
	}
	s.client.CloseIdleConnections()

	t.Logf("soak %s (ran %s): %d cycles, a sample every %d; %d requests (%d invoices), %d webhook deliveries received (%d answered 500), %d listen events of %d triggered, %d listen disconnections",
		d, elapsed.Round(time.Millisecond), cycles.Load(), perSample, s.requests.Load(), s.invoices.Load(), rc.requests.Load(), rc.failed.Load(), s.listenSeen.Load(), s.listenTriggered.Load(), disconnects.Load())
	mid := samples[len(samples)/2]
	for _, x := range []struct {
		name string
		s    soakSample
	}{{"start", samples[0]}, {"middle", mid}, {"end", samples[len(samples)-1]}} {
		t.Logf("%-6s at %6.1fs: heap %.2f MiB, %d goroutines, %d open files", x.name, x.s.at.Seconds(), float64(x.s.heap)/(1<<20), x.s.goroutines, x.s.files)
	}

	if n := s.unexpected.Load(); n > 0 {
		t.Errorf("%d unexpected answers; first: %s", n, *s.firstUnexpected.Load())
	}
	if rc.requests.Load() == 0 || rc.failed.Load() == 0 {
		t.Errorf("the receiver saw %d requests, %d failed: the webhook traffic did not run", rc.requests.Load(), rc.failed.Load())
	}
	if s.listenSeen.Load() != s.listenTriggered.Load() {
		t.Errorf("listen: %d events seen of %d triggered", s.listenSeen.Load(), s.listenTriggered.Load())
	}
	if disconnects.Load() > 0 {
		t.Errorf("the listen session dropped %d times", disconnects.Load())
	}
	for _, x := range samples {
		t.Logf("sample %6.1fs: heap %.2f MiB, %d goroutines, %d open files", x.at.Seconds(), float64(x.heap)/(1<<20), x.goroutines, x.files)
	}
	// the samples under traffic: each after perSample more cycles, so at most one per perSample
	// cycles done, and at least soakMinSamples unless the overrun bound cut the run
	under := samples[1:] // the first sample is before any traffic
	if most := int(cycles.Load() / perSample); len(under) > most {
		t.Errorf("%d samples under traffic for %d cycles: want at most one every %d cycles", len(under), cycles.Load(), perSample)
	}
	if len(under) < soakMinSamples {
		t.Errorf("only %d cycles in %s (%d samples): the run reached its bound before %d samples", cycles.Load(), elapsed.Round(time.Millisecond), len(under), soakMinSamples)
	}
	if err := soakGrowth(under); err != nil {
		t.Error(err)
	}
}

// soakCyclesPerSample is how many cycles go between two samples: soakSamples samples over a run
// of d whose cycles keep to their ticks, and at least one cycle of each worker.
func soakCyclesPerSample(d time.Duration) int64 {
	planned := int64(soakWorkers) * int64(d/soakTick)
	return max(planned/soakSamples, soakWorkers)
}

// soakGrowth compares the medians of the first and the last third of the samples.
func soakGrowth(samples []soakSample) error {
	if len(samples) < 6 {
		return fmt.Errorf("only %d samples", len(samples))
	}
	third := len(samples) / 3
	first, last := samples[:third], samples[len(samples)-third:]
	median := func(xs []soakSample, f func(soakSample) float64) float64 {
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = f(x)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	heap := func(x soakSample) float64 { return float64(x.heap) }
	gor := func(x soakSample) float64 { return float64(x.goroutines) }
	files := func(x soakSample) float64 { return float64(x.files) }
	var errs []string
	if a, b := median(first, heap), median(last, heap); b > a*(1+soakHeapRatio)+soakHeapFixed {
		errs = append(errs, fmt.Sprintf("heap grew from %.2f MiB to %.2f MiB", a/(1<<20), b/(1<<20)))
	}
	if a, b := median(first, gor), median(last, gor); b > a+soakGoroutineSlack {
		errs = append(errs, fmt.Sprintf("goroutines grew from %.0f to %.0f", a, b))
	}
	if a, b := median(first, files), median(last, files); a >= 0 && b > a+soakFileSlack {
		errs = append(errs, fmt.Sprintf("open files grew from %.0f to %.0f", a, b))
	}
	if errs != nil {
		return fmt.Errorf("growth between the first and the last third: %s", strings.Join(errs, "; "))
	}
	return nil
}

// openFiles counts this process's descriptors (-1 where /proc is absent).
func openFiles() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

func (s *soak) fail(msg string) {
	s.unexpected.Add(1)
	s.firstUnexpected.CompareAndSwap(nil, &msg)
}

// do sends one request over TCP and decodes the envelope's data into out; any status but want
// counts as unexpected.
func (s *soak) do(method, path string, header http.Header, body string, want int, out any) bool {
	s.requests.Add(1)
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		s.fail(err.Error())
		return false
	}
	req.Header = header.Clone()
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.fail(fmt.Sprintf("%s %s: %v", method, path, err))
		return false
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != want {
		s.fail(fmt.Sprintf("%s %s: status %d, want %d: %.300s", method, path, resp.StatusCode, want, raw))
		return false
	}
	var env api.RawEnvelope
	if err := json.Unmarshal(raw, &env); err != nil || env.HTTPStatusCode != want {
		s.fail(fmt.Sprintf("%s %s: not an envelope of %d: %.300s", method, path, want, raw))
		return false
	}
	if out != nil && json.Unmarshal(env.Data, out) != nil {
		s.fail(fmt.Sprintf("%s %s: data: %.300s", method, path, raw))
		return false
	}
	return true
}

// triggerKey is a key of the owner with triggers left under the BusinessWrite limit.
func (s *soak) triggerKey() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.triggers >= soakTriggersPerKey {
		var k api.APIKey
		if err := inProcess(s.h, "POST", KeysPath, s.owner, `{"description":"soak triggers"}`, http.StatusOK, &k); err != nil {
			s.fail("trigger key: " + err.Error())
		} else {
			s.triggerKeys = append(s.triggerKeys, http.Header{"X-Tenant-Key": s.owner["X-Tenant-Key"], "X-Api-Key": {k.APIKeyValue}})
		}
		s.triggers = 0
	}
	s.triggers++
	return s.triggerKeys[len(s.triggerKeys)-1]
}

// cycle is one tick of worker w: a person's life with an API key of theirs, two events, two
// catalog reads, and (worker 0) an invoice.
func (s *soak) cycle(w, n int) {
	var p api.Person
	email := fmt.Sprintf("soak-%d-%d-%d@example.com", w, n, time.Now().UnixNano())
	if !s.do("POST", PeoplePath, s.owner, `{"legalName":"SOAK","email":"`+email+`","password":"Clave#2025"}`, 200, &p) {
		return
	}
	s.do("GET", PeoplePath+"/"+p.ID, s.owner, "", 200, nil)
	s.do("PUT", PeoplePath+"/"+p.ID, s.owner, `{"legalName":"SOAK CAMBIADO"}`, 200, nil)
	s.do("GET", PeoplePath+"?pageNumber=1&pageSize=10", s.owner, "", 200, nil)
	var k api.APIKey
	if s.do("POST", KeysPath, s.owner, `{"personId":"`+p.ID+`","description":"soak"}`, 200, &k) {
		s.do("GET", KeysPath+"/"+k.ID, s.owner, "", 200, nil)
		s.do("GET", KeysPath+"?pageNumber=1&pageSize=5", s.owner, "", 200, nil)
		s.do("DELETE", KeysPath+"/"+k.ID, s.owner, "", 200, nil)
	}
	s.do("DELETE", PeoplePath+"/"+p.ID, s.owner, "", 200, nil)

	s.do("POST", "/api/v4/events/trigger", s.triggerKey(), `{"type":"`+DeliveryTriggerType+`","webhookId":"`+s.hookID+`"}`, http.StatusAccepted, nil)
	if s.do("POST", "/api/v4/events/trigger", s.triggerKey(), `{"type":"`+DeliveryTriggerType+`"}`, http.StatusAccepted, nil) {
		s.listenTriggered.Add(1)
	}
	s.do("GET", "/api/v4/catalogs/SatTaxRegimes/key/601", s.owner, "", 200, nil)
	s.do("GET", "/api/v4/catalogs/SatProductCodes/lapiz", s.owner, "", 200, nil)

	if w == 0 && s.invoice != "" {
		if s.do("POST", "/api/v4/invoices", s.owner, s.invoice, 200, nil) {
			s.invoices.Add(1)
		}
	}
}

// setUpInvoice makes the by-value invoice body with SAT's test CSD and gives the owner stamps;
// without the CSD the soak runs without invoices.
func (s *soak) setUpInvoice(tb *Timbra) {
	dir := testpaths.Shared("sat", "certs")
	cer, err1 := os.ReadFile(filepath.Join(dir, "EKU9003173C9.cer"))
	key, err2 := os.ReadFile(filepath.Join(dir, "EKU9003173C9.key"))
	pw, err3 := os.ReadFile(filepath.Join(dir, "EKU9003173C9.password.txt"))
	if err1 != nil || err2 != nil || err3 != nil {
		s.t.Logf("SAT's test CSD is absent: no invoices in the soak")
		return
	}
	password := strings.TrimSpace(string(pw))
	body, _ := json.Marshal(map[string]any{"versionCode": "4.0", "series": "S", "paymentFormCode": "01", "paymentMethodCode": "PUE",
		"currencyCode": "MXN", "typeCode": "I", "expeditionZipCode": "42501", "exportCode": "01",
		"issuer": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "taxRegimeCode": "601",
			"taxCredentials": []any{
				map[string]any{"base64File": base64.StdEncoding.EncodeToString(cer), "fileType": 0, "password": password},
				map[string]any{"base64File": base64.StdEncoding.EncodeToString(key), "fileType": 1, "password": password},
			}},
		"recipient": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "zipCode": "42501",
			"taxRegimeCode": "601", "cfdiUseCode": "G01"},
		"items": []any{map[string]any{"itemCode": "44121706", "quantity": 2, "unitOfMeasurementCode": "H87", "unitOfMeasurement": "Pieza",
			"description": "Lápiz de madera HB", "unitPrice": "12.50", "taxObjectCode": "02",
			"itemTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T"}}}}})
	s.invoice = string(body)
	grantStamps(s.t, tb, 1_000_000)
}
