package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/autoinvoice"
)

func dataOf[T any](t *testing.T, r result) T {
	t.Helper()
	var out T
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &out) != nil {
		t.Fatalf("want 200, got %d %s", r.status, r.raw)
	}
	return out
}

func TestAutoInvoiceSettings(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	ana := addMemberDirect(t, f, owner.tenant, owner.person, "ana@example.com")

	// defaults when never saved
	s := dataOf[api.AutoInvoiceSettings](t, f.do("GET", "/api/v4/auto-invoice/settings", ""))
	if s.AllowBillingOutsideMonth || s.AllowBillingOutsideYear || s.PrivacyNoticeURL != nil {
		t.Fatalf("defaults: %+v", s)
	}
	if r := f.do("GET", "/api/v4/auto-invoice/settings", ""); !strings.Contains(r.raw, `"privacyNoticeUrl":null`) {
		t.Fatalf("null privacy notice: %s", r.raw)
	}

	for _, c := range []struct{ name, body, prop, msg string }{
		{"year without month", `{"allowBillingOutsideYear":true}`, "AllowBillingOutsideYear", autoinvoice.MsgYearNeedsMonth},
		{"year with month false", `{"allowBillingOutsideMonth":false,"allowBillingOutsideYear":true}`, "AllowBillingOutsideYear", "Para permitir facturar fuera del año también debes permitir facturar fuera del mes."},
		{"http", `{"privacyNoticeUrl":"http://example.com/aviso"}`, "PrivacyNoticeUrl", "La URL del aviso de privacidad debe ser una URL https válida."},
		{"no url", `{"privacyNoticeUrl":"aviso"}`, "PrivacyNoticeUrl", autoinvoice.MsgPrivacyURL},
		{"no host", `{"privacyNoticeUrl":"https://"}`, "PrivacyNoticeUrl", autoinvoice.MsgPrivacyURL},
		{"long", `{"privacyNoticeUrl":"https://example.com/` + strings.Repeat("a", 2029) + `"}`, "PrivacyNoticeUrl", "La URL del aviso de privacidad no puede exceder 2048 caracteres."},
	} {
		t.Run(c.name, func(t *testing.T) {
			expectFailure(t, f.do("PUT", "/api/v4/auto-invoice/settings", c.body), c.prop, c.msg)
		})
	}

	// bad input is a 400, never a 500
	for _, b := range []string{`{"allowBillingOutsideMonth":"yes"}`, `{"privacyNoticeUrl":5}`, `not json`, `[]`} {
		if r := f.do("PUT", "/api/v4/auto-invoice/settings", b); r.status != 400 {
			t.Errorf("%s: %d %s", b, r.status, r.raw)
		}
	}
	for _, b := range []string{`{"name":5}`, `{"name":null}`, `not json`} {
		if r := f.do("PUT", "/api/v4/auto-invoice/portal-name", b); r.status != 400 {
			t.Errorf("%s: %d %s", b, r.status, r.raw)
		}
	}

	// exactly 2048 is accepted; PUT replaces all settings
	url := "https://example.com/" + strings.Repeat("a", 2028)
	s = dataOf[api.AutoInvoiceSettings](t, f.do("PUT", "/api/v4/auto-invoice/settings",
		`{"allowBillingOutsideMonth":true,"allowBillingOutsideYear":true,"privacyNoticeUrl":"`+url+`"}`))
	if !s.AllowBillingOutsideMonth || !s.AllowBillingOutsideYear || s.PrivacyNoticeURL == nil || *s.PrivacyNoticeURL != url {
		t.Fatalf("saved: %+v", s)
	}
	s = dataOf[api.AutoInvoiceSettings](t, f.do("PUT", "/api/v4/auto-invoice/settings", `{"allowBillingOutsideMonth":true}`))
	if !s.AllowBillingOutsideMonth || s.AllowBillingOutsideYear || s.PrivacyNoticeURL != nil {
		t.Fatalf("unsent fields take defaults: %+v", s)
	}
	s = dataOf[api.AutoInvoiceSettings](t, f.do("GET", "/api/v4/auto-invoice/settings", "", ana.headers()...))
	if !s.AllowBillingOutsideMonth {
		t.Fatalf("read back: %+v", s)
	}

	// owner only, and the subscription must include Auto CFDI
	const notOwner = "No tienes permiso para administrar la configuración de Auto CFDI."
	const noSub = "Para administrar la configuración de Auto CFDI tu suscripción debe incluir: Auto CFDI."
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/api/v4/auto-invoice/settings", `{}`},
		{"GET", "/api/v4/auto-invoice/portal-names/availability?name=tienda", ""},
		{"PUT", "/api/v4/auto-invoice/portal-name", `{"name":"tienda"}`},
	} {
		expectDetails(t, f.do(c.method, c.path, c.body, ana.headers()...), 403, notOwner)
	}
	if auth.MsgOnlyOwnerAutoInvoice != notOwner {
		t.Fatal("owner text")
	}
	if r := f.do("PUT", "/admin/v1/tenants/"+owner.tenant+"/subscription", `{"autoCfdi":false}`, "Authorization", "Bearer op-token"); r.status != 200 {
		t.Fatalf("subscription: %s", r.raw)
	}
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/api/v4/auto-invoice/settings", `{}`},
		{"GET", "/api/v4/auto-invoice/portal-names/availability?name=tienda", ""},
		{"PUT", "/api/v4/auto-invoice/portal-name", `{"name":"tienda"}`},
	} {
		expectDetails(t, f.do(c.method, c.path, c.body), 403, noSub)
	}
	// reading needs neither
	dataOf[api.AutoInvoiceSettings](t, f.do("GET", "/api/v4/auto-invoice/settings", ""))
	dataOf[api.PortalName](t, f.do("GET", "/api/v4/auto-invoice/portal-name", ""))
}

