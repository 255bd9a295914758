package validations

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// TestPostgresCreditsFromTwoNodes: two server nodes on one database spend one person's
// validation credits at once, 2 × 40 requests for 30 credits: exactly 30 are served, the others
// refused with the spec's 403, and the balance ends at 0, never below.
func TestPostgresCreditsFromTwoNodes(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	c := auth.Caller{TenantID: "t1", PersonID: "p1"}
	var nodes []*Service
	for range 2 {
		st, err := storage.OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		nodes = append(nodes, &Service{Store: st, Checker: Random{}})
	}
	now := time.Now().UTC()
	p := storage.Person{ID: c.PersonID, TenantID: c.TenantID, Email: "p@example.com", UserTypeID: "C", CreatedAt: now, UpdatedAt: now,
		Balances: []storage.Balance{{CreditType: api.CreditValidation, Available: 30}}}
	if err := nodes[0].Store.Update(ctx, func(tx storage.Tx) error { return tx.People(c.TenantID).Put(p) }); err != nil {
		t.Fatal(err)
	}
	var served, refused atomic.Int64
	var wg sync.WaitGroup
	for _, s := range nodes {
		for range 40 {
			wg.Go(func() {
				_, err := s.Validate(ctx, c, api.SatValidationRequest{TIN: ptr("AAA010101AAA"), ValidationTypes: []*string{ptr(Type69B)}})
				if e, ok := apierr.As(err); ok && e.Status == 403 {
					refused.Add(1)
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				served.Add(1)
			})
		}
	}
	wg.Wait()
	if v, _ := balanceOf(t, nodes[1], c); served.Load() != 30 || refused.Load() != 50 || v != 0 {
		t.Fatalf("%d served, %d refused, balance %d; want 30, 50, 0", served.Load(), refused.Load(), v)
	}
}
