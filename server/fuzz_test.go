package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
)

// Fuzzing through the router: every route of the table with random path values, query strings,
// bodies and time-zone (and traceparent) headers, authenticated as the tenant's owner (the operator token on
// /admin/v1). Whatever comes in, the answer is never a 500, and every JSON answer is the
// spec's envelope (httpStatusCode equal to the status, succeeded for 2xx only, a trace
// identifier, failures in their shape). Routes are read from this package's sources, so a new
// route is fuzzed without touching this file.
//
// Bodies, path values and queries may name records made at set-up by placeholders, replaced
// before the request: @person@ (a member with RFC EKU9003173C9 and stamps), @owner@, @hook@
// (a URL webhook), @product@ and @key@ (an API key of the member).

// fuzzRoute is one route of the table.
type fuzzRoute struct{ method, path string }

var (
	routesOnce sync.Once
	routeTable []fuzzRoute
	routesErr  error
)

// handleCall matches s.mux.Handle("METHOD /path", …) and s.mux.Handle("METHOD "+Name, …).
var handleCall = regexp.MustCompile(`s\.mux\.Handle(?:Func)?\("([A-Z]+) ((?:[^"\\]|\\.)*)"(?:\s*\+\s*([A-Za-z_][A-Za-z0-9_.]*))?`)

// fuzzRoutes reads the route table from the package's non-test sources; a pattern ending in a
// constant is resolved from listener.Path or a `Name = "..."` of the package, one ending in a
// variable is fuzzed as a wildcard.
func fuzzRoutes() ([]fuzzRoute, error) {
	routesOnce.Do(func() {
		files, err := filepath.Glob("*.go")
		if err != nil {
			routesErr = err
			return
		}
		var src strings.Builder
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				routesErr = err
				return
			}
			src.Write(b)
			src.WriteByte('\n')
		}
		text := src.String()
		seen := map[fuzzRoute]bool{}
		for _, m := range handleCall.FindAllStringSubmatch(text, -1) {
			path := m[2]
			switch name := m[3]; {
			case name == "listener.Path":
				path += listener.Path
			case name != "":
				c := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*=\s*"([^"]*)"`).FindStringSubmatch(text)
				if c == nil { // a variable (a loop over names): fuzzed like a wildcard
					path += "{" + name + "}"
				} else {
					path += c[1]
				}
			}
			r := fuzzRoute{m[1], path}
			if !seen[r] {
				seen[r] = true
				routeTable = append(routeTable, r)
			}
		}
	})
	return routeTable, routesErr
}

func TestFuzzRoutesFound(t *testing.T) {
	routes, err := fuzzRoutes()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []fuzzRoute{{"POST", "/api/v4/invoices"}, {"GET", listener.Path}, {"GET", "/api/v4/people/{id}"}, {"PUT", "/admin/v1/tenants/{tenantKey}/subscription"}} {
		if !slices.Contains(routes, want) {
			t.Errorf("route %v not found among %d", want, len(routes))
		}
	}
}

// fuzzTarget is one server for a fuzzing process, with the records the placeholders name.
type fuzzTarget struct {
	srv    *Server
	h      http.Handler
	owner  http.Header
	places *strings.Replacer
	clock  *fuzzClock
}

// fuzzClock moves a minute ahead at each input, so the fixed-window limits (the BusinessWrite
// family keeps its numbers) never refuse a fuzzed request.
type fuzzClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fuzzClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fuzzClock) step() {
	c.mu.Lock()
	c.t = c.t.Add(time.Minute)
	c.mu.Unlock()
}

// fuzzPair is a CSD pair of EKU9003173C9: SAT's test CSD when it is beside the repository
// (read, so a fuzzing process starts fast), else one made once per process.
var fuzzPair = sync.OnceValues(func() (csdtest.Pair, error) {
	dir := filepath.Join(sharedSat, "certs")
	cer, err1 := os.ReadFile(filepath.Join(dir, "EKU9003173C9.cer"))
	key, err2 := os.ReadFile(filepath.Join(dir, "EKU9003173C9.key"))
	pw, err3 := os.ReadFile(filepath.Join(dir, "EKU9003173C9.password.txt"))
	if err1 == nil && err2 == nil && err3 == nil {
		return csdtest.Pair{Cer: cer, Key: key, Password: strings.TrimSpace(string(pw))}, nil
	}
	return csdtest.NewPair(csdtest.Options{RFC: "EKU9003173C9", Key: csdtest.Keys(1, 2048)[0]})
})

