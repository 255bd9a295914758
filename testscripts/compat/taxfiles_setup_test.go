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
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// taxFilesTenant makes the tenant taxfiles.test.mjs works in: an owner, a person whose RFC is
// EKU9003173C9 (the SAT test CSD), and a second person with a key of its own. It passes SAT's
// test pair (public test material) in the environment as base64, or TIMBRA_TAX_SKIP when the
// shared folder is absent.
func taxFilesTenant(t *testing.T, s *server.Server) []string {
	t.Helper()
	dir := testpaths.Shared("sat", "certs")
	var files [3][]byte
	for i, name := range []string{"EKU9003173C9.cer", "EKU9003173C9.key", "EKU9003173C9.password.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return []string{"TIMBRA_TAX_SKIP=needs the SAT test certificates in " + dir + ": " + err.Error()}
		}
		files[i] = b
	}
	ctx := context.Background()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "taxfiles-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	rfc := "EKU9003173C9"
	issuer := storage.Person{ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "ESCUELA KEMPER URGATE", Email: "taxfiles-issuer@example.com",
		Tin: &rfc, UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	member := storage.Person{ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "Second Person", Email: "taxfiles-member@example.com",
		UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	err = s.Accounts().Store.Update(ctx, func(tx storage.Tx) error {
		if err := tx.People(creds.TenantKey).Put(issuer); err != nil {
			return err
		}
		return tx.People(creds.TenantKey).Put(member)
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	key, err := s.Accounts().CreateKey(ctx, owner, api.APIKeyCreate{PersonID: member.ID})
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"TIMBRA_TAX_TENANT_KEY=" + creds.TenantKey, "TIMBRA_TAX_API_KEY=" + creds.APIKey,
		"TIMBRA_TAX_PERSON_ID=" + issuer.ID, "TIMBRA_TAX_MEMBER_KEY=" + key.APIKeyValue,
		"TIMBRA_TAX_CER=" + base64.StdEncoding.EncodeToString(files[0]),
		"TIMBRA_TAX_KEY=" + base64.StdEncoding.EncodeToString(files[1]),
		"TIMBRA_TAX_PASSWORD=" + strings.TrimSpace(string(files[2])),
	}
}
