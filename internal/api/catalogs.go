package api

import (
	"context"
	"net/http"
	"net/url"
)

// CatalogsStatus is what a server knows of its catalogs: whether SAT catalogs are imported,
// their version, and which catalogs are incomplete. It is timbra's own (GET /healthz/catalogs).
type CatalogsStatus struct {
	Imported   bool            `json:"imported"`
	Version    string          `json:"version,omitempty"`
	ImportedAt string          `json:"importedAt,omitempty"`
	Hint       string          `json:"hint,omitempty"` // how to import, when something is missing
	Catalogs   []CatalogStatus `json:"catalogs"`
	// TablesWithoutData are the tables the source lists without their records.
	TablesWithoutData []string `json:"tablesWithoutData"`
}

// CatalogStatus is one catalog of GET /api/v4/catalogs or /api/v4/download-catalogs.
type CatalogStatus struct {
	Name     string `json:"name"`
	SAT      string `json:"sat,omitempty"`
	Table    string `json:"table,omitempty"`
	Download bool   `json:"download,omitempty"`
	Records  int    `json:"records"`
	// State is complete, builtin (defined by timbra), missing (nothing imported, or the source
	// lacks the table), incomplete (the source lists the table without records) or empty (the
	// table holds no record of this catalog).
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// ListCatalogs reads the names of GET /api/v4/catalogs.
func (c *Client) ListCatalogs(ctx context.Context) ([]string, error) {
	var out []string
	err := c.Do(ctx, http.MethodGet, "/api/v4/catalogs", nil, nil, &out)
	return out, err
}

// GetCatalogRecord reads one record of a catalog by its id.
func (c *Client) GetCatalogRecord(ctx context.Context, name, id string) (CatalogRecord, error) {
	var out CatalogRecord
	err := c.Do(ctx, http.MethodGet, "/api/v4/catalogs/"+url.PathEscape(name)+"/key/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// SearchCatalog reads one page of the records of a catalog that match term.
func (c *Client) SearchCatalog(ctx context.Context, name, term string, page, size int) (PagedList[CatalogRecord], error) {
	var out PagedList[CatalogRecord]
	err := c.Do(ctx, http.MethodGet, "/api/v4/catalogs/"+url.PathEscape(name)+"/"+url.PathEscape(term), pageQuery(page, size), nil, &out)
	return out, err
}

// ListDownloadCatalogs reads the names of GET /api/v4/download-catalogs.
func (c *Client) ListDownloadCatalogs(ctx context.Context) ([]string, error) {
	var out []string
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-catalogs", nil, nil, &out)
	return out, err
}

// GetDownloadCatalog reads every record of a bulk-download catalog.
func (c *Client) GetDownloadCatalog(ctx context.Context, name string) ([]CatalogRecord, error) {
	var out []CatalogRecord
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-catalogs/"+url.PathEscape(name), nil, nil, &out)
	return out, err
}

// CatalogsStatus reads GET /healthz/catalogs (no credentials needed).
func (c *Client) CatalogsStatus(ctx context.Context) (CatalogsStatus, error) {
	var out CatalogsStatus
	err := c.Do(ctx, http.MethodGet, "/healthz/catalogs", nil, nil, &out)
	return out, err
}