func newFuzzTarget(tb testing.TB) *fuzzTarget {
	tb.Helper()
	d, err := OpenData(DataOptions{Path: filepath.Join(tb.TempDir(), "f.db")})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Store.Close() })
	clk := &fuzzClock{t: time.Now().UTC()}
	policy, err := webhook.NewPolicy("127.0.0.0/8")
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(Config{Environment: d.Environment, AdminToken: "op-token", Logger: slog.New(slog.DiscardHandler), Now: clk.Now,
		StandardLimit: math.MaxInt32, AnonymousLimit: math.MaxInt32, WebhookPolicy: policy}, d.Store, d.Keys)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		tb.Fatal(err)
	}
	src, err := source.Open(ctx, testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	_, err = s.Catalogs().Import(ctx, src, time.Now(), nil)
	src.Close()
	if err != nil {
		tb.Fatal(err)
	}
	ft := &fuzzTarget{srv: s, h: s.Handler(), clock: clk,
		owner: http.Header{"X-Tenant-Key": {creds.TenantKey}, "X-Api-Key": {creds.APIKey}}}
	setup := func(method, path, body string, out any) {
		tb.Helper()
		rec := ft.serve(method, path, "", []byte(body), "")
		var env api.RawEnvelope
		if rec.Code/100 != 2 || json.Unmarshal(rec.Body.Bytes(), &env) != nil || json.Unmarshal(env.Data, out) != nil {
			tb.Fatalf("set-up %s %s: %d %s", method, path, rec.Code, rec.Body.Bytes())
		}
	}
	var member api.Person
	setup("POST", "/api/v4/people", `{"legalName":"ESCUELA KEMPER URGATE","email":"member@example.com","password":"Clave#2025","tin":"EKU9003173C9","satTaxRegimeId":"601","zipCode":"42501","satCfdiUseId":"G01"}`, &member)
	err = d.Store.Update(ctx, func(tx storage.Tx) error {
		p, err := tx.People(creds.TenantKey).Get(member.ID)
		if err != nil {
			return err
		}
		p.Balances = append(p.Balances, storage.Balance{CreditType: 1, Available: 1 << 30})
		return tx.People(creds.TenantKey).Put(p)
	})
	if err != nil {
		tb.Fatal(err)
	}
	var hook api.Webhook
	setup("POST", "/api/v4/webhooks", `{"url":"https://127.0.0.1:9/hook","enabledEvents":["*"]}`, &hook)
	var product api.Product
	setup("POST", "/api/v4/products", `{"description":"Lápiz","unitPrice":12.5}`, &product)
	var key api.APIKey
	setup("POST", "/api/v4/apikeys", `{"personId":"`+member.ID+`","description":"fuzz"}`, &key)
	ft.places = strings.NewReplacer("@person@", member.ID, "@owner@", creds.PersonID, "@hook@", hook.ID,
		"@product@", product.ID, "@key@", key.ID, "@tenant@", creds.TenantKey)
	return ft
}

// serve answers one request in process; admin routes carry the operator token.
func (ft *fuzzTarget) serve(method, path, query string, body []byte, zone string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/", bytes.NewReader(body))
	req.URL.Path, req.URL.RawPath, req.URL.RawQuery = path, "", query
	req.RequestURI = req.URL.RequestURI()
	req.Header = ft.owner.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer op-token")
	if zone != "" {
		req.Header.Set("X-TIME-ZONE", zone)
		req.Header.Set("traceparent", zone) // the other header the server parses
	}
	rec := httptest.NewRecorder()
	ft.h.ServeHTTP(rec, req)
	return rec
}

