package accounts

import (
	"bytes"
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func newService(t *testing.T) *Service {
	t.Helper()
	store, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	keys, err := secrets.New(bytes.Repeat([]byte{7}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return &Service{Store: store, Keys: keys, Environment: EnvTest, Now: time.Now}
}

// TestKeyValuesAreTimeOrdered: values keep their form (the prefix and 32 base64url characters)
// and the lookups of keys made one after another sort in the order they were made, so they sit
// side by side in the store's lookup index.
func TestKeyValuesAreTimeOrdered(t *testing.T) {
	s := newService(t)
	form := regexp.MustCompile(`^sk_test_[A-Za-z0-9_-]{32}$`)
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var last []byte
	seen := map[string]bool{}
	for i := range 2000 {
		v := newValue(prefixTest, t0.Add(time.Duration(i)*time.Millisecond))
		if !form.MatchString(v) || seen[v] {
			t.Fatalf("value %q: not of the form, or made twice", v)
		}
		seen[v] = true
		l := s.lookupOf(v)
		if len(l) != timeBytes+32 || !bytes.Equal(l[timeBytes:], s.Keys.Lookup(v)) {
			t.Fatalf("lookup of %q: % x", v, l)
		}
		if last != nil && bytes.Compare(last, l) >= 0 {
			t.Fatalf("key %d's lookup does not sort after the one made before it", i)
		}
		last = l
	}
	// anything else presented is looked up by its keyed hash alone
	for _, v := range []string{"", "sk_test_", "sk_test_short", "other_" + newValue("", t0)[0:32], "sk_test_" + string(bytes.Repeat([]byte{'*'}, 32))} {
		if got := s.lookups(v); len(got) != 1 || !bytes.Equal(got[0], s.Keys.Lookup(v)) {
			t.Errorf("lookups(%q) = % x", v, got)
		}
	}
}

// TestAuthenticateBothForms: a key made now and a key stored under its keyed hash alone (the
// form of the keys made before) both authenticate; a wrong value or tenant does not.
func TestAuthenticateBothForms(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	creds, err := s.CreateTenant(ctx, api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Authenticate(ctx, creds.TenantKey, creds.APIKey)
	if err != nil || c.PersonID != creds.PersonID {
		t.Fatalf("a key made now: %+v, %v", c, err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	k, err := s.CreateKey(ctx, owner, api.APIKeyCreate{})
	if err != nil {
		t.Fatal(err)
	}
	// store it as a key of before: its lookup the keyed hash alone
	if err := s.Store.Update(ctx, func(tx storage.Tx) error {
		r, err := tx.APIKeys(creds.TenantKey).Get(k.ID)
		if err != nil {
			return err
		}
		if len(r.Lookup) != timeBytes+32 {
			t.Errorf("a new key's lookup has %d bytes", len(r.Lookup))
		}
		r.Lookup = s.Keys.Lookup(k.APIKeyValue)
		return tx.APIKeys(creds.TenantKey).Put(r)
	}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Authenticate(ctx, creds.TenantKey, k.APIKeyValue); err != nil || c.APIKeyID != k.ID {
		t.Errorf("a key stored under its keyed hash alone: %+v, %v", c, err)
	}
	for _, bad := range [][2]string{{creds.TenantKey, k.APIKeyValue + "x"}, {creds.TenantKey, newValue(prefixTest, time.Now())}, {"other", creds.APIKey}} {
		if _, err := s.Authenticate(ctx, bad[0], bad[1]); err == nil {
			t.Errorf("%q %q authenticated", bad[0], bad[1])
		}
	}
}
