package loadquery

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCollate(t *testing.T) {
	// Each list is in collation order.
	lists := [][]string{
		{"", "a", "A", "á", "Á", "ab", "árbol", "avión", "b", "B", "barco", "Barco", "casa", "ñandú", "nube", "o"},
		{"1", "10", "2", "a1", "a10", "a2"},
		{"café", "cafe ", "cafés", "cafetera"},
	}
	for _, list := range lists {
		for i := range list {
			for j := range list {
				got := collate(list[i], list[j])
				want := 0
				switch {
				case i < j:
					want = -1
				case i > j:
					want = 1
				}
				if got != want {
					t.Errorf("collate(%q, %q) = %d, want %d", list[i], list[j], got, want)
				}
			}
		}
	}
}

func TestParseWire(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		want := time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9)).UTC()
		for _, layout := range []string{"2006-01-02T15:04:05.000", "2006-01-02T15:04:05.000Z", "2006-01-02T15:04:05", "2006-01-02 15:04:05.999999999"} {
			s := want.Format(layout)
			if want.Year() < 0 || want.Year() > 9999 {
				continue
			}
			sec, nsec, ok := parseWire(s)
			back, err := time.Parse(layout, s)
			if err != nil || !ok || sec != back.Unix() || int(nsec) != back.Nanosecond() {
				t.Fatalf("parseWire(%q) = %d %d %v; time.Parse = %v %v", s, sec, nsec, ok, back, err)
			}
		}
	}
	for _, bad := range []string{"2023-02-29T00:00:00", "2024-13-01T00:00:00", "2024-01-01T24:00:00", "2024-01-01T00:00:00.", "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00.1234567890", "２024-01-01T00:00:00"} {
		if _, _, ok := parseWire(bad); ok {
			t.Errorf("parseWire(%q) accepted", bad)
		}
	}
	// An offset is read by the slower path.
	sec, _, ok := parseDate("2024-01-01T00:00:00+01:00")
	if !ok || sec != time.Date(2023, 12, 31, 23, 0, 0, 0, time.UTC).Unix() {
		t.Errorf("offset: %d %v", sec, ok)
	}
}

// TestSmallestMatchesSort checks the bounded heap used for one page against a full stable sort.
func TestSmallestMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		n := r.IntN(200) + 1
		keys := make([]int, n)
		for i := range keys {
			keys[i] = r.IntN(10) // many ties
		}
		compare := func(a, b int) int {
			if keys[a] != keys[b] {
				return keys[a] - keys[b]
			}
			return a - b
		}
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		full := slices.Clone(perm)
		slices.SortFunc(full, compare)
		k := r.IntN(n) + 1
		if got := smallest(slices.Clone(perm), k, compare); !slices.Equal(got, full[:k]) {
			t.Fatalf("n=%d k=%d: got %v, want %v", n, k, got, full[:k])
		}
	}
}

// TestPagingPathsAgree runs the same sorted pages through the heap path and the full sort.
func TestPagingPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var recs []*rec
	for i := range 500 {
		recs = append(recs, &rec{ID: strconv.Itoa(i), Name: string(rune('a' + r.IntN(5))), Amount: float64(r.IntN(20))})
	}
	for _, take := range []int{1, 7, 100, 249} {
		for _, skip := range []int{0, 3, 150} {
			o := Options{Sort: []SortInfo{{Selector: "name", Desc: true}, {Selector: "amount"}}, Skip: skip, Take: take}
			heap, _ := Run(testSchema, recs, o)
			o.Skip, o.Take = 0, 0
			all, _ := Run(testSchema, recs, o)
			want := page(all.Data.([]*rec), skip, take)
			if !slices.Equal(heap.Data.([]*rec), want) {
				t.Fatalf("skip %d take %d: pages differ", skip, take)
			}
		}
	}
}

// TestMatchLower checks the text operators against lower-casing both sides with the standard
// library, on random text mixing ASCII, accents and long strings.
func TestMatchLower(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []rune("aAbBrRoOkKiI ÁáÉéñÑü-1\u212a\u0130")
	word := func(n int) string {
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	for i := range 20000 {
		hl := r.IntN(12)
		if i%100 == 0 {
			hl = 300 // past the stack buffer
		}
		h, n := word(hl), word(r.IntN(4))
		lh, ln := strings.ToLower(h), strings.ToLower(n)
		for op, want := range map[string]bool{
			"contains":   strings.Contains(lh, ln),
			"startswith": strings.HasPrefix(lh, ln),
			"endswith":   strings.HasSuffix(lh, ln),
		} {
			m := newMatcher(op, n)
			if got := m.match(h); got != want {
				t.Fatalf("%s(%q, %q) = %v, want %v", op, h, n, got, want)
			}
		}
	}
}

func TestEqualLower(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := []rune("aAbBkK ÁáñÑ\u212a\u0130iI")
	word := func() string {
		rs := make([]rune, r.IntN(5))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	for range 50000 {
		a, b := word(), word()
		//lint:ignore SA6005 the reference is lower-case equality, which EqualFold is not (Kelvin sign, dotted I)
		if got, want := equalLower(a, b), strings.ToLower(a) == strings.ToLower(b); got != want {
			t.Fatalf("equalLower(%q, %q) = %v, want %v", a, b, got, want)
		}
	}
}
