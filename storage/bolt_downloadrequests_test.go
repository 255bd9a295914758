package storage

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestMigration19 starts from a schema-18 database with a download rule and checks that the
// download-request buckets are added without touching it.
func TestMigration19(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(tx, 18) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketDownloadRules).Put([]byte("t/r"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(tx, 19) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketDownloadRequests, bucketDownloadRequestsActive, bucketDownloadPackages, bucketDownloadItems} {
			if tx.Bucket(b) == nil {
				t.Errorf("%s missing after migration 19", b)
			}
		}
		if tx.Bucket(bucketDownloadRules).Get([]byte("t/r")) == nil {
			t.Error("migration 19 lost a rule")
		}
		if v, _ := schemaVersion(tx); v != 19 {
			t.Errorf("schema version = %d, want 19", v)
		}
		return nil
	})
}

// TestDownloadRequests: requests are tenant-scoped and counted; the active index follows
// Active, with the next attempt; a package is stored in chunks and read back whole; items keep their order and page;
// a delete takes the packages and items with it.
func TestDownloadRequests(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	next := now.Add(time.Minute)                                        // r3's next attempt, in the active index
	big := bytes.Repeat([]byte("0123456789abcdef"), chunkSize/16*2+100) // two chunks and a bit
	err = db.Update(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		for _, id := range []string{"r1", "r2"} {
			if err := rs.Put(DownloadRequest{ID: id, Active: id == "r1", CreatedAt: now}); err != nil {
				return err
			}
		}
		if err := tx.DownloadRequests("b").Put(DownloadRequest{ID: "r3", Active: true, NextAttemptDate: &next}); err != nil {
			return err
		}
		if n, err := rs.PutPackage("r1", "p_01", bytes.NewReader(big)); err != nil || n != int64(len(big)) {
			return fmt.Errorf("put package: %d %v", n, err)
		}
		for i := range 5 {
			if err := rs.AddItem("r1", ItemMetadata, []byte(fmt.Sprint(i))); err != nil {
				return err
			}
		}
		return rs.AddItem("r1", ItemXML, []byte("x"))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		list, total, err := rs.List(0, 10)
		if err != nil || total != 2 || len(list) != 2 || list[0].ID != "r1" || list[0].TenantID != "a" {
			t.Errorf("list %+v %d %v", list, total, err)
		}
		active, _ := tx.ActiveDownloadRequests()
		if len(active) != 2 || active[0] != (ActiveDownload{TenantID: "a", RequestID: "r1"}) || active[1] != (ActiveDownload{TenantID: "b", RequestID: "r3", Next: next}) {
			t.Errorf("active %v", active)
		}
		var got bytes.Buffer
		if err := rs.Package("r1", "p_01", &got); err != nil || !bytes.Equal(got.Bytes(), big) {
			t.Errorf("package: %d bytes, %v", got.Len(), err)
		}
		if err := rs.Package("r1", "p_02", &got); err != ErrNotFound {
			t.Errorf("absent package: %v", err)
		}
		items, total, _ := rs.Items("r1", ItemMetadata, 1, 2)
		if total != 5 || len(items) != 2 || string(items[0]) != "1" || string(items[1]) != "2" {
			t.Errorf("items %q %d", items, total)
		}
		return nil
	})
	db.Update(ctx, func(tx Tx) error {
		r, _ := tx.DownloadRequests("a").Get("r1")
		r.Active = false
		tx.DownloadRequests("a").Put(r)
		return tx.DownloadRequests("a").Delete("r1")
	})
	db.View(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		if _, err := rs.Get("r1"); err != ErrNotFound {
			t.Errorf("deleted: %v", err)
		}
		if _, total, _ := rs.Items("r1", ItemMetadata, 0, 10); total != 0 {
			t.Errorf("items after delete: %d", total)
		}
		if err := rs.Package("r1", "p_01", &bytes.Buffer{}); err != ErrNotFound {
			t.Errorf("package after delete: %v", err)
		}
		if _, total, _ := rs.List(0, 10); total != 1 {
			t.Errorf("total after delete %d", total)
		}
		active, _ := tx.ActiveDownloadRequests()
		if len(active) != 1 {
			t.Errorf("active after delete %v", active)
		}
		return nil
	})
}

// TestDownloadPackageInParts: a package stored chunk by chunk in several transactions reads back
// whole; DeletePackage clears it; TruncateItems keeps the first entries of a kind only.
func TestDownloadPackageInParts(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	parts := [][]byte{[]byte("PK0123"), []byte("4567"), []byte("89")}
	for i, p := range parts {
		err := db.Update(ctx, func(tx Tx) error {
			rs := tx.DownloadRequests("a")
			if err := rs.PutPackageChunk("r1", "p_01", i, p); err != nil {
				return err
			}
			for j := range 3 {
				if err := rs.AddItem("r1", ItemXML, fmt.Appendf(nil, "%d.%d", i, j)); err != nil {
					return err
				}
			}
			return rs.AddItem("r1", ItemMetadata, []byte("m"))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err = db.Update(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		var got bytes.Buffer
		if err := rs.Package("r1", "p_01", &got); err != nil || got.String() != "PK0123456789" {
			t.Errorf("package %q %v", got.String(), err)
		}
		if n, err := rs.TruncateItems("r1", ItemXML, 4); err != nil || n != 5 {
			t.Errorf("truncate: %d %v", n, err)
		}
		if n, err := rs.TruncateItems("r1", ItemXML, 10); err != nil || n != 0 {
			t.Errorf("truncate beyond: %d %v", n, err)
		}
		items, total, _ := rs.Items("r1", ItemXML, 0, 10)
		if total != 4 || string(items[3]) != "1.0" {
			t.Errorf("after truncate: %q", items)
		}
		if _, total, _ := rs.Items("r1", ItemMetadata, 0, 10); total != 3 {
			t.Errorf("another kind: %d", total)
		}
		if err := rs.DeletePackage("r1", "p_01"); err != nil {
			return err
		}
		if err := rs.Package("r1", "p_01", &got); err != ErrNotFound {
			t.Errorf("deleted package: %v", err)
		}
		// the next item after a truncate follows the kept ones
		if err := rs.AddItem("r1", ItemXML, []byte("new")); err != nil {
			return err
		}
		items, total, _ = rs.Items("r1", ItemXML, 4, 1)
		if total != 5 || string(items[0]) != "new" {
			t.Errorf("after add: %q %d", items, total)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
