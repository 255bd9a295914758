package validations

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/cfdi"
)

// List is a copy of one of SAT's taxpayer lists (69-B or 69-B Bis): each RFC with its
// situation (a status id: Presunto, Desvirtuado, Definitivo, SentenciaFavorable).
type List struct {
	Source  string // file name it was read from
	entries map[string]string
}

// Len is the number of RFCs listed.
func (l *List) Len() int { return len(l.entries) }

// Lookup gives the situation of an RFC, "" when it is not listed.
func (l *List) Lookup(rfc string) string { return l.entries[strings.ToUpper(strings.TrimSpace(rfc))] }

// ReadListFile reads a list as SAT publishes it (ReadList).
func ReadListFile(path string) (*List, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := ReadList(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	l.Source = path
	return l, nil
}

// ReadList reads a CSV list: SAT's "Listado completo" files (title lines first, then a header
// row) or any CSV whose header row has a column named RFC. The situation comes from a column
// whose name starts with "Situación" (SAT's "Situación del contribuyente"); without one, every
// listed RFC is Definitivo. UTF-8 or, as SAT serves it, Latin-1; comma or semicolon separated.
func ReadList(r io.Reader) (*List, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	text := string(raw)
	if !utf8.ValidString(text) {
		runes := make([]rune, len(raw))
		for i, b := range raw {
			runes[i] = rune(b) // Latin-1: each byte is its code point
		}
		text = string(runes)
	}
	sep := ','
	if first, _, _ := strings.Cut(text, "\n"); strings.Count(first, ";") > strings.Count(first, ",") {
		sep = ';'
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma = sep
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rfcCol, sitCol := -1, -1
	l := &List{entries: map[string]string{}}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if rfcCol < 0 {
			for i, cell := range rec {
				switch f := fold(cell); {
				case f == "rfc":
					rfcCol = i
				case strings.HasPrefix(f, "situacion"):
					sitCol = i
				}
			}
			continue
		}
		if rfcCol >= len(rec) {
			continue
		}
		rfc := strings.ToUpper(strings.TrimSpace(rec[rfcCol]))
		if rfc == "" {
			continue
		}
		if !cfdi.ValidRFC(rfc) { // t_RFC only: SAT's RFCs are taken as SAT publishes them
			return nil, fmt.Errorf("line %d: %q is not an RFC", line, rfc)
		}
		st := Definitivo
		if sitCol >= 0 && sitCol < len(rec) {
			var ok bool
			if st, ok = situations[fold(rec[sitCol])]; !ok {
				return nil, fmt.Errorf("line %d: unknown situation %q (Presunto, Desvirtuado, Definitivo or Sentencia Favorable)", line, rec[sitCol])
			}
		}
		l.entries[rfc] = st
	}
	if rfcCol < 0 {
		return nil, errors.New("no header row with an RFC column")
	}
	return l, nil
}

var situations = map[string]string{
	"presunto":             Presunto,
	"presuntos":            Presunto,
	"desvirtuado":          Desvirtuado,
	"desvirtuados":         Desvirtuado,
	"definitivo":           Definitivo,
	"definitivos":          Definitivo,
	"sentenciafavorable":   SentenciaFavorable,
	"sentenciasfavorables": SentenciaFavorable,
}

// fold lowers a text and drops accents and everything but letters and digits.
func fold(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if p, ok := plain[r]; ok {
			r = p
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var plain = map[rune]rune{'á': 'a', 'é': 'e', 'í': 'i', 'ó': 'o', 'ú': 'u', 'ü': 'u', 'ñ': 'n'}
