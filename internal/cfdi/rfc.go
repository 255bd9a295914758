package cfdi

import (
	"errors"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// rfcPattern is t_RFC of SAT's CFDI schema: 3 letters for a moral person, 4 for a physical one,
// the date of birth or incorporation, and a three-character homoclave.
var rfcPattern = regexp.MustCompile(RFCPattern)

// RFCPattern is t_RFC's shape as a regular expression (for checks made elsewhere, a web page's
// as its user types; CheckRFC also checks the date).
const RFCPattern = `^[A-Z&Ñ]{3,4}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[A-Z0-9]{2}[0-9A]$`

// ValidRFC tells whether s has the shape of an RFC (t_RFC); it does not fold case.
func ValidRFC(s string) bool { return rfcPattern.MatchString(s) }

// ValidMoralRFC tells whether s is the RFC of a moral person (t_RFC_PM: 12 characters), the type
// of the Timbre Fiscal Digital's RfcProvCertif.
func ValidMoralRFC(s string) bool { return utf8.RuneCountInString(s) == 12 && ValidRFC(s) }

// SAT's generic RFCs: the public in general and a foreign resident without an RFC. Both pass
// CheckRFC; XAXX010101000 does not follow the check digit (RFCCheckDigit gives 4).
const (
	RFCGeneric = "XAXX010101000"
	RFCForeign = "XEXX010101000"
)

// The texts of an RFC that CheckRFC refuses, in the API's Spanish: the RFC, and for a date the
// date as written in it.
const (
	MsgRFCFormat = "El RFC '%s' no tiene un formato válido."
	MsgRFCDate   = "El RFC '%s' no es válido: su fecha %s (AAMMDD) no existe en el calendario."
)

// The reasons of CheckRFC's failures, for errors.Is.
var (
	ErrRFCFormat = errors.New("not shaped as an RFC (t_RFC)")
	ErrRFCDate   = errors.New("the RFC's date is not a day of the calendar")
)

// RFCError is an RFC that CheckRFC refuses and why; Error is the API's text.
type RFCError struct {
	RFC    string
	Reason error // ErrRFCFormat or ErrRFCDate
}

func (e *RFCError) Error() string {
	if e.Reason == ErrRFCDate {
		return fmt.Sprintf(MsgRFCDate, e.RFC, rfcDate(e.RFC))
	}
	return fmt.Sprintf(MsgRFCFormat, e.RFC)
}

func (e *RFCError) Unwrap() error { return e.Reason }

// CheckRFC is the rule for every RFC the API takes (it does not fold case): the shape of t_RFC,
// and a date (YYMMDD, the birth or incorporation) that is a day of the calendar. The year names
// no century, so 29 February is a day when YY is a multiple of 4 (00 included: 2000 was a leap
// year). SAT's generic RFCs pass.
//
// The check digit (the last character, RFCCheckDigit) is not part of the rule: RFCs that SAT
// issued and accepts carry one that SAT's own algorithm does not give, so refusing them would
// refuse real taxpayers: Banco Santander México's BSM970519DU8 (in real CFDIs, and the official
// client's example of a payment's bank), the recipient of SAT's sample CFDI (MCI7306249Y1), the
// RFC of SAT's test CSD CSD09_AAA010101AAA, and the generic XAXX010101000; python-stdnum, which
// leaves the check off by default, estimates ~1.5% of the RFCs in use. SAT itself, when it
// stamps, looks a recipient's RFC up in its list of registered taxpayers and never checks the
// digit. An impossible date, by contrast, is in no RFC SAT issued.
func CheckRFC(s string) error {
	if !ValidRFC(s) {
		return &RFCError{RFC: s, Reason: ErrRFCFormat}
	}
	d := rfcDate(s)
	yy, mm, dd := num2(d[0:2]), num2(d[2:4]), num2(d[4:6])
	days := [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[mm]
	if mm == 2 && yy%4 != 0 {
		days = 28
	}
	if dd > days {
		return &RFCError{RFC: s, Reason: ErrRFCDate}
	}
	return nil
}

// rfcDate is the YYMMDD of an RFC shaped as t_RFC: the six digits before the homoclave.
func rfcDate(s string) string {
	n := len(s)
	if n < 9 {
		return ""
	}
	return s[n-9 : n-3]
}

func num2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// rfcDigitValue is the value of each character in SAT's check-digit algorithm: '0'-'9' are 0-9,
// 'A'-'N' 10-23, '&' 24, 'O'-'Z' 25-36, the space 37 and 'Ñ' 38.
func rfcDigitValue(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'A' && r <= 'N':
		return int(r-'A') + 10
	case r == '&':
		return 24
	case r >= 'O' && r <= 'Z':
		return int(r-'O') + 25
	case r == 'Ñ':
		return 38
	}
	return 37 // the space that pads a moral person's RFC
}

// RFCCheckDigit is the check digit SAT's algorithm gives for s's other characters, and false when
// s is not shaped as an RFC. The RFC without its last character is padded to 12 characters with a
// leading space (a moral person's has 11); each character's value (rfcDigitValue) is weighted 13
// down to 2 and summed; with r the sum modulo 11, the digit is '0' when r is 0, 'A' when 11-r is
// 10, else 11-r. It is not part of CheckRFC (see there); tests use it to make valid RFCs.
func RFCCheckDigit(s string) (byte, bool) {
	if !ValidRFC(s) {
		return 0, false
	}
	sum, weight := 0, 13
	if utf8.RuneCountInString(s) == 12 {
		sum, weight = rfcDigitValue(' ')*13, 12
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	for _, r := range s[:len(s)-utf8.RuneLen(last)] {
		sum += rfcDigitValue(r) * weight
		weight--
	}
	switch r := sum % 11; r {
	case 0:
		return '0', true
	case 1:
		return 'A', true
	default:
		return byte('0' + 11 - r), true
	}
}
