package accounts

import (
	"context"
	"errors"
	"fmt"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// Messages of the API keys endpoints.
const (
	MsgIDsMismatch    = "IDs mismatches"
	MsgPersonNotValid = "La persona especificada no es válida o no pertenece a tu organización."
)

// toAPI shows a stored key with its value opened.
func (s *Service) toAPI(k storage.APIKey) (api.APIKey, error) {
	value, err := s.Keys.Open(k.Value, keyContext(k.TenantID, k.ID))
	if err != nil {
		return api.APIKey{}, fmt.Errorf("api key %s: %w", k.ID, err)
	}
	return api.APIKey{
		ID: k.ID, Environment: k.Environment, APIKeyValue: string(value), PersonID: k.PersonID,
		TenantID: k.TenantID, APIKeyStatus: k.Status, Description: k.Description,
		CreatedAt: api.FormatAudit(k.CreatedAt), UpdatedAt: api.FormatAudit(k.UpdatedAt),
	}, nil
}

// ListKeys answers a page of API keys: all of the tenant for the owner, the caller's own for
// anybody else.
func (s *Service) ListKeys(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.APIKey], error) {
	var items []storage.APIKey
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if c.IsOwner {
			items, total, err = tx.APIKeys(c.TenantID).List((page-1)*size, size)
		} else {
			items, total, err = tx.APIKeys(c.TenantID).ListByPerson(c.PersonID, (page-1)*size, size)
		}
		return err
	})
	if err != nil {
		return api.PagedList[api.APIKey]{}, err
	}
	out := make([]api.APIKey, 0, len(items))
	for _, k := range items {
		v, err := s.toAPI(k)
		if err != nil {
			return api.PagedList[api.APIKey]{}, err
		}
		out = append(out, v)
	}
	return api.NewPage(out, page, size, total), nil
}

// CreateKey makes a new API key for a person (the caller when personId is omitted).
func (s *Service) CreateKey(ctx context.Context, c auth.Caller, in api.APIKeyCreate) (api.APIKey, error) {
	personID := in.PersonID
	if personID == "" {
		personID = c.PersonID
	}
	if err := auth.ManageCredentialsOf(c, personID); err != nil {
		return api.APIKey{}, err
	}
	// The key is made (sealed, its lookup hashed) before the write: the writer runs one
	// transaction at a time, so only what must be in it is. The person is the owner only when
	// the owner makes a key of their own (a tenant has one owner, and only the owner makes keys
	// for others). Batch: concurrent creations share one commit (see BENCHMARKS.md); the function
	// may run twice, and putting the same key again replaces itself.
	key, _ := s.newKey(c.TenantID, personID, c.IsOwner && personID == c.PersonID, in.Description)
	err := s.Store.Batch(ctx, func(tx storage.Tx) error {
		ok, err := tx.People(c.TenantID).Has(personID)
		if err != nil {
			return err
		}
		if !ok {
			return apierr.Invalid(apierr.Field("PersonId", MsgPersonNotValid, in.PersonID, "", nil))
		}
		return tx.APIKeys(c.TenantID).Put(key)
	})
	if err != nil {
		return api.APIKey{}, err
	}
	return s.toAPI(key)
}

// visibleKey reads a key the caller may see, or answers 404.
func visibleKey(tx storage.Tx, c auth.Caller, id string) (storage.APIKey, error) {
	k, err := tx.APIKeys(c.TenantID).Get(id)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && !auth.SeesCredentialsOf(c, k.PersonID)) {
		return storage.APIKey{}, apierr.NotFound(id)
	}
	return k, err
}

// GetKey answers one API key.
func (s *Service) GetKey(ctx context.Context, c auth.Caller, id string) (api.APIKey, error) {
	var k storage.APIKey
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		k, err = visibleKey(tx, c, id)
		return err
	})
	if err != nil {
		return api.APIKey{}, err
	}
	return s.toAPI(k)
}

// UpdateKey changes a key's description and status.
func (s *Service) UpdateKey(ctx context.Context, c auth.Caller, id string, in api.APIKeyUpdate) (api.APIKey, error) {
	if in.ID != "" && in.ID != id {
		return api.APIKey{}, apierr.Invalid(apierr.Field("id", MsgIDsMismatch, in.ID, "", nil))
	}
	if in.APIKeyStatus != nil && *in.APIKeyStatus != KeyActive && *in.APIKeyStatus != KeySuspended {
		return api.APIKey{}, apierr.Invalid(apierr.Field("ApiKeyStatus",
			fmt.Sprintf("'Api Key Status' tiene un rango de valores que no incluye '%d'.", *in.APIKeyStatus), *in.APIKeyStatus, "EnumValidator", nil))
	}
	var k storage.APIKey
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		var err error
		if k, err = visibleKey(tx, c, id); err != nil {
			return err
		}
		k.Description = in.Description
		if in.APIKeyStatus != nil {
			k.Status = *in.APIKeyStatus
		}
		k.UpdatedAt = s.Now().UTC()
		return tx.APIKeys(c.TenantID).Put(k)
	})
	if err != nil {
		return api.APIKey{}, err
	}
	return s.toAPI(k)
}

// DeleteKey revokes a key: it no longer authenticates, lists or reads.
func (s *Service) DeleteKey(ctx context.Context, c auth.Caller, id string) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		if _, err := visibleKey(tx, c, id); err != nil {
			return err
		}
		return tx.APIKeys(c.TenantID).Delete(id)
	})
}
