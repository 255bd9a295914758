package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// MaxBatchDelay is bbolt's own batch delay, set on the database for anything that calls its
// Batch directly (the benchmarks' raw floor). Bolt.Batch commits groups without a delay
// (groupCommit). bbolt's default, 10 ms, is what a lone interactive write would pay in full.
const MaxBatchDelay = time.Millisecond

// Bolt is the bbolt backend.
type Bolt struct {
	db    *bolt.DB
	group *groupCommit
	clock writerClock
}

// boltOptions are how the server opens its file. The list of free pages is kept in memory only
// (NoFreelistSync, as etcd does) and in a map by run length: bbolt otherwise writes the whole
// list in every commit and scans it for each allocation, so once a purge or a deletion has freed
// many pages every later write, any tenant's, costs more (2.5–2.8× a small write's p50 after
// BenchmarkPurge's 200,000 records, TestFreedPagesCostNoCommit). The price is paid at open: bbolt
// walks the file's pages to find the free ones, unless Close wrote the list (a file closed
// cleanly, or written by an older timbra, opens at once).
func boltOptions() *bolt.Options {
	return &bolt.Options{Timeout: 2 * time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType}
}

// Open opens (creating when absent) the database at path and runs the pending migrations.
// Only one process may hold it: a second one gets a clear error after a short wait.
func Open(path string) (*Bolt, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create database folder: %w", err)
	}
	db, err := bolt.Open(path, 0o600, boltOptions())
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("database %s is in use by another process (is a timbra server already running on it?)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.MaxBatchDelay = MaxBatchDelay
	if err := db.Update(func(tx *bolt.Tx) error { return migrate(boltKV{tx}) }); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate database %s: %w", path, err)
	}
	b := &Bolt{db: db}
	b.group = &groupCommit{update: func(fn func(kvTx) error) error { return b.update(fn) }}
	return b, nil
}

// update runs fn in one read-write transaction and commits it, timing the writer.
func (b *Bolt) update(fn func(kvTx) error) error {
	asked := time.Now()
	var got time.Time
	defer func() { b.clock.add(asked, got) }()
	return b.db.Update(func(tx *bolt.Tx) error {
		got = time.Now()
		return fn(boltKV{tx})
	})
}

// Writer is the time this process's writes waited for bbolt's single writer and held it.
func (b *Bolt) Writer() WriterTime { return b.clock.read() }

// Close closes the database, its list of free pages written first (one last commit), so that
// the next open reads the list instead of walking the file; only a file not closed (a crash, a
// kill) is walked.
func (b *Bolt) Close() error {
	// the field is read by a commit, under the writer lock this transaction holds
	err := b.db.Update(func(*bolt.Tx) error { b.db.NoFreelistSync = false; return nil })
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		err = nil // closed already
	}
	return errors.Join(err, b.db.Close())
}

// View implements Store.
func (b *Bolt) View(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.db.View(func(tx *bolt.Tx) error { return fn(newTx(boltKV{tx})) })
}

// Update implements Store.
func (b *Bolt) Update(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.update(func(tx kvTx) error { return fn(newTx(tx)) })
}

// Batch implements Store.
func (b *Bolt) Batch(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.group.do(func(tx kvTx) error { return fn(newTx(tx)) })
}

// boltKV is a bbolt transaction as the collections see it (kv.go).
type boltKV struct{ tx *bolt.Tx }

func (t boltKV) Bucket(name []byte) kvBucket { return wrapBolt(t.tx.Bucket(name)) }
func (t boltKV) CreateBucket(name []byte) (kvBucket, error) {
	b, err := t.tx.CreateBucket(name)
	return wrapBolt(b), err
}
func (t boltKV) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	b, err := t.tx.CreateBucketIfNotExists(name)
	return wrapBolt(b), err
}
func (t boltKV) DeleteBucket(name []byte) error { return t.tx.DeleteBucket(name) }
func (t boltKV) Writable() bool                 { return t.tx.Writable() }

// boltBucket is a bbolt bucket as the collections see it.
type boltBucket struct{ b *bolt.Bucket }

// wrapBolt is b as a kvBucket: nil (no bucket) stays nil.
func wrapBolt(b *bolt.Bucket) kvBucket {
	if b == nil {
		return nil
	}
	return boltBucket{b}
}

func (b boltBucket) Get(key []byte) []byte       { return b.b.Get(key) }
func (b boltBucket) Put(key, value []byte) error { return b.b.Put(key, value) }
func (b boltBucket) Delete(key []byte) error     { return b.b.Delete(key) }
func (b boltBucket) Insert(key, value []byte) error {
	if b.b.Get(key) != nil {
		return errKeyExists
	}
	return b.b.Put(key, value)
}
func (b boltBucket) Cursor() kvCursor                         { return b.b.Cursor() }
func (b boltBucket) ForEach(fn func(k, v []byte) error) error { return b.b.ForEach(fn) }
func (b boltBucket) Bucket(name []byte) kvBucket              { return wrapBolt(b.b.Bucket(name)) }
func (b boltBucket) CreateBucketIfNotExists(name []byte) (kvBucket, error) {
	n, err := b.b.CreateBucketIfNotExists(name)
	return wrapBolt(n), err
}
func (b boltBucket) InOrder() { b.b.FillPercent = 0.9 }
