package storagetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunAutoInvoices checks the Auto CFDI configurations: absent until saved, one per tenant,
// replaced by Put, and the portal-name index across tenants (held, released, rolled back with
// its transaction).
func RunAutoInvoices(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("PerTenantAndNameIndex", func(t *testing.T) { testAutoInvoices(t, open(t)) })
	t.Run("TicketsGetMany", func(t *testing.T) { testTicketsGetMany(t, open(t)) })
}

// testTicketsGetMany reads a page of tickets at once: in the order asked, what the transaction
// itself changed included, ErrNotFound for one missing or another tenant's.
func testTicketsGetMany(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a, b := id(), id()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ticket := func(n int, status string) storage.Ticket {
		at := now.Add(time.Duration(n) * time.Minute)
		return storage.Ticket{ID: fmt.Sprintf("t-%02d", n), Number: fmt.Sprintf("N-%02d", n), IssuerPersonID: "p", RecordedByPersonID: "p",
			PaidAt: at, PaidDay: "2026-03-01", RecordedDay: "2026-03-01", PaymentFormCode: "01", Items: []byte(`[]`),
			Subtotal: "1", Discount: "0", Transfers: "0", Withheld: "0", Total: "1", Status: status, CreatedAt: at, UpdatedAt: at}
	}
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for n := range 6 {
			if err := tx.Tickets(a).Put(ticket(n, "pending")); err != nil {
				return err
			}
		}
		return tx.Tickets(b).Put(ticket(9, "pending"))
	}))
	numbers := func(ts []storage.Ticket) string {
		var out []string
		for _, x := range ts {
			out = append(out, x.Number+"/"+x.Status)
		}
		return strings.Join(out, " ")
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		got, err := tx.Tickets(a).GetMany([]string{"t-04", "t-01", "t-05", "t-01"})
		if want := "N-04/pending N-01/pending N-05/pending N-01/pending"; err != nil || numbers(got) != want {
			t.Errorf("GetMany = %s, %v; want %s", numbers(got), err, want)
		}
		if got, err := tx.Tickets(a).GetMany(nil); err != nil || len(got) != 0 {
			t.Errorf("GetMany of none = %v, %v", got, err)
		}
		if _, err := tx.Tickets(a).GetMany([]string{"t-02", "t-09"}); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("another tenant's ticket: %v", err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		ts := tx.Tickets(a)
		if err := ts.Put(ticket(2, "invoiced")); err != nil {
			return err
		}
		got, err := ts.GetMany([]string{"t-02", "t-03"})
		if want := "N-02/invoiced N-03/pending"; err != nil || numbers(got) != want {
			t.Errorf("GetMany after a change in the transaction = %s, %v; want %s", numbers(got), err, want)
		}
		return nil
	}))
}

func testAutoInvoices(t *testing.T, s storage.Store) {
	ctx := context.Background()
	a, b := id(), id()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	url := "https://example.com/aviso"
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.AutoInvoices().Get(a); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("never saved: %v", err)
		}
		if _, err := tx.AutoInvoices().PortalNameOwner("tienda"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("no owner: %v", err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		ai := tx.AutoInvoices()
		if err := ai.Put(storage.AutoInvoice{TenantID: a, AllowBillingOutsideMonth: true, PrivacyNoticeURL: &url,
			PortalName: "tienda", PortalNameAssignedAt: &now}); err != nil {
			return err
		}
		return ai.HoldPortalName("tienda", a)
	}))
	rollback := errors.New("rollback")
	if err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.AutoInvoices().HoldPortalName("otra", b); err != nil {
			return err
		}
		return rollback
	}); !errors.Is(err, rollback) {
		t.Fatalf("rollback: %v", err)
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		got, err := tx.AutoInvoices().Get(a)
		if err != nil || !got.AllowBillingOutsideMonth || got.PrivacyNoticeURL == nil || *got.PrivacyNoticeURL != url ||
			got.PortalName != "tienda" || !got.PortalNameAssignedAt.Equal(now) {
			t.Errorf("read back: %+v %v", got, err)
		}
		if _, err := tx.AutoInvoices().Get(b); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("other tenant: %v", err)
		}
		if owner, err := tx.AutoInvoices().PortalNameOwner("tienda"); err != nil || owner != a {
			t.Errorf("owner: %q %v", owner, err)
		}
		if _, err := tx.AutoInvoices().PortalNameOwner("otra"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("rolled back name: %v", err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.AutoInvoices().ReleasePortalName("tienda") }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.AutoInvoices().PortalNameOwner("tienda"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("released: %v", err)
		}
		return nil
	}))
}
