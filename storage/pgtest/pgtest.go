// Package pgtest gives tests a PostgreSQL schema of their own.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the PostgreSQL database of the tests: a postgres:// URL.
const Env = "TIMBRA_TEST_POSTGRES"

// BackendEnv chooses the backend of the tests that can run on either: "postgres", or bbolt when
// unset. CI runs those tests on both.
const BackendEnv = "TIMBRA_TEST_BACKEND"

// Chosen tells whether the tests that can run on either backend run on PostgreSQL.
func Chosen() bool { return os.Getenv(BackendEnv) == "postgres" }

// URL is the URL of a new, empty schema of the test database (TIMBRA_TEST_POSTGRES),
// dropped when the test ends. Without the variable the test is skipped, or fails where CI is
// set (CI runs every PostgreSQL test); a database that cannot be reached fails it.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set: CI runs the PostgreSQL tests", Env)
		}
		t.Skipf("%s is not set: set it to a PostgreSQL URL, such as postgres://root@127.0.0.1:5432/test?sslmode=disable, to run the PostgreSQL tests", Env)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s is not a postgres:// URL", Env)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "timbra_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
