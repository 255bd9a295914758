package cmdutil

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

func TestClosestCommand(t *testing.T) {
	cs := []*cli.Command{{Name: "people"}, {Name: "login"}, {Name: "logout"}, {Name: "secret", Hidden: true}}
	for in, want := range map[string]string{"peple": "people", "logni": "login", "bogus": "", "secrt": "", "admin": ""} {
		if got := closestCommand(cs, in); got != want {
			t.Errorf("closestCommand(%q) = %q, want %q", in, got, want)
		}
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

// TestSuggestionsAreHints: a failure whose customState names the nearest value is printed
// with "did you mean" after the API's lines, explained or not.
func TestSuggestionsAreHints(t *testing.T) {
	f := NewFactory(&IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	fl := api.Failure{PropertyName: "EnabledEvents[0]", ErrorMessage: "El tipo de evento 'invoice.stampd' no existe.",
		CustomState: map[string]any{"didYouMean": "invoice.stamped", "validTypes": []any{"invoice.stamped"}}}
	for _, err := range []error{
		&api.Error{Status: 400, Failures: []api.Failure{fl}},
		Explain(&api.Error{Status: 400, Failures: []api.Failure{fl}}, Sources{"EnabledEvents": "--events"}),
	} {
		f.IO.Err.(*bytes.Buffer).Reset()
		if code := f.ExitCode(context.Background(), err); code != 1 {
			t.Errorf("exit code %d", code)
		}
		got := f.IO.Err.(*bytes.Buffer).String()
		if !strings.HasSuffix(got, "no existe.\nhint: did you mean invoice.stamped?\n") && !strings.HasSuffix(got, "no existe. (--events)\nhint: did you mean invoice.stamped?\n") {
			t.Errorf("stderr %q", got)
		}
	}
}
