package catalogs

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

var update = flag.Bool("update", false, "rewrite the generated tables of docs/catalogs.md")

var docsPath = testpaths.Repo("docs", "catalogs.md")

// docRow is a catalog's line in docs/catalogs.md.
func docRow(c *Catalog) string {
	from := ""
	switch {
	case c.Table != "" && c.Keep != nil:
		from = "`" + c.Table + "`: " + c.Note
	case c.Table != "" && c.Note != "":
		from = "`" + c.Table + "`: " + c.Note
	case c.Table != "":
		id := "`" + strings.Join(c.ID, "`-`") + "`"
		desc := "`" + c.Desc + "`"
		if c.Desc == "" {
			desc = "the id"
		}
		from = "`" + c.Table + "`, id " + id + ", description " + desc
		if c.TaxIDPattern != "" {
			from += "; the pattern of a resident's tax number `" + c.TaxIDPattern + "`, kept for the `foreignTin` checks, not shown"
		}
	default:
		ids := make([]string, len(c.Records))
		for i, r := range c.Records {
			ids[i] = "`" + r.ID + "`"
		}
		from = "timbra: " + c.Note + "; ids " + strings.Join(ids, ", ")
	}
	sat := c.SAT
	if sat == "" {
		sat = "—"
	}
	return "| " + c.Name + " | " + sat + " | " + from + " |"
}

func docTable(cs []Catalog) string {
	var b strings.Builder
	b.WriteString("| name | SAT catalog | records from |\n|---|---|---|\n")
	for i := range cs {
		b.WriteString(docRow(&cs[i]) + "\n")
	}
	return b.String()
}

// TestCatalogsAreDocumented keeps docs/catalogs.md in step with All and Downloads; run
// `go test ./internal/catalogs -run Documented -update` after changing them.
func TestCatalogsAreDocumented(t *testing.T) {
	raw, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	sections := []struct{ begin, end, table string }{
		{"<!-- catalogs:begin -->\n", "<!-- catalogs:end -->", docTable(All)},
		{"<!-- downloads:begin -->\n", "<!-- downloads:end -->", docTable(Downloads)},
	}
	for _, s := range sections {
		i, j := strings.Index(doc, s.begin), strings.Index(doc, s.end)
		if i < 0 || j < i {
			t.Fatalf("docs/catalogs.md lacks the markers %q … %q", s.begin, s.end)
		}
		if got := doc[i+len(s.begin) : j]; got != s.table {
			if !*update {
				t.Errorf("docs/catalogs.md is not in step with the registry: run go test ./internal/catalogs -run Documented -update")
				continue
			}
			doc = doc[:i+len(s.begin)] + s.table + doc[j:]
		}
	}
	if *update {
		if err := os.WriteFile(docsPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
