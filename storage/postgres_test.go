package storage_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

// openPostgres is a new store in a schema of its own (pgtest.URL).
func openPostgres(t *testing.T) storage.Store {
	s, err := storage.OpenPostgres(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The conformance suite, unchanged, on PostgreSQL.
func TestPostgresConformance(t *testing.T)             { storagetest.Run(t, openPostgres) }
func TestPostgresEventsConformance(t *testing.T)       { storagetest.RunEvents(t, openPostgres, ids.New) }
func TestPostgresTaxFilesConformance(t *testing.T)     { storagetest.RunTaxFiles(t, openPostgres) }
func TestPostgresEmploymentConformance(t *testing.T)   { storagetest.RunEmployment(t, openPostgres) }
func TestPostgresInvoicesConformance(t *testing.T)     { storagetest.RunInvoices(t, openPostgres) }
func TestPostgresProductsConformance(t *testing.T)     { storagetest.RunProducts(t, openPostgres) }
func TestPostgresAutoInvoicesConformance(t *testing.T) { storagetest.RunAutoInvoices(t, openPostgres) }

// TestPostgresNodesStartTogether: four stores opening one new schema at once (four server nodes
// starting together) all open, and the tables and collections are migrated once.
func TestPostgresNodesStartTogether(t *testing.T) {
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	stores := make([]*storage.Postgres, 4)
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = storage.OpenPostgres(context.Background(), url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var versions, rows int
	if err := conn.QueryRow(context.Background(), "SELECT count(*), count(DISTINCT version) FROM timbra_schema_migrations").Scan(&rows, &versions); err != nil {
		t.Fatal(err)
	}
	if rows != versions || versions == 0 {
		t.Fatalf("tables migrated %d times for %d versions", rows, versions)
	}
	err = stores[3].View(context.Background(), func(tx storage.Tx) error {
		v, err := tx.Meta().Get("schema")
		if err != nil || string(v) != strconv.Itoa(storage.SchemaVersion) {
			return fmt.Errorf("schema %q (%v), want %d", v, err, storage.SchemaVersion)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresNodesExact: two nodes writing one tenant at once keep its counts exact and its
// e-mails unique: 2 × 40 people created concurrently (Update and Batch), of which 20 e-mails
// are wanted by both nodes: each e-mail is given once, and the count is what was stored.
func TestPostgresNodesExact(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	a, err := storage.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := storage.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tenant := "tenant-1"
	var taken, made atomic.Int64
	var wg sync.WaitGroup
	for n, s := range []*storage.Postgres{a, b} {
		for i := range 40 {
			wg.Go(func() {
				email := fmt.Sprintf("node%d-%d@example.com", n, i)
				if i < 20 {
					email = fmt.Sprintf("both-%d@example.com", i) // wanted by both nodes
				}
				now := time.Now().UTC()
				p := storage.Person{ID: ids.New(now), TenantID: tenant, Email: email, LegalName: "P", CreatedAt: now, UpdatedAt: now}
				write := s.Update
				if i%2 == 1 {
					write = s.Batch
				}
				err := write(ctx, func(tx storage.Tx) error { return tx.People(tenant).Put(p) })
				switch {
				case errors.Is(err, storage.ErrEmailTaken):
					taken.Add(1)
				case err != nil:
					t.Errorf("put %s: %v", email, err)
				default:
					made.Add(1)
				}
			})
		}
	}
	wg.Wait()
	if taken.Load() != 20 || made.Load() != 60 {
		t.Fatalf("%d made and %d refused as taken, want 60 and 20", made.Load(), taken.Load())
	}
	err = b.View(ctx, func(tx storage.Tx) error {
		n, err := tx.People(tenant).Count()
		if err != nil || n != 60 {
			return fmt.Errorf("count %d (%v), want 60", n, err)
		}
		people, total, err := tx.People(tenant).List(0, 100)
		if err != nil || total != 60 || len(people) != 60 {
			return fmt.Errorf("list %d of %d (%v), want 60", len(people), total, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresFailureIsTheOutcome: once a query of a transaction fails, the transaction answers
// that failure even when its function goes on and returns nil (the buckets' reads cannot return
// errors themselves), and nothing of a write is kept.
func TestPostgresFailureIsTheOutcome(t *testing.T) {
	s := openPostgres(t).(*storage.Postgres)
	ctx, cancel := context.WithCancel(context.Background())
	err := s.View(ctx, func(tx storage.Tx) error {
		cancel()
		_, err := tx.People("t").Get("p") // fails: the context is gone
		_ = err                           // a careless caller
		return nil
	})
	if err == nil {
		t.Fatal("a View whose read failed answered nil")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	now := time.Now().UTC()
	err = s.Update(ctx2, func(tx storage.Tx) error {
		if err := tx.People("t").Put(storage.Person{ID: "p1", TenantID: "t", Email: "a@example.com", CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		cancel2()
		_, _ = tx.People("t").Count()
		return nil
	})
	if err == nil {
		t.Fatal("an Update whose read failed answered nil")
	}
	err = s.View(context.Background(), func(tx storage.Tx) error {
		if n, err := tx.People("t").Count(); err != nil || n != 0 {
			return fmt.Errorf("after the failed write: %d people (%v), want 0", n, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresURLNotRepeated: a connection string that does not parse is refused without being
// repeated (it may hold a password).
func TestPostgresURLNotRepeated(t *testing.T) {
	_, err := storage.OpenPostgres(context.Background(), "postgres://user:s3cret-pw@host:notaport/db")
	if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
		t.Fatalf("err = %v", err)
	}
}

// TestPostgresNotifyReachesEveryNode: a payload notified by one node reaches every node's
// Listen, the notifier's too, in order.
func TestPostgresNotifyReachesEveryNode(t *testing.T) {
	url := pgtest.URL(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stores []*storage.Postgres
	got := make([]chan string, 2)
	for i := range 2 {
		s, err := storage.OpenPostgres(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
		got[i] = make(chan string, 10)
		go s.Listen(ctx, func(p string) { got[i] <- p })
	}
	// Listen connects in the background: notify until both have heard the first
	for _, ch := range got {
		deadline := time.After(10 * time.Second)
	wait:
		for {
			if err := stores[0].Notify(ctx, "ping"); err != nil {
				t.Fatal(err)
			}
			select {
			case p := <-ch:
				if p == "ping" {
					break wait
				}
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatal("Listen never heard a notification")
			}
		}
	}
	for _, ch := range got {
		for len(ch) > 0 {
			<-ch
		}
	}
	time.Sleep(100 * time.Millisecond)
	for _, ch := range got {
		for len(ch) > 0 {
			<-ch
		}
	}
	for _, p := range []string{"wake t1", "hook t1 w1"} {
		if err := stores[0].Notify(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	for i, ch := range got {
		for _, want := range []string{"wake t1", "hook t1 w1"} {
			select {
			case p := <-ch:
				if p != want {
					t.Fatalf("node %d heard %q, want %q", i, p, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("node %d did not hear %q", i, want)
			}
		}
	}
}

// TestPostgresReadIsOneSnapshot: a read transaction sees the database as of its first
// statement, whatever commits meanwhile (its BEGIN goes with that statement).
func TestPostgresReadIsOneSnapshot(t *testing.T) {
	s := openPostgres(t)
	ctx := context.Background()
	now := time.Now().UTC()
	put := func(id string) {
		t.Helper()
		err := s.Update(ctx, func(tx storage.Tx) error {
			return tx.People("t").Put(storage.Person{ID: id, TenantID: "t", Email: id + "@example.com", CreatedAt: now, UpdatedAt: now})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("p1")
	err := s.View(ctx, func(tx storage.Tx) error {
		if n, err := tx.People("t").Count(); err != nil || n != 1 {
			return fmt.Errorf("count %d (%v)", n, err)
		}
		put("p2") // committed by another transaction while this one reads
		people, total, err := tx.People("t").List(0, 10)
		if err != nil || total != 1 || len(people) != 1 {
			return fmt.Errorf("after another commit the read saw %d people of %d (%v), want its snapshot's 1", len(people), total, err)
		}
		if _, err := tx.People("t").Get("p2"); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("a person committed after the read began: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostgresInspectNodes: check reads the nodes of a shared database and the unexpired leases
// each holds, without writing.
func TestPostgresInspectNodes(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	s, err := storage.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now().UTC()
	err = s.Update(ctx, func(tx storage.Tx) error {
		for _, n := range []string{"node-a", "node-b"} {
			if err := tx.Nodes().Seen(n, now); err != nil {
				return err
			}
		}
		for name, l := range map[string]storage.Lease{
			"d/t/w1": {Node: "node-a", Until: now.Add(time.Minute)},
			"l/t/w2": {Node: "node-a", Until: now.Add(time.Minute), Note: "*"},
			"d/t/w3": {Node: "node-b", Until: now.Add(-time.Second)}, // expired
		} {
			if err := tx.Leases().Put(name, l); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := storage.InspectPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, n := range rep.Nodes {
		got[n.Name] = n.Leases
	}
	if len(got) != 2 || got["node-a"] != 2 || got["node-b"] != 0 {
		t.Fatalf("nodes: %+v", rep.Nodes)
	}
}
