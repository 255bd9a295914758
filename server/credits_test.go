package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// personBalances reads a person through the API: availableBalance, availableValidationBalance
// and balances (type → available).
func personBalances(t *testing.T, f *fixture, id string) (float64, float64, map[int]float64) {
	t.Helper()
	r := f.do("GET", "/api/v4/people/"+id, "")
	var p api.Person
	if r.status != 200 || json.Unmarshal(r.env.Data, &p) != nil {
		t.Fatalf("get person: %s", r.raw)
	}
	m := map[int]float64{}
	for i, b := range p.Balances {
		if i > 0 && p.Balances[i-1].CreditType >= b.CreditType {
			t.Fatalf("balances not sorted by creditType: %+v", p.Balances)
		}
		m[b.CreditType] = b.Available
	}
	return p.AvailableBalance, p.AvailableValidationBalance, m
}

func TestCreditsTransferRules(t *testing.T) {
	f := newFixture(t)
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner-b@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	owner := ownerMember(t, f, f.creds)
	p := addMemberDirect(t, f, owner.tenant, owner.person, "p@example.com", storage.Balance{CreditType: api.CreditStamps, Available: 10})
	q := addMemberDirect(t, f, owner.tenant, owner.person, "q@example.com")
	pb := addMemberDirect(t, f, other.TenantKey, other.PersonID, "pb@example.com", storage.Balance{CreditType: api.CreditStamps, Available: 10})

	body := func(from, to string, rest string) string {
		return `{"fromPersonId":"` + from + `","toPersonId":"` + to + `"` + rest + `}`
	}
	long := strings.Repeat("ñ", 101)
	notFound := func(id string) string { return "No such resource for the given Id: " + id }
	cases := []struct {
		name     string
		as       member
		body     string
		status   int
		details  string // of a 403 or 404
		property string // of a 400
		message  string
	}{
		{"a non-owner moves own credits", p, body(p.person, q.person, `,"amount":1`), 403, auth.MsgOnlyOwnerTransferCredits, "", ""},
		{"a non-owner takes the owner's credits", p, body(owner.person, p.person, `,"amount":1`), 403, auth.MsgOnlyOwnerTransferCredits, "", ""},
		{"a non-owner with a bad body still gets the 403", p, body("", "", `,"amount":-1`), 403, auth.MsgOnlyOwnerTransferCredits, "", ""},
		{"no source", owner, body("", q.person, `,"amount":1`), 400, "", "FromPersonId", accounts.MsgTransferFromRequired},
		{"no destination", owner, body(owner.person, "", `,"amount":1`), 400, "", "ToPersonId", accounts.MsgTransferToRequired},
		{"the same person", owner, body(owner.person, owner.person, `,"amount":1`), 400, "", "ToPersonId", accounts.MsgTransferSamePerson},
		{"no amount", owner, body(owner.person, q.person, ``), 400, "", "Amount", accounts.MsgTransferAmountPositive},
		{"zero amount", owner, body(owner.person, q.person, `,"amount":0`), 400, "", "Amount", accounts.MsgTransferAmountPositive},
		{"negative amount", owner, body(owner.person, q.person, `,"amount":-5`), 400, "", "Amount", accounts.MsgTransferAmountPositive},
		{"fractional amount", owner, body(owner.person, q.person, `,"amount":2.5`), 400, "", "Amount", accounts.MsgTransferAmountWhole},
		{"amount as a string", owner, body(owner.person, q.person, `,"amount":"5"`), 400, "", "$.amount", ""},
		{"unknown credit type", owner, body(owner.person, q.person, `,"amount":1,"creditType":4`), 400, "", "CreditType", fmt.Sprintf(accounts.MsgTransferCreditTypeFmt, 4)},
		{"credit type 0", owner, body(owner.person, q.person, `,"amount":1,"creditType":0`), 400, "", "CreditType", fmt.Sprintf(accounts.MsgTransferCreditTypeFmt, 0)},
		{"comments too long", owner, body(owner.person, q.person, `,"amount":1,"comments":"`+long+`"`), 400, "", "Comments", fmt.Sprintf(apierr.MsgMaxLength, "Comments", 100, 101)},
		{"absent source", owner, body("nobody", q.person, `,"amount":1`), 404, notFound("nobody"), "", ""},
		{"absent destination", owner, body(owner.person, "nobody", `,"amount":1`), 404, notFound("nobody"), "", ""},
		{"source in another tenant", owner, body(pb.person, owner.person, `,"amount":1`), 404, notFound(pb.person), "", ""},
		{"destination in another tenant", owner, body(owner.person, pb.person, `,"amount":1`), 404, notFound(pb.person), "", ""},
		{"more than the source has", owner, body(p.person, q.person, `,"amount":11`), 400, "", "Amount", fmt.Sprintf(accounts.MsgTransferInsufficientFmt, 1, 10, "11")},
		{"a type the source never had", owner, body(p.person, q.person, `,"amount":1,"creditType":2`), 400, "", "Amount", fmt.Sprintf(accounts.MsgTransferInsufficientFmt, 2, 0, "1")},
		{"a huge amount", owner, body(owner.person, q.person, `,"amount":1e300`), 400, "", "Amount", fmt.Sprintf(accounts.MsgTransferInsufficientFmt, 1, 1000, "1"+strings.Repeat("0", 300))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do("POST", "/api/v4/stamps", c.body, c.as.headers()...)
			switch {
			case r.status != c.status:
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.raw)
			case c.status == 400 && c.message != "":
				expectFailure(t, r, c.property, c.message)
				if fs := failures(t, r); len(fs) != 1 {
					t.Fatalf("want one failure: %s", r.raw)
				}
			case c.status == 400:
				if fs := failures(t, r); fs[0].PropertyName != c.property {
					t.Fatalf("failure on %s, want %s", fs[0].PropertyName, c.property)
				}
			default:
				if r.env.Details != c.details || r.env.Succeeded || string(r.env.Data) != "null" {
					t.Fatalf("envelope: %s", r.raw)
				}
			}
		})
	}
	// every failure in one answer
	r := f.do("POST", "/api/v4/stamps", `{"amount":0.5,"creditType":9}`)
	if fs := failures(t, r); len(fs) != 4 {
		t.Fatalf("all failures in one answer: %s", r.raw)
	}
	// nothing moved
	if a, v, _ := personBalances(t, f, owner.person); a != 1000 || v != 1000 {
		t.Fatalf("owner after failures: %v %v", a, v)
	}
	if a, _, _ := personBalances(t, f, p.person); a != 10 {
		t.Fatalf("p after failures: %v", a)
	}

	// stamps (the default type) from the owner to p; both balances change, and only type 1
	r = f.do("POST", "/api/v4/stamps", body(owner.person, p.person, `,"amount":100,"comments":"first batch"`))
	if r.status != 200 || string(r.env.Data) != "true" || !r.env.Succeeded {
		t.Fatalf("transfer: %s", r.raw)
	}
	a, v, bs := personBalances(t, f, owner.person)
	if a != 900 || v != 1000 || bs[1] != 900 || bs[2] != 1000 || bs[3] != 1000 {
		t.Fatalf("owner after: %v %v %v", a, v, bs)
	}
	a, v, bs = personBalances(t, f, p.person)
	if a != 110 || v != 0 || bs[1] != 110 || len(bs) != 1 {
		t.Fatalf("p after: %v %v %v", a, v, bs)
	}
	// validation credits (type 2) to q, who never had any; then the owner moves them between two
	// other people, and withdraws (a transfer with the people swapped) all of them
	for _, step := range []string{
		body(owner.person, q.person, `,"amount":7,"creditType":2`),
		body(q.person, p.person, `,"amount":3,"creditType":2`),
		body(p.person, owner.person, `,"amount":3,"creditType":2`),
		body(q.person, owner.person, `,"amount":4,"creditType":2,"comments":null`),
	} {
		if r := f.do("POST", "/api/v4/stamps", step); r.status != 200 {
			t.Fatalf("%s: %s", step, r.raw)
		}
	}
	a, v, _ = personBalances(t, f, owner.person)
	if a != 900 || v != 1000 {
		t.Fatalf("owner after the round trip: %v %v", a, v)
	}
	_, v, bs = personBalances(t, f, q.person)
	if v != 0 || len(bs) != 1 || bs[2] != 0 {
		t.Fatalf("q after the round trip: %v %v", v, bs)
	}
	// the whole balance may move
	if r := f.do("POST", "/api/v4/stamps", body(p.person, q.person, `,"amount":110`)); r.status != 200 {
		t.Fatalf("whole balance: %s", r.raw)
	}
	if a, _, _ := personBalances(t, f, p.person); a != 0 {
		t.Fatalf("p after moving everything: %v", a)
	}
	// the other tenant was not touched
	if pbNow, err := f.srv.people.Get(context.Background(), auth.Caller{TenantID: pb.tenant, PersonID: pb.person}, pb.person); err != nil || pbNow.AvailableBalance != 10 {
		t.Fatalf("the other tenant's person changed: %v %+v", err, pbNow.Balances)
	}
}

