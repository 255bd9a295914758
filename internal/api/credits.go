package api

import (
	"context"
	"net/http"
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
