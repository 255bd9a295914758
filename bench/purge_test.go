package bench

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// BenchmarkPurge: one tenant's retention purge against another tenant's writes. Tenant A holds
// 100,000 events and 100,000 deliveries older than 30 days; tenant B writes one small record
// after another (a person, as an API write stores it). B's write latency is measured first
// alone (its floor), then while the purge deletes all of A's old records. Reported: the purge's
// time and records/s, B's p50, p99 and slowest write alone and during the purge, and
// max-x-alone, B's slowest write during the purge over its slowest alone; then B's writes for as
// long again after the purge: after-p50-ms, after-p99-ms and after-p50-x-alone (its p50 after
// over its p50 alone: what the pages the purge freed cost every later commit).
//
//	TIMBRA_TEST_POSTGRES=postgres://root@127.0.0.1:5432/test?sslmode=disable \
//	go test ./bench -run '^$' -bench 'Purge' -benchtime 1x -count 3
//
// Without TIMBRA_TEST_POSTGRES the PostgreSQL case skips.
func BenchmarkPurge(b *testing.B) {
	const old = 100_000
	for _, backend := range []string{"bbolt", "postgres"} {
		b.Run("store="+backend, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				database := ""
				if backend == "postgres" {
					database = pgtest.URL(b)
				}
				t, err := NewTimbraOn(b.TempDir(), database)
				if err != nil {
					b.Fatal(err)
				}
				srv := t.Server(slog.New(slog.DiscardHandler))
				st := t.Data.Store
				other, err := srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "other@example.com"})
				if err != nil {
					b.Fatal(err)
				}
				fillOld(b, st, t.Creds.TenantKey, old)
				var seq atomic.Int64
				write := func() time.Duration {
					i := seq.Add(1)
					at := time.Now().UTC()
					t0 := time.Now()
					err := st.Update(context.Background(), func(tx storage.Tx) error {
						return tx.People(other.TenantKey).Put(storage.Person{ID: ids.New(at), LegalName: fmt.Sprintf("Persona %d", i),
							Email: fmt.Sprintf("p%d@other.test", i), CreatedAt: at, UpdatedAt: at})
					})
					if err != nil {
						b.Fatal(err)
					}
					return time.Since(t0)
				}
				// B alone, for as long as the purge will take at most
				var alone []time.Duration
				for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
					alone = append(alone, write())
				}
				b.StartTimer()
				var during []time.Duration
				done := make(chan struct{})
				var wg sync.WaitGroup
				wg.Go(func() {
					for {
						select {
						case <-done:
							return
						default:
							during = append(during, write())
						}
					}
				})
				t0 := time.Now()
				n, err := srv.Webhooks().Purge(context.Background())
				took := time.Since(t0)
				close(done)
				wg.Wait()
				b.StopTimer()
				if err != nil || n != 2*old {
					b.Fatalf("purged %d of %d records: %v", n, 2*old, err)
				}
				// B after the purge, as long as alone: the pages it freed must not cost every
				// later commit (bbolt once wrote its whole list of free pages in each)
				var after []time.Duration
				for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
					after = append(after, write())
				}
				a, d, f := latencies(alone), latencies(during), latencies(after)
				ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
				b.ReportMetric(took.Seconds(), "purge-s")
				b.ReportMetric(float64(n)/took.Seconds(), "records/s")
				b.ReportMetric(ms(a.P50), "alone-p50-ms")
				b.ReportMetric(ms(a.P99), "alone-p99-ms")
				b.ReportMetric(ms(a.Max), "alone-max-ms")
				b.ReportMetric(ms(d.P50), "during-p50-ms")
				b.ReportMetric(ms(d.P99), "during-p99-ms")
				b.ReportMetric(ms(d.Max), "during-max-ms")
				b.ReportMetric(float64(d.Max)/float64(a.Max), "max-x-alone")
				b.ReportMetric(ms(f.P50), "after-p50-ms")
				b.ReportMetric(ms(f.P99), "after-p99-ms")
				b.ReportMetric(float64(f.P50)/float64(a.P50), "after-p50-x-alone")
				b.ReportMetric(0, "ns/op")
				if err := t.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fillOld gives the tenant n events and n deliveries, all of them between 31 and 60 days old.
func fillOld(b *testing.B, st storage.Store, tenant string, n int) {
	b.Helper()
	now := time.Now().UTC()
	body := []byte(`{"id":"x","type":"invoice.stamped","data":"` + strings.Repeat("x", 360) + `"}`)
	for chunk := 0; chunk < n; chunk += 5_000 {
		err := st.Update(context.Background(), func(tx storage.Tx) error {
			for i := chunk; i < min(chunk+5_000, n); i++ {
				at := now.Add(-60 * 24 * time.Hour).Add(time.Duration(i) * (29 * 24 * time.Hour / time.Duration(n)))
				e := storage.Event{ID: ids.New(at), Type: "invoice.stamped", RelatedObjectID: fmt.Sprintf("inv-%d", i), CreatedAt: at, Body: body}
				if err := tx.Events(tenant).Put(e); err != nil {
					return err
				}
				code := 204
				err := tx.Deliveries(tenant).Put(storage.Delivery{ID: ids.New(at), WebhookID: "hook", EventID: e.ID, EventType: e.Type,
					Kind: "automatic", Status: "succeeded", Attempts: 1, MaxAttempts: 8, LastStatusCode: &code, CreatedAt: at, UpdatedAt: at})
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
