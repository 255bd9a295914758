package storagetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// BackendEnv chooses the backend of the tests that open a store through Open: "postgres", or
// bbolt when unset. CI runs those tests on both.
const BackendEnv = "TIMBRA_TEST_BACKEND"

// Open is a new, empty store of the test's own: a bbolt file, or a PostgreSQL schema (pgtest)
// when TIMBRA_TEST_BACKEND is postgres. The caller closes it.
func Open(t testing.TB) (storage.Store, error) {
	t.Helper()
	if os.Getenv(BackendEnv) == "postgres" {
		return storage.OpenPostgres(context.Background(), pgtest.URL(t))
	}
	return storage.Open(filepath.Join(t.TempDir(), "t.db"))
}
