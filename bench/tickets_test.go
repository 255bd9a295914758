package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/tickets"
	"github.com/timbra-mx/timbra/storage"
)

// The Auto CFDI usage report of GET /api/v4/auto-invoice/reports/consumption: it walks the two
// day indexes of the period (paid day → issuer and status, recorded day → recorder) in one bbolt
// read transaction, decoding no ticket. Measured on n tickets of 20 issuers and 5 cashiers
// spread over one year, for a one-month period; and the list (GET /api/v4/auto-invoice/tickets)
// of the pending ones, second page of 50, which walks the payment-day index and decodes only
// its page. For scale, "scan-ms" is reading and decoding every ticket of the tenant (what both
// did before the indexes), in the same run.
//
//	go test ./bench -run '^$' -bench 'TicketsReport' -benchtime 20x
func BenchmarkTicketsReport(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		st, err := storage.Open(filepath.Join(b.TempDir(), "t.db"))
		if err != nil {
			b.Fatal(err)
		}
		tenant, people := "tenant", make([]string, 25)
		start := time.Date(2026, 1, 1, 10, 0, 0, 0, cfdi.Mexico)
		items, _ := json.Marshal([]api.InvoiceItemInput{{ItemCode: "44121706", Quantity: "2", UnitOfMeasurementCode: "H87", Description: "Lápiz",
			UnitPrice: "12.50", TaxObjectCode: "02", ItemTaxes: []api.InvoiceItemTax{{TaxCode: "002", TaxTypeCode: "Tasa", TaxRate: "0.160000", TaxFlagCode: "T"}}}})
		err = st.Update(context.Background(), func(tx storage.Tx) error {
			for i := range people {
				now := start.Add(time.Duration(i) * time.Millisecond)
				people[i] = ids.New(now)
				tin := fmt.Sprintf("AAA0101%02dAA1", i)
				if err := tx.People(tenant).Put(storage.Person{ID: people[i], TenantID: tenant, LegalName: "Persona", Email: fmt.Sprintf("p%d@example.com", i), Tin: &tin, CreatedAt: now}); err != nil {
					return err
				}
			}
			statuses := []string{api.TicketPending, api.TicketInvoiced, api.TicketGlobalized, api.TicketCancelled}
			for i := range n {
				paid := start.Add(time.Duration(i) * (365 * 24 * time.Hour / time.Duration(n)))
				t := storage.Ticket{ID: ids.New(paid), Number: fmt.Sprintf("N-%d", i), IssuerPersonID: people[i%20], RecordedByPersonID: people[20+i%5],
					PaidAt: paid, PaidDay: paid.Format(time.DateOnly), RecordedDay: paid.Format(time.DateOnly), PaymentFormCode: "01", Items: items, Subtotal: "25.00", Discount: "0.00", Transfers: "4.00", Withheld: "0.00",
					Total: "29.00", Status: statuses[i%4], CreatedAt: paid, UpdatedAt: paid}
				if err := tx.Tickets(tenant).Put(t); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		svc := &tickets.Service{Store: st}
		c := auth.Caller{TenantID: tenant, PersonID: people[0], IsOwner: true}
		b.Run(fmt.Sprintf("tickets=%d", n), func(b *testing.B) {
			var rep api.ConsumptionReport
			t0 := time.Now()
			for b.Loop() {
				if rep, err = svc.Report(context.Background(), c, "2026-06-01", "2026-06-30", ""); err != nil {
					b.Fatal(err)
				}
			}
			perReport := time.Since(t0) / time.Duration(b.N)
			if rep.Totals.Ingested == 0 || rep.Totals.Ingested != rep.Totals.Pending+rep.Totals.Invoiced+rep.Totals.Globalized+rep.Totals.Cancelled {
				b.Fatalf("report: %+v", rep.Totals)
			}
			t1 := time.Now()
			for range b.N {
				if err := st.View(context.Background(), func(tx storage.Tx) error {
					_, _, err := tx.Tickets(tenant).List(0, math.MaxInt)
					return err
				}); err != nil {
					b.Fatal(err)
				}
			}
			floor := time.Since(t1) / time.Duration(b.N)
			t2 := time.Now()
			for range b.N {
				page, err := svc.List(context.Background(), c, tickets.Filter{Status: api.TicketPending, Page: 2, Size: 50})
				if err != nil || len(page.Items) != 50 || page.TotalCount != n/4 {
					b.Fatalf("list: %v %d of %d", err, len(page.Items), page.TotalCount)
				}
			}
			list := time.Since(t2) / time.Duration(b.N)
			b.ReportMetric(float64(perReport.Microseconds())/1000, "report-ms")
			b.ReportMetric(float64(list.Microseconds())/1000, "list-ms")
			b.ReportMetric(float64(floor.Microseconds())/1000, "scan-ms")
		})
		st.Close()
	}
}
