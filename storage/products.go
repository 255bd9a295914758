package storage

import "time"

var bucketProducts = []byte("products")

// Product is a product or service of a tenant as stored: what an invoice item by reference takes
// (description, unit price, SAT keys and taxes). UnitPrice is decimal text, never a float.
type Product struct {
	ID                   string       `json:"id"`
	TenantID             string       `json:"tenantId"`
	Description          string       `json:"description"`
	UnitPrice            string       `json:"unitPrice"`
	SatUnitMeasurementID string       `json:"satUnitMeasurementId"`
	SatTaxObjectID       string       `json:"satTaxObjectId"`
	SatProductCodeID     string       `json:"satProductCodeId"`
	Taxes                []ProductTax `json:"taxes,omitempty"`
	CreatedAt            time.Time    `json:"createdAt"`
	UpdatedAt            time.Time    `json:"updatedAt"`
}

// ProductTax is one tax line of a product: a c_Impuesto key, a c_TipoFactor, the nature (T
// transferred, R withheld) and the c_TasaOCuota value as six-decimal text ("" when Exento).
type ProductTax struct {
	TaxID     string `json:"taxId"`
	TaxTypeID string `json:"taxTypeId"`
	TaxFlagID string `json:"taxFlagId"`
	Rate      string `json:"rate,omitempty"`
}

// Products is the products of one tenant.
type Products interface {
	// Get returns a product, ErrNotFound when the tenant has none with that id.
	Get(id string) (Product, error)
	// Put saves a product, replacing what it had.
	Put(p Product) error
	// Delete removes a product; absent is not an error.
	Delete(id string) error
	// List returns products in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]Product, int, error)
}
