package loadquery

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
)

// Result is the answer of a load endpoint, sent as is (without the envelope), as DevExtreme's
// LoadResult: data is the page of records (or of projected records, or of top-level groups);
// totalCount and groupCount are -1 unless asked for; summary is null unless totalSummary was
// given.
type Result struct {
	Data       any   `json:"data"`
	TotalCount int   `json:"totalCount"`
	GroupCount int   `json:"groupCount"`
	Summary    []any `json:"summary"`
}

// Group is one group of a grouped result. Items holds the subgroups, or on the last level the
// records; it is null when the last level is not expanded, and then Count holds the number of
// records (Count is null otherwise, as in DevExtreme). Summary holds the groupSummary values, or
// null.
type Group struct {
	Key     any   `json:"key"`
	Items   any   `json:"items"`
	Count   *int  `json:"count"`
	Summary []any `json:"summary"`
}

// Load runs the load query in q over records: it parses and validates the query (all failures
// in one list, ordered by parameter) and, when there are none, runs it. Records are read only
// through the schema's getters and are never modified; unless select is given, the result holds
// copies of the records themselves.
func Load[T any](s Schema[T], records []T, q url.Values) (Result, []api.Failure) {
	o, fs := ParseQuery(q)
	fs = append(fs, s.Validate(o)...)
	if len(fs) > 0 {
		sortFailures(fs)
		return Result{}, fs
	}
	return run(s, records, o), nil
}

// Run validates options built by the caller and runs them over records, as Load does.
func Run[T any](s Schema[T], records []T, o Options) (Result, []api.Failure) {
	if fs := s.Validate(o); len(fs) > 0 {
		sortFailures(fs)
		return Result{}, fs
	}
	return run(s, records, o), nil
}

// column is one sort key read from every matched record, by position in the matched list, and
// stored by kind so that comparing two positions copies nothing.
type column struct {
	kind Kind // of the values that are not null
	desc bool
	null []bool
	str  []string  // String
	key  []string  // String, for a full sort: the first collation level of str (see baseKeys)
	num  []float64 // Number; Boolean as 0 or 1; Date as seconds
	nsec []int32   // Date
}

func newColumn(kind Kind, n int, desc bool) *column {
	c := &column{kind: kind, desc: desc, null: make([]bool, n)}
	switch kind {
	case String:
		c.str = make([]string, n)
	case Date:
		c.num, c.nsec = make([]float64, n), make([]int32, n)
	default:
		c.num = make([]float64, n)
	}
	return c
}

// baseKeys computes the first collation level of every text once, for a sort that compares each
// text many times: the texts with their letters lower-cased and unaccented, written in one
// buffer. Comparing two keys as bytes orders as cmpLevel does at levelBase.
func (c *column) baseKeys() {
	if c.kind != String {
		return
	}
	offs := make([]int, len(c.str)+1)
	size := 0
	for _, s := range c.str {
		size += len(s)
	}
	buf := make([]byte, 0, size+size/8)
	for i, s := range c.str {
		buf = appendBase(buf, s)
		offs[i+1] = len(buf)
	}
	all := string(buf)
	c.key = make([]string, len(c.str))
	for i := range c.key {
		c.key[i] = all[offs[i]:offs[i+1]]
	}
}

func (c *column) set(p int, v val) {
	switch {
	case v.null():
		c.null[p] = true
	case c.kind == String:
		c.str[p] = v.s
	case c.kind == Date:
		c.num[p], c.nsec[p] = float64(v.sec), v.nsec
	case c.kind == Boolean:
		if v.b {
			c.num[p] = 1
		}
	default:
		c.num[p] = v.f
	}
}

// compare orders two positions as order does: null first, text by collate.
func (c *column) compare(a, b int) int {
	if na, nb := c.null[a], c.null[b]; na || nb {
		switch {
		case na && nb:
			return 0
		case na:
			return -1
		}
		return 1
	}
	switch c.kind {
	case String:
		if c.key != nil {
			if r := strings.Compare(c.key[a], c.key[b]); r != 0 {
				return r
			}
		}
		return collate(c.str[a], c.str[b])
	case Date:
		if r := cmp.Compare(c.num[a], c.num[b]); r != 0 {
			return r
		}
		return cmp.Compare(c.nsec[a], c.nsec[b])
	}
	return cmp.Compare(c.num[a], c.num[b])
}

