package loadquery

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// compileFilter turns a validated filter into a predicate over records.
func compileFilter[T any](s Schema[T], f *Filter) func(T) bool {
	switch {
	case f.Not != nil:
		inner := compileFilter(s, f.Not)
		return func(rec T) bool { return !inner(rec) }
	case f.Items != nil:
		items := make([]func(T) bool, len(f.Items))
		for i := range f.Items {
			items[i] = compileFilter(s, &f.Items[i])
		}
		if f.Or {
			return func(rec T) bool {
				for _, p := range items {
					if p(rec) {
						return true
					}
				}
				return len(items) == 0
			}
		}
		return func(rec T) bool {
			for _, p := range items {
				if !p(rec) {
					return false
				}
			}
			return true
		}
	}

	r := s.lookup(f.Field)
	kind, get := r.kind, r.get
	op := strings.ToLower(f.Op)
	switch op {
	case "contains", "notcontains", "startswith", "endswith":
		return stringOp(kind, get, op, f.Value)
	}

	c, ok := convert(kind, f.Value)
	if !ok {
		// DevExtreme: a value that cannot be converted to the field's type matches nothing.
		return func(T) bool { return false }
	}
	if kind == String && !c.null() && (op == "=" || op == "<>") {
		want, invert := c.s, op == "<>"
		return func(rec T) bool {
			h, ok := asString(get(rec))
			return (ok && equalLower(h, want)) != invert
		}
	}
	switch op {
	case "=":
		return func(rec T) bool { return equal(read(kind, get(rec)), c) }
	case "<>":
		return func(rec T) bool { return !equal(read(kind, get(rec)), c) }
	}
	if c.null() {
		// An ordering comparison with null is false (lifted operators of .NET).
		return func(T) bool { return false }
	}
	var want func(int) bool
	switch op {
	case ">":
		want = func(n int) bool { return n > 0 }
	case ">=":
		want = func(n int) bool { return n >= 0 }
	case "<":
		want = func(n int) bool { return n < 0 }
	default: // "<=", Validate allows nothing else
		want = func(n int) bool { return n <= 0 }
	}
	return func(rec T) bool {
		v := read(kind, get(rec))
		return !v.null() && want(compareIgnoreCase(v, c))
	}
}

// equal is = between a record's value and the filter's: null equals only null; strings are
// compared ignoring case.
func equal(a, b val) bool {
	if a.null() || b.null() {
		return a.null() && b.null()
	}
	return compareIgnoreCase(a, b) == 0
}

// equalLower reports whether a and b are equal once lower-cased rune by rune; ASCII is compared
// in place.
func equalLower(a, b string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca >= utf8.RuneSelf || cb >= utf8.RuneSelf {
			return cmpLevel(a[i:], b[i:], levelLower) == 0
		}
		if lowerASCII(ca) != lowerASCII(cb) {
			return false
		}
	}
	return len(a) == len(b)
}

// stringOp compiles contains, notcontains, startswith and endswith: both sides lower-cased, a
// field that is not a string read as its text, null read as "" (DevExtreme's null guard).
func stringOp[T any](kind Kind, get func(T) any, op string, value any) func(T) bool {
	needle := ""
	if v, _ := clientValue(value); v != nil {
		needle, _ = text(v)
	}
	m := newMatcher(op, needle)
	invert := op == "notcontains"
	if kind == String {
		return func(rec T) bool {
			h, _ := asString(get(rec))
			return m.match(h) != invert
		}
	}
	return func(rec T) bool {
		h, _ := text(get(rec))
		return m.match(h) != invert
	}
}

const (
	matchContains = iota
	matchPrefix
	matchSuffix
)

// matcher finds a lower-cased needle in text lower-cased rune by rune (as .NET's ToLower).
type matcher struct {
	how   int
	n     string // the needle, lower-cased
	nb    []byte // the same bytes
	ascii bool   // the needle is all ASCII
	k, i  bool   // the needle has a k or an i (KELVIN SIGN and İ lower-case to them)
	// class marks the bytes containsFold stops at: the needle's first byte in either case
	// (classFirst), the lead byte of KELVIN SIGN or İ when the needle has a k or an i
	// (classSpecial).
	class [256]uint8
}

const (
	classFirst = 1 << iota
	classSpecial
)

func newMatcher(op, needle string) matcher {
	nb := appendLower(nil, needle)
	m := matcher{how: matchContains, n: string(nb), nb: nb, ascii: isASCII(string(nb))}
	switch op {
	case "startswith":
		m.how = matchPrefix
	case "endswith":
		m.how = matchSuffix
	}
	m.k = strings.IndexByte(m.n, 'k') >= 0
	m.i = strings.IndexByte(m.n, 'i') >= 0
	if m.n != "" {
		c := m.n[0]
		m.class[c] |= classFirst
		if 'a' <= c && c <= 'z' {
			m.class[c-('a'-'A')] |= classFirst
		}
	}
	if m.k {
		m.class[leadKelvin] |= classSpecial
	}
	if m.i {
		m.class[leadDotI] |= classSpecial
	}
	return m
}

// match reports whether h contains, starts with or ends with the needle, ignoring case. For an
// ASCII needle the text is searched in place: the bytes of other characters never equal ASCII
// bytes, and only two characters lower-case to ASCII letters (KELVIN SIGN to k, İ to i): text
// that has their lead bytes goes the slow way when the needle has a k or an i.
func (m *matcher) match(h string) bool {
	if m.ascii {
		n := m.n
		switch m.how {
		case matchContains:
			found, special := m.containsFold(h)
			if found || !special {
				return found
			}
		default:
			if !(m.k || m.i) || !hasSpecialLead(h) {
				if len(h) < len(n) {
					return false
				}
				if m.how == matchPrefix {
					return equalFoldASCII(h[:len(n)], n)
				}
				return equalFoldASCII(h[len(h)-len(n):], n)
			}
		}
	}
	var buf [256]byte
	l := appendLower(buf[:0], h)
	switch m.how {
	case matchPrefix:
		return bytes.HasPrefix(l, m.nb)
	case matchSuffix:
		return bytes.HasSuffix(l, m.nb)
	}
	return bytes.Contains(l, m.nb)
}

// The lead bytes of İ (C4 B0) and KELVIN SIGN (E2 84 AA).
const leadDotI, leadKelvin = 0xC4, 0xE2

func hasSpecialLead(h string) bool {
	for i := 0; i < len(h); i++ {
		if c := h[i]; c == leadDotI || c == leadKelvin {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFoldASCII compares h, ASCII letters lower-cased, with the lower-case ASCII n of the same
// length.
func equalFoldASCII(h, n string) bool {
	for i := 0; i < len(n); i++ {
		if lowerASCII(h[i]) != n[i] {
			return false
		}
	}
	return true
}

// containsFold reports whether h, ASCII letters lower-cased, contains the lower-case ASCII
// needle, and whether h has the lead byte of a character that lower-cases to a letter of the
// needle (looked for until a match is found).
func (m *matcher) containsFold(h string) (found, special bool) {
	n := m.n
	if n == "" {
		return true, false
	}
	rest, last := n[1:], len(h)-len(n)
	for i := 0; i < len(h); i++ {
		c := m.class[h[i]]
		if c == 0 {
			continue
		}
		if c&classSpecial != 0 {
			special = true
		}
		if c&classFirst != 0 && i <= last && equalFoldASCII(h[i+1:i+len(n)], rest) {
			return true, special
		}
	}
	return false, special
}
