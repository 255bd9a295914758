package taxfiles

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

// cacheEnv is a tax files service over a new database whose clock the test moves.
type cacheEnv struct {
	t     *testing.T
	s     *Service
	clock atomic.Int64 // unix nanoseconds
}

func newCacheEnv(t *testing.T) *cacheEnv {
	t.Helper()
	store, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	master := make([]byte, 32)
	rand.Read(master)
	keys, err := secrets.New(master)
	if err != nil {
		t.Fatal(err)
	}
	e := &cacheEnv{t: t}
	e.clock.Store(time.Now().UnixNano())
	e.s = &Service{Store: store, Keys: keys, Now: func() time.Time { return time.Unix(0, e.clock.Load()) }}
	return e
}

func (e *cacheEnv) advance(d time.Duration) { e.clock.Add(int64(d)) }

// person adds a person with an RFC to a tenant and returns the owner caller of that tenant.
func (e *cacheEnv) person(tenantID, rfc string) (auth.Caller, string) {
	e.t.Helper()
	id := ids.New(time.Now())
	err := e.s.Store.Update(context.Background(), func(tx storage.Tx) error {
		return tx.People(tenantID).Put(storage.Person{ID: id, TenantID: tenantID, LegalName: rfc, Email: id + "@example.com", Tin: &rfc})
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return auth.Caller{TenantID: tenantID, PersonID: "owner", IsOwner: true}, id
}

// upload sends a pair's certificate and key; it returns their file ids.
func (e *cacheEnv) upload(c auth.Caller, personID string, p csdtest.Pair) (cer, key string) {
	e.t.Helper()
	var got [2]string
	for i, f := range []struct {
		typ     string
		content []byte
	}{{"0", p.Cer}, {"1", p.Key}} {
		content, pw := base64.StdEncoding.EncodeToString(f.content), p.Password
		tf, err := e.s.Upload(context.Background(), c, Upload{PersonID: &personID, Base64File: &content, FileType: json.RawMessage(f.typ), Password: &pw})
		if err != nil {
			e.t.Fatalf("upload: %v", err)
		}
		got[i] = tf.ID
	}
	return got[0], got[1]
}

func (e *cacheEnv) pair(c auth.Caller, personID string) (*csd.Certificate, *csd.PrivateKey) {
	e.t.Helper()
	cert, key, release, err := e.s.DefaultPair(context.Background(), c.TenantID, personID)
	if err != nil {
		e.t.Fatalf("DefaultPair: %v", err)
	}
	e.t.Cleanup(release)
	return cert, key
}

// opened checks how many keys DefaultPair has decrypted so far.
func (e *cacheEnv) opened(want int64) {
	e.t.Helper()
	if got := e.s.KeysOpened(); got != want {
		e.t.Fatalf("keys opened = %d, want %d", got, want)
	}
}

func newTestPair(t *testing.T, rfc string, key int) csdtest.Pair {
	t.Helper()
	p, err := csdtest.NewPair(csdtest.Options{RFC: rfc, Key: csdtest.Keys(3, 1024)[key]})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func notFound(t *testing.T, err error) {
	t.Helper()
	if e, ok := apierr.As(err); !ok || e.Status != 404 {
		t.Fatalf("want a 404, got %v", err)
	}
}

func TestKeyCacheReusesAndInvalidates(t *testing.T) {
	e := newCacheEnv(t)
	c, person := e.person("tenant-a", "EKU9003173C9")
	a := newTestPair(t, "EKU9003173C9", 0)
	_, keyA := e.upload(c, person, a)

	cert1, key1 := e.pair(c, person)
	cert2, key2 := e.pair(c, person)
	e.opened(1)
	if key1 != key2 || cert1 != cert2 || cert1.Number != a.Number || e.s.KeysKept() != 1 {
		t.Fatalf("second call did not reuse the opened pair (kept %d)", e.s.KeysKept())
	}

	// a newer pair replaces it: the next call opens the new key and the old one leaves memory
	b := newTestPair(t, "EKU9003173C9", 1)
	_, keyB := e.upload(c, person, b)
	if e.s.KeysKept() != 0 {
		t.Fatalf("an upload for the person left %d pairs in memory", e.s.KeysKept())
	}
	cert3, key3 := e.pair(c, person)
	e.opened(2)
	if cert3.Number != b.Number || !cert3.Matches(key3) || key3 == key1 || e.s.KeysKept() != 1 {
		t.Fatalf("after a new pair: certificate %s, want %s; kept %d", cert3.Number, b.Number, e.s.KeysKept())
	}
	e.pair(c, person)
	e.opened(2)

	// deleting the new key: the old pair is the default again, opened anew; the deleted key's
	// pair left memory at the delete
	if err := e.s.Delete(context.Background(), c, keyB); err != nil {
		t.Fatal(err)
	}
	if e.s.KeysKept() != 0 {
		t.Fatalf("the deleted key's pair is still in memory")
	}
	cert4, _ := e.pair(c, person)
	e.opened(3)
	if cert4.Number != a.Number {
		t.Fatalf("after deleting the new key: certificate %s, want %s", cert4.Number, a.Number)
	}

	// deleting the old key too: no pair, nothing opened, nothing kept
	if err := e.s.Delete(context.Background(), c, keyA); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := e.s.DefaultPair(context.Background(), c.TenantID, person)
	notFound(t, err)
	e.opened(3)
	if e.s.KeysKept() != 0 {
		t.Fatal("a pair is kept without files")
	}
}

// A change made behind the service's back (another server over the same database, the person
// deleted by the people area) is seen on the next call: the pair is selected from the database
// every time, and a selection that fails forgets the person's pairs.
func TestKeyCacheFollowsTheDatabase(t *testing.T) {
	e := newCacheEnv(t)
	c, person := e.person("tenant-a", "EKU9003173C9")
	e.upload(c, person, newTestPair(t, "EKU9003173C9", 0))
	e.pair(c, person)
	other := &Service{Store: e.s.Store, Keys: e.s.Keys, Now: e.s.Now}
	b := newTestPair(t, "EKU9003173C9", 1)
	e2 := &cacheEnv{t: t, s: other}
	e2.upload(c, person, b) // through another service: this one is not told
	if e.s.KeysKept() != 1 {
		t.Fatal("setup: the first pair should still be kept")
	}
	cert, _ := e.pair(c, person)
	if cert.Number != b.Number || e.s.KeysKept() != 1 {
		t.Fatalf("certificate %s, want the new %s (kept %d)", cert.Number, b.Number, e.s.KeysKept())
	}
	e.opened(2)

	// the person deleted with its files, as the people area does
	err := e.s.Store.Update(context.Background(), func(tx storage.Tx) error {
		if err := storage.DeletePersonTaxFiles(tx, c.TenantID, person, "owner", time.Now()); err != nil {
			return err
		}
		return tx.People(c.TenantID).Delete(person)
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = e.s.DefaultPair(context.Background(), c.TenantID, person)
	notFound(t, err)
	if e.s.KeysKept() != 0 {
		t.Fatal("a deleted person's pair is still in memory")
	}
}

func TestKeyCacheTenantIsolation(t *testing.T) {
	e := newCacheEnv(t)
	p := newTestPair(t, "EKU9003173C9", 0) // the very same files in both tenants
	ca, personA := e.person("tenant-a", "EKU9003173C9")
	cb, personB := e.person("tenant-b", "EKU9003173C9")
	e.upload(ca, personA, p)
	_, keyB := e.upload(cb, personB, p)
	_, ka := e.pair(ca, personA)
	_, kb := e.pair(cb, personB)
	e.opened(2)
	if ka == kb || e.s.KeysKept() != 2 {
		t.Fatalf("two tenants share an opened key (kept %d)", e.s.KeysKept())
	}
	// a person of another tenant is not found, and nothing is opened for it
	_, _, _, err := e.s.DefaultPair(context.Background(), cb.TenantID, personA)
	notFound(t, err)
	e.opened(2)
	// a delete in one tenant leaves the other's pair
	if err := e.s.Delete(context.Background(), cb, keyB); err != nil {
		t.Fatal(err)
	}
	if e.s.KeysKept() != 1 {
		t.Fatalf("kept %d, want tenant A's only", e.s.KeysKept())
	}
	e.pair(ca, personA)
	e.opened(2)
	_, _, _, err = e.s.DefaultPair(context.Background(), cb.TenantID, personB)
	notFound(t, err)
}

func TestKeyCacheBounds(t *testing.T) {
	e := newCacheEnv(t)
	c, person := e.person("tenant-a", "EKU9003173C9")
	e.upload(c, person, newTestPair(t, "EKU9003173C9", 0))
	e.pair(c, person)
	e.advance(DefaultKeyCacheTTL - time.Second)
	e.pair(c, person)
	e.opened(1)
	e.advance(time.Second) // TTL since opened, not since last used
	e.pair(c, person)
	e.opened(2)
	e.advance(-time.Hour) // a clock set back does not keep a pair forever
	e.pair(c, person)
	e.opened(3)

	// size 1: two issuers in turn evict each other
	e.s.KeyCacheSize = 1
	c2, person2 := e.person("tenant-a", "AAA010101AAA")
	e.upload(c2, person2, newTestPair(t, "AAA010101AAA", 2))
	for i := range 3 {
		e.pair(c, person)
		e.pair(c2, person2)
		if e.s.KeysKept() != 1 {
			t.Fatalf("round %d: %d pairs kept with size 1", i, e.s.KeysKept())
		}
	}
	e.opened(3 + 5) // the first call still found the person's pair

	// negative: nothing kept
	e.s.KeyCacheSize = -1
	e.pair(c, person)
	e.pair(c, person)
	e.opened(3 + 5 + 2)
}

// Concurrent sealing with pairs being replaced and deleted: every call gets a matching pair or
// a 404, never a mismatch; run with -race.
func TestKeyCacheConcurrent(t *testing.T) {
	e := newCacheEnv(t)
	c, person := e.person("tenant-a", "EKU9003173C9")
	e.upload(c, person, newTestPair(t, "EKU9003173C9", 0))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				cert, key, release, err := e.s.DefaultPair(context.Background(), c.TenantID, person)
				if e, ok := apierr.As(err); ok && e.Status == 404 {
					continue
				}
				if err == nil && !cert.Matches(key) {
					err = errors.New("certificate and key do not match")
				}
				if err == nil { // a key lent is never zeroed while in use, whatever the uploads drop
					_, err = key.Sign([]byte("cadena"))
					release()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 6 {
		_, key := e.upload(c, person, newTestPair(t, "EKU9003173C9", i%3))
		if i%2 == 1 {
			if err := e.s.Delete(context.Background(), c, key); err != nil {
				t.Error(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := e.s.KeysKept(); n > 1 {
		t.Errorf("%d pairs of one person kept", n)
	}
}

// TestKeyCacheZeroesDroppedKeys: a key the cache drops while a request holds it still signs
// until that request gives it back, and is zeroed then; one dropped while nobody holds it is
// zeroed at once; one the cache does not keep is zeroed when its only user gives it back.
func TestKeyCacheZeroesDroppedKeys(t *testing.T) {
	zeroed := func(k *csd.PrivateKey) bool {
		_, err := k.Sign([]byte("cadena"))
		return k.RSA == nil && err != nil
	}
	e := newCacheEnv(t)
	c, person := e.person("tenant-a", "EKU9003173C9")
	e.upload(c, person, newTestPair(t, "EKU9003173C9", 0))

	// held while an upload replaces the pair (which drops it): zeroed on release only
	_, held, release, err := e.s.DefaultPair(context.Background(), c.TenantID, person)
	if err != nil {
		t.Fatal(err)
	}
	_, again, releaseAgain, err := e.s.DefaultPair(context.Background(), c.TenantID, person)
	if err != nil || again != held {
		t.Fatalf("a second request was not lent the kept key: %v", err)
	}
	e.upload(c, person, newTestPair(t, "EKU9003173C9", 1))
	if e.s.KeysKept() != 0 || zeroed(held) {
		t.Fatalf("kept %d, zeroed while held: %v", e.s.KeysKept(), zeroed(held))
	}
	release()
	release() // a second call does nothing
	if zeroed(held) {
		t.Fatal("zeroed while the other request holds it")
	}
	releaseAgain()
	if !zeroed(held) {
		t.Fatal("a dropped key was not zeroed when the last request gave it back")
	}

	// given back, then dropped (the person's key deleted): zeroed at once
	_, idle, release, err := e.s.DefaultPair(context.Background(), c.TenantID, person)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if zeroed(idle) {
		t.Fatal("a kept key was zeroed")
	}
	_, key := e.upload(c, person, newTestPair(t, "EKU9003173C9", 2))
	_, idle, release, err = e.s.DefaultPair(context.Background(), c.TenantID, person)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if err := e.s.Delete(context.Background(), c, key); err != nil {
		t.Fatal(err)
	}
	if !zeroed(idle) {
		t.Fatal("a key dropped while nobody held it was not zeroed")
	}

	// kept no more than its request: zeroed when given back
	e.s.KeyCacheSize = -1
	e.upload(c, person, newTestPair(t, "EKU9003173C9", 0))
	_, once, release, err := e.s.DefaultPair(context.Background(), c.TenantID, person)
	if err != nil || zeroed(once) {
		t.Fatalf("cache off: %v", err)
	}
	release()
	if !zeroed(once) {
		t.Fatal("a key not kept was not zeroed when given back")
	}
	p := newTestPair(t, "EKU9003173C9", 1)
	byValue, release, err := e.s.OpenKey(c.TenantID, p.Key, p.Password)
	if err != nil || zeroed(byValue) {
		t.Fatalf("OpenKey: %v", err)
	}
	release()
	if !zeroed(byValue) {
		t.Fatal("a key sent by value and not kept was not zeroed when given back")
	}
}
