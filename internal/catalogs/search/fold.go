package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// foldLatin maps U+00C0–U+017F (the letters of Latin-1 Supplement and Latin Extended-A) to
// their lower-case base letters. "" marks the two symbols of the range (× and ÷), kept as
// they are.
var foldLatin = [0x180 - 0xC0]string{
	// U+00C0: À Á Â Ã Ä Å Æ Ç È É Ê Ë Ì Í Î Ï
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	// U+00D0: Ð Ñ Ò Ó Ô Õ Ö × Ø Ù Ú Û Ü Ý Þ ß
	"d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "ss",
	// U+00E0: à á â ã ä å æ ç è é ê ë ì í î ï
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	// U+00F0: ð ñ ò ó ô õ ö ÷ ø ù ú û ü ý þ ÿ
	"d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
	// U+0100: Ā ā Ă ă Ą ą Ć ć Ĉ ĉ Ċ ċ Č č Ď ď
	"a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c", "c", "c", "d", "d",
	// U+0110: Đ đ Ē ē Ĕ ĕ Ė ė Ę ę Ě ě Ĝ ĝ Ğ ğ
	"d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "g", "g", "g", "g",
	// U+0120: Ġ ġ Ģ ģ Ĥ ĥ Ħ ħ Ĩ ĩ Ī ī Ĭ ĭ Į į
	"g", "g", "g", "g", "h", "h", "h", "h", "i", "i", "i", "i", "i", "i", "i", "i",
	// U+0130: İ ı Ĳ ĳ Ĵ ĵ Ķ ķ ĸ Ĺ ĺ Ļ ļ Ľ ľ Ŀ
	"i", "i", "ij", "ij", "j", "j", "k", "k", "k", "l", "l", "l", "l", "l", "l", "l",
	// U+0140: ŀ Ł ł Ń ń Ņ ņ Ň ň ŉ Ŋ ŋ Ō ō Ŏ ŏ
	"l", "l", "l", "n", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o",
	// U+0150: Ő ő Œ œ Ŕ ŕ Ŗ ŗ Ř ř Ś ś Ŝ ŝ Ş ş
	"o", "o", "oe", "oe", "r", "r", "r", "r", "r", "r", "s", "s", "s", "s", "s", "s",
	// U+0160: Š š Ţ ţ Ť ť Ŧ ŧ Ũ ũ Ū ū Ŭ ŭ Ů ů
	"s", "s", "t", "t", "t", "t", "t", "t", "u", "u", "u", "u", "u", "u", "u", "u",
	// U+0170: Ű ű Ų ų Ŵ ŵ Ŷ ŷ Ÿ Ź ź Ż ż Ž ž ſ
	"u", "u", "u", "u", "w", "w", "y", "y", "y", "z", "z", "z", "z", "z", "z", "s",
}

// foldRune folds a non-ASCII rune. It returns either a replacement made of ASCII letters
// (repl != ""), or a single rune (out); out < 0 means the rune is dropped (a combining
// mark: the accent of a decomposed "a\u0301").
func foldRune(r rune) (repl string, out rune) {
	switch {
	case r >= 0xC0 && r < 0x180:
		if f := foldLatin[r-0xC0]; f != "" {
			return f, 0
		}
		return "", r
	case r == 'ª':
		return "a", 0
	case r == 'º':
		return "o", 0
	case r >= 0x300 && unicode.Is(unicode.Mn, r):
		return "", -1
	}
	return "", unicode.ToLower(r)
}

// isWordRune reports whether a folded non-ASCII rune belongs to a word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Fold returns s lower-cased with diacritics removed (the normal form used for comparing):
// the letters of Latin-1 and Latin Extended-A become their base letters ("Ñ" → "n",
// "ß" → "ss", "Æ" → "ae"), combining marks are dropped, other runes are lower-cased.
// Everything else (spaces, punctuation) is kept.
func Fold(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		repl, out := foldRune(r)
		switch {
		case repl != "":
			b.WriteString(repl)
		case out >= 0:
			b.WriteRune(out)
		}
	}
	return b.String()
}

// appendNorm appends to dst the normal form of s: the words of Fold(s) joined by single
// spaces. A word is a run of letters and digits; anything else separates words.
func appendNorm(dst []byte, s string) []byte {
	start := len(dst)
	sep := false // a separator was seen after the last word rune
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			default:
				sep = true
				continue
			}
			if sep && len(dst) > start {
				dst = append(dst, ' ')
			}
			sep = false
			dst = append(dst, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		repl, out := foldRune(r)
		switch {
		case repl != "":
		case out < 0:
			continue
		case !isWordRune(out):
			sep = true
			continue
		}
		if sep && len(dst) > start {
			dst = append(dst, ' ')
		}
		sep = false
		if repl != "" {
			dst = append(dst, repl...)
		} else {
			dst = utf8.AppendRune(dst, out)
		}
	}
	return dst
}

// pluralFold folds a normalized word to a singular-like form, by the rules of the package
// documentation: "…ces" → "…z"; "…es" after l, r, n, d, z, j, s, x or y → drop "es";
// other "…s" → drop "s"; words of up to 3 letters are kept.
func pluralFold(w string) string {
	n := len(w)
	if n < 4 || w[n-1] != 's' || utf8.RuneCountInString(w) <= 3 {
		return w
	}
	if w[n-2] == 'e' {
		switch w[n-3] {
		case 'c':
			return w[:n-3] + "z"
		case 'l', 'r', 'n', 'd', 'z', 'j', 's', 'x', 'y':
			return w[:n-2]
		}
	}
	return w[:n-1]
}
