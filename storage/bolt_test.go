package storage_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func TestBoltConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store {
		db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

func TestBoltEventsConformance(t *testing.T) {
	storagetest.RunEvents(t, func(t *testing.T) storage.Store {
		db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}, ids.New)
}

func TestSecondOpenIsRefusedClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := storage.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = storage.Open(path)
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second open: %v", err)
	}
}

func TestBoltTaxFilesConformance(t *testing.T) {
	storagetest.RunTaxFiles(t, func(t *testing.T) storage.Store {
		db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
