// Package search is an in-memory search index over the records of one catalog: each record
// has a key (its id: "01010101", "G03", "MXN", "601", "Tasa") and a description in Spanish
// ("Lápices de colores"). It answers GET /api/v4/catalogs/<name>/<term>: the records
// matching a term, by relevance, paged.
//
// # Normal form
//
// Keys, descriptions and terms are compared in their normal form: Fold (lower case,
// diacritics removed: "Lápiz" → "lapiz", "Ñ" → "n", "ü" → "u"), then split into words (runs
// of letters and digits; spaces and punctuation such as parentheses, commas, slashes,
// hyphens and periods separate words) joined by single spaces: "Lápiz (marcador)/rojo" is
// "lapiz marcador rojo". A term with no word (empty, or only punctuation) matches nothing.
//
// # Words
//
// Each word of a description and of the term also has a plural fold, a light Spanish
// singular form, applied to both sides:
//
//   - words of up to 3 letters are kept ("mes", "gas");
//   - a word ending in "ces" ends in "z" instead ("lapices" → "lapiz", "luces" → "luz");
//   - a word ending in "es" after l, r, n, d, z, j, s, x or y drops the "es" ("colores" →
//     "color", "meses" → "mes", "relojes" → "reloj");
//   - another word ending in "s" drops the "s" ("tornillos" → "tornillo", "leches" →
//     "leche").
//
// The rules are deliberately simple, so they miss some pairs ("dulces" folds to "dulz",
// "madres" to "madr", away from "dulce" and "madre"); the prefix and substring levels below
// also compare the words as typed, which keeps a partly typed word ("lapice", "dulce")
// finding its plural ("Lápices", "Dulces").
//
// A term word q matches a description word w, at the best of these levels:
//
//   - whole: the plural folds are equal ("lapiz" and "Lápices"; "lapices" and "Lápiz");
//   - prefix: the plural fold of w starts with the plural fold of q, or w starts with q
//     ("lech" and "Leche"; "lapice" and "Lápices");
//   - substring: the same with "contains" ("lapices" and "Tajalápices").
//
// Every word of the term must match some word of the description, in any order (two term
// words may match the same description word); the weakest of those matches is the
// description's word level.
//
// # Tiers
//
// A record matches when at least one of these applies, and its tier is the best that
// applies (comparing normal forms):
//
//  1. the key equals the term;
//  2. the key starts with the term ("5010" and "50101500");
//  3. the description equals the term;
//  4. the description starts with the term, as text: the term's last word may be cut
//     short ("leche y m" and "Leche y mantequilla");
//  5. every term word matches a whole word;
//  6. every term word matches at least a word prefix;
//  7. every term word matches at least a substring of a word.
//
// Search lists the matches by tier, then by position (the order the records were given to
// New, by key).
//
// # Design
//
// New keeps the normal forms of keys and descriptions (each in one string), the positions
// sorted by normal key and by normal description (tiers 1–4 are a binary search), and an
// inverted index over the words: a sorted vocabulary of plural folds and one of the words
// whose plural fold differs, each with sorted []int32 posting lists laid out in vocabulary
// order, so a prefix is one binary search and one contiguous run of postings, and a
// substring is one scan of the vocabulary (tens of thousands of words, not the records),
// where a 64-bit mask of each word's letters and letter pairs skips most words without
// comparing them. Per query, a []uint8 level per record (from a sync.Pool) collects the
// matches; the term's longest word is looked up first and, when that leaves few candidates,
// the other words are checked against the candidates' own words (a forward index) instead
// of the inverted index. The page is gathered without sorting: one pass over the levels
// counts the matches of each tier, a second one places the page's positions, by tier then
// position, skipping eight records at a time where none matches.
package search

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Word levels and tiers share one scale of "goodness" per record, 0 for no match: the word
// levels substring, prefix and whole are 1, 2 and 3 (tiers 7, 6 and 5), and tier t is 8-t.
const (
	levelSubstring = 1
	levelPrefix    = 2
	levelWhole     = 3
	goodDescPrefix = 4
	goodDescEqual  = 5
	goodKeyPrefix  = 6
	goodKeyEqual   = 7
)

