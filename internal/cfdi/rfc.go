package cfdi

import (
	"regexp"
	"unicode/utf8"
)

// rfcPattern is t_RFC of SAT's CFDI schema: 3 letters for a moral person, 4 for a physical one,
// the date of birth or incorporation, and a three-character homoclave.
var rfcPattern = regexp.MustCompile(`^[A-Z&Ñ]{3,4}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[A-Z0-9]{2}[0-9A]$`)

// ValidRFC tells whether s has the shape of an RFC (t_RFC); it does not fold case.
func ValidRFC(s string) bool { return rfcPattern.MatchString(s) }

// ValidMoralRFC tells whether s is the RFC of a moral person (t_RFC_PM: 12 characters), the type
// of the Timbre Fiscal Digital's RfcProvCertif.
func ValidMoralRFC(s string) bool { return utf8.RuneCountInString(s) == 12 && ValidRFC(s) }
