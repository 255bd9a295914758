package accounts

import (
	"context"
	"errors"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// Page sizes of the stamp transactions.
const (
	DefaultStampPage = 10
	MaxStampPage     = 50
)

// sees tells whether the caller may read a movement: the owner every one of the tenant,
// another person those that move its own credits.
func sees(c auth.Caller, t storage.StampTransaction) bool {
	return c.IsOwner || (c.PersonID != "" && (t.FromPersonID == c.PersonID || t.ToPersonID == c.PersonID))
}

func lookup(tx storage.Tx, tenant, id string) *api.UserLookup {
	if id == "" {
		return nil
	}
	u := &api.UserLookup{ID: id}
	if p, err := tx.People(tenant).Get(id); err == nil {
		u.LegalName = p.LegalName
		if p.Tin != nil {
			u.Tin = *p.Tin
		}
	}
	return u
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func stampTransaction(tx storage.Tx, t storage.StampTransaction) api.StampTransaction {
	at := api.FormatAudit(t.CreatedAt)
	return api.StampTransaction{ID: t.ID, Consecutive: t.Consecutive, FromPerson: lookup(tx, t.TenantID, t.FromPersonID),
		ToPerson: lookup(tx, t.TenantID, t.ToPersonID), Amount: t.Amount, TransactionType: t.TransactionType,
		TransactionStatus: t.TransactionStatus, ReferenceID: optText(t.ReferenceID), Comments: optText(t.Comments),
		CreditType: t.CreditType, FromBalance: t.FromBalance, ToBalance: t.ToBalance, CreatedAt: at, UpdatedAt: at}
}

// ListStampTransactions answers a page of the tenant's credit movements in the order they
// happened: every one to the owner, to another person those of its own credits.
func (s *Service) ListStampTransactions(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.StampTransaction], error) {
	var out []api.StampTransaction
	total := 0
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		txs := tx.StampTransactions(c.TenantID)
		if c.IsOwner {
			ts, n, err := txs.List((page-1)*size, size)
			if err != nil {
				return err
			}
			total = n
			for _, t := range ts {
				out = append(out, stampTransaction(tx, t))
			}
			return nil
		}
		_, n, err := txs.List(0, 0)
		if err != nil {
			return err
		}
		ts, _, err := txs.List(0, n)
		if err != nil {
			return err
		}
		from := (page - 1) * size
		for _, t := range ts {
			if !sees(c, t) {
				continue
			}
			if total >= from && total < from+size {
				out = append(out, stampTransaction(tx, t))
			}
			total++
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.StampTransaction]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}

// GetStampTransaction answers one credit movement the caller may see.
func (s *Service) GetStampTransaction(ctx context.Context, c auth.Caller, id string) (api.StampTransaction, error) {
	var out api.StampTransaction
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		t, err := tx.StampTransactions(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) || (err == nil && !sees(c, t)) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		out = stampTransaction(tx, t)
		return nil
	})
	return out, err
}
