package compat

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// downloadRulesTenant makes the tenant downloadrules.test.mjs works in: an owner and a person
// (ANA010101AAA) with a generated e.firma each, three seats, and a key of the person.
func downloadRulesTenant(t *testing.T, s *server.Server) []string {
	t.Helper()
	ctx := context.Background()
	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "rules-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	anaRFC, ownerRFC := "ANA010101AAA", "OWN010101AAA"
	ana := storage.Person{ID: ids.New(now), TenantID: creds.TenantKey, LegalName: "Ana", Email: "rules-ana@example.com",
		Tin: &anaRFC, UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	err = s.Accounts().Store.Update(ctx, func(tx storage.Tx) error {
		o, err := tx.People(creds.TenantKey).Get(creds.PersonID)
		if err != nil {
			return err
		}
		o.Tin = &ownerRFC
		if err := tx.People(creds.TenantKey).Put(o); err != nil {
			return err
		}
		return tx.People(creds.TenantKey).Put(ana)
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	keys := csdtest.Keys(2, 1024)
	for i, who := range []struct{ id, rfc string }{{ana.ID, anaRFC}, {creds.PersonID, ownerRFC}} {
		pair, err := csdtest.NewPair(csdtest.Options{RFC: who.rfc, Key: keys[i], Kind: csd.KindFIEL})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			kind, content, password string
		}{{"2", base64.StdEncoding.EncodeToString(pair.Cer), ""}, {"3", base64.StdEncoding.EncodeToString(pair.Key), pair.Password}} {
			id, content, password := who.id, f.content, f.password
			if _, err := s.TaxFiles().Upload(ctx, owner, taxfiles.Upload{PersonID: &id, FileType: []byte(f.kind), Base64File: &content, Password: &password}); err != nil {
				t.Fatal(err)
			}
		}
	}
	seats := 3
	if _, err := s.Accounts().SetSubscription(ctx, creds.TenantKey, api.SubscriptionUpdate{DownloadSeats: &seats}); err != nil {
		t.Fatal(err)
	}
	key, err := s.Accounts().CreateKey(ctx, owner, api.APIKeyCreate{PersonID: ana.ID})
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"TIMBRA_RULES_TENANT_KEY=" + creds.TenantKey, "TIMBRA_RULES_OWNER_KEY=" + creds.APIKey, "TIMBRA_RULES_OWNER_ID=" + creds.PersonID,
		"TIMBRA_RULES_PERSON_ID=" + ana.ID, "TIMBRA_RULES_PERSON_KEY=" + key.APIKeyValue,
	}
}
