package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/webhook"
)

func newReceiver(tb testing.TB) *Receiver {
	tb.Helper()
	rc, err := NewReceiver(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rc.Close() })
	return rc
}

// BenchmarkDeliveryDrain: the engine (Serve on loopback, 64 workers) sends b.N deliveries
// preloaded through the trigger endpoint; the preload is not timed. ns/op is wall time per
// delivery, the inverse of the throughput.
func BenchmarkDeliveryDrain(b *testing.B) {
	rc := newReceiver(b)
	dt, err := NewDeliveryTarget(b.TempDir(), rc)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dt.Close() })
	if _, err := dt.Preload(b.N, 32); err != nil {
		b.Fatal(err)
	}
	rc.Reset()
	b.ReportAllocs()
	b.ResetTimer()
	l, err := ServeTimbra(dt.Server)
	if err != nil {
		b.Fatal(err)
	}
	ok := rc.WaitDistinct(b.N, deliveryTimeout(b.N))
	b.StopTimer()
	if err := l.Close(); err != nil {
		b.Error(err)
	}
	if !ok {
		b.Fatalf("%d of %d deliveries arrived", rc.Distinct(), b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
	b.ReportMetric(float64(rc.Conns())/float64(b.N), "handshakes/op")
}

// benchFloor posts the same signed delivery from WideFloorClients goroutines.
func benchFloor(b *testing.B, op func() error, rc *Receiver) {
	b.SetParallelism(max(1, WideFloorClients/runtime.GOMAXPROCS(0)))
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
	b.ReportMetric(float64(rc.Conns())/float64(b.N), "handshakes/op")
}

// BenchmarkDeliveryFloor is the floor of BenchmarkDeliveryDrain: the same receiver, 64
// goroutines posting a signed delivery over their own keep-alive connections; no engine, no
// bbolt, no signing per request.
func BenchmarkDeliveryFloor(b *testing.B) {
	rc := newReceiver(b)
	f, err := NewFloorRequest(webhook.NewSecret())
	if err != nil {
		b.Fatal(err)
	}
	c := FloorClient(rc, WideFloorClients, 10*time.Second)
	b.Cleanup(c.CloseIdleConnections)
	benchFloor(b, FloorOp(c, rc.URL, f), rc)
}

// BenchmarkDeliveryFloorWebhookClient is BenchmarkDeliveryFloor through webhook.Send and the
// engine's own client (webhook.Policy.Client).
func BenchmarkDeliveryFloorWebhookClient(b *testing.B) {
	rc := newReceiver(b)
	f, err := NewFloorRequest(webhook.NewSecret())
	if err != nil {
		b.Fatal(err)
	}
	policy, err := webhook.NewPolicy("127.0.0.1/32")
	if err != nil {
		b.Fatal(err)
	}
	c, err := policy.Client(rc.CAFile)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	benchFloor(b, HookFloorOp(c, rc.URL, f), rc)
}

// TestDeliveryScenariosSmoke runs the delivery scenarios briefly: each must deliver without a
// failure and appear in the report. It asserts no timing.
func TestDeliveryScenariosSmoke(t *testing.T) {
	rep, err := RunSuite(Options{
		Duration: 60 * time.Millisecond, Warmup: 20 * time.Millisecond, Concurrency: 4, MaxOps: 100_000,
		Dir: t.TempDir(), Only: regexp.MustCompile("deliveries"), DeliveryEvents: 150, APILoadClients: 3, FloorClients: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 0 || rep.Listen != nil || rep.ListenConcurrent != nil || len(rep.Isolation) != 0 {
		t.Errorf("-only deliveries ran other scenarios: %d HTTP, listen %v, %v, %d isolation", len(rep.Results), rep.Listen, rep.ListenConcurrent, len(rep.Isolation))
	}
	names := []string{DeliveryDrain, DeliveryDrainLoaded, DeliveryTriggerOne, DeliveryTrigger, DeliveryFloor, DeliveryFloorHook, DeliveryFloorSign}
	if len(rep.Deliveries) != len(names) {
		t.Fatalf("%d delivery results, want %d", len(rep.Deliveries), len(names))
	}
	for i, r := range rep.Deliveries {
		if r.Name != names[i] || r.Delivered == 0 || r.Errors != 0 || r.PerSecond() <= 0 || r.Requests < r.Delivered {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	for _, d := range rep.Deliveries[:2] {
		if d.Delivered != 150 || d.Settled == 0 {
			t.Errorf("%s: %+v", d.Name, d)
		}
	}
	if l := rep.Deliveries[1].Load; l == nil || l.Clients != 3 || l.Ops == 0 || l.Errors != 0 || l.P50 <= 0 || l.P99 < l.P50 {
		t.Errorf("API load of the drain: %+v", l)
	}
	for _, r := range rep.Deliveries[2:4] {
		if r.P50 <= 0 || r.P99 < r.P50 || r.TriggerP50 <= 0 || r.Delivered != r.Events {
			t.Errorf("%s: %+v", r.Name, r)
		}
	}
	if f := rep.Deliveries[6]; f.Clients != 5 || f.P50 <= 0 {
		t.Errorf("sign-and-POST floor: %+v", f)
	}
	md := rep.Markdown()
	for _, want := range []string{"#### Webhook deliveries", DeliveryDrain, DeliveryFloorHook, DeliveryFloorSign, "deliveries/s A/B", "allocated per delivery",
		"API load of", "≥ 0.50", "≥ 0.70"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

// TestSignFloorOpSigns checks that the sign-and-POST floor sends a valid signature under a
// new webhook-id each time.
func TestSignFloorOpSigns(t *testing.T) {
	secret := webhook.NewSecret()
	f, err := NewFloorRequest(secret)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(secret, r.Header, body, time.Now(), time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ids[r.Header.Get(webhook.HeaderID)] = true
	}))
	defer srv.Close()
	op := SignFloorOp(srv.Client(), srv.URL, secret, f)
	for range 3 {
		if err := op(); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 3 {
		t.Fatalf("webhook-ids %v, want 3 distinct", ids)
	}
}
