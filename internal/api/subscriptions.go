package api

import (
	"context"
	"net/http"
	"net/url"
)

// Subscription is a tenant's subscription as the operator API shows it
// (GET/PUT /admin/v1/tenants/<tenantKey>/subscription): the features the tenant may use.
// DownloadSeats is how many distinct (RFC, download type) pairs its bulk-download rules may
// cover. UpdatedAt is empty while the tenant has the environment's default.
type Subscription struct {
	TenantKey     string `json:"tenantKey"`
	AutoCfdi      bool   `json:"autoCfdi"`
	DownloadSeats int    `json:"downloadSeats"`
	UpdatedAt     string `json:"updatedAt"`
}

// SubscriptionUpdate is the body of PUT /admin/v1/tenants/<tenantKey>/subscription: a field
// absent or null keeps its value.
type SubscriptionUpdate struct {
	AutoCfdi      *bool `json:"autoCfdi"`
	DownloadSeats *int  `json:"downloadSeats"`
}

// GetSubscription reads a tenant's subscription (operator API).
func (c *Client) GetSubscription(ctx context.Context, tenantKey string) (Subscription, error) {
	var out Subscription
	err := c.Do(ctx, http.MethodGet, "/admin/v1/tenants/"+url.PathEscape(tenantKey)+"/subscription", nil, nil, &out)
	return out, err
}

// SetSubscription changes a tenant's subscription (operator API).
func (c *Client) SetSubscription(ctx context.Context, tenantKey string, in SubscriptionUpdate) (Subscription, error) {
	var out Subscription
	err := c.Do(ctx, http.MethodPut, "/admin/v1/tenants/"+url.PathEscape(tenantKey)+"/subscription", nil, in, &out)
	return out, err
}
