package employment

import (
	"context"
	"errors"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// kind is what the employer and the employee data differ in; the write and delete flows are
// one (kind's functions are the only difference).
type kind[T any] struct {
	get func(tx storage.Tx, tenantID, personID string) (T, error)
	put func(tx storage.Tx, tenantID string, v T) error
	del func(tx storage.Tx, tenantID, personID string) error
	// audit gives the record's assigned fields.
	audit func(v *T) (id, tenantID *string, createdAt, updatedAt *time.Time)
	// exists is the failure of a POST when the person already has data.
	exists func(personID string) api.Failure
	// refs checks, inside the transaction, what the record names (nil: nothing).
	refs func(tx storage.Tx, c auth.Caller, v T) ([]api.Failure, error)
}

func (k kind[T]) has(c auth.Caller, personID string) func(storage.Tx) (bool, error) {
	return func(tx storage.Tx) (bool, error) {
		_, err := k.get(tx, c.TenantID, personID)
		if errors.Is(err, storage.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
}

// write saves v (already checked, with its body failures fs) for personID: create is POST (a
// person that already has data fails with exists, with the other failures), otherwise PUT (the
// data must exist: noData). Person absent is 404 and the owner rule 403, before any validation.
func write[T any](s *Service, ctx context.Context, c auth.Caller, personID string, k kind[T], noData error, create bool,
	check func() (T, []api.Failure, error)) (T, error) {
	var zero T
	var has func(storage.Tx) (bool, error)
	if !create {
		has = k.has(c, personID)
	}
	if err := s.modifiable(ctx, c, personID, has, noData); err != nil {
		return zero, err
	}
	v, fs, err := check()
	if err != nil {
		return zero, err
	}
	now := s.now()
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		if _, err := person(tx, c, personID); err != nil {
			return err
		}
		old, err := k.get(tx, c.TenantID, personID)
		exists := err == nil
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if !create && !exists {
			return noData
		}
		var pre []api.Failure // fresh on every run
		if create && exists {
			pre = append(pre, k.exists(personID))
		}
		if k.refs != nil {
			more, err := k.refs(tx, c, v)
			if err != nil {
				return err
			}
			pre = append(pre, more...)
		}
		if all := append(pre, fs...); len(all) > 0 {
			return apierr.Invalid(all...)
		}
		id, tenant, createdAt, updatedAt := k.audit(&v)
		if create {
			*id, *createdAt = ids.New(now), now
		} else {
			oid, _, ocreated, _ := k.audit(&old)
			*id, *createdAt = *oid, *ocreated
		}
		*tenant, *updatedAt = c.TenantID, now
		return k.put(tx, c.TenantID, v)
	})
	if err != nil {
		return zero, err
	}
	return v, nil
}

// remove deletes the data of personID: 404 when the person is absent, 403 by the owner rule,
// noData when there is none.
func remove[T any](s *Service, ctx context.Context, c auth.Caller, personID string, k kind[T], noData error) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		p, err := person(tx, c, personID)
		if err != nil {
			return err
		}
		if err := auth.ModifyPerson(c, personID, p.IsOwner); err != nil {
			return err
		}
		if ok, err := k.has(c, personID)(tx); err != nil {
			return err
		} else if !ok {
			return noData
		}
		return k.del(tx, c.TenantID, personID)
	})
}
