package trigger

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEdits(t *testing.T) {
	fx := &Fixture{Fixtures: []Step{invoiceStep(), cancelStep("${invoice:id}")}}
	var edits []edit
	for _, e := range [][2]string{
		{"add", "invoice:series=F"},
		{"add", "folio=12"}, // the first step; JSON: a number
		{"override", "invoice:recipient.tin=XEXX010101000"},
		{"override", "invoice:recipient.zipCode=01000"}, // a string stays a string
		{"override", "invoice:items[0].quantity=3"},
		{"add", "invoice:items[1]={\"itemCode\":\"01010101\",\"quantity\":1}"},
		{"add", "invoice:items[0].discount=\"5\""},
		{"remove", "invoice:items[0].taxObjectCode"},
		{"override", "cancel:cancellationReasonCode=03"},
	} {
		ed, err := parseEdit(e[0], e[1])
		if err != nil {
			t.Fatal(err)
		}
		edits = append(edits, ed)
	}
	if err := applyEdits(fx, edits); err != nil {
		t.Fatal(err)
	}
	inv := mustJSON(t, fx.Fixtures[0].Params)
	for _, want := range []string{`"series":"F"`, `"folio":12`, `"tin":"XEXX010101000"`, `"zipCode":"01000"`, `"quantity":3`,
		`{"itemCode":"01010101","quantity":1}`, `"discount":"5"`} {
		if !strings.Contains(inv, want) {
			t.Errorf("the invoice lacks %s: %s", want, inv)
		}
	}
	if strings.Contains(inv, `"taxObjectCode":"01","unitOfMeasurementCode"`) || strings.Count(inv, "taxObjectCode") != 0 {
		t.Errorf("taxObjectCode not removed: %s", inv)
	}
	if c := mustJSON(t, fx.Fixtures[1].Params); c != `{"cancellationReasonCode":"03","id":"${invoice:id}"}` {
		t.Errorf("cancel %s", c)
	}

	// a path that is not there, or is, is said rather than sent
	for _, c := range []struct{ op, arg, want string }{
		{"add", "invoice:typeCode=E", `--add invoice:typeCode=E: typeCode of step invoice is already I; use --override`},
		{"override", "invoice:serie=F", "--override invoice:serie=F: serie of step invoice is not set; use --add"},
		{"remove", "invoice:items[3]", "--remove invoice:items[3]: items[3] of step invoice is not set"},
		{"add", "refund:amount=1", `--add refund:amount=1: no step "refund"; the steps are invoice, cancel`},
		{"add", "invoice:typeCode.x=1", "x: what is there (I) is not an object or a list"},
		{"add", "invoice:recipient[0]=1", "[0]: an object has no items (use a key)"},
		{"add", "invoice:items[5].x=1", "[5]: the list has 1 items"},
	} {
		fx := &Fixture{Fixtures: []Step{invoiceStep(), cancelStep("${invoice:id}")}}
		ed, err := parseEdit(c.op, c.arg)
		if err == nil {
			err = applyEdits(fx, []edit{ed})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--%s %s: %v, want %q", c.op, c.arg, err, c.want)
		}
	}
}

