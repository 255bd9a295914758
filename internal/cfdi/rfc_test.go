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
