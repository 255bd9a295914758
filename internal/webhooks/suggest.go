package webhooks

import (
	"fmt"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/suggest"
)

// Suggest answers the catalog's type nearest to a name that is not one, or "" when none is
// near: the same name in another case, a name whose last part is the one given
// ("canceled" → invoice.canceled), or one within a few edits (a third of the longer name's
// length, at least 2: "invoice.cancelled" → invoice.canceled). A name that is a type answers
// "". With triggerable, webhook.test is left out (the trigger refuses it).
func Suggest(name string, triggerable bool) string {
	if _, ok := Lookup(name); ok || strings.TrimSpace(name) == "" {
		return ""
	}
	low := strings.ToLower(strings.TrimSpace(name))
	best, bestDist := "", 0
	for _, t := range Catalog {
		if triggerable && t.Name == TypeTest {
			continue
		}
		if low == t.Name {
			return t.Name
		}
		if _, last, ok := strings.Cut(t.Name, "."); ok && low == last {
			return t.Name
		}
		d := suggest.Distance(low, t.Name)
		limit := max(2, max(len(low), len(t.Name))/3)
		if d <= limit && (best == "" || d < bestDist) {
			best, bestDist = t.Name, d
		}
	}
	return best
}

// Suggestion is the customState of a failure on an unknown event type: the nearest type, when
// one is near, and the types that are accepted there. The failure's errorMessage stays the
// spec's text.
type Suggestion struct {
	DidYouMean string   `json:"didYouMean,omitempty"`
	ValidTypes []string `json:"validTypes"`
}

// unknownType is the failure on property of an event type that is not in the catalog, its
// customState naming the nearest type and the valid ones.
func unknownType(property, name string, attempted any, triggerable bool) api.Failure {
	f := apierr.Field(property, fmt.Sprintf(MsgUnknownEventType, name), attempted, "", nil)
	valid := Names()
	if triggerable {
		valid = TriggerableNames()
	}
	f.CustomState = Suggestion{DidYouMean: Suggest(name, triggerable), ValidTypes: valid}
	return f
}

// TriggerableNames lists the types the trigger accepts: every type but webhook.test.
func TriggerableNames() []string {
	var out []string
	for _, t := range Catalog {
		if t.Name != TypeTest {
			out = append(out, t.Name)
		}
	}
	return out
}
