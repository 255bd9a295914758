package employment

import (
	"strconv"
	"strings"
)

// MaxAmount is the largest employer and employee amount (spec 1 §8, spec 2 §2.2, §2.3).
const MaxAmount = "999999999999.999999"

// maxScale is how many decimal places an amount keeps, as a .NET decimal does: a longer
// fraction is rounded (half away from zero) when stored.
const maxScale = 28

// decimal is a JSON number read exactly: value = sign × 0.digits × 10^exp, digits without
// leading or trailing zeros (empty for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// parseDecimal reads a JSON number literal. It never builds a number of the literal's size, so a
// huge exponent costs nothing; ok is false for text that is not a JSON number.
func parseDecimal(s string) (d decimal, ok bool) {
	rest := s
	if strings.HasPrefix(rest, "-") {
		d.neg, rest = true, rest[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ReplaceAll(rest, "E", "e"), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (strings.Contains(mant, ".") && frac == "") {
		return decimal{}, false
	}
	exp := 0
	if hasExp {
		sgn, t := 1, expText
		if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
			if t[0] == '-' {
				sgn = -1
			}
			t = t[1:]
		}
		if t == "" || !allDigits(t) {
			return decimal{}, false
		}
		if t = strings.TrimLeft(t, "0"); len(t) > 9 {
			exp = sgn << 30 // beyond any bound; the value is 0 or out of range either way
		} else if t != "" {
			e, _ := strconv.Atoi(t)
			exp = sgn * e
		}
	}
	all := intPart + frac
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	digits := strings.TrimRight(all[lead:], "0")
	if digits == "" {
		return decimal{neg: d.neg}, true
	}
	// intPart+frac as 0.all × 10^len(intPart); dropping lead zeros lowers the exponent
	d.digits = digits
	d.exp = clampAdd(len(intPart)-lead, exp)
	return d, true
}

func clampAdd(a, b int) int {
	const lim = 1 << 30
	s := a + b
	if s > lim {
		return lim
	}
	if s < -lim {
		return -lim
	}
	return s
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (d decimal) zero() bool { return d.digits == "" }

// cmpAbs compares |a| and |b|.
func cmpAbs(a, b decimal) int {
	switch {
	case a.zero() && b.zero():
		return 0
	case a.zero():
		return -1
	case b.zero():
		return 1
	case a.exp != b.exp:
		if a.exp > b.exp {
			return 1
		}
		return -1
	}
	n := max(len(a.digits), len(b.digits))
	x := a.digits + strings.Repeat("0", n-len(a.digits))
	y := b.digits + strings.Repeat("0", n-len(b.digits))
	return strings.Compare(x, y)
}

var maxAmount, _ = parseDecimal(MaxAmount)

// amountRange tells whether an amount is below 0 (-1), above MaxAmount (1) or within (0).
func amountRange(d decimal) int {
	if d.zero() {
		return 0
	}
	if d.neg {
		return -1
	}
	if cmpAbs(d, maxAmount) > 0 {
		return 1
	}
	return 0
}

// text is the stored form of a number: the literal itself when it is plain (no exponent, at
// most maxScale places), else its plain decimal form rounded to maxScale places. Only amounts
// within range reach it, so the integer part is short.
func (d decimal) text(literal string) string {
	if !strings.ContainsAny(literal, "eE") {
		if _, frac, _ := strings.Cut(literal, "."); len(frac) <= maxScale {
			if d.zero() {
				return strings.TrimPrefix(literal, "-")
			}
			return literal
		}
	}
	if d.zero() || d.exp < -maxScale {
		return "0"
	}
	// integer digits: the first exp digits (padded); fraction: the rest, rounded to maxScale
	var intPart, frac string
	if d.exp > 0 {
		ds := d.digits + strings.Repeat("0", max(0, d.exp-len(d.digits)))
		intPart, frac = ds[:d.exp], ds[d.exp:]
	} else {
		intPart, frac = "0", strings.Repeat("0", -d.exp)+d.digits
	}
	if len(frac) > maxScale {
		up := frac[maxScale] >= '5'
		frac = frac[:maxScale]
		if up {
			intPart, frac = roundUp(intPart, frac)
		}
	}
	frac = strings.TrimRight(frac, "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if out == "0" {
		return out
	}
	return sign(d.neg) + out
}

func sign(neg bool) string {
	if neg {
		return "-"
	}
	return ""
}

// roundUp adds one unit in the last place of intPart.frac.
func roundUp(intPart, frac string) (string, string) {
	b := []byte(intPart + frac)
	i := len(b) - 1
	for ; i >= 0; i-- {
		if b[i] == '9' {
			b[i] = '0'
			continue
		}
		b[i]++
		break
	}
	s := string(b)
	if i < 0 {
		s = "1" + s
	}
	n := len(s) - len(frac)
	return s[:n], s[n:]
}
