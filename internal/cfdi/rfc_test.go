package cfdi

import "testing"

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
