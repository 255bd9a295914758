// Package products holds the products and services of a tenant (`/api/v4/products`): what an
// invoice item by reference takes. The spec shows none of it; timbra answers as the service's
// existing clients call it (the fiscalapi client's product service and Product model):
//
//   - GET /api/v4/products?pageNumber&pageSize (1 to 50, default 50, as people), GET, POST,
//     PUT /api/v4/products/<id> and DELETE /api/v4/products/<id> (answers data true). The client
//     calls no other product path (no tax sub-resource: taxes travel inside the product).
//   - Fields: description, unitPrice, satUnitMeasurementId, satTaxObjectId, satProductCodeId,
//     productTaxes [{taxId, taxTypeId, taxFlagId, rate}], with the expanded records
//     satUnitMeasurement, satTaxObject, satProductCode and per tax `tax`, `taxType`, `taxFlag`
//     (and its productId), createdAt and updatedAt. Expanded SAT records are null when the
//     catalogs are not imported or no longer hold the id; every answer (create and update too)
//     carries them.
//   - Create: description and unitPrice are required; the SAT keys not sent take the defaults
//     the client documents (H87, 02, 01010101), and productTaxes not sent is IVA 16% transferred
//     (an empty list is no taxes).
//   - Update: fields not sent (or null) keep their value, so a client may send only what changes
//     or the whole product it read; productTaxes, when sent, replaces the list. `id` in the body
//     is optional and must be the path's.
//   - Catalog checks: a SAT key is checked when sent on create and when it changes on update
//     (defaults and unchanged keys are not looked up again), so a server without SAT catalogs
//     answers catalogs.ErrNotImported (503) only for a write that needs a check. Taxes, TaxTypes
//     and TaxFlags are the service's own catalogs, always there. Rates follow c_TasaOCuota
//     (taxes.go); c_ObjetoImp 01, 03 and 04 take no taxes, 02 at least one.
//   - Amounts are read exactly (no float): unitPrice 0 or more, at most 6 decimals and 18 integer
//     digits (t_Importe); rate at most 6 decimals, answered as SAT writes it (0.160000).
//   - Ownership: products belong to the tenant, and any person of the tenant may list, read,
//     create, change and delete them (the spec names no owner rule for them). Another tenant's
//     product is a 404 `No such resource for the given Id: <id>`.
package products

import (
	"context"
	"errors"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// Catalogs finds catalog records; *catalogs.Service is one. err is catalogs.ErrNotImported when
// the catalog needs an import that has not happened.
type Catalogs interface {
	Lookup(ctx context.Context, name, id string) (api.CatalogRecord, bool, error)
}

// Service is the products area.
type Service struct {
	Store    storage.Store
	Catalogs Catalogs
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// maxUnitPrice is the largest t_Importe (18 integer digits, 6 decimals).
var maxUnitPrice = mustRat("999999999999999999.999999")

// DefaultTaxes are the taxes of a product created without productTaxes: IVA 16% transferred.
func DefaultTaxes() []storage.ProductTax {
	return []storage.ProductTax{{TaxID: TaxIVA, TaxTypeID: FactorTasa, TaxFlagID: FlagTransferred, Rate: "0.160000"}}
}

// ---- reads

// List answers a page of the caller's tenant's products, in creation order.
func (s *Service) List(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.Product], error) {
	var items []storage.Product
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		items, total, err = tx.Products(c.TenantID).List((page-1)*size, size)
		return err
	})
	if err != nil {
		return api.PagedList[api.Product]{}, err
	}
	out := make([]api.Product, len(items))
	for i, p := range items {
		out[i] = s.ToAPI(ctx, p)
	}
	return api.NewPage(out, page, size, total), nil
}

// Get answers one product of the caller's tenant.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.Product, error) {
	p, err := s.Find(ctx, c, id)
	if err != nil {
		return api.Product{}, err
	}
	return s.ToAPI(ctx, p), nil
}

// Find reads a stored product of the caller's tenant: 404 outside it. Invoices by reference read
// their items through it (or tx.Products in their own transaction).
func (s *Service) Find(ctx context.Context, c auth.Caller, id string) (storage.Product, error) {
	var p storage.Product
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		p, err = tx.Products(c.TenantID).Get(id)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return p, apierr.NotFound(id)
	}
	return p, err
}

