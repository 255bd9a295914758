package storage

import (
	"path/filepath"
	"strconv"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func openRaw(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "m.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMigration1 checks the first migration from an empty file: every foundation bucket exists
// and the version is recorded.
func TestMigration1(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(tx, 1) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketTenants, bucketPeople, bucketPeopleByEmail, bucketAPIKeys, bucketAPIKeysByLookup, bucketAPIKeysByPerson} {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing after migration 1", b)
			}
		}
		if v, _ := schemaVersion(tx); v != 1 {
			t.Errorf("schema version = %d, want 1", v)
		}
		return nil
	})
}

func TestMigrateIsIdempotentAndRefusesNewer(t *testing.T) {
	db := openRaw(t)
	for range 2 {
		if err := db.Update(migrate); err != nil {
			t.Fatal(err)
		}
	}
	db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(MetaSchema), []byte(strconv.Itoa(len(migrations)+1)))
	})
	if err := db.Update(migrate); err == nil {
		t.Fatal("a database of a newer schema was accepted")
	}
}
