// Package accounts holds who may call the API: tenants and their owners (created by
// `timbra server init` and the operator API), credit grants, API keys (spec 2 §2.4, §4.1) and
// the authentication of every request.
package accounts

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// Environments.
const (
	EnvTest       = "test"
	EnvProduction = "production"
)

// TestAllotment is the amount of each credit type a new owner gets in the test environment, as
// the hosted service gives free test use.
const TestAllotment = 1000

// API key statuses: the spec shows the values 0 and 1 without their meaning; timbra reads 1 as
// active and 0 as suspended (a suspended key authenticates nothing).
const (
	KeySuspended = 0
	KeyActive    = 1
)

// Page size limits of the API key list (spec 1 §8).
const (
	KeysMaxPageSize     = 10
	KeysDefaultPageSize = 10
)

// Service is the accounts area.
type Service struct {
	Store       storage.Store
	Keys        *secrets.Keys
	Environment string
	Now         func() time.Time
}

// keyContext is the sealing context of an API key value.
func keyContext(tenantID, keyID string) string { return "apikey/" + tenantID + "/" + keyID }

// newKey makes an API key record for a person and returns it with its plain value.
func (s *Service) newKey(tenantID, personID string, personIsOwner bool, description *string) (storage.APIKey, string) {
	prefix := prefixTest
	if s.Environment == EnvProduction {
		prefix = prefixLive
	}
	now := s.Now().UTC()
	value := newValue(prefix, now)
	id := ids.New(now)
	return storage.APIKey{
		ID: id, TenantID: tenantID, PersonID: personID, Environment: s.Environment,
		Value: s.Keys.Seal([]byte(value), keyContext(tenantID, id)), Lookup: s.lookupOf(value),
		Status: KeyActive, PersonIsOwner: personIsOwner, Description: description, CreatedAt: now, UpdatedAt: now,
	}, value
}

// CreateTenant makes a tenant with its owner person and the owner's first API key.
func (s *Service) CreateTenant(ctx context.Context, in api.TenantCreate) (api.Credentials, error) {
	email := strings.TrimSpace(in.OwnerEmail)
	if email == "" {
		return api.Credentials{}, apierr.Invalid(apierr.Field("OwnerEmail", "'Owner Email' no debería estar vacío.", in.OwnerEmail, "NotEmptyValidator", nil))
	}
	if f := people.CheckEmail("OwnerEmail", email); f != nil {
		return api.Credentials{}, apierr.Invalid(*f)
	}
	name := strings.TrimSpace(in.OwnerLegalName)
	if name == "" {
		name = email[:max(strings.IndexByte(email, '@'), 0)]
		if name == "" {
			name = email
		}
	}
	now := s.Now().UTC()
	tenantID, personID := ids.New(now), ids.New(now)
	owner := storage.Person{
		ID: personID, TenantID: tenantID, LegalName: name, Email: email, UserTypeID: people.UserTypeTenant,
		IsOwner: true, ManifestStatusID: people.ManifestNotInvited, CreatedAt: now, UpdatedAt: now,
	}
	if s.Environment == EnvTest {
		for _, ct := range []int{api.CreditStamps, api.CreditValidation, api.CreditTickets} {
			if err := people.AddCredits(&owner, ct, TestAllotment, now); err != nil {
				return api.Credentials{}, err
			}
		}
	}
	key, value := s.newKey(tenantID, personID, true, ptr("created with the tenant"))
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Tenants().Put(storage.Tenant{ID: tenantID, OwnerPersonID: personID, CreatedAt: now}); err != nil {
			return err
		}
		if err := tx.People(tenantID).Put(owner); err != nil {
			return err
		}
		for _, b := range owner.Balances { // the test environment's allotment
			t := storage.StampTransaction{Amount: b.Available, TransactionType: people.TxPurchase, CreditType: b.CreditType,
				Comments: "test environment allotment"}
			if err := people.RecordCredits(tx, tenantID, t, nil, &owner, now); err != nil {
				return err
			}
		}
		return tx.APIKeys(tenantID).Put(key)
	})
	if errors.Is(err, storage.ErrEmailTaken) {
		return api.Credentials{}, apierr.Invalid(apierr.Field("OwnerEmail", people.MsgEmailTaken, email, "DuplicateEmail", nil))
	}
	if err != nil {
		return api.Credentials{}, err
	}
	return api.Credentials{TenantKey: tenantID, APIKey: value, PersonID: personID, Environment: s.Environment}, nil
}

