package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/validations"
	"github.com/timbra-mx/timbra/storage"
)

var catalogOrder = []string{"sat.xml.structure", "sat.certificate.validity", "sat.cfdi.sello", "sat.tfd.sello",
	"sat.cfdi.status", "sat.blacklist.69b", "sat.blacklist.69bbis"}

func TestValidationTypesRead(t *testing.T) {
	f := newFixture(t)
	r := f.do("GET", "/api/v4/sat-validations", "")
	var types []api.SatValidationType
	if r.status != 200 || json.Unmarshal(r.env.Data, &types) != nil {
		t.Fatalf("list: %s", r.raw)
	}
	if len(types) != len(catalogOrder) {
		t.Fatalf("types: %+v", types)
	}
	for i, ty := range types {
		if ty.ID != catalogOrder[i] || ty.Description == "" {
			t.Fatalf("type %d: %+v", i, ty)
		}
	}
	if types[4].Description != "Estado actual del CFDI en el SAT" {
		t.Fatalf("description from the catalog: %q", types[4].Description)
	}

	// The id travels with its periods as they are.
	r = f.do("GET", "/api/v4/sat-validations/sat.cfdi.status", "")
	var one api.SatValidationType
	if r.status != 200 || json.Unmarshal(r.env.Data, &one) != nil || one != types[4] {
		t.Fatalf("get: %s", r.raw)
	}
	for _, id := range []string{"sat.cfdi", "SAT.CFDI.STATUS", "x"} {
		if r := f.do("GET", "/api/v4/sat-validations/"+id, ""); r.status != 404 || r.env.Succeeded {
			t.Fatalf("get %s: %s", id, r.raw)
		}
		if r := f.do("GET", "/api/v4/sat-validations/"+id+"/statuses", ""); r.status != 404 {
			t.Fatalf("statuses %s: %s", id, r.raw)
		}
	}

	// Statuses: passing first, then by id; no passed field.
	r = f.do("GET", "/api/v4/sat-validations/sat.blacklist.69b/statuses", "")
	if r.status != 200 || strings.Contains(string(r.env.Data), "passed") {
		t.Fatalf("statuses: %s", r.raw)
	}
	var sts []api.SatValidationTypeStatus
	json.Unmarshal(r.env.Data, &sts)
	var ids []string
	for _, s := range sts {
		ids = append(ids, s.ID)
	}
	want := "Desvirtuado NoListado SentenciaFavorable Definitivo NoDisponible Omitido Presunto"
	if strings.Join(ids, " ") != want {
		t.Fatalf("statuses order: %v, want %s", ids, want)
	}
	r = f.do("GET", "/api/v4/sat-validations/sat.xml.structure/statuses", "")
	sts = nil
	json.Unmarshal(r.env.Data, &sts)
	if len(sts) != 4 || sts[0].ID != "Valido" || sts[1].ID != "Invalido" || sts[2].ID != "NoDisponible" || sts[3].ID != "Omitido" {
		t.Fatalf("structure statuses: %s", r.raw)
	}
}

