package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

type fixture struct {
	t     *testing.T
	srv   *Server
	http  *httptest.Server
	creds api.Credentials
	logs  *bytes.Buffer
}

func newFixture(t *testing.T, mutate ...func(*Config)) *fixture {
	t.Helper()
	d, err := OpenData(testData(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	logs := &bytes.Buffer{}
	cfg := Config{Environment: d.Environment, AdminToken: "op-token", Logger: slog.New(slog.NewTextHandler(logs, nil))}
	for _, m := range mutate {
		m(&cfg)
	}
	s, err := New(cfg, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &fixture{t: t, srv: s, http: hs, creds: creds, logs: logs}
}

type result struct {
	status int
	header http.Header
	env    api.RawEnvelope
	raw    string
}

func (f *fixture) do(method, path string, body string, headers ...string) result {
	f.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, f.http.URL+path, rd)
	req.Header.Set("X-TENANT-KEY", f.creds.TenantKey)
	req.Header.Set("X-API-KEY", f.creds.APIKey)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env api.RawEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		f.t.Fatalf("%s %s: answer is not an envelope: %s", method, path, raw)
	}
	if env.HTTPStatusCode != resp.StatusCode {
		f.t.Fatalf("%s %s: httpStatusCode %d differs from status %d", method, path, env.HTTPStatusCode, resp.StatusCode)
	}
	if !strings.HasPrefix(env.TraceIdentifier, "00-") {
		f.t.Fatalf("%s %s: traceIdentifier %q", method, path, env.TraceIdentifier)
	}
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		if resp.Header.Get(h) == "" {
			f.t.Fatalf("%s %s: header %s missing", method, path, h)
		}
	}
	return result{resp.StatusCode, resp.Header, env, string(raw)}
}

func failures(t *testing.T, r result) []api.Failure {
	t.Helper()
	var fs []api.Failure
	if err := json.Unmarshal(r.env.Data, &fs); err != nil {
		t.Fatalf("data is not a list of failures: %s", r.raw)
	}
	return fs
}

func expectFailure(t *testing.T, r result, property, message string) {
	t.Helper()
	if r.status != 400 || r.env.Message != "Sorry, it's not me, it's you." || r.env.Details != "One or more validation failures have occurred." {
		t.Fatalf("want a validation failure, got %d %s", r.status, r.raw)
	}
	for _, f := range failures(t, r) {
		if f.PropertyName == property && f.ErrorMessage == message {
			return
		}
	}
	t.Fatalf("no failure %s: %q in %s", property, message, r.raw)
}

func TestPeopleReadSide(t *testing.T) {
	f := newFixture(t)
	r := f.do("GET", "/api/v4/people", "")
	if r.status != 200 || !r.env.Succeeded || r.env.Message != "" || r.env.Details != "" {
		t.Fatalf("list: %s", r.raw)
	}
	var page api.PagedList[api.Person]
	json.Unmarshal(r.env.Data, &page)
	if page.TotalCount != 1 || page.PageSize != 50 || page.PageNumber != 1 || len(page.Items) != 1 {
		t.Fatalf("page = %+v", page)
	}
	owner := page.Items[0]
	if owner.ID != f.creds.PersonID || !owner.IsOwner || owner.UserTypeID != "T" || owner.ManifestStatusID != "NotInvited" || owner.TenantID != f.creds.TenantKey {
		t.Fatalf("owner = %+v", owner)
	}
	if owner.AvailableBalance != 1000 || owner.AvailableValidationBalance != 1000 || len(owner.Balances) != 3 || owner.Balances[2].CreditType != 3 {
		t.Fatalf("test allotment: %+v", owner.Balances)
	}
	if strings.Contains(r.raw, "passwordHash") {
		t.Fatal("the password hash leaked")
	}
	r = f.do("GET", "/api/v4/people/"+f.creds.PersonID+"?details=true", "")
	if r.status != 200 {
		t.Fatalf("get: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/people/nope", "")
	if r.status != 404 || r.env.Details != "No such resource for the given Id: nope" || r.env.Succeeded {
		t.Fatalf("get absent: %s", r.raw)
	}
	// paging names match case-insensitively, as the official client sends them
	r = f.do("GET", "/api/v4/people?PageNumber=2&PageSize=1", "")
	json.Unmarshal(r.env.Data, &page)
	if r.status != 200 || page.PageNumber != 2 || page.PageSize != 1 || len(page.Items) != 0 || !page.HasPreviousPage {
		t.Fatalf("page 2: %s", r.raw)
	}
}

func TestAuthentication(t *testing.T) {
	f := newFixture(t)
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "other@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"no keys":           {"X-TENANT-KEY", "", "X-API-KEY", ""},
		"wrong api key":     {"X-API-KEY", "sk_test_wrong"},
		"wrong tenant":      {"X-TENANT-KEY", "00000000-0000-0000-0000-000000000000"},
		"key of tenant B":   {"X-API-KEY", other.APIKey},
		"tenant B, A's key": {"X-TENANT-KEY", other.TenantKey},
	}
	for name, h := range cases {
		r := f.do("GET", "/api/v4/people", "", h...)
		if r.status != 401 || r.env.Succeeded || r.env.Message != "Sorry, it's not me, it's you." || r.env.Data[0] != 'n' {
			t.Errorf("%s: %s", name, r.raw)
		}
	}
	if r := f.do("GET", "/api/v4/people", "", "X-TENANT-KEY", other.TenantKey, "X-API-KEY", other.APIKey); r.status != 200 {
		t.Fatalf("tenant B with its own keys: %s", r.raw)
	}
}

