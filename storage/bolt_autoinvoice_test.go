package storage_test

import (
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func TestBoltAutoInvoicesConformance(t *testing.T) {
	storagetest.RunAutoInvoices(t, func(t *testing.T) storage.Store {
		db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
