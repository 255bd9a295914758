package webhooks

import (
	"os"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// TestCatalogIsDocumented keeps docs/events.md in step with Catalog.
func TestCatalogIsDocumented(t *testing.T) {
	raw, err := os.ReadFile(testpaths.Repo("docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for _, e := range Catalog {
		row := "| `" + e.Name + "` | " + e.RelatedType + " | `" + e.URLPrefix + "<id>` | `" + e.Status + "` | `" + e.PreviousStatus + "` | " + e.Description + " |"
		if !strings.Contains(doc, row) {
			t.Errorf("docs/events.md lacks the row\n%s", row)
		}
	}
	if n := strings.Count(doc, "\n| `"); n != len(Catalog) {
		t.Errorf("docs/events.md has %d type rows, the catalog %d", n, len(Catalog))
	}
}

func TestWithoutPersonNoPermission(t *testing.T) {
	err := requireManage(auth.Caller{TenantID: "t"})
	if err == nil || !strings.Contains(err.Error(), MsgNoPermission) {
		t.Fatalf("a caller without a person: %v", err)
	}
}

func TestSuggest(t *testing.T) {
	for _, c := range []struct {
		name        string
		triggerable bool
		want        string
	}{
		{"invoice.cancelled", true, "invoice.canceled"},
		{"invoice.stampd", true, "invoice.stamped"},
		{"Invoice.Canceled", true, "invoice.canceled"},
		{"canceled", true, "invoice.canceled"},
		{"cancellation_requested", true, "invoice.cancellation_requested"},
		{"invoice.cancelation_rejected", true, "invoice.cancellation_rejected"},
		{"webhook.tset", true, ""},
		{"webhook.tset", false, "webhook.test"},
		{"invoice.canceled", true, ""}, // a type: nothing to suggest
		{"customer.created", true, ""},
		{"", true, ""},
	} {
		if got := Suggest(c.name, c.triggerable); got != c.want {
			t.Errorf("Suggest(%q, %v) = %q, want %q", c.name, c.triggerable, got, c.want)
		}
	}
}