// fill puts value (or what the placeholders name) into each {wildcard} of pattern's path.
func (ft *fuzzTarget) fill(path, value string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '{')
		j := strings.IndexByte(path, '}')
		if i < 0 || j < i {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i])
		b.WriteString(url.PathEscape(ft.places.Replace(value)))
		path = path[j+1:]
	}
}

// checkAnswer asserts what every answer must be: no 500, and the envelope when JSON.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, what string) {
	t.Helper()
	if rec.Code == http.StatusInternalServerError || rec.Code == 0 {
		t.Fatalf("%s: status %d: %.500s", what, rec.Code, rec.Body.Bytes())
	}
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		return // the metrics text, a backup stream, a PDF
	}
	raw := rec.Body.Bytes()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields["httpStatusCode"] == nil {
		if rec.Code/100 == 2 {
			return // a bare answer (load queries, spec 3 §4.5)
		}
		t.Fatalf("%s: error %d without the envelope: %.500s", what, rec.Code, raw)
	}
	var env api.RawEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s: answer is not an envelope: %v: %.500s", what, err, raw)
	}
	if env.HTTPStatusCode != rec.Code || env.Succeeded != (rec.Code/100 == 2) || !strings.HasPrefix(env.TraceIdentifier, "00-") {
		t.Fatalf("%s: envelope does not match status %d: %.500s", what, rec.Code, raw)
	}
	if rec.Code >= 400 {
		if env.Message == "" {
			t.Fatalf("%s: error %d without a message: %.500s", what, rec.Code, raw)
		}
		if len(env.Data) > 0 && env.Data[0] == '[' {
			var fs []map[string]json.RawMessage
			if err := json.Unmarshal(env.Data, &fs); err != nil {
				t.Fatalf("%s: failures are not objects: %.500s", what, raw)
			}
			for _, f := range fs {
				if _, ok := f["propertyName"]; !ok {
					t.Fatalf("%s: failure without propertyName: %.500s", what, raw)
				}
				if _, ok := f["errorMessage"]; !ok {
					t.Fatalf("%s: failure without errorMessage: %.500s", what, raw)
				}
			}
		}
	}
}

// fuzzOne drives one input through route r.
func (ft *fuzzTarget) fuzzOne(t *testing.T, r fuzzRoute, value, query string, body []byte, zone string) {
	ft.clock.step()
	path := ft.fill(r.path, value)
	if r.path == "/admin/v1/backup" {
		return // a copy of the database per input: slow, and not input-driven
	}
	body = []byte(ft.places.Replace(string(body)))
	rec := ft.serve(r.method, path, ft.places.Replace(query), body, zone)
	checkAnswer(t, rec, r.method+" "+path+"?"+query)
}

