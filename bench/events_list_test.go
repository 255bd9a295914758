package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/timbra-mx/timbra/storage"
)

// The list of events (GET /api/v4/events) of a tenant with n events over the last 29 days (a
// 400-byte envelope each, four types in turn), beside a second tenant with as many: the first
// page of 10 over the default window (the last 30 days), the first page of one type, and the
// third page of a window of one day. The cost must not grow with n: the ratio of each to the
// same at n = 1,000 is printed as x1k (at most 1.5 is the target), with p99.
//
//	go test ./bench -run '^$' -bench 'EventList' -benchtime 200x
func BenchmarkEventList(b *testing.B) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	types := []string{"invoice.stamped", "invoice.canceled", "invoice.paid", "taxfile.created"}
	base := map[string]time.Duration{}
	for _, n := range []int{1_000, 10_000, 100_000} {
		st, err := storage.Open(filepath.Join(b.TempDir(), "t.db"))
		if err != nil {
			b.Fatal(err)
		}
		body := []byte(`{"id":"x","type":"invoice.stamped","data":` + strings.Repeat(`"x"`, 120) + `}`)
		for _, tenant := range []string{"tenant", "other"} {
			for chunk := 0; chunk < n; chunk += 10_000 {
				err = st.Update(context.Background(), func(tx storage.Tx) error {
					for i := chunk; i < min(chunk+10_000, n); i++ {
						at := now.Add(-29 * 24 * time.Hour).Add(time.Duration(i) * (29 * 24 * time.Hour / time.Duration(n)))
						e := storage.Event{ID: ids.New(at), TenantID: tenant, Type: types[i%len(types)], RelatedObjectID: fmt.Sprintf("inv-%d", i),
							CreatedAt: at, Body: body}
						if err := tx.Events(tenant).Put(e); err != nil {
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
		svc := &webhooks.Service{Store: st, Now: func() time.Time { return now }}
		c := auth.Caller{TenantID: "tenant", PersonID: "owner", IsOwner: true}
		day := now.Add(-10 * 24 * time.Hour)
		cases := []struct {
			name string
			f    webhooks.EventFilter
			want int
		}{
			{"page1", webhooks.EventFilter{Page: 1, Size: 10}, n},
			{"type", webhooks.EventFilter{Type: types[1], Page: 1, Size: 10}, n / 4},
			{"day-page3", webhooks.EventFilter{From: day.Format("2006-01-02T15:04:05.000Z"), To: day.Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z"), Page: 3, Size: 10}, -1},
		}
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			for _, cs := range cases {
				lat := make([]time.Duration, 0, b.N)
				for range b.N {
					t0 := time.Now()
					page, err := svc.ListEvents(context.Background(), c, cs.f)
					lat = append(lat, time.Since(t0))
					if err != nil || len(page.Items) != 10 || (cs.want >= 0 && page.TotalCount != cs.want) {
						b.Fatalf("%s: %v, %d items of %d", cs.name, err, len(page.Items), page.TotalCount)
					}
				}
				slices.Sort(lat)
				var sum time.Duration
				for _, l := range lat {
					sum += l
				}
				mean := sum / time.Duration(len(lat))
				b.ReportMetric(float64(mean.Microseconds())/1000, cs.name+"-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, cs.name+"-p99-ms")
				if n == 1_000 {
					base[cs.name] = mean
				} else if base[cs.name] > 0 {
					b.ReportMetric(float64(mean)/float64(base[cs.name]), cs.name+"-x1k")
				}
			}
		})
		st.Close()
	}
}
