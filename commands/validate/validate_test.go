package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/validations"
	"github.com/timbra-mx/timbra/internal/validations/validationstest"
	"github.com/timbra-mx/timbra/server"
)

// validateSetup runs a real production server whose trust store holds the stamping certificate
// of generated invoices, gives the caller 100 validation credits, and writes three files: a
// valid invoice, one with a tampered amount, and one that is not XML.
func validateSetup(t *testing.T) (dir string, balance func() float64) {
	t.Helper()
	cmdtest.Isolate(t)
	dir = t.TempDir()
	d, err := server.OpenData(server.DataOptions{Path: filepath.Join(t.TempDir(), "t.db"), Environment: "production"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	inv := validationstest.New(t, csdtest.Options{RFC: "EKU9003173C9"}, time.Now().Add(-time.Hour), true)
	trust := t.TempDir()
	os.WriteFile(filepath.Join(trust, "pac.cer"), inv.PAC.Cer, 0o600)
	srv, err := server.New(server.Config{Environment: d.Environment, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Validations: validations.Config{StampTrustDirs: []string{trust}}}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	creds, err := srv.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Accounts().GrantCredits(ctx, creds.TenantKey, api.CreditGrant{PersonID: creds.PersonID, CreditType: api.CreditValidation, Amount: 100}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Setenv("TIMBRA_BASE_URL", hs.URL)
	t.Setenv("TIMBRA_TENANT_KEY", creds.TenantKey)
	t.Setenv("TIMBRA_API_KEY", creds.APIKey)
	good := inv.XML(t)
	os.WriteFile(filepath.Join(dir, "a-valid.xml"), good, 0o600)
	os.WriteFile(filepath.Join(dir, "b-amount.xml"), bytes.Replace(good, []byte(`Total="116.00"`), []byte(`Total="1116.00"`), 1), 0o600)
	os.WriteFile(filepath.Join(dir, "c-broken.xml"), []byte("not xml"), 0o600)
	client := &api.Client{BaseURL: hs.URL, TenantKey: creds.TenantKey, APIKey: creds.APIKey}
	balance = func() float64 {
		p, err := client.GetPerson(ctx, creds.PersonID)
		if err != nil {
			t.Fatal(err)
		}
		return p.AvailableValidationBalance
	}
	return dir, balance
}

func TestValidateCommand(t *testing.T) {
	dir, balance := validateSetup(t)
	seals := "sat.xml.structure,sat.cfdi.sello,sat.tfd.sello"

	// Everything passes: exit 0, three credits.
	r := run1(t, cmdtest.Opts{TTY: true}, "validate", filepath.Join(dir, "a-valid.xml"), "--types", seals)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "FILE", "sat.cfdi.sello", "✓ Valido")
	cmdtest.WantNotContains(t, "stdout", r.Out, "✗")
	cmdtest.WantContains(t, "stderr", r.Err, "Validation credits used: 3.")
	if b := balance(); b != 97 {
		t.Fatalf("balance %v", b)
	}

	// A pattern, many files: the tampered amount and the broken file fail, exit 1.
	r = run1(t, cmdtest.Opts{TTY: true}, "validate", filepath.Join(dir, "*.xml"), "--types", seals, "--concurrency", "2")
	cmdtest.WantCode(t, r, 1)
	lines := strings.Split(strings.TrimSpace(r.Out), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "a-valid.xml") || !strings.Contains(lines[2], "b-amount.xml") ||
		!strings.Contains(lines[2], "✗ Invalido") || !strings.Contains(lines[3], "c-broken.xml") {
		t.Fatalf("table:\n%s", r.Out)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "b-amount.xml: sat.cfdi.sello Invalido", "c-broken.xml: sat.xml.structure Invalido", "Validation credits used: 9.")
	cmdtest.WantNotContains(t, "stderr", r.Err, "simulated") // production: real results

	// JSON for scripts.
	r = run1(t, cmdtest.Opts{}, "validate", filepath.Join(dir, "b-amount.xml"), "--all", "-o", "json")
	cmdtest.WantCode(t, r, 1)
	var rep validateReport
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, r.Out)
	}
	if rep.Passed || rep.Simulated || rep.CreditsUsed != 7 || len(rep.Items) != 1 || len(rep.Items[0].Results) != 7 ||
		rep.Items[0].Results[0].Type.ID != "sat.xml.structure" || rep.Items[0].Results[2].Passed {
		t.Fatalf("report: %+v", rep)
	}

	// --tin: the lists (no copy configured: NoDisponible, which does not pass).
	r = run1(t, cmdtest.Opts{}, "validate", "--tin", "EKU9003173C9", "--all")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stdout", r.Out, "RFC\tsat.blacklist.69b\tsat.blacklist.69bbis", "EKU9003173C9\t✗ NoDisponible")

	// A missing file fails alone, with no credit.
	before := balance()
	r = run1(t, cmdtest.Opts{}, "validate", filepath.Join(dir, "missing.xml"), "--types", "sat.cfdi.sello")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "missing.xml: no such file or directory", "Validation credits used: 0.")
	if balance() != before {
		t.Fatal("a missing file used credits")
	}

	// Types and statuses.
	r = run1(t, cmdtest.Opts{}, "validate", "types")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "sat.xml.structure\tEstructura del XML", "sat.blacklist.69bbis")
	r = run1(t, cmdtest.Opts{}, "validate", "statuses", "sat.cfdi.status")
	cmdtest.WantCode(t, r, 0)
	if !strings.HasPrefix(r.Out, "ID\tDESCRIPTION\nVigente\t") {
		t.Fatalf("statuses:\n%s", r.Out)
	}
	cmdtest.WantCode(t, run1(t, cmdtest.Opts{}, "validate", "statuses", "sat.nope"), 1)
}

