package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/storage"
)

// The invoice list (GET /api/v4/invoices) of a tenant with n stamped invoices (a 6 KB XML and
// its answer each, as stamping stores them) over one year: the first page of 10 unfiltered, and
// the second page of 10 of one recipient in one month (a filter that keeps about 1 % of them).
//
//	go test ./bench -run '^$' -bench 'InvoiceList' -benchtime 10x
func BenchmarkInvoiceList(b *testing.B) {
	for _, n := range []int{10_000, 50_000} {
		st, err := storage.Open(filepath.Join(b.TempDir(), "t.db"))
		if err != nil {
			b.Fatal(err)
		}
		tenant := "tenant"
		start := time.Date(2026, 1, 1, 10, 0, 0, 0, cfdi.Mexico)
		for chunk := 0; chunk < n; chunk += 5000 {
			err = st.Update(context.Background(), func(tx storage.Tx) error {
				for i := chunk; i < min(chunk+5000, n); i++ {
					at := start.Add(time.Duration(i) * (365 * 24 * time.Hour / time.Duration(n)))
					rec := stampedInvoice(i, at, invoiceXML)
					if err := tx.Invoices(tenant).Put(rec); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		svc := &invoices.Service{Store: st}
		c := auth.Caller{TenantID: tenant, PersonID: "owner", IsOwner: true}
		b.Run(fmt.Sprintf("invoices=%d", n), func(b *testing.B) {
			t0 := time.Now()
			for range b.N {
				page, err := svc.List(context.Background(), c, invoices.ListFilter{Page: 1, Size: 10})
				if err != nil || len(page.Items) != 10 || page.TotalCount != n {
					b.Fatalf("list: %v %d of %d", err, len(page.Items), page.TotalCount)
				}
			}
			all := time.Since(t0) / time.Duration(b.N)
			t1 := time.Now()
			for range b.N {
				page, err := svc.List(context.Background(), c, invoices.ListFilter{RecipientTin: "AAA010103AA1", From: "2026-06-01", To: "2026-06-30", Page: 2, Size: 10})
				if err != nil || len(page.Items) != 10 {
					b.Fatalf("filtered list: %v %d of %d", err, len(page.Items), page.TotalCount)
				}
			}
			filtered := time.Since(t1) / time.Duration(b.N)
			b.ReportMetric(float64(all.Microseconds())/1000, "page1-ms")
			b.ReportMetric(float64(filtered.Microseconds())/1000, "filtered-ms")
		})
		st.Close()
	}
}
