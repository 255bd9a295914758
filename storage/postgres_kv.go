package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// The buckets of kv.go in PostgreSQL: every key of every bucket is a row of timbra_kv (bucket
// path, key, value), ordered by the primary key as bbolt orders its keys (bytes); a bucket
// exists while its path is in timbra_buckets. A bucket's path is its name, or its parent's path,
// a zero byte and its name.
//
// kvBucket and kvCursor return no errors (bbolt's cannot fail but for a full disk): here the
// first failure of a query is kept (pgKV.err), every later one fails too (PostgreSQL refuses
// anything more in a failed transaction), and the transaction ends with that error whatever the
// function returned, so nothing read after a failure is committed or answered.

var errReadOnly = errors.New("storage: write in a read-only transaction")

// bucketSet is the bucket paths known to exist, kept across transactions: a bucket is never
// removed but to be made again in the same transaction (catalogs), so a path once seen exists.
type bucketSet struct{ m sync.Map }

type pgKV struct {
	ctx      context.Context
	tx       pgx.Tx
	writable bool
	err      error
	known    *bucketSet
	// local is what this transaction made or removed (true: made), told to known at commit.
	local map[string]bool
	// seen holds, by bucket path and key, what this transaction read or wrote: a key read again
	// costs no query, and the writes (dirty) wait and go in one statement each for puts and
	// deletes before the next range read of a bucket they touch, bucket change or commit
	// (flush). Within a write transaction nobody else writes (the writer lock), within a read
	// one the snapshot holds: what was read stays true.
	seen         map[kvKey]kvSeen
	dirty        map[kvKey]bool
	dirtyBuckets map[string]bool // the buckets of the dirty keys
	dirtyBytes   int
	// fresh are the dirty keys Insert put unread: the statement that sends them checks that
	// they were not there.
	fresh map[kvKey]bool
}

type kvKey struct{ bucket, key string }

type kvSeen struct {
	value []byte // nil: absent
}

// flushBytes is how much written data waits before it is sent anyway.
const flushBytes = 4 << 20

func newPgKV(ctx context.Context, tx pgx.Tx, writable bool, known *bucketSet) *pgKV {
	return &pgKV{ctx: ctx, tx: tx, writable: writable, known: known, seen: map[kvKey]kvSeen{}}
}

// upsertRows puts keys and values, each in its bucket, in one statement.
func upsertRows(ctx context.Context, tx pgx.Tx, buckets, keys, values [][]byte) error {
	_, err := tx.Exec(ctx, `INSERT INTO timbra_kv (bucket, key, value)
		SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[])
		ON CONFLICT (bucket, key) DO UPDATE SET value = excluded.value`, buckets, keys, values)
	return err
}

// flush sends the writes waiting: the puts in one statement, the deletes in another.
func (k *pgKV) flush() {
	if len(k.dirty) == 0 || k.err != nil {
		return
	}
	var pb, pk, pv, db, dk, ib, ik, iv, xb, xk [][]byte
	for key := range k.dirty {
		v := k.seen[key].value
		switch {
		case k.fresh[key] && v != nil: // inserted: must not be there
			ib, ik, iv = append(ib, []byte(key.bucket)), append(ik, []byte(key.key)), append(iv, v)
		case k.fresh[key]: // inserted, then deleted: must not have been there either
			xb, xk = append(xb, []byte(key.bucket)), append(xk, []byte(key.key))
		case v != nil:
			pb, pk, pv = append(pb, []byte(key.bucket)), append(pk, []byte(key.key)), append(pv, v)
		default:
			db, dk = append(db, []byte(key.bucket)), append(dk, []byte(key.key))
		}
	}
	clear(k.dirty)
	clear(k.dirtyBuckets)
	clear(k.fresh)
	k.dirtyBytes = 0
	if len(pb) > 0 {
		if err := upsertRows(k.ctx, k.tx, pb, pk, pv); err != nil {
			k.fail(err)
			return
		}
	}
	if len(ib) > 0 {
		tag, err := k.tx.Exec(k.ctx, `INSERT INTO timbra_kv (bucket, key, value)
			SELECT * FROM unnest($1::bytea[], $2::bytea[], $3::bytea[]) ON CONFLICT (bucket, key) DO NOTHING`, ib, ik, iv)
		if err == nil && tag.RowsAffected() != int64(len(ib)) {
			err = errKeyExists
		}
		if err != nil {
			k.fail(err)
			return
		}
	}
	if len(xb) > 0 {
		tag, err := k.tx.Exec(k.ctx, `DELETE FROM timbra_kv t USING unnest($1::bytea[], $2::bytea[]) AS d(bucket, key)
			WHERE t.bucket = d.bucket AND t.key = d.key`, xb, xk)
		if err == nil && tag.RowsAffected() != 0 {
			err = errKeyExists
		}
		if err != nil {
			k.fail(err)
			return
		}
	}
	if len(db) > 0 {
		if _, err := k.tx.Exec(k.ctx, `DELETE FROM timbra_kv t USING unnest($1::bytea[], $2::bytea[]) AS d(bucket, key)
			WHERE t.bucket = d.bucket AND t.key = d.key`, db, dk); err != nil {
			k.fail(err)
		}
	}
}

