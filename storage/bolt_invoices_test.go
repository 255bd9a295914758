package storage_test

import (
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func TestBoltInvoicesConformance(t *testing.T) {
	storagetest.RunInvoices(t, func(t *testing.T) storage.Store {
		db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