// verifyMax is how many candidates the forward index checks a term word against; above it,
// the word is looked up in the inverted index.
const verifyMax = 2048

// Index is a search index over the records of one catalog. It is read-only after New and
// safe for concurrent use.
type Index struct {
	n         int
	keys      texts   // normal keys, by position
	descs     texts   // normal descriptions, by position
	keyOrder  []int32 // positions sorted by normal key
	descOrder []int32 // positions sorted by normal description

	folds vocab // plural folds of the description words
	typed vocab // description words whose plural fold differs from the word

	// words are the distinct description words; fwd[fwdOff[p]:fwdOff[p+1]] the words of the
	// record at position p.
	words  []word
	fwdOff []uint32
	fwd    []int32

	pool sync.Pool // *scratch
}

// word is a distinct description word: its entry in folds, and in typed (-1 when the word is
// its own plural fold).
type word struct{ fold, typed int32 }

// texts is a list of strings kept in one: item i is s[off[i]:off[i+1]].
type texts struct {
	s   string
	off []uint32
}

func (t *texts) at(i int32) string { return t.s[t.off[i]:t.off[i+1]] }

// vocab is a sorted list of distinct words with their posting lists: the postings (sorted
// positions) of entry i are post[postOff[i]:postOff[i+1]]. masks[i] is the wordMask of entry
// i.
type vocab struct {
	words   texts
	masks   []uint64
	postOff []uint32
	post    []int32
}

func (v *vocab) len() int { return len(v.masks) }

func (v *vocab) entry(i int) string { return v.words.at(int32(i)) }

// postings returns the postings of entries lo to hi-1.
func (v *vocab) postings(lo, hi int) []int32 { return v.post[v.postOff[lo]:v.postOff[hi]] }

// prefixRange returns the entries starting with q: lo to hi-1.
func (v *vocab) prefixRange(q string) (lo, hi int) {
	n := v.len()
	lo = sort.Search(n, func(i int) bool { return v.entry(i) >= q })
	hi = lo + sort.Search(n-lo, func(i int) bool { return !strings.HasPrefix(v.entry(lo+i), q) })
	return lo, hi
}

// markContaining raises to level the records of the entries containing q, except entries
// skipLo to skipHi-1 (those starting with q, already marked better).
func (v *vocab) markContaining(q string, skipLo, skipHi int, lv []uint8, level uint8) {
	qm := wordMask(q)
	v.markIn(q, qm, 0, skipLo, lv, level)
	v.markIn(q, qm, skipHi, v.len(), lv, level)
}

// markIn is markContaining over the entries lo to hi-1.
func (v *vocab) markIn(q string, qm uint64, lo, hi int, lv []uint8, level uint8) {
	masks := v.masks[:hi]
	for i := lo; i < len(masks); i++ {
		if masks[i]&qm != qm {
			continue
		}
		if strings.Contains(v.entry(i), q) {
			mark(lv, v.postings(i, i+1), level)
		}
	}
}

// wordMask is a 64-bit summary of the letters (bits 0–31) and pairs of adjacent letters
// (bits 32–63, hashed) of a word. The mask of a substring of a word is a subset of the
// word's mask, so most words not containing a term are skipped without comparing them.
func wordMask(w string) uint64 {
	var m uint64
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'a' <= c && c <= 'z':
			m |= 1 << (c - 'a')
		case '0' <= c && c <= '9':
			m |= 1 << (26 + (c-'0')&3)
		default:
			m |= 1 << (30 + c&1)
		}
		if i > 0 {
			pair := uint32(w[i-1])<<8 | uint32(c)
			m |= 1 << (32 + (pair*0x9E3779B1)>>27)
		}
	}
	return m
}

