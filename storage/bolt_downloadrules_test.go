package storage

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestMigration9 starts from a schema-8 database with an invoice and checks that the
// download-rules bucket is added without touching it.
func TestMigration9(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 8) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketInvoices).Put([]byte("t/i"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 9) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDownloadRules) == nil {
			t.Error("download_rules bucket missing after migration 9")
		}
		if tx.Bucket(bucketInvoices).Get([]byte("t/i")) == nil {
			t.Error("migration 9 lost an invoice")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 9 {
			t.Errorf("schema version = %d, want 9", v)
		}
		return nil
	})
}

// TestDownloadRulesAndSubscription: rules are tenant-scoped, listed in creation order, deleted;
// a tenant's subscription round-trips with the tenant.
func TestDownloadRulesAndSubscription(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	err = db.Update(ctx, func(tx Tx) error {
		if err := tx.Tenants().Put(Tenant{ID: "a", Subscription: &Subscription{AutoCfdi: true, DownloadSeats: 3, UpdatedAt: now}}); err != nil {
			return err
		}
		for _, id := range []string{"r1", "r2"} {
			if err := tx.DownloadRules("a").Put(DownloadRule{ID: id, Description: id, CreatedAt: now}); err != nil {
				return err
			}
		}
		return tx.DownloadRules("b").Put(DownloadRule{ID: "r3"})
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(ctx, func(tx Tx) error {
		tn, err := tx.Tenants().Get("a")
		if err != nil || tn.Subscription == nil || !tn.Subscription.AutoCfdi || tn.Subscription.DownloadSeats != 3 {
			t.Errorf("tenant = %+v, %v", tn, err)
		}
		rs, total, err := tx.DownloadRules("a").List(0, 10)
		if err != nil || total != 2 || len(rs) != 2 || rs[0].ID != "r1" || rs[1].TenantID != "a" {
			t.Errorf("list = %+v, %d, %v", rs, total, err)
		}
		if _, err := tx.DownloadRules("a").Get("r3"); err != ErrNotFound {
			t.Errorf("other tenant's rule: %v", err)
		}
		return nil
	})
	db.Update(ctx, func(tx Tx) error { return tx.DownloadRules("a").Delete("r1") })
	db.View(ctx, func(tx Tx) error {
		if _, err := tx.DownloadRules("a").Get("r1"); err != ErrNotFound {
			t.Errorf("deleted rule: %v", err)
		}
		return nil
	})
}
