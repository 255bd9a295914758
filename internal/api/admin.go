package api

// The operator API under /admin/v1 is timbra's own (the spec leaves tenant creation and credit
// grants unshown). It is guarded by the operator token given to the server at start.

// TenantCreate is the body of POST /admin/v1/tenants.
type TenantCreate struct {
	OwnerEmail     string `json:"ownerEmail"`
	OwnerLegalName string `json:"ownerLegalName"`
}

// Credentials are what a new tenant needs to call the API: printed by `timbra server init` and
// answered by POST /admin/v1/tenants.
type Credentials struct {
	TenantKey   string `json:"tenantKey"`
	APIKey      string `json:"apiKey"`
	PersonID    string `json:"personId"`
	Environment string `json:"environment"`
}

// Tenant is a tenant as the operator API lists it.
type Tenant struct {
	ID            string `json:"id"`
	OwnerPersonID string `json:"ownerPersonId"`
	OwnerEmail    string `json:"ownerEmail"`
	People        int    `json:"people"`
	CreatedAt     string `json:"createdAt"`
}

// CreditGrant is the body of POST /admin/v1/tenants/<tenantKey>/credits. PersonID empty means the
// owner. Amount may be negative to withdraw; a balance never goes below zero.
type CreditGrant struct {
	PersonID   string `json:"personId"`
	CreditType int    `json:"creditType"`
	Amount     int64  `json:"amount"`
}

// CreditBalances is the answer of a grant: the person's balances after it.
type CreditBalances struct {
	TenantKey string    `json:"tenantKey"`
	PersonID  string    `json:"personId"`
	Balances  []Balance `json:"balances"`
}

// Health is the answer of GET /healthz.
type Health struct {
	Status      string `json:"status"`
	Version     string `json:"version"`
	Environment string `json:"environment"`
	// Database is the backend that answered: "bbolt" or "postgresql".
	Database string `json:"database"`
	// Node names the server among the nodes of a shared database; absent alone.
	Node string `json:"node,omitempty"`
}