// fail keeps the transaction's first failure.
func (k *pgKV) fail(err error) {
	if k.err == nil {
		k.err = fmt.Errorf("storage: %w", err)
	}
}

// outcome is the transaction's error: its first failure, else fn's. A write transaction's
// waiting writes are sent first (only a commit follows).
func (k *pgKV) outcome(fnErr error) error {
	if fnErr == nil {
		k.flush()
	}
	if k.err != nil {
		return k.err
	}
	return fnErr
}

// committed tells the buckets this transaction made to the store.
func (k *pgKV) committed() {
	for path, made := range k.local {
		if made {
			k.known.m.Store(path, true)
		} else {
			k.known.m.Delete(path)
		}
	}
}

func (k *pgKV) Writable() bool { return k.writable }

func (k *pgKV) Bucket(name []byte) kvBucket { return k.bucket(name) }

func (k *pgKV) CreateBucket(name []byte) (kvBucket, error) { return k.create(name, false) }

func (k *pgKV) CreateBucketIfNotExists(name []byte) (kvBucket, error) { return k.create(name, true) }

func (k *pgKV) DeleteBucket(name []byte) error {
	if !k.writable {
		return errReadOnly
	}
	if k.bucket(name) == nil {
		return fmt.Errorf("storage: no bucket %q", name)
	}
	k.flush()
	clear(k.seen) // what was read of it is gone
	// the bucket, its keys, and its nested buckets and theirs
	under := append(bytes.Clone(name), 0)
	if _, err := k.tx.Exec(k.ctx, `DELETE FROM timbra_kv WHERE bucket = $1 OR (bucket >= $2 AND bucket < $3)`,
		name, under, append(bytes.Clone(name), 1)); err != nil {
		k.fail(err)
		return k.err
	}
	rows, err := k.tx.Query(k.ctx, `DELETE FROM timbra_buckets WHERE path = $1 OR (path >= $2 AND path < $3) RETURNING path`,
		name, under, append(bytes.Clone(name), 1))
	if err != nil {
		k.fail(err)
		return k.err
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		k.fail(err)
		return k.err
	}
	for _, p := range paths {
		k.set(string(p), false)
	}
	return nil
}

func (k *pgKV) set(path string, made bool) {
	if k.local == nil {
		k.local = make(map[string]bool)
	}
	k.local[path] = made
}

// bucket is the bucket at path, nil when it does not exist. After a failure it is a bucket whose
// every use fails, not nil (nil would read as "no such bucket").
func (k *pgKV) bucket(path []byte) kvBucket {
	if made, ok := k.local[string(path)]; ok {
		if !made {
			return nil
		}
		return &pgBucket{kv: k, path: path}
	}
	if _, ok := k.known.m.Load(string(path)); ok {
		return &pgBucket{kv: k, path: path}
	}
	var one int
	err := k.tx.QueryRow(k.ctx, `SELECT 1 FROM timbra_buckets WHERE path = $1`, path).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		k.fail(err)
	} else {
		k.known.m.Store(string(path), true)
	}
	return &pgBucket{kv: k, path: path}
}

func (k *pgKV) create(path []byte, mayExist bool) (kvBucket, error) {
	if !k.writable {
		return nil, errReadOnly
	}
	if len(path) == 0 || path[len(path)-1] == 0 {
		return nil, errors.New("storage: a bucket needs a name")
	}
	if b := k.bucket(path); b != nil {
		if k.err != nil {
			return nil, k.err
		}
		if !mayExist {
			return nil, fmt.Errorf("storage: bucket %q exists", path)
		}
		return b, nil
	}
	if _, err := k.tx.Exec(k.ctx, `INSERT INTO timbra_buckets (path) VALUES ($1)`, path); err != nil {
		k.fail(err)
		return nil, k.err
	}
	k.set(string(path), true)
	return &pgBucket{kv: k, path: path}, nil
}

// pgBucket is one bucket of a transaction.
type pgBucket struct {
	kv   *pgKV
	path []byte
}

