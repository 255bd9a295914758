package products

import (
	"math/big"
	"strings"
	"testing"
)

func TestReadAmount(t *testing.T) {
	max := mustRat("999999999999999999.999999")
	for _, c := range []struct {
		in    string
		want  amountCheck
		plain string
	}{
		{"0", amountOK, "0"},
		{"-0", amountOK, "0"},
		{"100.50", amountOK, "100.5"},
		{"0.000001", amountOK, "0.000001"},
		{"1.5e3", amountOK, "1500"},
		{"1E-6", amountOK, "0.000001"},
		{"999999999999999999.999999", amountOK, "999999999999999999.999999"},
		{"0.1", amountOK, "0.1"},
		{"0e999999999999", amountOK, "0"},
		{"0.0000001", amountTooManyDecimals, ""},
		{"1e-7", amountTooManyDecimals, ""},
		{"1e-999999999999", amountTooManyDecimals, ""},
		{"1000000000000000000", amountTooLarge, ""},
		{"999999999999999999.9999991", amountTooManyDecimals, ""},
		{"1e999999999", amountTooLarge, ""},
		{"-0.01", amountNegative, ""},
		{"-1e999999999", amountNegative, ""},
		{"1e99999999999999999999", amountTooLarge, ""},
		{"1e-99999999999999999999", amountTooManyDecimals, ""},
		{"12.500000000000000000000000", amountOK, "12.5"},
		{"1" + strings.Repeat("0", 1<<20), amountTooLarge, ""},
		{"0." + strings.Repeat("0", 1<<20) + "1", amountTooManyDecimals, ""},
		{"0." + strings.Repeat("0", 1<<20), amountOK, "0"},
		{"123456789012345678.123456", amountOK, "123456789012345678.123456"},
		{"0.000123e3", amountOK, "0.123"},
		{"100E-7", amountOK, "0.00001"},
		{"1000E-9", amountOK, "0.000001"},
		{"1000E-10", amountTooManyDecimals, ""},
	} {
		r, got := readAmount(c.in, max)
		if got != c.want {
			t.Errorf("%s: %v, want %v", c.in, got, c.want)
			continue
		}
		if got == amountOK && plain(r) != c.plain {
			t.Errorf("%s: plain %s, want %s", c.in, plain(r), c.plain)
		}
	}
}

func TestCheckTax(t *testing.T) {
	rat := func(s string) *big.Rat {
		if s == "" {
			return nil
		}
		return mustRat(s)
	}
	for _, c := range []struct {
		tax, factor, flag, rate string
		prop, msgPart, text     string
	}{
		{"002", "Tasa", "T", "0.16", "", "", "0.160000"},
		{"002", "Tasa", "T", "0.08", "", "", "0.080000"},
		{"002", "Tasa", "T", "0", "", "", "0.000000"},
		{"002", "Tasa", "T", "0.15", "Rate", "usa 0.000000, 0.080000 o 0.160000", ""},
		{"002", "Tasa", "T", "", "Rate", MsgRateRequired, ""},
		{"002", "Tasa", "R", "0.106667", "", "", "0.106667"},
		{"002", "Tasa", "R", "0.160001", "Rate", "de 0.000000 a 0.160000", ""},
		{"002", "Cuota", "T", "1", "TaxTypeId", "no tiene IVA con tipo factor Cuota trasladado", ""},
		{"002", "Exento", "T", "", "", "", ""},
		{"002", "Exento", "T", "0", "", "", ""},
		{"002", "Exento", "T", "0.16", "Rate", "no lleva tasa", ""},
		{"002", "Exento", "R", "", "TaxTypeId", MsgExentoWithheld, ""},
		{"001", "Tasa", "R", "0.1", "", "", "0.100000"},
		{"001", "Tasa", "R", "0.35", "", "", "0.350000"},
		{"001", "Tasa", "R", "0.36", "Rate", "de 0.000000 a 0.350000", ""},
		{"001", "Tasa", "T", "0.1", "TaxFlagId", MsgISRWithheldOnly, ""},
		{"001", "Exento", "T", "", "TaxFlagId", MsgISRWithheldOnly, ""},
		{"001", "Cuota", "R", "1", "TaxTypeId", "no tiene ISR con tipo factor Cuota retenido", ""},
		{"003", "Tasa", "T", "0.265", "", "", "0.265000"},
		{"003", "Tasa", "T", "0.03", "", "", "0.030000"},
		{"003", "Tasa", "R", "0.03", "Rate", "0.030000", ""},
		{"003", "Tasa", "R", "1.6", "", "", "1.600000"},
		{"003", "Cuota", "T", "72.1605", "", "", "72.160500"},
		{"003", "Cuota", "R", "12.5", "", "", "12.500000"},
		{"003", "Cuota", "T", "", "Rate", MsgRateRequired, ""},
		{"003", "Exento", "T", "", "", "", ""},
	} {
		prop, msg, text := CheckTax(c.tax, c.factor, c.flag, rat(c.rate))
		if prop != c.prop || !strings.Contains(msg, c.msgPart) || (c.prop == "") != (msg == "") || text != c.text {
			t.Errorf("%s %s %s %q: (%q, %q, %q), want (%q, …%q…, %q)", c.tax, c.factor, c.flag, c.rate, prop, msg, text, c.prop, c.msgPart, c.text)
		}
	}
}

// FuzzReadAmount checks readAmount against big.Rat on whatever JSON number text it is given: an
// accepted amount is the literal's exact value, 0 to the maximum, with at most 6 decimals; a
// refused one is refused for a true reason.
func FuzzReadAmount(f *testing.F) {
	for _, s := range []string{"0", "12.5", "1e-6", "1.0000001", "-1", "1e18", "999999999999999999.999999", "0.000123e3"} {
		f.Add(s)
	}
	max := mustRat("999999999999999999.999999")
	micro := big.NewRat(1_000_000, 1)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 || !jsonNumberText(s) {
			return
		}
		if _, exp, ok := strings.Cut(strings.ToLower(s), "e"); ok && len(strings.TrimLeft(exp, "+-0")) > 3 {
			return // big.Rat would build 10^exp; readAmount's own tests cover huge exponents
		}
		want, ok := new(big.Rat).SetString(s)
		if !ok {
			return
		}
		got, check := readAmount(s, max)
		scaled := new(big.Rat).Mul(want, micro)
		switch check {
		case amountOK:
			if got.Cmp(want) != 0 || want.Sign() < 0 || want.Cmp(max) > 0 || !scaled.IsInt() {
				t.Fatalf("%s accepted as %s", s, got.RatString())
			}
		case amountNegative:
			if want.Sign() >= 0 {
				t.Fatalf("%s refused as negative", s)
			}
		case amountTooManyDecimals:
			if scaled.IsInt() {
				t.Fatalf("%s refused for its decimals", s)
			}
		case amountTooLarge:
			if want.Cmp(max) <= 0 {
				t.Fatalf("%s refused as too large", s)
			}
		default:
			t.Fatalf("%s: %v", s, check)
		}
	})
}

// jsonNumberText tells whether s is a JSON number literal (what the decoder lets through).
func jsonNumberText(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || (s[start] == '0' && i-start > 1) {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		d := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(s)
}
