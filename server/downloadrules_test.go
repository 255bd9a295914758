package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/downloadrules"
	"github.com/timbra-mx/timbra/storage"
)

func ruleOf(t *testing.T, r result) api.DownloadRule {
	t.Helper()
	var out api.DownloadRule
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &out) != nil {
		t.Fatalf("want a download rule, got %d %s", r.status, r.raw)
	}
	return out
}

func ruleBody(personID, desc, query, download, status string) string {
	b, _ := json.Marshal(map[string]string{"personId": personID, "description": desc, "satQueryTypeId": query,
		"downloadTypeId": download, "satInvoiceStatusId": status})
	return string(b)
}

func expectDetails(t *testing.T, r result, status int, details string) {
	t.Helper()
	if r.status != status || r.env.Succeeded || r.env.Details != details || r.env.Message != "Sorry, it's not me, it's you." {
		t.Fatalf("want %d %q, got %d %s", status, details, r.status, r.raw)
	}
}

func TestDownloadRules(t *testing.T) {
	f := newFixture(t)
	bearer := []string{"Authorization", "Bearer op-token"}
	keys := genKeys(2)
	owner := ownerMember(t, f, f.creds)
	ownerRFC, anaRFC := "OWN010101AAA", "ANA010101AAA"
	if err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(owner.tenant).Get(owner.person)
		if err != nil {
			return err
		}
		p.Tin = &ownerRFC
		return tx.People(owner.tenant).Put(p)
	}); err != nil {
		t.Fatal(err)
	}
	ana := taxPerson(t, f, "ana@example.com", anaRFC)
	bob := taxPerson(t, f, "bob@example.com", "BOB010101AAA")
	norfc := taxPerson(t, f, "norfc@example.com", "")
	bad := taxPerson(t, f, "bad@example.com", "NOT-AN-RFC")
	uploadFiel := func(who member, rfc string, key int) {
		t.Helper()
		p := newPair(t, csdtest.Options{RFC: rfc, Key: keys[key], Kind: csd.KindFIEL})
		taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(who.person, 2, p.Cer, "", ""), owner.headers()...))
		taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(who.person, 3, p.Key, p.Password, ""), owner.headers()...))
	}
	uploadFiel(ana, anaRFC, 0)

	// every failure of a body, in one 400
	long := strings.Repeat("x", 101)
	for _, c := range []struct{ name, body, prop, msg string }{
		{"empty", `{}`, "PersonId", "'Person Id' no debería estar vacío."},
		{"empty description", `{}`, "Description", "'Description' no debería estar vacío."},
		{"empty query type", `{}`, "SatQueryTypeId", "'Sat Query Type Id' no debería estar vacío."},
		{"empty download type", `{}`, "DownloadTypeId", "'Download Type Id' no debería estar vacío."},
		{"empty invoice status", `{}`, "SatInvoiceStatusId", "'Sat Invoice Status Id' no debería estar vacío."},
		{"long description", ruleBody(ana.person, long, "CFDI", "Emitidos", "Vigente"), "Description", "'Description' debe ser menor o igual que 100 caracteres. Ingresó 101 caracteres."},
		{"query type", ruleBody(ana.person, "d", "XML", "Emitidos", "Vigente"), "SatQueryTypeId", fmt.Sprintf(downloadrules.MsgBadQueryType, "XML")},
		{"download type", ruleBody(ana.person, "d", "CFDI", "Todos", "Vigente"), "DownloadTypeId", fmt.Sprintf(downloadrules.MsgBadDownloadType, "Todos")},
		{"download by UUID", ruleBody(ana.person, "d", "CFDI", "Uuid", "Vigente"), "DownloadTypeId", downloadrules.MsgRuleByUUID},
		{"invoice status", ruleBody(ana.person, "d", "CFDI", "Emitidos", "Activo"), "SatInvoiceStatusId", fmt.Sprintf(downloadrules.MsgBadInvoiceStatus, "Activo")},
		{"Cancelado with CFDI", ruleBody(ana.person, "d", "CFDI", "Emitidos", "Cancelado"), "SatInvoiceStatusId", downloadrules.MsgCanceledOnlyMeta},
		{"Cancelado with Retenciones", ruleBody(ana.person, "d", "Retenciones", "Recibidos", "Cancelado"), "SatInvoiceStatusId", downloadrules.MsgCanceledOnlyMeta},
		{"unknown person", ruleBody("nobody", "d", "CFDI", "Emitidos", "Vigente"), "PersonId", fmt.Sprintf(downloadrules.MsgPersonAbsent, "nobody")},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectFailure(t, f.do("POST", "/api/v4/download-rules", c.body, ana.headers()...), c.prop, c.msg)
		})
	}
	if r := f.do("POST", "/api/v4/download-rules", `{"personId":12}`, ana.headers()...); r.status != 400 || failures(t, r)[0].PropertyName != "$.personId" {
		t.Fatalf("personId of another type: %s", r.raw)
	}

	// the owner's rule by another person: 403 before the e.firma (the owner has none yet)
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(owner.person, "d", "CFDI", "Emitidos", "Vigente"), ana.headers()...), 403, auth.MsgOnlyOwnerModifyOwner)
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(bob.person, "d", "CFDI", "Emitidos", "Vigente"), ana.headers()...), 400, fmt.Sprintf(downloadrules.MsgPersonNoFiel, bob.person))
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(norfc.person, "d", "CFDI", "Emitidos", "Vigente"), ana.headers()...), 400, fmt.Sprintf(downloadrules.MsgPersonNoRFC, norfc.person))
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(bad.person, "d", "CFDI", "Emitidos", "Vigente"), ana.headers()...), 400, fmt.Sprintf(downloadrules.MsgPersonNoRFC, bad.person))
	// an RFC saved before people checked it, of a day that does not exist, even with its e.firma
	leap := taxPerson(t, f, "leap@example.com", "LEA990229AB1")
	uploadFiel(leap, "LEA990229AB1", 1)
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(leap.person, "d", "CFDI", "Emitidos", "Vigente"), ana.headers()...), 400, fmt.Sprintf(downloadrules.MsgPersonNoRFC, leap.person))

	// created Pendiente, expanded records null; the same RFC and download type share a seat
	r := f.do("POST", "/api/v4/download-rules", ruleBody(ana.person, " Emitidos de Ana ", "CFDI", "Emitidos", "Vigente"), ana.headers()...)
	r1 := ruleOf(t, r)
	if r1.ID == "" || r1.Tin != anaRFC || r1.DownloadRuleStatusID != "1" || !r1.IsTest || r1.Description != "Emitidos de Ana" || r1.CreatedAt == "" ||
		!strings.Contains(r.raw, `"person":null`) || !strings.Contains(r.raw, `"downloadRuleStatus":null`) || !strings.Contains(r.raw, `"satQueryType":null`) ||
		!strings.Contains(r.raw, `"downloadType":null`) || !strings.Contains(r.raw, `"satInvoiceStatus":null`) {
		t.Fatalf("create answer: %s", r.raw)
	}
	r2 := ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(ana.person, "Cancelados", "Metadata", "Emitidos", "Cancelado"), ana.headers()...))
	seats := fmt.Sprintf(downloadrules.MsgSeatsExceeded, 1, 1)
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(ana.person, "d", "CFDI", "Recibidos", "Vigente"), ana.headers()...), 403, seats)
	// with the seats taken and the owner's e.firma present, the owner rule still answers first
	uploadFiel(owner, ownerRFC, 1)
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(owner.person, "d", "CFDI", "Emitidos", "Vigente"), ana.headers()...), 403, auth.MsgOnlyOwnerModifyOwner)
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(owner.person, "d", "CFDI", "Emitidos", "Vigente"), owner.headers()...), 403, seats)

	// the operator gives three seats
	r = f.do("PUT", "/admin/v1/tenants/"+owner.tenant+"/subscription", `{"downloadSeats":3}`, bearer...)
	var sub api.Subscription
	if json.Unmarshal(r.env.Data, &sub); r.status != 200 || sub.DownloadSeats != 3 || !sub.AutoCfdi || sub.UpdatedAt == "" {
		t.Fatalf("subscription: %s", r.raw)
	}
	r3 := ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(ana.person, "Recibidos", "Retenciones", "Recibidos", "Vigente"), ana.headers()...))
	ro := ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(owner.person, "Del dueño", "CFDI", "Emitidos", "Vigente"), owner.headers()...))
	expectDetails(t, f.do("POST", "/api/v4/download-rules", ruleBody(owner.person, "d", "CFDI", "Recibidos", "Vigente"), owner.headers()...), 403, fmt.Sprintf(downloadrules.MsgSeatsExceeded, 3, 3))

	// list and get: expanded records
	r = f.do("GET", "/api/v4/download-rules", "", ana.headers()...)
	var page api.PagedList[api.DownloadRule]
	if json.Unmarshal(r.env.Data, &page); r.status != 200 || page.TotalCount != 4 || page.PageSize != 10 || len(page.Items) != 4 || page.Items[0].ID != r1.ID {
		t.Fatalf("list: %s", r.raw)
	}
	it := page.Items[1]
	if it.ID != r2.ID || it.Person == nil || it.Person.ID != ana.person || !recordIs(it.DownloadRuleStatus, "1", "Pendiente") ||
		!recordIs(it.SatQueryType, "Metadata", "Metadata") || !recordIs(it.DownloadType, "Emitidos", "Emitidos") || !recordIs(it.SatInvoiceStatus, "Cancelado", "Cancelado") {
		t.Fatalf("expanded: %+v", it)
	}
	if r := f.do("GET", "/api/v4/download-rules?pageNumber=2&pageSize=3", ""); json.Unmarshal(r.env.Data, &page) != nil ||
		len(page.Items) != 1 || page.Items[0].ID != ro.ID || !page.HasPreviousPage {
		t.Fatalf("page 2: %s", r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/download-rules?pageSize=51", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
	expectFailure(t, f.do("GET", "/api/v4/download-rules?pageSize=0", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
	g := ruleOf(t, f.do("GET", "/api/v4/download-rules/"+r3.ID, "", bob.headers()...))
	if g.Person == nil || g.Tin != anaRFC || !recordIs(g.SatQueryType, "Retenciones", "Retenciones") || !recordIs(g.DownloadType, "Recibidos", "Recibidos") {
		t.Fatalf("get: %+v", g)
	}
	expectDetails(t, f.do("GET", "/api/v4/download-rules/nope", ""), 404, "No such resource for the given Id: nope")

	// update: id and description, both required; the owner's rule only by the owner
	expectFailure(t, f.do("PUT", "/api/v4/download-rules/"+r1.ID, `{}`, ana.headers()...), "Id", "'Id' no debería estar vacío.")
	expectFailure(t, f.do("PUT", "/api/v4/download-rules/"+r1.ID, `{}`, ana.headers()...), "Description", "'Description' no debería estar vacío.")
	expectFailure(t, f.do("PUT", "/api/v4/download-rules/"+r1.ID, `{"id":"other","description":"x"}`, ana.headers()...), "Id", "IDs mismatches")
	expectDetails(t, f.do("PUT", "/api/v4/download-rules/nope", `{"id":"nope","description":"x"}`), 404, "No such resource for the given Id: nope")
	expectDetails(t, f.do("PUT", "/api/v4/download-rules/"+ro.ID, `{"id":"`+ro.ID+`","description":"x"}`, ana.headers()...), 403, auth.MsgOnlyOwnerModifyOwner)
	r = f.do("PUT", "/api/v4/download-rules/"+r1.ID, `{"id":"`+r1.ID+`","description":"Nuevo","satQueryTypeId":"Metadata"}`, ana.headers()...)
	if u := ruleOf(t, r); u.Description != "Nuevo" || u.SatQueryTypeID != "CFDI" || u.DownloadRuleStatusID != "1" || !strings.Contains(r.raw, `"person":null`) {
		t.Fatalf("update: %s", r.raw)
	}
	ruleOf(t, f.do("PUT", "/api/v4/download-rules/"+ro.ID, `{"id":"`+ro.ID+`","description":"Mío"}`, owner.headers()...))

	// the operator approves and rejects; statuses -1, 1, 2 only
	if a := ruleOf(t, f.do("PUT", "/admin/v1/tenants/"+owner.tenant+"/download-rules/"+r1.ID+"/status", `{"downloadRuleStatusId":"2"}`, bearer...)); a.DownloadRuleStatusID != "2" {
		t.Fatalf("approve: %+v", a)
	}
	expectFailure(t, f.do("PUT", "/admin/v1/tenants/"+owner.tenant+"/download-rules/"+r1.ID+"/status", `{"downloadRuleStatusId":"3"}`, bearer...),
		"DownloadRuleStatusId", fmt.Sprintf(downloadrules.MsgBadStatus, "3"))
	if g := ruleOf(t, f.do("GET", "/api/v4/download-rules/"+r1.ID, "")); !recordIs(g.DownloadRuleStatus, "2", "Aprobada") {
		t.Fatalf("approved: %+v", g)
	}
	// a rejected rule holds no seat
	ruleOf(t, f.do("PUT", "/admin/v1/tenants/"+owner.tenant+"/download-rules/"+r3.ID+"/status", `{"downloadRuleStatusId":"-1"}`, bearer...))
	ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(owner.person, "d", "CFDI", "Recibidos", "Vigente"), owner.headers()...))

	// delete: the owner's rule stays when another person asks
	expectDetails(t, f.do("DELETE", "/api/v4/download-rules/"+ro.ID, "", ana.headers()...), 403, auth.MsgOnlyOwnerModifyOwner)
	ruleOf(t, f.do("GET", "/api/v4/download-rules/"+ro.ID, ""))
	if r := f.do("DELETE", "/api/v4/download-rules/"+r2.ID, "", ana.headers()...); r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	expectDetails(t, f.do("GET", "/api/v4/download-rules/"+r2.ID, ""), 404, "No such resource for the given Id: "+r2.ID)
	expectDetails(t, f.do("DELETE", "/api/v4/download-rules/"+r2.ID, ""), 404, "No such resource for the given Id: "+r2.ID)

	// another tenant sees none of them
	r = f.do("POST", "/admin/v1/tenants", `{"ownerEmail":"second@example.com"}`, bearer...)
	var c2 api.Credentials
	json.Unmarshal(r.env.Data, &c2)
	other := []string{"X-TENANT-KEY", c2.TenantKey, "X-API-KEY", c2.APIKey}
	expectDetails(t, f.do("GET", "/api/v4/download-rules/"+r1.ID, "", other...), 404, "No such resource for the given Id: "+r1.ID)
	expectDetails(t, f.do("PUT", "/api/v4/download-rules/"+r1.ID, `{"id":"`+r1.ID+`","description":"x"}`, other...), 404, "No such resource for the given Id: "+r1.ID)
	expectDetails(t, f.do("DELETE", "/api/v4/download-rules/"+r1.ID, "", other...), 404, "No such resource for the given Id: "+r1.ID)
	expectFailure(t, f.do("POST", "/api/v4/download-rules", ruleBody(ana.person, "d", "CFDI", "Emitidos", "Vigente"), other...), "PersonId", fmt.Sprintf(downloadrules.MsgPersonAbsent, ana.person))
	if r := f.do("GET", "/api/v4/download-rules", "", other...); !strings.Contains(r.raw, `"items":[]`) {
		t.Fatalf("other tenant's list: %s", r.raw)
	}
	expectDetails(t, f.do("PUT", "/admin/v1/tenants/"+c2.TenantKey+"/download-rules/"+r1.ID+"/status", `{"downloadRuleStatusId":"2"}`, bearer...), 404, "No such resource for the given Id: "+r1.ID)
}

func TestSubscriptionsAdmin(t *testing.T) {
	f := newFixture(t)
	bearer := []string{"Authorization", "Bearer op-token"}
	if r := f.do("GET", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", ""); r.status != 401 {
		t.Fatalf("no operator token: %s", r.raw)
	}
	r := f.do("GET", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", "", bearer...)
	var s api.Subscription
	if json.Unmarshal(r.env.Data, &s); r.status != 200 || !s.AutoCfdi || s.DownloadSeats != 1 || s.UpdatedAt != "" || s.TenantKey != f.creds.TenantKey {
		t.Fatalf("test default: %s", r.raw)
	}
	r = f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", `{"autoCfdi":false}`, bearer...)
	if json.Unmarshal(r.env.Data, &s); r.status != 200 || s.AutoCfdi || s.DownloadSeats != 1 {
		t.Fatalf("set: %s", r.raw)
	}
	r = f.do("GET", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", "", bearer...)
	if json.Unmarshal(r.env.Data, &s); s.AutoCfdi || s.UpdatedAt == "" {
		t.Fatalf("kept: %s", r.raw)
	}
	expectFailure(t, f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", `{"downloadSeats":-1}`, bearer...), "DownloadSeats", "'Download Seats' debe estar entre 0 y 10000.")
	expectFailure(t, f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/subscription", `{"seats":2}`, bearer...), "$.seats", "El campo 'seats' no existe en este recurso.")
	expectDetails(t, f.do("GET", "/admin/v1/tenants/nope/subscription", "", bearer...), 404, "No such resource for the given Id: nope")
	expectDetails(t, f.do("PUT", "/admin/v1/tenants/nope/subscription", `{"downloadSeats":2}`, bearer...), 404, "No such resource for the given Id: nope")
}

// Concurrent creates for new pairs never take more seats than the subscription has: the seat
// check and the write are one transaction.
func TestDownloadRulesSeatsConcurrent(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	rfc := "ANA010101AAA"
	ana := taxPerson(t, f, "ana@example.com", rfc)
	p := newPair(t, csdtest.Options{RFC: rfc, Key: genKeys(1)[0], Kind: csd.KindFIEL})
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 2, p.Cer, "", ""), owner.headers()...))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 3, p.Key, p.Password, ""), owner.headers()...))
	types := []string{"Emitidos", "Recibidos"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := map[string]int{}
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			typ := types[i%2]
			r := f.do("POST", "/api/v4/download-rules", ruleBody(ana.person, "d", "CFDI", typ, "Vigente"))
			if r.status == 200 {
				mu.Lock()
				won[typ]++
				mu.Unlock()
			} else if r.status != 403 || r.env.Details != fmt.Sprintf(downloadrules.MsgSeatsExceeded, 1, 1) {
				t.Errorf("unexpected answer: %s", r.raw)
			}
		}()
	}
	wg.Wait()
	if len(won) != 1 {
		t.Fatalf("rules created for %d download types with one seat: %v", len(won), won)
	}
	// a deleted person's rules stay, with person null
	if r := f.do("DELETE", "/api/v4/people/"+ana.person, ""); r.status != 200 {
		t.Fatalf("delete person: %s", r.raw)
	}
	r := f.do("GET", "/api/v4/download-rules", "")
	var page api.PagedList[api.DownloadRule]
	if json.Unmarshal(r.env.Data, &page); page.TotalCount == 0 || page.Items[0].Person != nil || page.Items[0].Tin != rfc {
		t.Fatalf("rules of a deleted person: %s", r.raw)
	}
}
