package api

import (
	"context"
	"net/http"
	"net/url"
)

// StampTransfer is the body of POST /api/v4/stamps: move credits of one type from one person of
// the tenant to another (the official client's transferStamps and withdrawStamps; a withdrawal
// is a transfer with the people swapped). Amount is a number on the wire so that 2.5 is a
// validation failure on Amount rather than a parsing error; CreditType nil means stamps (1).
type StampTransfer struct {
	FromPersonID string  `json:"fromPersonId"`
	ToPersonID   string  `json:"toPersonId"`
	Amount       float64 `json:"amount"`
	Comments     *string `json:"comments,omitempty"`
	CreditType   *int    `json:"creditType,omitempty"`
}

// TransferCredits moves credits between two people of the tenant (owner only).
func (c *Client) TransferCredits(ctx context.Context, in StampTransfer) error {
	var ok bool
	return c.Do(ctx, http.MethodPost, "/api/v4/stamps", nil, in, &ok)
}

// StampTransaction is one movement of a tenant's credits (the official client's
// StampTransaction): a grant (transactionType 1, fromPerson null), a transfer (2), a stamp or
// validations used (3, toPerson null), a self-invoicing ticket (4) or credits given back (5).
// FromBalance and ToBalance are the people's balances of that credit type right after it:
// timbra's extension.
type StampTransaction struct {
	ID                string      `json:"id"`
	Consecutive       int64       `json:"consecutive"`
	FromPerson        *UserLookup `json:"fromPerson"`
	ToPerson          *UserLookup `json:"toPerson"`
	Amount            int64       `json:"amount"`
	TransactionType   int         `json:"transactionType"`
	TransactionStatus int         `json:"transactionStatus"`
	ReferenceID       *string     `json:"referenceId"`
	Comments          *string     `json:"comments"`
	CreditType        int         `json:"creditType"`
	FromBalance       *int64      `json:"fromBalance"`
	ToBalance         *int64      `json:"toBalance"`
	CreatedAt         string      `json:"createdAt"`
	UpdatedAt         string      `json:"updatedAt"`
}

// UserLookup is a person of a stamp transaction (the client's UserLookupDto); tin and
// legalName are empty when the person was deleted.
type UserLookup struct {
	ID        string `json:"id"`
	Tin       string `json:"tin"`
	LegalName string `json:"legalName"`
}

// ListStampTransactions reads one page of the credit movements the caller may see.
func (c *Client) ListStampTransactions(ctx context.Context, page, size int) (PagedList[StampTransaction], error) {
	var out PagedList[StampTransaction]
	err := c.Do(ctx, http.MethodGet, "/api/v4/stamps", pageQuery(page, size), nil, &out)
	return out, err
}

// GetStampTransaction reads one credit movement.
func (c *Client) GetStampTransaction(ctx context.Context, id string) (StampTransaction, error) {
	var out StampTransaction
	err := c.Do(ctx, http.MethodGet, "/api/v4/stamps/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}
