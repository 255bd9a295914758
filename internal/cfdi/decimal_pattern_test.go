package cfdi

import (
	"regexp"
	"testing"
)

// TestDecimalPattern: the pattern given to web pages reads what ParseDecimal reads.
func TestDecimalPattern(t *testing.T) {
	re := regexp.MustCompile(DecimalPattern)
	for _, s := range []string{"0", "39", "39.0", "39.00", "1160.000001", ".5", "+1", "-2.5", "", ".", "5.", "1.2345678", "1,5", "1e3", " 1", "abc", "--1"} {
		_, err := ParseDecimal(s)
		if re.MatchString(s) != (err == nil) {
			t.Errorf("%q: pattern %v, ParseDecimal %v", s, re.MatchString(s), err)
		}
	}
	if scaleText != "6" || Scale != 6 {
		t.Fatal("scaleText is Scale")
	}
}
