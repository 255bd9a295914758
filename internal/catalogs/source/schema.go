package source

import (
	"errors"
	"fmt"
	"strings"
)

// ParseSchema parses the text of a schemas/<table>.sql file, one statement
//
//	CREATE TABLE IF NOT EXISTS "t"("a" text not null, "b" int, PRIMARY KEY("a", "b"));
//
// returning the table name, its column names in order and its primary-key
// columns (from a PRIMARY KEY(...) clause or a column declared PRIMARY KEY;
// none when the table has no primary key). HasData is left false.
func ParseSchema(text string) (Table, error) {
	toks, err := lexSQL(text)
	if err != nil {
		return Table{}, err
	}
	p := schemaParser{toks: toks}
	if !p.word("CREATE") {
		return Table{}, p.fail("expected CREATE TABLE")
	}
	if !p.word("TEMP") {
		p.word("TEMPORARY")
	}
	if !p.word("TABLE") {
		return Table{}, p.fail("expected TABLE after CREATE")
	}
	if p.word("IF") {
		if !p.word("NOT") || !p.word("EXISTS") {
			return Table{}, p.fail("expected IF NOT EXISTS")
		}
	}
	name, ok := p.name()
	if !ok {
		return Table{}, p.fail("expected the table name")
	}
	if p.punct('.') { // schema-qualified: main."t"
		if name, ok = p.name(); !ok {
			return Table{}, p.fail("expected the table name after the schema name")
		}
	}
	if name == "" {
		return Table{}, errors.New("the table name is empty")
	}
	if !p.punct('(') {
		if p.word("AS") {
			return Table{}, errors.New("CREATE TABLE ... AS SELECT is not supported")
		}
		return Table{}, p.fail("expected ( after the table name")
	}
	t := Table{Name: name}
	var keyDecls int
	for {
		item, err := p.item()
		if err != nil {
			return Table{}, err
		}
		if len(item) == 0 {
			return Table{}, p.fail("expected a column definition")
		}
		first := item[0]
		switch {
		case first.isWord("CONSTRAINT") || first.isWord("PRIMARY") || first.isWord("UNIQUE") ||
			first.isWord("CHECK") || first.isWord("FOREIGN"):
			rest := item
			if first.isWord("CONSTRAINT") {
				if len(rest) < 2 {
					return Table{}, errors.New("a CONSTRAINT without a name")
				}
				rest = rest[2:]
			}
			if len(rest) >= 2 && rest[0].isWord("PRIMARY") && rest[1].isWord("KEY") {
				cols, err := keyColumns(rest[2:])
				if err != nil {
					return Table{}, err
				}
				t.Key = cols
				keyDecls++
			}
		case first.kind == tokWord || first.kind == tokQuoted:
			if first.text == "" {
				return Table{}, errors.New("a column has an empty name")
			}
			for _, c := range t.Columns {
				if strings.EqualFold(c, first.text) {
					return Table{}, fmt.Errorf("column %q is declared twice", first.text)
				}
			}
			t.Columns = append(t.Columns, first.text)
			for i := 1; i+1 < len(item); i++ {
				if item[i].isWord("PRIMARY") && item[i+1].isWord("KEY") {
					t.Key = []string{first.text}
					keyDecls++
					break
				}
			}
		default:
			return Table{}, fmt.Errorf("expected a column name, found %q", first.text)
		}
		if p.punct(',') {
			continue
		}
		if p.punct(')') {
			break
		}
		return Table{}, p.fail("expected , or ) in the column list")
	}
	// Table options (WITHOUT ROWID, STRICT), then an optional ";".
	for p.pos < len(p.toks) && p.toks[p.pos].kind == tokWord {
		p.pos++
	}
	for p.punct(',') {
		if p.pos >= len(p.toks) || p.toks[p.pos].kind != tokWord {
			return Table{}, p.fail("expected a table option")
		}
		for p.pos < len(p.toks) && p.toks[p.pos].kind == tokWord {
			p.pos++
		}
	}
	p.punct(';')
	if p.pos < len(p.toks) {
		return Table{}, p.fail("expected one CREATE TABLE statement only")
	}
	if len(t.Columns) == 0 {
		return Table{}, fmt.Errorf("table %q has no columns", name)
	}
	if keyDecls > 1 {
		return Table{}, fmt.Errorf("table %q declares its primary key more than once", name)
	}
	for i, k := range t.Key {
		found := false
		for _, c := range t.Columns {
			if strings.EqualFold(c, k) {
				t.Key[i] = c
				found = true
				break
			}
		}
		if !found {
			return Table{}, fmt.Errorf("primary key column %q of table %q is not a column of the table", k, name)
		}
		for _, prev := range t.Key[:i] {
			if prev == t.Key[i] {
				return Table{}, fmt.Errorf("primary key column %q of table %q is repeated", k, name)
			}
		}
	}
	return t, nil
}

