package bench

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func newTimbra(tb testing.TB) *Timbra {
	tb.Helper()
	t, err := NewTimbra(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { t.Close() })
	return t
}

// benchGET answers GET /api/v4/people in process, b.N times, with the tenant's credentials.
func benchGET(b *testing.B, h http.Handler, header http.Header) {
	req := httptest.NewRequest(http.MethodGet, PeoplePath, nil)
	req.Header = header
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

func BenchmarkAuthenticatedGET(b *testing.B) {
	t := newTimbra(b)
	benchGET(b, t.Server(slog.New(slog.DiscardHandler)).Handler(), t.Header())
}

// BenchmarkAuthenticatedGETJSONLog is BenchmarkAuthenticatedGET with the request log on (JSON
// at info level to io.Discard): the difference is the cost of the log line.
func BenchmarkAuthenticatedGETJSONLog(b *testing.B) {
	t := newTimbra(b)
	benchGET(b, t.Server(JSONLogger()).Handler(), t.Header())
}

func BenchmarkBareGET(b *testing.B) {
	t := newTimbra(b)
	body, err := CaptureBody(t.Server(slog.New(slog.DiscardHandler)).Handler(), http.MethodGet, PeoplePath, t.Header(), "")
	if err != nil {
		b.Fatal(err)
	}
	benchGET(b, Bare(body), t.Header())
}

func BenchmarkAPIKeyCreate(b *testing.B) {
	t := newTimbra(b)
	h, header := t.Server(slog.New(slog.DiscardHandler)).Handler(), t.Header()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, KeysPath, strings.NewReader(KeyBody))
		req.Header = header
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkAPIKeyCreateParallel is BenchmarkAPIKeyCreate from 32 goroutines (2 × GOMAXPROCS × 16),
// whose commits Batch shares: compare it with BenchmarkRawBoltWrites/Batch/delay=1ms/workers=32,
// one Put per write from 32 writers.
func BenchmarkAPIKeyCreateParallel(b *testing.B) {
	t := newTimbra(b)
	h, header := t.Server(slog.New(slog.DiscardHandler)).Handler(), t.Header()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, KeysPath, strings.NewReader(KeyBody))
			req.Header = header.Clone()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body)
				return
			}
		}
	})
}

func BenchmarkRawBoltUpdate(b *testing.B) {
	raw, err := OpenRawBolt(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	b.ReportAllocs()
	for b.Loop() {
		if err := raw.Put(false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawBoltWrites shows what a commit costs alone and shared: Update and Batch, with
// bbolt's default batch delay (10 ms) and a shorter one, from 1 and from 32 goroutines. ns/op is
// wall time per write (the inverse of throughput), not the latency of one write.
func BenchmarkRawBoltWrites(b *testing.B) {
	for _, c := range []struct {
		name  string
		batch bool
		delay time.Duration
	}{
		{"Update", false, 0},
		{"Batch/delay=10ms", true, 10 * time.Millisecond},
		{"Batch/delay=1ms", true, time.Millisecond},
	} {
		for _, workers := range []int{1, 32} {
			b.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(b *testing.B) {
				raw, err := OpenRawBolt(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { raw.Close() })
				if c.batch {
					raw.DB.MaxBatchDelay = c.delay
				}
				b.ReportAllocs()
				b.ResetTimer()
				var left atomic.Int64
				left.Store(int64(b.N))
				var wg sync.WaitGroup
				for range workers {
					wg.Go(func() {
						for left.Add(-1) >= 0 {
							if err := raw.Put(c.batch); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			})
		}
	}
}

// TestHarnessSmoke runs the whole suite briefly: every scenario must run and none may fail.
// It asserts no timing.
func TestHarnessSmoke(t *testing.T) {
	rep, err := RunSuite(Options{
		Duration: 40 * time.Millisecond, Warmup: 10 * time.Millisecond, Concurrency: 4,
		MaxOps: 100_000, Dir: t.TempDir(), APILoadClients: 2, FloorClients: 4,
		ListenClients: 4, ListenConcurrentEvents: 40, IsolationEvents: 30, IsolationBusy: 5, IsolationWait: 300 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{BareGET, TimbraGET, TimbraGETLog, TimbraWrite, RawUpdate, RawBatch}
	if len(rep.Results) != len(names) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(names))
	}
	for i, r := range rep.Results {
		if r.Name != names[i] || r.Ops == 0 || r.Errors != 0 || r.PerSecond() <= 0 || r.P50 <= 0 || r.P99 < r.P50 {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if rep.BodyBytes < 100 || rep.ValueBytes < 200 {
		t.Errorf("body %d bytes, value %d bytes", rep.BodyBytes, rep.ValueBytes)
	}
	md := rep.Markdown()
	for _, want := range []string{"| scenario |", BareGET, "ops/s A/B", rep.Machine.GoVersion} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestRunCountsFailuresAndBounds(t *testing.T) {
	calls := 0
	r := Run("x", 1, time.Hour, 5, func(int) func() error {
		return func() error {
			calls++
			if calls == 2 {
				return http.ErrNoLocation
			}
			return nil
		}
	})
	if r.Ops != 5 || calls != 5 || r.Errors != 1 || !r.ByCount || r.Err() == nil || !strings.Contains(r.Err().Error(), "1 of 5") {
		t.Fatalf("%+v, err %v", r, r.Err())
	}
	if got := percentile([]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.5); got != 5 {
		t.Fatalf("p50 = %d", got)
	}
	if got := percentile([]time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.99); got != 10 {
		t.Fatalf("p99 = %d", got)
	}
}
