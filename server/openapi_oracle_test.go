package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// openAPIOracle holds an independent OpenAPI validator (npm @seriousme/openapi-schema-validator,
// which checks a document against the official OpenAPI 3.1 JSON Schemas).
var openAPIOracle = testpaths.Repo("testscripts", "compat", "openapi")

// TestOpenAPIOfficialSchema has the independent validator check the document served (written to
// a file as GET /api/v4/openapi.json answers it), and a broken copy to show it can fail. It
// needs node and `npm ci --prefix testscripts/compat/openapi`; it skips without them, unless
// TIMBRA_REQUIRE_COMPAT=1 (CI), where it fails.
func TestOpenAPIOfficialSchema(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(openAPIOracle, "node_modules", "@seriousme", "openapi-schema-validator", "package.json"))
	}
	if err != nil {
		msg := "needs node and the OpenAPI validator: run 'npm ci --prefix testscripts/compat/openapi' (" + err.Error() + ")"
		if os.Getenv("TIMBRA_REQUIRE_COMPAT") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "openapi.json")
	if err := os.WriteFile(good, OpenAPI(), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(path string) ([]byte, error) {
		cmd := exec.Command(node, "validate.mjs", path)
		cmd.Dir = openAPIOracle
		return cmd.CombinedOutput()
	}
	if out, err := run(good); err != nil {
		t.Fatalf("the OpenAPI document is not valid by the official schema: %v\n%s", err, out)
	}
	// an operation without responses is not OpenAPI 3.1: the oracle must say so
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"summary":"no description"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run(bad); err == nil {
		t.Fatalf("the oracle passed a broken document:\n%s", out)
	}
}
