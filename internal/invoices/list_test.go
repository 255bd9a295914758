package invoices

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

// TestListAgreesWithAScan: for filters on none to three fields, in any case, with dates or
// times on either side or both, every page of List holds the invoices a scan of all of them
// finds, in creation order, and its total is theirs; again after cancellations moved some
// between statuses.
func TestListAgreesWithAScan(t *testing.T) {
	st, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := &Service{Store: st}
	c := auth.Caller{TenantID: "tenant", PersonID: "owner", IsOwner: true}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(vs ...string) string { return vs[r.IntN(len(vs))] }
	people := []string{"ana", "beto", "caro"}
	start := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	var all []storage.Invoice
	err = st.Update(ctx, func(tx storage.Tx) error {
		for i := range 120 {
			made := start.Add(time.Duration(i) * 7 * time.Hour)
			issuer, recipient := pick(people...), pick(people...)
			v := storage.Invoice{
				ID: ids.New(made), UUID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), PersonID: "owner",
				IssuerPersonID: &issuer, RecipientPersonID: &recipient,
				IssuerTin: pick("EKU9003173C9", "AAA010101AAA"), RecipientTin: pick("XAXX010101000", "BBB010101BB1", "CCC010101CC1"),
				TypeCode: pick("I", "E", "P"), Status: "Vigente", Series: pick("F", "G", "", "Ñ"),
				Date:      made.In(time.FixedZone("CST", -6*3600)).Format("2006-01-02T15:04:05"),
				CreatedAt: made, UpdatedAt: made,
			}
			v.View = fmt.Appendf(nil, `{"id":%q}`, v.ID)
			all = append(all, v)
			if err := tx.Invoices(c.TenantID).Put(v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// filter is a field of a filter, value the same field of an invoice (0 to 6)
	filter := func(f *ListFilter, field int) *string {
		return []*string{&f.IssuerTin, &f.RecipientTin, &f.IssuerID, &f.RecipientID, &f.TypeCode, &f.Status, &f.Series}[field]
	}
	value := func(v storage.Invoice, field int) string {
		switch field {
		case 2:
			return *v.IssuerPersonID
		case 3:
			return *v.RecipientPersonID
		}
		return []string{v.IssuerTin, v.RecipientTin, "", "", v.TypeCode, v.Status, v.Series}[field]
	}
	check := func(round string) {
		t.Helper()
		for q := range 300 {
			f := ListFilter{Size: 1 + r.IntN(12)}
			var fields []int // those given a value (an empty one filters nothing)
			n := 1 + r.IntN(3)
			if q%7 == 0 {
				n = 0 // dates alone, or nothing
			}
			for _, field := range r.Perm(7)[:n] {
				v := value(all[r.IntN(len(all))], field)
				if r.IntN(2) == 0 {
					v = strings.ToLower(v)
				}
				if v != "" {
					*filter(&f, field) = v
					fields = append(fields, field)
				}
			}
			switch q % 5 {
			case 0:
				f.From, f.To = "2026-10-05", "2026-10-20"
			case 1:
				f.From = "2026-10-15"
			case 2:
				f.To = "2026-10-09"
			case 3:
				if q%3 == 0 { // times: counted as the walk goes
					f.From, f.To = "2026-10-05T12:00:00", "2026-10-20T08:30:00"
				}
			}
			var want []string
			for _, v := range all {
				ok := (f.From == "" || v.Date[:len(f.From)] >= f.From) && (f.To == "" || v.Date[:len(f.To)] <= f.To)
				for _, field := range fields {
					ok = ok && storage.Fold(value(v, field)) == storage.Fold(*filter(&f, field))
				}
				if ok {
					want = append(want, v.ID)
				}
			}
			pages := max(1, (len(want)+f.Size-1)/f.Size)
			f.Page = 1 + r.IntN(pages+1) // one past the last, at times
			page, err := svc.List(ctx, c, f)
			if err != nil {
				t.Fatalf("%s: %+v: %v", round, f, err)
			}
			var got []string
			for _, v := range page.Items {
				got = append(got, v.ID)
			}
			lo, hi := min(len(want), (f.Page-1)*f.Size), min(len(want), f.Page*f.Size)
			if page.TotalCount != len(want) || !slices.Equal(got, want[lo:hi]) {
				t.Fatalf("%s: %+v: total %d, page %v; want %d, %v", round, f, page.TotalCount, got, len(want), want[lo:hi])
			}
		}
	}
	check("stamped")

	err = st.Update(ctx, func(tx storage.Tx) error {
		for i := range all {
			if r.IntN(3) == 0 {
				all[i].Status = pick("Cancelado", storage.StatusCanceling)
				if err := tx.Invoices(c.TenantID).Put(all[i]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("after cancellations")
}