func (b *pgBucket) Get(key []byte) []byte {
	k := b.kv
	if k.err != nil {
		return nil
	}
	id := kvKey{string(b.path), string(key)}
	if s, ok := k.seen[id]; ok {
		return s.value
	}
	var v []byte
	err := k.tx.QueryRow(k.ctx, `SELECT value FROM timbra_kv WHERE bucket = $1 AND key = $2`, b.path, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		k.seen[id] = kvSeen{}
		return nil
	}
	if err != nil {
		k.fail(err)
		return nil
	}
	if v == nil {
		v = []byte{} // present, empty
	}
	k.seen[id] = kvSeen{value: v}
	return v
}

// prefetchSQL reads the keys $2 of the bucket $1: a primary key lookup for each key (the
// subquery is not flattened: OFFSET 0), whatever plan PostgreSQL keeps for the statement. With
// "key = ANY($2)" the plan kept could be a scan of the whole bucket, made when it was small, a
// cost that grows with the data (TestPostgresPrefetchPlanStaysIndexed).
const prefetchSQL = `SELECT k.key, t.value FROM unnest($2::bytea[]) AS k(key)
	CROSS JOIN LATERAL (SELECT value FROM timbra_kv WHERE bucket = $1 AND key = k.key OFFSET 0) AS t`

// Prefetch reads the keys this transaction has not seen in one statement, so that the Gets of
// them that follow cost no query.
func (b *pgBucket) Prefetch(keys [][]byte) {
	k := b.kv
	if k.err != nil {
		return
	}
	var want [][]byte
	for _, key := range keys {
		if _, ok := k.seen[kvKey{string(b.path), string(key)}]; !ok {
			want = append(want, key)
		}
	}
	if len(want) < 2 {
		return // one Get is one statement already
	}
	rows, err := k.tx.Query(k.ctx, prefetchSQL, b.path, want)
	if err != nil {
		k.fail(err)
		return
	}
	found := map[string][]byte{}
	for rows.Next() {
		var key, v []byte
		if err := rows.Scan(&key, &v); err != nil {
			rows.Close()
			k.fail(err)
			return
		}
		if v == nil {
			v = []byte{} // present, empty
		}
		found[string(key)] = v
	}
	if err := rows.Err(); err != nil {
		k.fail(err)
		return
	}
	for _, key := range want {
		k.seen[kvKey{string(b.path), string(key)}] = kvSeen{value: found[string(key)]} // nil: absent
	}
}

func (b *pgBucket) Put(key, value []byte) error {
	k := b.kv
	switch {
	case !k.writable:
		return errReadOnly
	case len(key) == 0:
		return errors.New("storage: a key is required")
	case k.err != nil:
		return k.err
	}
	v := make([]byte, len(value)) // the caller may reuse its slice, as bbolt allows after Put
	copy(v, value)
	b.write(kvKey{string(b.path), string(key)}, v)
	return k.err
}

func (b *pgBucket) Insert(key, value []byte) error {
	k := b.kv
	id := kvKey{string(b.path), string(key)}
	if s, ok := k.seen[id]; ok && s.value != nil {
		k.fail(errKeyExists)
		return k.err
	} else if !ok && k.writable && k.err == nil && len(key) > 0 {
		if k.fresh == nil {
			k.fresh = map[kvKey]bool{}
		}
		k.fresh[id] = true // unread: the statement that sends it checks
	}
	return b.Put(key, value)
}

func (b *pgBucket) Delete(key []byte) error {
	k := b.kv
	switch {
	case !k.writable:
		return errReadOnly
	case k.err != nil:
		return k.err
	}
	b.write(kvKey{string(b.path), string(key)}, nil)
	return k.err
}

// write keeps a put (value) or a delete (nil) to send with the others.
func (b *pgBucket) write(id kvKey, value []byte) {
	k := b.kv
	if k.dirty == nil {
		k.dirty, k.dirtyBuckets = map[kvKey]bool{}, map[string]bool{}
	}
	k.seen[id] = kvSeen{value: value}
	k.dirty[id] = true
	k.dirtyBuckets[id.bucket] = true
	if k.dirtyBytes += len(id.key) + len(value); k.dirtyBytes > flushBytes {
		k.flush()
	}
}

func (b *pgBucket) Cursor() kvCursor { return &pgCursor{b: b} }

func (b *pgBucket) ForEach(fn func(k, v []byte) error) error {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return b.kv.err
}

func (b *pgBucket) Bucket(name []byte) kvBucket { return b.kv.bucket(b.nested(name)) }

