package storagetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunInvoices checks the stamped invoices of a tenant: scoped to the tenant, found by UUID in any
// case, listed in creation order.
func RunInvoices(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("ScopedAndByUUID", func(t *testing.T) { testInvoicesScoped(t, open(t)) })
	t.Run("ListInCreationOrder", func(t *testing.T) { testInvoicesList(t, open(t)) })
	t.Run("SummariesFollowPut", func(t *testing.T) { testInvoiceSummaries(t, open(t)) })
	t.Run("IndexedByEveryFilterField", func(t *testing.T) { testInvoicesBy(t, open(t)) })
	t.Run("PendingCancellationsFollowPut", func(t *testing.T) { testPendingCancellations(t, open(t)) })
}

// testPendingCancellations: an invoice is a pending cancellation, across tenants, exactly while
// Put stores it in StatusCanceling, with its request's time.
func testPendingCancellations(t *testing.T, s storage.Store) {
	a, b := id(), id()
	at := time.Date(2026, 11, 20, 10, 0, 0, 123, time.UTC)
	v := invoice("00000000-0000-4000-8000-000000000010")
	v.Status, v.Cancellation = storage.StatusCanceling, &storage.InvoiceCancellation{ReasonCode: "03", Status: "En proceso", RequestedAt: at}
	w := invoice("00000000-0000-4000-8000-000000000011")
	pending := func() []storage.PendingCancellation {
		t.Helper()
		var out []storage.PendingCancellation
		must(t, s.View(ctx, func(tx storage.Tx) error {
			var err error
			out, err = tx.PendingCancellations()
			return err
		}))
		return out
	}
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Invoices(a).Put(v); err != nil {
			return err
		}
		return tx.Invoices(b).Put(w)
	}))
	if got := pending(); len(got) != 1 || got[0].TenantID != a || got[0].InvoiceID != v.ID || !got[0].RequestedAt.Equal(at) {
		t.Fatalf("pending = %+v", got)
	}
	v.Status = "Cancelado"
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.Invoices(a).Put(v) }))
	if got := pending(); len(got) != 0 {
		t.Fatalf("pending after the answer = %+v", got)
	}
}

// testInvoiceSummaries: every Put rewrites the summary (a status change shows), date and series
// come from the answer when not set, summaries walk in creation order, per tenant, and ErrStop
// ends the walk.
func testInvoiceSummaries(t *testing.T, s storage.Store) {
	a, b := id(), id()
	v1 := invoice("00000000-0000-4000-8000-000000000001")
	v1.View = []byte(`{"date":"2026-11-20T10:00:00","series":"F"}`)
	v2 := invoice("00000000-0000-4000-8000-000000000002")
	v2.Date, v2.Series = "2026-11-21T09:00:00", "G"
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for _, v := range []storage.Invoice{v1, v2} {
			if err := tx.Invoices(a).Put(v); err != nil {
				return err
			}
		}
		v1.Status = "Cancelado"
		if err := tx.Invoices(a).Put(v1); err != nil {
			return err
		}
		return tx.Invoices(b).Put(invoice("00000000-0000-4000-8000-000000000003"))
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		var got []storage.InvoiceSummary
		if err := tx.Invoices(a).EachSummary(time.Time{}, time.Time{}, func(r storage.InvoiceSummary) error { got = append(got, r); return nil }); err != nil {
			return err
		}
		if len(got) != 2 || got[0].ID != v1.ID || got[0].Status != "Cancelado" || got[0].Date != "2026-11-20T10:00:00" || got[0].Series != "F" ||
			got[1].ID != v2.ID || got[1].Date != "2026-11-21T09:00:00" || got[1].Series != "G" || got[1].IssuerTin != "EKU9003173C9" {
			return fmt.Errorf("summaries = %+v", got)
		}
		n := 0
		if err := tx.Invoices(a).EachSummary(time.Time{}, time.Time{}, func(storage.InvoiceSummary) error { n++; return storage.ErrStop }); err != nil || n != 1 {
			return fmt.Errorf("ErrStop: %d calls, %v", n, err)
		}
		// bounds on when they were made: [from, to)
		n = 0
		count := func(storage.InvoiceSummary) error { n++; return nil }
		now := time.Now()
		if err := tx.Invoices(a).EachSummary(now.Add(-time.Hour), now.Add(time.Hour), count); err != nil || n != 2 {
			return fmt.Errorf("made in the last hour: %d, %v", n, err)
		}
		n = 0
		if err := tx.Invoices(a).EachSummary(now.Add(time.Hour), time.Time{}, count); err != nil || n != 0 {
			return fmt.Errorf("made from an hour on: %d, %v", n, err)
		}
		if err := tx.Invoices(a).EachSummary(time.Time{}, now.Add(-time.Hour), count); err != nil || n != 0 {
			return fmt.Errorf("made before an hour ago: %d, %v", n, err)
		}
		return nil
	}))
}

