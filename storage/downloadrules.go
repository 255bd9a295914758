package storage

import "time"

var bucketDownloadRules = []byte("download_rules")

// DownloadRule is a bulk-download rule of a tenant (spec 2 §2.6) as stored. Tin is the RFC of
// the person when the rule was created.
type DownloadRule struct {
	ID                   string    `json:"id"`
	TenantID             string    `json:"tenantId"`
	PersonID             string    `json:"personId"`
	Tin                  string    `json:"tin"`
	Description          string    `json:"description"`
	DownloadRuleStatusID string    `json:"downloadRuleStatusId"`
	SatQueryTypeID       string    `json:"satQueryTypeId"`
	DownloadTypeID       string    `json:"downloadTypeId"`
	SatInvoiceStatusID   string    `json:"satInvoiceStatusId"`
	IsTest               bool      `json:"isTest"`
	CreatedAt            time.Time `json:"createdAt"`
	UpdatedAt            time.Time `json:"updatedAt"`
	// LastRunAt is when the download requests' worker last ran the approved rule (created its
	// Automatic request, LastRequestID); LastRunEnd is the end of the period that request asked
	// for, in Mexico City's wall clock (stored as UTC), where the next period starts.
	LastRunAt     *time.Time `json:"lastRunAt,omitempty"`
	LastRunEnd    *time.Time `json:"lastRunEnd,omitempty"`
	LastRequestID string     `json:"lastRequestId,omitempty"`
	// PausedSince is when the worker found the approved rule's person without a current
	// e.firma, and PausedReason says so: it creates no request (its last run stays) until one
	// is uploaded. Cleared when the rule runs again.
	PausedSince  *time.Time `json:"pausedSince,omitempty"`
	PausedReason string     `json:"pausedReason,omitempty"`
}

// DownloadRules is the download rules of one tenant.
type DownloadRules interface {
	// Get returns a rule, ErrNotFound when the tenant has none with that id.
	Get(id string) (DownloadRule, error)
	// Put saves a rule, replacing what it had.
	Put(r DownloadRule) error
	// Delete removes a rule; absent is not an error.
	Delete(id string) error
	// List returns rules in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]DownloadRule, int, error)
}

// Subscription is what a tenant has subscribed to: the features the operator sets.
type Subscription struct {
	// AutoCfdi is the Auto CFDI invoicing feature (spec 3 §2.5).
	AutoCfdi bool `json:"autoCfdi"`
	// DownloadSeats is how many distinct (RFC, download type) pairs the tenant's bulk-download
	// rules may cover (spec 2 §4.6).
	DownloadSeats int       `json:"downloadSeats"`
	UpdatedAt     time.Time `json:"updatedAt"`
}
