package loadquery

import (
	"cmp"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// val is a field value read for comparison; the zero val is null.
type val struct {
	k    Kind // 0: null
	b    bool
	f    float64
	s    string
	sec  int64 // Date: seconds since 1970-01-01T00:00:00Z
	nsec int32
}

func (v val) null() bool { return v.k == 0 }

// plain reads through pointers and interfaces: what a value is, or nil.
func plain(v any) any {
	switch p := v.(type) {
	case nil:
		return nil
	case string, bool, float64, int, int64, json.Number, time.Time:
		return v
	case *string:
		if p == nil {
			return nil
		}
		return *p
	case *bool:
		if p == nil {
			return nil
		}
		return *p
	case *float64:
		if p == nil {
			return nil
		}
		return *p
	case *int:
		if p == nil {
			return nil
		}
		return *p
	case *int64:
		if p == nil {
			return nil
		}
		return *p
	case *time.Time:
		if p == nil {
			return nil
		}
		return *p
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	return rv.Interface()
}

// read converts what a getter returned into a val of the field's kind; a value of another type
// that cannot be read as that kind is null.
func read(k Kind, v any) val {
	switch k {
	case String:
		if s, ok := asString(v); ok {
			return val{k: String, s: s}
		}
	case Number:
		if f, ok := asNumber(v); ok {
			return val{k: Number, f: f}
		}
	case Boolean:
		if b, ok := asBool(v); ok {
			return val{k: Boolean, b: b}
		}
	case Date:
		if sec, nsec, ok := asDate(v); ok {
			return val{k: Date, sec: sec, nsec: nsec}
		}
	}
	return val{}
}

func asString(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case *string:
		if s == nil {
			return "", false
		}
		return *s, true
	case nil:
		return "", false
	}
	return text(v)
}

// text writes any simple value as text, as DevExtreme's string operators see a non-string field.
func text(v any) (string, bool) {
	v = plain(v)
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case time.Time:
		return x.Format(layoutLocal), true
	case json.Number:
		return x.String(), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), true
	case reflect.Float32:
		return strconv.FormatFloat(rv.Float(), 'f', -1, 32), true
	case reflect.Float64:
		return strconv.FormatFloat(rv.Float(), 'f', -1, 64), true
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), true
	}
	return "", false
}

func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case float32:
		return float64(x), true
	case *float64:
		if x == nil {
			return 0, false
		}
		return *x, true
	case *int:
		if x == nil {
			return 0, false
		}
		return float64(*x), true
	case nil:
		return 0, false
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	v = plain(v)
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	case reflect.String:
		f, err := strconv.ParseFloat(strings.TrimSpace(rv.String()), 64)
		return f, err == nil
	}
	return 0, false
}

func asBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case *bool:
		if x == nil {
			return false, false
		}
		return *x, true
	case nil:
		return false, false
	}
	v = plain(v)
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.String:
		return parseBool(rv.String())
	}
	return false, false
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func asDate(v any) (int64, int32, bool) {
	switch x := v.(type) {
	case string:
		return parseDate(x)
	case *string:
		if x == nil {
			return 0, 0, false
		}
		return parseDate(*x)
	case time.Time:
		return x.Unix(), int32(x.Nanosecond()), true
	case *time.Time:
		if x == nil {
			return 0, 0, false
		}
		return x.Unix(), int32(x.Nanosecond()), true
	case nil:
		return 0, 0, false
	}
	if s, ok := plain(v).(string); ok {
		return parseDate(s)
	}
	if rv := reflect.ValueOf(plain(v)); rv.Kind() == reflect.String {
		return parseDate(rv.String())
	}
	return 0, 0, false
}

// The API's date-time without offset (spec 1 §7.3).
const layoutLocal = "2006-01-02T15:04:05.000"

// dateLayouts are the other forms a date is read in: with an offset, without one (read as
// UTC), date only, and the slash forms the DevExtreme client sends.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
	"2006/01/02 15:04:05.999999999",
	"2006/01/02 15:04",
	"2006/01/02",
}

// parseDate reads a date-time; one without offset is read as UTC. The API's own form
// (yyyy-MM-ddTHH:mm:ss[.fff][Z]) is read without the time package, for speed.
func parseDate(s string) (int64, int32, bool) {
	if sec, nsec, ok := parseWire(s); ok {
		return sec, nsec, true
	}
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Unix(), int32(t.Nanosecond()), true
		}
	}
	return 0, 0, false
}

func parseWire(s string) (int64, int32, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':' {
		return 0, 0, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	se, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || se > 59 {
		return 0, 0, false
	}
	rest := s[19:]
	nsec := 0
	if len(rest) > 0 && rest[0] == '.' {
		i := 1
		scale := 100000000
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			if i > 9 {
				return 0, 0, false
			}
			nsec += int(rest[i]-'0') * scale
			scale /= 10
			i++
		}
		if i == 1 {
			return 0, 0, false
		}
		rest = rest[i:]
	}
	if rest != "" && rest != "Z" {
		return 0, 0, false
	}
	return daysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+se), int32(nsec), true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 { // only year 0000 in January or February
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// clientValue normalizes the value of a filter condition: nil, string, bool or float64.
func clientValue(v any) (any, bool) {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return v, true
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		return f, err == nil
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	case reflect.Float32:
		return rv.Float(), true
	}
	return nil, false
}

