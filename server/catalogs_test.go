package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// withMiniCatalogs imports the small catalog source of the catalogs package's tests.
func withMiniCatalogs(t *testing.T, f *fixture) {
	t.Helper()
	src, err := source.Open(context.Background(), testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := f.srv.Catalogs().Import(context.Background(), src, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestCatalogEndpoints(t *testing.T) {
	f := newFixture(t)

	// without catalogs: the list names them all, a SAT lookup says how to import, timbra's own answer
	r := f.do("GET", "/api/v4/catalogs", "")
	var names []string
	if r.status != 200 || json.Unmarshal(r.env.Data, &names) != nil || len(names) != 89 || names[0] != "SatCfdiUses" || names[88] != "SatUnidadAduana" {
		t.Fatalf("list = %d %d names %s", r.status, len(names), r.raw)
	}
	r = f.do("GET", "/api/v4/catalogs/SatTaxRegimes/key/601", "")
	if r.status != http.StatusServiceUnavailable || r.env.Succeeded {
		t.Fatalf("lookup without catalogs = %d %s", r.status, r.raw)
	}
	r = f.do("GET", "/api/v4/catalogs/TaxTypes/key/Tasa", "")
	if r.status != 200 {
		t.Fatalf("timbra catalog without import = %d %s", r.status, r.raw)
	}

	withMiniCatalogs(t, f)
	r = f.do("GET", "/api/v4/catalogs/SatTaxRegimes/key/626", "")
	var rec api.CatalogRecord
	if r.status != 200 || json.Unmarshal(r.env.Data, &rec) != nil || rec.Description != "Régimen Simplificado de Confianza" {
		t.Fatalf("get = %d %s", r.status, r.raw)
	}
	r = f.do("GET", "/api/v4/catalogs/SatTaxRegimes/key/999", "")
	if r.status != 404 || r.env.Details != "No such resource for the given Id: 999" {
		t.Fatalf("absent id = %d %s", r.status, r.raw)
	}
	r = f.do("GET", "/api/v4/catalogs/satTaxRegimes/key/626", "")
	if r.status != 404 || r.env.Details != "No existe el catálogo 'satTaxRegimes'." {
		t.Fatalf("wrong case = %d %s", r.status, r.raw)
	}

	r = f.do("GET", "/api/v4/catalogs/SatProductCodes/l%C3%A1piz?PageSize=2", "")
	var page api.PagedList[api.CatalogRecord]
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil || page.TotalCount != 3 || page.PageSize != 2 || len(page.Items) != 2 || page.Items[0].ID != "27112309" {
		t.Fatalf("search = %d %s", r.status, r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/catalogs/SatProductCodes/leche?pageSize=101", ""), "pageSize", "'pageSize' debe estar entre 1 y 100.")

	// load: the bare result, and the failures of spec 1 §7.6
	req, _ := http.NewRequest("GET", f.http.URL+`/api/v4/catalogs/SatProductCodes/load?filter=["id","startswith","4412"]&requireTotalCount=true&take=1`, nil)
	req.Header.Set("X-TENANT-KEY", f.creds.TenantKey)
	req.Header.Set("X-API-KEY", f.creds.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Data       []api.CatalogRecord `json:"data"`
		TotalCount int                 `json:"totalCount"`
	}
	json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if resp.StatusCode != 200 || res.TotalCount != 3 || len(res.Data) != 1 || res.Data[0].ID != "44121700" {
		t.Fatalf("load = %d %+v", resp.StatusCode, res)
	}
	r = f.do("GET", `/api/v4/catalogs/SatProductCodes/load?sort=[{"selector":"nope"}]`, "")
	if r.status != 400 || failures(t, r)[0].PropertyName != "sort" {
		t.Fatalf("load with an unknown field = %d %s", r.status, r.raw)
	}

	// bulk-download catalogs
	r = f.do("GET", "/api/v4/download-catalogs", "")
	if r.status != 200 || json.Unmarshal(r.env.Data, &names) != nil || len(names) != 10 {
		t.Fatalf("download list = %d %s", r.status, r.raw)
	}
	r = f.do("GET", "/api/v4/download-catalogs/SatInvoiceTypes", "")
	var recs []api.CatalogRecord
	if r.status != 200 || json.Unmarshal(r.env.Data, &recs) != nil || len(recs) != 6 || recs[0].ID != "" {
		t.Fatalf("download SatInvoiceTypes = %d %s", r.status, r.raw)
	}
	r = f.do("GET", "/api/v4/download-catalogs/satinvoicetypes", "")
	if r.status != 404 || r.env.Details != "No existe el catálogo 'satinvoicetypes'." {
		t.Fatalf("download wrong case = %d %s", r.status, r.raw)
	}

	// status, without credentials
	r = f.do("GET", "/healthz/catalogs", "", "X-API-KEY", "", "X-TENANT-KEY", "")
	var st api.CatalogsStatus
	if r.status != 200 || json.Unmarshal(r.env.Data, &st) != nil || !st.Imported || st.Version != "1.2.20260101" {
		t.Fatalf("status = %d %s", r.status, r.raw)
	}
}

// TestCatalogLoadAllShared: the whole catalog (a load without a query) is one answer made once:
// the same bytes for every caller, the records of a load that asks for everything, gzip to a
// client that takes it, an entity tag, and 304 to a client whose copy has that tag.
func TestCatalogLoadAllShared(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	get := func(path string, headers ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", f.http.URL+path, nil)
		req.Header.Set("X-TENANT-KEY", f.creds.TenantKey)
		req.Header.Set("X-API-KEY", f.creds.APIKey)
		req.Header.Set("Accept-Encoding", "identity") // the transport would ask for gzip and undo it
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, raw
	}
	const path = "/api/v4/catalogs/SatTaxRegimes/load"
	first, whole := get(path)
	again, same := get(path)
	tag := first.Header.Get("ETag")
	if first.StatusCode != 200 || tag == "" || again.Header.Get("ETag") != tag || string(same) != string(whole) {
		t.Fatalf("two loads: %d %q %q", first.StatusCode, tag, again.Header.Get("ETag"))
	}
	if first.Header.Get("Content-Encoding") != "" || first.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("headers of the plain answer: %v", first.Header)
	}
	// the same records as a load that asks for them all
	_, asked := get(path + "?skip=0")
	var a, b struct {
		Data []api.CatalogRecord `json:"data"`
	}
	if json.Unmarshal(whole, &a) != nil || json.Unmarshal(asked, &b) != nil || len(a.Data) == 0 || fmt.Sprint(a.Data) != fmt.Sprint(b.Data) {
		t.Fatalf("the whole answer %s differs from a load of everything %s", whole, asked)
	}
	for _, enc := range []string{"gzip", "br, gzip;q=0.5", "GZIP"} {
		zipped, raw := get(path, "Accept-Encoding", enc)
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil || zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("Accept-Encoding %q: %v %v", enc, zipped.Header, err)
		}
		if plain, _ := io.ReadAll(zr); string(plain) != string(whole) {
			t.Fatalf("Accept-Encoding %q: the gzip answer is not the same JSON", enc)
		}
	}
	if refused, _ := get(path, "Accept-Encoding", "gzip;q=0"); refused.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client that refused it with q=0")
	}
	for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
		if nm, body := get(path, "If-None-Match", inm); nm.StatusCode != 304 || len(body) != 0 {
			t.Errorf("If-None-Match %s: %d with %d bytes", inm, nm.StatusCode, len(body))
		}
	}
	if changed, _ := get(path, "If-None-Match", `"other"`); changed.StatusCode != 200 {
		t.Errorf("If-None-Match of another tag: %d", changed.StatusCode)
	}
}
