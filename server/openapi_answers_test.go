package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
)

// answerCheck sends requests through a fixture's server and holds every answer to the document:
// its status must be documented for the route that matched, and its body valid (JSON Schema
// 2020-12) against the schema of that route, status and media type.
type answerCheck struct {
	t       *testing.T
	f       *fixture
	c       *jsonschema.Compiler
	locs    map[string]string // "PATTERN|status|media" → schema location
	doc     map[string]any
	schemas map[string]*jsonschema.Schema
	seen    map[string]map[int]bool // pattern → statuses answered
}

func newAnswerCheck(t *testing.T, f *fixture) *answerCheck {
	doc := openAPIValue(t)
	a := &answerCheck{t: t, f: f, c: openAPICompiler(t), locs: map[string]string{}, doc: doc,
		schemas: map[string]*jsonschema.Schema{}, seen: map[string]map[int]bool{}}
	for _, s := range answerSchemas(t, doc) {
		a.locs[s.pattern+"|"+s.status+"|"+s.media] = s.loc
	}
	return a
}

// do sends a request as the fixture's owner (headers add or, with an empty value, remove
// headers), checks the answer and returns its status and body.
func (a *answerCheck) do(method, path, body string, headers ...string) (int, []byte) {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, a.f.http.URL+path, rd)
	req.Header.Set("X-TENANT-KEY", a.f.creds.TenantKey)
	req.Header.Set("X-API-KEY", a.f.creds.APIKey)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a.check(method, path, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	return resp.StatusCode, raw
}

// noRedirects is a client that answers a redirect as it is: it is checked like any answer.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// check holds one answer to the document.
func (a *answerCheck) check(method, path string, status int, contentType string, raw []byte) {
	a.t.Helper()
	_, pattern := a.f.srv.mux.Handler(httptest.NewRequest(method, path, nil))
	if pattern == "" || pattern == "/" {
		a.t.Errorf("%s %s: no route matched (answered %d)", method, path, status)
		return
	}
	a.mark(pattern, status)
	routePath := pattern[strings.IndexByte(pattern, ' ')+1:]
	op, _ := pointer(a.doc, "#/paths/"+escapePointer(routePath)+"/"+strings.ToLower(method))
	responses, _ := op.(map[string]any)["responses"].(map[string]any)
	r, ok := responses[fmt.Sprint(status)]
	if !ok {
		a.t.Errorf("%s (%s %s): status %s is not documented: %.300s", pattern, method, path, statusText(status), raw)
		return
	}
	rm := r.(map[string]any)
	if ref, ok := rm["$ref"].(string); ok {
		v, _ := pointer(a.doc, ref)
		rm = v.(map[string]any)
	}
	content, _ := rm["content"].(map[string]any)
	if len(content) == 0 {
		if len(raw) > 0 {
			a.t.Errorf("%s %d: a body where none is documented: %.300s", pattern, status, raw)
		}
		return
	}
	media, _, err := mime.ParseMediaType(contentType)
	if err != nil || content[media] == nil {
		a.t.Errorf("%s %d: Content-Type %q is not documented", pattern, status, contentType)
		return
	}
	if media != "application/json" {
		return
	}
	key := pattern + "|" + fmt.Sprint(status) + "|" + media
	sch := a.schemas[key]
	if sch == nil {
		if sch, err = a.c.Compile(a.locs[key]); err != nil {
			a.t.Fatalf("%s: compile %s: %v", key, a.locs[key], err)
		}
		a.schemas[key] = sch
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		a.t.Errorf("%s %d: not JSON: %.300s", pattern, status, raw)
		return
	}
	if err := sch.Validate(v); err != nil {
		a.t.Errorf("%s (%s %s) %d: the answer does not match the document: %v\nanswer: %.2000s", pattern, method, path, status, err, raw)
	}
}

func (a *answerCheck) mark(pattern string, status int) {
	if a.seen[pattern] == nil {
		a.seen[pattern] = map[int]bool{}
	}
	a.seen[pattern][status] = true
}