// fuzzSeeds are inputs near valid ones, by route pattern.
func fuzzSeeds(tb testing.TB) map[fuzzRoute][]string {
	pair, err := fuzzPair()
	if err != nil {
		tb.Fatal(err)
	}
	cer, key := base64.StdEncoding.EncodeToString(pair.Cer), base64.StdEncoding.EncodeToString(pair.Key)
	invoice := `{"versionCode":"4.0","series":"F","paymentFormCode":"01","paymentMethodCode":"PUE","currencyCode":"MXN","typeCode":"I",
"expeditionZipCode":"42501","exportCode":"01","issuer":{"tin":"EKU9003173C9","legalName":"ESCUELA KEMPER URGATE","taxRegimeCode":"601",
"taxCredentials":[{"base64File":"` + cer + `","fileType":0,"password":"` + pair.Password + `"},{"base64File":"` + key + `","fileType":1,"password":"` + pair.Password + `"}]},
"recipient":{"tin":"EKU9003173C9","legalName":"ESCUELA KEMPER URGATE","zipCode":"42501","taxRegimeCode":"601","cfdiUseCode":"G01"},
"items":[{"itemCode":"44121706","quantity":2,"unitOfMeasurementCode":"H87","description":"Lápiz","unitPrice":"12.50","taxObjectCode":"02",
"itemTaxes":[{"taxCode":"002","taxTypeCode":"Tasa","taxRate":"0.160000","taxFlagCode":"T"}]}]}`
	byRef := `{"typeCode":"I","paymentFormCode":"01","paymentMethodCode":"PUE","expeditionZipCode":"42501","issuer":{"id":"@person@"},
"recipient":{"id":"@person@"},"items":[{"id":"@product@","quantity":4}]}`
	return map[fuzzRoute][]string{
		{"POST", "/api/v4/invoices"}: {invoice, byRef, `{"typeCode":"P"}`, `{"items":[{"quantity":"1e400"}]}`},
		{"POST", "/api/v4/people"}: {`{"legalName":"A","email":"a@example.com","password":"Clave#2025","tin":"EKU9003173C9"}`,
			`{"email":"x","password":""}`},
		{"PUT", "/api/v4/people/{id}"}: {`{"legalName":"B","zipCode":"42501","satTaxRegimeId":"601"}`},
		{"POST", "/api/v4/tax-files"}: {`{"personId":"@person@","fileType":0,"base64File":"` + cer + `","password":""}`,
			`{"personId":"@person@","fileType":"CertificateCsd","base64File":"` + key + `","password":"` + pair.Password + `"}`},
		{"POST", "/api/v4/webhooks"}: {`{"url":"https://example.com/h","enabledEvents":["invoice.stamped"],"description":"d"}`,
			`{"url":"http://[::1]/","enabledEvents":["*"]}`},
		{"PUT", "/api/v4/webhooks/{id}"}:            {`{"id":"@hook@","url":"https://example.com/h","enabledEvents":["*"],"status":"enabled"}`},
		{"POST", "/api/v4/events/trigger"}:          {`{"type":"invoice.canceled","webhookId":"@hook@"}`},
		{"POST", "/api/v4/download-rules"}:          {`{"personId":"@person@","rfc":"EKU9003173C9","description":"d","satQueryTypeId":"CFDI","downloadTypeId":"Emitidos","satInvoiceStatusId":"Vigente"}`},
		{"PUT", "/api/v4/auto-invoice/settings"}:    {`{"enabled":true,"privacyNoticeUrl":"https://example.com/p","allowedCfdiUses":["G01"]}`},
		{"PUT", "/api/v4/auto-invoice/portal-name"}: {`{"name":"mi-portal"}`},
		{"POST", "/api/v4/products"}:                {`{"description":"P","unitPrice":1.000001,"productTaxes":[{"taxId":"002","taxTypeId":"Tasa","rate":0.16,"taxFlagId":"T"}]}`},
		{"POST", "/api/v4/apikeys"}:                 {`{"personId":"@person@","description":"k"}`},
		{"POST", "/api/v4/sat-validations"}:         {`{"tin":"EKU9003173C9","validationTypes":["sat.blacklist.69b"]}`},
		{"POST", "/api/v4/people/{id}/employer"}:    {`{"personId":"@person@","employerRegistration":"B5510768108","originEmployerTin":"EKU9003173C9"}`},
		{"POST", "/admin/v1/tenants"}:               {`{"ownerEmail":"new@example.com"}`},
		{"POST", "/api/v4/invoices/pdf"}:            {`{"invoiceId":"x","bandColor":"#fff","logo":"data:image/png;base64,AAAA"}`},
	}
}

