package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// CopyToPostgres copies a bbolt database into a PostgreSQL one (timbra server migrate-data):
// every bucket, key and value as they are (secrets stay sealed under the same master key), in
// batches of one transaction each that also note how far the copy got, so that a copy cut short
// goes on where it stopped when run again. Then it verifies each bucket on both sides: its number
// of keys and a SHA-256 of its keys and values in order.

// CopyOptions say how to copy.
type CopyOptions struct {
	// Replace lets the copy go into a database that already holds a timbra database (not one
	// this copy started): its tables are emptied first.
	Replace bool
	// Progress, when set, is told each bucket's keys copied so far.
	Progress func(bucket string, keys int)
}

// CopiedBucket is one bucket as verified after the copy.
type CopiedBucket struct {
	Name     string `json:"bucket"`
	Keys     int    `json:"keys"`
	Checksum string `json:"sha256"`
}

// CopyReport is what a copy did.
type CopyReport struct {
	Resumed bool           `json:"resumed"`
	Buckets []CopiedBucket `json:"buckets"`
}

// copyBatch is the rows of one transaction of the copy (a variable for the tests), and
// copyBytes their most bytes.
var copyBatch = 2000

const copyBytes = 8 << 20

// ErrTargetNotEmpty is CopyToPostgres's answer for a target that holds another timbra database.
var ErrTargetNotEmpty = errors.New("the PostgreSQL database already holds a timbra database")

// CopyToPostgres copies the bbolt file at from into the PostgreSQL database at to.
func CopyToPostgres(ctx context.Context, from, to string, opt CopyOptions) (CopyReport, error) {
	var rep CopyReport
	src, err := bolt.Open(from, 0o600, &bolt.Options{ReadOnly: true, Timeout: 2 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return rep, fmt.Errorf("database %s is in use by another process (stop the server first)", from)
	}
	if err != nil {
		return rep, fmt.Errorf("open %s: %w", from, err)
	}
	defer src.Close()
	var identity string // the source's schema and creation time: a resumed copy is of the same
	err = src.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			return fmt.Errorf("%s: %w", from, ErrNotTimbra)
		}
		v, _ := strconv.Atoi(string(meta.Get([]byte(MetaSchema))))
		if v != SchemaVersion {
			return fmt.Errorf("%s has schema %d, this timbra %d: start it once with this timbra (timbra server --data %s migrates it), stop it, and copy again", from, v, SchemaVersion, from)
		}
		identity = strconv.Itoa(v) + " " + string(meta.Get([]byte(MetaCreatedAt)))
		return nil
	})
	if err != nil {
		return rep, err
	}

	dst, err := OpenPostgres(ctx, to)
	if err != nil {
		return rep, err
	}
	defer dst.Close()
	if rep.Resumed, err = dst.startCopy(ctx, identity, opt.Replace); err != nil {
		return rep, err
	}
	paths, err := boltBuckets(src)
	if err != nil {
		return rep, err
	}
	for _, path := range paths {
		if err := dst.copyBucket(ctx, src, path, opt.Progress); err != nil {
			return rep, fmt.Errorf("copy bucket %s: %w", printable(path), err)
		}
	}
	for _, path := range paths {
		want, err := boltChecksum(src, path)
		if err != nil {
			return rep, err
		}
		got, err := dst.checksum(ctx, path)
		if err != nil {
			return rep, err
		}
		if got != want {
			return rep, fmt.Errorf("bucket %s differs after the copy: %d keys (%s) in the file, %d (%s) in PostgreSQL",
				printable(path), want.Keys, want.Checksum, got.Keys, got.Checksum)
		}
		rep.Buckets = append(rep.Buckets, want)
	}
	_, err = dst.pool.Exec(ctx, `DROP TABLE timbra_copy_progress`)
	return rep, err
}