func validationBalance(t *testing.T, f *fixture, m member) float64 {
	t.Helper()
	_, v, _ := personBalances(t, f, m.person)
	return v
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestValidateRequestRules(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	before := validationBalance(t, f, owner)
	xml := `"` + b64("<x/>") + `"`
	cases := []struct {
		name, body, property, message string
	}{
		{"neither", `{"validationTypes":["sat.blacklist.69b"]}`, "Xml", validations.MsgXMLOrTIN},
		{"both", `{"xml":` + xml + `,"tin":"AAA010101AAA","validationTypes":["sat.blacklist.69b"]}`, "Xml", validations.MsgXMLAndTIN},
		{"empty xml", `{"xml":"","validationTypes":["sat.xml.structure"]}`, "Xml", validations.MsgXMLEmpty},
		{"not base64", `{"xml":"<cfdi:Comprobante/>","validationTypes":["sat.xml.structure"]}`, "Xml", validations.MsgXMLBase64},
		{"too long", `{"xml":"` + strings.Repeat("A", validations.MaxXMLChars+4) + `","validationTypes":["sat.xml.structure"]}`, "Xml",
			"'xml' no puede pasar de 4000000 caracteres: tiene 4000004."},
		{"empty tin", `{"tin":" ","validationTypes":["sat.blacklist.69b"]}`, "Tin", validations.MsgTINEmpty},
		{"bad tin", `{"tin":"ABC","validationTypes":["sat.blacklist.69b"]}`, "Tin", validations.MsgTINInvalid},
		{"tin of 31 September", `{"tin":"aaa010931aaa","validationTypes":["sat.blacklist.69b"]}`, "Tin",
			"El RFC 'AAA010931AAA' no es válido: su fecha 010931 (AAMMDD) no existe en el calendario."},
		{"types missing", `{"tin":"AAA010101AAA"}`, "ValidationTypes", validations.MsgTypesRequired},
		{"types null", `{"tin":"AAA010101AAA","validationTypes":null}`, "ValidationTypes", validations.MsgTypesRequired},
		{"types empty", `{"tin":"AAA010101AAA","validationTypes":[]}`, "ValidationTypes", validations.MsgTypesEmpty},
		{"empty element", `{"xml":` + xml + `,"validationTypes":["sat.xml.structure",""]}`, "ValidationTypes[1]", validations.MsgTypeEmpty},
		{"null element", `{"xml":` + xml + `,"validationTypes":[null]}`, "ValidationTypes[0]", validations.MsgTypeEmpty},
		{"duplicate", `{"xml":` + xml + `,"validationTypes":["sat.cfdi.sello","sat.cfdi.sello"]}`, "ValidationTypes[1]",
			"El tipo de validación 'sat.cfdi.sello' está repetido."},
		{"unknown", `{"xml":` + xml + `,"validationTypes":["sat.cfdi.selo"]}`, "ValidationTypes[0]",
			"El tipo de validación 'sat.cfdi.selo' no existe o no está activo."},
		{"tin with a CFDI type", `{"tin":"AAA010101AAA","validationTypes":["sat.blacklist.69b","sat.cfdi.status"]}`, "ValidationTypes[1]",
			"Con 'tin' solo se pueden pedir sat.blacklist.69b y sat.blacklist.69bbis: 'sat.cfdi.status' requiere 'xml'."},
		{"wrong type", `{"tin":"AAA010101AAA","validationTypes":"sat.blacklist.69b"}`, "$.validationTypes", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := f.do("POST", "/api/v4/sat-validations", c.body)
			if c.message == "" {
				if r.status != 400 || failures(t, r)[0].PropertyName != c.property {
					t.Fatalf("%s", r.raw)
				}
				return
			}
			expectFailure(t, r, c.property, c.message)
			if strings.Contains(r.raw, "PENDIENTE") || len(r.raw) > 100_000 {
				t.Fatalf("the xml is echoed: %d bytes", len(r.raw))
			}
		})
	}
	// All failures of one body come together.
	r := f.do("POST", "/api/v4/sat-validations", `{"validationTypes":["","x","x"]}`)
	if fs := failures(t, r); len(fs) != 4 {
		t.Fatalf("want 4 failures: %s", r.raw)
	}
	if got := validationBalance(t, f, owner); got != before {
		t.Fatalf("a malformed request used credits: %v → %v", before, got)
	}
}

