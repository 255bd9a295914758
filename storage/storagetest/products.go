package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunProducts checks the products of a tenant: scoped to the tenant, replaced by Put, listed in
// creation order with paging, removed by Delete.
func RunProducts(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("ScopedToTenant", func(t *testing.T) { testProductsScoped(t, open(t)) })
	t.Run("ListPagesInCreationOrder", func(t *testing.T) { testProductsList(t, open(t)) })
}

func product(description string) storage.Product {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return storage.Product{ID: id(), Description: description, UnitPrice: "999999999999999999.999999",
		SatUnitMeasurementID: "H87", SatTaxObjectID: "02", SatProductCodeID: "01010101",
		Taxes: []storage.ProductTax{{TaxID: "002", TaxTypeID: "Tasa", TaxFlagID: "T", Rate: "0.160000"},
			{TaxID: "003", TaxTypeID: "Exento", TaxFlagID: "T"}},
		CreatedAt: now, UpdatedAt: now}
}

func testProductsScoped(t *testing.T, s storage.Store) {
	a, b := id(), id()
	p := product("first")
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Products(a).Put(p); err != nil {
			return err
		}
		q := p
		q.Description = "second"
		return tx.Products(a).Put(q) // replaces
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		got, err := tx.Products(a).Get(p.ID)
		if err != nil || got.Description != "second" || got.TenantID != a || got.UnitPrice != "999999999999999999.999999" ||
			len(got.Taxes) != 2 || got.Taxes[0] != p.Taxes[0] || got.Taxes[1].Rate != "" {
			return fmt.Errorf("product = %+v, %v; want the second one, its tenant, the exact price and both taxes", got, err)
		}
		if _, err := tx.Products(b).Get(p.ID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("a product of tenant a visible in tenant b: %v", err)
		}
		if items, total, err := tx.Products(b).List(0, 10); err != nil || total != 0 || len(items) != 0 {
			return fmt.Errorf("tenant b lists %d products (%v)", total, err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Products(b).Delete(p.ID); err != nil { // another tenant's delete touches nothing
			return err
		}
		if _, err := tx.Products(a).Get(p.ID); err != nil {
			return fmt.Errorf("tenant b deleted a product of tenant a: %v", err)
		}
		if err := tx.Products(a).Delete(p.ID); err != nil {
			return err
		}
		return tx.Products(a).Delete(p.ID) // absent is not an error
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Products(a).Get(p.ID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("deleted product still there: %v", err)
		}
		return nil
	}))
}

func testProductsList(t *testing.T, s storage.Store) {
	a, b := id(), id()
	var made []string
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 5 {
			p := product(fmt.Sprint("p", i))
			made = append(made, p.ID)
			if err := tx.Products(a).Put(p); err != nil {
				return err
			}
		}
		return tx.Products(b).Put(product("other"))
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		items, total, err := tx.Products(a).List(2, 2)
		if err != nil || total != 5 || len(items) != 2 || items[0].ID != made[2] || items[1].ID != made[3] {
			return fmt.Errorf("page 2 of 2 = %d items of %d (%v)", len(items), total, err)
		}
		items, total, err = tx.Products(a).List(4, 10)
		if err != nil || total != 5 || len(items) != 1 || items[0].ID != made[4] {
			return fmt.Errorf("last page = %d items of %d (%v)", len(items), total, err)
		}
		return nil
	}))
}