// keyColumns reads "( a [COLLATE x] [ASC|DESC], b ... )" and returns the names.
func keyColumns(toks []token) ([]string, error) {
	if len(toks) < 2 || !toks[0].isPunct('(') {
		return nil, errors.New("expected ( after PRIMARY KEY")
	}
	var cols []string
	depth, start := 0, true
	for i, tk := range toks {
		switch {
		case tk.isPunct('('):
			depth++
			continue
		case tk.isPunct(')'):
			depth--
			if depth == 0 {
				if start || i == 1 {
					return nil, errors.New("an empty column in PRIMARY KEY(...)")
				}
				return cols, nil // what follows (ON CONFLICT ...) is ignored
			}
			continue
		case depth == 1 && tk.isPunct(','):
			if start {
				return nil, errors.New("an empty column in PRIMARY KEY(...)")
			}
			start = true
			continue
		}
		if depth == 1 && start {
			if tk.kind != tokWord && tk.kind != tokQuoted {
				return nil, fmt.Errorf("expected a column name in PRIMARY KEY(...), found %q", tk.text)
			}
			cols = append(cols, tk.text)
			start = false
		}
	}
	return nil, errors.New("PRIMARY KEY(... is not closed")
}

type tokKind int

const (
	tokWord   tokKind = iota // bare word or number
	tokQuoted                // "quoted", `quoted` or [bracketed] identifier
	tokString                // 'string'
	tokPunct                 // any other single character
)

type token struct {
	kind tokKind
	text string
}

func (t token) isWord(w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

func (t token) isPunct(c byte) bool { return t.kind == tokPunct && t.text[0] == c }

// lexSQL splits a statement into tokens, dropping spaces and comments.
func lexSQL(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case c == 0xEF && strings.HasPrefix(s[i:], "\uFEFF") && i == 0:
			i += len("\uFEFF")
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
			} else {
				i += j + 1
			}
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return nil, errors.New("unterminated /* comment")
			}
			i += 2 + j + 2
		case c == '"' || c == '`' || c == '\'':
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], c)
				if k < 0 {
					return nil, fmt.Errorf("unterminated %c quote", c)
				}
				b.WriteString(s[j : j+k])
				j += k + 1
				if j < len(s) && s[j] == c {
					b.WriteByte(c)
					j++
					continue
				}
				break
			}
			kind := tokQuoted
			if c == '\'' {
				kind = tokString
			}
			toks = append(toks, token{kind, b.String()})
			i = j
		case c == '[':
			k := strings.IndexByte(s[i:], ']')
			if k < 0 {
				return nil, errors.New("unterminated [ quote")
			}
			toks = append(toks, token{tokQuoted, s[i+1 : i+k]})
			i += k + 1
		case isIdentByte(c):
			j := i
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
			toks = append(toks, token{tokWord, s[i:j]})
			i = j
		default:
			toks = append(toks, token{tokPunct, s[i : i+1]})
			i++
		}
	}
	return toks, nil
}

type schemaParser struct {
	toks []token
	pos  int
}

func (p *schemaParser) fail(msg string) error {
	if p.pos >= len(p.toks) {
		return fmt.Errorf("%s, found the end of the text", msg)
	}
	return fmt.Errorf("%s, found %q", msg, p.toks[p.pos].text)
}

func (p *schemaParser) word(w string) bool {
	if p.pos < len(p.toks) && p.toks[p.pos].isWord(w) {
		p.pos++
		return true
	}
	return false
}

func (p *schemaParser) punct(c byte) bool {
	if p.pos < len(p.toks) && p.toks[p.pos].isPunct(c) {
		p.pos++
		return true
	}
	return false
}

func (p *schemaParser) name() (string, bool) {
	if p.pos < len(p.toks) {
		if t := p.toks[p.pos]; t.kind == tokWord || t.kind == tokQuoted {
			p.pos++
			return t.text, true
		}
	}
	return "", false
}

// item returns the tokens up to the next "," or ")" at parenthesis depth 0,
// which it leaves unread.
func (p *schemaParser) item() ([]token, error) {
	start, depth := p.pos, 0
	for ; p.pos < len(p.toks); p.pos++ {
		t := p.toks[p.pos]
		switch {
		case t.isPunct('('):
			depth++
		case t.isPunct(')'):
			if depth == 0 {
				return p.toks[start:p.pos], nil
			}
			depth--
		case t.isPunct(',') && depth == 0:
			return p.toks[start:p.pos], nil
		}
	}
	return nil, errors.New("the column list is not closed with )")
}