// convert turns a filter value into the field's kind, as DevExtreme converts the client's value
// to the member's type: ok false when it cannot (the condition then matches nothing).
func convert(k Kind, v any) (val, bool) {
	v, ok := clientValue(v)
	if !ok {
		return val{}, false
	}
	if v == nil {
		return val{}, true
	}
	switch k {
	case String:
		switch x := v.(type) {
		case string:
			return val{k: String, s: x}, true
		case float64:
			return val{k: String, s: strconv.FormatFloat(x, 'f', -1, 64)}, true
		case bool:
			return val{k: String, s: strconv.FormatBool(x)}, true
		}
	case Number:
		switch x := v.(type) {
		case float64:
			return val{k: Number, f: x}, true
		case string:
			if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				return val{k: Number, f: f}, true
			}
		}
	case Boolean:
		switch x := v.(type) {
		case bool:
			return val{k: Boolean, b: x}, true
		case string:
			if b, ok := parseBool(x); ok {
				return val{k: Boolean, b: b}, true
			}
		}
	case Date:
		if x, ok := v.(string); ok {
			if sec, nsec, ok := parseDate(x); ok {
				return val{k: Date, sec: sec, nsec: nsec}, true
			}
		}
	}
	return val{}, false
}

// order compares two values of one kind for sorting: null first, strings by collate.
func order(a, b val) int {
	switch {
	case a.k == 0 || b.k == 0:
		return cmp.Compare(a.k, b.k)
	case a.k == String:
		return collate(a.s, b.s)
	case a.k == Number:
		return cmp.Compare(a.f, b.f)
	case a.k == Date:
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		return cmp.Compare(a.nsec, b.nsec)
	case a.k == Boolean:
		switch {
		case a.b == b.b:
			return 0
		case b.b:
			return -1
		}
		return 1
	}
	return 0
}

// compareIgnoreCase compares two non-null values of one kind for a filter: like order, but
// strings are compared ignoring case (DevExtreme lower-cases both sides for in-memory data).
func compareIgnoreCase(a, b val) int {
	if a.k == String && b.k == String {
		if c := cmpLevel(a.s, b.s, levelBase); c != 0 {
			return c
		}
		return cmpLevel(a.s, b.s, levelLower)
	}
	return order(a, b)
}

// Collation levels, as a culture-aware comparer sorts text: letters first (ignoring case and
// accents), then accents (unaccented first), then case (lower case first).
const (
	levelBase = iota
	levelLower
	levelCase
)

// collate is a total order on strings close to .NET's culture-aware default comparer for
// Spanish text: "árbol" sorts with "arbol", before "avión", and "a" before "A".
func collate(a, b string) int {
	if a == b {
		return 0
	}
	// Equal characters weigh the same at every level: skip the common prefix (back to the start
	// of a character).
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && (p < len(a) && !utf8.RuneStart(a[p]) || p < len(b) && !utf8.RuneStart(b[p])) {
		p--
	}
	a, b = a[p:], b[p:]
	for _, l := range [...]int{levelBase, levelLower, levelCase} {
		if c := cmpLevel(a, b, l); c != 0 {
			return c
		}
	}
	return strings.Compare(a, b)
}

func cmpLevel(a, b string, level int) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		var ra, rb rune
		if c := a[i]; c < utf8.RuneSelf {
			ra = rune(c)
			i++
		} else {
			r, n := utf8.DecodeRuneInString(a[i:])
			ra, i = r, i+n
		}
		if c := b[j]; c < utf8.RuneSelf {
			rb = rune(c)
			j++
		} else {
			r, n := utf8.DecodeRuneInString(b[j:])
			rb, j = r, j+n
		}
		if ra == rb {
			continue
		}
		if ra < utf8.RuneSelf && rb < utf8.RuneSelf && level != levelCase {
			if la, lb := lowerASCII(byte(ra)), lowerASCII(byte(rb)); la != lb {
				return cmp.Compare(la, lb)
			}
			continue
		}
		ka, kb := weight(ra, level), weight(rb, level)
		if ka != kb {
			return cmp.Compare(ka, kb)
		}
	}
	switch {
	case i < len(a):
		return 1
	case j < len(b):
		return -1
	}
	return 0
}

func weight(r rune, level int) rune {
	switch level {
	case levelBase:
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}
		return base(unicode.ToLower(r))
	case levelLower:
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}
		return unicode.ToLower(r)
	}
	// levelCase: swapping case puts lower case first.
	if unicode.IsUpper(r) {
		return unicode.ToLower(r)
	}
	return unicode.ToUpper(r)
}

// base strips the accent of a lower-case Latin letter.
func base(r rune) rune {
	switch r {
	case 'à', 'á', 'â', 'ã', 'ä', 'å', 'ā', 'ă', 'ą':
		return 'a'
	case 'ç', 'ć', 'ĉ', 'ċ', 'č':
		return 'c'
	case 'ď', 'đ':
		return 'd'
	case 'è', 'é', 'ê', 'ë', 'ē', 'ĕ', 'ė', 'ę', 'ě':
		return 'e'
	case 'ì', 'í', 'î', 'ï', 'ĩ', 'ī', 'ĭ', 'į':
		return 'i'
	case 'ñ', 'ń', 'ņ', 'ň':
		return 'n'
	case 'ò', 'ó', 'ô', 'õ', 'ö', 'ø', 'ō', 'ŏ', 'ő':
		return 'o'
	case 'ś', 'ŝ', 'ş', 'š':
		return 's'
	case 'ù', 'ú', 'û', 'ü', 'ũ', 'ū', 'ŭ', 'ů', 'ű', 'ų':
		return 'u'
	case 'ý', 'ÿ':
		return 'y'
	case 'ź', 'ż', 'ž':
		return 'z'
	}
	return r
}

// appendBase appends s with each character replaced by its weight at levelBase.
func appendBase(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			dst = append(dst, lowerASCII(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, weight(r, levelBase))
		i += n
	}
	return dst
}

// appendLower appends s lower-cased rune by rune (as .NET's ToLower does).
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += n
	}
	return dst
}

// finite turns NaN and infinities, which JSON cannot carry, into null.
func finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}
