package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ParseInsert parses one line of a data file, a statement like
//
//	INSERT INTO cfdi_40_regimenes_fiscales VALUES('601','General de Ley',NULL,1,0.160000);
//
// and returns its values in order: a string for a quoted string (a doubled quote stands for
// one quote), a json.Number holding the exact text of a bare number, and nil
// for NULL. The replace('...','\n',char(10)) form that the sqlite3 shell's
// .dump writes for strings holding line breaks is understood too.
//
// When table is not empty the statement must insert into that table. Keywords
// are case-insensitive; anything else (a column list, several rows, a blob,
// text after the closing ";") is an error.
func ParseInsert(line string, table string) ([]any, error) {
	return parseInsert(line, table, nil)
}

// parseInsert is ParseInsert appending the values to vals. The strings it
// returns may share memory with line.
func parseInsert(line, table string, vals []any) ([]any, error) {
	if !utf8.ValidString(line) {
		return nil, errors.New("the line is not valid UTF-8 text")
	}
	p := lineParser{s: line}
	p.space()
	if !p.keyword("INSERT") {
		return nil, p.fail("expected INSERT INTO")
	}
	p.space()
	if !p.keyword("INTO") {
		return nil, p.fail("expected INTO after INSERT")
	}
	p.space()
	name, err := p.ident()
	if err != nil {
		return nil, err
	}
	if table != "" && name != table && !strings.EqualFold(name, table) {
		return nil, fmt.Errorf("the statement inserts into %q, expected %q", name, table)
	}
	p.space()
	if !p.keyword("VALUES") {
		if p.peek() == '(' {
			return nil, p.fail("column lists are not supported, expected VALUES(")
		}
		return nil, p.fail("expected VALUES after the table name")
	}
	p.space()
	if !p.eat('(') {
		return nil, p.fail("expected ( after VALUES")
	}
	for n := 1; ; n++ {
		p.space()
		v, err := p.value(0)
		if err != nil {
			return nil, fmt.Errorf("value %d: %w", n, err)
		}
		vals = append(vals, v)
		p.space()
		if p.eat(',') {
			continue
		}
		if p.eat(')') {
			break
		}
		return nil, p.fail(fmt.Sprintf("expected , or ) after value %d", n))
	}
	p.space()
	if p.peek() == ',' {
		return nil, p.fail("several rows in one INSERT are not supported")
	}
	if !p.eat(';') {
		return nil, p.fail("expected ; at the end of the statement")
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.fail("unexpected text after the statement")
	}
	return vals, nil
}

// digits holds the one-digit numbers, boxed once.
var digits = [10]any{json.Number("0"), json.Number("1"), json.Number("2"), json.Number("3"), json.Number("4"),
	json.Number("5"), json.Number("6"), json.Number("7"), json.Number("8"), json.Number("9")}

// maxReplaceDepth bounds nested replace() calls.
const maxReplaceDepth = 8

// lineParser reads one INSERT statement; i is the next byte to read.
type lineParser struct {
	s string
	i int
}

