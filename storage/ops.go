package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// WriteBackup writes a consistent copy of the whole database to w from one read transaction:
// writers go on while it runs, and the copy is the database as of the moment it began. It
// returns the bytes written.
func (b *Bolt) WriteBackup(ctx context.Context, w io.Writer) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	err := b.db.View(func(tx *bolt.Tx) error {
		var err error
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// Snapshot is a consistent copy of the whole database, as WriteBackup writes it, in a temporary
// file beside the database (mode 0600, named .timbra-backup-*), open for reading from its start,
// and its size; closing it removes it. The read transaction lasts as long as the copy to the
// local disk, not as long as whoever reads the snapshot takes: a write that must grow bbolt's
// memory map waits for every read transaction to end, and every later read and write waits
// for it.
func (b *Bolt) Snapshot(ctx context.Context) (io.ReadCloser, int64, error) {
	f, err := os.CreateTemp(filepath.Dir(b.db.Path()), ".timbra-backup-*")
	if err != nil {
		return nil, 0, fmt.Errorf("backup: %w", err)
	}
	s := snapshot{f}
	n, err := b.WriteBackup(ctx, f)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return nil, 0, errors.Join(fmt.Errorf("backup: %w", err), s.Close())
	}
	return s, n, nil
}

// snapshot is Snapshot's file: closing it removes it.
type snapshot struct{ *os.File }

func (s snapshot) Close() error { return errors.Join(s.File.Close(), os.Remove(s.Name())) }

// Gauges are the database figures the metrics report.
type Gauges struct {
	SizeBytes   int64 // the data file's size as of the read transaction
	OutboxDepth int   // pending deliveries of every tenant
}

// Gauges reads the database figures in one read transaction.
func (b *Bolt) Gauges(ctx context.Context) (Gauges, error) {
	var g Gauges
	if err := ctx.Err(); err != nil {
		return g, err
	}
	err := b.db.View(func(tx *bolt.Tx) error {
		g.SizeBytes = tx.Size()
		var err error
		g.OutboxDepth, err = outboxDepth(boltKV{tx})
		return err
	})
	return g, err
}

// outboxDepth is the number of pending deliveries of every tenant: the sum of one counter per
// webhook with pending deliveries (the cost grows with the webhooks, not the deliveries).
func outboxDepth(tx kvTx) (int, error) {
	b := tx.Bucket(bucketDeliveriesPendingCount)
	if b == nil {
		return 0, nil
	}
	n := 0
	err := b.ForEach(func(_, v []byte) error {
		if len(v) == 8 {
			n += int(binary.BigEndian.Uint64(v))
		}
		return nil
	})
	return n, err
}

// readMeta reads the schema version, the environment and the key check of meta (nil: none).
func (r *Report) readMeta(meta kvBucket) {
	if meta == nil {
		r.Problems = append(r.Problems, "no meta bucket: "+ErrNotTimbra.Error())
		return
	}
	v, err := strconv.Atoi(string(meta.Get([]byte(MetaSchema))))
	switch {
	case err != nil:
		r.Problems = append(r.Problems, fmt.Sprintf("schema version %q is not a number", meta.Get([]byte(MetaSchema))))
	case v < 1 || v > SchemaVersion:
		r.Problems = append(r.Problems, fmt.Sprintf("schema version %d is not one this timbra knows (1 to %d)", v, SchemaVersion))
	}
	r.Schema = v
	r.Environment = string(meta.Get([]byte(MetaEnvironment)))
	if kc := meta.Get([]byte(MetaKeyCheck)); kc != nil {
		r.KeyCheck = append([]byte(nil), kc...)
	}
}

// Report is what Inspect found in a database file.
type Report struct {
	Schema      int    // schema version stored in meta
	Environment string // stored environment
	KeyCheck    []byte // the value sealed with the master key (meta key_check), to check a key against
	// Buckets counts the keys of each top-level bucket (nested buckets counted as keys).
	Buckets []BucketCount
	// Problems lists what is wrong: integrity errors, an unknown schema, missing meta.
	Problems []string
	// Nodes are the server nodes of a shared database (PostgreSQL), with when each last said it
	// was up and how many leases it holds (the webhooks it sends to, its listen sessions).
	Nodes []NodeSeen
}

// NodeSeen is one node of a shared database as Inspect reads it.
type NodeSeen struct {
	Name   string
	Seen   time.Time
	Leases int // unexpired
}

// BucketCount is one bucket's number of keys.
type BucketCount struct {
	Name string
	Keys int
}

// ErrNotTimbra is Inspect's answer for a file that is not a bbolt database.
var ErrNotTimbra = errors.New("not a timbra database")

// maxCheckProblems bounds the integrity errors a report lists.
const maxCheckProblems = 20

// Inspect opens the database file at path read-only (no migration, no write), runs bbolt's
// integrity check and reads the schema version, the environment, the key check and the number
// of keys per bucket. It fails only when the file cannot be opened as a bbolt database; every
// other finding is a Problem. The database must not be open elsewhere (a running server).
func Inspect(path string) (r Report, err error) {
	if _, err := os.Stat(path); err != nil {
		return r, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return r, fmt.Errorf("database %s is in use by another process (stop the server first)", path)
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w (%v)", path, ErrNotTimbra, err)
	}
	defer db.Close()
	defer func() { // bbolt panics on some corrupted pages instead of answering an error
		if p := recover(); p != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("integrity: the file is corrupted (%v)", p))
			err = nil
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a page past the file's end
	err = db.View(func(tx *bolt.Tx) error {
		// every page read here first, where a damaged one's panic is recovered: bbolt's check
		// finds the free pages of a file not closed cleanly by walking them in a goroutine of
		// its own, which a damaged page would crash
		err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			r.Buckets = append(r.Buckets, BucketCount{Name: string(name), Keys: keysOf(b)})
			return nil
		})
		for cerr := range tx.Check() {
			if len(r.Problems) < maxCheckProblems {
				r.Problems = append(r.Problems, "integrity: "+cerr.Error())
			}
		}
		r.readMeta(boltKV{tx}.Bucket(bucketMeta))
		return err
	})
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
	}
	sort.Slice(r.Buckets, func(i, j int) bool { return r.Buckets[i].Name < r.Buckets[j].Name })
	return r, nil
}

// keysOf counts the keys of b, reading the pages of the buckets nested in it too.
func keysOf(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n++
		if v == nil {
			if nested := b.Bucket(k); nested != nil {
				keysOf(nested)
			}
		}
	}
	return n
}

// WriterTime is what this process's write transactions spent on the writer: bbolt's single
// writer, or on PostgreSQL the writer lock every node shares. Held, summed over the nodes and
// divided by the time elapsed, is how busy the writer was: near 1, writes wait for each other
// and more nodes or CPUs add no writes.
type WriterTime struct {
	Writes int64         // write transactions, committed or not
	Waited time.Duration // from asking for the writer until holding it
	Held   time.Duration // from holding the writer until the commit returned
}

// writerClock adds up WriterTime; its methods are safe for concurrent use.
type writerClock struct{ writes, waited, held atomic.Int64 }

// add records one write: asked when it asked for the writer, got when it had it (zero when it
// never did), and now its end.
func (c *writerClock) add(asked, got time.Time) {
	now := time.Now()
	if got.IsZero() {
		got = now
	}
	c.writes.Add(1)
	c.waited.Add(int64(got.Sub(asked)))
	c.held.Add(int64(now.Sub(got)))
}

func (c *writerClock) read() WriterTime {
	return WriterTime{Writes: c.writes.Load(), Waited: time.Duration(c.waited.Load()), Held: time.Duration(c.held.Load())}
}