func TestEnvelopeOnEveryError(t *testing.T) {
	f := newFixture(t)
	if r := f.do("GET", "/api/v4/nothing-here", ""); r.status != 404 || r.env.Details != "Not Found" {
		t.Errorf("unknown route: %s", r.raw)
	}
	r := f.do("PATCH", "/api/v4/people", "")
	if r.status != 405 || r.header.Get("Allow") != "GET, POST" {
		t.Errorf("wrong method: %d %s allow=%q", r.status, r.raw, r.header.Get("Allow"))
	}
	f.srv.mux.Handle("GET /test/panic", f.srv.publicRoute(f.srv.anonymous, func(*http.Request) (any, error) { panic("boom") }))
	r = f.do("GET", "/test/panic", "")
	if r.status != 500 || r.env.Succeeded {
		t.Fatalf("panic: %s", r.raw)
	}
	if !strings.Contains(f.logs.String(), r.env.TraceIdentifier) || !strings.Contains(f.logs.String(), "boom") {
		t.Fatal("the 500 is not logged with its trace identifier")
	}
}

func TestRequestParsing(t *testing.T) {
	f := newFixture(t)
	empty := "El cuerpo de la petición es requerido y no debe estar vacío."
	expectFailure(t, f.do("POST", "/api/v4/apikeys", ""), "$", empty)
	expectFailure(t, f.do("POST", "/api/v4/apikeys", " null "), "$", empty)
	r := f.do("POST", "/api/v4/apikeys", `{"personId": }`)
	if fs := failures(t, r); r.status != 400 || fs[0].PropertyName != "$" || !strings.Contains(fs[0].ErrorMessage, "Invalid character") || fs[0].ErrorCode != nil {
		t.Errorf("malformed: %s", r.raw)
	}
	r = f.do("POST", "/api/v4/apikeys", `{"personId": 5}`)
	if fs := failures(t, r); fs[0].PropertyName != "$.personId" || !strings.HasPrefix(fs[0].ErrorMessage, "The JSON value could not be converted to a string.") {
		t.Errorf("wrong type: %s", r.raw)
	}
	r = f.do("POST", "/api/v4/apikeys", `[1,2]`)
	if fs := failures(t, r); fs[0].PropertyName != "$" {
		t.Errorf("other root shape: %s", r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/people?pageNumber=abc", ""), "PageNumber", "El valor 'abc' no es válido para PageNumber.")
	expectFailure(t, f.do("GET", "/api/v4/people?PAGESIZE=51", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
	r = f.do("GET", "/api/v4/people?pageNumber=0&pageSize=x", "")
	if fs := failures(t, r); len(fs) != 2 {
		t.Errorf("all failures in one answer: %s", r.raw)
	}
	big := `{"description":"` + strings.Repeat("a", MaxBodyBytes) + `"}`
	if r := f.do("POST", "/api/v4/apikeys", big); r.status != 413 || r.env.Details != "El cuerpo de la petición excede el límite de 10 MB." {
		t.Errorf("oversized body: %d %.200s", r.status, r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/people", "", "X-TIME-ZONE", "Mars/Olympus"), "X-TIME-ZONE",
		"La zona horaria 'Mars/Olympus' no existe: usa un nombre IANA, por ejemplo America/Mexico_City.")
	if r := f.do("GET", "/api/v4/people", "", "X-TIMEZONE", "America/Mexico_City"); r.status != 200 {
		t.Errorf("X-TIMEZONE spelling: %s", r.raw)
	}
}

func TestRateLimit(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.StandardLimit = 2 })
	for i := range 2 {
		r := f.do("GET", "/api/v4/people", "")
		if r.status != 200 || r.header.Get("RateLimit-Limit") != "2" || r.header.Get("RateLimit-Remaining") != []string{"1", "0"}[i] {
			t.Fatalf("request %d: %d remaining=%s", i, r.status, r.header.Get("RateLimit-Remaining"))
		}
	}
	r := f.do("GET", "/api/v4/people", "")
	if r.status != 429 || r.env.Message != "Too Many Requests" || string(r.env.Data) != "null" || r.header.Get("Retry-After") == "" ||
		!strings.Contains(r.env.Details, "Standard") || !strings.Contains(r.env.Details, "60 s") {
		t.Fatalf("429: %s retry-after=%q", r.raw, r.header.Get("Retry-After"))
	}
	// 2 a minute is one every 30 s: that is when the next one passes, to the second
	if r.header.Get("Retry-After") != "30" || !strings.Contains(r.env.Details, "Espera 30 s") {
		t.Fatalf("Retry-After %q, details %q: want 30 s", r.header.Get("Retry-After"), r.env.Details)
	}
}

// TestProbesAndOperatorApart: health probes and the operator (its API, /metrics) are counted per
// address apart from anonymous callers: when the anonymous limit of an address is used up (a
// scan, a busy portal), its probes and its operator still pass, and the reverse.
func TestProbesAndOperatorApart(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.AnonymousLimit = 3 })
	bearer := []string{"Authorization", "Bearer op-token", "X-TENANT-KEY", "", "X-API-KEY", ""}
	for range 3 {
		f.do("GET", "/no/such/route", "")
	}
	if r := f.do("GET", "/no/such/route", ""); r.status != 429 {
		t.Fatalf("the anonymous limit of 3 was not used up: %d", r.status)
	}
	for range 3 {
		if r := f.do("GET", "/healthz", ""); r.status != 200 {
			t.Fatalf("a health probe once the anonymous limit is used up: %d %s", r.status, r.raw)
		}
		if r := f.do("GET", "/admin/v1/tenants", "", bearer...); r.status != 200 {
			t.Fatalf("the operator once the anonymous limit is used up: %d %s", r.status, r.raw)
		}
	}
	if r := f.do("GET", "/healthz", ""); r.status != 429 || !strings.Contains(r.env.Details, "Probe") {
		t.Fatalf("probes have a limit of their own: %d %s", r.status, r.raw)
	}
	if r := f.do("GET", "/admin/v1/tenants", "", bearer...); r.status != 429 || !strings.Contains(r.env.Details, "Operator") {
		t.Fatalf("the operator has a limit of its own: %d %s", r.status, r.raw)
	}
}

func TestAPIKeys(t *testing.T) {
	f := newFixture(t)
	r := f.do("POST", "/api/v4/apikeys", `{"description":"ci"}`)
	var k api.APIKey
	json.Unmarshal(r.env.Data, &k)
	if r.status != 200 || k.PersonID != f.creds.PersonID || k.APIKeyStatus != 1 || !strings.HasPrefix(k.APIKeyValue, "sk_test_") || k.Environment != "test" {
		t.Fatalf("create: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/people", "", "X-API-KEY", k.APIKeyValue); r.status != 200 {
		t.Fatalf("the new key does not authenticate: %s", r.raw)
	}
	if r := f.do("PUT", "/api/v4/apikeys/"+k.ID, `{"id":"other","apiKeyStatus":0}`); r.status != 400 {
		t.Fatalf("id mismatch: %s", r.raw)
	}
	expectFailure(t, f.do("PUT", "/api/v4/apikeys/"+k.ID, `{"apiKeyStatus":7}`), "ApiKeyStatus", "'Api Key Status' tiene un rango de valores que no incluye '7'.")
	if r := f.do("PUT", "/api/v4/apikeys/"+k.ID, `{"id":"`+k.ID+`","apiKeyStatus":0}`); r.status != 200 {
		t.Fatalf("suspend: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/people", "", "X-API-KEY", k.APIKeyValue); r.status != 401 {
		t.Fatalf("a suspended key authenticates: %s", r.raw)
	}
	if r := f.do("DELETE", "/api/v4/apikeys/"+k.ID, ""); r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/apikeys/"+k.ID, ""); r.status != 404 {
		t.Fatalf("get after delete: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/apikeys", "")
	var page api.PagedList[api.APIKey]
	json.Unmarshal(r.env.Data, &page)
	if page.TotalCount != 1 || page.PageSize != 10 || page.Items[0].APIKeyValue != f.creds.APIKey {
		t.Fatalf("list: %s", r.raw)
	}
}

func TestAdminAPI(t *testing.T) {
	f := newFixture(t)
	if r := f.do("GET", "/admin/v1/tenants", ""); r.status != 401 {
		t.Fatalf("no operator token: %s", r.raw)
	}
	bearer := []string{"Authorization", "Bearer op-token"}
	r := f.do("POST", "/admin/v1/tenants", `{"ownerEmail":"second@example.com"}`, bearer...)
	var c api.Credentials
	json.Unmarshal(r.env.Data, &c)
	if r.status != 200 || c.APIKey == "" || c.Environment != "test" {
		t.Fatalf("create tenant: %s", r.raw)
	}
	expectFailure(t, f.do("POST", "/admin/v1/tenants", `{"ownerEmail":"SECOND@example.com "}`, bearer...), "OwnerEmail", "The email is already registered.")
	r = f.do("POST", "/admin/v1/tenants/"+c.TenantKey+"/credits", `{"creditType":1,"amount":5}`, bearer...)
	var b api.CreditBalances
	json.Unmarshal(r.env.Data, &b)
	if r.status != 200 || b.PersonID != c.PersonID || b.Balances[0].Available != 1005 {
		t.Fatalf("grant: %s", r.raw)
	}
	r = f.do("POST", "/admin/v1/tenants/"+c.TenantKey+"/credits", `{"creditType":1,"amount":-2000}`, bearer...)
	if r.status != 400 {
		t.Fatalf("overdraw: %s", r.raw)
	}
	expectFailure(t, f.do("POST", "/admin/v1/tenants", `{"ownerEmail":"a@b.c","extra":1}`, bearer...), "$.extra", "El campo 'extra' no existe en este recurso.")
	r = f.do("GET", "/admin/v1/tenants", "", bearer...)
	var ts []api.Tenant
	json.Unmarshal(r.env.Data, &ts)
	if len(ts) != 2 {
		t.Fatalf("tenants: %s", r.raw)
	}
}

// testData is a new database of the test's own: a bbolt file, or a PostgreSQL schema when
// TIMBRA_TEST_BACKEND is postgres (the server's tests run on both in CI).
func testData(t *testing.T) DataOptions {
	dir := t.TempDir()
	if pgtest.Chosen() {
		return DataOptions{Database: pgtest.URL(t), MasterKeyFile: filepath.Join(dir, "master.key")}
	}
	return DataOptions{Path: filepath.Join(dir, "t.db")}
}

func TestGracefulShutdown(t *testing.T) {
	d, err := OpenData(DataOptions{Path: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Store.Close()
	s, err := New(Config{Environment: d.Environment, Logger: slog.New(slog.DiscardHandler)}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	started := make(chan struct{})
	s.mux.Handle("GET /test/slow", s.publicRoute(s.anonymous, func(*http.Request) (any, error) {
		close(started)
		<-release
		return "done", nil
	}))
	ln := httptest.NewUnstartedServer(nil).Listener
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	answer := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/test/slow")
		if err != nil {
			answer <- err.Error()
			return
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answer <- string(raw)
	}()
	<-started
	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned before the in-flight request finished: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if got := <-answer; !strings.Contains(got, `"data":"done"`) {
		t.Fatalf("in-flight request: %s", got)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