func run[T any](s Schema[T], recs []T, o Options) Result {
	res := Result{TotalCount: -1, GroupCount: -1}

	// Filter: idx holds the indexes of the matching records, in their order.
	var idx []int
	if o.Filter != nil {
		match := compileFilter(s, o.Filter)
		idx = make([]int, 0, len(recs)/4+1)
		for i := range recs {
			if match(recs[i]) {
				idx = append(idx, i)
			}
		}
	} else {
		idx = make([]int, len(recs))
		for i := range idx {
			idx[i] = i
		}
	}
	if o.RequireTotalCount {
		res.TotalCount = len(idx)
	}
	if len(o.TotalSummary) > 0 {
		res.Summary = summarize(s, recs, idx, o.TotalSummary)
	}

	// Sort keys: the group levels (their interval applied) first, then the sort.
	var cols []*column
	for _, g := range o.Group {
		cols = append(cols, groupKeys(s, recs, idx, g))
	}
	for _, k := range o.Sort {
		r := s.lookup(k.Selector)
		c := newColumn(r.kind, len(idx), k.Desc)
		for p, i := range idx {
			c.set(p, read(r.kind, r.get(recs[i])))
		}
		cols = append(cols, c)
	}
	compare := func(a, b int) int {
		for _, c := range cols {
			if r := c.compare(a, b); r != 0 {
				if c.desc {
					return -r
				}
				return r
			}
		}
		return a - b // stable
	}
	perm := make([]int, len(idx)) // positions in idx, in result order
	for p := range perm {
		perm[p] = p
	}

	if len(o.Group) == 0 {
		if len(cols) > 0 {
			if o.Take > 0 && o.Take < len(perm) && o.Skip < len(perm) && o.Skip+o.Take < len(perm)/2 {
				perm = smallest(perm, o.Skip+o.Take, compare)
			} else {
				for _, c := range cols {
					c.baseKeys()
				}
				slices.SortFunc(perm, compare)
			}
		}
		perm = page(perm, o.Skip, o.Take)
		res.Data = rows(s, recs, idx, perm, o.Select)
		return res
	}

	for _, c := range cols {
		c.baseKeys()
	}
	slices.SortFunc(perm, compare)
	b := &grouper[T]{s: s, recs: recs, idx: idx, cols: cols, o: o}
	top := b.runs(0, perm)
	if o.RequireGroupCount {
		res.GroupCount = len(top)
	}
	top = page(top, o.Skip, o.Take)
	groups := make([]Group, len(top))
	for i, r := range top {
		groups[i] = b.group(0, r)
	}
	res.Data = groups
	return res
}

// page applies skip and take (each ignored below 1).
func page[E any](s []E, skip, take int) []E {
	if skip > 0 {
		s = s[min(skip, len(s)):]
	}
	if take > 0 && take < len(s) {
		s = s[:take]
	}
	return s
}

// smallest returns the k first positions in the order of compare, sorted: a bounded max-heap, so
// sorting for one page of a big list costs about one comparison per record.
func smallest(perm []int, k int, compare func(a, b int) int) []int {
	h := make([]int, 0, k)
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			big := l
			if r := l + 1; r < len(h) && compare(h[r], h[l]) > 0 {
				big = r
			}
			if compare(h[big], h[i]) <= 0 {
				return
			}
			h[i], h[big] = h[big], h[i]
			i = big
		}
	}
	for _, p := range perm {
		if len(h) < k {
			h = append(h, p)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if compare(h[i], h[parent]) <= 0 {
					break
				}
				h[i], h[parent] = h[parent], h[i]
				i = parent
			}
			continue
		}
		if compare(p, h[0]) < 0 {
			h[0] = p
			down(0)
		}
	}
	slices.SortFunc(h, compare)
	return h
}

// rows is the data of an ungrouped result (or of a last-level group): the records at the given
// positions, or their projections when select is given. Never nil, so that JSON shows [].
func rows[T any](s Schema[T], recs []T, idx, positions []int, sel []string) any {
	if len(sel) > 0 {
		p := newProjector(s, sel)
		out := make([]any, len(positions))
		for i, pos := range positions {
			out[i] = p.project(recs[idx[pos]])
		}
		return out
	}
	out := make([]T, len(positions))
	for i, pos := range positions {
		out[i] = recs[idx[pos]]
	}
	return out
}

// groupKeys reads the key of one grouping level from every matched record.
func groupKeys[T any](s Schema[T], recs []T, idx []int, g GroupInfo) *column {
	r := s.lookup(g.Selector)
	n, isNum, part := 0.0, false, 0
	if g.GroupInterval != "" {
		n, isNum, part = interval(g.GroupInterval)
	}
	kind := r.kind
	if isNum || part > 0 {
		kind = Number
	}
	c := newColumn(kind, len(idx), g.Desc)
	for p, i := range idx {
		v := read(r.kind, r.get(recs[i]))
		if !v.null() {
			switch {
			case isNum:
				v = val{k: Number, f: v.f - math.Mod(v.f, n)}
			case part > 0:
				v = val{k: Number, f: float64(datePartOf(v, part))}
			}
		}
		c.set(p, v)
	}
	return c
}