// TestCreditsTransferConcurrent runs many transfers in both directions at once: some fail for
// lack of credits, none loses or creates any, and the balances are what the successful ones add.
func TestCreditsTransferConcurrent(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	p := addMemberDirect(t, f, owner.tenant, owner.person, "p@example.com")
	ownerCaller := auth.Caller{TenantID: owner.tenant, PersonID: owner.person, IsOwner: true}
	const n = 200
	var (
		wg           sync.WaitGroup
		mu           sync.Mutex
		toP, fromP   int
		insufficient int
		unexpected   []error
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := api.StampTransfer{FromPersonID: owner.person, ToPersonID: p.person, Amount: 3}
			if i%2 == 1 {
				in = api.StampTransfer{FromPersonID: p.person, ToPersonID: owner.person, Amount: 5}
			}
			err := f.srv.Accounts().TransferCredits(context.Background(), ownerCaller, in)
			mu.Lock()
			defer mu.Unlock()
			if e, ok := apierr.As(err); ok && e.Status == 400 && e.Failures[0].PropertyName == "Amount" {
				insufficient++
			} else if err != nil {
				unexpected = append(unexpected, err)
			} else if i%2 == 0 {
				toP++
			} else {
				fromP++
			}
		}()
	}
	wg.Wait()
	if len(unexpected) > 0 {
		t.Fatalf("unexpected errors: %v", unexpected)
	}
	if toP != n/2 {
		t.Fatalf("%d of %d transfers from the owner succeeded", toP, n/2)
	}
	ownerStamps, ownerValidation, _ := personBalances(t, f, owner.person)
	pStamps, pValidation, _ := personBalances(t, f, p.person)
	if ownerStamps+pStamps != 1000 || ownerValidation != 1000 || pValidation != 0 {
		t.Fatalf("credits lost or created: owner %v + p %v", ownerStamps, pStamps)
	}
	if want := float64(3*toP - 5*fromP); pStamps != want || fromP+insufficient != n/2 {
		t.Fatalf("p has %v, want %v (%d in, %d out, %d refused)", pStamps, want, toP, fromP, insufficient)
	}
}

