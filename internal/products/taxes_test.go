package products

import "testing"

// TestRoundRate: a rate with more than 6 decimals is written with 6, halves away from zero,
// exactly; anything else is left to the checks.
func TestRoundRate(t *testing.T) {
	for in, want := range map[string]string{
		"0.10666666666": "0.106667", // two thirds of IVA, as the official client's example sends it
		"0.1066665":     "0.106667", // a half: away from zero
		"0.1066664999":  "0.106666",
		"-0.0000005":    "-0.000001",
		"0.160000":      "0.160000", // 6 decimals: as sent
		"0.16":          "0.16",
		"16":            "16",
		"abc.1234567":   "abc.1234567", // not a number: as sent, for the checks
		"1.0666666e-1":  "1.0666666e-1",
		" 0.12345678 ":  "0.123457",
	} {
		if got := RoundRate(in); got != want {
			t.Errorf("RoundRate(%q) = %q, want %q", in, got, want)
		}
	}
}
