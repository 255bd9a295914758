package storagetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunAutoInvoices checks the Auto CFDI configurations: absent until saved, one per tenant,
// replaced by Put, and the portal-name index across tenants (held, released, rolled back with
// its transaction).
func RunAutoInvoices(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("PerTenantAndNameIndex", func(t *testing.T) { testAutoInvoices(t, open(t)) })
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