// ListTenants lists every tenant with its owner, in creation order.
func (s *Service) ListTenants(ctx context.Context) ([]api.Tenant, error) {
	out := []api.Tenant{}
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		ts, err := tx.Tenants().List()
		if err != nil {
			return err
		}
		for _, t := range ts {
			item := api.Tenant{ID: t.ID, OwnerPersonID: t.OwnerPersonID, CreatedAt: api.FormatAudit(t.CreatedAt)}
			if p, err := tx.People(t.ID).Get(t.OwnerPersonID); err == nil {
				item.OwnerEmail = p.Email
			}
			item.People, _ = tx.People(t.ID).Count()
			out = append(out, item)
		}
		return nil
	})
	return out, err
}

// GrantCredits adds (or withdraws, with a negative amount) credits to a person of a tenant; the
// owner when PersonID is empty.
func (s *Service) GrantCredits(ctx context.Context, tenantKey string, in api.CreditGrant) (api.CreditBalances, error) {
	var fs []api.Failure
	if in.CreditType < 1 {
		fs = append(fs, apierr.Field("CreditType", "'Credit Type' debe ser mayor que 0: 1 timbres, 2 validaciones, 3 tickets.", in.CreditType, "", nil))
	}
	if in.Amount == 0 {
		fs = append(fs, apierr.Field("Amount", "'Amount' no debe ser 0.", in.Amount, "", nil))
	}
	if len(fs) > 0 {
		return api.CreditBalances{}, apierr.Invalid(fs...)
	}
	var out api.CreditBalances
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		t, err := tx.Tenants().Get(tenantKey)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(tenantKey)
		}
		if err != nil {
			return err
		}
		personID := in.PersonID
		if personID == "" {
			personID = t.OwnerPersonID
		}
		p, err := tx.People(t.ID).Get(personID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(personID)
		}
		if err != nil {
			return err
		}
		now := s.Now().UTC()
		if err := people.AddCredits(&p, in.CreditType, in.Amount, now); err != nil {
			return err
		}
		if err := tx.People(t.ID).Put(p); err != nil {
			return err
		}
		grant := storage.StampTransaction{Amount: in.Amount, TransactionType: people.TxPurchase, CreditType: in.CreditType, Comments: "operator grant"}
		if in.Amount < 0 {
			grant.Amount, grant.TransactionType, grant.Comments = -in.Amount, people.TxRollback, "operator withdrawal"
			if err := people.RecordCredits(tx, t.ID, grant, &p, nil, now); err != nil {
				return err
			}
		} else if err := people.RecordCredits(tx, t.ID, grant, nil, &p, now); err != nil {
			return err
		}
		out = api.CreditBalances{TenantKey: t.ID, PersonID: p.ID, Balances: []api.Balance{}}
		for _, b := range p.Balances {
			out.Balances = append(out.Balances, api.Balance{CreditType: b.CreditType, Available: float64(b.Available)})
		}
		return nil
	})
	return out, err
}

// Authenticate finds the caller of a request by its tenant key and API key. Any mismatch is
// the same 401: a key of one tenant never works in another.
func (s *Service) Authenticate(ctx context.Context, tenantKey, apiKey string) (auth.Caller, error) {
	if tenantKey == "" || apiKey == "" {
		return auth.Caller{}, apierr.Unauthorized()
	}
	var ref storage.KeyRef
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		for _, lookup := range s.lookups(apiKey) {
			if ref, err = tx.APIKeyByLookup(lookup); !errors.Is(err, storage.ErrNotFound) {
				return err
			}
		}
		return err
	})
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (ref.TenantID != tenantKey || ref.Status != KeyActive)) {
		return auth.Caller{}, apierr.Unauthorized()
	}
	if err != nil {
		return auth.Caller{}, err
	}
	return auth.Caller{TenantID: ref.TenantID, PersonID: ref.PersonID, APIKeyID: ref.KeyID, IsOwner: ref.PersonIsOwner, Environment: s.Environment}, nil
}

func ptr[T any](v T) *T { return &v }
