package cfdi

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number with 6 fractional digits (the most any CFDI 4.0 amount,
// quantity or rate carries), held as an int64 count of millionths. Its range is about ±9.2
// trillion, far above any invoice; operations that would leave it report ErrOverflow. Money is
// never a float64 anywhere in this package.
type Decimal struct{ u int64 } // millionths

// Scale is the number of fractional digits a Decimal holds.
const Scale = 6

const unit = 1_000_000 // 10^Scale

var pow10 = [...]int64{1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
	1_000_000_000, 10_000_000_000, 100_000_000_000, 1_000_000_000_000}

// ErrOverflow: a value or a result beyond the range of Decimal.
var ErrOverflow = errors.New("cfdi: amount out of range")

// errSyntax: not a plain decimal number.
var errSyntax = errors.New("cfdi: not a decimal number with at most 6 fractional digits")

// Zero is 0.
var Zero Decimal

// NewDecimal is units + millionths/10^6, e.g. NewDecimal(12, 500000) = 12.5.
func NewDecimal(units, millionths int64) Decimal { return Decimal{units*unit + millionths} }

// FromInt is n.
func FromInt(n int64) Decimal { return Decimal{n * unit} }

// DecimalPattern is the text ParseDecimal reads, as a regular expression (for checks made
// elsewhere, a web page's as its user types): a sign, digits, and up to Scale decimals after a
// point, digits on at least one side. Values too large are ParseDecimal's alone to refuse.
const DecimalPattern = `^[+-]?([0-9]+(\.[0-9]{1,` + scaleText + `})?|\.[0-9]{1,` + scaleText + `})$`

const scaleText = "6"

// ParseDecimal reads a plain decimal number ("12", "-0.5", "1234.567890"): an optional sign,
// digits, and at most 6 fractional digits. No exponent, no grouping, no spaces.
func ParseDecimal(s string) (Decimal, error) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	ip, fp, dot := strings.Cut(s, ".")
	if ip == "" && fp == "" || len(fp) > Scale || dot && fp == "" {
		return Zero, errSyntax
	}
	var u uint64
	for i := 0; i < len(ip); i++ {
		c := ip[i]
		if c < '0' || c > '9' {
			return Zero, errSyntax
		}
		hi, lo := bits.Mul64(u, 10)
		if hi != 0 || lo > math.MaxInt64/unit {
			return Zero, ErrOverflow
		}
		u = lo + uint64(c-'0')
	}
	if u > math.MaxInt64/unit {
		return Zero, ErrOverflow
	}
	u *= unit
	var f uint64
	for i := 0; i < len(fp); i++ {
		c := fp[i]
		if c < '0' || c > '9' {
			return Zero, errSyntax
		}
		f = f*10 + uint64(c-'0')
	}
	f *= uint64(pow10[Scale-len(fp)])
	if u > math.MaxInt64-f {
		return Zero, ErrOverflow
	}
	v := int64(u + f)
	if neg {
		v = -v
	}
	return Decimal{v}, nil
}

// MustDecimal is ParseDecimal for constants; it panics on a bad literal.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic("cfdi.MustDecimal(" + strconv.Quote(s) + "): " + err.Error())
	}
	return d
}

// Millionths is the value as a count of millionths.
func (d Decimal) Millionths() int64 { return d.u }

// Sign is -1, 0 or 1.
func (d Decimal) Sign() int {
	switch {
	case d.u < 0:
		return -1
	case d.u > 0:
		return 1
	}
	return 0
}

// IsZero tells whether d is 0.
func (d Decimal) IsZero() bool { return d.u == 0 }

// Cmp is -1, 0 or 1 as d is less than, equal to or greater than e.
func (d Decimal) Cmp(e Decimal) int {
	switch {
	case d.u < e.u:
		return -1
	case d.u > e.u:
		return 1
	}
	return 0
}

// Neg is -d.
func (d Decimal) Neg() Decimal { return Decimal{-d.u} }

// Add is d+e; ok is false on overflow.
func (d Decimal) Add(e Decimal) (Decimal, bool) {
	s, ok := addInt(d.u, e.u)
	return Decimal{s}, ok
}

// Sub is d−e; ok is false on overflow.
func (d Decimal) Sub(e Decimal) (Decimal, bool) {
	if e.u == math.MinInt64 {
		return Zero, false
	}
	return d.Add(Decimal{-e.u})
}

func addInt(a, b int64) (int64, bool) {
	s := a + b
	if (a > 0 && b > 0 && s < 0) || (a < 0 && b < 0 && s >= 0) {
		return 0, false
	}
	return s, true
}

// MulRound is d×e rounded to places fractional digits (0–6), half away from zero, from the
// exact product (there is no intermediate rounding); ok is false on overflow.
func (d Decimal) MulRound(e Decimal, places int) (Decimal, bool) {
	if places < 0 || places > Scale {
		return Zero, false
	}
	neg := (d.u < 0) != (e.u < 0)
	hi, lo := bits.Mul64(absU(d.u), absU(e.u)) // exact, in 10^-12
	div := uint64(pow10[2*Scale-places])
	if hi >= div {
		return Zero, false
	}
	q, r := bits.Div64(hi, lo, div)
	if r >= div-r { // r ≥ div/2: half away from zero
		q++
	}
	if q > math.MaxInt64/uint64(pow10[Scale-places]) {
		return Zero, false
	}
	v := int64(q) * pow10[Scale-places]
	if neg {
		v = -v
	}
	return Decimal{v}, true
}

func absU(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // MinInt64 maps to 2^63, still exact as uint64
	}
	return uint64(v)
}

// Round is d rounded to places fractional digits (0–6), half away from zero.
func (d Decimal) Round(places int) Decimal {
	if places >= Scale {
		return d
	}
	if places < 0 {
		places = 0
	}
	p := pow10[Scale-places]
	q, r := d.u/p, d.u%p
	if r < 0 {
		r = -r
	}
	if 2*r >= p {
		if d.u < 0 {
			q--
		} else {
			q++
		}
	}
	return Decimal{q * p}
}

// Places is the number of fractional digits d needs (0–6): 12.50 needs 1.
func (d Decimal) Places() int {
	n := Scale
	for v := d.u; n > 0 && v%10 == 0; v /= 10 {
		n--
	}
	return n
}

// Fixed writes d with exactly places fractional digits (0–6), rounding half away from zero if
// d has more: Fixed(2) of 3.5 is "3.50", Fixed(0) of 12 is "12".
func (d Decimal) Fixed(places int) string {
	if places < 0 {
		places = 0
	}
	if places > Scale {
		places = Scale
	}
	d = d.Round(places)
	var b [32]byte
	s := b[:0]
	u := absU(d.u)
	if d.u < 0 {
		s = append(s, '-')
	}
	s = strconv.AppendUint(s, u/unit, 10)
	if places > 0 {
		f := strconv.FormatUint(u%unit+unit, 10)[1:] // 6 digits, leading zeros kept
		s = append(s, '.')
		s = append(s, f[:places]...)
	}
	return string(s)
}

// String writes d with the fractional digits it needs and no more ("12.5", "3", "0.106667").
func (d Decimal) String() string { return d.Fixed(d.Places()) }

// AtLeast writes d with max(min, d.Places()) fractional digits: a ValorUnitario of 8.62069 in
// pesos is "8.62069", one of 956.4 is "956.40".
func (d Decimal) AtLeast(min int) string { return d.Fixed(max(min, d.Places())) }
