package compat

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// TestFiscalapiStamps: the official client's stamps service reads the credit movements of a
// tenant of its own (the test allotment, then a transfer it makes): getList, getById.
func TestFiscalapiStamps(t *testing.T) {
	node := nodeOrSkip(t)
	s, _, hs := newServer(t, server.Config{})
	ctx := context.Background()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "stamps-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	rfc := "BRA010101AAA"
	branch := storage.Person{ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "Sucursal", Email: "stamps-branch@example.com",
		Tin: &rfc, UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	if err := s.Accounts().Store.Update(ctx, func(tx storage.Tx) error { return tx.People(creds.TenantKey).Put(branch) }); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "stamps.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(os.Environ(), "TIMBRA_BASE_URL="+hs.URL, "TIMBRA_STAMPS_TENANT_KEY="+creds.TenantKey,
		"TIMBRA_STAMPS_API_KEY="+creds.APIKey, "TIMBRA_STAMPS_OWNER_ID="+creds.PersonID, "TIMBRA_STAMPS_BRANCH_ID="+branch.ID)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}
}
