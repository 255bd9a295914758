package cfdi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestValidRFC(t *testing.T) {
	for rfc, want := range map[string]bool{
		"EKU9003173C9": true, "XAXX010101000": true, "LOAA800101AB1": true, "AÑO010101AA1": true, "&AB010101AAA": true,
		"eku9003173C9": false, "EKU9013173C9": false, "EKU9003323C9": false, "EK9003173C9": false, "EKU9003173C9X": false, "": false,
	} {
		if got := ValidRFC(rfc); got != want {
			t.Errorf("ValidRFC(%q) = %v, want %v", rfc, got, want)
		}
	}
}

func TestValidMoralRFC(t *testing.T) {
	for rfc, want := range map[string]bool{
		"EKU9003173C9": true, "TIM260101TB1": true, "AÑO010101AA1": true, "&AB010101AAA": true,
		"XAXX010101000": false, "LOAA800101AB1": false, "EK9003173C9": false, "eku9003173C9": false, "": false,
	} {
		if got := ValidMoralRFC(rfc); got != want {
			t.Errorf("ValidMoralRFC(%q) = %v, want %v", rfc, got, want)
		}
	}
}
func TestCheckRFC(t *testing.T) {
	for _, c := range []struct {
		name, rfc string
		want      error // nil, ErrRFCFormat or ErrRFCDate
	}{
		{"moral, SAT's test CSD", "EKU9003173C9", nil},
		{"moral, SAT", "SAT970701NN3", nil},
		{"physical", "COSC8001137NA", nil},
		{"generic, public in general", RFCGeneric, nil},
		{"generic, foreign resident", RFCForeign, nil},
		{"Ñ", "AÑÑ801231JK0", nil},
		{"&", "A&A050908GT0", nil},
		{"check digit SAT's algorithm does not give (Banco Santander México)", "BSM970519DU8", nil},
		{"check digit SAT's algorithm does not give (SAT's test CSD09)", "AAA010101AAA", nil},
		{"29 February of a leap year", "GODE000229AB1", nil},
		{"29 February of 1996 or 2096", "GOD960229AB1", nil},
		{"31 December", "GODE561231GR8", nil},
		{"29 February of a common year", "GODE010229AB1", ErrRFCDate},
		{"29 February, moral", "GOD990229AB1", ErrRFCDate},
		{"30 February", "GODE000230AB1", ErrRFCDate},
		{"31 April", "GODE560431AB1", ErrRFCDate},
		{"31 June", "GOD560631AB1", ErrRFCDate},
		{"31 September", "GODE560931AB1", ErrRFCDate},
		{"31 November", "GODE561131AB1", ErrRFCDate},
		{"month 13", "EKU9013173C9", ErrRFCFormat},
		{"month 00", "EKU9000173C9", ErrRFCFormat},
		{"day 32", "EKU9003323C9", ErrRFCFormat},
		{"day 00", "EKU9003003C9", ErrRFCFormat},
		{"lower case", "eku9003173c9", ErrRFCFormat},
		{"short", "EK9003173C9", ErrRFCFormat},
		{"long", "EKU9003173C9X", ErrRFCFormat},
		{"empty", "", ErrRFCFormat},
		{"spaces", " EKU9003173C9", ErrRFCFormat},
	} {
		err := CheckRFC(c.rfc)
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: CheckRFC(%q) = %v, want nil", c.name, c.rfc, err)
			}
			continue
		}
		var re *RFCError
		if !errors.Is(err, c.want) || !errors.As(err, &re) || re.RFC != c.rfc {
			t.Errorf("%s: CheckRFC(%q) = %#v, want an *RFCError of %v", c.name, c.rfc, err, c.want)
		}
	}
}

func TestCheckRFCTexts(t *testing.T) {
	for rfc, want := range map[string]string{
		"GODE000230AB1": "El RFC 'GODE000230AB1' no es válido: su fecha 000230 (AAMMDD) no existe en el calendario.",
		"GOD010229AB1":  "El RFC 'GOD010229AB1' no es válido: su fecha 010229 (AAMMDD) no existe en el calendario.",
		"EKU9013173C9":  "El RFC 'EKU9013173C9' no tiene un formato válido.",
		"ABC":           "El RFC 'ABC' no tiene un formato válido.",
	} {
		if err := CheckRFC(rfc); err == nil || err.Error() != want {
			t.Errorf("CheckRFC(%q) = %v, want %q", rfc, err, want)
		}
	}
}

