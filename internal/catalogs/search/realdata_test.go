package search

import (
	"bufio"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// productsFile is c_ClaveProdServ as the shared catalog data has it.
var productsFile = testpaths.Shared("catalogs", "data", "cfdi_40_productos_servicios.sql")

var products struct {
	once       sync.Once
	ids, descs []string
	err        error
}

// loadProducts reads the id and description of every record of productsFile, skipping the
// test when the file is absent.
func loadProducts(tb testing.TB) (ids, descs []string) {
	tb.Helper()
	products.once.Do(func() {
		products.ids, products.descs, products.err = readInserts(productsFile)
	})
	if os.IsNotExist(products.err) {
		tb.Skipf("%s is absent (the shared SAT catalog data): skipping the test on real data", productsFile)
	}
	if products.err != nil {
		tb.Fatal(products.err)
	}
	return products.ids, products.descs
}

// readInserts reads the first two quoted values of every INSERT line of a SQL dump.
func readInserts(name string) (ids, descs []string, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "INSERT INTO") {
			continue
		}
		_, rest, ok := strings.Cut(line, "VALUES(")
		if !ok {
			continue
		}
		id, rest := quoted(rest)
		desc, _ := quoted(strings.TrimPrefix(rest, ","))
		ids = append(ids, id)
		descs = append(descs, desc)
	}
	return ids, descs, sc.Err()
}

// quoted reads a SQL string literal ('it”s') at the start of s and returns its value and
// what follows it.
func quoted(s string) (value, rest string) {
	if !strings.HasPrefix(s, "'") {
		return "", s
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:]
	}
	return b.String(), ""
}

func TestQuoted(t *testing.T) {
	v, rest := quoted("'Mosto de st''john',0,0")
	if v != "Mosto de st'john" || rest != ",0,0" {
		t.Errorf("quoted = %q, %q", v, rest)
	}
}

var productsIndex struct {
	once sync.Once
	ix   *Index
}

func productIndex(tb testing.TB) (*Index, []string, []string) {
	ids, descs := loadProducts(tb)
	productsIndex.once.Do(func() { productsIndex.ix = New(ids, descs) })
	return productsIndex.ix, ids, descs
}

func TestProducts(t *testing.T) {
	ids, descs := loadProducts(t)
	if len(ids) != 52514 {
		t.Fatalf("%d records, want 52514", len(ids))
	}
	if !slices.IsSorted(ids) {
		t.Error("the records are not sorted by key")
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	ix := New(ids, descs)
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("New: %d records in %v, heap %.1f MB; %d word folds (%d postings), %d plural words (%d postings), %d distinct words",
		ix.Len(), took, float64(after.HeapAlloc-before.HeapAlloc)/1e6,
		ix.folds.len(), len(ix.folds.post), ix.typed.len(), len(ix.typed.post), len(ix.words))
	runtime.KeepAlive(ix)

	pos := func(id string) int {
		i, ok := slices.BinarySearch(ids, id)
		if !ok {
			t.Fatalf("no record %s", id)
		}
		return i
	}

	t.Run("leche", func(t *testing.T) {
		got, total := ix.Search("leche", 0, ix.Len())
		if total == 0 {
			t.Fatal("no results")
		}
		// The descriptions with the word "leche" (or "leches"), or starting with it, come
		// first (tiers 3–5), then the others (words starting with or containing "leche"), and
		// none is missing.
		good := func(p int) bool {
			ws := refWords(descs[p])
			return len(ws) > 0 && strings.HasPrefix(ws[0], "leche") ||
				slices.Contains(ws, "leche") || slices.Contains(ws, "leches")
		}
		n := 0
		for p := range descs {
			if good(p) {
				n++
			}
		}
		t.Logf("leche: %d results, %d with the word", total, n)
		for i, p := range got {
			if good(p) != (i < n) {
				t.Fatalf("result %d: %s %q (%d with the word)", i, ids[p], descs[p], n)
			}
		}
		for i, p := range got[:min(len(got), 10)] {
			t.Logf("leche %d: %s %s", i, ids[p], descs[p])
			if !strings.Contains(Fold(descs[p]), "leche") {
				t.Errorf("result %d: %s %q has no leche", i, ids[p], descs[p])
			}
		}
	})

	t.Run("lápiz", func(t *testing.T) {
		for _, term := range []string{"lápiz", "lapiz", "LAPIZ", "lápices"} {
			got, total := ix.Search(term, 0, 100)
			for _, id := range []string{"27112309", "44121706"} {
				if !slices.Contains(got, pos(id)) {
					t.Errorf("Search(%q) (total %d) lacks %s %q", term, total, id, descs[pos(id)])
				}
			}
		}
	})

	t.Run("key", func(t *testing.T) {
		got, _ := ix.Search("01010101", 0, 10)
		if len(got) == 0 || ids[got[0]] != "01010101" {
			t.Errorf("Search(01010101) starts with %v", got)
		}
		k := 0
		for _, id := range ids {
			if strings.HasPrefix(id, "5010") {
				k++
			}
		}
		got, total := ix.Search("5010", 0, 50)
		if k == 0 || total < k {
			t.Fatalf("Search(5010): total %d, %d keys start with 5010", total, k)
		}
		for i, p := range got[:k] {
			if !strings.HasPrefix(ids[p], "5010") {
				t.Errorf("Search(5010): result %d is %s, before a key starting with 5010", i, ids[p])
			}
		}
	})
}

// TestProductsMatchesReference compares the index with the reference on the real data, for
// a few terms.
func TestProductsMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ix, ids, descs := productIndex(t)
	for _, term := range append(slices.Clone(typicalTerms), "a", "de", "s", "lech", "lapice", "tornillo acero", "5") {
		want := refSearch(ids, descs, term)
		got, total := ix.Search(term, 0, len(ids))
		if !slices.Equal(got, want) || total != len(want) {
			t.Errorf("Search(%q): %d results (total %d), reference %d", term, len(got), total, len(want))
		}
	}
}

