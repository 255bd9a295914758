package taxfiles

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/storage"
)

// The opened default pairs, and the keys sent by value (OpenKey), are kept in memory so that an
// invoice does not pay the key's decryption (PBKDF2 with 2,048 iterations and 3DES, about 1 ms
// of CPU) on every request.
// What keeps this safe:
//
//   - The cache never decides which pair seals. DefaultPair reads the person and the files in a
//     read transaction on every call, as without a cache; the cache only replaces opening the
//     files it selected, and only when they are the same files with the same sealed bytes: an
//     entry's key is the tenant, the person, both file ids and a SHA-256 of the four sealed
//     blobs (content and password of each). A file deleted, replaced by a newer pair, or a
//     person deleted is never selected again, so its entry can never be used again, in this
//     server or in another one over the same database.
//   - Entries also leave memory: every change this service makes (a delete, an upload for the
//     person) drops the entries it concerns when it commits; a DefaultPair that selects another
//     pair, or fails, drops the person's other entries; an entry lives at most KeyCacheTTL
//     after it was opened (swept on every use of the cache); there are at most KeyCacheSize
//     entries (least recently used dropped first).
//   - Memory only: the cache is never written to disk, never logged, never answered; nothing
//     but the *csd.PrivateKey given to the invoice being sealed leaves it. The same process
//     already holds the master key that unseals every file, so keeping opened keys adds no
//     secret an attacker with the process's memory would not already have.
//   - Errors are not cached: a key that fails to open is opened again on the next call.
//   - Keys are lent, and zeroed when the last use ends: DefaultPair and OpenKey return a Release
//     that the caller runs when it has signed. A key the cache drops (any of the ways above)
//     while requests use it is zeroed (csd.PrivateKey.Zero) when the last of them gives it back;
//     one nobody uses, at once; one that was not kept (no cache, or opened twice at once), when
//     its only user gives it back.

// Defaults of the key cache.
const (
	DefaultKeyCacheSize = 256
	DefaultKeyCacheTTL  = 10 * time.Minute
)

// pairKey identifies an opened pair.
type pairKey struct {
	tenantID, personID, certID, keyID string
	sealed                            [sha256.Size]byte
}

// byValue stands for the person of a key sent by value (an invoice's taxCredentials): no
// person id is empty or starts with a NUL.
const byValue = "\x00by value"

// OpenKey opens a CSD key sent by value (an invoice's taxCredentials). The same key bytes with
// the same password, for the same tenant, are opened once and kept like the default pairs (at
// most KeyCacheTTL, least recently used dropped first): an entry's key is a SHA-256 of the key
// bytes and the password, so only a request that sends both again finds it. Errors are not
// kept. The caller runs the Release when it has signed.
func (s *Service) OpenKey(tenantID string, der []byte, password string) (*csd.PrivateKey, Release, error) {
	size, ttl, now := s.keyCacheSize(), s.keyCacheTTL(), time.Now()
	k := pairKey{tenantID: tenantID, personID: byValue}
	h := sha256.New()
	for _, b := range [][]byte{der, []byte(password)} {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	h.Sum(k.sealed[:0])
	if size > 0 {
		if _, key, release, ok := s.cache.get(k, now, ttl); ok {
			return key, release, nil
		}
	}
	s.cache.opens.Add(1)
	key, err := csd.ParsePrivateKey(der, []byte(password))
	if err != nil {
		return nil, nil, err
	}
	if size > 0 {
		return key, s.cache.put(k, nil, key, now, size, ttl), nil
	}
	return key, notKept(key), nil
}

// personKey is a person of a tenant.
type personKey struct{ tenantID, personID string }

type openedPair struct {
	key    pairKey
	cert   *csd.Certificate
	pk     *csd.PrivateKey
	opened time.Time
	// users is how many callers hold the key; dropped, that it left the cache (zeroed when
	// users is 0). Both under the cache's mutex.
	users   int
	dropped bool
}

// Release gives back a key DefaultPair or OpenKey lent; it may be called once.
type Release func()

// notKept is the Release of a key the cache does not hold: zeroed once used.
func notKept(pk *csd.PrivateKey) Release { return pk.Zero }

// keyCache is an LRU of opened pairs with a time to live; safe for concurrent use.
type keyCache struct {
	mu      sync.Mutex
	entries map[pairKey]*list.Element // of *openedPair
	lru     list.List                 // front: most recently used
	opens   atomic.Int64              // keys decrypted by DefaultPair and OpenKey
}

func newPairKey(tenantID, personID string, cert, key storage.TaxFile) pairKey {
	h := sha256.New()
	for _, b := range [][]byte{cert.Content, cert.Password, key.Content, key.Password} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	k := pairKey{tenantID: tenantID, personID: personID, certID: cert.ID, keyID: key.ID}
	h.Sum(k.sealed[:0])
	return k
}

// get lends the pair of k when kept and opened less than ttl ago.
func (c *keyCache) get(k pairKey, now time.Time, ttl time.Duration) (*csd.Certificate, *csd.PrivateKey, Release, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now, ttl)
	e, ok := c.entries[k]
	if !ok {
		return nil, nil, nil, false
	}
	c.lru.MoveToFront(e)
	p := e.Value.(*openedPair)
	p.users++
	return p.cert, p.pk, c.release(p), true
}