func TestValidateTestEnvironment(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	before := validationBalance(t, f, owner)
	// Any XML (it is not read in the test environment), types in reverse order.
	rev := make([]string, len(catalogOrder))
	for i, id := range catalogOrder {
		rev[len(rev)-1-i] = id
	}
	body, _ := json.Marshal(map[string]any{"xml": b64("not even xml"), "validationTypes": rev})
	seen := map[string]map[string]bool{}
	const runs = 40
	for range runs {
		r := f.do("POST", "/api/v4/sat-validations", string(body))
		var res []api.SatValidationResult
		if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &res) != nil {
			t.Fatalf("validate: %s", r.raw)
		}
		if len(res) != len(catalogOrder) {
			t.Fatalf("results: %s", r.raw)
		}
		if strings.Count(string(r.env.Data), `"details":null`) != len(catalogOrder) {
			t.Fatalf("details must be null: %s", r.env.Data)
		}
		for i, x := range res {
			if x.Type.ID != catalogOrder[i] {
				t.Fatalf("not in catalog order: %s", r.env.Data)
			}
			if x.Status.ID == validations.NoDisponible || x.Status.ID == validations.Omitido {
				t.Fatalf("test environment answered %s", x.Status.ID)
			}
			def := statusDef(t, x.Type.ID, x.Status.ID)
			if def.Passed != x.Passed || def.Description != x.Status.Description {
				t.Fatalf("result %+v against %+v", x, def)
			}
			if seen[x.Type.ID] == nil {
				seen[x.Type.ID] = map[string]bool{}
			}
			seen[x.Type.ID][x.Status.ID] = true
		}
	}
	if len(seen["sat.blacklist.69b"]) < 2 {
		t.Fatalf("results are not random: %v", seen)
	}
	if got := validationBalance(t, f, owner); got != before-runs*float64(len(catalogOrder)) {
		t.Fatalf("balance %v, want %v", got, before-runs*float64(len(catalogOrder)))
	}

	// tin: only the lists, charged one per type.
	r := f.do("POST", "/api/v4/sat-validations", `{"tin":"aaa010101aaa","validationTypes":["sat.blacklist.69bbis","sat.blacklist.69b"]}`)
	var res []api.SatValidationResult
	if r.status != 200 || json.Unmarshal(r.env.Data, &res) != nil || len(res) != 2 || res[0].Type.ID != "sat.blacklist.69b" {
		t.Fatalf("tin: %s", r.raw)
	}
}

