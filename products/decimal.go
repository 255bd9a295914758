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

// maxExponent bounds the exponent of a literal before big.Rat reads it: beyond it a non-zero
// value has too many decimals or is too large anyway, and 1e999999999 costs nothing.
const maxExponent = 64

var (
	micro   = big.NewRat(1_000_000, 1)
	zeroRat = new(big.Rat)
)

// readAmount reads a JSON number literal with at most 6 decimals, from 0 to max (included).
func readAmount(text string, max *big.Rat) (*big.Rat, amountCheck) {
	mant, exp, hasExp := strings.Cut(strings.ToLower(text), "e")
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			r, ok := new(big.Rat).SetString(mant)
			switch {
			case !ok:
				return nil, amountNotNumber
			case r.Sign() == 0:
				return zeroRat, amountOK
			case r.Sign() < 0:
				return nil, amountNegative
			case strings.HasPrefix(exp, "-"):
				return nil, amountTooManyDecimals
			}
			return nil, amountTooLarge
		}
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || text == "" || !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')) {
		return nil, amountNotNumber
	}
	if r.Sign() < 0 {
		return nil, amountNegative
	}
	if !new(big.Rat).Mul(r, micro).IsInt() {
		return nil, amountTooManyDecimals
	}
	if r.Cmp(max) > 0 {
		return nil, amountTooLarge
	}
	return r, amountOK
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
