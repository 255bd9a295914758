package storagetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// Open is a new, empty store of the test's own: a bbolt file, or a PostgreSQL schema (pgtest)
// when TIMBRA_TEST_BACKEND is postgres (pgtest.Chosen). The caller closes it.
func Open(t testing.TB) (storage.Store, error) {
	t.Helper()
	if pgtest.Chosen() {
		return storage.OpenPostgres(context.Background(), pgtest.URL(t))
	}
	return storage.Open(filepath.Join(t.TempDir(), "t.db"))
}
