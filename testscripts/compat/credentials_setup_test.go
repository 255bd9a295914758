package compat

import (
	"context"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// credentialsTenant makes the tenant credentials.test.mjs works in, apart from the one the
// other scripts count people in: an owner and a second person with a key of its own. The second
// person is written through the storage layer (people create has its own issue). It returns the
// script's environment.
func credentialsTenant(t *testing.T, s *server.Server) []string {
	t.Helper()
	ctx := context.Background()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "credentials-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	member := storage.Person{
		ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "Second Person", Email: "credentials-member@example.com",
		UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now,
	}
	if err := s.Accounts().Store.Update(ctx, func(tx storage.Tx) error { return tx.People(creds.TenantKey).Put(member) }); err != nil {
		t.Fatal(err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	key, err := s.Accounts().CreateKey(ctx, owner, api.APIKeyCreate{PersonID: member.ID})
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"TIMBRA_CREDS_TENANT_KEY=" + creds.TenantKey, "TIMBRA_CREDS_API_KEY=" + creds.APIKey,
		"TIMBRA_CREDS_OWNER_ID=" + creds.PersonID, "TIMBRA_CREDS_MEMBER_ID=" + member.ID,
		"TIMBRA_CREDS_MEMBER_KEY=" + key.APIKeyValue,
	}
}
