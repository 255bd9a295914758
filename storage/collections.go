package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// collections is the storage.Tx of every backend: the typed collections over one kvTx.
type collections struct {
	tx kvTx
	// opened keeps the buckets a read-only transaction found, by name: bbolt walks from the
	// root to a bucket on every lookup outside a write transaction (a write one keeps them
	// itself), and a read that visits many records of a tenant opens the same few buckets for
	// each. nil in a write transaction.
	opened *openedBuckets
}

// openedBuckets are the first buckets a read-only transaction opened (one allocation, no
// map); past them, a lookup walks from the root as without it.
type openedBuckets struct {
	n     int
	names [8][]byte
	found [8]kvBucket
}

func newTx(tx kvTx) collections {
	t := collections{tx: tx}
	if !tx.Writable() {
		t.opened = new(openedBuckets)
	}
	return t
}

// bucket is the named top-level bucket, looked up once per read-only transaction.
func (t collections) bucket(name []byte) kvBucket {
	o := t.opened
	if o == nil {
		return t.tx.Bucket(name)
	}
	for i := range o.n {
		if bytes.Equal(o.names[i], name) {
			return o.found[i]
		}
	}
	b := t.tx.Bucket(name)
	if o.n < len(o.names) {
		o.names[o.n], o.found[o.n] = name, b
		o.n++
	}
	return b
}

func (t collections) Meta() Meta       { return kvMeta{t.bucket(bucketMeta)} }
func (t collections) Leases() Leases   { return kvLeases{t.bucket(bucketLeases)} }
func (t collections) Nodes() Nodes     { return kvNodes{t.bucket(bucketNodes)} }
func (t collections) Tenants() Tenants { return kvTenants{t.bucket(bucketTenants)} }
func (t collections) People(tenantID string) People {
	return kvPeople{newListed[Person](t, bucketPeople, tenantID), t.bucket(bucketPeopleByEmail)}
}
func (t collections) APIKeys(tenantID string) APIKeys {
	return kvAPIKeys{
		records:  newListed[APIKey](t, bucketAPIKeys, tenantID),
		lookup:   t.bucket(bucketAPIKeysByLookup),
		byPerson: t.bucket(bucketAPIKeysByPerson),
	}
}

func (t collections) PersonByEmail(email string) (string, string, error) {
	return splitRef(t.bucket(bucketPeopleByEmail).Get([]byte(NormalizeEmail(email))))
}

func (t collections) APIKeyByLookup(lookup []byte) (KeyRef, error) {
	v := t.bucket(bucketAPIKeysByLookup).Get(lookup)
	if v == nil {
		return KeyRef{}, ErrNotFound
	}
	return decodeKeyRef(v)
}

// encodeKeyRef is the lookup index value of a key: "tenant/key/person/status/owner".
func encodeKeyRef(k APIKey) []byte {
	owner := "0"
	if k.PersonIsOwner {
		owner = "1"
	}
	return key(k.TenantID, k.ID, k.PersonID, strconv.Itoa(k.Status), owner)
}

func decodeKeyRef(v []byte) (KeyRef, error) {
	parts := strings.Split(string(v), "/")
	if len(parts) != 5 {
		return KeyRef{}, fmt.Errorf("storage: malformed key index value %q", v)
	}
	status, err := strconv.Atoi(parts[3])
	if err != nil {
		return KeyRef{}, fmt.Errorf("storage: malformed key index value %q", v)
	}
	return KeyRef{TenantID: parts[0], KeyID: parts[1], PersonID: parts[2], Status: status, PersonIsOwner: parts[4] == "1"}, nil
}

func splitRef(v []byte) (string, string, error) {
	if v == nil {
		return "", "", ErrNotFound
	}
	i := bytes.IndexByte(v, '/')
	if i < 0 {
		return "", "", fmt.Errorf("storage: malformed index value %q", v)
	}
	return string(v[:i]), string(v[i+1:]), nil
}

func key(parts ...string) []byte {
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, '/')
		}
		b = append(b, p...)
	}
	return b
}

// records is a tenant-scoped collection of values in one bucket. A listed collection
// (newListed) keeps the number of each tenant's records in the counts bucket, so that a page
// knows its total without walking the tenant.
type records[T any] struct {
	b      kvBucket
	tenant string
	tally  tally // zero: not counted
}

// named is the key of the record an index entry k under prefix names: the entry's key ends in
// the record's id.
func (r records[T]) named(prefix, k []byte) []byte { return key(r.tenant, string(k[len(prefix):])) }

// namedUnder is named for the entries under prefix, as pageOf takes it.
func (r records[T]) namedUnder(prefix []byte) func(k []byte) []byte {
	return func(k []byte) []byte { return r.named(prefix, k) }
}

func (r records[T]) get(id string) (T, error) {
	var v T
	raw := r.b.Get(key(r.tenant, id))
	if raw == nil {
		return v, ErrNotFound
	}
	if err := decodeRecord(raw, &v); err != nil {
		return v, fmt.Errorf("storage: decode %s/%s: %w", r.tenant, id, err)
	}
	return v, nil
}

