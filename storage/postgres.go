package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the PostgreSQL backend, for several server nodes on one database: the same
// collections as bbolt's (collections.go), over one table of ordered keys (postgres_kv.go).
//
// Writes are serialized across every node by a transaction-level advisory lock, as bbolt
// serializes them in one process: a write transaction runs at READ COMMITTED after taking the
// lock, so it reads every write committed before it, and the collections' counters and unique
// indexes stay exact without retries. Reads run at REPEATABLE READ, read only: one snapshot per
// transaction, as a bbolt reader has. Batch groups concurrent writes of this node into one
// transaction (groupCommit).
type Postgres struct {
	pool   *pgxpool.Pool
	group  *groupCommit
	schema string
	// writer and migrator are this schema's advisory lock keys: one database may hold several
	// timbra schemas (search_path), each its own service.
	writer, migrator int64
	buckets          bucketSet
	// writeMu lets one write of this node at a time wait for the writer lock (with a
	// connection); the others wait here, holding none.
	writeMu sync.Mutex
	clock   writerClock
}

// OpenPostgres connects to the database at url (a postgres:// URL or a libpq key=value
// string; search_path, if given, is the schema used) and brings its schema up to date: the
// tables first (postgresMigrations), then the collections' own migrations, each under a lock so
// that nodes starting together migrate once.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, errNotAConnString
	}
	if !strings.Contains(url, "pool_max_conns") {
		// reads run in parallel (each holds a connection for its transaction); writes take one
		// at a time (writeMu), so a burst of writers never holds every connection
		cfg.MaxConns = int32(max(16, 4*runtime.NumCPU()))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	p := &Postgres{pool: pool}
	var schema *string
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if schema == nil {
		pool.Close()
		return nil, errors.New("PostgreSQL: no schema of the search_path exists: create it, or leave search_path out for public")
	}
	p.schema = *schema
	p.writer, p.migrator = lockKey("timbra writer "+p.schema), lockKey("timbra migrations "+p.schema)
	p.group = &groupCommit{update: func(fn func(kvTx) error) error { return p.write(context.Background(), fn) }}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate PostgreSQL schema %s: %w", p.schema, err)
	}
	return p, nil
}

// errNotAConnString is said instead of pgx's parse error, which quotes the string (and a
// password in it).
var errNotAConnString = errors.New("the database is not a PostgreSQL connection string (postgres://user@host:5432/database?sslmode=disable); it is not repeated here, as it may hold a password")

// lockKey is the advisory lock key of name.
func lockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return int64(h.Sum64())
}

// postgresMigrations are the tables, in order; postgresMigrations[i] brings the schema from
// version i to i+1. Append only.
var postgresMigrations = [][]string{
	// 1: the buckets and their keys; bucket paths are names joined by a zero byte (nested).
	{
		`CREATE TABLE timbra_buckets (path bytea PRIMARY KEY)`,
		`CREATE TABLE timbra_kv (bucket bytea NOT NULL, key bytea NOT NULL, value bytea NOT NULL,
			PRIMARY KEY (bucket, key))`,
	},
	// 2: the rate limiter's times, shared by the nodes (RateTimes); unlogged: after a crash
	// every subject starts with its whole limit, and no request waits for the log.
	{
		`CREATE UNLOGGED TABLE timbra_rate (subject text NOT NULL, family text NOT NULL, tat bigint NOT NULL,
			PRIMARY KEY (subject, family))`,
	},
}

func (p *Postgres) migrate(ctx context.Context) error {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", p.migrator); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", p.migrator)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS timbra_schema_migrations (
		version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	var applied int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM timbra_schema_migrations").Scan(&applied); err != nil {
		return err
	}
	if applied > len(postgresMigrations) {
		return fmt.Errorf("its tables are at version %d, newer than this timbra knows (%d): run a newer timbra", applied, len(postgresMigrations))
	}
	for v := applied; v < len(postgresMigrations); v++ {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			for _, stmt := range postgresMigrations[v] {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return err
				}
			}
			_, err := tx.Exec(ctx, "INSERT INTO timbra_schema_migrations (version) VALUES ($1)", v+1)
			return err
		})
		if err != nil {
			return fmt.Errorf("tables version %d: %w", v+1, err)
		}
	}
	return p.write(ctx, migrate)
}

