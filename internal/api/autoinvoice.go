package api

import (
	"context"
	"net/http"
	"net/url"
)

// AutoInvoiceSettings is the Auto CFDI settings (spec 3 §2.5), read and written.
type AutoInvoiceSettings struct {
	AllowBillingOutsideMonth bool    `json:"allowBillingOutsideMonth"`
	AllowBillingOutsideYear  bool    `json:"allowBillingOutsideYear"`
	PrivacyNoticeURL         *string `json:"privacyNoticeUrl"`
}

// AutoInvoiceSettingsInput is a PUT body: unsent fields take their defaults.
type AutoInvoiceSettingsInput struct {
	AllowBillingOutsideMonth *bool   `json:"allowBillingOutsideMonth"`
	AllowBillingOutsideYear  *bool   `json:"allowBillingOutsideYear"`
	PrivacyNoticeURL         *string `json:"privacyNoticeUrl"`
}

// PortalName is the portal name record; every field is null while the tenant has none.
type PortalName struct {
	Name                *string `json:"name"`
	AssignedAt          *string `json:"assignedAt"`
	NextChangeAllowedAt *string `json:"nextChangeAllowedAt"`
}

// PortalNameInput is the PUT body of the portal name.
type PortalNameInput struct {
	Name *string `json:"name"`
}

// PortalNameAvailability answers whether a portal name can be taken.
type PortalNameAvailability struct {
	Name      string  `json:"name"`
	Available bool    `json:"available"`
	Reason    *string `json:"reason"`
}

// GetAutoInvoiceSettings reads the Auto CFDI settings.
func (c *Client) GetAutoInvoiceSettings(ctx context.Context) (AutoInvoiceSettings, error) {
	var out AutoInvoiceSettings
	err := c.Do(ctx, http.MethodGet, "/api/v4/auto-invoice/settings", nil, nil, &out)
	return out, err
}

// SetAutoInvoiceSettings replaces the Auto CFDI settings.
func (c *Client) SetAutoInvoiceSettings(ctx context.Context, in AutoInvoiceSettingsInput) (AutoInvoiceSettings, error) {
	var out AutoInvoiceSettings
	err := c.Do(ctx, http.MethodPut, "/api/v4/auto-invoice/settings", nil, in, &out)
	return out, err
}

// GetPortalName reads the portal name record.
func (c *Client) GetPortalName(ctx context.Context) (PortalName, error) {
	var out PortalName
	err := c.Do(ctx, http.MethodGet, "/api/v4/auto-invoice/portal-name", nil, nil, &out)
	return out, err
}

// PortalNameAvailable asks whether a portal name can be taken.
func (c *Client) PortalNameAvailable(ctx context.Context, name string) (PortalNameAvailability, error) {
	var out PortalNameAvailability
	err := c.Do(ctx, http.MethodGet, "/api/v4/auto-invoice/portal-names/availability", url.Values{"name": {name}}, nil, &out)
	return out, err
}

// SetPortalName changes the portal name.
func (c *Client) SetPortalName(ctx context.Context, name string) (PortalName, error) {
	var out PortalName
	err := c.Do(ctx, http.MethodPut, "/api/v4/auto-invoice/portal-name", nil, PortalNameInput{Name: &name}, &out)
	return out, err
}
