package products

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// productEcho answers a create or update with the body it received, as a product.
func productEcho(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			cmdtest.WriteEnvelope(w, 200, true, "", "t")
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/api/v4/products" {
			rate := api.Decimal("0.160000")
			page := api.NewPage([]api.Product{{ID: "p-1", Description: "Lápiz", UnitPrice: "12.5", SatUnitMeasurementID: "H87",
				SatProductCodeID: "44121706", ProductTaxes: []api.ProductTax{{TaxID: "002", TaxTypeID: "Tasa", TaxFlagID: "T", Rate: &rate}},
				CreatedAt: "2026-01-02T03:04:05"}}, 1, 50, 1)
			cmdtest.WriteEnvelope(w, 200, page, "", "t")
			return
		}
		var in api.ProductInput
		json.NewDecoder(r.Body).Decode(&in)
		p := api.Product{ID: "p-1", Description: "Lápiz", UnitPrice: "12.5", SatUnitMeasurementID: "H87",
			SatUnitMeasurement: &api.CatalogRecord{ID: "H87", Description: "Pieza"}}
		if in.Description != nil {
			p.Description = *in.Description
		}
		if in.ProductTaxes != nil {
			for _, t := range *in.ProductTaxes {
				p.ProductTaxes = append(p.ProductTaxes, api.ProductTax{TaxID: *t.TaxID, TaxTypeID: *t.TaxTypeID, TaxFlagID: *t.TaxFlagID, Rate: t.Rate})
			}
		}
		cmdtest.WriteEnvelope(w, 200, p, "", "t")
	})
}

func TestProductsCreateSendsFlagsAndTaxes(t *testing.T) {
	cmdtest.Isolate(t)
	srv := productEcho(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "products", "create", "--description", "Asesoría", "--unit-price", "1000.50", "--unit", "E48",
		"--product-code", "80101500", "--tax", "002:Tasa:0.16:T", "--tax", "001:Tasa:0.10:R", "--tax", "003:Exento:T")
	cmdtest.WantCode(t, r, 0)
	last := srv.Last(t)
	want := `{"description":"Asesoría","unitPrice":1000.50,"satUnitMeasurementId":"E48","satProductCodeId":"80101500","productTaxes":[` +
		`{"taxId":"002","taxTypeId":"Tasa","taxFlagId":"T","rate":0.16},{"taxId":"001","taxTypeId":"Tasa","taxFlagId":"R","rate":0.10},` +
		`{"taxId":"003","taxTypeId":"Exento","taxFlagId":"T"}]}`
	if last.Method != "POST" || last.Path != "/api/v4/products" || last.Body != want {
		t.Fatalf("request = %s %s %s", last.Method, last.Path, last.Body)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Description: Asesoría", "Unit: H87 (Pieza)", "Taxes: 002:Tasa:0.16:T, 001:Tasa:0.10:R, 003:Exento::T")

	// a file, with flags over its fields
	file := filepath.Join(t.TempDir(), "product.json")
	os.WriteFile(file, []byte(`{"description":"del archivo","unitPrice":5,"satTaxObjectId":"01","productTaxes":[]}`), 0o600)
	r = runArgs(t, "products", "create", "--file", file, "--description", "de la bandera", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	if b := srv.Last(t).Body; b != `{"description":"de la bandera","unitPrice":5,"satTaxObjectId":"01","productTaxes":[]}` {
		t.Fatalf("body = %s", b)
	}
	if !strings.Contains(r.Out, `"description": "de la bandera"`) {
		t.Fatalf("json output: %s", r.Out)
	}

	// bad values never reach the API
	n := len(srv.Requests())
	for _, args := range [][]string{
		{"--tax", "002:Tasa:T"}, {"--tax", "002:Tasa:abc:T"}, {"--unit-price", "12,50"}, {"--tax", "002:Tasa:0.16:T", "--no-taxes"},
	} {
		r := runArgs(t, append([]string{"products", "create", "--description", "x", "--unit-price", "1"}, args...)...)
		cmdtest.WantCode(t, r, 2)
	}
	if len(srv.Requests()) != n {
		t.Fatal("a bad flag reached the API")
	}
}

func TestProductsUpdateSendsOnlyWhatIsGiven(t *testing.T) {
	cmdtest.Isolate(t)
	srv := productEcho(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "products", "update", "p-1", "--unit-price", "13", "--no-taxes")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "PUT" || last.Path != "/api/v4/products/p-1" || last.Body != `{"unitPrice":13,"productTaxes":[]}` {
		t.Fatalf("request = %+v", last)
	}
	r = runArgs(t, "products", "update", "p-1")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "nothing to change")
}

func TestProductsListGetDelete(t *testing.T) {
	cmdtest.Isolate(t)
	srv := productEcho(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "products", "list", "--page-size", "10")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Path != "/api/v4/products" || !strings.Contains(last.Query, "pageSize=10") {
		t.Fatalf("request = %+v", last)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "ID\tDESCRIPTION\tUNIT PRICE\tUNIT\tPRODUCT CODE\tTAXES\tCREATED", "p-1\tLápiz\t12.5\tH87\t44121706\t002:Tasa:0.160000:T\t")

	r = runArgs(t, "products", "get", "p-1")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "ID: p-1", "Unit price: 12.5")

	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "n\n"}, "products", "delete", "p-1")
	if r.Code != 1 || !strings.Contains(r.Err, "Delete product p-1 (Lápiz)?") {
		t.Fatalf("exit %d %q", r.Code, r.Err)
	}
	for _, q := range srv.Requests() {
		if q.Method == "DELETE" {
			t.Fatal("deleted without a yes")
		}
	}
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "y\n"}, "products", "delete", "p-1")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "DELETE" || last.Path != "/api/v4/products/p-1" {
		t.Fatalf("request = %+v", last)
	}
	cmdtest.WantCode(t, runArgs(t, "products", "delete", "p-1"), 2) // no terminal, no --yes
	r = runArgs(t, "products", "delete", "p-1", "--yes")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Deleted product p-1.")
}
