package loadquery

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// catalogRecord is a catalog record (CatalogDto, spec 1 §7.3) as the catalogs resource holds it.
type catalogRecord struct {
	ID          string  `json:"id"`
	Description string  `json:"description"`
	CreatedAt   *string `json:"createdAt"`
	UpdatedAt   *string `json:"updatedAt"`
}

var catalogSchema = NewSchema(
	Field[*catalogRecord]{Name: "id", Kind: String, Get: func(r *catalogRecord) any { return &r.ID }},
	Field[*catalogRecord]{Name: "description", Kind: String, Get: func(r *catalogRecord) any { return &r.Description }},
	Field[*catalogRecord]{Name: "createdAt", Kind: Date, Get: func(r *catalogRecord) any { return r.CreatedAt }},
	Field[*catalogRecord]{Name: "updatedAt", Kind: Date, Get: func(r *catalogRecord) any { return r.UpdatedAt }},
)

// The same schema with getters that return values (each read boxes a string).
var catalogSchemaValues = NewSchema(
	Field[*catalogRecord]{Name: "id", Kind: String, Get: func(r *catalogRecord) any { return r.ID }},
	Field[*catalogRecord]{Name: "description", Kind: String, Get: func(r *catalogRecord) any { return r.Description }},
	Field[*catalogRecord]{Name: "createdAt", Kind: Date, Get: func(r *catalogRecord) any { return r.CreatedAt }},
	Field[*catalogRecord]{Name: "updatedAt", Kind: Date, Get: func(r *catalogRecord) any { return r.UpdatedAt }},
)

// productCodes is c_ClaveProdServ (52,514 records): read from ../shared when it is there,
// otherwise made up with the same count and similar texts.
var productCodes = sync.OnceValues(func() ([]*catalogRecord, string) {
	path := testpaths.Shared("catalogs", "data", "cfdi_40_productos_servicios.sql")
	if recs, err := readCatalogSQL(path); err == nil && len(recs) > 0 {
		return recs, "c_ClaveProdServ from " + path
	}
	words := []string{"Tornillo", "tuerca", "cable", "Máquina", "de", "acero", "servicio", "árbol", "vivo", "eléctrico", "papel", "Madera"}
	recs := make([]*catalogRecord, 52514)
	for i := range recs {
		d := fmt.Sprintf("%s %s %s %d", words[i%12], words[(i/12)%12], words[(i/144)%12], i)
		at := fmt.Sprintf("2019-01-%02dT00:00:00.000", 1+i%28)
		recs[i] = &catalogRecord{ID: fmt.Sprintf("%08d", 10101500+i*37), Description: d, CreatedAt: &at}
	}
	return recs, "synthetic (../shared missing)"
})

// readCatalogSQL reads the id, texto and vigencia_desde of each INSERT line.
func readCatalogSQL(path string) ([]*catalogRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []*catalogRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "INSERT INTO cfdi_40_productos_servicios VALUES(")
		if !ok {
			continue
		}
		vals := sqlValues(strings.TrimSuffix(line, ");"))
		if len(vals) < 6 {
			return nil, fmt.Errorf("bad line %q", line)
		}
		at := vals[5] + "T00:00:00.000"
		recs = append(recs, &catalogRecord{ID: vals[0], Description: vals[1], CreatedAt: &at})
	}
	return recs, sc.Err()
}

