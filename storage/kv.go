package storage

import "errors"

// The collections (people, invoices, events, …), their indexes and counters, and the migrations
// are written once, over ordered key-value buckets: kvTx, kvBucket and kvCursor, the part of
// bbolt's model they use. Each backend provides them: bbolt itself (bolt.go) and PostgreSQL
// (postgres_kv.go). No rule lives in a backend.

// kvTx is one transaction's buckets.
type kvTx interface {
	// Bucket is the named top-level bucket, nil when it does not exist.
	Bucket(name []byte) kvBucket
	CreateBucket(name []byte) (kvBucket, error)
	CreateBucketIfNotExists(name []byte) (kvBucket, error)
	DeleteBucket(name []byte) error
	Writable() bool
}

// kvBucket is an ordered set of keys and values, and of nested buckets. A value returned is
// valid until the transaction ends and must not be changed.
type kvBucket interface {
	Get(key []byte) []byte
	Put(key, value []byte) error
	// Insert puts a key that is not there, unread: a new record's key, its id just made. If it
	// is there the transaction fails (bbolt: Insert answers errKeyExists; PostgreSQL: when the
	// writes are sent, at the latest at commit).
	Insert(key, value []byte) error
	Delete(key []byte) error
	Cursor() kvCursor
	// ForEach calls fn for every key in order; the bucket must not change meanwhile.
	ForEach(fn func(k, v []byte) error) error
	Bucket(name []byte) kvBucket
	CreateBucketIfNotExists(name []byte) (kvBucket, error)
	// InOrder tells that keys will mostly be put in order (bbolt then fills its pages).
	InOrder()
}

// kvCursor walks a bucket's keys in order; a nil key is the end.
type kvCursor interface {
	First() (key, value []byte)
	Last() (key, value []byte)
	Next() (key, value []byte)
	Prev() (key, value []byte)
	Seek(seek []byte) (key, value []byte)
}

// kvPrefetcher is a bucket that reads many keys at once (PostgreSQL: one statement for all);
// the Gets of them that follow answer from what it read. bbolt's buckets need none.
type kvPrefetcher interface{ Prefetch(keys [][]byte) }

// prefetch reads keys of b ahead, when b can.
func prefetch(b kvBucket, keys [][]byte) {
	if p, ok := b.(kvPrefetcher); ok {
		p.Prefetch(keys)
	}
}

// errKeyExists: an Insert found its key there.
var errKeyExists = errors.New("storage: a new record's key is already there")
