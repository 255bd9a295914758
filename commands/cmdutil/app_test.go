package cmdutil

import (
	"testing"

	"github.com/urfave/cli/v2"
)

func TestClosestCommand(t *testing.T) {
	cs := []*cli.Command{{Name: "people"}, {Name: "login"}, {Name: "logout"}, {Name: "secret", Hidden: true}}
	for in, want := range map[string]string{"peple": "people", "logni": "login", "bogus": "", "secrt": "", "admin": ""} {
		if got := closestCommand(cs, in); got != want {
			t.Errorf("closestCommand(%q) = %q, want %q", in, got, want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"SatTaxRegimes", "SatTaxRegimeTypes", "SatInvoiceTypes", "SatProductCodes", "SatCurrencies", "api-keys", "people"}
	for in, want := range map[string]string{
		"SatTaxRegime":    "SatTaxRegimes",   // one edit
		"sattaxregimes":   "SatTaxRegimes",   // case only
		"SatInvoceTypes":  "SatInvoiceTypes", // a letter missing
		"ProductCodes":    "SatProductCodes", // the only name that holds it
		"Types":           "",                // held by more than one
		"SatTaxRegimes":   "",                // the name itself
		"Nothing":         "",
		"key":             "", // too short to be looked for inside names
		"peopel":          "people",
		"SatTaxRegimesXY": "SatTaxRegimes",
	} {
		if got := Suggest(names, in); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
