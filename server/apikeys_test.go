package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// member is a person of a tenant with one API key, for requests made as that person.
type member struct {
	tenant, person, keyID, key string
}

// headers are the credentials of m for fixture.do.
func (m member) headers() []string { return []string{"X-TENANT-KEY", m.tenant, "X-API-KEY", m.key} }

// addMemberDirect makes a non-owner person in a tenant through the storage layer (the people
// create API has its own issue) and gives it an API key made by the tenant's owner.
func addMemberDirect(t *testing.T, f *fixture, tenantID, ownerID, email string, balances ...storage.Balance) member {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	p := storage.Person{
		ID: ids.New(now), TenantID: tenantID, LegalName: email, Email: email, UserTypeID: "C",
		ManifestStatusID: "NotInvited", Balances: balances, CreatedAt: now, UpdatedAt: now,
	}
	if err := f.srv.Accounts().Store.Update(ctx, func(tx storage.Tx) error { return tx.People(tenantID).Put(p) }); err != nil {
		t.Fatal(err)
	}
	k, err := f.srv.Accounts().CreateKey(ctx, auth.Caller{TenantID: tenantID, PersonID: ownerID, IsOwner: true}, api.APIKeyCreate{PersonID: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	return member{tenant: tenantID, person: p.ID, keyID: k.ID, key: k.APIKeyValue}
}

// ownerMember is the owner of the fixture's tenant with its first key.
func ownerMember(t *testing.T, f *fixture, c api.Credentials) member {
	t.Helper()
	page, err := f.srv.Accounts().ListKeys(context.Background(), auth.Caller{TenantID: c.TenantKey, PersonID: c.PersonID, IsOwner: true}, 1, 10)
	if err != nil || len(page.Items) == 0 {
		t.Fatalf("owner keys: %v %+v", err, page)
	}
	return member{tenant: c.TenantKey, person: c.PersonID, keyID: page.Items[0].ID, key: c.APIKey}
}

func keyPage(t *testing.T, r result) api.PagedList[api.APIKey] {
	t.Helper()
	var page api.PagedList[api.APIKey]
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil {
		t.Fatalf("list: %s", r.raw)
	}
	return page
}

func keyIDs(page api.PagedList[api.APIKey]) map[string]string {
	out := map[string]string{}
	for _, k := range page.Items {
		out[k.ID] = k.PersonID
	}
	return out
}

// TestAPIKeyRules checks every row of spec 2 §4.1 (errors and visibility) across two people of
// one tenant, its owner, and a second tenant.
func TestAPIKeyRules(t *testing.T) {
	f := newFixture(t)
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner-b@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	owner := ownerMember(t, f, f.creds)
	p := addMemberDirect(t, f, owner.tenant, owner.person, "p@example.com")
	q := addMemberDirect(t, f, owner.tenant, owner.person, "q@example.com")
	ownerB := ownerMember(t, f, other)
	pb := addMemberDirect(t, f, ownerB.tenant, ownerB.person, "pb@example.com")

	const forbidden = auth.MsgOnlyOwnerCredentials
	notFound := func(id string) string { return "No such resource for the given Id: " + id }
	cases := []struct {
		name         string
		as           member
		method, path string
		body         string
		status       int
		details      string // of a 403 or 404
		property     string // of a 400
		message      string
	}{
		// POST: another person's personId and caller is not owner → 403
		{"non-owner creates for another person", p, "POST", "/api/v4/apikeys", `{"personId":"` + q.person + `"}`, 403, forbidden, "", ""},
		{"non-owner creates for the owner", p, "POST", "/api/v4/apikeys", `{"personId":"` + owner.person + `"}`, 403, forbidden, "", ""},
		{"non-owner creates for a person of another tenant", p, "POST", "/api/v4/apikeys", `{"personId":"` + pb.person + `"}`, 403, forbidden, "", ""},
		{"non-owner creates for an absent person", p, "POST", "/api/v4/apikeys", `{"personId":"nobody"}`, 403, forbidden, "", ""},
		{"non-owner creates for self", p, "POST", "/api/v4/apikeys", `{"personId":"` + p.person + `","description":"mine"}`, 200, "", "", ""},
		{"non-owner creates without personId (own key)", p, "POST", "/api/v4/apikeys", `{"description":null}`, 200, "", "", ""},
		{"owner creates for another person", owner, "POST", "/api/v4/apikeys", `{"personId":"` + q.person + `"}`, 200, "", "", ""},
		{"owner creates for a person of another tenant", owner, "POST", "/api/v4/apikeys", `{"personId":"` + pb.person + `"}`, 400, "", "PersonId", "La persona especificada no es válida o no pertenece a tu organización."},
		// GET, PUT, DELETE: key absent → 404
		{"get absent", owner, "GET", "/api/v4/apikeys/nope", "", 404, notFound("nope"), "", ""},
		{"put absent", owner, "PUT", "/api/v4/apikeys/nope", `{"id":"nope","apiKeyStatus":1}`, 404, notFound("nope"), "", ""},
		{"delete absent", owner, "DELETE", "/api/v4/apikeys/nope", "", 404, notFound("nope"), "", ""},
		// another person's key and caller not owner → 404 (delete does not delete: checked below)
		{"non-owner gets another's key", p, "GET", "/api/v4/apikeys/" + q.keyID, "", 404, notFound(q.keyID), "", ""},
		{"non-owner puts another's key", p, "PUT", "/api/v4/apikeys/" + q.keyID, `{"id":"` + q.keyID + `","apiKeyStatus":0}`, 404, notFound(q.keyID), "", ""},
		{"non-owner deletes another's key", p, "DELETE", "/api/v4/apikeys/" + q.keyID, "", 404, notFound(q.keyID), "", ""},
		{"non-owner gets the owner's key", p, "GET", "/api/v4/apikeys/" + owner.keyID, "", 404, notFound(owner.keyID), "", ""},
		{"non-owner deletes the owner's key", p, "DELETE", "/api/v4/apikeys/" + owner.keyID, "", 404, notFound(owner.keyID), "", ""},
		// a key of another tenant is absent, even for the owner
		{"owner gets a key of another tenant", owner, "GET", "/api/v4/apikeys/" + pb.keyID, "", 404, notFound(pb.keyID), "", ""},
		{"owner puts a key of another tenant", owner, "PUT", "/api/v4/apikeys/" + pb.keyID, `{"apiKeyStatus":0}`, 404, notFound(pb.keyID), "", ""},
		{"owner deletes a key of another tenant", owner, "DELETE", "/api/v4/apikeys/" + pb.keyID, "", 404, notFound(pb.keyID), "", ""},
		// the owner sees and manages every key of the tenant; others their own
		{"owner gets another's key", owner, "GET", "/api/v4/apikeys/" + q.keyID, "", 200, "", "", ""},
		{"non-owner gets own key", p, "GET", "/api/v4/apikeys/" + p.keyID, "", 200, "", "", ""},
		{"owner renames another's key", owner, "PUT", "/api/v4/apikeys/" + q.keyID, `{"id":"` + q.keyID + `","description":"ci","apiKeyStatus":1}`, 200, "", "", ""},
		// PUT body rules
		{"status outside 0 and 1", owner, "PUT", "/api/v4/apikeys/" + q.keyID, `{"apiKeyStatus":2}`, 400, "", "ApiKeyStatus", "'Api Key Status' tiene un rango de valores que no incluye '2'."},
		{"negative status", p, "PUT", "/api/v4/apikeys/" + p.keyID, `{"apiKeyStatus":-1}`, 400, "", "ApiKeyStatus", "'Api Key Status' tiene un rango de valores que no incluye '-1'."},
		{"status of another type", p, "PUT", "/api/v4/apikeys/" + p.keyID, `{"apiKeyStatus":"on"}`, 400, "", "$.apiKeyStatus", ""},
		{"id of the body differs from the path", owner, "PUT", "/api/v4/apikeys/" + q.keyID, `{"id":"` + p.keyID + `"}`, 400, "", "id", "IDs mismatches"},
		// page size 1 to 10
		{"page size 11", owner, "GET", "/api/v4/apikeys?pageSize=11", "", 400, "", "pageSize", "'pageSize' debe estar entre 1 y 10."},
		{"page size 0", p, "GET", "/api/v4/apikeys?pageSize=0", "", 400, "", "pageSize", "'pageSize' debe estar entre 1 y 10."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do(c.method, c.path, c.body, c.as.headers()...)
			switch {
			case r.status != c.status:
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.raw)
			case c.status == 400 && c.message != "":
				expectFailure(t, r, c.property, c.message)
			case c.status == 400:
				if fs := failures(t, r); fs[0].PropertyName != c.property {
					t.Fatalf("failure on %s, want %s", fs[0].PropertyName, c.property)
				}
			case c.status >= 400:
				if r.env.Details != c.details || r.env.Succeeded || r.env.Message != "Sorry, it's not me, it's you." || string(r.env.Data) != "null" {
					t.Fatalf("envelope: %s", r.raw)
				}
			}
		})
	}

	// delete does not delete what the caller may not see: q's and the owner's keys still work
	for _, m := range []member{q, owner, pb} {
		if r := f.do("GET", "/api/v4/people", "", m.headers()...); r.status != 200 {
			t.Fatalf("a key that was not deleted stopped working: %s", r.raw)
		}
	}
	r := f.do("GET", "/api/v4/apikeys/"+q.keyID, "")
	var k api.APIKey
	json.Unmarshal(r.env.Data, &k)
	if k.Description == nil || *k.Description != "ci" || k.PersonID != q.person || k.APIKeyValue != q.key || k.TenantID != owner.tenant {
		t.Fatalf("the owner's update of another's key: %s", r.raw)
	}

	// visibility of the list: the owner sees every key of the tenant, the others only their own,
	// and no tenant sees another's
	all := keyIDs(keyPage(t, f.do("GET", "/api/v4/apikeys", "", owner.headers()...)))
	mine := keyPage(t, f.do("GET", "/api/v4/apikeys", "", p.headers()...))
	theirs := keyIDs(keyPage(t, f.do("GET", "/api/v4/apikeys", "", ownerB.headers()...)))
	// tenant A: owner 1, p 1+2 made above, q 1+1 made by the owner
	if len(all) != 6 || all[owner.keyID] != owner.person || all[p.keyID] != p.person || all[q.keyID] != q.person {
		t.Fatalf("owner's list: %v", all)
	}
	if mine.TotalCount != 3 || mine.PageSize != 10 || mine.PageNumber != 1 {
		t.Fatalf("non-owner's page: %+v", mine)
	}
	for _, k := range mine.Items {
		if k.PersonID != p.person {
			t.Fatalf("a non-owner lists another's key: %+v", k)
		}
	}
	if len(theirs) != 2 || theirs[pb.keyID] != pb.person {
		t.Fatalf("tenant B's list: %v", theirs)
	}
	for id := range theirs {
		if _, ok := all[id]; ok {
			t.Fatal("a key appears in two tenants' lists")
		}
	}
	page := keyPage(t, f.do("GET", "/api/v4/apikeys?pageNumber=2&pageSize=4", "", owner.headers()...))
	if page.TotalCount != 6 || page.TotalPages != 2 || len(page.Items) != 2 || !page.HasPreviousPage || page.HasNextPage {
		t.Fatalf("page 2 of 4: %+v", page)
	}

	// delete revokes: gone from the list, get answers 404, and the key stops authenticating at once
	if r := f.do("DELETE", "/api/v4/apikeys/"+p.keyID, "", p.headers()...); r.status != 200 || string(r.env.Data) != "true" || !r.env.Succeeded {
		t.Fatalf("delete own key: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/people", "", p.headers()...); r.status != http.StatusUnauthorized {
		t.Fatalf("a deleted key authenticates: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/apikeys/"+p.keyID, "", owner.headers()...); r.status != 404 {
		t.Fatalf("get after delete: %s", r.raw)
	}
	if _, ok := keyIDs(keyPage(t, f.do("GET", "/api/v4/apikeys", "", owner.headers()...)))[p.keyID]; ok {
		t.Fatal("a deleted key is listed")
	}
	if r := f.do("DELETE", "/api/v4/apikeys/"+p.keyID, "", owner.headers()...); r.status != 404 {
		t.Fatalf("delete twice: %s", r.raw)
	}
}

// TestAPIKeyStatus checks the state table of spec 2 §3: PUT moves the status (0 suspends, 1
// reactivates) and changes updatedAt; a PUT without apiKeyStatus keeps it.
func TestAPIKeyStatus(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return now } })
	owner := ownerMember(t, f, f.creds)
	p := addMemberDirect(t, f, owner.tenant, owner.person, "p@example.com")
	get := func() api.APIKey {
		var k api.APIKey
		r := f.do("GET", "/api/v4/apikeys/"+p.keyID, "", owner.headers()...)
		json.Unmarshal(r.env.Data, &k)
		return k
	}
	before := get()
	now = now.Add(time.Minute)
	r := f.do("PUT", "/api/v4/apikeys/"+p.keyID, `{"id":"`+p.keyID+`","description":"paused","apiKeyStatus":0}`, p.headers()...)
	var k api.APIKey
	json.Unmarshal(r.env.Data, &k)
	if r.status != 200 || k.APIKeyStatus != 0 || k.UpdatedAt == before.UpdatedAt || k.CreatedAt != before.CreatedAt || *k.Description != "paused" {
		t.Fatalf("suspend: %s (before %+v)", r.raw, before)
	}
	if r := f.do("GET", "/api/v4/people", "", p.headers()...); r.status != 401 {
		t.Fatalf("a suspended key authenticates: %s", r.raw)
	}
	// the person cannot reactivate their key with it; the owner can
	r = f.do("PUT", "/api/v4/apikeys/"+p.keyID, `{"description":"back"}`, owner.headers()...)
	if json.Unmarshal(r.env.Data, &k); r.status != 200 || k.APIKeyStatus != 0 {
		t.Fatalf("a PUT without apiKeyStatus changed it: %s", r.raw)
	}
	r = f.do("PUT", "/api/v4/apikeys/"+p.keyID, `{"apiKeyStatus":1,"description":"back"}`, owner.headers()...)
	if json.Unmarshal(r.env.Data, &k); r.status != 200 || k.APIKeyStatus != 1 || get().APIKeyStatus != 1 {
		t.Fatalf("reactivate: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/people", "", p.headers()...); r.status != 200 {
		t.Fatalf("a reactivated key does not authenticate: %s", r.raw)
	}
	if !strings.HasPrefix(get().APIKeyValue, "sk_test_") || get().APIKeyValue != p.key {
		t.Fatal("the value changed with the status")
	}
}