// mark raises lv[p] to level for the positions p.
func mark(lv []uint8, positions []int32, level uint8) {
	for _, p := range positions {
		if lv[p] < level {
			lv[p] = level
		}
	}
}

// scratch is the per-query memory.
type scratch struct {
	lv    []uint8 // goodness per position
	cur   []uint8 // levels of one term word
	cand  []int32 // candidates, by position
	terms []term
}

// term is a word of the search term with its places in the vocabularies.
type term struct {
	typed, fold  string
	exact        int // folds entry equal to fold, or -1
	foldLo       int // folds entries starting with fold: foldLo to foldHi-1
	foldHi       int
	typedFoldsLo int // folds entries starting with typed
	typedFoldsHi int
	typedLo      int // typed entries starting with typed
	typedHi      int
}

// New indexes records given as parallel slices, in the order the caller wants ties listed
// (by key). It panics if the slices differ in length.
func New(ids, descriptions []string) *Index {
	if len(ids) != len(descriptions) {
		panic("search.New: ids and descriptions differ in length")
	}
	n := len(ids)
	if n >= math.MaxInt32 {
		panic("search.New: too many records")
	}
	ix := &Index{n: n}
	ix.keys = normTexts(ids)
	ix.descs = normTexts(descriptions)
	ix.keyOrder = sortedOrder(&ix.keys)
	ix.descOrder = sortedOrder(&ix.descs)
	ix.indexWords()
	ix.pool.New = func() any {
		return &scratch{lv: make([]uint8, n), cur: make([]uint8, n)}
	}
	return ix
}

// normTexts returns the normal forms of ss.
func normTexts(ss []string) texts {
	size := 0
	for _, s := range ss {
		size += len(s)
	}
	b := make([]byte, 0, size+size/8)
	off := make([]uint32, len(ss)+1)
	for i, s := range ss {
		b = appendNorm(b, s)
		if len(b) > math.MaxUint32 {
			panic("search.New: text too long")
		}
		off[i+1] = uint32(len(b))
	}
	return texts{s: string(b), off: off}
}

// joinTexts keeps ss in one string.
func joinTexts(ss []string) texts {
	var b strings.Builder
	off := make([]uint32, len(ss)+1)
	for i, s := range ss {
		b.WriteString(s)
		off[i+1] = uint32(b.Len())
	}
	return texts{s: b.String(), off: off}
}

