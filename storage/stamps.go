package storage

import "time"

var bucketStampTransactions = []byte("stamp_transactions")

// StampTransaction is one movement of a tenant's credits (stamps, validations or tickets): a
// grant (Purchase: FromPersonID empty), a transfer between two people, or a consumption (a
// stamp, a ticket, a validation: ToPersonID empty). FromBalance and ToBalance are the people's
// balances of that credit type after it.
type StampTransaction struct {
	ID                string    `json:"id"`
	TenantID          string    `json:"tenantId"`
	Consecutive       int64     `json:"consecutive"`
	FromPersonID      string    `json:"fromPersonId,omitempty"`
	ToPersonID        string    `json:"toPersonId,omitempty"`
	Amount            int64     `json:"amount"`
	TransactionType   int       `json:"transactionType"`
	TransactionStatus int       `json:"transactionStatus"`
	CreditType        int       `json:"creditType"`
	ReferenceID       string    `json:"referenceId,omitempty"`
	Comments          string    `json:"comments,omitempty"`
	FromBalance       *int64    `json:"fromBalance,omitempty"`
	ToBalance         *int64    `json:"toBalance,omitempty"`
	CreatedAt         time.Time `json:"createdAt"`
}

// StampTransactions is the credit movements of one tenant, in creation order; they are never
// changed or deleted.
type StampTransactions interface {
	// Get returns a transaction, ErrNotFound when the tenant has none with that id.
	Get(id string) (StampTransaction, error)
	// Add saves a new transaction.
	Add(t StampTransaction) error
	// List returns transactions in creation order from offset, at most limit, and the total.
	List(offset, limit int) ([]StampTransaction, int, error)
}

func (t boltTx) StampTransactions(tenantID string) StampTransactions {
	return boltStampTransactions{newListed[StampTransaction](t, bucketStampTransactions, tenantID)}
}

type boltStampTransactions struct{ records[StampTransaction] }

func (s boltStampTransactions) Get(id string) (StampTransaction, error) { return s.get(id) }

func (s boltStampTransactions) Add(v StampTransaction) error {
	v.TenantID = s.tenant
	return s.put(v.ID, v)
}

func (s boltStampTransactions) List(offset, limit int) ([]StampTransaction, int, error) {
	return s.page(offset, limit)
}
