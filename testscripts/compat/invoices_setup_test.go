package compat

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/invoices/invoicetest"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// invoicesTenant makes the tenant of invoices.test.mjs: its owner holds stamps; an issuer person
// (EKU9003173C9, regime 601) whose default tax files are SAT's test CSD; a recipient person; and a
// folder where the test writes each stamped XML it received, verified here after node ends
// (verifyInvoiceXMLs).
func invoicesTenant(t *testing.T, s *server.Server, outDir string) []string {
	t.Helper()
	dir := testpaths.Shared("sat", "certs")
	var files [3][]byte
	for i, name := range []string{"EKU9003173C9.cer", "EKU9003173C9.key", "EKU9003173C9.password.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return []string{"TIMBRA_INV_SKIP=needs the SAT test certificates in " + dir + ": " + err.Error()}
		}
		files[i] = b
	}
	password := strings.TrimSpace(string(files[2]))
	ctx := context.Background()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "invoices-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	rfc, regime, zip, recipientRFC, use := "EKU9003173C9", "601", "42501", "XAXX010101000", "S01"
	publicRegime := "616"
	issuer := storage.Person{ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "ESCUELA KEMPER URGATE", Email: "invoices-issuer@example.com",
		Tin: &rfc, SatTaxRegimeID: &regime, ZipCode: &zip, UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	recipient := storage.Person{ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "PUBLICO EN GENERAL", Email: "invoices-recipient@example.com",
		Tin: &recipientRFC, SatTaxRegimeID: &publicRegime, SatCfdiUseID: &use, ZipCode: &zip, UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	err = s.Accounts().Store.Update(ctx, func(tx storage.Tx) error {
		if err := tx.People(creds.TenantKey).Put(issuer); err != nil {
			return err
		}
		return tx.People(creds.TenantKey).Put(recipient)
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	for i, ft := range []string{"0", "1"} {
		b64 := base64.StdEncoding.EncodeToString(files[i])
		pw := password
		if _, err := s.TaxFiles().Upload(ctx, owner, taxfiles.Upload{PersonID: &issuer.ID, FileType: []byte(ft), Base64File: &b64, Password: &pw}); err != nil {
			t.Fatal(err)
		}
	}
	return []string{
		"TIMBRA_INV_TENANT_KEY=" + creds.TenantKey, "TIMBRA_INV_API_KEY=" + creds.APIKey, "TIMBRA_INV_OWNER_ID=" + creds.PersonID,
		"TIMBRA_INV_ISSUER_ID=" + issuer.ID, "TIMBRA_INV_RECIPIENT_ID=" + recipient.ID,
		"TIMBRA_INV_CER=" + base64.StdEncoding.EncodeToString(files[0]),
		"TIMBRA_INV_KEY=" + base64.StdEncoding.EncodeToString(files[1]),
		"TIMBRA_INV_PASSWORD=" + password, "TIMBRA_INV_OUT=" + outDir,
	}
}

// verifyInvoiceXMLs re-verifies every stamped XML the official client received (written by
// invoices.test.mjs): cadenas against SAT's XSLT, Sello and SelloSAT.
func verifyInvoiceXMLs(t *testing.T, s *server.Server, outDir string, want int) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(outDir, "*.xml"))
	if len(names) < want {
		t.Fatalf("the client wrote %d stamped XMLs to %s, want %d", len(names), outDir, want)
	}
	pac, err := s.Invoices().PAC(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		xml, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		_, checked := invoicetest.Verify(t, xml, pac.Cert, testpaths.Shared("sat"))
		t.Logf("%s verifies (SAT XSLT compared: %v)", filepath.Base(name), checked.XSLT)
	}
}
