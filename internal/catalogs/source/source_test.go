package source

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// fixture is a small catalog folder in the SQL-text format, by slash path.
func fixture() map[string]string {
	return map[string]string{
		"version.txt": "1.2.20250101\n",
		// Not sorted, to see that the order of tables.list is kept.
		"tables.list": "regimenes\npares\n\nvacia\n",
		"schemas/regimenes.sql": "CREATE TABLE IF NOT EXISTS \"regimenes\"(\n" +
			"  \"id\" text not null,\n" +
			"  \"texto\" text not null,\n" +
			"  \"tasa\" real not null,\n" +
			"  \"extra\" text,\n" +
			"  PRIMARY KEY(\"id\")\n" +
			");\n",
		"data/regimenes.sql": "PRAGMA foreign_keys=OFF;\n" +
			"BEGIN TRANSACTION;\n" +
			"INSERT INTO regimenes VALUES('601','General de Ley Personas Morales',0.160000,NULL);\n" +
			"INSERT INTO regimenes VALUES('O''Brien, (S.A.); de C.V.','Régimen Simplificado de Confianza — ñ',-12,'x');\n" +
			"\n" +
			"INSERT INTO regimenes VALUES('a','',1e3,'');\n" +
			"COMMIT;\n",
		"schemas/pares.sql": `CREATE TABLE IF NOT EXISTS "pares"("a" text not null, "b" int not null, PRIMARY KEY("a", "b"));` + "\n",
		// CRLF line endings, no newline at the end.
		"data/pares.sql":    "PRAGMA foreign_keys=OFF;\r\nBEGIN TRANSACTION;\r\nINSERT INTO pares VALUES('x',1);\r\nINSERT INTO pares VALUES('y;z',2);\r\nCOMMIT;",
		"schemas/vacia.sql": "CREATE TABLE IF NOT EXISTS \"vacia\"(\n  \"id\" text not null,\n  PRIMARY KEY(\"id\")\n);\n",
		// No data/vacia.sql: HasData false.
	}
}

var fixtureRows = map[string][][]any{
	"regimenes": {
		{"601", "General de Ley Personas Morales", json.Number("0.160000"), nil},
		{"O'Brien, (S.A.); de C.V.", "Régimen Simplificado de Confianza — ñ", json.Number("-12"), "x"},
		{"a", "", json.Number("1e3"), ""},
	},
	"pares": {
		{"x", json.Number("1")},
		{"y;z", json.Number("2")},
	},
}