// testInvoicesBy: CountBy and EachBy find a tenant's invoices by each filtered field, case
// folded, in creation order, within made bounds; CountBoth counts them by every pair of fields;
// a status change moves the invoice from one status's index and pairs to the other's; an empty
// value finds nothing; tenants do not see each other.
func testInvoicesBy(t *testing.T, s storage.Store) {
	a, b := id(), id()
	person := id()
	var made []storage.Invoice
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 5 {
			v := invoice(fmt.Sprintf("00000000-0000-4000-8000-0000000001%02d", i))
			v.Series = []string{"F", "f", "G", "", "F"}[i]
			v.Date = fmt.Sprintf("2026-11-%02dT10:00:00", 10+i%3)
			if i%2 == 0 {
				v.RecipientTin, v.RecipientPersonID = "AAA010101AAA", &person
			}
			made = append(made, v)
			if err := tx.Invoices(a).Put(v); err != nil {
				return err
			}
		}
		return tx.Invoices(b).Put(invoice("00000000-0000-4000-8000-000000000199"))
	}))
	ids := func(tx storage.Tx, tenant string, f storage.InvoiceField, value string, from, to time.Time) []string {
		var got []string
		must(t, tx.Invoices(tenant).EachBy(f, value, from, to, func(r storage.InvoiceSummary) error {
			if !strings.EqualFold(r.Field(f), value) {
				return fmt.Errorf("EachBy(%c, %q) gave %+v", f, value, r)
			}
			got = append(got, r.ID)
			return nil
		}))
		return got
	}
	// ErrStop ends a walk where it is, with no error; another error ends it with that error
	must(t, s.View(ctx, func(tx storage.Tx) error {
		n := 0
		if err := tx.Invoices(a).EachBy(storage.BySeries, "f", time.Time{}, time.Time{}, func(storage.InvoiceSummary) error {
			n++
			return storage.ErrStop
		}); err != nil || n != 1 {
			return fmt.Errorf("EachBy stopped after the first: %d walked, %v", n, err)
		}
		oops := errors.New("oops")
		if err := tx.Invoices(a).EachBy(storage.BySeries, "f", time.Time{}, time.Time{}, func(storage.InvoiceSummary) error { return oops }); err != oops {
			return fmt.Errorf("EachBy's error: %v", err)
		}
		return nil
	}))
	check := func(tx storage.Tx, tenant string, f storage.InvoiceField, value string, want ...int) {
		t.Helper()
		n, err := tx.Invoices(tenant).CountBy(f, value)
		got := ids(tx, tenant, f, value, time.Time{}, time.Time{})
		var wantIDs []string
		for _, i := range want {
			wantIDs = append(wantIDs, made[i].ID)
		}
		if err != nil || n != len(want) || fmt.Sprint(got) != fmt.Sprint(wantIDs) {
			t.Errorf("%c %q: counted %d (%v), walked %v; want %v", f, value, n, err, got, wantIDs)
		}
	}
	// both: CountBoth of every pair of fields, for every pair of values the invoices hold (in
	// lower case: folded), and its fields given either way round, is the count of those invoices
	both := func(tx storage.Tx) {
		t.Helper()
		sums := map[string]storage.InvoiceSummary{}
		must(t, tx.Invoices(a).EachSummary(time.Time{}, time.Time{}, func(r storage.InvoiceSummary) error { sums[r.ID] = r; return nil }))
		for i, f := range storage.InvoiceFields {
			for _, g := range storage.InvoiceFields[i+1:] {
				for _, r := range sums {
					want := 0
					for _, o := range sums {
						if r.Field(f) != "" && r.Field(g) != "" && strings.EqualFold(o.Field(f), r.Field(f)) && strings.EqualFold(o.Field(g), r.Field(g)) {
							want++
						}
					}
					fv, gv := strings.ToLower(r.Field(f)), strings.ToLower(r.Field(g))
					n1, err1 := tx.Invoices(a).CountBoth(f, fv, g, gv)
					n2, err2 := tx.Invoices(a).CountBoth(g, gv, f, fv)
					if n1 != want || n2 != want || err1 != nil || err2 != nil {
						t.Errorf("CountBoth(%c %q, %c %q) = %d, %d (%v, %v); want %d", f, fv, g, gv, n1, n2, err1, err2, want)
					}
				}
			}
		}
		if n, _ := tx.Invoices(a).CountBoth(storage.BySeries, "F", storage.BySeries, "F"); n != 0 {
			t.Errorf("CountBoth of one field twice: %d", n)
		}
		if n, _ := tx.Invoices(b).CountBoth(storage.ByIssuerTin, "EKU9003173C9", storage.ByStatus, "Vigente"); n != 1 {
			t.Errorf("tenant b's count of its own pair: %d (a's are not b's)", n)
		}
	}
	// days: CountDays of every invoice and of every value of every field, over open and closed
	// ranges of days, is the count of those invoices dated in it
	days := func(tx storage.Tx) {
		t.Helper()
		var sums []storage.InvoiceSummary
		must(t, tx.Invoices(a).EachSummary(time.Time{}, time.Time{}, func(r storage.InvoiceSummary) error { sums = append(sums, r); return nil }))
		for _, f := range append([]storage.InvoiceField{storage.AllInvoices}, storage.InvoiceFields...) {
			for _, r := range sums {
				value := ""
				if f != storage.AllInvoices {
					if value = strings.ToLower(r.Field(f)); value == "" {
						continue
					}
				}
				for _, span := range [][2]string{{"", ""}, {"2026-11-11", ""}, {"", "2026-11-11"}, {"2026-11-11", "2026-11-12"}, {"2026-11-13", ""}} {
					want := 0
					for _, o := range sums {
						if (f == storage.AllInvoices || strings.EqualFold(o.Field(f), value)) && (span[0] == "" || o.Date[:10] >= span[0]) && (span[1] == "" || o.Date[:10] <= span[1]) {
							want++
						}
					}
					if n, err := tx.Invoices(a).CountDays(f, value, span[0], span[1]); err != nil || n != want {
						t.Errorf("CountDays(%c %q, %q..%q) = %d (%v), want %d", f, value, span[0], span[1], n, err, want)
					}
				}
			}
		}
		if n, _ := tx.Invoices(b).CountDays(storage.AllInvoices, "", "", ""); n != 0 {
			t.Errorf("tenant b counts a's days: %d", n)
		}
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		both(tx)
		days(tx)
		check(tx, a, storage.BySeries, "f", 0, 1, 4)
		check(tx, a, storage.BySeries, "G", 2)
		check(tx, a, storage.BySeries, "")
		check(tx, a, storage.ByRecipientTin, "aaa010101aaa", 0, 2, 4)
		check(tx, a, storage.ByRecipientTin, "XAXX010101000", 1, 3)
		check(tx, a, storage.ByRecipientPersonID, person, 0, 2, 4)
		check(tx, a, storage.ByIssuerPersonID, person)
		check(tx, a, storage.ByIssuerTin, "EKU9003173C9", 0, 1, 2, 3, 4)
		check(tx, a, storage.ByTypeCode, "i", 0, 1, 2, 3, 4)
		check(tx, a, storage.ByStatus, "Vigente", 0, 1, 2, 3, 4)
		if n, _ := tx.Invoices(b).CountBy(storage.BySeries, "F"); n != 0 {
			t.Errorf("tenant b counts a's series: %d", n)
		}
		if got := ids(tx, b, storage.ByIssuerTin, "EKU9003173C9", time.Time{}, time.Time{}); len(got) != 1 {
			t.Errorf("tenant b's invoices by issuer: %v", got)
		}
		now := time.Now()
		if got := ids(tx, a, storage.ByStatus, "Vigente", now.Add(-time.Hour), now.Add(time.Hour)); len(got) != 5 {
			t.Errorf("made in the last hour: %v", got)
		}
		if got := ids(tx, a, storage.ByStatus, "Vigente", now.Add(time.Hour), time.Time{}); len(got) != 0 {
			t.Errorf("made from an hour on: %v", got)
		}
		if got := ids(tx, a, storage.ByStatus, "Vigente", time.Time{}, now.Add(-time.Hour)); len(got) != 0 {
			t.Errorf("made before an hour ago: %v", got)
		}
		n := 0
		if err := tx.Invoices(a).EachBy(storage.ByStatus, "Vigente", time.Time{}, time.Time{}, func(storage.InvoiceSummary) error { n++; return storage.ErrStop }); err != nil || n != 1 {
			t.Errorf("ErrStop: %d calls, %v", n, err)
		}
		return nil
	}))
	// a cancellation moves an invoice between statuses; a new series moves it between series
	made[1].Status, made[1].Series = "Cancelado", "G"
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.Invoices(a).Put(made[1]) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		both(tx)
		days(tx)
		if n, _ := tx.Invoices(a).CountBoth(storage.ByStatus, "Cancelado", storage.BySeries, "g"); n != 1 {
			t.Errorf("cancelled of series G: %d, want 1", n)
		}
		if n, _ := tx.Invoices(a).CountBoth(storage.ByStatus, "Vigente", storage.BySeries, "F"); n != 2 {
			t.Errorf("valid of series F: %d, want 2", n)
		}
		check(tx, a, storage.ByStatus, "Vigente", 0, 2, 3, 4)
		check(tx, a, storage.ByStatus, "cancelado", 1)
		check(tx, a, storage.BySeries, "F", 0, 4)
		check(tx, a, storage.BySeries, "G", 1, 2)
		check(tx, a, storage.ByIssuerTin, "EKU9003173C9", 0, 1, 2, 3, 4)
		return nil
	}))
}

