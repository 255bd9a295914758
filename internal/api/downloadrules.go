package api

import (
	"context"
	"net/http"
	"net/url"
)

// DownloadRule is a bulk-download rule (spec 2 §2.6). The expanded records are filled in list
// and get answers and null in create and update answers.
type DownloadRule struct {
	ID                   string         `json:"id"`
	PersonID             string         `json:"personId"`
	Person               *Person        `json:"person"`
	Tin                  string         `json:"tin"`
	Description          string         `json:"description"`
	DownloadRuleStatusID string         `json:"downloadRuleStatusId"`
	DownloadRuleStatus   *CatalogRecord `json:"downloadRuleStatus"`
	SatQueryTypeID       string         `json:"satQueryTypeId"`
	SatQueryType         *CatalogRecord `json:"satQueryType"`
	DownloadTypeID       string         `json:"downloadTypeId"`
	DownloadType         *CatalogRecord `json:"downloadType"`
	SatInvoiceStatusID   string         `json:"satInvoiceStatusId"`
	SatInvoiceStatus     *CatalogRecord `json:"satInvoiceStatus"`
	IsTest               bool           `json:"isTest"`
	CreatedAt            string         `json:"createdAt"`
	UpdatedAt            string         `json:"updatedAt"`
	// PausedReason and PausedSince (timbra's extension) say why an approved rule creates no
	// requests now (its person has no current e.firma) and since when; absent while it runs.
	PausedReason *string `json:"pausedReason,omitempty"`
	PausedSince  *string `json:"pausedSince,omitempty"`
}

// DownloadRuleInput is the body of POST (every field but id) and PUT (id and description) of
// /api/v4/download-rules.
type DownloadRuleInput struct {
	ID                 *string `json:"id,omitempty"`
	PersonID           *string `json:"personId,omitempty"`
	Description        *string `json:"description,omitempty"`
	SatQueryTypeID     *string `json:"satQueryTypeId,omitempty"`
	DownloadTypeID     *string `json:"downloadTypeId,omitempty"`
	SatInvoiceStatusID *string `json:"satInvoiceStatusId,omitempty"`
}

// DownloadRuleStatusUpdate is the body of the operator's
// PUT /admin/v1/tenants/<tenantKey>/download-rules/<id>/status.
type DownloadRuleStatusUpdate struct {
	DownloadRuleStatusID string `json:"downloadRuleStatusId"`
}

// ListDownloadRules reads one page of the tenant's download rules.
func (c *Client) ListDownloadRules(ctx context.Context, page, size int) (PagedList[DownloadRule], error) {
	var out PagedList[DownloadRule]
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-rules", pageQuery(page, size), nil, &out)
	return out, err
}

// GetDownloadRule reads one download rule.
func (c *Client) GetDownloadRule(ctx context.Context, id string) (DownloadRule, error) {
	var out DownloadRule
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-rules/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// CreateDownloadRule creates a download rule.
func (c *Client) CreateDownloadRule(ctx context.Context, in DownloadRuleInput) (DownloadRule, error) {
	var out DownloadRule
	err := c.Do(ctx, http.MethodPost, "/api/v4/download-rules", nil, in, &out)
	return out, err
}

// UpdateDownloadRule changes the description of a download rule.
func (c *Client) UpdateDownloadRule(ctx context.Context, id string, in DownloadRuleInput) (DownloadRule, error) {
	var out DownloadRule
	err := c.Do(ctx, http.MethodPut, "/api/v4/download-rules/"+url.PathEscape(id), nil, in, &out)
	return out, err
}

// DeleteDownloadRule deletes a download rule.
func (c *Client) DeleteDownloadRule(ctx context.Context, id string) error {
	var out bool
	return c.Do(ctx, http.MethodDelete, "/api/v4/download-rules/"+url.PathEscape(id), nil, nil, &out)
}

// SetDownloadRuleStatus approves (2) or rejects (-1) a tenant's download rule (operator API).
func (c *Client) SetDownloadRuleStatus(ctx context.Context, tenantKey, id, status string) (DownloadRule, error) {
	var out DownloadRule
	err := c.Do(ctx, http.MethodPut, "/admin/v1/tenants/"+url.PathEscape(tenantKey)+"/download-rules/"+url.PathEscape(id)+"/status",
		nil, DownloadRuleStatusUpdate{DownloadRuleStatusID: status}, &out)
	return out, err
}