var fixtureTables = []Table{
	{Name: "regimenes", Columns: []string{"id", "texto", "tasa", "extra"}, Key: []string{"id"}, HasData: true},
	{Name: "pares", Columns: []string{"a", "b"}, Key: []string{"a", "b"}, HasData: true},
	{Name: "vacia", Columns: []string{"id"}, Key: []string{"id"}, HasData: false},
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// zipFiles builds a zip holding files under prefix, plus any extra entries.
func zipFiles(t testing.TB, prefix string, files map[string]string, extra map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, content string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if prefix != "" {
		if _, err := zw.Create(prefix); err != nil { // a folder entry, as GitHub writes them
			t.Fatal(err)
		}
	}
	for name, content := range files {
		add(prefix+name, content)
	}
	for name, content := range extra {
		add(name, content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readAll(t testing.TB, s *Source, table string) [][]any {
	t.Helper()
	var rows [][]any
	if err := s.Rows(table, func(v []any) error {
		rows = append(rows, v)
		return nil
	}); err != nil {
		t.Fatalf("Rows(%s): %v", table, err)
	}
	return rows
}

// checkFixture checks that s reads the fixture.
func checkFixture(t *testing.T, s *Source) {
	t.Helper()
	if got := s.Version(); got != "1.2.20250101" {
		t.Errorf("Version() = %q", got)
	}
	if got := s.Tables(); !reflect.DeepEqual(got, fixtureTables) {
		t.Errorf("Tables() = %#v\nwant %#v", got, fixtureTables)
	}
	for table, want := range fixtureRows {
		if got := readAll(t, s, table); !reflect.DeepEqual(got, want) {
			t.Errorf("rows of %s = %#v\nwant %#v", table, got, want)
		}
		if got, want := s.DataSize(table), int64(len(fixture()["data/"+table+".sql"])); got != want {
			t.Errorf("DataSize(%s) = %d, want %d", table, got, want)
		}
	}
	if rows := readAll(t, s, "vacia"); len(rows) != 0 {
		t.Errorf("rows of vacia = %v, want none", rows)
	}
	if got := s.DataSize("vacia"); got != -1 {
		t.Errorf("DataSize(vacia) = %d, want -1", got)
	}
	if err := s.Rows("nope", func([]any) error { return nil }); err == nil || !strings.Contains(err.Error(), `there is no table "nope"`) {
		t.Errorf("Rows(nope) = %v", err)
	}
}

func TestOpenFolder(t *testing.T) {
	for _, layout := range []string{"", "database/", "resources-sat-catalogs-master/database/", "extracted/"} {
		t.Run("layout="+layout, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, filepath.Join(dir, filepath.FromSlash(layout)), fixture())
			// Files beside the catalog folder are ignored.
			writeFiles(t, dir, map[string]string{"README.md": "hello"})
			s, err := Open(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			checkFixture(t, s)
			if want := filepath.Join(dir, filepath.FromSlash(layout)); filepath.Clean(s.Describe()) != filepath.Clean(want) {
				t.Errorf("Describe() = %q, want %q", s.Describe(), want)
			}
			if s.ETag() != "" || s.LastModified() != "" {
				t.Errorf("ETag/LastModified of a folder = %q, %q", s.ETag(), s.LastModified())
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

func TestOpenFolderWithoutTablesListOrVersion(t *testing.T) {
	dir := t.TempDir()
	files := fixture()
	delete(files, "tables.list")
	delete(files, "version.txt")
	files["schemas/notes.txt"] = "not a schema"
	writeFiles(t, dir, files)
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var names []string
	for _, tb := range s.Tables() {
		names = append(names, tb.Name)
	}
	if want := []string{"pares", "regimenes", "vacia"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tables = %v, want %v (sorted)", names, want)
	}
	if s.Version() != "" {
		t.Errorf("Version() = %q, want empty", s.Version())
	}
}

func TestTablesIsACopy(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, fixture())
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tb := s.Tables()
	tb[0].Name = "changed"
	tb[0].Columns[0] = "changed"
	if got := s.Tables(); !reflect.DeepEqual(got, fixtureTables) {
		t.Errorf("Tables() changed by its caller: %#v", got)
	}
}

func TestRowsErrors(t *testing.T) {
	header := "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n"
	tests := []struct {
		name, data, want string
	}{
		{"malformed", header + "INSERT INTO regimenes VALUES('1','a',1,NULL);\nINSERT INTO regimenes VALUES('2','b,1,NULL);\nCOMMIT;\n",
			"data/regimenes.sql:4: value 2: unterminated string"},
		{"too few values", header + "INSERT INTO regimenes VALUES('1','a',1);\nCOMMIT;\n",
			"data/regimenes.sql:3: the row has 3 values but table regimenes has 4 columns"},
		{"too many values", header + "INSERT INTO regimenes VALUES('1','a',1,NULL,NULL);\nCOMMIT;\n",
			"data/regimenes.sql:3: the row has 5 values but table regimenes has 4 columns"},
		{"other table", header + "INSERT INTO pares VALUES('1','a',1,NULL);\nCOMMIT;\n",
			`data/regimenes.sql:3: the statement inserts into "pares", expected "regimenes"`},
		{"other statement", header + "DELETE FROM regimenes;\nCOMMIT;\n",
			"data/regimenes.sql:3: expected INSERT INTO"},
		{"cut short", header + "INSERT INTO regimenes VALUES('1','a',1,NULL);\n",
			"data/regimenes.sql:3: the file ends without COMMIT"},
		{"crlf malformed", "PRAGMA foreign_keys=OFF;\r\nBEGIN TRANSACTION;\r\nINSERT INTO regimenes VALUES('1','a',1,NULL)\r\nCOMMIT;\r\n",
			"data/regimenes.sql:3: expected ; at the end of the statement, found the end of the line"},
		{"not utf-8", header + "INSERT INTO regimenes VALUES('1','R\xe9gimen',1,NULL);\nCOMMIT;\n",
			"data/regimenes.sql:3: the line is not valid UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := fixture()
			files["data/regimenes.sql"] = tt.data
			writeFiles(t, dir, files)
			s, err := Open(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.Rows("regimenes", func([]any) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Rows error = %v, want it to contain %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "data", "regimenes.sql")) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestRowsStopsOnCallbackError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, fixture())
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop := errors.New("stop")
	n := 0
	err = s.Rows("regimenes", func([]any) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("Rows = %v after %d calls, want the callback's error after 1", err, n)
	}
}

func TestRowsConcurrent(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.zip")
	if err := os.WriteFile(p, zipFiles(t, "", fixture(), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for table, want := range fixtureRows {
				var got [][]any
				if err := s.Rows(table, func(v []any) error { got = append(got, v); return nil }); err != nil {
					t.Error(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("rows of %s = %v", table, got)
				}
			}
		})
	}
	wg.Wait()
}

func TestRowsLongLine(t *testing.T) {
	dir := t.TempDir()
	files := fixture()
	long := strings.Repeat("ñ,()';x", 200_000) // 1.8 MB, longer than the read buffer
	quoted := strings.ReplaceAll(long, "'", "''")
	files["data/regimenes.sql"] = "BEGIN TRANSACTION;\nINSERT INTO regimenes VALUES('1','" + quoted + "',1,NULL);\nINSERT INTO regimenes VALUES('2','b',2,NULL);\nCOMMIT;\n"
	writeFiles(t, dir, files)
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows := readAll(t, s, "regimenes")
	if len(rows) != 2 || rows[0][1] != long || rows[1][0] != "2" {
		t.Errorf("long line not read back (%d rows)", len(rows))
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // nil: no folder at all
		want  string
	}{
		{"missing", nil, "no such file or folder"},
		{"no catalog", map[string]string{"README.md": "x", "other/file": "y"},
			"no schemas/ and data/ folders found (expected a folder like phpcfdi/resources-sat-catalogs/database)"},
		{"two catalogs", func() map[string]string {
			m := map[string]string{}
			for k, v := range fixture() {
				m["a/"+k] = v
				m["b/database/"+k] = v
			}
			return m
		}(), "several catalog folders found"},
		{"listed without schema", func() map[string]string {
			m := fixture()
			delete(m, "schemas/pares.sql")
			return m
		}(), "table pares is listed in tables.list but"},
		{"schema of another table", func() map[string]string {
			m := fixture()
			m["schemas/pares.sql"] = `CREATE TABLE "otra"("a" text);`
			return m
		}(), `schemas/pares.sql: the schema creates table "otra", expected "pares"`},
		{"bad schema", func() map[string]string {
			m := fixture()
			m["schemas/pares.sql"] = `CREATE TABLE "pares"(`
			return m
		}(), "schemas/pares.sql: "},
		{"bad table name", func() map[string]string {
			m := fixture()
			m["tables.list"] = "regimenes\n../etc/passwd\n"
			return m
		}(), `tables.list:2: "../etc/passwd" is not a table name`},
		{"table twice", func() map[string]string {
			m := fixture()
			m["tables.list"] = "regimenes\nregimenes\n"
			return m
		}(), "tables.list:2: table regimenes is listed twice"},
		{"empty", map[string]string{"schemas/.keep": "", "data/.keep": ""}, "there are no tables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "src")
			if tt.files != nil {
				writeFiles(t, dir, tt.files)
			}
			s, err := Open(context.Background(), dir, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "catalog source ") && !strings.HasPrefix(err.Error(), dir) {
				t.Errorf("Open error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := Open(context.Background(), "", Options{}); err == nil || !strings.Contains(err.Error(), "none given") {
		t.Errorf("Open(\"\") = %v", err)
	}
	notZip := filepath.Join(t.TempDir(), "catalogs.db")
	writeFiles(t, filepath.Dir(notZip), map[string]string{"catalogs.db": "SQLite format 3\x00"})
	if _, err := Open(context.Background(), notZip, Options{}); err == nil || !strings.Contains(err.Error(), "not a folder or a .zip file") {
		t.Errorf("Open(non-zip file) = %v", err)
	}
	badZip := filepath.Join(t.TempDir(), "cut.zip")
	z := zipFiles(t, "", fixture(), nil)
	if err := os.WriteFile(badZip, z[:len(z)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), badZip, Options{}); err == nil || !strings.Contains(err.Error(), "not a readable zip archive") {
		t.Errorf("Open(cut zip) = %v", err)
	}
}

func TestOpenZip(t *testing.T) {
	extra := map[string]string{
		"resources-sat-catalogs-master/README.md":                 "# Catálogos",
		"resources-sat-catalogs-master/CHANGELOG.md":              "changes",
		"__MACOSX/resources-sat-catalogs-master/schemas/._x.sql":  "junk",
		"__MACOSX/resources-sat-catalogs-master/data/._x.sql":     "junk",
		"resources-sat-catalogs-master/.github/workflows/x.yml":   "on: push",
		"resources-sat-catalogs-master/database/schemas/.gitkeep": "",
	}
	for _, tt := range []struct{ name, prefix string }{
		{"github archive", "resources-sat-catalogs-master/database/"},
		{"root", ""},
		{"one level down", "catalogs/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			z := zipFiles(t, tt.prefix, fixture(), extra)
			p := filepath.Join(t.TempDir(), "resources-sat-catalogs.zip")
			if err := os.WriteFile(p, z, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(context.Background(), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			checkFixture(t, s)
			if s.Describe() != p {
				t.Errorf("Describe() = %q, want %q", s.Describe(), p)
			}
		})
	}
	t.Run("errors name the entry", func(t *testing.T) {
		files := fixture()
		files["data/pares.sql"] = "INSERT INTO pares VALUES('x');\n"
		p := filepath.Join(t.TempDir(), "c.zip")
		if err := os.WriteFile(p, zipFiles(t, "r-master/database/", files, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(context.Background(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		err = s.Rows("pares", func([]any) error { return nil })
		if want := p + ": r-master/database/data/pares.sql:1: the row has 1 values but table pares has 2 columns"; err == nil || err.Error() != want {
			t.Errorf("Rows error = %v\nwant %s", err, want)
		}
	})
	t.Run("no catalog", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "c.zip")
		if err := os.WriteFile(p, zipFiles(t, "x/", map[string]string{"schemas/a.sql": "x"}, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(context.Background(), p, Options{}); err == nil || !strings.Contains(err.Error(), "no schemas/ and data/ folders found in the zip") {
			t.Errorf("Open = %v", err)
		}
	})
}

// server serves files at /files/..., a zip at /catalogs.zip and counts
// requests.
type server struct {
	*httptest.Server
	zip      []byte
	modified time.Time
	mu       sync.Mutex
	requests []string
}

func newServer(t *testing.T, tlsServer bool) *server {
	s := &server{zip: zipFiles(t, "resources-sat-catalogs-master/database/", fixture(), nil), modified: time.Date(2026, 8, 6, 12, 0, 0, 0, time.UTC)}
	files := fixture()
	mux := http.NewServeMux()
	mux.HandleFunc("/catalogs.zip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "catalogs.zip", s.modified, bytes.NewReader(s.zip))
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<html>not a zip</html>"))
	})
	mux.HandleFunc("/boom.zip", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/broken/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/broken/data/pares.sql" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		r.URL.Path = "/files/" + strings.TrimPrefix(r.URL.Path, "/broken/")
		mux.ServeHTTP(w, r)
	})
	mux.HandleFunc("/files/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/files/")
		content, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if name == "version.txt" {
			w.Header().Set("ETag", `"folder-v1"`)
		}
		http.ServeContent(w, r, path.Base(name), s.modified, strings.NewReader(content))
	})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		mux.ServeHTTP(w, r)
	})
	if tlsServer {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

func TestOpenURLZip(t *testing.T) {
	srv := newServer(t, true)
	tmp := t.TempDir()
	var mu sync.Mutex
	var calls [][2]int64
	opt := Options{
		HTTPClient: srv.Client(),
		TempDir:    tmp,
		Progress: func(done, total int64) {
			mu.Lock()
			calls = append(calls, [2]int64{done, total})
			mu.Unlock()
		},
	}
	u := srv.URL + "/catalogs.zip"
	s, err := Open(context.Background(), u, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkFixture(t, s)
	if s.Describe() != u {
		t.Errorf("Describe() = %q, want %q", s.Describe(), u)
	}
	if s.ETag() != `"v1"` {
		t.Errorf("ETag() = %q", s.ETag())
	}
	if want := srv.modified.Format(http.TimeFormat); s.LastModified() != want {
		t.Errorf("LastModified() = %q, want %q", s.LastModified(), want)
	}
	if len(calls) == 0 {
		t.Fatal("Progress was not called")
	}
	size := int64(len(srv.zip))
	if last := calls[len(calls)-1]; last != [2]int64{size, size} {
		t.Errorf("last Progress call = %v, want done == total == %d", last, size)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("temporary folder holds %d files while open, want the zip", len(entries))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("Close left %d files in the temporary folder", len(entries))
	}

	// The same download again, conditional: 304.
	for _, cond := range []Options{{ETag: s.ETag()}, {LastModified: s.LastModified()}} {
		cond.HTTPClient, cond.TempDir = srv.Client(), tmp
		_, err = Open(context.Background(), u, cond)
		if !errors.Is(err, ErrNotModified) {
			t.Errorf("Open with %+v = %v, want ErrNotModified", cond, err)
		}
	}
	// A stale ETag downloads again.
	s, err = Open(context.Background(), u, Options{HTTPClient: srv.Client(), TempDir: tmp, ETag: `"v0"`})
	if err != nil {
		t.Fatalf("Open with a stale ETag: %v", err)
	}
	s.Close()
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("%d files left in the temporary folder", len(entries))
	}
}

func TestOpenURLErrors(t *testing.T) {
	srv := newServer(t, true)
	tmp := t.TempDir()
	opt := Options{HTTPClient: srv.Client(), TempDir: tmp}
	tests := []struct {
		url, want string
	}{
		{srv.URL + "/missing.zip", "catalog source " + srv.URL + "/missing.zip: the server answered 404 Not Found"},
		{srv.URL + "/boom.zip", "the server answered 500 Internal Server Error"},
		{srv.URL + "/page.html", "the answer (text/html; charset=utf-8) is not a zip archive; expected the URL of a .zip archive"},
		{srv.URL + "/nothing/", "there is no tables.list at " + srv.URL + "/nothing/tables.list"},
		{srv.URL + "/broken/", "the server answered 403 Forbidden for " + srv.URL + "/broken/data/pares.sql"},
		{"http://example.com/catalogs.zip", "plain http:// is accepted only for a loopback address"},
		{"ftp://example.com/catalogs.zip", `unsupported URL scheme "ftp"`},
		{"https://", "the URL has no host"},
	}
	for _, tt := range tests {
		s, err := Open(context.Background(), tt.url, opt)
		if err == nil {
			s.Close()
			t.Errorf("Open(%s) succeeded", tt.url)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) = %q, want it to contain %q", tt.url, err, tt.want)
		}
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("failed downloads left %d files in the temporary folder", len(entries))
	}
}

func TestOpenURLHidesCredentials(t *testing.T) {
	srv := newServer(t, true)
	u := strings.Replace(srv.URL, "https://", "https://user:s3cret@", 1) + "/missing.zip?token=t0ken"
	_, err := Open(context.Background(), u, Options{HTTPClient: srv.Client(), TempDir: t.TempDir()})
	if err == nil {
		t.Fatal("Open succeeded")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cret") || strings.Contains(msg, "t0ken") || strings.Contains(msg, "user") {
		t.Errorf("error shows credentials: %s", msg)
	}
	// A connection failure too.
	_, err = Open(context.Background(), "https://user:s3cret@127.0.0.1:1/x.zip?token=t0ken", Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "t0ken") {
		t.Errorf("error = %v", err)
	}
}

func TestOpenURLCanceled(t *testing.T) {
	srv := newServer(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Open(ctx, srv.URL+"/catalogs.zip", Options{HTTPClient: srv.Client(), TempDir: t.TempDir()})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a canceled context = %v", err)
	}
}

func TestOpenURLFolder(t *testing.T) {
	srv := newServer(t, true)
	u := srv.URL + "/files/"
	s, err := Open(context.Background(), u, Options{HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkFixture(t, s)
	if s.Describe() != u || s.ETag() != `"folder-v1"` {
		t.Errorf("Describe() = %q, ETag() = %q", s.Describe(), s.ETag())
	}
	_, err = Open(context.Background(), u, Options{HTTPClient: srv.Client(), ETag: `"folder-v1"`})
	if !errors.Is(err, ErrNotModified) {
		t.Errorf("conditional Open = %v, want ErrNotModified", err)
	}
}

func TestOpenURLPlainHTTPLoopback(t *testing.T) {
	srv := newServer(t, false)
	s, err := Open(context.Background(), srv.URL+"/catalogs.zip", Options{TempDir: t.TempDir()}) // the default client
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkFixture(t, s)
}

func TestRedirectToPlainHTTPRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.RedirectHandler("http://example.com/catalogs.zip", http.StatusFound))
	defer srv.Close()
	_, err := Open(context.Background(), srv.URL+"/x.zip", Options{HTTPClient: srv.Client()})
	if err == nil || !strings.Contains(err.Error(), "redirected to http://example.com/catalogs.zip: plain http:// is accepted only for a loopback address") {
		t.Errorf("Open = %v", err)
	}
}

// sharedCatalogs is the catalog folder shared beside the repository.
func sharedCatalogs(tb testing.TB) string {
	dir := testpaths.Shared("catalogs")
	if _, err := os.Stat(filepath.Join(dir, "schemas")); err != nil {
		tb.Skipf("the shared catalogs are not at %s (they sit beside the repository as shared/catalogs): %v", dir, err)
	}
	return dir
}

func TestSharedCatalogs(t *testing.T) {
	dir := sharedCatalogs(t)
	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Version() != "10.14.20260806" {
		t.Errorf("Version() = %q", s.Version())
	}
	tables := s.Tables()
	if len(tables) != 179 {
		t.Errorf("%d tables, want 179", len(tables))
	}
	counts := map[string]int{}
	withData := 0
	for _, tb := range tables {
		if !tb.HasData {
			continue
		}
		withData++
		n := 0
		err := s.Rows(tb.Name, func(v []any) error {
			n++
			return nil
		})
		if err != nil {
			t.Errorf("table %s: %v", tb.Name, err)
		}
		counts[tb.Name] = n
	}
	if withData != 165 {
		t.Errorf("%d tables with data, want 165", withData)
	}
	for table, want := range map[string]int{"cfdi_40_productos_servicios": 52514, "cfdi_40_regimenes_fiscales": 19} {
		if counts[table] != want {
			t.Errorf("%s has %d rows, want %d", table, counts[table], want)
		}
	}
	for _, tb := range tables {
		if tb.Name == "cfdi_40_codigos_postales" && tb.HasData {
			t.Error("cfdi_40_codigos_postales has data, want HasData false")
		}
		if tb.Name == "cfdi_40_regimenes_fiscales" {
			want := Table{Name: tb.Name, Columns: []string{"id", "texto", "aplica_fisica", "aplica_moral", "vigencia_desde", "vigencia_hasta"}, Key: []string{"id"}, HasData: true}
			if !reflect.DeepEqual(tb, want) {
				t.Errorf("cfdi_40_regimenes_fiscales = %#v", tb)
			}
		}
	}
	var first []any
	s.Rows("cfdi_40_regimenes_fiscales", func(v []any) error {
		if first == nil {
			first = v
		}
		return nil
	})
	if want := []any{"601", "General de Ley Personas Morales", "", json.Number("1"), "2022-01-01", ""}; !reflect.DeepEqual(first, want) {
		t.Errorf("first regimen = %#v", first)
	}
}

func BenchmarkRowsProductCodes(b *testing.B) {
	s, err := Open(context.Background(), sharedCatalogs(b), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const table = "cfdi_40_productos_servicios"
	b.SetBytes(s.DataSize(table))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := s.Rows(table, func([]any) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 52514 {
			b.Fatalf("%d rows", n)
		}
	}
}

// BenchmarkSharedFolder opens the shared folder and reads every table.
func BenchmarkSharedFolder(b *testing.B) {
	dir := sharedCatalogs(b)
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		s, err := Open(context.Background(), dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, tb := range s.Tables() {
			if !tb.HasData {
				continue
			}
			size += s.DataSize(tb.Name)
			if err := s.Rows(tb.Name, func([]any) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	}
	b.SetBytes(size)
}