func statusDef(t *testing.T, typ, id string) validations.StatusDef {
	t.Helper()
	for _, d := range validations.Statuses(typ) {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("%s does not accept %s", typ, id)
	return validations.StatusDef{}
}

type checkerFunc func(ctx context.Context, in validations.Input, types []string) (map[string]validations.Outcome, error)

func (c checkerFunc) Check(ctx context.Context, in validations.Input, types []string) (map[string]validations.Outcome, error) {
	return c(ctx, in, types)
}

func TestValidateCredits(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	poor := addMemberDirect(t, f, owner.tenant, owner.person, "poor@example.com", storage.Balance{CreditType: api.CreditValidation, Available: 2})
	three := `{"xml":"` + b64("<x/>") + `","validationTypes":["sat.xml.structure","sat.cfdi.sello","sat.tfd.sello"]}`

	// Insufficient: 403, nothing used.
	r := f.do("POST", "/api/v4/sat-validations", three, poor.headers()...)
	if r.status != 403 || r.env.Details != "No tienes créditos de validación suficientes: la petición usa 3 (uno por tipo) y tienes 2." {
		t.Fatalf("insufficient: %s", r.raw)
	}
	if got := validationBalance(t, f, poor); got != 2 {
		t.Fatalf("403 used credits: %v", got)
	}
	// Exactly enough: charged to zero.
	r = f.do("POST", "/api/v4/sat-validations", `{"tin":"AAA010101AAA","validationTypes":["sat.blacklist.69b","sat.blacklist.69bbis"]}`, poor.headers()...)
	if r.status != 200 || validationBalance(t, f, poor) != 0 {
		t.Fatalf("exact balance: %s", r.raw)
	}

	// A technical failure: 500, refunded.
	before := validationBalance(t, f, owner)
	f.srv.validations.Checker = checkerFunc(func(ctx context.Context, in validations.Input, types []string) (map[string]validations.Outcome, error) {
		return nil, errors.New("the verifier broke")
	})
	r = f.do("POST", "/api/v4/sat-validations", three)
	if r.status != 500 || validationBalance(t, f, owner) != before {
		t.Fatalf("technical failure: %s, balance %v → %v", r.raw, before, validationBalance(t, f, owner))
	}
	// A checker that breaks its contract is a technical failure too.
	f.srv.validations.Checker = checkerFunc(func(ctx context.Context, in validations.Input, types []string) (map[string]validations.Outcome, error) {
		out := map[string]validations.Outcome{}
		for _, ty := range types {
			out[ty] = validations.Outcome{Status: validations.NoListado}
		}
		return out, nil
	})
	r = f.do("POST", "/api/v4/sat-validations", three)
	if r.status != 500 || validationBalance(t, f, owner) != before {
		t.Fatalf("bad outcome: %s", r.raw)
	}

	// Cancelled by the caller: the charge stays and no result is sent.
	started, finished := make(chan struct{}), make(chan struct{})
	f.srv.validations.Checker = checkerFunc(func(ctx context.Context, in validations.Input, types []string) (map[string]validations.Outcome, error) {
		defer close(finished)
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", f.http.URL+"/api/v4/sat-validations", strings.NewReader(three))
	req.Header.Set("X-TENANT-KEY", f.creds.TenantKey)
	req.Header.Set("X-API-KEY", f.creds.APIKey)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled request got an answer")
	}
	<-finished
	if got := validationBalance(t, f, owner); got != before-3 {
		t.Fatalf("cancelled request: balance %v, want %v", got, before-3)
	}
}

// An invoice the server stamped (POST /api/v4/invoices) passes the production checks: its
// SelloSAT verifies with the server's own stamping certificate, which the trust store reads from
// the database once the invoices area has made it (after the server started). Its status is the
// server's own (it stamped it): Vigente, then Cancelado once cancelled; a CFDI of the server's
// stamp that it does not hold is NoEncontrado; without the server's own answer, the status
// service is not configured (NoDisponible).
func TestValidateOwnStampInProduction(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	prod, err := validations.NewProduction(validations.Config{}, ownStampCertificate(f.srv.accounts.Store), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.validations.Checker = prod // the server runs in the test environment; the checker is production's
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", mustJSON(t, byValue(t)), m.headers()...))
	body := mustJSON(t, map[string]any{"xml": inv.Responses[0].InvoiceBase64,
		"validationTypes": []string{"sat.tfd.sello", "sat.cfdi.sello", "sat.xml.structure", "sat.certificate.validity", "sat.cfdi.status"}})
	r := f.do("POST", "/api/v4/sat-validations", body)
	var res []api.SatValidationResult
	if r.status != 200 || json.Unmarshal(r.env.Data, &res) != nil || len(res) != 5 {
		t.Fatalf("validate: %s", r.raw)
	}
	want := []string{"Valido", "Vigente", "Valido", "Valido", "NoDisponible"}
	for i, x := range res {
		if x.Status.ID != want[i] || x.Passed != (i < 4) {
			t.Errorf("%s: %s (%v), want %s", x.Type.ID, x.Status.ID, deref(x.Status.Details), want[i])
		}
	}

	status := func(xmlB64 string) api.SatValidationResult {
		t.Helper()
		r := f.do("POST", "/api/v4/sat-validations", mustJSON(t, map[string]any{"xml": xmlB64, "validationTypes": []string{"sat.cfdi.status"}}))
		var res []api.SatValidationResult
		if r.status != 200 || json.Unmarshal(r.env.Data, &res) != nil || len(res) != 1 {
			t.Fatalf("validate: %s", r.raw)
		}
		return res[0]
	}
	prod.Own = f.srv.invoices
	if got := status(inv.Responses[0].InvoiceBase64); got.Status.ID != "Vigente" || !got.Passed {
		t.Fatalf("own invoice: %+v", got)
	}
	if r := f.do("DELETE", "/api/v4/invoices", cancelBody(inv.ID, "02", "")); r.status != 200 {
		t.Fatalf("cancel: %s", r.raw)
	}
	if got := status(inv.Responses[0].InvoiceBase64); got.Status.ID != "Cancelado" || got.Passed {
		t.Fatalf("own cancelled invoice: %+v", got)
	}
	// the server's stamp on a document it does not hold (the total changed) is not found
	raw, _ := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
	forged := strings.Replace(string(raw), `Total="`+string(inv.Total)+`"`, `Total="1.00"`, 1)
	if forged == string(raw) {
		t.Fatal("the total was not replaced")
	}
	if got := status(base64.StdEncoding.EncodeToString([]byte(forged))); got.Status.ID != "NoEncontrado" || got.Passed {
		t.Fatalf("forged invoice: %+v", got)
	}
	// a CFDI of another provider is not the server's to answer (no status service: NoDisponible)
	sample, err := os.ReadFile(filepath.Join(sharedSat, "samples", "cfdi40-real.xml"))
	if err != nil {
		t.Skipf("needs SAT's sample CFDI: %v", err)
	}
	if got := status(base64.StdEncoding.EncodeToString(sample)); got.Status.ID != "NoDisponible" {
		t.Fatalf("another provider's CFDI: %+v", got)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