// coverage fails for each documented route the scenario never called, and logs the documented
// success statuses it never saw.
func (a *answerCheck) coverage() {
	a.t.Helper()
	var never []string
	for _, d := range routeDocs {
		if len(a.seen[d.pattern]) == 0 {
			never = append(never, d.pattern)
			continue
		}
		if ok, _ := d.statuses(); !a.seen[d.pattern][ok] && !d.deprecated {
			a.t.Logf("%s: success %d never answered", d.pattern, ok)
		}
	}
	if len(never) > 0 {
		a.t.Errorf("the scenario never calls (add a request to TestOpenAPIRecordedAnswers):\n  %s", strings.Join(never, "\n  "))
	}
}

// answerData decodes the data of a successful envelope: answerData[T](t)(a.do(...)).
func answerData[T any](t *testing.T) func(status int, raw []byte) T {
	return func(status int, raw []byte) T {
		t.Helper()
		var env struct{ Data T }
		if status >= 300 || json.Unmarshal(raw, &env) != nil {
			t.Fatalf("want a success, got %d %.500s", status, raw)
		}
		return env.Data
	}
}

// TestOpenAPIRecordedAnswers drives a scenario through every area of the API (successes and the
// usual failures) and validates every answer against the document.
func TestOpenAPIRecordedAnswers(t *testing.T) {
	f, m := readFixture(t) // mini catalogs, webhook engine and receiver, a member with stamps
	f.srv.people.HashPassword = func(p string) string { return "test-hash:" + fmt.Sprint(len(p)) }
	a := newAnswerCheck(t, f.fixture)
	bearer := []string{"Authorization", "Bearer op-token"}
	tenant, ownerID := f.creds.TenantKey, f.creds.PersonID

	// Health and the document.
	a.do("GET", "/healthz", "", "X-API-KEY", "", "X-TENANT-KEY", "")
	a.do("GET", "/healthz/catalogs", "")
	a.do("GET", OpenAPIPath, "")

	// The operator API.
	a.do("GET", "/metrics", "", bearer...)
	a.do("GET", "/metrics", "")
	a.do("GET", "/admin/v1/backup", "", bearer...)
	a.do("GET", "/admin/v1/tenants", "", bearer...)
	a.do("GET", "/admin/v1/tenants", "", "Authorization", "Bearer wrong")
	a.do("POST", "/admin/v1/tenants", `{"ownerEmail":"second@example.com","ownerLegalName":"Segunda"}`, bearer...)
	a.do("POST", "/admin/v1/tenants", `{"ownerEmail":"x@example.com","extra":1}`, bearer...)
	a.do("POST", "/admin/v1/tenants/"+tenant+"/credits", `{"creditType":1,"amount":5}`, bearer...)
	a.do("POST", "/admin/v1/tenants/nope/credits", `{"creditType":1,"amount":5}`, bearer...)
	a.do("GET", "/admin/v1/tenants/"+tenant+"/subscription", "", bearer...)
	a.do("PUT", "/admin/v1/tenants/"+tenant+"/subscription", `{"downloadSeats":3}`, bearer...)
	a.do("GET", "/admin/v1/tenants/nope/subscription", "", bearer...)

	// People and API keys; authentication, time zone and parsing failures.
	p := answerData[api.Person](t)(a.do("POST", "/api/v4/people", `{"legalName":"Persona Uno","email":"uno@example.com","password":"Clave#123"}`))
	q := answerData[api.Person](t)(a.do("POST", "/api/v4/people", `{"legalName":"Persona Dos","email":"dos@example.com","password":"Clave#123"}`))
	a.do("GET", "/api/v4/people?pageSize=5", "")
	a.do("GET", "/api/v4/people?pageNumber=abc", "")
	a.do("GET", "/api/v4/people/"+p.ID, "")
	a.do("GET", "/api/v4/people/nope", "")
	a.do("GET", "/api/v4/people", "", "X-API-KEY", "wrong")
	a.do("GET", "/api/v4/people", "", "X-TIME-ZONE", "Mars/Base")
	a.do("PUT", "/api/v4/people/"+p.ID, `{"id":"`+p.ID+`","phoneNumber":"5512345678"}`)
	a.do("POST", "/api/v4/people", `{"legalName":""}`)
	a.do("POST", "/api/v4/people", `{`)
	a.do("DELETE", "/api/v4/people/"+ownerID, "")
	k := answerData[api.APIKey](t)(a.do("POST", "/api/v4/apikeys", `{"personId":"`+p.ID+`","description":"clave"}`))
	a.do("GET", "/api/v4/apikeys", "")
	a.do("GET", "/api/v4/apikeys/"+k.ID, "")
	a.do("GET", "/api/v4/apikeys/nope", "")
	a.do("PUT", "/api/v4/apikeys/"+k.ID, `{"id":"`+k.ID+`","apiKeyStatus":0}`)
	a.do("DELETE", "/api/v4/apikeys/"+k.ID, "")

	// Webhooks, deliveries, events and the listener.
	w := answerData[api.Webhook](t)(a.do("POST", "/api/v4/webhooks", `{"url":"`+f.url+`","description":"mía","enabledEvents":["*"]}`))
	a.do("POST", "/api/v4/webhooks", `{"url":"http://example.com/x","enabledEvents":["*"]}`)
	a.do("GET", "/api/v4/webhooks", "")
	a.do("GET", "/api/v4/webhooks/"+w.ID, "", "X-TIME-ZONE", "America/Mexico_City")
	a.do("GET", "/api/v4/webhooks/nope", "")
	a.do("PUT", "/api/v4/webhooks/"+w.ID, `{"id":"`+w.ID+`","url":"`+f.url+`","enabledEvents":["*"],"personIds":[]}`)
	a.do("GET", "/api/v4/webhooks/load", "")
	a.do("GET", `/api/v4/webhooks/load?sort=[{"selector":"nope"}]`, "")
	a.do("POST", "/api/v4/webhooks/"+w.ID+"/test", "")
	f.rc.next(t)
	a.do("POST", "/api/v4/webhooks/"+w.ID+"/rotate-secret", "")
	a.do("GET", "/api/v4/webhooks/"+w.ID+"/deliveries", "")
	a.do("GET", "/api/v4/webhooks/"+w.ID+"/queue", "")
	a.do("GET", "/api/v4/webhooks/"+w.ID+"/deliveries/load", "")
	trig := answerData[api.EventTriggered](t)(a.do("POST", "/api/v4/events/trigger", `{"type":"invoice.canceled","relatedObjectId":"inv-9","webhookId":"`+w.ID+`"}`))
	f.rc.next(t)
	a.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped","extra":1}`)
	a.do("GET", "/api/v4/events/"+trig.EventID, "")
	a.do("GET", "/api/v4/events/nope", "")
	a.do("POST", "/api/v4/events/"+trig.EventID+"/resend", `{"webhookId":"`+w.ID+`"}`)
	f.rc.next(t)
	a.do("GET", "/api/v4/listen", "")
	f.dialListen(t, "?probe=1")
	a.mark("GET /api/v4/listen", http.StatusSwitchingProtocols) // the websocket's 101 has no body
	a.do("GET", api.RequestLogPath, "", "X-API-KEY", "wrong")
	if s, err := (&api.Client{BaseURL: f.http.URL, TenantKey: f.creds.TenantKey, APIKey: f.creds.APIKey}).OpenRequestLog(context.Background()); err != nil {
		t.Errorf("the request log: %v", err)
	} else {
		s.Close()
		a.mark(requestLogPattern, http.StatusOK) // a stream of events: its entries are checked by TestRequestLogTail
	}

	// Catalogs.
	a.do("GET", "/api/v4/catalogs", "")
	a.do("GET", "/api/v4/catalogs/SatTaxRegimes/key/601", "")
	a.do("GET", "/api/v4/catalogs/SatTaxRegimes/key/999", "")
	a.do("GET", "/api/v4/catalogs/SatProductCodes/l%C3%A1piz?pageSize=2", "")
	a.do("GET", "/api/v4/catalogs/SatProductCodes/leche?pageSize=101", "")
	a.do("GET", "/api/v4/catalogs/SatProductCodes/load?take=2", "")
	a.do("GET", `/api/v4/catalogs/SatProductCodes/load?group=[{"selector":"description"}]`, "")
	a.do("GET", "/api/v4/catalogs/Nope/load", "")
	a.do("GET", "/api/v4/download-catalogs", "")
	a.do("GET", "/api/v4/download-catalogs/SatInvoiceTypes", "")
	a.do("GET", "/api/v4/download-catalogs/Nope", "")

	// Employer and employee data (p employs q), and credits.
	a.do("POST", "/api/v4/people/"+p.ID+"/employer", empBody(employerBase(p.ID)))
	a.do("GET", "/api/v4/people/"+p.ID+"/employer", "")
	a.do("PUT", "/api/v4/people/"+p.ID+"/employer", empBody(employerBase(p.ID), "employerRegistration", "B5510768109"))
	a.do("GET", "/api/v4/people/"+q.ID+"/employer", "")
	a.do("POST", "/api/v4/people/"+q.ID+"/employee", empBody(employeeBase(q.ID, p.ID)))
	a.do("GET", "/api/v4/people/"+q.ID+"/employee", "")
	a.do("PUT", "/api/v4/people/"+q.ID+"/employee", empBody(employeeBase(q.ID, p.ID), "position", "Líder"))
	a.do("POST", "/api/v4/people/"+q.ID+"/employee", `{"ownResourceAmount":true}`)
	a.do("DELETE", "/api/v4/people/"+q.ID+"/employee", "")
	a.do("DELETE", "/api/v4/people/"+p.ID+"/employer", "")
	a.do("POST", "/api/v4/stamps", `{"fromPersonId":"`+ownerID+`","toPersonId":"`+m.person+`","amount":1}`)
	a.do("POST", "/api/v4/stamps", `{"fromPersonId":"nobody","toPersonId":"`+m.person+`","amount":1}`)

	// Tax files: SAT's test CSD for a person with its RFC.
	cer, key, password := realPair(t)
	csdHolder := taxPerson(t, f.fixture, "csd@example.com", "EKU9003173C9")
	a.do("POST", "/api/v4/tax-files", uploadBody(csdHolder.person, 0, cer, "", ""))
	kf := answerData[api.TaxFile](t)(a.do("POST", "/api/v4/tax-files", uploadBody(csdHolder.person, 1, key, password, "")))
	a.do("POST", "/api/v4/tax-files", uploadBody(csdHolder.person, 1, key, "wrong", ""))
	a.do("GET", "/api/v4/tax-files", "")
	a.do("GET", "/api/v4/tax-files/"+kf.ID, "")
	a.do("GET", "/api/v4/tax-files/"+csdHolder.person+"/default-values", "")
	a.do("GET", "/api/v4/tax-files/"+csdHolder.person+"/default-references", "")
	a.do("DELETE", "/api/v4/tax-files/"+kf.ID, "")
	a.do("DELETE", "/api/v4/tax-files/"+kf.ID, "")

	// Products.
	pr := answerData[api.Product](t)(a.do("POST", "/api/v4/products", empBody(productBase())))
	a.do("POST", "/api/v4/products", `{"unitPrice":"x"}`)
	a.do("GET", "/api/v4/products", "")
	a.do("GET", "/api/v4/products/"+pr.ID, "")
	a.do("PUT", "/api/v4/products/"+pr.ID, empBody(productBase(), "id", pr.ID, "description", "Lápiz de colores"))
	a.do("DELETE", "/api/v4/products/"+pr.ID, "")
	a.do("GET", "/api/v4/products/"+pr.ID, "")

	// Bulk-download rules: a person with a current e.firma.
	const rfc = "ANA010101AAA"
	ana := taxPerson(t, f.fixture, "ana@example.com", rfc)
	fiel := newPair(t, csdtest.Options{RFC: rfc, Key: genKeys(1)[0], Kind: csd.KindFIEL,
		NotBefore: f.clock.Now().AddDate(0, -1, 0), NotAfter: f.clock.Now().AddDate(1, 0, 0)})
	a.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 2, fiel.Cer, "", ""))
	a.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 3, fiel.Key, fiel.Password, ""))
	rule := answerData[api.DownloadRule](t)(a.do("POST", "/api/v4/download-rules", ruleBody(ana.person, "Emitidas", "CFDI", "Emitidos", "Vigente")))
	a.do("POST", "/api/v4/download-rules", `{}`)
	a.do("GET", "/api/v4/download-rules", "")
	a.do("GET", "/api/v4/download-rules/"+rule.ID, "")
	a.do("PUT", "/api/v4/download-rules/"+rule.ID, `{"id":"`+rule.ID+`","description":"Emitidas vigentes"}`)
	a.do("PUT", "/admin/v1/tenants/"+tenant+"/download-rules/"+rule.ID+"/status", `{"downloadRuleStatusId":"2"}`, bearer...)
	a.do("PUT", "/admin/v1/tenants/"+tenant+"/download-rules/nope/status", `{"downloadRuleStatusId":"2"}`, bearer...)
	// Bulk download requests: one from the approved rule, not yet carried out.
	dr := answerData[api.DownloadRequest](t)(a.do("POST", "/api/v4/download-requests",
		`{"downloadRuleId":"`+rule.ID+`","downloadRequestTypeId":"Manual","startDate":"2025-01-01T00:00:00.000-06:00","endDate":"2025-02-01T00:00:00.000-06:00"}`))
	a.do("POST", "/api/v4/download-requests", `{}`)
	a.do("GET", "/api/v4/download-requests", "")
	stamps := answerData[api.PagedList[api.StampTransaction]](t)(a.do("GET", "/api/v4/stamps", ""))
	if len(stamps.Items) > 0 {
		a.do("GET", "/api/v4/stamps/"+stamps.Items[0].ID, "")
	}
	a.do("GET", "/api/v4/stamps/nope", "")
	a.do("POST", "/api/v4/manifests", `{}`)
	a.do("GET", "/api/v4/manifests/"+ana.person, "") // not signed yet: 404
	a.do("POST", "/api/v4/manifests", `{"base64Cer":"`+base64.StdEncoding.EncodeToString(fiel.Cer)+`","base64Key":"`+
		base64.StdEncoding.EncodeToString(fiel.Key)+`","password":"`+fiel.Password+`"}`, ana.headers()...)
	a.do("GET", "/api/v4/manifests/"+ana.person, "")
	letters := answerData[api.PagedList[api.Manifest]](t)(a.do("GET", "/api/v4/manifests/"+ana.person+"/versions", "", ana.headers()...))
	if len(letters.Items) > 0 {
		a.do("GET", "/api/v4/manifests/"+ana.person+"/versions/"+letters.Items[0].ID, "")
	}
	a.do("GET", "/api/v4/manifests/"+ana.person+"/versions/nope", "")
	a.do("GET", "/api/v4/download-requests/"+dr.ID, "")
	a.do("GET", "/api/v4/download-requests/nope", "")
	a.do("GET", "/api/v4/download-requests/search?createdAt="+time.Now().UTC().Format("2006-01-02"), "")
	a.do("PUT", "/api/v4/download-requests/"+dr.ID, `{"satQueryTypeId":"`+dr.SatQueryTypeID+`"}`)
	a.do("PUT", "/api/v4/download-requests/"+dr.ID, `{"startDate":"1999-01-01"}`)
	a.do("PUT", "/api/v4/download-requests/nope", `{}`)
	a.do("GET", "/api/v4/download-requests/"+dr.ID+"/xmls", "")
	a.do("GET", "/api/v4/download-requests/"+dr.ID+"/meta-items", "")
	a.do("GET", "/api/v4/download-requests/"+dr.ID+"/package", "")
	a.do("GET", "/api/v4/download-requests/"+dr.ID+"/raw-request", "")
	a.do("GET", "/api/v4/download-requests/"+dr.ID+"/raw-response", "")
	a.do("DELETE", "/api/v4/download-requests/"+dr.ID, "")
	a.do("DELETE", "/api/v4/download-rules/"+rule.ID, "")
	a.do("GET", "/api/v4/download-rules/"+rule.ID, "")

	// Invoices: two stamped (one small, cancelled at once; one big, cancelled on acceptance).
	small := answerData[api.Invoice](t)(a.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	bigBody := byValue(t)
	bigBody["items"].([]any)[1].(map[string]any)["unitPrice"] = 1000
	big := answerData[api.Invoice](t)(a.do("POST", "/api/v4/invoices", empBody(bigBody), m.headers()...))
	a.do("POST", "/api/v4/invoices", `{}`, m.headers()...)
	for _, kind := range []string{"income", "credit-note", "payment", "payroll", "local-taxes"} {
		a.do("POST", "/api/v4/invoices/"+kind, `{}`)
	}
	a.do("GET", "/api/v4/invoices?pageSize=1", "")
	a.do("GET", "/api/v4/invoices/"+small.ID, "")
	a.do("GET", "/api/v4/invoices/nope", "")
	a.do("GET", "/api/v4/invoices/"+small.UUID+"/xml", "")
	a.do("POST", "/api/v4/invoices/pdf", `{"invoiceId":"`+small.ID+`"}`)
	a.do("POST", "/api/v4/invoices/pdf", `{"invoiceId":"`+small.ID+`","bandColor":"blue"}`)
	a.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+small.ID+`"}`)
	a.do("POST", "/api/v4/invoices/status", `{"id":"`+small.ID+`"}`)
	a.do("GET", "/api/v4/stamping-certificate", "")
	a.do("DELETE", "/api/v4/invoices", cancelBody(small.ID, "02", ""))
	f.clock.Add(25 * time.Hour) // past the 24 hours in which no acceptance is needed
	a.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "02", ""))
	a.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{}`)
	a.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{"accept":true}`)
	a.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{"accept":true}`)
	a.do("GET", "/api/v4/events?pageSize=50", "")

	// SAT validations of the stamped invoice's XML (random results in the test environment).
	xml := answerData[api.InvoiceFile](t)(a.do("GET", "/api/v4/invoices/"+small.ID+"/xml", ""))
	a.do("GET", "/api/v4/sat-validations", "")
	a.do("GET", "/api/v4/sat-validations/sat.cfdi.status", "")
	a.do("GET", "/api/v4/sat-validations/nope", "")
	a.do("GET", "/api/v4/sat-validations/sat.blacklist.69b/statuses", "")
	a.do("POST", "/api/v4/sat-validations", `{"xml":"`+xml.Base64File+`","validationTypes":["sat.xml.structure","sat.cfdi.sello"]}`)
	a.do("POST", "/api/v4/sat-validations", `{"tin":"AAA010101AAA","validationTypes":["sat.blacklist.69b"]}`)
	a.do("POST", "/api/v4/sat-validations", `{"tin":"ABC","validationTypes":["sat.blacklist.69b"]}`)

	// Auto CFDI.
	a.do("GET", "/api/v4/auto-invoice/settings", "")
	a.do("PUT", "/api/v4/auto-invoice/settings", `{"allowBillingOutsideMonth":true,"privacyNoticeUrl":"https://example.com/aviso"}`)
	a.do("PUT", "/api/v4/auto-invoice/settings", `{"allowBillingOutsideYear":true}`)
	a.do("PUT", "/api/v4/auto-invoice/settings", `{"allowBillingOutsideMonth":true}`, m.headers()...)
	a.do("GET", "/api/v4/auto-invoice/portal-name", "")
	a.do("GET", "/api/v4/auto-invoice/portal-names/availability?name=tienda-uno", "")
	a.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"tienda-uno"}`)
	a.do("PUT", "/api/v4/auto-invoice/portal-name", `{"name":"tienda-dos"}`)
	a.do("GET", "/api/v4/auto-invoice/portal-name", "")

	// Last, the deletes of what the scenario made.
	a.do("DELETE", "/api/v4/webhooks/"+w.ID, "")
	a.do("DELETE", "/api/v4/people/"+q.ID, "")

	// Sending by e-mail needs a mail transport: a second server, with an SMTP sink.
	sink := mailtest.Start(t)
	sf, sm := sendFixture(t, &mail.SMTP{Host: sink.Host(), Port: sink.Port()})
	b := newAnswerCheck(t, sf)
	sent := answerData[api.Invoice](t)(b.do("POST", "/api/v4/invoices", empBody(byValue(t)), sm.headers()...))
	b.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+sent.ID+`","toEmail":"cliente@example.com"}`, sm.headers()...)
	for pattern, statuses := range b.seen {
		for st := range statuses {
			a.mark(pattern, st)
		}
	}
	ticketAnswers(t, a) // Auto CFDI tickets and the portal: a fixture with an issuer's CSD and a clock

	a.coverage()
	if t.Failed() {
		return
	}
	var statuses []int
	for _, s := range a.seen {
		for st := range s {
			if !slices.Contains(statuses, st) {
				statuses = append(statuses, st)
			}
		}
	}
	slices.Sort(statuses)
	t.Logf("answers checked for %d routes, statuses %v", len(a.seen), statuses)
}