// startCopy prepares the target: a copy of the same source goes on; a target holding another
// timbra database is refused, or emptied with replace. It tells whether the copy resumes.
func (p *Postgres) startCopy(ctx context.Context, identity string, replace bool) (bool, error) {
	var exists bool
	if err := p.pool.QueryRow(ctx, `SELECT to_regclass('timbra_copy_progress') IS NOT NULL`).Scan(&exists); err != nil {
		return false, err
	}
	var source []byte
	if exists {
		err := p.pool.QueryRow(ctx, `SELECT last FROM timbra_copy_progress WHERE bucket = ''`).Scan(&source)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return false, err
		}
		if string(source) == identity && !replace {
			return true, nil
		}
	}
	var env []byte
	err := p.View(ctx, func(tx Tx) error {
		var err error
		env, err = tx.Meta().Get(MetaEnvironment)
		return err
	})
	if err != nil {
		return false, err
	}
	if (env != nil || exists) && !replace {
		return false, fmt.Errorf("%w: copy into an empty one, or pass --replace to empty it first (everything in it is lost)", ErrTargetNotEmpty)
	}
	return false, pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		for _, stmt := range []string{
			`DROP TABLE IF EXISTS timbra_copy_progress`,
			`CREATE TABLE timbra_copy_progress (bucket bytea PRIMARY KEY, last bytea, done boolean NOT NULL DEFAULT false)`,
			`TRUNCATE timbra_kv, timbra_buckets`,
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO timbra_copy_progress (bucket, last) VALUES ('', $1)`, []byte(identity))
		return err
	})
}

// boltBuckets is the path of every bucket of the file, nested ones after their parent.
func boltBuckets(db *bolt.DB) ([][]byte, error) {
	var paths [][]byte
	var walk func(prefix []byte, b *bolt.Bucket) error
	walk = func(prefix []byte, b *bolt.Bucket) error {
		return b.ForEachBucket(func(name []byte) error {
			path := append(append(bytes.Clone(prefix), 0), name...)
			paths = append(paths, path)
			return walk(path, b.Bucket(name))
		})
	}
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			paths = append(paths, bytes.Clone(name))
			return walk(bytes.Clone(name), b)
		})
	})
	return paths, err
}

// boltBucketAt opens the bucket at path in tx.
func boltBucketAt(tx *bolt.Tx, path []byte) *bolt.Bucket {
	parts := bytes.Split(path, []byte{0})
	b := tx.Bucket(parts[0])
	for _, p := range parts[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket(p)
	}
	return b
}

// copyBucket copies one bucket's keys after the last one copied, a batch a transaction.
func (p *Postgres) copyBucket(ctx context.Context, src *bolt.DB, path []byte, progress func(string, int)) error {
	var after []byte
	var done bool
	if err := p.pool.QueryRow(ctx, `SELECT last, done FROM timbra_copy_progress WHERE bucket = $1`, path).Scan(&after, &done); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if done {
		return nil
	}
	if _, err := p.pool.Exec(ctx, `INSERT INTO timbra_buckets (path) VALUES ($1) ON CONFLICT DO NOTHING`, path); err != nil {
		return err
	}
	copied := 0
	for {
		var keys, values [][]byte
		size := 0
		err := src.View(func(tx *bolt.Tx) error {
			b := boltBucketAt(tx, path)
			if b == nil {
				return nil
			}
			c := b.Cursor()
			k, v := c.First()
			if after != nil {
				if k, v = c.Seek(after); k != nil && bytes.Equal(k, after) {
					k, v = c.Next()
				}
			}
			for ; k != nil && len(keys) < copyBatch && size < copyBytes; k, v = c.Next() {
				if v == nil && b.Bucket(k) != nil {
					continue // a nested bucket: its own path
				}
				keys, values = append(keys, bytes.Clone(k)), append(values, append([]byte{}, v...))
				size += len(k) + len(v)
			}
			return nil
		})
		if err != nil {
			return err
		}
		done := len(keys) < copyBatch && size < copyBytes
		last := after
		if len(keys) > 0 {
			last = keys[len(keys)-1]
		}
		err = pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
			if len(keys) > 0 {
				paths := make([][]byte, len(keys))
				for i := range paths {
					paths[i] = path
				}
				if err := upsertRows(ctx, tx, paths, keys, values); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, `INSERT INTO timbra_copy_progress (bucket, last, done) VALUES ($1, $2, $3)
				ON CONFLICT (bucket) DO UPDATE SET last = excluded.last, done = excluded.done`, path, last, done)
			return err
		})
		if err != nil {
			return err
		}
		copied += len(keys)
		if progress != nil {
			progress(printable(path), copied)
		}
		if done {
			return nil
		}
		after = keys[len(keys)-1]
	}
}

// boltChecksum is a bucket's number of keys and the SHA-256 of its keys and values in order
// (each length-prefixed), as checksum reads it from PostgreSQL.
func boltChecksum(db *bolt.DB, path []byte) (CopiedBucket, error) {
	out := CopiedBucket{Name: printable(path)}
	h := sha256.New()
	err := db.View(func(tx *bolt.Tx) error {
		b := boltBucketAt(tx, path)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil && b.Bucket(k) != nil {
				continue
			}
			hashKV(h, k, v)
			out.Keys++
		}
		return nil
	})
	out.Checksum = fmt.Sprintf("%x", h.Sum(nil))
	return out, err
}

func (p *Postgres) checksum(ctx context.Context, path []byte) (CopiedBucket, error) {
	out := CopiedBucket{Name: printable(path)}
	h := sha256.New()
	rows, err := p.pool.Query(ctx, `SELECT key, value FROM timbra_kv WHERE bucket = $1 ORDER BY key`, path)
	if err != nil {
		return out, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return out, err
		}
		hashKV(h, k, v)
		out.Keys++
	}
	out.Checksum = fmt.Sprintf("%x", h.Sum(nil))
	return out, rows.Err()
}

func hashKV(h hash.Hash, k, v []byte) {
	h.Write(strconv.AppendInt(nil, int64(len(k)), 10))
	h.Write(k)
	h.Write(strconv.AppendInt(nil, int64(len(v)), 10))
	h.Write(v)
}

// printable is a bucket path as said: nested names joined by "/".
func printable(path []byte) string { return string(bytes.ReplaceAll(path, []byte{0}, []byte("/"))) }
