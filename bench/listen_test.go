package bench

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestListenScenarioSmoke runs the listen scenario and its floor briefly through the suite
// (-only listen) and checks only that every event arrived, was shown, forwarded 2xx and its
// outcome shown, and that the report says so. It makes no timing assertion.
func TestListenScenarioSmoke(t *testing.T) {
	rep, err := RunSuite(Options{Dir: t.TempDir(), Only: regexp.MustCompile("^listen( floor)?:"), ListenEvents: 30, ListenWarmup: 5, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	x := rep.Listen
	if x == nil || x.Events != 30 || x.Errors != 0 || x.EchoTrips != 30 || x.MessageBytes == 0 {
		t.Fatalf("listen result: %+v", x)
	}
	if len(rep.Results) != 0 || len(rep.Deliveries) != 0 || rep.ListenConcurrent != nil {
		t.Fatalf("-only ^listen ran %d HTTP and %d delivery scenarios, concurrent listen %v", len(rep.Results), len(rep.Deliveries), rep.ListenConcurrent)
	}
	if !(x.Trigger.P50 > 0 && x.Received.P50 >= 0 && x.Shown.P50 >= x.Received.P50 && x.Forwarded.P50 > 0 && x.Outcome.P50 >= x.Forwarded.P50 && x.Echo.P50 > 0) {
		t.Fatalf("latencies: %+v", x)
	}
	if md := rep.Markdown(); !strings.Contains(md, "#### Listen latency") || !strings.Contains(md, "| trigger → row shown, p50 |") ||
		!strings.Contains(md, "| trigger → forwarded, p99 |") {
		t.Fatalf("report:\n%s", md)
	}
}

// TestListenConcurrentSmoke runs the concurrent listen scenario and its floor briefly through
// the suite (-only 'listen concurrent'): every event of every client must arrive, be forwarded
// 2xx and its outcome shown. It makes no timing assertion.
func TestListenConcurrentSmoke(t *testing.T) {
	rep, err := RunSuite(Options{Dir: t.TempDir(), Only: regexp.MustCompile("listen concurrent"), ListenClients: 4, ListenConcurrentEvents: 40,
		ListenWarmup: 8, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	x := rep.ListenConcurrent
	if x == nil || x.Name != ListenConcurrent || x.Clients != 4 || x.Events != 40 || x.Errors != 0 || x.EchoTrips != 40 || x.MessageBytes == 0 {
		t.Fatalf("result: %+v", x)
	}
	if rep.Listen != nil || len(rep.Deliveries) != 0 || len(rep.Isolation) != 0 {
		t.Fatalf("-only 'listen concurrent' ran other scenarios")
	}
	if !(x.Trigger.P50 > 0 && x.Shown.P50 > 0 && x.Forwarded.P50 > 0 && x.Outcome.P50 >= x.Forwarded.P50 && x.Outcome.P99 >= x.Outcome.P50 && x.Echo.P50 > 0) {
		t.Fatalf("latencies: %+v", x)
	}
	if md := rep.Markdown(); !strings.Contains(md, "4 concurrent trigger clients") || !strings.Contains(md, "| trigger → row shown, p99 | ") || !strings.Contains(md, "| 40.000 ms |") {
		t.Fatalf("report:\n%s", md)
	}
}

// BenchmarkListen: one listen session forwarding to a local receiver; each op is one trigger
// (over loopback HTTP) until OnEvent has the event, after the 2xx of its forward. ns/op is the
// mean; p50 and p99 of trigger → row shown (OnReceived) and of trigger → outcome shown
// (OnEvent) are reported too.
func BenchmarkListen(b *testing.B) {
	lt, err := NewListenTarget(b.TempDir(), 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := lt.Close(); err != nil {
			b.Error(err)
		}
	})
	for range 50 {
		if _, _, err := lt.One(); err != nil {
			b.Fatal(err)
		}
	}
	shown, outcome := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		s, _, err := lt.One()
		if err != nil {
			b.Fatal(err)
		}
		shown, outcome = append(shown, s.Shown), append(outcome, s.Outcome)
	}
	b.StopTimer()
	l, o := latencies(shown), latencies(outcome)
	b.ReportMetric(float64(l.P50)/1e6, "shown-p50-ms")
	b.ReportMetric(float64(l.P99)/1e6, "shown-p99-ms")
	b.ReportMetric(float64(o.P50)/1e6, "outcome-p50-ms")
	b.ReportMetric(float64(o.P99)/1e6, "outcome-p99-ms")
}

// BenchmarkListenEchoFloor is the floor of BenchmarkListen: a bare gorilla websocket echo on
// loopback, one round trip of a listen event's size (701 bytes) per op.
func BenchmarkListenEchoFloor(b *testing.B) {
	e, err := NewEchoTarget([]byte(`{"type":"event","pad":"`+strings.Repeat("x", 676)+`"}`), 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	for range 100 {
		if _, err := e.One(); err != nil {
			b.Fatal(err)
		}
	}
	trips := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		d, err := e.One()
		if err != nil {
			b.Fatal(err)
		}
		trips = append(trips, d)
	}
	b.StopTimer()
	l := latencies(trips)
	b.ReportMetric(float64(l.P50)/1e6, "p50-ms")
	b.ReportMetric(float64(l.P99)/1e6, "p99-ms")
}
