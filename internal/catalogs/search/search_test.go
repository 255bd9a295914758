package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
)

// records is a small catalog, sorted by key.
var records = [][2]string{
	{"01010101", "No existe en el catálogo"},      // 0
	{"10101501", "Gatos vivos, lote 5010"},        // 1
	{"27112309", "Lápiz marcador"},                // 2
	{"44121619", "Tajalápices manuales"},          // 3
	{"44121706", "Lápices de colores"},            // 4
	{"44121707", "Portalápiz (madera)"},           // 5
	{"5010", "Cable modelo 5010"},                 // 6
	{"50101500", "Leche"},                         // 7
	{"50101501", "Leche y mantequilla"},           // 8
	{"50101502", "Polvo de leche descremada"},     // 9
	{"50101503", "Lechería industrial"},           // 10
	{"50131700", "Dulce de leche"},                // 11
	{"601", "General de Ley Personas Morales"},    // 12
	{"G03", "Gastos en general"},                  // 13
	{"MXN", "Peso mexicano"},                      // 14
	{"Tasa", "Tasa"},                              // 15
	{"Z01", "Lapiceros y plumas"},                 // 16
	{"Z02", "Tornillos/tuercas; arandelas-acero"}, // 17
}

func split(recs [][2]string) (ids, descs []string) {
	for _, r := range recs {
		ids = append(ids, r[0])
		descs = append(descs, r[1])
	}
	return ids, descs
}

func TestFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"leche", "leche"},
		{"LÁPIZ", "lapiz"},
		{"Lápices de colores", "lapices de colores"},
		{"ÁÉÍÓÚÜÑ áéíóúüñ", "aeiouun aeiouun"},
		{"La\u0301piz", "lapiz"}, // decomposed accent
		{"Ærø Œuvre straße", "aero oeuvre strasse"},
		{"Çà Ãõ ÿ Ł Ž İ", "ca ao y l z i"},
		{"1ª 2º", "1a 2o"},
		{"× ÷ (a/b), c-d.", "× ÷ (a/b), c-d."},
		{"ΩΣ", "ωσ"},
	} {
		if got := Fold(c.in); got != c.want {
			t.Errorf("Fold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNorm(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{" (-/.,) ", ""},
		{"Lápiz (marcador)/rojo", "lapiz marcador rojo"},
		{"  Leche,  y--mantequilla. ", "leche y mantequilla"},
		{"AGU-001", "agu 001"},
		{"La\u0301piz", "lapiz"},
		{"d''api st’john", "d api st john"},
	} {
		if got := string(appendNorm(nil, c.in)); got != c.want {
			t.Errorf("norm(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPluralFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"lapices", "lapiz"},
		{"luces", "luz"},
		{"cruces", "cruz"},
		{"colores", "color"},
		{"meses", "mes"},
		{"relojes", "reloj"},
		{"reyes", "rey"},
		{"panes", "pan"},
		{"redes", "red"},
		{"tornillos", "tornillo"},
		{"leches", "leche"},
		{"paquetes", "paquete"},
		{"lapiz", "lapiz"},
		{"leche", "leche"},
		{"gas", "gas"},
		{"mes", "mes"},
		{"los", "los"},
		{"µs", "µs"},
		{"ses", "ses"},
	} {
		if got := pluralFold(c.in); got != c.want {
			t.Errorf("pluralFold(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSearch(t *testing.T) {
	ix := New(split(records))
	if ix.Len() != len(records) {
		t.Fatalf("Len = %d, want %d", ix.Len(), len(records))
	}
	for _, c := range []struct {
		name, term string
		want       []int
	}{
		{"accents none", "lapiz", []int{2, 4, 3, 5}},
		{"accents", "lápiz", []int{2, 4, 3, 5}},
		{"accents upper", "LÁPIZ", []int{2, 4, 3, 5}},
		{"plural term", "lapices", []int{4, 2, 3, 5}},
		{"plural term accents", "Lápices", []int{4, 2, 3, 5}},
		{"typed prefix of a plural", "lapice", []int{4, 16, 3}},
		{"prefix", "lech", []int{7, 8, 10, 9, 11}},
		{"whole word", "leche", []int{7, 8, 10, 9, 11}},
		{"plural of a singular", "leches", []int{7, 8, 9, 11, 10}},
		{"plural folding es", "tornillo", []int{17}},
		{"description equals", "leche y mantequilla", []int{8}},
		{"description prefix", "leche y m", []int{8}},
		{"multi-word", "mantequilla leche", []int{8}},
		{"multi-word any order", "leche de", []int{9, 11}},
		{"multi-word any order 2", "de leche", []int{9, 11}},
		{"multi-word one missing", "leche chocolate", nil},
		{"key exact, key prefix, description", "5010", []int{6, 7, 8, 9, 10, 1}},
		{"key prefix", "501", []int{6, 7, 8, 9, 10, 11, 1}},
		{"key case", "g03", []int{13}},
		{"key upper", "MXN", []int{14}},
		{"key and description", "tasa", []int{15}},
		{"ties by position", "de", []int{4, 9, 11, 12, 5, 6, 17}},
		{"substring", "crema", []int{9}},
		{"punctuation in term", "lápiz,(marcador)", []int{2}},
		{"punctuation reversed", "marcador-lápiz", []int{2}},
		{"punctuation in description", "madera)", []int{5}},
		{"punctuation in both", "portalápiz (madera", []int{5}},
		{"slash and semicolon", "tuercas acero", []int{17}},
		{"catalogo", "CATALOGO", []int{0}},
		{"nothing", "zzz", nil},
		{"empty", "", nil},
		{"spaces", "   ", nil},
		{"punctuation only", "(-/.,)", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, total := ix.Search(c.term, 0, 100)
			if !slices.Equal(got, c.want) || total != len(c.want) {
				t.Errorf("Search(%q) = %v, %d; want %v, %d", c.term, keysOf(got), total, keysOf(c.want), len(c.want))
			}
		})
	}
}

func keysOf(positions []int) []string {
	var ks []string
	for _, p := range positions {
		ks = append(ks, records[p][0]+" "+records[p][1])
	}
	return ks
}

func TestSearchPaging(t *testing.T) {
	ix := New(split(records))
	all := []int{4, 9, 11, 12, 5, 6, 17} // "de": arandelas contains it
	for _, c := range []struct {
		offset, limit int
		want          []int
	}{
		{0, 100, all},
		{0, 2, all[:2]},
		{2, 2, all[2:4]},
		{4, 10, all[4:]},
		{5, 1, all[5:6]},
		{6, 10, all[6:]},
		{7, 10, nil},
		{100, 10, nil},
		{-3, 2, all[:2]},
		{0, 0, nil},
		{1, -1, nil},
	} {
		got, total := ix.Search("de", c.offset, c.limit)
		if !slices.Equal(got, c.want) || total != len(all) {
			t.Errorf("Search(de, %d, %d) = %v, %d; want %v, %d", c.offset, c.limit, got, total, c.want, len(all))
		}
	}
}

func TestSearchEmptyIndex(t *testing.T) {
	ix := New(nil, nil)
	if got, total := ix.Search("leche", 0, 10); got != nil || total != 0 {
		t.Errorf("Search on an empty index = %v, %d", got, total)
	}
	ix = New([]string{""}, []string{""})
	if got, total := ix.Search("leche", 0, 10); got != nil || total != 0 {
		t.Errorf("Search on an empty record = %v, %d", got, total)
	}
}

func TestNewPanicsOnLengths(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New with slices of different lengths did not panic")
		}
	}()
	New([]string{"a"}, nil)
}

func TestSearchConcurrent(t *testing.T) {
	ix := New(split(records))
	terms := []string{"lapiz", "leche", "de", "5010", "leche de", "lapice", "zzz"}
	want := make([][]int, len(terms))
	for i, term := range terms {
		want[i], _ = ix.Search(term, 0, 100)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(terms)
				if got, _ := ix.Search(terms[k], 0, 100); !slices.Equal(got, want[k]) {
					t.Errorf("concurrent Search(%q) = %v, want %v", terms[k], got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

// The reference: the rules of the package documentation applied directly to every record.

func refWords(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// refLevel is the level at which the term word q matches the description word w: 3 whole,
// 2 prefix, 1 substring, 0 none.
func refLevel(q, w string) int {
	qf, wf := pluralFold(q), pluralFold(w)
	switch {
	case qf == wf:
		return 3
	case strings.HasPrefix(wf, qf) || strings.HasPrefix(w, q):
		return 2
	case strings.Contains(wf, qf) || strings.Contains(w, q):
		return 1
	}
	return 0
}

// refTier is the tier of a record (0 for no match).
func refTier(id, desc, term string) int {
	tw := refWords(term)
	phrase := strings.Join(tw, " ")
	if phrase == "" {
		return 0
	}
	key := strings.Join(refWords(id), " ")
	dw := refWords(desc)
	d := strings.Join(dw, " ")
	switch {
	case key == phrase:
		return 1
	case strings.HasPrefix(key, phrase):
		return 2
	case d == phrase:
		return 3
	case strings.HasPrefix(d, phrase):
		return 4
	}
	worst := 3
	for _, q := range tw {
		best := 0
		for _, w := range dw {
			best = max(best, refLevel(q, w))
		}
		worst = min(worst, best)
	}
	if worst == 0 {
		return 0
	}
	return 8 - worst
}

// refSearch returns every match, by tier then position.
func refSearch(ids, descs []string, term string) []int {
	var out []int
	tiers := make([]int, len(ids))
	for i := range ids {
		if tiers[i] = refTier(ids[i], descs[i], term); tiers[i] > 0 {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { return tiers[a] - tiers[b] })
	return out
}

// Random records and terms, from pieces that make accents, plurals, prefixes and substrings
// collide often.
var (
	syllables = []string{"la", "pi", "ces", "z", "le", "che", "es", "s", "a", "de", "Lá", "pí", "ÁS",
		"ñ", "Ü", "co", "lo", "re", "ri", "x", "y", "ca", "s", "o", "ces", "nes", "ré"}
	seps    = []string{" ", " ", " ", ", ", "-", "/", " (", ") ", ". ", "  "}
	keyRuns = []string{"0", "1", "2", "5", "50", "G", "A", "-"}
)

func randWord(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	return b.String()
}

func randDesc(r *rand.Rand) string {
	var b strings.Builder
	for i := range 1 + r.IntN(5) {
		if i > 0 {
			b.WriteString(seps[r.IntN(len(seps))])
		}
		b.WriteString(randWord(r))
	}
	return b.String()
}

func randKey(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(4) {
		b.WriteString(keyRuns[r.IntN(len(keyRuns))])
	}
	return b.String()
}

// randTerm picks a term like a person would type one, or not.
func randTerm(r *rand.Rand, ids, descs []string) string {
	pick := func() string {
		ws := refWords(descs[r.IntN(len(descs))])
		if len(ws) == 0 {
			return "x"
		}
		return ws[r.IntN(len(ws))]
	}
	cut := func(s string) string {
		rs := []rune(s)
		i := r.IntN(len(rs))
		j := i + 1 + r.IntN(len(rs)-i)
		return string(rs[i:j])
	}
	switch r.IntN(10) {
	case 0:
		return randWord(r)
	case 1:
		return randWord(r) + seps[r.IntN(len(seps))] + randWord(r)
	case 2:
		return pick()
	case 3:
		w := pick()
		return w[:1+r.IntN(len(w))]
	case 4:
		return cut(pick())
	case 5:
		return pick() + " " + cut(pick())
	case 6:
		return cut(ids[r.IntN(len(ids))])
	case 7:
		d := descs[r.IntN(len(descs))]
		return d[:r.IntN(len(d)+1)]
	case 8:
		return strings.ToUpper(pick()) + "s"
	default:
		return seps[r.IntN(len(seps))]
	}
}

func TestSearchMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := 1 + r.IntN(120)
		ids := make([]string, n)
		descs := make([]string, n)
		for i := range n {
			ids[i] = randKey(r)
			descs[i] = randDesc(r)
		}
		if round%2 == 0 {
			slices.Sort(ids)
		}
		ix := New(ids, descs)
		for range 50 {
			term := randTerm(r, ids, descs)
			want := refSearch(ids, descs, term)
			got, total := ix.Search(term, 0, n+1)
			if !slices.Equal(got, want) || total != len(want) {
				t.Fatalf("round %d, term %q:\n got  %v (total %d)\n want %v\nrecords: %s",
					round, term, got, total, want, dump(ids, descs))
			}
			off, lim := r.IntN(n+2), r.IntN(n+2)
			got, total = ix.Search(term, off, lim)
			wantPage := want[min(off, len(want)):min(off+lim, len(want))]
			if len(wantPage) == 0 {
				wantPage = nil
			}
			if !slices.Equal(got, wantPage) || total != len(want) {
				t.Fatalf("round %d, term %q, offset %d, limit %d: got %v (total %d), want %v (total %d)",
					round, term, off, lim, got, total, wantPage, len(want))
			}
		}
	}
}

// TestSearchVerifyPath compares the reference with many candidates, so that both ways of
// matching the second word of a term (the forward index and the inverted index) are used.
func TestSearchVerifyPath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 3 * verifyMax
	ids := make([]string, n)
	descs := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%06d", i)
		descs[i] = randDesc(r)
	}
	ix := New(ids, descs)
	terms := []string{"la de", "lapices de", "a s", "ces la", "le che", "lá pí co", "de la", "z s"}
	for range 30 {
		terms = append(terms, randWord(r)+" "+randTerm(r, ids, descs))
	}
	for _, term := range terms {
		want := refSearch(ids, descs, term)
		got, total := ix.Search(term, 0, n)
		if !slices.Equal(got, want) || total != len(want) {
			t.Errorf("term %q: got %d results (total %d), want %d", term, len(got), total, len(want))
		}
	}
}

func dump(ids, descs []string) string {
	var b strings.Builder
	for i := range ids {
		fmt.Fprintf(&b, "\n  %d %q %q", i, ids[i], descs[i])
	}
	return b.String()
}

func FuzzSearch(f *testing.F) {
	for _, s := range []string{"lapiz", "LÁPICES", "lech", "5010", "de", "a", "", "(-/)", "leche y m", "g03", "\xff\xfe", "La\u0301piz"} {
		f.Add(s, "Lápiz de colores (rojo)", 0, 10)
	}
	f.Add("de", "", 3, 2)
	f.Add("leche", "leches", 100, 1)
	f.Add("s", "s s s", -1, -1)
	f.Fuzz(func(t *testing.T, term, desc string, offset, limit int) {
		ids, descs := split(records)
		ids = append(ids, "Z99")
		descs = append(descs, desc)
		ix := New(ids, descs)
		got, total := ix.Search(term, offset, limit)
		if total < len(got) {
			t.Fatalf("total %d < %d results", total, len(got))
		}
		seen := make(map[int]bool)
		for _, p := range got {
			if p < 0 || p >= ix.Len() {
				t.Fatalf("position %d out of range", p)
			}
			if seen[p] {
				t.Fatalf("position %d twice", p)
			}
			seen[p] = true
		}
		if offset >= total && len(got) != 0 {
			t.Fatalf("offset %d ≥ total %d, got %v", offset, total, got)
		}
		if limit >= 0 && len(got) > limit {
			t.Fatalf("%d results > limit %d", len(got), limit)
		}
		want := refSearch(ids, descs, term)
		if total != len(want) {
			t.Fatalf("total %d, reference %d", total, len(want))
		}
		all, _ := ix.Search(term, 0, len(ids))
		if !slices.Equal(all, want) && !(len(all) == 0 && len(want) == 0) {
			t.Fatalf("got %v, reference %v", all, want)
		}
	})
}