// TestRFCCheckDigit: SAT's algorithm against RFCs whose digit is known (SAT's test RFCs, the
// generic ones, phpcfdi/rfc's and python-stdnum's vectors), and RFCs whose digit it does not give.
func TestRFCCheckDigit(t *testing.T) {
	for _, rfc := range []string{
		"EKU9003173C9", "SAT970701NN3", "VADA800927DJ3", "SPR190613I52", "ISD950921HE5", "COSC8001137NA", "MIML911119PJ8",
		"HEGT7610034S2", "CVD110412TF6", "URE180429TM6", "FUNK671228PH6", "CACX7605101P8", "XIQB891116QE4", RFCForeign,
		"CAMA911215CJ0", "SORC591116FJ6", "DIM8701081LA", "A&A050908GT0", "AÑÑ801231JK0", "GODE561231GR8", "MAB9307148T4",
		"BBA830831LJ2",
	} {
		last, _ := utf8.DecodeLastRuneInString(rfc)
		if d, ok := RFCCheckDigit(rfc); !ok || rune(d) != last {
			t.Errorf("RFCCheckDigit(%q) = %q, %v; want %q", rfc, d, ok, last)
		}
	}
	for rfc, want := range map[string]byte{
		RFCGeneric: '4', "BSM970519DU8": '2', "MCI7306249Y1": '6', "AAA010101AAA": '1', "VACE460910SX6": '5',
		"EKU9003173C8": '9', "EKU9003173CA": '9', "AÑO010101AA1": '5', "ÑAÑ&010101A12": '9',
	} {
		if d, ok := RFCCheckDigit(rfc); !ok || d != want {
			t.Errorf("RFCCheckDigit(%q) = %q, %v; want %q", rfc, d, ok, want)
		}
	}
	for _, s := range []string{"", "ABC", "eku9003173c9", "EKU9003173C9X"} {
		if d, ok := RFCCheckDigit(s); ok {
			t.Errorf("RFCCheckDigit(%q) = %q, true; want false", s, d)
		}
	}
}

// TestRFCCheckDigitEveryCharacter: RFCCheckDigit equals SAT's algorithm written from its table
// ("0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ", a character's value is its place) for every
// character each position takes, in RFCs of both lengths.
func TestRFCCheckDigitEveryCharacter(t *testing.T) {
	table := []rune("0123456789ABCDEFGHIJKLMN&OPQRSTUVWXYZ Ñ")
	reference := func(rfc string) byte {
		rs := []rune(rfc)
		body := []rune(strings.Repeat(" ", 13-len(rs)) + string(rs[:len(rs)-1]))
		sum := 0
		for i, r := range body {
			for v, c := range table {
				if c == r {
					sum += v * (13 - i)
				}
			}
		}
		switch r := sum % 11; {
		case r == 0:
			return '0'
		case 11-r == 10:
			return 'A'
		default:
			return byte('0' + 11 - r)
		}
	}
	letters, homoclave := "ABCDEFGHIJKLMN&OPQRSTUVWXYZÑ", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for _, base := range []string{"XYZ010101AB0", "WXYZ010101AB0"} {
		n := utf8.RuneCountInString(base)
		for pos := 0; pos < n-1; pos++ {
			chars := letters
			switch {
			case pos >= n-3:
				chars = homoclave
			case pos >= n-9:
				continue // the date, checked by the vectors above
			}
			for _, c := range chars {
				rs := []rune(base)
				rs[pos] = c
				rfc := string(rs)
				if d, ok := RFCCheckDigit(rfc); !ok || d != reference(rfc) {
					t.Errorf("RFCCheckDigit(%q) = %q, %v; SAT's table gives %q", rfc, d, ok, reference(rfc))
				}
			}
		}
	}
	if d, _ := RFCCheckDigit("WXYZ010101AB0"); d != '9' { // 1652 mod 11 = 2, 11-2
		t.Errorf("WXYZ010101AB: %q", d)
	}
}

// FuzzCheckRFC: CheckRFC and RFCCheckDigit never panic; what CheckRFC accepts is t_RFC-shaped
// and has a digit; what it refuses is an *RFCError naming the string.
func FuzzCheckRFC(f *testing.F) {
	for _, s := range []string{"EKU9003173C9", "AÑÑ801231JK0", "GODE000230AB1", "XAXX010101000", "Ñ", "\xff\xfe", strings.Repeat("Ñ", 13), "AAA01010\xd1AAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckRFC(s)
		d, shaped := RFCCheckDigit(s)
		if shaped != ValidRFC(s) {
			t.Fatalf("RFCCheckDigit(%q) shaped %v, ValidRFC %v", s, shaped, ValidRFC(s))
		}
		if shaped && !strings.ContainsRune("0123456789A", rune(d)) {
			t.Fatalf("RFCCheckDigit(%q) = %q", s, d)
		}
		if err == nil {
			if !shaped {
				t.Fatalf("CheckRFC(%q) accepts what is not shaped as an RFC", s)
			}
			return
		}
		var re *RFCError
		if !errors.As(err, &re) || re.RFC != s || !strings.Contains(err.Error(), fmt.Sprintf("'%s'", s)) {
			t.Fatalf("CheckRFC(%q) = %v", s, err)
		}
		if errors.Is(err, ErrRFCDate) && !shaped {
			t.Fatalf("CheckRFC(%q): a date failure of what is not shaped as an RFC", s)
		}
	})
}