func TestCheckFixture(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"fixtures":[]}`, "no steps"},
		{`{"fixtures":[{"name":"a b","path":"/x","method":"get"}]}`, "a name is letters"},
		{`{"fixtures":[{"name":"a","path":"/x","method":"get"},{"name":"a","path":"/x","method":"get"}]}`, "another step has that name"},
		{`{"fixtures":[{"name":"a","path":"/x","method":"fetch"}]}`, `method "fetch"`},
		{`{"fixtures":[{"name":"a","path":"api/v4/x","method":"get"}]}`, "give the API's path"},
		{`{"fixtures":[{"name":"a","path":"/x","method":"post","params":{"id":"${b:id}"}},{"name":"b","path":"/x","method":"get"}]}`, `${b:id}: no step before this one is named "b"`},
		{`{"fixtures":[{"name":"a","path":"/x/${a:id}","method":"get"}]}`, "refers to its own step"},
		{`{"fixtures":[{"name":"a","path":"/x","method":"get","parmas":{}}]}`, `unknown field "parmas"`},
		{`{"fixtures":[{"name":"a","path":"/x","method":"get","params":{"q":"${.caller:items[}"}}]}`, "a [ without its ]"},
	} {
		_, err := parseFixture([]byte(c.raw))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.raw, err, c.want)
		}
	}
}

// TestRunnerReferences runs a fixture against a fake API: each step reads the answers before
// it, the environment and the caller; a whole-string reference keeps its type.
func TestRunnerReferences(t *testing.T) {
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "POST /api/v4/products":
			cmdtest.WriteEnvelope(w, 201, map[string]any{"id": "prod-1", "unitPrice": 12.5, "taxes": []any{map[string]any{"rate": "0.16"}}}, "", "t")
		case "GET /api/v4/products/prod-1":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"id": "prod-1", "q": r.URL.RawQuery}, "", "t")
		case "PUT /api/v4/products/prod-1":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"id": "prod-1"}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
		}
	})
	fx, err := parseFixture([]byte(`{"_meta":{"template_version":0},"fixtures":[
	  {"name":"p","path":"/api/v4/products","method":"post","params":{"description":"${.env:DESC|Lápiz}","zip":"${.caller:zipCode}"}},
	  {"name":"get","path":"/api/v4/products/${p:id}","method":"get","params":{"rate":"${p:taxes[0].rate}"}},
	  {"name":"put","path":"/api/v4/products/${get:id}","method":"put","params":{"price":"${p:unitPrice}","text":"id ${p:id} at ${p:unitPrice}"}},
	  {"name":"bad","path":"/api/v4/products/${p:nope}","method":"get"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{client: &api.Client{BaseURL: srv.URL}, answers: map[string]any{},
		getenv: func(string) (string, bool) { return "", false },
		caller: func(context.Context) (any, error) { return map[string]any{"zipCode": "42501"}, nil }}
	ctx := context.Background()
	for _, s := range fx.Fixtures[:3] {
		if _, err := r.run(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if reqs[0].Body != `{"description":"Lápiz","zip":"42501"}` || reqs[1].Query != "rate=0.16" ||
		reqs[2].Body != `{"price":12.5,"text":"id prod-1 at 12.5"}` {
		t.Errorf("requests %+v", reqs)
	}
	_, err = r.run(ctx, fx.Fixtures[3])
	if err == nil || err.Error() != "step bad (GET /api/v4/products/${p:nope}) failed:\n  ${p:nope}: the answer of step p has no nope" {
		t.Errorf("a missing answer field: %v", err)
	}
}

// TestRealPlan: the steps of each type on an existing invoice, by its state, and the refusals.
func TestRealPlan(t *testing.T) {
	var status, cancelable string
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v4/invoices/inv-1":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"id": "inv-1", "uuid": "U-1", "status": status}, "", "t")
		case "POST /api/v4/invoices/status":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"cancelableStatus": cancelable}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
		}
	})
	client := &api.Client{BaseURL: srv.URL}
	const with, without = "Cancelable con aceptación", "Cancelable sin aceptación"
	for _, c := range []struct {
		typ, status, cancelable string
		steps                   string // step names, or the error's start
		confirm                 bool
	}{
		{"invoice.canceled", "Vigente", without, "cancel", true},
		{"invoice.canceled", "Vigente", with, "cancel answer", true},
		{"invoice.canceled", "EnProcesoDeCancelacion", with, "answer", true},
		{"invoice.canceled", "Cancelado", without, "invoice inv-1 is Cancelado already", false},
		{"invoice.canceled", "Vigente", "No cancelable", "invoice inv-1 is Vigente and No cancelable", false},
		{"invoice.cancellation_requested", "Vigente", with, "cancel", true},
		{"invoice.cancellation_requested", "Vigente", without, "invoice inv-1 is Vigente and Cancelable sin aceptación: SAT would cancel it at once", false},
		{"invoice.cancellation_requested", "EnProcesoDeCancelacion", with, "invoice inv-1 is EnProcesoDeCancelacion already", false},
		{"invoice.cancellation_rejected", "Vigente", with, "cancel answer", false},
		{"invoice.cancellation_rejected", "EnProcesoDeCancelacion", with, "answer", false},
		{"invoice.cancellation_rejected", "Cancelado", without, "invoice inv-1 is Cancelado: only a valid invoice", false},
		{"invoice.stamped", "Vigente", without, "invoice.stamped stamps a new invoice", false},
	} {
		status, cancelable = c.status, c.cancelable
		p, err := realPlan(context.Background(), client, c.typ, "inv-1")
		var got string
		if err != nil {
			got = err.Error()
		} else {
			var names []string
			for _, s := range p.steps {
				names = append(names, s.Name)
			}
			got = strings.Join(names, " ")
			if (p.confirm != "") != c.confirm || p.related != "inv-1" {
				t.Errorf("%s on %s: confirm %q, related %q", c.typ, c.status, p.confirm, p.related)
			}
		}
		if !strings.HasPrefix(got, c.steps) {
			t.Errorf("%s on %s (%s): %q, want %q", c.typ, c.status, c.cancelable, got, c.steps)
		}
	}
	if p, err := realPlan(context.Background(), client, "invoice.canceled", ""); err != nil || len(p.steps) != 2 || p.steps[1].Params.(map[string]any)["id"] != "${invoice:id}" {
		t.Errorf("a new invoice cancelled: %+v %v", p, err)
	}
	for _, related := range []string{"", "d-1"} {
		if _, err := realPlan(context.Background(), client, "download_request.completed", related); err == nil ||
			!strings.Contains(err.Error(), "timbra trigger download_request.completed --synthetic") {
			t.Errorf("a download request's event (%q): %v", related, err)
		}
	}
}

// TestExampleFixture: the fixture of docs/examples reads and checks.
func TestExampleFixture(t *testing.T) {
	fx, err := readFixture(testpaths.Repo("docs", "examples", "fixture.json"))
	if err != nil || len(fx.Fixtures) != 4 {
		t.Fatalf("%v", err)
	}
}