// release is the Release of one use of p.
func (c *keyCache) release(p *openedPair) Release {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if p.users--; p.users == 0 && p.dropped {
				p.pk.Zero()
			}
		})
	}
}

// put keeps a pair just opened, lent to its opener, dropping the person's other pairs
// (replaced) and the least recently used beyond size. A key sent by value (personID byValue)
// replaces nothing.
func (c *keyCache) put(k pairKey, cert *csd.Certificate, pk *csd.PrivateKey, now time.Time, size int, ttl time.Duration) Release {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now, ttl)
	if k.personID != byValue {
		c.drop(func(o pairKey) bool { return o.tenantID == k.tenantID && o.personID == k.personID && o != k })
	}
	if e, ok := c.entries[k]; ok { // opened meanwhile by another request: keep the first
		c.lru.MoveToFront(e)
		return notKept(pk)
	}
	if c.entries == nil {
		c.entries = map[pairKey]*list.Element{}
	}
	p := &openedPair{key: k, cert: cert, pk: pk, opened: now, users: 1}
	c.entries[k] = c.lru.PushFront(p)
	for c.lru.Len() > size {
		c.remove(c.lru.Back())
	}
	return c.release(p)
}

// forgetPerson drops every pair of a person.
func (c *keyCache) forgetPerson(p personKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(func(k pairKey) bool { return k.tenantID == p.tenantID && k.personID == p.personID })
}

// forgetFile drops every pair holding a file of the tenant.
func (c *keyCache) forgetFile(tenantID, fileID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drop(func(k pairKey) bool { return k.tenantID == tenantID && (k.certID == fileID || k.keyID == fileID) })
}

// len is the number of pairs kept.
func (c *keyCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// sweep drops the pairs opened ttl or more ago (or in the future: a clock set back). c.mu held.
func (c *keyCache) sweep(now time.Time, ttl time.Duration) {
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		if p := e.Value.(*openedPair); now.Sub(p.opened) >= ttl || now.Before(p.opened) {
			c.remove(e)
		}
		e = next
	}
}

// drop removes the pairs whose key matches. c.mu held.
func (c *keyCache) drop(match func(pairKey) bool) {
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		if match(e.Value.(*openedPair).key) {
			c.remove(e)
		}
		e = next
	}
}

// remove unlinks an entry; its key is zeroed now when nobody uses it, else by its last user.
// c.mu held.
func (c *keyCache) remove(e *list.Element) {
	p := e.Value.(*openedPair)
	delete(c.entries, p.key)
	c.lru.Remove(e)
	p.dropped = true
	if p.users == 0 {
		p.pk.Zero()
	}
}

// keyCacheSize and keyCacheTTL are the settings in effect.
func (s *Service) keyCacheSize() int {
	if s.KeyCacheSize == 0 {
		return DefaultKeyCacheSize
	}
	return s.KeyCacheSize
}

func (s *Service) keyCacheTTL() time.Duration {
	if s.KeyCacheTTL <= 0 {
		return DefaultKeyCacheTTL
	}
	return s.KeyCacheTTL
}

// KeysKept is the number of opened pairs and keys in memory, and KeysOpened the number of keys
// DefaultPair and OpenKey have decrypted since the service started (for tests and metrics; no
// secret).
func (s *Service) KeysKept() int { return s.cache.len() }

// KeysOpened: see KeysKept.
func (s *Service) KeysOpened() int64 { return s.cache.opens.Load() }
