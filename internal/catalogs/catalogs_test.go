package catalogs

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/storage"
)

var ctx = context.Background()

func openStore(t *testing.T) *storage.Bolt {
	t.Helper()
	s, err := storage.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func importDir(t *testing.T, store storage.Store, dir string) storage.CatalogSet {
	t.Helper()
	src, err := source.Open(ctx, dir, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	set, err := Import(ctx, store, src, time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), nil)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// mini imports testdata/mini, a small source in the SQL-text format, and returns the service.
func mini(t *testing.T) *Service {
	t.Helper()
	store := openStore(t)
	importDir(t, store, filepath.Join("testdata", "mini"))
	s, err := New(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantStatus(t *testing.T, err error, status int, details string) {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok {
		t.Fatalf("error %v, want an API error %d", err, status)
	}
	if e.Status != status || e.Details != details {
		t.Fatalf("error %d %q, want %d %q", e.Status, e.Details, status, details)
	}
}

func TestGetAndTheSpecTexts(t *testing.T) {
	s := mini(t)
	r, err := s.Get(ctx, "SatTaxRegimes", "626")
	if err != nil || r.ID != "626" || r.Description != "Régimen Simplificado de Confianza" || r.CreatedAt != nil {
		t.Fatalf("SatTaxRegimes 626 = %+v, %v", r, err)
	}
	_, err = s.Get(ctx, "SatTaxRegimes", "999")
	wantStatus(t, err, 404, "No such resource for the given Id: 999")
	_, err = s.Get(ctx, "sattaxregimes", "626")
	wantStatus(t, err, 404, "No existe el catálogo 'sattaxregimes'.")
	_, err = s.Search(ctx, "Nope", "x", 1, 50)
	wantStatus(t, err, 404, "No existe el catálogo 'Nope'.")
	_, err = s.Download("satinvoicetypes")
	wantStatus(t, err, 404, "No existe el catálogo 'satinvoicetypes'.")
}

func TestCompositeKeysAndTablesWithoutKey(t *testing.T) {
	s := mini(t)
	for _, c := range []struct{ name, id, desc string }{
		{"SatMunicipio", "AGU-001", "Aguascalientes"},
		{"SatMunicipio", "BCN-001", "Ensenada"},
		{"TaxRules", "IVA-Tasa-Fijo-0.160000", "IVA-Tasa-Fijo-0.160000"},
		{"TaxRules", "IVA-Tasa-Rango-0.000000-0.160000", "IVA-Tasa-Rango-0.000000-0.160000"},
		{"ProductClasses", "44121700", "Instrumentos de escritura"},
		{"SatProductCodes", "50131702", "Mantequilla, 'tipo' (crema)"},
	} {
		r, err := s.Get(ctx, c.name, c.id)
		if err != nil || r.Description != c.desc {
			t.Errorf("%s %s = %+v, %v; want %q", c.name, c.id, r, err, c.desc)
		}
	}
	if _, err := s.Get(ctx, "ProductClasses", "44121706"); err == nil {
		t.Error("ProductClasses holds a product (44121706), not only classes")
	}
}

func TestSearchOrdersByRelevanceThenKey(t *testing.T) {
	s := mini(t)
	page, err := s.Search(ctx, "SatProductCodes", "lapiz", 1, 50)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range page.Items {
		ids = append(ids, it.ID)
	}
	if got := strings.Join(ids, " "); got != "27112309 44121706 44121707" {
		t.Errorf("search lapiz = %s", got)
	}
	page, err = s.Search(ctx, "SatProductCodes", "LECHE", 1, 1)
	if err != nil || page.TotalCount != 2 || len(page.Items) != 1 || page.Items[0].ID != "50131701" || !page.HasNextPage {
		t.Errorf("search LECHE page 1 of size 1 = %+v, %v; want 50131701 first of 2", page, err)
	}
	_, err = s.Search(ctx, "SatProductCodes", strings.Repeat("a ", 51), 1, 50)
	if e, ok := apierr.As(err); !ok || e.Status != 400 || e.Failures[0].ErrorMessage != "El término de búsqueda debe tener 100 caracteres o menos. Ingresó 102 caracteres." {
		t.Fatalf("a term of 102 characters: %v", err)
	}
	page, err = s.Search(ctx, "SatProductCodes", "5013", 2, 2)
	if err != nil || page.TotalCount != 3 || len(page.Items) != 1 || page.Items[0].ID != "50131702" {
		t.Errorf("search 5013 page 2 = %+v, %v", page, err)
	}
}

func TestLoadQuery(t *testing.T) {
	s := mini(t)
	q := url.Values{"filter": {`["description","contains","lápices"]`}, "sort": {`[{"selector":"id","desc":true}]`}, "requireTotalCount": {"true"}}
	res, err := s.Load(ctx, "SatProductCodes", q)
	if err != nil {
		t.Fatal(err)
	}
	data := res.Data.([]*api.CatalogRecord)
	if res.TotalCount != 2 || len(data) != 2 || data[0].ID != "44121707" {
		t.Fatalf("load = %+v", res)
	}
	_, err = s.Load(ctx, "SatProductCodes", url.Values{"sort": {`[{"selector":"nope"}]`}})
	if e, ok := apierr.As(err); !ok || e.Status != 400 || len(e.Failures) != 1 || e.Failures[0].PropertyName != "sort" {
		t.Fatalf("load with an unknown field = %v", err)
	}
}

func TestWithoutCatalogsEveryCheckSaysHowToImport(t *testing.T) {
	s, err := New(ctx, openStore(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, "SatTaxRegimes", "601")
	if !errors.Is(err, ErrNotImported) {
		t.Fatalf("get without catalogs = %v", err)
	}
	if _, _, err := s.Lookup(ctx, "SatCfdiUses", "G03"); !errors.Is(err, ErrNotImported) {
		t.Fatalf("lookup without catalogs = %v", err)
	}
	if !strings.Contains(MsgNotImported, "timbra catalogs import") {
		t.Fatalf("the message does not name the import command: %s", MsgNotImported)
	}
	// the project's catalogs need no import
	if r, err := s.Get(ctx, "TaxFlags", "T"); err != nil || r.Description != "Traslado" {
		t.Fatalf("TaxFlags T = %+v, %v", r, err)
	}
	recs, err := s.Download("SatInvoiceTypes")
	if err != nil || len(recs) != 6 || recs[0].ID != "" {
		t.Fatalf("download SatInvoiceTypes = %+v, %v; want the empty id first and E, I, N, P, T", recs, err)
	}
	st, err := s.Status(ctx)
	if err != nil || st.Imported || st.Hint == "" {
		t.Fatalf("status = %+v, %v", st, err)
	}
}

func TestStatusNamesWhatIsMissing(t *testing.T) {
	s := mini(t)
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]string{}
	records := map[string]int{}
	for _, c := range st.Catalogs {
		states[c.Name], records[c.Name] = c.State, c.Records
	}
	for name, want := range map[string]string{
		"SatTaxRegimes":    StateComplete,
		"SatColonia":       StateIncomplete, // listed without data
		"SatStates":        StateMissing,    // not in the source at all
		"ProductDivisions": StateEmpty,      // the table holds no record of the level
		"UserTypes":        StateBuiltin,
	} {
		if states[name] != want {
			t.Errorf("%s state = %q, want %q", name, states[name], want)
		}
	}
	if records["SatProductCodes"] != 8 || records["SatTaxRegimes"] != 4 {
		t.Errorf("records = %v", records)
	}
	if len(st.TablesWithoutData) != 1 || st.TablesWithoutData[0] != "cfdi_40_colonias" {
		t.Errorf("tables without data = %v", st.TablesWithoutData)
	}
	if !st.Imported || st.Version != "1.2.20260101" || st.Hint == "" {
		t.Errorf("status = %+v", st)
	}
}

func TestEnsureImportsOnlyWhatIsNewer(t *testing.T) {
	store := openStore(t)
	now := time.Now()
	res, err := Ensure(ctx, store, EnsureOptions{Spec: SourceNone, Now: now})
	if err != nil || res.Imported {
		t.Fatalf("none: %+v, %v", res, err)
	}
	mini := filepath.Join("testdata", "mini")
	res, err = Ensure(ctx, store, EnsureOptions{Spec: mini, Now: now})
	if err != nil || !res.Imported || res.Set.Version != "1.2.20260101" {
		t.Fatalf("first import: %+v, %v", res, err)
	}
	res, err = Ensure(ctx, store, EnsureOptions{Spec: mini, Now: now})
	if err != nil || res.Imported {
		t.Fatalf("same version imported again: %+v, %v", res, err)
	}
	// no --catalogs on a database that has them: nothing to do, no network
	res, err = Ensure(ctx, store, EnsureOptions{Now: now})
	if err != nil || res.Imported || res.Default {
		t.Fatalf("default with catalogs present: %+v, %v", res, err)
	}
	newer := t.TempDir()
	copyDir(t, mini, newer)
	os.WriteFile(filepath.Join(newer, "version.txt"), []byte("1.3.20260201\n"), 0o644)
	res, err = Ensure(ctx, store, EnsureOptions{Spec: newer, Now: now})
	if err != nil || !res.Imported || res.Set.Version != "1.3.20260201" {
		t.Fatalf("newer source: %+v, %v", res, err)
	}
}

func TestFailedImportKeepsTheOldCatalogs(t *testing.T) {
	store := openStore(t)
	importDir(t, store, filepath.Join("testdata", "mini"))
	broken := t.TempDir()
	copyDir(t, filepath.Join("testdata", "mini"), broken)
	os.WriteFile(filepath.Join(broken, "version.txt"), []byte("9.9.20990101\n"), 0o644)
	f := filepath.Join(broken, "data", "cfdi_40_regimenes_fiscales.sql")
	raw, _ := os.ReadFile(f)
	os.WriteFile(f, []byte(strings.Replace(string(raw), "COMMIT;", "INSERT INTO cfdi_40_regimenes_fiscales VALUES('999','roto'\nCOMMIT;", 1)), 0o644)
	if _, err := Ensure(ctx, store, EnsureOptions{Spec: broken, Now: time.Now()}); err == nil {
		t.Fatal("a broken source was imported")
	}
	s, err := New(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	set, ok := s.Imported()
	if !ok || set.Version != "1.2.20260101" {
		t.Fatalf("after a failed import: %+v", set)
	}
	if _, err := s.Get(ctx, "SatTaxRegimes", "601"); err != nil {
		t.Fatalf("old record lost: %v", err)
	}
}

func TestSourceWithAnotherStructureIsRefused(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "mini"), dir)
	f := filepath.Join(dir, "schemas", "cfdi_40_regimenes_fiscales.sql")
	raw, _ := os.ReadFile(f)
	os.WriteFile(f, []byte(strings.Replace(string(raw), `"texto"`, `"descripcion"`, 1)), 0o644)
	src, err := source.Open(ctx, dir, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = Import(ctx, openStore(t), src, time.Now(), nil)
	if err == nil || !strings.Contains(err.Error(), `no column "texto"`) {
		t.Fatalf("import of a changed structure: %v", err)
	}
}

// TestTaxIDPatterns: c_Pais's pattern of a resident's tax number is kept, anchored, for the
// countries that give one; a source whose table lacks the column gives none, and imports.
func TestTaxIDPatterns(t *testing.T) {
	ps, err := mini(t).TaxIDPatterns(ctx)
	if err != nil || len(ps) != 3 {
		t.Fatalf("patterns = %v, %v; want CAN, USA and MEX", ps, err)
	}
	for _, c := range []struct {
		country, tin string
		ok           bool
	}{
		{"USA", "123456789", true}, {"USA", "12-3456789", false}, {"USA", "1234567890", false}, {"USA", "x123456789", false},
		{"CAN", "123456789", true}, {"CAN", "12345678", false},
		{"MEX", "EKU9003173C9", true}, {"MEX", "EKU9003173C9 ", false},
	} {
		if got := ps[c.country].Match(c.tin); got != c.ok {
			t.Errorf("%s %q: %v, want %v", c.country, c.tin, got, c.ok)
		}
	}

	dir := t.TempDir()
	copyDir(t, filepath.Join("testdata", "mini"), dir)
	f := filepath.Join(dir, "schemas", "cfdi_40_paises.sql")
	raw, _ := os.ReadFile(f)
	os.WriteFile(f, []byte(strings.Replace(string(raw), `"patron_identidad_tributaria"`, `"otro"`, 1)), 0o644)
	store := openStore(t)
	importDir(t, store, dir)
	s, err := New(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if ps, err := s.TaxIDPatterns(ctx); err != nil || len(ps) != 0 {
		t.Fatalf("patterns of a source without the column = %v, %v", ps, err)
	}
	if _, found, err := s.Lookup(ctx, "SatCountries", "USA"); !found || err != nil {
		t.Fatalf("USA = %v, %v", found, err)
	}

	s, err = New(ctx, openStore(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.TaxIDPatterns(ctx); !errors.Is(err, ErrNotImported) {
		t.Fatalf("patterns without catalogs = %v", err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sharedCatalogs is the full SAT source beside the repository, when present.
func sharedCatalogs(t testing.TB) string {
	dir := testpaths.Shared("catalogs")
	if _, err := os.Stat(filepath.Join(dir, "tables.list")); err != nil {
		t.Skipf("the SAT catalog source %s is absent: the whole-source test needs it", dir)
	}
	return dir
}

// TestImportTheWholeSource imports every table of the SAT source and checks the counts.
func TestImportTheWholeSource(t *testing.T) {
	dir := sharedCatalogs(t)
	store := openStore(t)
	set := importDir(t, store, dir)
	if len(set.Tables) != 179 || set.Version != "10.14.20260806" {
		t.Fatalf("imported %d tables, version %s", len(set.Tables), set.Version)
	}
	for name, want := range map[string]int{
		"cfdi_40_productos_servicios": 52514, "cfdi_40_regimenes_fiscales": 19, "cfdi_40_usos_cfdi": 24,
		"cfdi_40_municipios": 2478, "cce_20_fracciones_arancelarias": 11519, "cfdi_40_codigos_postales": 0,
	} {
		if tb, _ := set.Table(name); tb.Rows != want {
			t.Errorf("%s: %d rows, want %d", name, tb.Rows, want)
		}
	}
	s, err := New(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range st.Catalogs {
		switch c.Name {
		case "SatColonia":
			if c.State != StateIncomplete {
				t.Errorf("SatColonia: %s, want incomplete (the source has no colonias)", c.State)
			}
		case "SatProductCodes":
			if c.Records != 52514 {
				t.Errorf("SatProductCodes: %d records", c.Records)
			}
		case "SatMunicipio":
			if c.Records != 2478 {
				t.Errorf("SatMunicipio: %d records; composite ids must stay unique", c.Records)
			}
		case "ProductDivisions", "ProductGroups":
		default:
			if !c.Download && c.State != StateComplete && c.State != StateBuiltin {
				t.Errorf("%s: %s (%s)", c.Name, c.State, c.Reason)
			}
		}
	}
	ps, err := s.TaxIDPatterns(ctx)
	if err != nil || len(ps) != 3 || ps["USA"].Pattern != "[0-9]{9}" || ps["CAN"].Pattern != "[0-9]{9}" || !ps["MEX"].Match("EKU9003173C9") {
		t.Errorf("c_Pais's tax number patterns = %v, %v; want CAN, USA and MEX", ps, err)
	}
	for _, c := range []struct{ name, id, desc string }{
		{"SatTaxRegimes", "626", "Régimen Simplificado de Confianza"},
		{"SatCfdiUses", "G03", "Gastos en general."},
		{"SatStates", "AGU", "Aguascalientes"},
		{"SatPaymentForms", "99", "Por definir"},
		{"SatCurrencies", "MXN", "Peso Mexicano"},
		{"SatTaxTypes", "Exento", "Exento"},
	} {
		r, err := s.Get(ctx, c.name, c.id)
		if err != nil || r.Description != c.desc {
			t.Errorf("%s %s = %+v, %v; want %q", c.name, c.id, r, err, c.desc)
		}
	}
}

// TestApplicability: c_RegimenFiscal's and c_UsoCFDI's columns of whom a record applies to are
// kept (a physical or a moral person, and a use's recipient regimes); never shown by the API.
func TestApplicability(t *testing.T) {
	s := mini(t)
	regimes, err := s.Applicability(ctx, "SatTaxRegimes")
	if err != nil || len(regimes) != 4 {
		t.Fatalf("regimes = %+v, %v", regimes, err)
	}
	want := map[string][2]bool{"601": {false, true}, "605": {true, false}, "616": {true, false}, "626": {true, true}}
	for _, r := range regimes {
		if w := want[r.ID]; [2]bool{r.Physical, r.Moral} != w || r.Description == "" || r.Regimes != nil {
			t.Errorf("regime %+v, want physical/moral %v", r, w)
		}
	}
	uses, err := s.Applicability(ctx, "SatCfdiUses")
	if err != nil || len(uses) != 5 || uses[0].ID != "CN01" {
		t.Fatalf("uses = %+v, %v", uses, err)
	}
	if cn := uses[0]; !cn.Physical || cn.Moral || len(cn.Regimes) != 1 || cn.Regimes[0] != "605" {
		t.Errorf("CN01 = %+v", cn)
	}
	if g := uses[2]; g.ID != "G01" || !g.Physical || !g.Moral || len(g.Regimes) != 11 || g.Regimes[10] != "626" {
		t.Errorf("G01 = %+v", g)
	}
	if _, err := s.Applicability(ctx, "SatCountries"); err == nil {
		t.Error("SatCountries keeps no applicability")
	}
	r, _, err := s.Lookup(ctx, "SatTaxRegimes", "601")
	if b, _ := json.Marshal(r); err != nil || strings.Contains(string(b), "fisica") || strings.Contains(string(b), "physical") {
		t.Errorf("the API shows %s", b)
	}
}