func invoice(uuid string) storage.Invoice {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return storage.Invoice{ID: id(), PersonID: id(), UUID: uuid, TypeCode: "I", IssuerTin: "EKU9003173C9",
		RecipientTin: "XAXX010101000", Total: "116.00", Status: "Vigente", View: []byte(`{"total":116.00}`),
		XML: []byte("<cfdi:Comprobante/>"), CreatedAt: now, UpdatedAt: now}
}

func testInvoicesScoped(t *testing.T, s storage.Store) {
	a, b := id(), id()
	v := invoice("5c4b3f6e-1d2a-4b8c-9e0f-a1b2c3d4e5f6")
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.Invoices(a).Put(v) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		got, err := tx.Invoices(a).Get(v.ID)
		if err != nil || got.TenantID != a || got.UUID != "5C4B3F6E-1D2A-4B8C-9E0F-A1B2C3D4E5F6" || string(got.XML) != string(v.XML) ||
			string(got.View) != string(v.View) || got.Total != "116.00" {
			return fmt.Errorf("invoice = %+v, %v", got, err)
		}
		byUUID, err := tx.Invoices(a).ByUUID("5c4b3f6e-1d2a-4b8c-9e0f-a1b2c3d4e5f6")
		if err != nil || byUUID.ID != v.ID {
			return fmt.Errorf("by uuid = %+v, %v", byUUID, err)
		}
		if _, err := tx.Invoices(b).Get(v.ID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("an invoice of tenant a visible in tenant b: %v", err)
		}
		if _, err := tx.Invoices(b).ByUUID(v.UUID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("an invoice of tenant a found by uuid in tenant b: %v", err)
		}
		if got, err := tx.Invoices(a).GetMany([]string{v.ID, v.ID}); err != nil || len(got) != 2 || got[1].ID != v.ID || got[1].Total != "116.00" {
			return fmt.Errorf("GetMany = %+v, %v", got, err)
		}
		if _, err := tx.Invoices(b).GetMany([]string{v.ID}); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("GetMany of tenant a's invoice in tenant b: %v", err)
		}
		return nil
	}))
}

func testInvoicesList(t *testing.T, s storage.Store) {
	a := id()
	var made []string
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 4 {
			v := invoice(fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", i))
			made = append(made, v.ID)
			if err := tx.Invoices(a).Put(v); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		items, total, err := tx.Invoices(a).List(1, 2)
		if err != nil || total != 4 || len(items) != 2 || items[0].ID != made[1] || items[1].ID != made[2] {
			return fmt.Errorf("page = %d items of %d (%v)", len(items), total, err)
		}
		return nil
	}))
}
