package server

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/tickets"
)

// page is one answer of the portal's pages.
type page struct {
	status int
	header http.Header
	body   string
}

func getPage(t *testing.T, f *fixture, method, path string, form url.Values, header ...string) page {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, f.http.URL+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{resp.StatusCode, resp.Header, string(b)}
}

var tokenField = regexp.MustCompile(`name="token" value="([^"]+)"`)

// customerForm is the form a customer sends for ticket number of total, with a token of the page.
func customerForm(t *testing.T, p page, number, total string) url.Values {
	t.Helper()
	m := tokenField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no token in the form: %.400s", p.body)
	}
	return url.Values{"token": {m[1]}, "number": {number}, "total": {total}, "tin": {"EKU9003173C9"}, "legalName": {"ESCUELA KEMPER URGATE"},
		"zipCode": {"42501"}, "taxRegimeCode": {"601"}, "cfdiUseCode": {"G01"}, "email": {""}}
}

// TestPortalPages drives the portal's web pages without a browser: the form (Spanish, the SAT
// choices, the page's rules, the headers), sending it (the same checks as the JSON portal), the
// downloads, each problem's page, the CSRF checks and a previous name's redirect. The browser
// proof is testscripts/browser.
func TestPortalPages(t *testing.T) {
	f, clk, issuer, cashier := ticketFixture(t)
	for _, n := range []string{"T-1", "T-2", "T-3"} {
		ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, n, "2026-11-20T11:00:00")), cashier.headers()...))
	}
	ticketOf(t, f.do("POST", "/api/v4/auto-invoice/tickets", empBody(ticketBody(issuer.person, "OLD-1", "2026-10-20T11:00:00")), cashier.headers()...))

	if p := getPage(t, f, "GET", "/portal/nadie", nil); p.status != 404 || !strings.Contains(p.body, "Portal no encontrado") {
		t.Fatalf("unknown portal: %d %.300s", p.status, p.body)
	}
	if r := f.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"kemper"}`); r.status != 200 {
		t.Fatalf("portal name: %s", r.raw)
	}
	p := getPage(t, f, "GET", "/portal/kemper", nil)
	if p.status != 200 || !strings.Contains(p.body, tickets.MsgNotOffered) || strings.Contains(p.body, "<form") {
		t.Fatalf("not offered: %d %.300s", p.status, p.body)
	}
	if r := f.do("PUT", "/api/v4/auto-invoice/settings", `{"privacyNoticeUrl":"https://kemper.example/privacidad"}`); r.status != 200 {
		t.Fatalf("settings: %s", r.raw)
	}
	p = getPage(t, f, "GET", "/portal/kemper", nil)
	for _, want := range []string{`<html lang="es">`, `<label for="tin">RFC`, `href="https://kemper.example/privacidad"`, `value="601" data-f="" data-m="1"`,
		`value="CN01" data-f="1" data-m="" data-r="605"`, `"rfcPattern":`, `/portal/static/portal.js`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("the form lacks %s", want)
		}
	}
	if p.status != 200 || p.header.Get("Content-Security-Policy") != portalCSP || p.header.Get("Content-Type") != "text/html; charset=utf-8" ||
		p.header.Get("Set-Cookie") != "" || p.header.Get("RateLimit-Limit") == "" || p.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("form headers: %d %v", p.status, p.header)
	}
	for _, asset := range []string{"/portal/static/portal.css", "/portal/static/portal.js"} {
		if a := getPage(t, f, "GET", asset, nil); a.status != 200 || len(a.body) < 500 {
			t.Errorf("%s: %d", asset, a.status)
		}
	}

	// the server checks what the page checks: every failure at once, the values kept
	bad := customerForm(t, p, "T-1", "39,00")
	bad.Set("tin", "eku9003173c")
	bad.Set("taxRegimeCode", "605")
	r := getPage(t, f, "POST", "/portal/kemper", bad)
	for _, want := range []string{"&#39;Total&#39; debe ser el total del ticket", "El RFC &#39;EKU9003173C&#39; no tiene un formato válido.", `value="39,00"`, `role="alert"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the refused form lacks %s", want)
		}
	}
	if r.status != 400 {
		t.Fatalf("refused form: %d", r.status)
	}

	// CSRF: another site's form, a forged or old token
	if r := getPage(t, f, "POST", "/portal/kemper", customerForm(t, p, "T-1", "39"), "Sec-Fetch-Site", "cross-site"); r.status != 403 || !strings.Contains(r.body, msgCrossSite) {
		t.Fatalf("cross-site post: %d", r.status)
	}
	if r := getPage(t, f, "POST", "/portal/kemper", customerForm(t, p, "T-1", "39"), "Origin", "https://evil.example"); r.status != 403 {
		t.Fatalf("foreign origin: %d", r.status)
	}
	forged := customerForm(t, p, "T-1", "39")
	forged.Set("token", strings.Repeat("A", 32))
	if r := getPage(t, f, "POST", "/portal/kemper", forged); r.status != 400 || !strings.Contains(r.body, msgFormExpired) || !strings.Contains(r.body, `value="T-1"`) {
		t.Fatalf("forged token: %d", r.status)
	}
	old := customerForm(t, p, "T-1", "39")
	clk.Add(formTokenAge + time.Minute)
	if r := getPage(t, f, "POST", "/portal/kemper", old); r.status != 400 || !strings.Contains(r.body, msgFormExpired) {
		t.Fatalf("old token: %d", r.status)
	}
	p = getPage(t, f, "GET", "/portal/kemper", nil)

	// a customer invoices T-1 and downloads the files
	r = getPage(t, f, "POST", "/portal/kemper", customerForm(t, p, "t-1", "39"), "Sec-Fetch-Site", "same-origin", "Origin", f.http.URL)
	if r.status != 200 || !strings.Contains(r.body, "Tu factura está lista") {
		t.Fatalf("invoice: %d %.600s", r.status, r.body)
	}
	uuid := regexp.MustCompile(`id="uuid">([0-9A-F-]{36})<`).FindStringSubmatch(r.body)
	links := regexp.MustCompile(`href="(/portal/kemper/descargas/[^"]+)"`).FindAllStringSubmatch(r.body, -1)
	if uuid == nil || len(links) != 2 {
		t.Fatalf("result: %.800s", r.body)
	}
	var xmlBody, pdfBody page
	for _, l := range links {
		d := getPage(t, f, "GET", strings.ReplaceAll(l[1], "&amp;", "&"), nil)
		if d.status != 200 || !strings.Contains(d.header.Get("Content-Disposition"), uuid[1]) {
			t.Fatalf("download %s: %d %v", l[1], d.status, d.header)
		}
		if strings.HasSuffix(strings.SplitN(l[1], "?", 2)[0], ".xml") {
			xmlBody = d
		} else {
			pdfBody = d
		}
	}
	doc, err := cfdi.Parse([]byte(xmlBody.body))
	if err != nil || doc.TFD() == nil || doc.TFD().UUID != uuid[1] || xml.Unmarshal([]byte(xmlBody.body), new(any)) != nil ||
		!strings.HasPrefix(pdfBody.body, "%PDF-") || pdfBody.header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("files: %v", err)
	}
	if d := getPage(t, f, "GET", "/portal/kemper/descargas/"+uuid[1]+".xml?t=nope", nil); d.status != 404 || !strings.Contains(d.body, msgLinkExpired) {
		t.Fatalf("bad download token: %d", d.status)
	}

	// the problems' pages
	for _, c := range []struct {
		number, total string
		status        int
		heading       string
	}{
		{"T-1", "39", 200, "Tu factura está lista"}, // the same customer again: the same CFDI
		{"T-9", "39", 404, "No encontramos tu ticket"},
		{"T-2", "39.5", 404, "No encontramos tu ticket"},
		{"OLD-1", "39", 400, "El plazo para facturar este ticket terminó"},
	} {
		p = getPage(t, f, "GET", "/portal/kemper", nil)
		r := getPage(t, f, "POST", "/portal/kemper", customerForm(t, p, c.number, c.total))
		if r.status != c.status || !strings.Contains(r.body, c.heading) {
			t.Errorf("%s %s: %d %.300s", c.number, c.total, r.status, r.body)
		}
	}
	other := customerForm(t, p, "T-1", "39")
	other.Set("tin", "CAUN800101AB1")
	other.Set("taxRegimeCode", "616")
	other.Set("cfdiUseCode", "S01")
	if r := getPage(t, f, "POST", "/portal/kemper", other); r.status != 409 || !strings.Contains(r.body, "Este ticket ya fue facturado") {
		t.Fatalf("invoiced to another RFC: %d", r.status)
	}

	// a previous name redirects, the form's post and the downloads too
	clk.Add(31 * 24 * time.Hour)
	if r := f.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"kemper-escuela"}`); r.status != 200 {
		t.Fatalf("rename: %s", r.raw)
	}
	if r := getPage(t, f, "GET", "/portal/kemper", nil); r.status != http.StatusPermanentRedirect || r.header.Get("Location") != "/portal/kemper-escuela" {
		t.Fatalf("previous name: %d %v", r.status, r.header)
	}
	if r := getPage(t, f, "GET", "/portal/kemper/descargas/x.xml?t=abc", nil); r.status != 404 {
		t.Fatalf("download with a bad token under the previous name: %d", r.status)
	}
}

// TestPortalPagesRateLimit: the pages count in the JSON portal's family (Anonymous, per
// address), and past the limit say so in a page, with Retry-After.
func TestPortalPagesRateLimit(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.AnonymousLimit = 2 })
	getPage(t, f, "GET", "/portal/v1/tienda", nil)                         // the JSON portal takes one
	if p := getPage(t, f, "GET", "/portal/tienda", nil); p.status != 404 { // the page the other
		t.Fatalf("first page: %d", p.status)
	}
	p := getPage(t, f, "GET", "/portal/tienda", nil)
	if p.status != 429 || p.header.Get("Retry-After") == "" || p.header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(p.body, "Demasiadas solicitudes") || p.header.Get("Content-Security-Policy") != portalCSP {
		t.Fatalf("past the limit: %d %v %.300s", p.status, p.header, p.body)
	}
}
