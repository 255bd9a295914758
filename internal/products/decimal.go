package products

import (
	"math/big"
	"strconv"
	"strings"
)

// Amounts of a product are read exactly from their JSON text (api.Decimal), never through a
// float: 0.1 is one tenth, and a price with a seventh decimal is refused, not rounded.

// amountCheck is what is wrong with an amount.
type amountCheck int

const (
	amountOK amountCheck = iota
	amountNotNumber
	amountNegative
	amountTooManyDecimals
	amountTooLarge
)

// maxExponent bounds the exponent of a literal: beyond it a non-zero value has too many
// decimals or is too large anyway, and 1e999999999 costs nothing.
const maxExponent = 64

// maxIntegerDigits bounds the integer digits of a value read into a big.Rat: more is too large
// for any amount, whatever the literal's length.
const maxIntegerDigits = 30

// readAmount reads a JSON number literal with at most 6 decimals, from 0 to max (included). The
// literal is classified from its digits before any number is built, so a literal of megabytes
// costs one pass over its text.
func readAmount(text string, max *big.Rat) (*big.Rat, amountCheck) {
	neg := strings.HasPrefix(text, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(strings.TrimPrefix(text, "-")), "e")
	intPart, frac, hasDot := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (hasDot && frac == "") {
		return nil, amountNotNumber
	}
	intPart, frac = strings.TrimLeft(intPart, "0"), strings.TrimRight(frac, "0")
	// the significant digits, the point after len(intPart)+exp of them
	sig := strings.TrimRight(intPart+frac, "0")
	zero := sig == ""
	exp := 0
	if hasExp {
		t := strings.TrimPrefix(expText, "+")
		e, err := strconv.Atoi(t)
		if t == "" || !allDigits(strings.TrimPrefix(t, "-")) {
			return nil, amountNotNumber
		}
		switch {
		case zero:
			return new(big.Rat), amountOK
		case neg:
			return nil, amountNegative
		case err != nil || e < -maxExponent:
			if strings.HasPrefix(t, "-") {
				return nil, amountTooManyDecimals
			}
			return nil, amountTooLarge
		case e > maxExponent:
			return nil, amountTooLarge
		}
		exp = e
	}
	switch {
	case zero:
		return new(big.Rat), amountOK
	case neg:
		return nil, amountNegative
	case len(sig)-(len(intPart)+exp) > 6:
		return nil, amountTooManyDecimals
	case len(intPart)+exp > maxIntegerDigits:
		return nil, amountTooLarge
	}
	r, ok := new(big.Rat).SetString("0" + intPart + "." + frac + "0e" + strconv.Itoa(exp))
	if !ok {
		return nil, amountNotNumber
	}
	if r.Cmp(max) > 0 {
		return nil, amountTooLarge
	}
	return r, amountOK
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plain is an amount as stored and answered: no exponent, no trailing zeros ("100.5", "0").
func plain(r *big.Rat) string {
	s := r.FloatString(6)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// sixDecimals is a c_TasaOCuota value as SAT writes it: "0.160000".
func sixDecimals(r *big.Rat) string { return r.FloatString(6) }

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("products: bad constant " + s)
	}
	return r
}