func (b *pgBucket) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	return b.kv.create(b.nested(name), true)
}

func (b *pgBucket) nested(name []byte) []byte {
	p := make([]byte, 0, len(b.path)+1+len(name))
	return append(append(append(p, b.path...), 0), name...)
}

// InOrder: PostgreSQL needs no hint.
func (b *pgBucket) InOrder() {}

// pgCursor reads its bucket's keys in batches, in the direction it moves: a batch grows from
// firstBatch to maxBatch rows while the walk goes on, and stays small when its values are
// large (download packages keep 1 MiB a key).
type pgCursor struct {
	b       *pgBucket
	rows    []kvRow // the batch, in the order of the walk
	at      int     // position in rows
	forward bool    // the batch's direction
	more    bool    // the batch did not reach the end of the bucket in its direction
	size    int     // the next batch's number of rows
}

type kvRow struct{ key, value []byte }

const (
	firstBatch    = 16
	maxBatch      = 256
	maxBatchBytes = 1 << 20
)

func (c *pgCursor) current() ([]byte, []byte) {
	if c.at < 0 || c.at >= len(c.rows) {
		return nil, nil
	}
	r := c.rows[c.at]
	return r.key, r.value
}

// fetch reads a batch from the bucket: forward from the first key ≥ from (> from when after),
// or backward from the last key < from (every key when from is nil).
func (c *pgCursor) fetch(from []byte, forward, after bool) ([]byte, []byte) {
	k := c.b.kv
	c.rows, c.at, c.forward, c.more = c.rows[:0], 0, forward, false
	if k.dirtyBuckets[string(c.b.path)] {
		k.flush() // the range reads what this transaction wrote to the bucket
	}
	if k.err != nil {
		return nil, nil
	}
	if c.size == 0 {
		c.size = firstBatch
	}
	var q string
	args := []any{c.b.path, c.size}
	switch {
	case forward && from == nil:
		q = `SELECT key, value FROM timbra_kv WHERE bucket = $1 ORDER BY key LIMIT $2`
	case forward && after:
		q, args = `SELECT key, value FROM timbra_kv WHERE bucket = $1 AND key > $3 ORDER BY key LIMIT $2`, append(args, from)
	case forward:
		q, args = `SELECT key, value FROM timbra_kv WHERE bucket = $1 AND key >= $3 ORDER BY key LIMIT $2`, append(args, from)
	case from == nil:
		q = `SELECT key, value FROM timbra_kv WHERE bucket = $1 ORDER BY key DESC LIMIT $2`
	default:
		q, args = `SELECT key, value FROM timbra_kv WHERE bucket = $1 AND key < $3 ORDER BY key DESC LIMIT $2`, append(args, from)
	}
	rows, err := k.tx.Query(k.ctx, q, args...)
	if err != nil {
		k.fail(err)
		return nil, nil
	}
	bytesRead := 0
	for rows.Next() {
		var r kvRow
		if err := rows.Scan(&r.key, &r.value); err != nil {
			rows.Close()
			k.fail(err)
			return nil, nil
		}
		if r.value == nil {
			r.value = []byte{}
		}
		bytesRead += len(r.key) + len(r.value)
		c.rows = append(c.rows, r)
	}
	if err := rows.Err(); err != nil {
		k.fail(err)
		c.rows = c.rows[:0]
		return nil, nil
	}
	c.more = len(c.rows) == c.size
	switch {
	case bytesRead > maxBatchBytes:
		c.size = max(1, c.size/4)
	case c.size < maxBatch:
		c.size *= 2
	}
	return c.current()
}

func (c *pgCursor) First() ([]byte, []byte) { return c.fetch(nil, true, false) }
func (c *pgCursor) Last() ([]byte, []byte)  { return c.fetch(nil, false, false) }

func (c *pgCursor) Seek(seek []byte) ([]byte, []byte) {
	return c.fetch(bytes.Clone(seek), true, false)
}

func (c *pgCursor) Next() ([]byte, []byte) { return c.step(true) }
func (c *pgCursor) Prev() ([]byte, []byte) { return c.step(false) }

// step moves one key forward or backward from the current one.
func (c *pgCursor) step(forward bool) ([]byte, []byte) {
	if c.at < 0 || c.at >= len(c.rows) {
		return nil, nil // past an end: as bbolt's, a cursor that ran off stays off
	}
	if forward == c.forward {
		if c.at+1 < len(c.rows) {
			c.at++
			return c.current()
		}
		if !c.more {
			c.at = len(c.rows)
			return nil, nil
		}
	}
	from := c.rows[c.at].key
	return c.fetch(from, forward, true)
}