func TestValidateUsage(t *testing.T) {
	dir, balance := validateSetup(t)
	before := balance()
	f := filepath.Join(dir, "a-valid.xml")
	for _, args := range [][]string{
		{"validate", f}, // neither --types nor --all
		{"validate", f, "--all", "--types", "sat.cfdi.sello"}, // both
		{"validate", "--all"}, // no file
		{"validate", f, "--tin", "EKU9003173C9", "--all"},
		{"validate", f, "--types", "sat.cfdi.selo"},         // unknown type
		{"validate", filepath.Join(dir, "*.json"), "--all"}, // pattern without match
		{"validate", f, "--all", "--concurrency", "0"},
		{"validate", "statuses"},
	} {
		r := runArgs(t, args...)
		if r.Code != 2 {
			t.Errorf("%v: exit %d (%s)", args, r.Code, r.Err)
		}
	}
	if balance() != before {
		t.Fatal("usage errors used credits")
	}
}

// TestValidateSaysSimulated: against a server in the test environment (it says so in its
// Timbra-Environment header) the results are said to be simulated, in text and in JSON; in
// production (TestValidateCommand) they are not.
func TestValidateSaysSimulated(t *testing.T) {
	cmdtest.Isolate(t)
	fake := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(api.EnvironmentHeader, "test")
		typ := api.SatValidationType{ID: "sat.cfdi.sello", Description: "Sello del CFDI"}
		if r.Method == http.MethodGet {
			cmdtest.WriteEnvelope(w, 200, []api.SatValidationType{typ}, "", "t")
			return
		}
		cmdtest.WriteEnvelope(w, 200, []api.SatValidationResult{{Type: typ, Status: api.SatValidationStatus{ID: "Invalido"}}}, "", "t")
	})
	cmdtest.UseAPI(t, fake.URL)
	file := filepath.Join(t.TempDir(), "f.xml")
	os.WriteFile(file, []byte("<cfdi:Comprobante/>"), 0o600)
	r := run1(t, cmdtest.Opts{}, "validate", file, "--types", "sat.cfdi.sello")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "These results are simulated: the server is in the test environment")
	r = run1(t, cmdtest.Opts{}, "validate", file, "--types", "sat.cfdi.sello", "-o", "json")
	var rep validateReport
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || !rep.Simulated {
		t.Fatalf("json: %v %s", err, r.Out)
	}
}