// sqlValues splits a VALUES list: 'quoted' (with ” for a quote) or bare.
func sqlValues(s string) []string {
	var out []string
	for len(s) > 0 {
		if s[0] == '\'' {
			var b strings.Builder
			i := 1
			for i < len(s) {
				if s[i] == '\'' {
					if i+1 < len(s) && s[i+1] == '\'' {
						b.WriteByte('\'')
						i += 2
						continue
					}
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, b.String())
			s = strings.TrimPrefix(s[min(i+1, len(s)):], ",")
			continue
		}
		v, rest, _ := strings.Cut(s, ",")
		out = append(out, v)
		s = rest
	}
	return out
}

func TestCatalogData(t *testing.T) {
	recs, source := productCodes()
	if len(recs) != 52514 {
		t.Fatalf("%s: %d records, want 52514", source, len(recs))
	}
	res, fs := Load(catalogSchema, recs, url.Values{
		"filter": {`["description","contains","TORNILLO"]`}, "sort": {`[{"selector":"description","desc":true}]`},
		"take": {"5"}, "requireTotalCount": {"true"},
	})
	if fs != nil {
		t.Fatal(fs)
	}
	got := res.Data.([]*catalogRecord)
	if res.TotalCount == 0 || len(got) != min(5, res.TotalCount) {
		t.Fatalf("%s: %d of %d", source, len(got), res.TotalCount)
	}
	for _, r := range got {
		if !strings.Contains(strings.ToLower(r.Description), "tornillo") {
			t.Fatalf("%q does not contain tornillo", r.Description)
		}
	}
	if !slices.IsSortedFunc(got, func(a, b *catalogRecord) int { return collate(b.Description, a.Description) }) {
		t.Fatal("not sorted desc")
	}
}

var benchQueries = []struct{ name, query string }{
	{"contains+sort+take20", `filter=["description","contains","tornillo"]&sort=[{"selector":"description"}]&take=20&requireTotalCount=true`},
	{"or+startswith+sort+take50", `filter=[["id","startswith","43"],"or",["description","contains","cable"]]&sort=["id"]&take=50&requireTotalCount=true`},
	{"sortall+take20", `sort=[{"selector":"description","desc":true}]&take=20&requireTotalCount=true`},
	{"sortall+skip1000+take20", `sort=["description"]&skip=1000&take=20`},
	{"id=+take1", `filter=["id","=","43211503"]&take=1`},
	{"sortall-no-take", `sort=["description"]`},
	{"startswith+group-collapsed+take20", `filter=["description","startswith","a"]&group=[{"selector":"id","isExpanded":false}]&take=20&requireGroupCount=true`},
}

// BenchmarkLoadCatalog runs load queries over the 52,514 records of c_ClaveProdServ.
func BenchmarkLoadCatalog(b *testing.B) {
	recs, source := productCodes()
	b.Logf("%d records, %s", len(recs), source)
	for _, s := range []struct {
		name   string
		schema Schema[*catalogRecord]
	}{{"ptr", catalogSchema}, {"value", catalogSchemaValues}} {
		for _, bq := range benchQueries {
			q, err := url.ParseQuery(bq.query)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(s.name+"/"+bq.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, fs := Load(s.schema, recs, q); fs != nil {
						b.Fatal(fs)
					}
				}
			})
		}
	}
}

// BenchmarkFloorCatalog is the floor for contains+sort+take20: the least work a query of that
// shape can do, written by hand for this one record type: a case-sensitive strings.Contains over
// the descriptions (no folding, no getters), then a byte-order sort of the matches.
func BenchmarkFloorCatalog(b *testing.B) {
	recs, _ := productCodes()
	b.ReportAllocs()
	for b.Loop() {
		var match []*catalogRecord
		for _, r := range recs {
			if strings.Contains(r.Description, "ornillo") {
				match = append(match, r)
			}
		}
		slices.SortStableFunc(match, func(a, b *catalogRecord) int { return strings.Compare(a.Description, b.Description) })
		_ = match[:min(20, len(match))]
	}
}

// BenchmarkNaiveCatalog is the same query written the obvious way by hand: strings.ToLower on
// every description, then strings.Contains.
func BenchmarkNaiveCatalog(b *testing.B) {
	recs, _ := productCodes()
	b.ReportAllocs()
	for b.Loop() {
		var match []*catalogRecord
		for _, r := range recs {
			if strings.Contains(strings.ToLower(r.Description), "tornillo") {
				match = append(match, r)
			}
		}
		slices.SortStableFunc(match, func(a, b *catalogRecord) int { return collate(a.Description, b.Description) })
		_ = match[:min(20, len(match))]
	}
}