// getMany reads the records of ids, in their order, the keys read ahead at once where the
// backend can; ErrNotFound when one is missing.
func (r records[T]) getMany(ids []string) ([]T, error) {
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = key(r.tenant, id)
	}
	prefetch(r.b, keys)
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		v, err := r.get(id)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (r records[T]) put(id string, v T) error {
	raw, err := encodeRecord(v)
	if err != nil {
		return err
	}
	k := key(r.tenant, id)
	if r.tally.counts != nil && r.b.Get(k) == nil {
		if err := r.tally.add(r.tenant, 1); err != nil {
			return err
		}
	}
	return r.b.Put(k, raw)
}

// create saves a new record, its id just made: nothing is read, and the transaction fails if the
// key is there after all (Insert).
func (r records[T]) create(id string, v T) error {
	raw, err := encodeRecord(v)
	if err != nil {
		return err
	}
	if err := r.tally.add(r.tenant, 1); err != nil {
		return err
	}
	return r.b.Insert(key(r.tenant, id), raw)
}

// overwrite saves v over a record the caller knows is there: its count stays, and nothing is
// read.
func (r records[T]) overwrite(id string, v T) error {
	raw, err := encodeRecord(v)
	if err != nil {
		return err
	}
	return r.b.Put(key(r.tenant, id), raw)
}

func (r records[T]) del(id string) error {
	k := key(r.tenant, id)
	if r.tally.counts != nil && r.b.Get(k) != nil {
		if err := r.tally.add(r.tenant, -1); err != nil {
			return err
		}
	}
	return r.b.Delete(k)
}

// page decodes the tenant's records in [offset, offset+limit) of key order; the total is the
// tally of a listed collection, else a walk.
func (r records[T]) page(offset, limit int) ([]T, int, error) {
	total := -1
	if r.tally.counts != nil {
		total = r.tally.get(r.tenant)
	}
	return pageOf[T](r.b, key(r.tenant, ""), offset, limit, total, nil, nil)
}

// newListed is the records of a listed collection: counted per tenant.
func newListed[T any](t collections, name []byte, tenant string) records[T] {
	return records[T]{b: t.bucket(name), tenant: tenant, tally: tally{t.bucket(bucketCounts), name}}
}

// tally is the number of keys per tenant of one bucket, kept in the counts bucket under
// "<bucket name>/<tenant>".
type tally struct {
	counts kvBucket
	name   []byte
}

func (t tally) key(tenant string) []byte { return key(string(t.name), tenant) }

// add changes a count. Before schema 15 (an older migration writing through the records) there is
// no counts bucket: nothing is counted, and migration 15 counts what it finds.
func (t tally) add(tenant string, d int64) error {
	if t.counts == nil {
		return nil
	}
	return addCount(t.counts, t.key(tenant), d)
}

func (t tally) get(tenant string) int {
	if v := t.counts.Get(t.key(tenant)); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v))
	}
	return 0
}

// has tells whether b holds k (an index entry's value may be empty, which Get cannot tell from
// absent).
func has(b kvBucket, k []byte) bool {
	found, _ := b.Cursor().Seek(k)
	return bytes.Equal(found, k)
}

// aheadFirst and aheadMax bound the chunks in which a walk over an index reads the records its
// entries name (readAhead).
const aheadFirst, aheadMax = 16, 256

// readAhead reads the records a walk over index entries names a chunk at a time: their keys
// are gathered (size of them, then twice as many each time up to aheadMax) and read at once
// where the backend can (PostgreSQL: a statement a chunk, not one a record), then handed to fn
// in the walk's order, raw nil for a record that is not there; fn false ends it. A walk that
// ends early has read at most a chunk it did not need, in the same statement.
type readAhead struct {
	b    kvBucket
	fn   func(k, raw []byte) bool
	keys [][]byte
	size int
	done bool
}

// newReadAhead reads b's records in chunks of size first (a page's length, or aheadFirst for
// a walk of unknown length).
func newReadAhead(b kvBucket, size int, fn func(k, raw []byte) bool) *readAhead {
	return &readAhead{b: b, fn: fn, size: min(max(size, 1), aheadMax)}
}

// add takes the next entry's record key; false when the walk is to stop.
func (r *readAhead) add(k []byte) bool {
	r.keys = append(r.keys, k)
	if len(r.keys) < r.size {
		return true
	}
	return r.flush()
}

// flush hands over what was gathered; call it once more after the walk. False when fn stopped.
func (r *readAhead) flush() bool {
	if r.done {
		return false
	}
	prefetch(r.b, r.keys)
	for _, k := range r.keys {
		if !r.fn(k, r.b.Get(k)) {
			r.done = true
			break
		}
	}
	r.keys = r.keys[:0]
	r.size = min(2*r.size, aheadMax)
	return !r.done
}

// decodeAll is a walk's function that decodes every record into *out; one missing or that does
// not decode stops the walk, its error in *err.
func decodeAll[T any](out *[]T, err *error) func(k, raw []byte) bool {
	return func(k, raw []byte) bool {
		if raw == nil {
			*err = fmt.Errorf("storage: an index entry names a missing record %s", k)
			return false
		}
		var item T
		if e := decodeRecord(raw, &item); e != nil {
			*err = fmt.Errorf("storage: decode %s: %w", k, e)
			return false
		}
		*out = append(*out, item)
		return true
	}
}