func addRouteSeeds(f *testing.F, only func(fuzzRoute) bool) []fuzzRoute {
	routes, err := fuzzRoutes()
	if err != nil {
		f.Fatal(err)
	}
	var kept []fuzzRoute
	for _, r := range routes {
		if only(r) {
			kept = append(kept, r)
		}
	}
	if len(kept) == 0 {
		f.Fatal("no route to fuzz")
	}
	seeds := fuzzSeeds(f)
	for i, r := range kept {
		f.Add(uint16(i), "@person@", "", []byte(nil), "")
		f.Add(uint16(i), "x/../%00", "pageNumber=-1&pageSize=99999", []byte(`{`), "Nowhere/Zone")
		f.Add(uint16(i), "@hook@", "pageNumber=1&pageSize=1&from=2026-01-01&to=2025-01-01&details=true", []byte(`{"a":[1,2,{}]}`), "America/Mexico_City")
		f.Add(uint16(i), "@key@", "", []byte(`{}`), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		for _, b := range seeds[r] {
			f.Add(uint16(i), "@person@", "", []byte(b), "")
		}
	}
	return kept
}

// FuzzRouter: any route, path value, query, body and time zone.
func FuzzRouter(f *testing.F) {
	routes := addRouteSeeds(f, func(fuzzRoute) bool { return true })
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, route uint16, value, query string, body []byte, zone string) {
		ft.fuzzOne(t, routes[int(route)%len(routes)], value, query, body, zone)
	})
}

// fuzzBodies fuzzes the bodies of the routes whose pattern has prefix, for the areas whose
// input is large enough to deserve a process of its own.
func fuzzBodies(f *testing.F, method, prefix string) {
	routes := addRouteSeeds(f, func(r fuzzRoute) bool { return r.method == method && strings.HasPrefix(r.path, prefix) })
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, route uint16, value, query string, body []byte, zone string) {
		ft.fuzzOne(t, routes[int(route)%len(routes)], value, query, body, zone)
	})
}

// FuzzInvoiceBody: POST /api/v4/invoices and its siblings (pdf, send, status, cancellation).
func FuzzInvoiceBody(f *testing.F) { fuzzBodies(f, "POST", "/api/v4/invoices") }

// FuzzPeopleBody: people and their employer and employee data.
func FuzzPeopleBody(f *testing.F) { fuzzBodies(f, "POST", "/api/v4/people") }

// FuzzTaxFileBody: tax file uploads.
func FuzzTaxFileBody(f *testing.F) { fuzzBodies(f, "POST", "/api/v4/tax-files") }

// FuzzWebhookBody: webhooks, events (trigger, resend) and their updates.
func FuzzWebhookBody(f *testing.F) {
	routes := addRouteSeeds(f, func(r fuzzRoute) bool {
		return (r.method == "POST" || r.method == "PUT") && (strings.HasPrefix(r.path, "/api/v4/webhooks") || strings.HasPrefix(r.path, "/api/v4/events"))
	})
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, route uint16, value, query string, body []byte, zone string) {
		ft.fuzzOne(t, routes[int(route)%len(routes)], value, query, body, zone)
	})
}

// FuzzDownloadRuleBody: bulk-download rules (and the operator's status change).
func FuzzDownloadRuleBody(f *testing.F) {
	routes := addRouteSeeds(f, func(r fuzzRoute) bool { return r.method != "GET" && strings.Contains(r.path, "/download-rules") })
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, route uint16, value, query string, body []byte, zone string) {
		ft.fuzzOne(t, routes[int(route)%len(routes)], value, query, body, zone)
	})
}

// FuzzAutoInvoiceBody: Auto CFDI settings and portal name.
func FuzzAutoInvoiceBody(f *testing.F) { fuzzBodies(f, "PUT", "/api/v4/auto-invoice") }

// FuzzListQuery: the query strings of every GET (paging, filters, load queries, search terms).
func FuzzListQuery(f *testing.F) {
	routes := addRouteSeeds(f, func(r fuzzRoute) bool { return r.method == "GET" })
	for i := range routes {
		for _, q := range []string{"pageNumber=2&pageSize=50", "pageSize=0", "pageNumber=999999999999999999999", "from=2026-13-01",
			"status=Vigente&typeCode=I&issuerTin=EKU9003173C9", "filter=a%20b&top=5", "events=invoice.stamped,%20", "%zz=1&a=%"} {
			f.Add(uint16(i), "@person@", q, []byte(nil), "")
		}
	}
	ft := newFuzzTarget(f)
	f.Fuzz(func(t *testing.T, route uint16, value, query string, body []byte, zone string) {
		ft.fuzzOne(t, routes[int(route)%len(routes)], value, query, nil, zone)
	})
}
