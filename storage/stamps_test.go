package storage

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	bolt "go.etcd.io/bbolt"
)

// TestStampTransactions: movements are kept per tenant in the order they are added, counted.
func TestStampTransactions(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	err = s.Update(ctx, func(tx Tx) error {
		for i, id := range []string{"01a", "01b", "01c"} {
			if err := tx.StampTransactions("a").Add(StampTransaction{ID: id, Consecutive: int64(i + 1), Amount: 1, CreatedAt: now}); err != nil {
				return err
			}
		}
		return tx.StampTransactions("b").Add(StampTransaction{ID: "01d", Consecutive: 1, CreatedAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.View(ctx, func(tx Tx) error {
		page, total, err := tx.StampTransactions("a").List(1, 5)
		if err != nil || total != 3 || len(page) != 2 || page[0].ID != "01b" || page[1].TenantID != "a" {
			t.Errorf("list: %+v %d %v", page, total, err)
		}
		if _, err := tx.StampTransactions("b").Get("01a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another tenant's: %v", err)
		}
		if got, err := tx.StampTransactions("b").Get("01d"); err != nil || got.Consecutive != 1 {
			t.Errorf("get: %+v %v", got, err)
		}
		return nil
	})
}

// addsUp checks a tenant's history of movements: numbered 1.. in order, and for every person
// and credit type each balance after a movement is the one before plus what it moved, from 0,
// ending at the person's balance; it answers the movements.
func addsUp(t *testing.T, tx Tx, tenant string) []StampTransaction {
	t.Helper()
	txs := tx.StampTransactions(tenant)
	_, n, _ := txs.List(0, 0)
	all, _, err := txs.List(0, n)
	if err != nil {
		t.Fatal(err)
	}
	type held struct {
		person string
		ct     int
	}
	running := map[held]int64{}
	for i, m := range all {
		if m.Consecutive != int64(i+1) {
			t.Errorf("tenant %s: movement %d numbered %d", tenant, i+1, m.Consecutive)
		}
		for _, side := range []struct {
			person string
			sign   int64
			after  *int64
		}{{m.FromPersonID, -1, m.FromBalance}, {m.ToPersonID, 1, m.ToBalance}} {
			if side.person == "" {
				continue
			}
			k := held{side.person, m.CreditType}
			running[k] += side.sign * m.Amount
			if side.after == nil || *side.after != running[k] {
				t.Errorf("tenant %s, movement %d: %s's balance after is %v, the history adds up to %d", tenant, m.Consecutive, side.person, side.after, running[k])
			}
		}
	}
	people, _, err := tx.People(tenant).List(0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range people {
		for _, b := range p.Balances {
			if running[held{p.ID, b.CreditType}] != b.Available {
				t.Errorf("tenant %s: %s holds %d of type %d, the history adds up to %d", tenant, p.ID, b.Available, b.CreditType, running[held{p.ID, b.CreditType}])
			}
		}
	}
	return all
}

// TestMigrationOpeningMovements: a database made at schema 19 holds balances and no movement;
// migrated, each non-zero balance has one opening movement (a grant to the person, the balance
// after it, the opening comment), a zero balance none, and every history adds up. A database
// migrated to schema 20 before, with a movement recorded since, gets its opening before that
// movement, which is numbered after it.
func TestMigrationOpeningMovements(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 19) }); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	people := []Person{
		{ID: "01900000-0000-7000-8000-000000000001", TenantID: "a", Email: "owner@a", IsOwner: true, CreatedAt: at,
			Balances: []Balance{{CreditType: 1, Available: 500}, {CreditType: 2, Available: 20}}},
		{ID: "01900000-0000-7000-8000-000000000002", TenantID: "a", Email: "ana@a", CreatedAt: at, Balances: []Balance{{CreditType: 1, Available: 0}}},
		{ID: "01900000-0000-7000-8000-000000000003", TenantID: "a", Email: "beto@a", CreatedAt: at, Balances: []Balance{{CreditType: 3, Available: 7}}},
		{ID: "01900000-0000-7000-8000-000000000004", TenantID: "b", Email: "owner@b", IsOwner: true, CreatedAt: at},
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for _, p := range people {
			raw, _ := json.Marshal(p)
			if err := tx.Bucket(bucketPeople).Put(key(p.TenantID, p.ID), raw); err != nil {
				return err
			}
		}
		return countListed(boltKV{tx})
	})
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if err := db.Update(func(tx *bolt.Tx) error { return migrate(boltKV{tx}) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		all := addsUp(t, newTx(boltKV{tx}), "a")
		want := []struct {
			person string
			ct     int
			amount int64
		}{{people[0].ID, 1, 500}, {people[0].ID, 2, 20}, {people[2].ID, 3, 7}}
		if len(all) != len(want) {
			t.Fatalf("tenant a: %d movements, want %d: %+v", len(all), len(want), all)
		}
		for i, w := range want {
			m := all[i]
			if m.ToPersonID != w.person || m.CreditType != w.ct || m.Amount != w.amount || m.FromPersonID != "" || m.TransactionType != 1 ||
				m.TransactionStatus != 1 || m.Comments != OpeningComment || m.CreatedAt.Before(before.Add(-time.Millisecond)) || m.TenantID != "a" {
				t.Errorf("opening %d: %+v", i, m)
			}
		}
		if _, n, _ := newTx(boltKV{tx}).StampTransactions("b").List(0, 0); n != 0 {
			t.Errorf("tenant b, without credits, has %d movements", n)
		}
		return nil
	})

	// schema 20 before, with a consumption recorded since: the opening goes first
	db = openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 20) }); err != nil {
		t.Fatal(err)
	}
	owner := people[0]
	owner.Balances = []Balance{{CreditType: 1, Available: 499}}
	used := StampTransaction{ID: "01970000-0000-7000-8000-00000000000a", Consecutive: 1, FromPersonID: owner.ID, Amount: 1,
		TransactionType: 3, TransactionStatus: 1, CreditType: 1, ReferenceID: "inv-1", FromBalance: new(int64(499)), CreatedAt: at.AddDate(0, 1, 0)}
	err = db.Update(func(tx *bolt.Tx) error {
		if err := newTx(boltKV{tx}).People("a").Put(owner); err != nil {
			return err
		}
		return newTx(boltKV{tx}).StampTransactions("a").Add(used)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrate(boltKV{tx}) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		all := addsUp(t, newTx(boltKV{tx}), "a")
		if len(all) != 2 || all[0].Amount != 500 || all[0].Comments != OpeningComment || !all[0].CreatedAt.Equal(used.CreatedAt) ||
			all[1].ID != used.ID || all[1].ReferenceID != "inv-1" || all[1].Consecutive != 2 {
			t.Errorf("after the migration: %+v", all)
		}
		return nil
	})
	// opening again adds nothing: the history already adds up
	if err := db.Update(func(tx *bolt.Tx) error { return openingMovements(boltKV{tx}, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if _, n, _ := newTx(boltKV{tx}).StampTransactions("a").List(0, 0); n != 2 {
			t.Errorf("opening again made %d movements", n)
		}
		return nil
	})
}

// TestOpeningIDs: the ids of opening movements are UUIDs version 7 of their millisecond, in
// the order of their sequence within it, and before any id of a later millisecond.
func TestOpeningIDs(t *testing.T) {
	ms := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC).UnixMilli()
	prev := ""
	for _, c := range []struct {
		ms  int64
		seq uint16
	}{{ms, 0}, {ms, 1}, {ms, 4095}, {ms + 1, 0}} {
		id := uuidV7(c.ms, c.seq)
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 || idMillis(id) != c.ms {
			t.Fatalf("%s: %v version %d, millisecond %d want %d", id, err, u.Version(), idMillis(id), c.ms)
		}
		if id <= prev {
			t.Errorf("%s does not sort after %s", id, prev)
		}
		prev = id
	}
	if idMillis("not-an-id") != math.MaxInt64 {
		t.Error("an id that is not a UUID has a time")
	}
}