// asRecord is a walk's get when the entry read ahead is the record.
func asRecord(_, raw []byte) []byte { return raw }

// pageOf walks the keys under prefix and decodes the records of [offset, offset+limit) of them:
// the entries' values, or with records the records their keys name (recordKey), read ahead. With
// total known (≥ 0) it stops there; otherwise it walks on to count. An entry naming a missing
// record is an error.
func pageOf[T any](b kvBucket, prefix []byte, offset, limit, total int, records kvBucket, recordKey func(k []byte) []byte) ([]T, int, error) {
	var out []T
	var err error
	take := decodeAll(&out, &err)
	var ahead *readAhead
	if records != nil {
		ahead = newReadAhead(records, limit, take)
	}
	n := 0
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if n >= offset && n-offset < limit {
			if ahead != nil && !ahead.add(recordKey(k)) || ahead == nil && !take(k, v) {
				break
			}
		}
		n++
		if total >= 0 && n-offset >= limit {
			break
		}
	}
	if ahead != nil {
		ahead.flush()
	}
	if err != nil {
		return nil, 0, err
	}
	if total >= 0 {
		return out, total, nil
	}
	return out, n, nil
}

type kvMeta struct{ b kvBucket }

func (m kvMeta) Get(name string) ([]byte, error) {
	v := m.b.Get([]byte(name))
	if v == nil {
		return nil, nil
	}
	return bytes.Clone(v), nil
}

func (m kvMeta) Put(name string, value []byte) error { return m.b.Put([]byte(name), value) }

type kvTenants struct{ b kvBucket }

func (t kvTenants) Get(id string) (Tenant, error) {
	var v Tenant
	raw := t.b.Get([]byte(id))
	if raw == nil {
		return v, ErrNotFound
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (t kvTenants) Put(v Tenant) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.b.Put([]byte(v.ID), raw)
}

func (t kvTenants) List() ([]Tenant, error) {
	var out []Tenant
	err := t.b.ForEach(func(_, raw []byte) error {
		var v Tenant
		if err := json.Unmarshal(raw, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

type kvPeople struct {
	records[Person]
	byEmail kvBucket
}

func (p kvPeople) Get(id string) (Person, error) { return p.get(id) }

func (p kvPeople) Put(v Person) error {
	ref := key(p.tenant, v.ID)
	email := []byte(NormalizeEmail(v.Email))
	if held := p.byEmail.Get(email); held != nil && !bytes.Equal(held, ref) {
		return ErrEmailTaken
	}
	if old, err := p.get(v.ID); err == nil {
		if oldEmail := []byte(NormalizeEmail(old.Email)); !bytes.Equal(oldEmail, email) {
			if err := p.byEmail.Delete(oldEmail); err != nil {
				return err
			}
		}
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	if err := p.byEmail.Put(email, ref); err != nil {
		return err
	}
	return p.put(v.ID, v)
}

func (p kvPeople) Delete(id string) error {
	old, err := p.get(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := p.byEmail.Delete([]byte(NormalizeEmail(old.Email))); err != nil {
		return err
	}
	return p.del(id)
}

func (p kvPeople) List(offset, limit int) ([]Person, int, error) { return p.page(offset, limit) }

func (p kvPeople) Count() (int, error) { return p.tally.get(p.tenant), nil }

func (p kvPeople) Has(id string) (bool, error) { return p.b.Get(key(p.tenant, id)) != nil, nil }

type kvAPIKeys struct {
	records[APIKey]
	lookup   kvBucket
	byPerson kvBucket
}

func (a kvAPIKeys) Get(id string) (APIKey, error) { return a.get(id) }

func (a kvAPIKeys) Put(v APIKey) error {
	if old, err := a.get(v.ID); err == nil {
		if err := a.unindex(old); err != nil {
			return err
		}
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	v.TenantID = a.tenant
	if err := a.lookup.Put(v.Lookup, encodeKeyRef(v)); err != nil {
		return err
	}
	if err := a.byPerson.Put(key(a.tenant, v.PersonID, v.ID), nil); err != nil {
		return err
	}
	return a.put(v.ID, v)
}

func (a kvAPIKeys) unindex(old APIKey) error {
	if err := a.lookup.Delete(old.Lookup); err != nil {
		return err
	}
	return a.byPerson.Delete(key(a.tenant, old.PersonID, old.ID))
}

func (a kvAPIKeys) Delete(id string) error {
	old, err := a.get(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := a.unindex(old); err != nil {
		return err
	}
	return a.del(id)
}

func (a kvAPIKeys) List(offset, limit int) ([]APIKey, int, error) { return a.page(offset, limit) }

func (a kvAPIKeys) ListByPerson(personID string, offset, limit int) ([]APIKey, int, error) {
	prefix := key(a.tenant, personID, "")
	return pageOf[APIKey](a.byPerson, prefix, offset, limit, -1, a.b, a.namedUnder(prefix))
}