func TestAutoInvoicePortalName(t *testing.T) {
	now := time.Date(2026, 3, 1, 18, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := newFixture(t, func(c *Config) { c.Now = clock })
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "other@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	otherH := []string{"X-TENANT-KEY", other.TenantKey, "X-API-KEY", other.APIKey}

	if r := f.do("GET", "/api/v4/auto-invoice/portal-name", ""); !strings.Contains(r.raw, `"data":{"name":null,"assignedAt":null,"nextChangeAllowedAt":null}`) {
		t.Fatalf("no name yet: %s", r.raw)
	}

	avail := func(name string, h ...string) api.PortalNameAvailability {
		t.Helper()
		return dataOf[api.PortalNameAvailability](t, f.do("GET", "/api/v4/auto-invoice/portal-names/availability?name="+name, "", h...))
	}
	for _, c := range []struct{ name, norm, reason string }{
		{"Tienda-Uno", "tienda-uno", ""},
		{"ab", "ab", autoinvoice.ReasonInvalidFormat},
		{"1tienda", "1tienda", autoinvoice.ReasonInvalidFormat},
		{"tienda--uno", "tienda--uno", autoinvoice.ReasonInvalidFormat},
		{"tienda-", "tienda-", autoinvoice.ReasonInvalidFormat},
		{"tienda_uno", "tienda_uno", autoinvoice.ReasonInvalidFormat},
		{strings.Repeat("a", 41), strings.Repeat("a", 41), autoinvoice.ReasonInvalidFormat},
		{"www", "www", autoinvoice.ReasonReserved},
		{"soporte", "soporte", autoinvoice.ReasonReserved},
	} {
		a := avail(c.name)
		got := ""
		if a.Reason != nil {
			got = *a.Reason
		}
		if a.Name != c.norm || got != c.reason || a.Available != (c.reason == "") {
			t.Errorf("availability of %q: %+v", c.name, a)
		}
	}

	// `name` is required: missing or empty, a validation failure, not an answer
	for _, q := range []string{"", "?name=", "?name=%20"} {
		expectFailure(t, f.do("GET", "/api/v4/auto-invoice/portal-names/availability"+q, ""), "Name", "'Name' no debería estar vacío.")
	}

	put := func(name string, h ...string) result {
		t.Helper()
		b, _ := json.Marshal(map[string]string{"name": name})
		return f.do("PUT", "/api/v4/auto-invoice/portal-name", string(b), h...)
	}
	const format = `El nombre debe tener de 3 a 40 caracteres (minúsculas, números y guiones), empezar con letra y no llevar "--" ni terminar en guion.`
	for _, n := range []string{"ab", "-abc", "a--b", "abc-", "ñandu", strings.Repeat("a", 41)} {
		expectFailure(t, put(n), "Name", format)
	}
	expectFailure(t, f.do("PUT", "/api/v4/auto-invoice/portal-name", `{}`), "Name", format)
	expectFailure(t, put("admin"), "Name", "Ese nombre está reservado. Elige otro.")

	p := dataOf[api.PortalName](t, put("Tienda-Uno"))
	if p.Name == nil || *p.Name != "tienda-uno" || *p.AssignedAt != "2026-03-01T18:00:00.000" || *p.NextChangeAllowedAt != "2026-03-31T18:00:00.000" {
		t.Fatalf("assigned: %+v", p)
	}
	// taken by another tenant
	expectDetails(t, put("tienda-uno", otherH...), 409, "Ese nombre ya está en uso. Elige otro.")
	if a := avail("tienda-uno", otherH...); a.Available || a.Reason == nil || *a.Reason != autoinvoice.ReasonTaken {
		t.Fatalf("taken: %+v", a)
	}
	if a := avail("tienda-uno"); !a.Available || a.Reason != nil {
		t.Fatalf("own name: %+v", a)
	}
	// setting the same name again is no change
	dataOf[api.PortalName](t, put("tienda-uno"))

	// one change per 30 days; the date is the Mexico day (18:00 UTC on the 31st is 12:00 there)
	expectDetails(t, put("tienda-dos"), 400, "Solo puedes cambiar el nombre una vez cada 30 días. Próximo cambio disponible: 2026-03-31.")
	advance(30*24*time.Hour - time.Second)
	expectDetails(t, put("tienda-dos"), 400, fmt.Sprintf(autoinvoice.MsgNameTooSoon, "2026-03-31"))
	advance(time.Second)
	p = dataOf[api.PortalName](t, put("tienda-dos"))
	if *p.Name != "tienda-dos" {
		t.Fatalf("changed: %+v", p)
	}
	if g := dataOf[api.PortalName](t, f.do("GET", "/api/v4/auto-invoice/portal-name", "")); *g.Name != "tienda-dos" || *g.AssignedAt != "2026-03-31T18:00:00.000" {
		t.Fatalf("read back: %+v", g)
	}

	// the previous name stays the tenant's
	expectDetails(t, put("tienda-uno", otherH...), 409, autoinvoice.MsgNameTaken)
	if a := avail("tienda-uno"); !a.Available {
		t.Fatalf("previous name: %+v", a)
	}
	advance(30 * 24 * time.Hour)
	dataOf[api.PortalName](t, put("tienda-uno"))
	// after a further change the name before the previous one is released
	advance(30 * 24 * time.Hour)
	dataOf[api.PortalName](t, put("tienda-tres"))
	expectDetails(t, put("tienda-uno", otherH...), 409, autoinvoice.MsgNameTaken) // previous
	dataOf[api.PortalName](t, put("tienda-dos", otherH...))                       // released
}

func TestAutoInvoiceConcurrentChange(t *testing.T) {
	f := newFixture(t)
	svc := &autoinvoice.Service{Store: f.srv.Accounts().Store, Environment: "test", Now: time.Now}
	c := auth.Caller{TenantID: f.creds.TenantKey, PersonID: f.creds.PersonID, IsOwner: true}
	release := autoinvoice.HoldChange(svc, c.TenantID)
	n := "tienda"
	_, err := svc.SetPortalName(context.Background(), c, api.PortalNameInput{Name: &n})
	if err == nil || err.Error() == "" || !strings.Contains(err.Error(), "Hay otro cambio del nombre del portal en curso. Intenta de nuevo en unos segundos.") {
		t.Fatalf("want the concurrent-change conflict, got %v", err)
	}
	release()
	if _, err := svc.SetPortalName(context.Background(), c, api.PortalNameInput{Name: &n}); err != nil {
		t.Fatal(err)
	}
}
