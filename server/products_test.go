package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/products"
)

func productBase() map[string]any {
	return map[string]any{
		"description": "Lápiz de madera HB", "unitPrice": n("12.50"), "satUnitMeasurementId": "H87",
		"satTaxObjectId": "02", "satProductCodeId": "44121706",
		"productTaxes": []any{
			map[string]any{"taxId": "002", "taxTypeId": "Tasa", "rate": n("0.16"), "taxFlagId": "T"},
			map[string]any{"taxId": "001", "taxTypeId": "Tasa", "rate": n("0.1"), "taxFlagId": "R"},
		},
	}
}

func productOf(t *testing.T, r result) api.Product {
	t.Helper()
	if r.status != 200 || !r.env.Succeeded {
		t.Fatalf("want 200, got %d %s", r.status, r.raw)
	}
	var p api.Product
	if err := json.Unmarshal(r.env.Data, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func recordIs(rec *api.CatalogRecord, id, desc string) bool {
	return rec != nil && rec.ID == id && rec.Description == desc
}

func TestProductsCRUD(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)

	r := f.do("POST", "/api/v4/products", empBody(productBase()))
	p := productOf(t, r)
	if p.ID == "" || p.Description != "Lápiz de madera HB" || p.UnitPrice != "12.5" || p.CreatedAt == "" || p.UpdatedAt == "" ||
		!recordIs(p.SatUnitMeasurement, "H87", "Pieza") || !recordIs(p.SatTaxObject, "02", "Sí objeto de impuesto.") ||
		!recordIs(p.SatProductCode, "44121706", "Lápices de madera") || len(p.ProductTaxes) != 2 {
		t.Fatalf("create answer: %s", r.env.Data)
	}
	iva, isr := p.ProductTaxes[0], p.ProductTaxes[1]
	if iva.ProductID != p.ID || *iva.Rate != "0.160000" || !recordIs(iva.Tax, "002", "IVA") || !recordIs(iva.TaxType, "Tasa", "Tasa") ||
		!recordIs(iva.TaxFlag, "T", "Traslado") || *isr.Rate != "0.100000" || !recordIs(isr.TaxFlag, "R", "Retención") {
		t.Fatalf("taxes: %s", r.env.Data)
	}
	if !strings.Contains(r.raw, `"unitPrice":12.5,`) || !strings.Contains(r.raw, `"rate":0.160000`) {
		t.Fatalf("amounts are not numbers: %s", r.raw)
	}

	// the official client's README example: IVA withheld at two thirds, 0.10666666666, is written
	// with the 6 decimals of c_TasaOCuota
	two := productOf(t, f.do("POST", "/api/v4/products", `{"description":"Servicios contables","unitPrice":100,"satUnitMeasurementId":"H87",
		"satTaxObjectId":"02","productTaxes":[{"rate":0.16,"taxId":"002","taxFlagId":"T","taxTypeId":"Tasa"},
		{"rate":0.10,"taxId":"001","taxFlagId":"R","taxTypeId":"Tasa"},{"rate":0.10666666666,"taxId":"002","taxFlagId":"R","taxTypeId":"Tasa"}]}`))
	if len(two.ProductTaxes) != 3 || *two.ProductTaxes[2].Rate != "0.106667" {
		t.Fatalf("a rate of 11 decimals: %+v", two.ProductTaxes)
	}
	if r := f.do("DELETE", "/api/v4/products/"+two.ID, ""); r.status != 200 {
		t.Fatalf("delete: %s", r.raw)
	}

	// defaults of the official client's model
	d := productOf(t, f.do("POST", "/api/v4/products", `{"description":"Servicio","unitPrice":0}`))
	if d.SatUnitMeasurementID != "H87" || d.SatTaxObjectID != "02" || d.SatProductCodeID != "01010101" || d.UnitPrice != "0" ||
		len(d.ProductTaxes) != 1 || d.ProductTaxes[0].TaxID != "002" || d.ProductTaxes[0].TaxFlagID != "T" || *d.ProductTaxes[0].Rate != "0.160000" ||
		!recordIs(d.SatProductCode, "01010101", "No existe en el catálogo") {
		t.Fatalf("defaults: %+v", d)
	}
	// no taxes, with a tax object that takes none; Exento has no rate
	e := productOf(t, f.do("POST", "/api/v4/products", `{"description":"Exento","unitPrice":1e2,"satTaxObjectId":"01","productTaxes":[]}`))
	if len(e.ProductTaxes) != 0 || e.UnitPrice != "100" || !strings.Contains(f.do("GET", "/api/v4/products/"+e.ID, "").raw, `"productTaxes":[]`) {
		t.Fatalf("no taxes: %+v", e)
	}
	x := productOf(t, f.do("POST", "/api/v4/products", `{"description":"Libro","unitPrice":250,"productTaxes":[{"taxId":"002","taxTypeId":"Exento","taxFlagId":"T","rate":0}]}`))
	if x.ProductTaxes[0].Rate != nil || !recordIs(x.ProductTaxes[0].TaxType, "Exento", "Exento") {
		t.Fatalf("exento: %+v", x.ProductTaxes)
	}

	got := productOf(t, f.do("GET", "/api/v4/products/"+p.ID+"?details=true", ""))
	if got.ID != p.ID || got.UnitPrice != "12.5" || got.CreatedAt != p.CreatedAt || !recordIs(got.SatProductCode, "44121706", "Lápices de madera") {
		t.Fatalf("get: %+v", got)
	}

	// paging: 4 products, creation order
	var page api.PagedList[api.Product]
	r = f.do("GET", "/api/v4/products?pageNumber=2&pageSize=3", "")
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil || page.TotalCount != 4 || len(page.Items) != 1 || page.Items[0].ID != x.ID ||
		!page.HasPreviousPage || page.HasNextPage || page.TotalPages != 2 || !recordIs(page.Items[0].SatProductCode, "01010101", "No existe en el catálogo") {
		t.Fatalf("list: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/products", "")
	if json.Unmarshal(r.env.Data, &page) != nil || len(page.Items) != 4 || page.Items[0].ID != p.ID {
		t.Fatalf("default page: %s", r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/products?pageSize=51", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
	expectFailure(t, f.do("GET", "/api/v4/products?pageSize=0", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")

	// update: only what is sent changes; taxes, when sent, replace the list
	u := productOf(t, f.do("PUT", "/api/v4/products/"+p.ID, `{"unitPrice":13}`))
	if u.UnitPrice != "13" || u.Description != p.Description || len(u.ProductTaxes) != 2 || u.CreatedAt != p.CreatedAt || u.ID != p.ID {
		t.Fatalf("partial update: %+v", u)
	}
	u = productOf(t, f.do("PUT", "/api/v4/products/"+p.ID, `{"id":"`+p.ID+`","description":"Lápiz de colores","satProductCodeId":"44121707","productTaxes":[{"taxId":"003","taxTypeId":"Cuota","taxFlagId":"T","rate":1.5}]}`))
	if u.Description != "Lápiz de colores" || !recordIs(u.SatProductCode, "44121707", "Lápices de colores") || len(u.ProductTaxes) != 1 ||
		*u.ProductTaxes[0].Rate != "1.500000" || !recordIs(u.ProductTaxes[0].Tax, "003", "IEPS") {
		t.Fatalf("update: %+v", u)
	}
	// the whole product read back is a valid update (what the official client sends)
	var whole map[string]any
	json.Unmarshal(f.do("GET", "/api/v4/products/"+p.ID, "").env.Data, &whole)
	raw, _ := json.Marshal(whole)
	if u2 := productOf(t, f.do("PUT", "/api/v4/products/"+p.ID, string(raw))); u2.Description != u.Description || len(u2.ProductTaxes) != 1 {
		t.Fatalf("update with the read product: %+v", u2)
	}
	r = f.do("PUT", "/api/v4/products/"+p.ID, `{"id":"other","description":"x"}`)
	expectFailure(t, r, "Id", products.MsgIDsMismatch)
	expectStatus(t, f.do("PUT", "/api/v4/products/nope", `{"description":"x"}`), 404, "No such resource for the given Id: nope")

	// delete
	if r := f.do("DELETE", "/api/v4/products/"+p.ID, ""); r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	expectStatus(t, f.do("GET", "/api/v4/products/"+p.ID, ""), 404, "No such resource for the given Id: "+p.ID)
	expectStatus(t, f.do("DELETE", "/api/v4/products/"+p.ID, ""), 404, "No such resource for the given Id: "+p.ID)
}

// TestProductFailures is every validation failure of a product body: property, exact text,
// attemptedValue and errorCode, all failures of a body in one 400.
func TestProductFailures(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	tax := func(taxID, factor, flag string, rate any) map[string]any {
		m := map[string]any{"taxId": taxID, "taxTypeId": factor, "taxFlagId": flag}
		if rate != nil {
			m["rate"] = rate
		}
		return m
	}
	taxes := func(ts ...map[string]any) []any {
		out := []any{}
		for _, t := range ts {
			out = append(out, t)
		}
		return out
	}
	long := strings.Repeat("a", 1001)
	cases := []struct {
		name      string
		changes   []any
		prop, msg string
		attempted any // nil: not compared; "<null>": null
		code      string
	}{
		{"no description", []any{"description", nil}, "Description", "'Description' no debería estar vacío.", "<null>", "NotEmptyValidator"},
		{"blank description", []any{"description", "  "}, "Description", "'Description' no debería estar vacío.", "  ", "NotEmptyValidator"},
		{"long description", []any{"description", long}, "Description", fmt.Sprintf(products.MsgDescriptionLength, 1001), long, "LengthValidator"},
		{"pipe", []any{"description", "a|b"}, "Description", products.MsgDescriptionPipe, "a|b", ""},
		{"no price", []any{"unitPrice", nil}, "UnitPrice", "'Unit Price' no debe estar vacío.", "<null>", "NotNullValidator"},
		{"negative price", []any{"unitPrice", n("-0.01")}, "UnitPrice", products.MsgUnitPriceNegative, -0.01, "GreaterThanOrEqualValidator"},
		{"seven decimals", []any{"unitPrice", n("1.0000001")}, "UnitPrice", products.MsgUnitPriceDecimals, 1.0000001, "ScalePrecisionValidator"},
		{"huge price", []any{"unitPrice", n("1e18")}, "UnitPrice", products.MsgUnitPriceMax, 1e18, "LessThanOrEqualValidator"},
		{"unit", []any{"satUnitMeasurementId", "ZZZ"}, "SatUnitMeasurementId", "La clave de unidad 'ZZZ' no existe en el catálogo c_ClaveUnidad del SAT.", "ZZZ", ""},
		{"tax object", []any{"satTaxObjectId", "99"}, "SatTaxObjectId", "El objeto de impuesto '99' no existe en el catálogo c_ObjetoImp del SAT.", "99", ""},
		{"product code", []any{"satProductCodeId", "99999999"}, "SatProductCodeId", "La clave de producto o servicio '99999999' no existe en el catálogo c_ClaveProdServ del SAT.", "99999999", ""},
		{"tax object 01 with taxes", []any{"satTaxObjectId", "01"}, "ProductTaxes", fmt.Sprintf(products.MsgTaxObjectNoTaxes, "01"), 2.0, ""},
		{"tax object 02 without taxes", []any{"productTaxes", []any{}}, "ProductTaxes", products.MsgTaxObjectNeedsTaxes, 0.0, ""},
		{"tax", []any{"productTaxes", taxes(tax("004", "Tasa", "T", n("0.16")))}, "ProductTaxes[0].TaxId", fmt.Sprintf(products.MsgNoTax, "004"), "004", ""},
		{"no tax", []any{"productTaxes", taxes(tax("", "Tasa", "T", n("0.16")))}, "ProductTaxes[0].TaxId", "'Tax Id' no debería estar vacío.", "", "NotEmptyValidator"},
		{"factor", []any{"productTaxes", taxes(tax("002", "tasa", "T", n("0.16")))}, "ProductTaxes[0].TaxTypeId", fmt.Sprintf(products.MsgNoTaxType, "tasa"), "tasa", ""},
		{"flag", []any{"productTaxes", taxes(tax("002", "Tasa", "X", n("0.16")))}, "ProductTaxes[0].TaxFlagId", fmt.Sprintf(products.MsgNoTaxFlag, "X"), "X", ""},
		{"no rate", []any{"productTaxes", taxes(tax("002", "Tasa", "T", nil))}, "ProductTaxes[0].Rate", products.MsgRateRequired, "<null>", ""},
		{"IVA 15%", []any{"productTaxes", taxes(tax("002", "Tasa", "T", n("0.15")))}, "ProductTaxes[0].Rate",
			"La tasa o cuota '0.150000' no existe en el catálogo c_TasaOCuota del SAT para IVA Tasa trasladado: usa 0.000000, 0.080000 o 0.160000.", 0.15, ""},
		{"ISR 40%", []any{"productTaxes", taxes(tax("002", "Tasa", "T", n("0.16")), tax("001", "Tasa", "R", n("0.4")))}, "ProductTaxes[1].Rate",
			"La tasa o cuota '0.400000' no existe en el catálogo c_TasaOCuota del SAT para ISR Tasa retenido: usa un valor de 0.000000 a 0.350000.", 0.4, ""},
		{"ISR transferred", []any{"productTaxes", taxes(tax("001", "Tasa", "T", n("0.1")))}, "ProductTaxes[0].TaxFlagId", products.MsgISRWithheldOnly, "T", ""},
		{"IVA Cuota", []any{"productTaxes", taxes(tax("002", "Cuota", "T", n("1")))}, "ProductTaxes[0].TaxTypeId",
			"El catálogo c_TasaOCuota del SAT no tiene IVA con tipo factor Cuota trasladado.", "Cuota", ""},
		{"Exento withheld", []any{"productTaxes", taxes(tax("002", "Tasa", "T", n("0.16")), tax("002", "Exento", "R", nil))}, "ProductTaxes[1].TaxTypeId", products.MsgExentoWithheld, "Exento", ""},
		{"Exento with a rate", []any{"productTaxes", taxes(tax("003", "Exento", "T", n("0.08")))}, "ProductTaxes[0].Rate", fmt.Sprintf(products.MsgExentoRate, "0.080000"), 0.08, ""},
		{"negative rate", []any{"productTaxes", taxes(tax("002", "Tasa", "R", n("-0.1")))}, "ProductTaxes[0].Rate", products.MsgRateNegative, -0.1, "GreaterThanOrEqualValidator"},
		{"rate above the catalog", []any{"productTaxes", taxes(tax("003", "Cuota", "T", n("72.160501")))}, "ProductTaxes[0].Rate", products.MsgRateMax, 72.160501, "LessThanOrEqualValidator"},
		{"repeated", []any{"productTaxes", taxes(tax("002", "Tasa", "T", n("0.16")), tax("001", "Tasa", "R", n("0.1")), tax("002", "Tasa", "T", n("0.08")))},
			"ProductTaxes[2].TaxId", fmt.Sprintf(products.MsgTaxRepeated, "002", "trasladado", 0), "002", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, method := range []string{"POST", "PUT"} {
				path := "/api/v4/products"
				if method == "PUT" {
					if c.prop == "UnitPrice" && c.code == "NotNullValidator" || c.prop == "Description" && c.attempted == "<null>" {
						continue // absent keeps the saved value on update
					}
					path += "/" + productOf(t, f.do("POST", path, empBody(productBase()))).ID
				}
				r := f.do(method, path, empBody(productBase(), c.changes...))
				fs := failures(t, r)
				if r.status != 400 || r.env.Details != "One or more validation failures have occurred." {
					t.Fatalf("%s: want 400, got %s", method, r.raw)
				}
				var hit *api.Failure
				for i := range fs {
					if fs[i].PropertyName == c.prop {
						hit = &fs[i]
					}
				}
				if hit == nil || hit.ErrorMessage != c.msg || deref(hit.ErrorCode) != c.code {
					t.Fatalf("%s: want %s %q (%s), got %s", method, c.prop, c.msg, c.code, r.env.Data)
				}
				switch c.attempted {
				case nil:
				case "<null>":
					if hit.AttemptedValue != nil {
						t.Fatalf("%s: attemptedValue %v, want null", method, hit.AttemptedValue)
					}
				default:
					if fmt.Sprint(hit.AttemptedValue) != fmt.Sprint(c.attempted) {
						t.Fatalf("%s: attemptedValue %#v, want %#v", method, hit.AttemptedValue, c.attempted)
					}
				}
			}
		})
	}

	// every failure of a body in one answer; nothing saved
	r := f.do("POST", "/api/v4/products", `{"description":"","unitPrice":-1,"satUnitMeasurementId":"ZZZ","productTaxes":[{"taxId":"009","taxTypeId":"Tasa","taxFlagId":"T","rate":0.16},{"taxId":"002","taxTypeId":"Tasa","taxFlagId":"T","rate":0.5}]}`)
	props := map[string]bool{}
	for _, fl := range failures(t, r) {
		props[fl.PropertyName] = true
	}
	for _, p := range []string{"Description", "UnitPrice", "SatUnitMeasurementId", "ProductTaxes[0].TaxId", "ProductTaxes[1].Rate"} {
		if !props[p] {
			t.Errorf("no failure on %s in %s", p, r.env.Data)
		}
	}
	// parsing failures at their paths
	r = f.do("POST", "/api/v4/products", `{"description":"a","unitPrice":"12"}`)
	if fl := failureOn(t, r, "$.unitPrice"); !strings.Contains(fl.ErrorMessage, "could not be converted to a number") {
		t.Fatalf("unitPrice as text: %s", r.raw)
	}
	failureOn(t, f.do("POST", "/api/v4/products", `{"description":"a","unitPrice":1,"productTaxes":[{"taxId":"002","rate":"0.16"}]}`), "$.productTaxes[0].rate")
	failureOn(t, f.do("POST", "/api/v4/products", `{"description":"a","unitPrice":1,"productTaxes":{}}`), "$.productTaxes")
	failureOn(t, f.do("POST", "/api/v4/products", ``), "$")
}

func TestProductsTenantIsolation(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "b-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	_, asAna := empMember(t, f, "ana@example.com") // a non-owner person of tenant A
	mine := productOf(t, f.do("POST", "/api/v4/products", empBody(productBase())))
	theirs := productOf(t, f.do("POST", "/api/v4/products", empBody(productBase(), "description", "de B"), as(other)...))

	for _, c := range []struct{ method, body string }{{"GET", ""}, {"PUT", `{"description":"robado"}`}, {"DELETE", ""}} {
		expectStatus(t, f.do(c.method, "/api/v4/products/"+theirs.ID, c.body), 404, "No such resource for the given Id: "+theirs.ID)
		expectStatus(t, f.do(c.method, "/api/v4/products/"+mine.ID, c.body, as(other)...), 404, "No such resource for the given Id: "+mine.ID)
	}
	var page api.PagedList[api.Product]
	json.Unmarshal(f.do("GET", "/api/v4/products", "", as(other)...).env.Data, &page)
	if page.TotalCount != 1 || page.Items[0].ID != theirs.ID || page.Items[0].Description != "de B" {
		t.Fatalf("tenant B lists %+v", page)
	}
	// any person of the tenant manages its products
	if u := productOf(t, f.do("PUT", "/api/v4/products/"+mine.ID, `{"description":"de Ana"}`, asAna...)); u.Description != "de Ana" {
		t.Fatalf("ana's update: %+v", u)
	}
	made := productOf(t, f.do("POST", "/api/v4/products", empBody(productBase()), asAna...))
	if r := f.do("DELETE", "/api/v4/products/"+made.ID, "", asAna...); r.status != 200 {
		t.Fatalf("ana's delete: %s", r.raw)
	}
	if got := productOf(t, f.do("GET", "/api/v4/products/"+theirs.ID, "", as(other)...)); got.Description != "de B" {
		t.Fatalf("tenant B's product changed: %+v", got)
	}
}

func TestProductsWithoutCatalogs(t *testing.T) {
	f := newFixture(t)
	// defaults need no lookup: the product is made, its SAT records null, the tax records there
	r := f.do("POST", "/api/v4/products", `{"description":"Servicio","unitPrice":100}`)
	p := productOf(t, r)
	if p.SatProductCode != nil || p.SatUnitMeasurement != nil || p.SatTaxObject != nil || !recordIs(p.ProductTaxes[0].Tax, "002", "IVA") ||
		!strings.Contains(r.raw, `"satProductCode":null`) {
		t.Fatalf("create: %s", r.raw)
	}
	// a SAT key sent cannot be checked: 503, nothing written
	for _, body := range []string{`"satProductCodeId":"44121706"`, `"satUnitMeasurementId":"KGM"`, `"satTaxObjectId":"03","productTaxes":[]`} {
		r := f.do("POST", "/api/v4/products", `{"description":"x","unitPrice":1,`+body+`}`)
		if r.status != http.StatusServiceUnavailable || !strings.Contains(r.env.Details, "timbra catalogs import") {
			t.Fatalf("create %s: %s", body, r.raw)
		}
		if r := f.do("PUT", "/api/v4/products/"+p.ID, `{`+body+`}`); r.status != http.StatusServiceUnavailable {
			t.Fatalf("update %s: %s", body, r.raw)
		}
	}
	// the product read back, unchanged keys: no lookup needed
	var whole map[string]any
	json.Unmarshal(f.do("GET", "/api/v4/products/"+p.ID, "").env.Data, &whole)
	whole["unitPrice"] = 120
	raw, _ := json.Marshal(whole)
	if u := productOf(t, f.do("PUT", "/api/v4/products/"+p.ID, string(raw))); u.UnitPrice != "120" {
		t.Fatalf("update: %+v", u)
	}
	var page api.PagedList[api.Product]
	json.Unmarshal(f.do("GET", "/api/v4/products", "").env.Data, &page)
	if page.TotalCount != 1 {
		t.Fatalf("products = %d", page.TotalCount)
	}
}
