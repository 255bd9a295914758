package invoices

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
)

// tourServer is a real server in the process, with the small copy of the SAT catalogs, whose
// tenant owner is set up as README.md's tour does: RFC EKU9003173C9 with SAT's test CSD
// (read from ../shared/sat, never copied into the repository) and employer data. The client
// environment points at it with the owner's key.
func tourServer(t *testing.T) api.Credentials {
	t.Helper()
	certs := testpaths.Shared("sat", "certs")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(certs, name))
		if err != nil {
			t.Skipf("needs SAT's test CSD in %s: %v", certs, err)
		}
		return b
	}
	cer, key := read("EKU9003173C9.cer"), read("EKU9003173C9.key")
	password := strings.TrimSpace(string(read("EKU9003173C9.password.txt")))

	d, err := server.OpenData(server.DataOptions{Path: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	s, err := server.New(server.Config{Environment: d.Environment, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := source.Open(ctx, testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := s.Catalogs().Import(ctx, src, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)

	c := &api.Client{BaseURL: hs.URL, TenantKey: creds.TenantKey, APIKey: creds.APIKey}
	str := func(s string) *string { return &s }
	if _, err := c.UpdatePerson(ctx, creds.PersonID, api.PersonInput{Tin: str("EKU9003173C9"), LegalName: str("ESCUELA KEMPER URGATE"),
		SatTaxRegimeID: str("601"), ZipCode: str("42501")}); err != nil {
		t.Fatal(err)
	}
	for i, file := range [][]byte{cer, key} {
		if _, err := c.UploadTaxFile(ctx, api.TaxFileUpload{PersonID: creds.PersonID, Base64File: base64.StdEncoding.EncodeToString(file),
			FileType: i, Password: password}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateEmployer(ctx, creds.PersonID, api.EmployerInput{PersonID: &creds.PersonID, EmployerRegistration: str("B5510768108")}); err != nil {
		t.Fatal(err)
	}

	cmdtest.Isolate(t)
	t.Setenv("TIMBRA_BASE_URL", hs.URL)
	t.Setenv("TIMBRA_TENANT_KEY", creds.TenantKey)
	t.Setenv("TIMBRA_API_KEY", creds.APIKey)
	return creds
}

// Every example stamps as it is against a server set up as the tour's: --example prints the
// comment on stderr and pure JSON on stdout with the caller as the issuer, and that output piped
// into create --file - stamps an invoice of the example's type.
func TestExamplesStamp(t *testing.T) {
	creds := tourServer(t)
	for _, e := range examples {
		t.Run(e.Kind, func(t *testing.T) {
			r := runArgs(t, "invoices", "create", "--example", e.Kind)
			cmdtest.WantCode(t, r, 0)
			if !json.Valid([]byte(r.Out)) {
				t.Fatalf("stdout is not pure JSON:\n%s", r.Out)
			}
			var body api.InvoiceInput
			if err := json.Unmarshal([]byte(r.Out), &body); err != nil || body.Issuer == nil || body.Issuer.ID != creds.PersonID || body.TypeCode != e.Type {
				t.Fatalf("issuer %+v, type %q (%v)\n%s", body.Issuer, body.TypeCode, err, r.Err)
			}
			for _, line := range strings.Split(strings.TrimSuffix(r.Err, "\n"), "\n") {
				if !strings.HasPrefix(line, "// ") {
					t.Errorf("stderr line %q is not a comment", line)
				}
			}
			cmdtest.WantContains(t, "stderr", r.Err, "// issuer.id "+creds.PersonID+": you")

			r = run1(t, cmdtest.Opts{Stdin: r.Out}, "invoices", "create", "--file", "-", "-o", "json")
			cmdtest.WantCode(t, r, 0)
			var inv api.Invoice
			if err := json.Unmarshal([]byte(r.Out), &inv); err != nil || inv.UUID == "" || inv.TypeCode != e.Type || inv.Issuer.Tin != "EKU9003173C9" {
				t.Fatalf("stamped %+v (%v)", inv, err)
			}
		})
	}
}

// The help shows every example, with PERSON_ID; --example alone lists the kinds; without a
// server the body keeps PERSON_ID and the comment says why; a wrong kind is a usage error.
func TestExamplesWithoutAServer(t *testing.T) {
	cmdtest.Isolate(t)
	r := runArgs(t, "invoices", "create", "--help")
	for _, e := range examples {
		cmdtest.WantContains(t, "help", r.Out, "   --example "+e.Kind+"\n")
		for _, line := range strings.Split(strings.TrimSuffix(e.Body, "\n"), "\n") {
			cmdtest.WantContains(t, "help", r.Out, "\n   "+line+"\n")
		}
	}
	r = runArgs(t, "invoices", "create", "--example")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "  income       I  a sale", "  payroll      N  ")

	r = runArgs(t, "invoices", "create", "--example", "payroll")
	cmdtest.WantCode(t, r, 0)
	if r.Out != exampleOf("payroll").Body || !json.Valid([]byte(r.Out)) {
		t.Errorf("stdout:\n%s", r.Out)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "in place of PERSON_ID (timbra people list); not logged in.", "timbra people employer set PERSON_ID")

	r = runArgs(t, "invoices", "create", "--example", "payrol")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, `no example "payrol". Did you mean "payroll"?`)
	r = runArgs(t, "invoices", "create", "--example", "income", "--file", "x.json")
	cmdtest.WantCode(t, r, 2)
	r = runArgs(t, "invoices", "create")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "missing flag --file (or --example KIND for a body to start from)")
}