// TestStampTransactions: the tenant's credit movements as the official client's stamps.getList
// and getById read them: the test allotment, a transfer with its comment, an operator's grant and
// withdrawal, each with the balances after it; a person sees only those of its own credits.
func TestStampTransactions(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	p := addMemberDirect(t, f, owner.tenant, owner.person, "p@example.com")
	r := f.do("POST", "/api/v4/stamps", `{"fromPersonId":"`+owner.person+`","toPersonId":"`+p.person+`","amount":7,"comments":"para la sucursal"}`, owner.headers()...)
	if r.status != 200 {
		t.Fatalf("transfer: %s", r.raw)
	}
	for _, body := range []string{`{"personId":"` + p.person + `","creditType":1,"amount":5}`, `{"personId":"` + p.person + `","creditType":1,"amount":-2}`} {
		if r := f.do("POST", "/admin/v1/tenants/"+owner.tenant+"/credits", body, "Authorization", "Bearer op-token"); r.status != 200 {
			t.Fatalf("grant: %s", r.raw)
		}
	}
	list := func(m member, query string) api.PagedList[api.StampTransaction] {
		t.Helper()
		var l api.PagedList[api.StampTransaction]
		r := f.do("GET", "/api/v4/stamps"+query, "", m.headers()...)
		if r.status != 200 || json.Unmarshal(r.env.Data, &l) != nil {
			t.Fatalf("list: %s", r.raw)
		}
		return l
	}
	all := list(owner, "?pageNumber=1&pageSize=50")
	if all.TotalCount != 6 || len(all.Items) != 6 {
		t.Fatalf("the owner's list: %+v", all)
	}
	for i, want := range []struct {
		typ, credit    int
		amount         int64
		from, to       string
		fromBal, toBal int64
	}{
		{1, 1, 1000, "", owner.person, 0, 1000}, {1, 2, 1000, "", owner.person, 0, 1000}, {1, 3, 1000, "", owner.person, 0, 1000},
		{2, 1, 7, owner.person, p.person, 993, 7}, {1, 1, 5, "", p.person, 0, 12}, {5, 1, 2, p.person, "", 10, 0},
	} {
		got := all.Items[i]
		if got.Consecutive != int64(i+1) || got.TransactionType != want.typ || got.CreditType != want.credit || got.Amount != want.amount || got.TransactionStatus != 1 {
			t.Errorf("%d: %+v", i, got)
		}
		if (want.from == "") != (got.FromPerson == nil) || (got.FromPerson != nil && (got.FromPerson.ID != want.from || *got.FromBalance != want.fromBal)) {
			t.Errorf("%d from: %+v", i, got)
		}
		if (want.to == "") != (got.ToPerson == nil) || (got.ToPerson != nil && (got.ToPerson.ID != want.to || *got.ToBalance != want.toBal)) {
			t.Errorf("%d to: %+v", i, got)
		}
	}
	if c := all.Items[3].Comments; c == nil || *c != "para la sucursal" {
		t.Errorf("comment: %+v", all.Items[3])
	}
	if page := list(owner, "?pageNumber=2&pageSize=4"); page.TotalCount != 6 || len(page.Items) != 2 || page.Items[0].Consecutive != 5 {
		t.Errorf("page 2: %+v", page)
	}
	mine := list(p, "")
	if mine.TotalCount != 3 || mine.Items[0].Consecutive != 4 || mine.Items[2].Consecutive != 6 {
		t.Errorf("the person's list: %+v", mine)
	}
	if r := f.do("GET", "/api/v4/stamps/"+all.Items[3].ID, "", p.headers()...); r.status != 200 || !strings.Contains(r.raw, `"legalName"`) {
		t.Errorf("get: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/stamps/"+all.Items[0].ID, "", p.headers()...); r.status != 404 {
		t.Errorf("another person's movement: %d %s", r.status, r.raw)
	}
}
