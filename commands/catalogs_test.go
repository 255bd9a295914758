package commands

import (
	"archive/zip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	isolate(t)
	db := emptyDatabase(t)
	r := run1(t, runOpts{tty: true}, "catalogs", "import", miniZip(t), "--data", db)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.out, "Imported SAT catalogs 1.2.20260101 from ") || !strings.Contains(r.out, "1 tables came without records") {
		t.Errorf("stdout: %s", r.out)
	}
	if !strings.Contains(r.err, "Imported ") || !strings.Contains(r.err, " tables, ") {
		t.Errorf("no progress on the terminal: %q", r.err)
	}
	// off a terminal: the summary only
	r = run1(t, runOpts{}, "catalogs", "import", miniZip(t), "--data", db)
	if r.code != 0 || r.err != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
}

func TestCatalogsImportFromAURL(t *testing.T) {
	isolate(t)
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
	r := run1(t, runOpts{}, "catalogs", "import", srv.URL+"/archive/master.zip", "--data", db, "-o", "json")
	if r.code != 0 || !strings.Contains(r.out, `"version": "1.2.20260101"`) {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
}

func TestCatalogsImportNeedsADatabase(t *testing.T) {
	isolate(t)
	r := run1(t, runOpts{}, "catalogs", "import", miniZip(t), "--data", filepath.Join(t.TempDir(), "none.db"))
	if r.code != 1 || !strings.Contains(r.err, "timbra server init") {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	r = run1(t, runOpts{}, "catalogs", "import")
	if r.code != 2 {
		t.Fatalf("no SOURCE: exit %d: %s", r.code, r.err)
	}
}