func (p *lineParser) fail(msg string) error {
	if p.i >= len(p.s) {
		return fmt.Errorf("%s, found the end of the line", msg)
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return fmt.Errorf("%s, found %q at column %d", msg, r, utf8.RuneCountInString(p.s[:p.i])+1)
}

func (p *lineParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *lineParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// eat consumes c when it is next.
func (p *lineParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// identBytes marks the bytes of bare identifiers and keywords.
var identBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '_' || c == '$' || c >= 0x80 ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

func isIdentByte(c byte) bool { return identBytes[c] }

// keyword consumes the ASCII keyword kw (case-insensitive) when it is next and
// is a whole word.
func (p *lineParser) keyword(kw string) bool {
	end := p.i + len(kw)
	if end > len(p.s) {
		return false
	}
	if w := p.s[p.i:end]; w != kw && !strings.EqualFold(w, kw) {
		return false
	}
	if end < len(p.s) && isIdentByte(p.s[end]) {
		return false
	}
	p.i = end
	return true
}

// ident reads a table name: bare, "quoted", `quoted` or [bracketed].
func (p *lineParser) ident() (string, error) {
	switch c := p.peek(); c {
	case '"', '`':
		return p.quoted(c, "table name")
	case '[':
		j := strings.IndexByte(p.s[p.i:], ']')
		if j < 0 {
			return "", p.fail("unterminated [table name]")
		}
		name := p.s[p.i+1 : p.i+j]
		p.i += j + 1
		return name, nil
	}
	start := p.i
	for p.i < len(p.s) && isIdentByte(p.s[p.i]) {
		p.i++
	}
	if p.i == start {
		return "", p.fail("expected a table name")
	}
	return p.s[start:p.i], nil
}

// quoted reads a string delimited by q, where a doubled q stands for one.
// Without doubled quotes the result shares memory with the line.
func (p *lineParser) quoted(q byte, what string) (string, error) {
	open := p.i
	start := p.i + 1
	j := strings.IndexByte(p.s[start:], q)
	if j < 0 {
		p.i = open
		return "", p.fail("unterminated " + what)
	}
	end := start + j
	if end+1 >= len(p.s) || p.s[end+1] != q {
		p.i = end + 1
		return p.s[start:end], nil
	}
	var b strings.Builder
	b.Grow(end - start + 16)
	pos := start
	for {
		j := strings.IndexByte(p.s[pos:], q)
		if j < 0 {
			p.i = open
			return "", p.fail("unterminated " + what)
		}
		b.WriteString(p.s[pos : pos+j])
		at := pos + j
		if at+1 < len(p.s) && p.s[at+1] == q {
			b.WriteByte(q)
			pos = at + 2
			continue
		}
		p.i = at + 1
		return b.String(), nil
	}
}

// value reads one value: a string, a number, NULL or replace(...).
func (p *lineParser) value(depth int) (any, error) {
	switch c := p.peek(); {
	case c == '\'':
		return p.quoted('\'', "string")
	case c == '-' || '0' <= c && c <= '9':
		n, err := p.number()
		if len(n) == 1 {
			return digits[n[0]-'0'], nil // saves boxing the most common numbers
		}
		return n, err
	case c == 'n' || c == 'N':
		if p.keyword("NULL") {
			return nil, nil
		}
	case c == 'r' || c == 'R':
		if p.keyword("replace") {
			return p.replace(depth)
		}
	case c == 'x' || c == 'X':
		if p.i+1 < len(p.s) && p.s[p.i+1] == '\'' {
			return nil, p.fail("blob values are not supported")
		}
	}
	return nil, p.fail("expected a string, a number or NULL")
}

// number reads a number in JSON syntax (which is what SQLite writes):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *lineParser) number() (json.Number, error) {
	s, i := p.s, p.i
	start := i
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		p.i = i
		return "", p.fail("malformed number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == d {
			p.i = i
			return "", p.fail("malformed number: digits expected after the decimal point")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == d {
			p.i = i
			return "", p.fail("malformed number: digits expected in the exponent")
		}
	}
	if i < len(s) && (isIdentByte(s[i]) || s[i] == '.') {
		p.i = i
		return "", p.fail("malformed number")
	}
	p.i = i
	return json.Number(s[start:i]), nil
}

// replace reads the rest of replace(X, 'from', to) after the word replace,
// where X is a string or another replace() and to is a string or char(N, ...).
func (p *lineParser) replace(depth int) (string, error) {
	if depth >= maxReplaceDepth {
		return "", p.fail("replace() nested too deeply")
	}
	p.space()
	if !p.eat('(') {
		return "", p.fail("expected ( after replace")
	}
	p.space()
	var text string
	switch {
	case p.peek() == '\'':
		s, err := p.quoted('\'', "string")
		if err != nil {
			return "", err
		}
		text = s
	case p.keyword("replace"):
		s, err := p.replace(depth + 1)
		if err != nil {
			return "", err
		}
		text = s
	default:
		return "", p.fail("expected a string in replace()")
	}
	p.space()
	if !p.eat(',') {
		return "", p.fail("expected , in replace()")
	}
	p.space()
	if p.peek() != '\'' {
		return "", p.fail("expected a string in replace()")
	}
	from, err := p.quoted('\'', "string")
	if err != nil {
		return "", err
	}
	p.space()
	if !p.eat(',') {
		return "", p.fail("expected , in replace()")
	}
	p.space()
	var to string
	switch {
	case p.peek() == '\'':
		to, err = p.quoted('\'', "string")
		if err != nil {
			return "", err
		}
	case p.keyword("char"):
		to, err = p.char()
		if err != nil {
			return "", err
		}
	default:
		return "", p.fail("expected a string or char() in replace()")
	}
	p.space()
	if !p.eat(')') {
		return "", p.fail("expected ) to close replace()")
	}
	if from == "" {
		return text, nil // SQLite leaves the text alone for an empty pattern
	}
	return strings.ReplaceAll(text, from, to), nil
}

// char reads the rest of char(N, ...) after the word char.
func (p *lineParser) char() (string, error) {
	p.space()
	if !p.eat('(') {
		return "", p.fail("expected ( after char")
	}
	var b strings.Builder
	for {
		p.space()
		n, digits := 0, 0
		for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
			n = n*10 + int(p.s[p.i]-'0')
			p.i++
			digits++
			if n > utf8.MaxRune {
				return "", p.fail("character code out of range in char()")
			}
		}
		if digits == 0 {
			return "", p.fail("expected a character code in char()")
		}
		b.WriteRune(rune(n))
		p.space()
		if p.eat(',') {
			continue
		}
		if p.eat(')') {
			return b.String(), nil
		}
		return "", p.fail("expected , or ) in char()")
	}
}
