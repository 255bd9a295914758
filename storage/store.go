package storage

import (
	"context"
	"errors"
)

// Errors every backend returns for the same conditions.
var (
	ErrNotFound   = errors.New("storage: not found")
	ErrEmailTaken = errors.New("storage: email belongs to another person")
	// ErrStop, returned by the function of a walk (Tickets.EachPaid), ends it early, not an error.
	ErrStop = errors.New("storage: stop")
)

// Store is a database: transactions over typed collections.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction; an error rolls everything back.
	Update(ctx context.Context, fn func(Tx) error) error
	// Batch is Update for many small concurrent writes; fn may run more than once, so it must be
	// idempotent.
	Batch(ctx context.Context, fn func(Tx) error) error
	Close() error
}

// Tx is one transaction.
type Tx interface {
	Meta() Meta
	Tenants() Tenants
	People(tenantID string) People
	APIKeys(tenantID string) APIKeys
	// PersonByEmail finds a person of any tenant by normalized email.
	PersonByEmail(email string) (tenantID, personID string, err error)
	// APIKeyByLookup finds an API key of any tenant by the keyed hash of its value.
	APIKeyByLookup(lookup []byte) (KeyRef, error)
	Webhooks(tenantID string) Webhooks
	Events(tenantID string) Events
	Deliveries(tenantID string) Deliveries
	Outbox() Outbox
	// Catalogs is the imported SAT catalogs (shared by every tenant).
	Catalogs() Catalogs
	// Employers and Employees are the employer and employee data of a tenant's people, one of
	// each per person (DeletePersonEmployment removes both with the person).
	Employers(tenantID string) Employers
	Employees(tenantID string) Employees
	// TaxFiles is the certificates and private keys of a tenant's people (DeletePersonTaxFiles
	// soft-deletes them with the person).
	TaxFiles(tenantID string) TaxFiles
	// Products is the products of a tenant (what invoice items by reference name).
	Products(tenantID string) Products
	// Invoices is the stamped invoices of a tenant.
	Invoices(tenantID string) Invoices
	// DownloadRules is the bulk-download rules of a tenant.
	DownloadRules(tenantID string) DownloadRules
	// DownloadRequests is the bulk download requests of a tenant, their packages and items.
	DownloadRequests(tenantID string) DownloadRequests
	// ActiveDownloadRequests names the download requests of every tenant with work left.
	ActiveDownloadRequests() ([]ActiveDownload, error)
	// AutoInvoices is the Auto CFDI configuration of every tenant and the portal-name index.
	AutoInvoices() AutoInvoices
	// Tickets is the Auto CFDI tickets (sale receipts) of a tenant.
	Tickets(tenantID string) Tickets
	// PendingCancellations is the invoices of every tenant in StatusCanceling, kept by
	// Invoices.Put.
	PendingCancellations() ([]PendingCancellation, error)
	// StampTransactions is the credit movements of a tenant (grants, transfers, consumption).
	StampTransactions(tenantID string) StampTransactions
	// Manifests is the signed cartas manifiesto of a tenant's people, every version kept.
	Manifests(tenantID string) Manifests
	// Leases and Nodes are the work several server nodes share, and those nodes (cluster.go).
	Leases() Leases
	Nodes() Nodes
}

// Meta holds database-wide values.
type Meta interface {
	Get(name string) ([]byte, error) // nil when absent
	Put(name string, value []byte) error
}

// Tenants is the collection of tenants.
type Tenants interface {
	Get(id string) (Tenant, error)
	Put(t Tenant) error
	List() ([]Tenant, error)
}

// People is the people of one tenant.
type People interface {
	Get(id string) (Person, error)
	// Has tells whether the tenant has the person, without reading it.
	Has(id string) (bool, error)
	// Put saves the person and its email index; ErrEmailTaken when another person has the email.
	Put(p Person) error
	Delete(id string) error
	// List returns people in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]Person, int, error)
	Count() (int, error)
}

// APIKeys is the API keys of one tenant.
type APIKeys interface {
	Get(id string) (APIKey, error)
	Put(k APIKey) error
	Delete(id string) error
	List(offset, limit int) ([]APIKey, int, error)
	ListByPerson(personID string, offset, limit int) ([]APIKey, int, error)
}

// KeyRef is what authentication needs of an API key, kept in the lookup index.
type KeyRef struct {
	TenantID      string
	KeyID         string
	PersonID      string
	Status        int
	PersonIsOwner bool
}

// NormalizeEmail is the form under which emails are unique: trimmed, letters A to Z folded to
// lower case (spec 2 §2.1; only the case of A to Z is not a change, spec 1 §5.6).
func NormalizeEmail(email string) string {
	b := []byte(trimSpace(email))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func trimSpace(s string) string {
	start, end := 0, len(s)
	for start < end && (s[start] == ' ' || s[start] == '\t' || s[start] == '\n' || s[start] == '\r') {
		start++
	}
	for end > start && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\n' || s[end-1] == '\r') {
		end--
	}
	return s[start:end]
}
