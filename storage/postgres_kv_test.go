package storage

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	neturl "net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/timbra-mx/timbra/storage/pgtest"
	bolt "go.etcd.io/bbolt"
)

// openTestPostgres opens a PostgreSQL store in a schema of the test's own (pgtest), closed
// when the test ends.
func openTestPostgres(t *testing.T) *Postgres {
	t.Helper()
	p, err := OpenPostgres(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestPostgresKVAgreesWithBolt runs the same random operations on PostgreSQL's buckets and on
// bbolt's, and compares every answer: gets, puts and deletes, cursors walking both ways across
// their batches (more keys than a batch, values large enough to shrink one), seeks between keys
// and past the ends, changes of direction, nested buckets, and a bucket deleted and made again;
// range reads in the middle of writes; inserts, which fail their transaction on a key that is
// there.
func TestPostgresKVAgreesWithBolt(t *testing.T) {
	ctx := context.Background()
	pg := openTestPostgres(t)
	db, err := bolt.Open(filepath.Join(t.TempDir(), "kv.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	rng := rand.New(rand.NewPCG(1, 2))
	randKey := func(r *rand.Rand) []byte {
		k := make([]byte, 1+r.IntN(3))
		for i := range k {
			k[i] = byte('a' + r.IntN(8))
		}
		if r.IntN(10) == 0 {
			k = append(k, 0xff) // bytes above ASCII order as bytes, not as text
		}
		return k
	}
	randValue := func(r *rand.Rand) []byte {
		switch r.IntN(20) {
		case 0:
			return []byte{} // empty: present, not absent
		case 1:
			return bytes.Repeat([]byte{byte(r.IntN(256))}, 300_000) // a batch's bytes stop its growth
		}
		return []byte(fmt.Sprint(r.Int()))
	}
	// leaves: two top-level buckets, and two nested in a third that holds only them (a walk
	// of a bucket with nested buckets is bbolt's own: it shows them as keys without values)
	names := [][]byte{[]byte("one"), []byte("two")}
	outer, inner := []byte("outer"), [][]byte{[]byte("in1"), []byte("in2")}

	// each step runs the same function on both and compares what it logged
	step := func(i int, write bool, fn func(tx kvTx, log *bytes.Buffer) error) {
		t.Helper()
		var pgLog, boltLog bytes.Buffer
		run := func(tx kvTx, log *bytes.Buffer) error { return fn(tx, log) }
		var pgErr, boltErr error
		if write {
			pgErr = pg.write(ctx, func(tx kvTx) error { return run(tx, &pgLog) })
			boltErr = db.Update(func(tx *bolt.Tx) error { return run(boltKV{tx}, &boltLog) })
		} else {
			pgTx, err := pg.pool.BeginTx(ctx, pgxReadOnly)
			if err != nil {
				t.Fatal(err)
			}
			kv := newPgKV(ctx, pgTx, false, &pg.buckets)
			pgErr = kv.outcome(run(kv, &pgLog))
			pgTx.Rollback(ctx)
			boltErr = db.View(func(tx *bolt.Tx) error { return run(boltKV{tx}, &boltLog) })
		}
		if (pgErr == nil) != (boltErr == nil) {
			t.Fatalf("step %d: PostgreSQL %v, bbolt %v", i, pgErr, boltErr)
		}
		// a failed write ends where its error shows: at once on bbolt, as late as the commit on
		// PostgreSQL (an Insert over a key there); both roll back, the reads after compare
		if pgErr == nil && !bytes.Equal(pgLog.Bytes(), boltLog.Bytes()) {
			t.Fatalf("step %d differs:\nPostgreSQL %s\nbbolt      %s", i, short(pgLog.Bytes()), short(boltLog.Bytes()))
		}
	}
	logKV := func(log *bytes.Buffer, what string, k, v []byte) {
		fmt.Fprintf(log, "%s %q=", what, k)
		if v == nil {
			log.WriteString("nil;")
		} else {
			fmt.Fprintf(log, "%d:%x;", len(v), v[:min(len(v), 8)])
		}
	}
	// readAhead reads a few keys ahead (a page's records), some of them twice, then each
	readAhead := func(r *rand.Rand, b kvBucket, log *bytes.Buffer) {
		keys := make([][]byte, 1+r.IntN(8))
		for j := range keys {
			keys[j] = randKey(r)
		}
		prefetch(b, keys)
		for _, k := range keys {
			logKV(log, "ahead", k, b.Get(k))
		}
	}
	bucketOf := func(tx kvTx, r *rand.Rand) kvBucket {
		if i := r.IntN(4); i < 2 {
			return tx.Bucket(names[i])
		} else if b := tx.Bucket(outer); b != nil {
			return b.Bucket(inner[i-2])
		}
		return nil
	}
	makeOuter := func(tx kvTx) error {
		b, err := tx.CreateBucket(outer)
		if err != nil {
			return err
		}
		for _, n := range inner {
			if _, err := b.CreateBucketIfNotExists(n); err != nil {
				return err
			}
		}
		return nil
	}

	step(-1, true, func(tx kvTx, _ *bytes.Buffer) error {
		for _, n := range names {
			if _, err := tx.CreateBucket(n); err != nil {
				return err
			}
		}
		return makeOuter(tx)
	})
	for i := range 400 {
		seed := rng.Uint64()
		op := rng.IntN(10)
		switch {
		case op < 4: // writes
			step(i, true, func(tx kvTx, log *bytes.Buffer) error {
				r := rand.New(rand.NewPCG(seed, 0))
				for range 1 + r.IntN(40) {
					b := bucketOf(tx, r)
					if b == nil {
						log.WriteString("no bucket;")
						continue
					}
					if r.IntN(5) == 0 { // keys read ahead mid-transaction, then each read
						readAhead(r, b, log)
						continue
					}
					if r.IntN(8) == 0 { // a range read mid-transaction sees the writes before it
						c := b.Cursor()
						k, v := c.Seek(randKey(r))
						for range r.IntN(6) {
							logKV(log, "walk", k, v)
							k, v = c.Next()
						}
						logKV(log, "walk", k, v)
						continue
					}
					k := randKey(r)
					if r.IntN(4) == 0 {
						if err := b.Delete(k); err != nil {
							return err
						}
						continue
					}
					if err := b.Put(k, randValue(r)); err != nil {
						return err
					}
				}
				return nil
			})
		case op == 5 && rng.IntN(2) == 0: // inserts: a key there fails the transaction, on both
			step(i, true, func(tx kvTx, log *bytes.Buffer) error {
				r := rand.New(rand.NewPCG(seed, 2))
				for range 1 + r.IntN(4) {
					b := bucketOf(tx, r)
					if b == nil {
						continue
					}
					k := randKey(r)
					if err := b.Insert(k, randValue(r)); err != nil {
						return err
					}
					switch r.IntN(4) {
					case 0: // inserted, then written again
						if err := b.Put(k, randValue(r)); err != nil {
							return err
						}
					case 1: // inserted, then deleted: it must not have been there either
						if err := b.Delete(k); err != nil {
							return err
						}
					}
					logKV(log, "inserted", k, b.Get(k))
				}
				return nil
			})
		case op == 4 && rng.IntN(4) == 0: // a bucket removed and made again, as the catalogs do
			step(i, true, func(tx kvTx, log *bytes.Buffer) error {
				if err := tx.DeleteBucket(outer); err != nil {
					return err
				}
				if tx.Bucket(outer) != nil {
					log.WriteString("still there;")
				}
				b, err := tx.CreateBucket(outer)
				if err != nil {
					return err
				}
				if b.Bucket(inner[0]) != nil {
					log.WriteString("nested kept;")
				}
				if tx.DeleteBucket(outer) != nil || makeOuter(tx) != nil {
					log.WriteString("not made again;")
				}
				return nil
			})
		default: // reads: a walk from a seek, first or last, with turns
			step(i, false, func(tx kvTx, log *bytes.Buffer) error {
				r := rand.New(rand.NewPCG(seed, 1))
				b := bucketOf(tx, r)
				if b == nil {
					log.WriteString("no bucket;")
					return nil
				}
				if r.IntN(3) == 0 {
					readAhead(r, b, log)
				}
				k := randKey(r)
				logKV(log, "get", k, b.Get(k))
				c := b.Cursor()
				var ck, cv []byte
				switch r.IntN(3) {
				case 0:
					ck, cv = c.Seek(k)
				case 1:
					ck, cv = c.First()
				default:
					ck, cv = c.Last()
				}
				logKV(log, "at", ck, cv)
				forward := r.IntN(2) == 0
				for range r.IntN(600) {
					if ck == nil {
						break
					}
					if r.IntN(30) == 0 {
						forward = !forward
					}
					if forward {
						ck, cv = c.Next()
					} else {
						ck, cv = c.Prev()
					}
					logKV(log, "step", ck, cv)
				}
				n := 0
				err := b.ForEach(func(k, v []byte) error {
					n++
					return nil
				})
				fmt.Fprintf(log, "keys %d;", n)
				return err
			})
		}
	}
}

func short(b []byte) []byte {
	if len(b) > 2000 {
		return b[len(b)-2000:]
	}
	return b
}

// TestPostgresLeadOneAtATime: three nodes ask for the same lead; one leads at a time. When the
// leader's connection dies (terminated by the server, as when its machine goes), another node
// leads within seconds; when a node stops, its lead goes to another.
func TestPostgresLeadOneAtATime(t *testing.T) {
	url := pgtest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var leading, most, turns atomic.Int64
	var mu sync.Mutex
	leaders := map[int]bool{}
	stops := make([]context.CancelFunc, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		s, err := OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		nctx, stop := context.WithCancel(ctx)
		stops[i] = stop
		wg.Go(func() {
			s.Lead(nctx, "scheduler", func(lctx context.Context) {
				n := leading.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				turns.Add(1)
				mu.Lock()
				leaders[i] = true
				mu.Unlock()
				<-lctx.Done()
				mu.Lock()
				delete(leaders, i)
				mu.Unlock()
				leading.Add(-1)
			})
		})
	}
	leader := func(want int64) int {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			n := len(leaders)
			who := -1
			for i := range leaders {
				who = i
			}
			mu.Unlock()
			if n == 1 && turns.Load() >= want {
				return who
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("no single leader after %d turns", turns.Load())
		return -1
	}
	first := leader(1)

	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// the lead's lock, by its key: other tests share the database
	key := uint64(lockKey("timbra lead scheduler " + schemaOf(t, url)))
	var killed int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_locks
		WHERE locktype = 'advisory' AND granted AND classid = $1 AND objid = $2 AND objsubid = 1`,
		uint32(key>>32), uint32(key)).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminated %d leaders (%v)", killed, err)
	}
	second := leader(2)
	stops[second]()
	third := leader(3)
	if third == second {
		t.Fatalf("a stopped node leads again")
	}
	cancel()
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d nodes led at once", most.Load())
	}
	t.Logf("leaders in turn: %d, %d, %d", first, second, third)
}

// schemaOf is the search_path of a pgtest URL.
func schemaOf(t *testing.T, url string) string {
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

// TestPostgresPrefetchPlanStaysIndexed: the plan PostgreSQL keeps for the read of many keys,
// made while the table holds one row, still looks each key up by the primary key once the
// bucket holds 20,000: no scan of the bucket with the keys as a filter (the plan "key =
// ANY($2)" kept).
func TestPostgresPrefetchPlanStaysIndexed(t *testing.T) {
	ctx := context.Background()
	pg := openTestPostgres(t)
	conn, err := pg.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`INSERT INTO timbra_kv (bucket, key, value) VALUES ('b', 'k', 'v')`)
	exec(`SET plan_cache_mode = force_generic_plan`)
	exec(`PREPARE prefetch(bytea, bytea[]) AS ` + prefetchSQL)
	for range 6 {
		exec(`EXECUTE prefetch('b', ARRAY['k', 'x']::bytea[])`)
	}
	exec(`INSERT INTO timbra_kv (bucket, key, value) SELECT 'b', convert_to('k' || g, 'UTF8'), 'v' FROM generate_series(1, 20000) g`)
	rows, err := conn.Query(ctx, `EXPLAIN (ANALYZE, FORMAT TEXT) EXECUTE prefetch('b', ARRAY['k1', 'k2']::bytea[])`)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(lines, "\n")
	if !strings.Contains(text, "(key = k.key)") || strings.Contains(text, "Rows Removed by Filter") {
		t.Fatalf("the kept plan does not look each key up:\n%s", text)
	}
	exec(`DEALLOCATE prefetch`)
	exec(`RESET plan_cache_mode`)
}
