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