func datePartOf(v val, part int) int {
	t := time.Unix(v.sec, int64(v.nsec)).UTC()
	switch part {
	case partYear:
		return t.Year()
	case partQuarter:
		return (int(t.Month()) + 2) / 3
	case partMonth:
		return int(t.Month())
	case partDay:
		return t.Day()
	case partDayOfWeek:
		return int(t.Weekday()) // Sunday is 0, as .NET's DayOfWeek
	case partHour:
		return t.Hour()
	case partMinute:
		return t.Minute()
	}
	return t.Second()
}

// grouper builds the groups of a sorted result.
type grouper[T any] struct {
	s    Schema[T]
	recs []T
	idx  []int
	cols []*column // the first len(o.Group) are the group levels
	o    Options
}

// runs splits sorted positions into runs of equal key at a level.
func (b *grouper[T]) runs(level int, perm []int) [][]int {
	var out [][]int
	keys := b.cols[level]
	start := 0
	for i := 1; i <= len(perm); i++ {
		if i == len(perm) || keys.compare(perm[i], perm[start]) != 0 {
			if i > start {
				out = append(out, perm[start:i])
			}
			start = i
		}
	}
	return out
}

func (b *grouper[T]) group(level int, run []int) Group {
	g := Group{Key: b.key(level, run[0])}
	if len(b.o.GroupSummary) > 0 {
		recIdx := make([]int, len(run))
		for i, p := range run {
			recIdx[i] = b.idx[p]
		}
		g.Summary = summarize(b.s, b.recs, recIdx, b.o.GroupSummary)
	}
	if level < len(b.o.Group)-1 {
		subs := b.runs(level+1, run)
		items := make([]Group, len(subs))
		for i, sub := range subs {
			items[i] = b.group(level+1, sub)
		}
		g.Items = items
		return g
	}
	if exp := b.o.Group[level].IsExpanded; exp != nil && !*exp {
		n := len(run)
		g.Count = &n
		return g
	}
	g.Items = rows(b.s, b.recs, b.idx, run, b.o.Select)
	return g
}

// key is the key of the group of the record at a position: the record's own value, or the
// interval's number.
func (b *grouper[T]) key(level, pos int) any {
	g := b.o.Group[level]
	if g.GroupInterval == "" {
		r := b.s.lookup(g.Selector)
		return plain(r.get(b.recs[b.idx[pos]]))
	}
	c := b.cols[level]
	if c.null[pos] {
		return nil
	}
	return finite(c.num[pos])
}

// summarize computes summaries over the records at the given indexes, as DevExtreme's
// aggregators: count counts every record; sum adds the non-null numbers (0 when none); avg is
// their mean (null when none); min and max skip nulls (null when none).
func summarize[T any](s Schema[T], recs []T, idx []int, items []SummaryInfo) []any {
	out := make([]any, len(items))
	for i, it := range items {
		typ := summaryType(it.SummaryType)
		if typ == sumCount {
			out[i] = len(idx)
			continue
		}
		r := s.lookup(it.Selector)
		switch typ {
		case sumSum, sumAvg:
			sum, n := 0.0, 0
			for _, j := range idx {
				if v := read(Number, r.get(recs[j])); !v.null() {
					sum += v.f
					n++
				}
			}
			switch {
			case typ == sumSum:
				out[i] = finite(sum)
			case n > 0:
				out[i] = finite(sum / float64(n))
			}
		case sumMin, sumMax:
			best, bestAt := val{}, -1
			for _, j := range idx {
				v := read(r.kind, r.get(recs[j]))
				if v.null() {
					continue
				}
				c := order(v, best)
				if bestAt < 0 || typ == sumMin && c < 0 || typ == sumMax && c > 0 {
					best, bestAt = v, j
				}
			}
			if bestAt >= 0 {
				out[i] = plain(r.get(recs[bestAt]))
			}
		}
	}
	return out
}

// projector builds the records of a select: an object with the chosen fields, subfields nested
// under their parents (country.id gives {"country": {"id": ...}}), in the order asked.
type projector[T any] struct {
	fields []*resolved[T]
}

func newProjector[T any](s Schema[T], sel []string) projector[T] {
	p := projector[T]{}
	for _, name := range sel {
		p.fields = append(p.fields, s.lookup(name))
	}
	return p
}

func (p projector[T]) project(rec T) *object {
	o := &object{}
	for _, f := range p.fields {
		target := o
		for _, seg := range f.path[:len(f.path)-1] {
			child, ok := target.get(seg)
			if !ok {
				child = &object{}
				target.set(seg, child)
			}
			next, isObj := child.(*object)
			if !isObj {
				target = nil // the parent was selected whole: DevExtreme keeps it as it is
				break
			}
			target = next
		}
		if target != nil {
			target.set(f.path[len(f.path)-1], plain(f.get(rec)))
		}
	}
	return o
}

// object is a JSON object that keeps its keys in insertion order.
type object struct {
	keys []string
	vals []any
}

func (o *object) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o *object) set(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// MarshalJSON writes the object with its keys in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