// ToAPI shows a stored product with its catalog records expanded.
func (s *Service) ToAPI(ctx context.Context, p storage.Product) api.Product {
	out := api.Product{
		ID: p.ID, Description: p.Description, UnitPrice: api.Decimal(p.UnitPrice),
		SatUnitMeasurementID: p.SatUnitMeasurementID, SatUnitMeasurement: s.expand(ctx, CatalogUnitMeasurements, p.SatUnitMeasurementID),
		SatTaxObjectID: p.SatTaxObjectID, SatTaxObject: s.expand(ctx, CatalogTaxObjects, p.SatTaxObjectID),
		SatProductCodeID: p.SatProductCodeID, SatProductCode: s.expand(ctx, CatalogProductCodes, p.SatProductCodeID),
		ProductTaxes: make([]api.ProductTax, len(p.Taxes)),
		CreatedAt:    api.FormatAudit(p.CreatedAt), UpdatedAt: api.FormatAudit(p.UpdatedAt),
	}
	for i, t := range p.Taxes {
		pt := api.ProductTax{
			ProductID: p.ID, TaxID: t.TaxID, Tax: s.expand(ctx, CatalogTaxes, t.TaxID),
			TaxTypeID: t.TaxTypeID, TaxType: s.expand(ctx, CatalogTaxTypes, t.TaxTypeID),
			TaxFlagID: t.TaxFlagID, TaxFlag: s.expand(ctx, CatalogTaxFlags, t.TaxFlagID),
		}
		if t.Rate != "" {
			r := api.Decimal(t.Rate)
			pt.Rate = &r
		}
		out.ProductTaxes[i] = pt
	}
	return out
}

// expand is the catalog record of an id for an answer: null when the catalog cannot be read
// (not imported) or does not hold the id; reads never fail for the expansion.
func (s *Service) expand(ctx context.Context, catalog, id string) *api.CatalogRecord {
	if id == "" || s.Catalogs == nil {
		return nil
	}
	rec, ok, err := s.Catalogs.Lookup(ctx, catalog, id)
	if err != nil || !ok {
		return nil
	}
	return &rec
}

// ---- writes

// Create adds a product to the caller's tenant. Any person of the tenant may.
func (s *Service) Create(ctx context.Context, c auth.Caller, in api.ProductInput) (api.Product, error) {
	now := s.now()
	p := storage.Product{ID: ids.New(now), TenantID: c.TenantID, CreatedAt: now, UpdatedAt: now}
	if err := apply(&p, in, true, s.lookups(ctx, in)); err != nil {
		return api.Product{}, err
	}
	if err := s.Store.Update(ctx, func(tx storage.Tx) error { return tx.Products(c.TenantID).Put(p) }); err != nil {
		return api.Product{}, err
	}
	return s.ToAPI(ctx, p), nil
}

// Update changes the fields in carries of a product of the caller's tenant (404 outside it),
// checking and applying the body to the product as the write transaction reads it.
func (s *Service) Update(ctx context.Context, c auth.Caller, id string, in api.ProductInput) (api.Product, error) {
	if in.ID != nil && *in.ID != "" && *in.ID != id {
		return api.Product{}, apierr.Invalid(apierr.Field("Id", MsgIDsMismatch, *in.ID, "", nil))
	}
	checks := s.lookups(ctx, in) // outside the write: a catalog is read from the database on first use
	var p storage.Product
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		var err error
		p, err = tx.Products(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		if err := apply(&p, in, false, checks); err != nil {
			return err
		}
		p.UpdatedAt = s.now()
		return tx.Products(c.TenantID).Put(p)
	})
	if err != nil {
		return api.Product{}, err
	}
	return s.ToAPI(ctx, p), nil
}

// Delete removes a product of the caller's tenant (404 outside it). Stamped invoices keep their
// own copy of the item, so nothing else changes.
func (s *Service) Delete(ctx context.Context, c auth.Caller, id string) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Products(c.TenantID).Get(id); errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		} else if err != nil {
			return err
		}
		return tx.Products(c.TenantID).Delete(id)
	})
}
