package validations

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

type checkFunc func(ctx context.Context, in Input, types []string) (map[string]Outcome, error)

func (f checkFunc) Check(ctx context.Context, in Input, types []string) (map[string]Outcome, error) {
	return f(ctx, in, types)
}

func serviceWithBalance(t *testing.T, balance int64) (*Service, auth.Caller) {
	t.Helper()
	st, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := auth.Caller{TenantID: "t1", PersonID: "p1"}
	now := time.Now().UTC()
	p := storage.Person{ID: c.PersonID, TenantID: c.TenantID, Email: "p@example.com", UserTypeID: "C", CreatedAt: now, UpdatedAt: now,
		Balances: []storage.Balance{{CreditType: api.CreditStamps, Available: 5}, {CreditType: api.CreditValidation, Available: balance}}}
	if err := st.Update(context.Background(), func(tx storage.Tx) error { return tx.People(c.TenantID).Put(p) }); err != nil {
		t.Fatal(err)
	}
	return &Service{Store: st, Checker: Random{}}, c
}

func balanceOf(t *testing.T, s *Service, c auth.Caller) (validation, stamps int64) {
	t.Helper()
	err := s.Store.View(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(c.TenantID).Get(c.PersonID)
		for _, b := range p.Balances {
			switch b.CreditType {
			case api.CreditValidation:
				validation = b.Available
			case api.CreditStamps:
				stamps = b.Available
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return
}

func ptr(s string) *string { return &s }

func TestValidateCancelledKeepsTheCharge(t *testing.T) {
	s, c := serviceWithBalance(t, 10)
	ctx, cancel := context.WithCancel(context.Background())
	s.Checker = checkFunc(func(ctx context.Context, in Input, types []string) (map[string]Outcome, error) {
		cancel() // the caller goes away while the checks run
		return Random{}.Check(ctx, in, types)
	})
	res, err := s.Validate(ctx, c, api.SatValidationRequest{TIN: ptr("AAA010101AAA"), ValidationTypes: []*string{ptr(Type69B), ptr(Type69BBis)}})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled: %v %v", res, err)
	}
	if v, st := balanceOf(t, s, c); v != 8 || st != 5 {
		t.Fatalf("balances after a cancelled request: validation %d (want 8), stamps %d", v, st)
	}
}

func TestValidateRefundsATechnicalFailure(t *testing.T) {
	s, c := serviceWithBalance(t, 10)
	s.Checker = checkFunc(func(ctx context.Context, in Input, types []string) (map[string]Outcome, error) {
		if v, _ := balanceOf(t, s, c); v != 9 {
			t.Errorf("not charged before the checks: %d", v)
		}
		return nil, errors.New("boom")
	})
	if _, err := s.Validate(context.Background(), c, api.SatValidationRequest{TIN: ptr("AAA010101AAA"), ValidationTypes: []*string{ptr(Type69B)}}); err == nil {
		t.Fatal("no error")
	}
	if v, _ := balanceOf(t, s, c); v != 10 {
		t.Fatalf("not refunded: %d", v)
	}
}

func TestInactiveTypes(t *testing.T) {
	s, c := serviceWithBalance(t, 10)
	s.Inactive = map[string]bool{TypeCfdiStatus: true}
	if n := len(s.Types()); n != 6 {
		t.Fatalf("types: %d", n)
	}
	for _, err := range []error{second(s.Type(TypeCfdiStatus)), second(s.TypeStatuses(TypeCfdiStatus))} {
		if e, ok := apierr.As(err); !ok || e.Status != 404 {
			t.Fatalf("inactive type: %v", err)
		}
	}
	_, err := s.Validate(context.Background(), c, api.SatValidationRequest{XML: ptr("PHgvPg=="), ValidationTypes: []*string{ptr(TypeCfdiStatus)}})
	if e, ok := apierr.As(err); !ok || e.Status != 400 || e.Failures[0].ErrorMessage != "El tipo de validación 'sat.cfdi.status' no existe o no está activo." {
		t.Fatalf("inactive type requested: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestStatusesData(t *testing.T) {
	for _, ty := range AllTypes() {
		sts := Statuses(ty.ID)
		passing := 0
		for i, s := range sts {
			if s.Passed {
				passing++
			}
			if i > 0 && sts[i-1].Passed == s.Passed && sts[i-1].ID >= s.ID {
				t.Errorf("%s: not sorted: %v", ty.ID, sts)
			}
			if i > 0 && !sts[i-1].Passed && s.Passed {
				t.Errorf("%s: passing after failing", ty.ID)
			}
		}
		if passing == 0 || len(fictitious[ty.ID]) == 0 {
			t.Errorf("%s: %d passing statuses", ty.ID, passing)
		}
		if _, ok := status(ty.ID, Omitido); !ok {
			t.Errorf("%s does not accept Omitido (spec 3 §4.7's table)", ty.ID)
		}
	}
	for id, want := range map[string]string{TypeStructure: Valido, TypeCertificate: Vigente, TypeCfdiSello: Valido, TypeTfdSello: Valido,
		TypeCfdiStatus: Vigente, Type69B: NoListado, Type69BBis: NoListado} {
		if d, ok := status(id, want); !ok || !d.Passed {
			t.Errorf("%s: %s must pass", id, want)
		}
	}
}