// InspectPostgres reads what Inspect reads of a database file from a PostgreSQL database, without
// migrating or writing anything (a running server may use it meanwhile): the version of its
// tables, the schema version, the environment, the key check, and the keys of each bucket.
// PostgreSQL keeps its own pages' integrity; a problem here is timbra's.
func InspectPostgres(ctx context.Context, url string) (r Report, err error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		if _, perr := pgx.ParseConfig(url); perr != nil {
			return r, errNotAConnString
		}
		return r, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	var tables int
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM timbra_schema_migrations`).Scan(&tables); err != nil {
		return r, fmt.Errorf("%w: no timbra tables in this schema (%v)", ErrNotTimbra, err)
	}
	if tables > len(postgresMigrations) {
		r.Problems = append(r.Problems, fmt.Sprintf("tables version %d is newer than this timbra knows (%d)", tables, len(postgresMigrations)))
	}
	tx, err := conn.BeginTx(ctx, pgxReadOnly)
	if err != nil {
		return r, err
	}
	defer tx.Rollback(ctx)
	kv := newPgKV(ctx, tx, false, &bucketSet{})
	r.readMeta(kv.Bucket(bucketMeta))
	if r.Nodes, err = inspectNodes(kv, time.Now()); err != nil {
		return r, err
	}
	rows, err := tx.Query(ctx, `SELECT b.path, (SELECT count(*) FROM timbra_kv k WHERE k.bucket = b.path)
		+ (SELECT count(*) FROM timbra_buckets n WHERE n.path > b.path || '\x00'::bytea AND n.path < b.path || '\x01'::bytea
			AND position('\x00'::bytea IN substring(n.path FROM length(b.path) + 2)) = 0)
		FROM timbra_buckets b WHERE position('\x00'::bytea IN b.path) = 0 ORDER BY b.path`)
	if err != nil {
		return r, err
	}
	for rows.Next() {
		var c BucketCount
		var name []byte
		if err := rows.Scan(&name, &c.Keys); err != nil {
			rows.Close()
			return r, err
		}
		c.Name = string(name)
		r.Buckets = append(r.Buckets, c)
	}
	if err := rows.Err(); err != nil {
		return r, err
	}
	return r, kv.err
}

// Gauges reads the database figures in one read transaction: the size of timbra's tables (with
// their indexes and TOAST) and the outbox's depth.
func (p *Postgres) Gauges(ctx context.Context) (Gauges, error) {
	var g Gauges
	tx, err := p.pool.BeginTx(ctx, pgxReadOnly)
	if err != nil {
		return g, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := tx.QueryRow(ctx, `SELECT pg_total_relation_size('timbra_kv') + pg_total_relation_size('timbra_buckets')`).Scan(&g.SizeBytes); err != nil {
		return g, err
	}
	kv := newPgKV(ctx, tx, false, &p.buckets)
	n, err := outboxDepth(kv)
	g.OutboxDepth = n
	return g, kv.outcome(err)
}

// inspectNodes reads the nodes and how many unexpired leases each holds.
func inspectNodes(kv kvTx, now time.Time) ([]NodeSeen, error) {
	nodes, leases := kv.Bucket(bucketNodes), kv.Bucket(bucketLeases)
	if nodes == nil || leases == nil {
		return nil, nil
	}
	var out []NodeSeen
	at := map[string]int{}
	err := nodes.ForEach(func(k, v []byte) error {
		if len(v) == 8 {
			at[string(k)] = len(out)
			out = append(out, NodeSeen{Name: string(k), Seen: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = leases.ForEach(func(k, _ []byte) error {
		l, ok, err := (kvLeases{leases}).Get(string(k))
		if i, known := at[l.Node]; err == nil && ok && known && l.Until.After(now) {
			out[i].Leases++
		}
		return err
	})
	return out, err
}

// Drop removes timbra's tables from the schema, everything in them with them: a database made
// by a first start that failed, so that the next starts clean.
func (p *Postgres) Drop(ctx context.Context) error {
	_, err := p.pool.Exec(ctx, "DROP TABLE IF EXISTS timbra_kv, timbra_buckets, timbra_rate, timbra_schema_migrations")
	return err
}

// Close closes the connections.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}

// pgxReadOnly is a reading transaction: one snapshot, as a bbolt reader has.
var pgxReadOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// View implements Store.
func (p *Postgres) View(ctx context.Context, fn func(Tx) error) error {
	tx, err := p.pool.BeginTx(ctx, pgxReadOnly)
	if err != nil {
		return fmt.Errorf("storage: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	kv := newPgKV(ctx, tx, false, &p.buckets)
	if err := kv.outcome(fn(newTx(kv))); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Update implements Store.
func (p *Postgres) Update(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.write(ctx, func(tx kvTx) error { return fn(newTx(tx)) })
}

// Batch implements Store.
func (p *Postgres) Batch(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.group.do(func(tx kvTx) error { return fn(newTx(tx)) })
}

// write runs fn in one read-write transaction holding the writer lock, and commits it.
func (p *Postgres) write(ctx context.Context, fn func(kvTx) error) error {
	asked := time.Now()
	var got time.Time
	defer func() { p.clock.add(asked, got) }()
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	tx, err := p.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fmt.Errorf("storage: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", p.writer); err != nil {
		return fmt.Errorf("storage: writer lock: %w", err)
	}
	got = time.Now()
	kv := newPgKV(ctx, tx, true, &p.buckets)
	if err := kv.outcome(fn(kv)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("storage: commit: %w", err)
	}
	kv.committed()
	return nil
}

// Writer is the time this node's writes waited for the writer lock every node shares (this
// node's other writes first) and held it.
func (p *Postgres) Writer() WriterTime { return p.clock.read() }

// Schema is the PostgreSQL schema the store uses.
func (p *Postgres) Schema() string { return p.schema }
