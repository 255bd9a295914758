package catalogs

import (
	"archive/zip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/storage"
)

// miniZip writes the catalogs package's small source as GitHub publishes the archive of
// phpcfdi/resources-sat-catalogs: resources-sat-catalogs-master/database/...
func miniZip(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "resources-sat-catalogs-master.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	root := testpaths.Repo("internal", "catalogs", "testdata", "mini")
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		w, err := zw.Create("resources-sat-catalogs-master/database/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(raw)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func emptyDatabase(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "t.db")
	s, err := storage.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	return db
}

func TestCatalogsImportZipShowsProgressOnATerminal(t *testing.T) {
	cmdtest.Isolate(t)
	db := emptyDatabase(t)
	r := run1(t, cmdtest.Opts{TTY: true}, "catalogs", "import", miniZip(t), "--data", db)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Err)
	}
	if !strings.Contains(r.Out, "Imported SAT catalogs 1.2.20260101 from ") || !strings.Contains(r.Out, "1 tables came without records") {
		t.Errorf("stdout: %s", r.Out)
	}
	if !strings.Contains(r.Err, "Imported ") || !strings.Contains(r.Err, " tables, ") {
		t.Errorf("no progress on the terminal: %q", r.Err)
	}
	// off a terminal: the summary only
	r = runArgs(t, "catalogs", "import", miniZip(t), "--data", db)
	if r.Code != 0 || r.Err != "" {
		t.Fatalf("exit %d, stderr %q", r.Code, r.Err)
	}
}

func TestCatalogsImportFromAURL(t *testing.T) {
	cmdtest.Isolate(t)
	raw, err := os.ReadFile(miniZip(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/zip")
		w.Write(raw)
	}))
	defer srv.Close()
	db := emptyDatabase(t)
	r := runArgs(t, "catalogs", "import", srv.URL+"/archive/master.zip", "--data", db, "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Out, `"version": "1.2.20260101"`) {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Out, r.Err)
	}
}

func TestCatalogsImportNeedsADatabase(t *testing.T) {
	cmdtest.Isolate(t)
	r := runArgs(t, "catalogs", "import", miniZip(t), "--data", filepath.Join(t.TempDir(), "none.db"))
	if r.Code != 1 || !strings.Contains(r.Err, "timbra server init") {
		t.Fatalf("exit %d: %s", r.Code, r.Err)
	}
	r = runArgs(t, "catalogs", "import")
	if r.Code != 2 {
		t.Fatalf("no SOURCE: exit %d: %s", r.Code, r.Err)
	}
}

// catalogsAPI knows the catalogs SatTaxRegimes (record 601) and SatInvoiceTypes (bulk
// download), and answers other names with the API's 404.
func catalogsAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/api/v4/catalogs":
			cmdtest.WriteEnvelope(w, 200, []string{"SatTaxRegimes", "SatTaxRegimeTypes", "SatProductCodes"}, "", "t")
		case p == "/api/v4/download-catalogs":
			cmdtest.WriteEnvelope(w, 200, []string{"SatInvoiceTypes", "SatQueryTypes"}, "", "t")
		case p == "/api/v4/catalogs/SatTaxRegimes/key/601":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"id": "601", "description": "General de Ley Personas Morales"}, "", "t")
		case strings.HasPrefix(p, "/api/v4/catalogs/SatTaxRegimes/"):
			cmdtest.WriteEnvelope(w, 404, nil, "No existe el registro '999'.", "t")
		default:
			name := strings.Split(strings.TrimPrefix(strings.TrimPrefix(p, "/api/v4/download-catalogs/"), "/api/v4/catalogs/"), "/")[0]
			cmdtest.WriteEnvelope(w, 404, nil, "No existe el catálogo '"+name+"'.", "t")
		}
	})
}

// A mistyped catalog name: the API's 404 as it is, then the name it may have meant; a record
// that does not exist in a catalog that does gets no guess.
func TestCatalogNameDidYouMean(t *testing.T) {
	cmdtest.Isolate(t)
	cmdtest.UseAPI(t, catalogsAPI(t).URL)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"catalogs", "get", "SatTaxRegime", "601"}, "404: No existe el catálogo 'SatTaxRegime'.\nhint: did you mean SatTaxRegimes? ('timbra catalogs list' lists the catalogs)\n"},
		{[]string{"catalogs", "search", "sattaxregimes", "general"}, "404: No existe el catálogo 'sattaxregimes'.\nhint: did you mean SatTaxRegimes? ('timbra catalogs list' lists the catalogs)\n"},
		{[]string{"catalogs", "download", "SatInvoiceType"}, "404: No existe el catálogo 'SatInvoiceType'.\nhint: did you mean SatInvoiceTypes? ('timbra catalogs download' lists the catalogs)\n"},
		{[]string{"catalogs", "get", "Zzzzz", "1"}, "404: No existe el catálogo 'Zzzzz'.\nhint: 'timbra catalogs list' lists the catalogs (names are case-sensitive)\n"},
		{[]string{"catalogs", "get", "SatTaxRegimes", "999"}, "404: No existe el registro '999'.\n"},
	} {
		r := runArgs(t, c.args...)
		if r.Code != 1 || r.Err != c.want {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant:\n%s", c.args, r.Code, r.Err, c.want)
		}
	}
	if r := runArgs(t, "catalogs", "get", "SatTaxRegimes", "601"); r.Code != 0 || !strings.Contains(r.Out, "General de Ley") {
		t.Errorf("exit %d: %s%s", r.Code, r.Out, r.Err)
	}
}