var (
	typicalTerms = []string{"leche", "lápiz", "servicios de consultoría", "5010", "tornillos"}
	worstTerms   = []string{"a", "de", "s"}
	// realisticTerms are what people search for, for the latency percentiles.
	realisticTerms = []string{
		"leche", "lápiz", "servicios de consultoría", "5010", "tornillos", "computadora", "papel",
		"agua", "renta", "gasolina", "medicamentos", "software", "transporte", "consultoría",
		"cemento", "acero", "pintura", "zapatos", "camisa", "honorarios", "servicios", "alimentos",
		"mantenimiento", "limpieza", "publicidad", "01010101", "43211500", "8111", "cable",
		"tubo de cobre", "refacciones", "llantas", "café", "azúcar", "pan", "carne de res",
		"pollo", "huevo", "queso", "frijol", "servicios contables", "arrendamiento de inmuebles",
		"lech", "tornill", "equipo de computo", "aceite", "harina", "vidrio", "madera",
	}
)

func BenchmarkSearch(b *testing.B) {
	ix, _, _ := productIndex(b)
	for _, group := range []struct {
		name  string
		terms []string
	}{{"typical", typicalTerms}, {"worst", worstTerms}} {
		for _, term := range group.terms {
			b.Run(group.name+"/"+term, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					ix.Search(term, 0, 50)
				}
			})
		}
	}
}

// BenchmarkSearchLatency searches every term of a list once per iteration and reports the
// percentiles of the single searches: the realistic terms, and those with the worst ones.
func BenchmarkSearchLatency(b *testing.B) {
	ix, _, _ := productIndex(b)
	for _, list := range []struct {
		name  string
		terms []string
	}{{"realistic", realisticTerms}, {"with-worst", append(slices.Clone(realisticTerms), worstTerms...)}} {
		b.Run(list.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				for _, term := range list.terms {
					start := time.Now()
					ix.Search(term, 0, 50)
					took = append(took, time.Since(start))
				}
			}
			slices.Sort(took)
			pct := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))]) / 1e3 }
			b.ReportMetric(pct(0.50), "p50-µs")
			b.ReportMetric(pct(0.99), "p99-µs")
			b.ReportMetric(float64(took[len(took)-1])/1e3, "max-µs")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(len(took)), "ns/search")
		})
	}
}

func BenchmarkNew(b *testing.B) {
	ids, descs := loadProducts(b)
	b.ReportAllocs()
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.KeepAlive(New(ids, descs))
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix := New(ids, descs)
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "heap-B")
	runtime.KeepAlive(ix)
}
