package api

import (
	"context"
	"net/http"
	"net/url"
)

// Product is a product or service of the tenant as the API answers it: the fields the official
// clients read (their Product model), with the catalog records expanded.
type Product struct {
	ID                   string         `json:"id"`
	Description          string         `json:"description"`
	UnitPrice            Decimal        `json:"unitPrice"`
	SatUnitMeasurementID string         `json:"satUnitMeasurementId"`
	SatUnitMeasurement   *CatalogRecord `json:"satUnitMeasurement"`
	SatTaxObjectID       string         `json:"satTaxObjectId"`
	SatTaxObject         *CatalogRecord `json:"satTaxObject"`
	SatProductCodeID     string         `json:"satProductCodeId"`
	SatProductCode       *CatalogRecord `json:"satProductCode"`
	ProductTaxes         []ProductTax   `json:"productTaxes"`
	CreatedAt            string         `json:"createdAt"`
	UpdatedAt            string         `json:"updatedAt"`
}

// ProductTax is one tax of a product: c_Impuesto key (taxId), c_TipoFactor (taxTypeId), nature
// (taxFlagId: T transferred, R withheld) and the c_TasaOCuota value (rate; null when Exento).
type ProductTax struct {
	ProductID string         `json:"productId"`
	TaxID     string         `json:"taxId"`
	Tax       *CatalogRecord `json:"tax"`
	TaxTypeID string         `json:"taxTypeId"`
	TaxType   *CatalogRecord `json:"taxType"`
	TaxFlagID string         `json:"taxFlagId"`
	TaxFlag   *CatalogRecord `json:"taxFlag"`
	Rate      *Decimal       `json:"rate"`
}

// ProductInput is the body of POST /api/v4/products and PUT /api/v4/products/<id>. A nil field
// was not sent: on create it takes its default, on update it keeps the saved value. Read-only
// fields of Product (expanded records, audit fields) are not here, so the server ignores them.
type ProductInput struct {
	ID                   *string            `json:"id,omitempty"`
	Description          *string            `json:"description,omitempty"`
	UnitPrice            *Decimal           `json:"unitPrice,omitempty"`
	SatUnitMeasurementID *string            `json:"satUnitMeasurementId,omitempty"`
	SatTaxObjectID       *string            `json:"satTaxObjectId,omitempty"`
	SatProductCodeID     *string            `json:"satProductCodeId,omitempty"`
	ProductTaxes         *[]ProductTaxInput `json:"productTaxes,omitempty"`
}

// ProductTaxInput is one tax of a product's body.
type ProductTaxInput struct {
	TaxID     *string  `json:"taxId,omitempty"`
	TaxTypeID *string  `json:"taxTypeId,omitempty"`
	TaxFlagID *string  `json:"taxFlagId,omitempty"`
	Rate      *Decimal `json:"rate,omitempty"`
}

func productPath(id string) string { return "/api/v4/products/" + url.PathEscape(id) }

// ListProducts reads one page of the tenant's products.
func (c *Client) ListProducts(ctx context.Context, page, size int) (PagedList[Product], error) {
	var out PagedList[Product]
	err := c.Do(ctx, http.MethodGet, "/api/v4/products", pageQuery(page, size), nil, &out)
	return out, err
}

// GetProduct reads one product.
func (c *Client) GetProduct(ctx context.Context, id string) (Product, error) {
	var out Product
	err := c.Do(ctx, http.MethodGet, productPath(id), nil, nil, &out)
	return out, err
}

// CreateProduct creates a product in the caller's tenant.
func (c *Client) CreateProduct(ctx context.Context, in ProductInput) (Product, error) {
	var out Product
	err := c.Do(ctx, http.MethodPost, "/api/v4/products", nil, in, &out)
	return out, err
}

// UpdateProduct changes the fields of a product that in carries.
func (c *Client) UpdateProduct(ctx context.Context, id string, in ProductInput) (Product, error) {
	var out Product
	err := c.Do(ctx, http.MethodPut, productPath(id), nil, in, &out)
	return out, err
}

// DeleteProduct deletes a product.
func (c *Client) DeleteProduct(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, productPath(id), nil, nil, nil)
}
