package storage

import "time"

var (
	bucketAutoInvoice = []byte("auto_invoice")
	bucketPortalNames = []byte("portal_names")
)

// AutoInvoice is a tenant's Auto CFDI configuration (spec 3 §2.5): its settings and its portal
// name, with the previous name it keeps reserved. Absent (ErrNotFound) until first saved.
type AutoInvoice struct {
	TenantID                 string     `json:"tenantId"`
	SettingsSaved            bool       `json:"settingsSaved"`
	AllowBillingOutsideMonth bool       `json:"allowBillingOutsideMonth"`
	AllowBillingOutsideYear  bool       `json:"allowBillingOutsideYear"`
	PrivacyNoticeURL         *string    `json:"privacyNoticeUrl"`
	PortalName               string     `json:"portalName,omitempty"`
	PreviousPortalName       string     `json:"previousPortalName,omitempty"`
	PortalNameAssignedAt     *time.Time `json:"portalNameAssignedAt,omitempty"`
	UpdatedAt                time.Time  `json:"updatedAt"`
}

// AutoInvoices is the Auto CFDI configurations of every tenant and the global portal-name index.
type AutoInvoices interface {
	// Get returns a tenant's configuration, ErrNotFound when never saved.
	Get(tenantID string) (AutoInvoice, error)
	// Put saves a tenant's configuration, replacing what it had.
	Put(a AutoInvoice) error
	// PortalNameOwner returns the tenant holding a portal name (current or previous),
	// ErrNotFound when nobody does.
	PortalNameOwner(name string) (string, error)
	// HoldPortalName makes tenantID the holder of name; ReleasePortalName frees it.
	HoldPortalName(name, tenantID string) error
	ReleasePortalName(name string) error
}
