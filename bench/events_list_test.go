package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/timbra-mx/timbra/storage"
)

// The list of events (GET /api/v4/events) of a tenant with n events over the last 29 days (a
// 400-byte envelope each, four types in turn), beside a second tenant with as many, for n of
// 1,000, 10,000 and 100,000: the first page of 10 over the default window (the last 30 days),
// the first page of one type, and the third page of a window of one day. The three stores are
// asked in turn, call by call, so that the machine's drift falls on all of them alike; each
// size reports its median and p99, and x1k, its median over the median at 1,000 (the target:
// at most 1.5, the cost does not grow with the data).
//
//	go test ./bench -run '^$' -bench 'EventList' -benchtime 2000x
func BenchmarkEventList(b *testing.B) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	types := []string{"invoice.stamped", "invoice.canceled", "invoice.paid", "taxfile.created"}
	sizes := []int{1_000, 10_000, 100_000}
	body := []byte(`{"id":"x","type":"invoice.stamped","data":` + strings.Repeat(`"x"`, 120) + `}`)
	svcs := make([]*webhooks.Service, len(sizes))
	for si, n := range sizes {
		st, err := storage.Open(filepath.Join(b.TempDir(), fmt.Sprintf("t%d.db", n)))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
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
		svcs[si] = &webhooks.Service{Store: st, Now: func() time.Time { return now }}
	}
	c := auth.Caller{TenantID: "tenant", PersonID: "owner", IsOwner: true}
	day := now.Add(-10 * 24 * time.Hour)
	for _, cs := range []struct {
		name string
		f    webhooks.EventFilter
		want func(n int) int // the total, or -1 for any
	}{
		{"page1", webhooks.EventFilter{Page: 1, Size: 10}, func(n int) int { return n }},
		{"type", webhooks.EventFilter{Type: types[1], Page: 1, Size: 10}, func(n int) int { return n / 4 }},
		{"day-page3", webhooks.EventFilter{From: day.Format("2006-01-02T15:04:05.000Z"), To: day.Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z"), Page: 3, Size: 10},
			func(int) int { return -1 }},
	} {
		b.Run(cs.name, func(b *testing.B) {
			lat := make([][]time.Duration, len(sizes))
			for range b.N {
				for si, n := range sizes {
					t0 := time.Now()
					page, err := svcs[si].ListEvents(context.Background(), c, cs.f)
					lat[si] = append(lat[si], time.Since(t0))
					if want := cs.want(n); err != nil || len(page.Items) != 10 || (want >= 0 && page.TotalCount != want) {
						b.Fatalf("%s at %d: %v, %d items of %d", cs.name, n, err, len(page.Items), page.TotalCount)
					}
				}
			}
			reportBySize(b, sizes, lat)
		})
	}
}
