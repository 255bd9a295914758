package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunInvoices checks the stamped invoices of a tenant: scoped to the tenant, found by UUID in any
// case, listed in creation order.
func RunInvoices(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("ScopedAndByUUID", func(t *testing.T) { testInvoicesScoped(t, open(t)) })
	t.Run("ListInCreationOrder", func(t *testing.T) { testInvoicesList(t, open(t)) })
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
