package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/ids"
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
		xml := []byte(`<?xml version="1.0" encoding="UTF-8"?><cfdi:Comprobante ` + strings.Repeat("x", 6000) + `/>`)
		for chunk := 0; chunk < n; chunk += 5000 {
			err = st.Update(context.Background(), func(tx storage.Tx) error {
				for i := chunk; i < min(chunk+5000, n); i++ {
					at := start.Add(time.Duration(i) * (365 * 24 * time.Hour / time.Duration(n)))
					recipient := fmt.Sprintf("AAA0101%02dAA1", i%10)
					v := api.Invoice{ID: ids.New(at), VersionCode: "4.0", Date: at.Format(cfdi.DateLayout), Subtotal: "100.00", Total: "116.00",
						UUID: fmt.Sprintf("%08X-0000-4000-8000-000000000000", i), Status: invoices.StatusValid, TypeCode: "I", CurrencyCode: "MXN",
						Issuer:    api.InvoiceIssuer{Tin: "EKU9003173C9", LegalName: "ESCUELA KEMPER URGATE", TaxRegimeCode: "601"},
						Recipient: api.InvoiceRecipient{Tin: recipient, LegalName: "CLIENTE", ZipCode: "42501", TaxRegimeCode: "601", CfdiUseCode: "G01"},
						Items:     []api.InvoiceItem{{ItemCode: "44121706", Quantity: "2", UnitOfMeasurementCode: "H87", Description: "Lápiz", UnitPrice: "50.00", Amount: "100.00", TaxObjectCode: "02"}}}
					view, _ := json.Marshal(v)
					rec := storage.Invoice{ID: v.ID, ResponseID: ids.New(at), PersonID: "owner", UUID: v.UUID, TypeCode: "I", IssuerTin: "EKU9003173C9",
						RecipientTin: recipient, Total: "116.00", Status: invoices.StatusValid, View: view, XML: xml, CreatedAt: at, UpdatedAt: at}
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
