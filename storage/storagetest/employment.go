package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunEmployment checks employer and employee data: one of each per person, scoped to the
// tenant, replaced by Put, and removed with the person by DeletePersonEmployment.
func RunEmployment(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("OnePerPersonScopedToTenant", func(t *testing.T) { testEmploymentScoped(t, open(t)) })
	t.Run("DeletedWithThePerson", func(t *testing.T) { testEmploymentDeleted(t, open(t)) })
}

func employer(personID, registration string) storage.Employer {
	now := time.Now().UTC().Truncate(time.Millisecond)
	amount := "999999999999.999999"
	return storage.Employer{ID: id(), PersonID: personID, EmployerRegistration: registration, OwnResourceAmount: &amount, CreatedAt: now, UpdatedAt: now}
}

func employee(personID, employerID, number string) storage.Employee {
	now := time.Now().UTC().Truncate(time.Millisecond)
	return storage.Employee{ID: id(), EmployeePersonID: personID, EmployerPersonID: employerID, EmployeeNumber: number,
		LaborRelationStartDate: "2024-01-15", Seniority: "P52W", BaseSalaryForContributions: "0.1",
		IntegratedDailySalary: "500", CreatedAt: now, UpdatedAt: now}
}

func testEmploymentScoped(t *testing.T, s storage.Store) {
	a, b, p := id(), id(), id()
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Employers(a).Put(employer(p, "first")); err != nil {
			return err
		}
		if err := tx.Employers(a).Put(employer(p, "second")); err != nil { // replaces
			return err
		}
		return tx.Employees(a).Put(employee(p, p, "E1"))
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		e, err := tx.Employers(a).Get(p)
		if err != nil || e.EmployerRegistration != "second" || e.TenantID != a || e.OwnResourceAmount == nil || *e.OwnResourceAmount != "999999999999.999999" {
			return fmt.Errorf("employer = %+v, %v; want the second one, its tenant and the exact amount", e, err)
		}
		w, err := tx.Employees(a).Get(p)
		if err != nil || w.EmployeeNumber != "E1" || w.BaseSalaryForContributions != "0.1" || w.TenantID != a {
			return fmt.Errorf("employee = %+v, %v", w, err)
		}
		if _, err := tx.Employers(b).Get(p); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("employer data of tenant a visible in tenant b: %v", err)
		}
		if _, err := tx.Employees(b).Get(p); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("employee data of tenant a visible in tenant b: %v", err)
		}
		if _, err := tx.Employers(a).Get(id()); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("employer data of a person without it: %v", err)
		}
		return nil
	}))
	// deleting what is absent is not an error
	must(t, s.Update(ctx, func(tx storage.Tx) error { return storage.DeletePersonEmployment(tx, b, p) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Employers(a).Get(p); err != nil {
			return fmt.Errorf("a delete in tenant b removed tenant a's employer data: %v", err)
		}
		return nil
	}))
}

func testEmploymentDeleted(t *testing.T, s storage.Store) {
	tenant := id()
	p, other := person(tenant, "emp@a.test"), person(tenant, "other@a.test")
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for _, x := range []storage.Person{p, other} {
			if err := tx.People(tenant).Put(x); err != nil {
				return err
			}
			if err := tx.Employers(tenant).Put(employer(x.ID, "R-"+x.ID)); err != nil {
				return err
			}
			if err := tx.Employees(tenant).Put(employee(x.ID, p.ID, "N-"+x.ID)); err != nil {
				return err
			}
		}
		return nil
	}))
	// a rolled-back person delete keeps everything
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx storage.Tx) error {
		if err := storage.DeletePersonEmployment(tx, tenant, p.ID); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v", err)
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Employers(tenant).Get(p.ID); err != nil {
			return fmt.Errorf("a failed transaction deleted employer data: %v", err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := storage.DeletePersonEmployment(tx, tenant, p.ID); err != nil {
			return err
		}
		return tx.People(tenant).Delete(p.ID)
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Employers(tenant).Get(p.ID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("employer data outlived its person: %v", err)
		}
		if _, err := tx.Employees(tenant).Get(p.ID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("employee data outlived its person: %v", err)
		}
		if _, err := tx.Employers(tenant).Get(other.ID); err != nil {
			return fmt.Errorf("another person's employer data went too: %v", err)
		}
		if _, err := tx.Employees(tenant).Get(other.ID); err != nil {
			return fmt.Errorf("another person's employee data went too: %v", err)
		}
		return nil
	}))
}
