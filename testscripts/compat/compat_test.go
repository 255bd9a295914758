// Package compat checks wire compatibility with existing clients of the service: the official
// fiscalapi npm package runs its calls against a real timbra server.
package compat

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/server"
)

// TestFiscalapiClient needs node and `npm ci --prefix testscripts/compat/fiscalapi`; it skips without them,
// unless TIMBRA_REQUIRE_COMPAT=1 (CI), where it fails.
func TestFiscalapiClient(t *testing.T) {
	node := nodeOrSkip(t)
	s, _, hs := newServer(t, server.Config{})
	creds, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(node, "--test", "--test-reporter=spec", "people.test.mjs", "catalogs.test.mjs", "credentials.test.mjs", "employment.test.mjs", "taxfiles.test.mjs", "products.test.mjs", "invoices.test.mjs", "satvalidations.test.mjs", "downloadrules.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(os.Environ(),
		"TIMBRA_BASE_URL="+hs.URL, "TIMBRA_TENANT_KEY="+creds.TenantKey,
		"TIMBRA_API_KEY="+creds.APIKey, "TIMBRA_PERSON_ID="+creds.PersonID)
	cmd.Env = append(cmd.Env, credentialsTenant(t, s)...)
	cmd.Env = append(cmd.Env, taxFilesTenant(t, s)...)
	cmd.Env = append(cmd.Env, downloadRulesTenant(t, s)...)
	invoicesEnv := invoicesTenant(t, s, t.TempDir())
	cmd.Env = append(cmd.Env, invoicesEnv...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}
	if out := invoicesEnv[len(invoicesEnv)-1]; strings.HasPrefix(out, "TIMBRA_INV_OUT=") {
		verifyInvoiceXMLs(t, s, strings.TrimPrefix(out, "TIMBRA_INV_OUT="), 3)
	}
}

// TestFiscalapiDownloadRequests: the official client's downloadRequests drives a bulk download
// from create to the package, and update, search and searchByDate, against a server whose
// worker talks to a local SAT (SAT's test e.firma; it skips without it).
func TestFiscalapiDownloadRequests(t *testing.T) {
	node := nodeOrSkip(t)
	_, env := downloadRequestsServer(t)
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "downloadrequests.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}
}

// TestFiscalapiManifests: the official client's manifests.sign signs the carta manifiesto of the
// owner EKU9003173C9 with SAT's test e.firma (it skips without it).
func TestFiscalapiManifests(t *testing.T) {
	node := nodeOrSkip(t)
	_, env := downloadRequestsServer(t)
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "manifests.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}
}