// sortedOrder returns the positions sorted by the texts, ties by position.
func sortedOrder(t *texts) []int32 {
	order := make([]int32, len(t.off)-1)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(t.at(a), t.at(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}

// indexWords builds the vocabularies and the forward index from the normal descriptions.
func (ix *Index) indexWords() {
	ids := make(map[string]int32) // word → index in ix.words
	var typed, folds []string     // by word: the word, its plural fold
	ix.fwdOff = make([]uint32, ix.n+1)
	ix.fwd = make([]int32, 0, len(ix.descs.s)/6)
	for p := range ix.n {
		d := ix.descs.at(int32(p))
		first := len(ix.fwd)
		for d != "" {
			w := d
			if i := strings.IndexByte(d, ' '); i >= 0 {
				w, d = d[:i], d[i+1:]
			} else {
				d = ""
			}
			id, ok := ids[w]
			if !ok {
				id = int32(len(typed))
				ids[w] = id
				typed = append(typed, w)
				folds = append(folds, pluralFold(w))
			}
			if !slices.Contains(ix.fwd[first:], id) {
				ix.fwd = append(ix.fwd, id)
			}
		}
		ix.fwdOff[p+1] = uint32(len(ix.fwd))
	}
	ix.fwd = slices.Clone(ix.fwd) // without the spare capacity

	// The folds vocabulary: every plural fold; the typed one: the words that differ from
	// theirs.
	ix.words = make([]word, len(typed))
	foldEntries := sortedSet(folds)
	var differ []string
	for i, w := range typed {
		if folds[i] != w {
			differ = append(differ, w)
		}
	}
	typedEntries := sortedSet(differ)
	entryOf := func(entries []string, w string) int32 {
		i, _ := slices.BinarySearch(entries, w)
		return int32(i)
	}
	for i, w := range typed {
		ix.words[i] = word{fold: entryOf(foldEntries, folds[i]), typed: -1}
		if folds[i] != w {
			ix.words[i].typed = entryOf(typedEntries, w)
		}
	}
	ix.folds = ix.buildVocab(foldEntries, func(w word) int32 { return w.fold })
	ix.typed = ix.buildVocab(typedEntries, func(w word) int32 { return w.typed })
}

// sortedSet returns the distinct strings of ss, sorted.
func sortedSet(ss []string) []string {
	s := slices.Clone(ss)
	slices.Sort(s)
	return slices.Compact(s)
}

// buildVocab builds a vocabulary of sorted entries whose postings are the records having a
// word w with entry(w) = the entry (-1 for none).
func (ix *Index) buildVocab(entries []string, entry func(word) int32) vocab {
	v := vocab{
		words:   joinTexts(entries),
		masks:   make([]uint64, len(entries)),
		postOff: make([]uint32, len(entries)+1),
	}
	for i, e := range entries {
		v.masks[i] = wordMask(e)
	}

	// Two passes over the records: count the postings of each entry, then fill them.
	last := make([]int32, len(entries)) // last position counted per entry, plus one
	count := make([]uint32, len(entries)+1)
	for p := range ix.n {
		for _, w := range ix.fwd[ix.fwdOff[p]:ix.fwdOff[p+1]] {
			if e := entry(ix.words[w]); e >= 0 && last[e] != int32(p)+1 {
				last[e] = int32(p) + 1
				count[e+1]++
			}
		}
	}
	for i := range entries {
		v.postOff[i+1] = v.postOff[i] + count[i+1]
	}
	v.post = make([]int32, v.postOff[len(entries)])
	next := slices.Clone(v.postOff[:len(entries)])
	clear(last)
	for p := range ix.n {
		for _, w := range ix.fwd[ix.fwdOff[p]:ix.fwdOff[p+1]] {
			if e := entry(ix.words[w]); e >= 0 && last[e] != int32(p)+1 {
				last[e] = int32(p) + 1
				v.post[next[e]] = int32(p)
				next[e]++
			}
		}
	}
	return v
}

// Len returns the number of records.
func (ix *Index) Len() int { return ix.n }

// Search returns the positions (indexes into the slices given to New) of the matching
// records ordered by relevance then position, skipping offset and returning at most limit,
// and the total number of matches. A negative offset counts as 0; a limit ≤ 0 returns no
// positions, only the total.
func (ix *Index) Search(term string, offset, limit int) (positions []int, total int) {
	var buf [64]byte
	phrase := string(appendNorm(buf[:0], term))
	if ix.n == 0 || phrase == "" {
		return nil, 0
	}
	sc := ix.pool.Get().(*scratch)
	defer ix.putScratch(sc)
	lv := sc.lv
	clear(lv)
	ix.matchWords(sc, phrase)
	ix.matchPhrase(lv, phrase)
	return gather(lv, offset, limit)
}

// putScratch returns sc to the pool, without what a long term grew.
func (ix *Index) putScratch(sc *scratch) {
	clear(sc.terms)
	if cap(sc.terms) > 64 {
		sc.terms = nil
	}
	ix.pool.Put(sc)
}

// matchWords sets lv to the word level of every record (0 for none).
func (ix *Index) matchWords(sc *scratch, phrase string) {
	terms := sc.terms[:0]
	for rest := phrase; rest != ""; {
		w := rest
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			w, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if !slices.ContainsFunc(terms, func(t term) bool { return t.typed == w }) {
			terms = append(terms, ix.lookup(w))
		}
	}
	sc.terms = terms
	// The longest word first: it usually has the fewest matches.
	slices.SortStableFunc(terms, func(a, b term) int { return cmp.Compare(len(b.typed), len(a.typed)) })

	lv := sc.lv
	ix.markTerm(lv, &terms[0])
	cand := sc.cand[:0]
	known := false // cand holds the positions with lv > 0 (at most verifyMax)
	for i := 1; i < len(terms); i++ {
		t := &terms[i]
		if !known {
			cand, known = appendNonZero(cand[:0], lv, verifyMax)
		}
		if known {
			if len(cand) == 0 {
				break
			}
			j := 0
			for _, p := range cand {
				l := ix.level(p, t)
				if l == 0 {
					lv[p] = 0
					continue
				}
				lv[p] = min(lv[p], l)
				cand[j] = p
				j++
			}
			cand = cand[:j]
			continue
		}
		cur := sc.cur
		clear(cur)
		ix.markTerm(cur, t)
		for p, l := range cur {
			lv[p] = min(lv[p], l)
		}
		known = false
	}
	sc.cand = cand
}

// lookup finds a term word in the vocabularies.
func (ix *Index) lookup(w string) term {
	t := term{typed: w, fold: pluralFold(w), exact: -1}
	t.foldLo, t.foldHi = ix.folds.prefixRange(t.fold)
	if t.foldLo < t.foldHi && ix.folds.entry(t.foldLo) == t.fold {
		t.exact = t.foldLo
	}
	t.typedFoldsLo, t.typedFoldsHi = t.foldLo, t.foldHi
	if t.typed != t.fold {
		t.typedFoldsLo, t.typedFoldsHi = ix.folds.prefixRange(t.typed)
	}
	t.typedLo, t.typedHi = ix.typed.prefixRange(t.typed)
	return t
}

// markTerm raises lv[p] to the level at which t matches the record at p.
//
// A description word has a plural fold f (in folds) and a typed form w (in typed when it
// differs from f). The term word matches by prefix when f starts with t.fold or w starts
// with t.typed. The second is looked up in typed and, for the words that are their own
// fold, in folds; a folds entry starting with t.typed is a true match even when the word
// differs from its fold, since the fold is the word with a suffix cut ("s", "es") or
// replaced by "z": either t.typed lies in the kept part, so the word starts with it too, or
// it ends in that "z", so t.typed is its own fold and the fold rule matches. The same holds
// for substrings.
func (ix *Index) markTerm(lv []uint8, t *term) {
	mark(lv, ix.folds.postings(t.foldLo, t.foldHi), levelPrefix)
	if t.typed != t.fold {
		mark(lv, ix.folds.postings(t.typedFoldsLo, t.typedFoldsHi), levelPrefix)
	}
	mark(lv, ix.typed.postings(t.typedLo, t.typedHi), levelPrefix)
	if t.exact >= 0 {
		mark(lv, ix.folds.postings(t.exact, t.exact+1), levelWhole)
	}
	ix.folds.markContaining(t.fold, t.foldLo, t.foldHi, lv, levelSubstring)
	if t.typed != t.fold {
		ix.folds.markContaining(t.typed, t.typedFoldsLo, t.typedFoldsHi, lv, levelSubstring)
	}
	ix.typed.markContaining(t.typed, t.typedLo, t.typedHi, lv, levelSubstring)
}

// level returns the level at which t matches the record at p (0 for none), from the
// record's words; it agrees with markTerm.
func (ix *Index) level(p int32, t *term) uint8 {
	best := uint8(0)
	for _, id := range ix.fwd[ix.fwdOff[p]:ix.fwdOff[p+1]] {
		w := ix.words[id]
		f := int(w.fold)
		if f == t.exact {
			return levelWhole
		}
		if best >= levelPrefix {
			continue
		}
		if t.foldLo <= f && f < t.foldHi || t.typedFoldsLo <= f && f < t.typedFoldsHi ||
			w.typed >= 0 && t.typedLo <= int(w.typed) && int(w.typed) < t.typedHi {
			best = levelPrefix
			continue
		}
		if best >= levelSubstring {
			continue
		}
		fold := ix.folds.entry(f)
		if strings.Contains(fold, t.fold) || t.typed != t.fold && strings.Contains(fold, t.typed) ||
			w.typed >= 0 && strings.Contains(ix.typed.entry(int(w.typed)), t.typed) {
			best = levelSubstring
		}
	}
	return best
}

// matchPhrase raises lv to the tiers 1–4 of the records whose key or description equals or
// starts with the phrase.
func (ix *Index) matchPhrase(lv []uint8, phrase string) {
	markPrefixed(lv, &ix.keys, ix.keyOrder, phrase, goodKeyEqual, goodKeyPrefix)
	markPrefixed(lv, &ix.descs, ix.descOrder, phrase, goodDescEqual, goodDescPrefix)
}

// markPrefixed raises lv of the positions whose text equals phrase to equal, of those
// starting with it to prefix; order is the positions sorted by text.
func markPrefixed(lv []uint8, t *texts, order []int32, phrase string, equal, prefix uint8) {
	n := len(order)
	lo := sort.Search(n, func(i int) bool { return t.at(order[i]) >= phrase })
	hi := lo + sort.Search(n-lo, func(i int) bool { return !strings.HasPrefix(t.at(order[lo+i]), phrase) })
	for _, p := range order[lo:hi] {
		g := prefix
		if int(t.off[p+1]-t.off[p]) == len(phrase) {
			g = equal
		}
		if lv[p] < g {
			lv[p] = g
		}
	}
}

// gather returns the page of positions by goodness then position, and the total.
func gather(lv []uint8, offset, limit int) ([]int, int) {
	var counts [256]int // by goodness; only 1–7 are used
	b := lv
	for ; len(b) >= 8; b = b[8:] {
		// Eight levels at a time: most are 0 in most searches. Zero bytes between others
		// count in counts[0], unused.
		for w := binary.LittleEndian.Uint64(b); w != 0; w >>= 8 {
			counts[uint8(w)]++
		}
	}
	for _, g := range b {
		counts[g]++
	}
	total := 0
	for _, c := range counts[1 : goodKeyEqual+1] {
		total += c
	}
	offset = max(offset, 0)
	if limit <= 0 || offset >= total {
		return nil, total
	}
	want := min(limit, total-offset)

	// The page takes, from each goodness g, the positions from the skip[g]-th, take[g] of
	// them, into out[at[g]:].
	var skip, take, at [goodKeyEqual + 1]int
	placed := 0
	for g := goodKeyEqual; g > 0 && placed < want; g-- {
		c := counts[g]
		if offset >= c {
			offset -= c
			continue
		}
		skip[g], take[g], at[g] = offset, min(c-offset, want-placed), placed
		placed += take[g]
		offset = 0
	}
	out := make([]int, want)
	left := want
	for i := 0; i < len(lv); {
		if i+8 <= len(lv) && binary.LittleEndian.Uint64(lv[i:]) == 0 {
			i += 8
			continue
		}
		for end := min(i+8, len(lv)); i < end; i++ {
			g := lv[i] & 7 // levels are 0–7
			if take[g] == 0 {
				continue
			}
			if skip[g] > 0 {
				skip[g]--
				continue
			}
			out[at[g]] = i
			at[g]++
			take[g]--
			if left--; left == 0 {
				return out, total
			}
		}
	}
	return out, total
}

// appendNonZero appends to cand the positions p with lv[p] ≠ 0; it gives up (false) when
// there are more than most.
func appendNonZero(cand []int32, lv []uint8, most int) ([]int32, bool) {
	limit := len(cand) + most
	for i := 0; i < len(lv); {
		if i+8 <= len(lv) && binary.LittleEndian.Uint64(lv[i:]) == 0 {
			i += 8
			continue
		}
		for end := min(i+8, len(lv)); i < end; i++ {
			if lv[i] != 0 {
				cand = append(cand, int32(i))
			}
		}
		if len(cand) > limit {
			return cand, false
		}
	}
	return cand, true
}
