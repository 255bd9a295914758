package server

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// TestPostgresInitCheck: `server init` and `server check` on PostgreSQL: init makes the database
// and its master key and prints the keys; a second init refuses; check reads it (OK, its
// buckets), and names another key as a problem; backup's restore points at pg_restore.
func TestPostgresInitCheck(t *testing.T) {
	cmdtest.Isolate(t)
	url := pgtest.URL(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "master.key")

	r := runArgs(t, "server", "init", "--database", url, "--master-key-file", key, "--json")
	cmdtest.WantCode(t, r, 0)
	var creds api.Credentials
	if err := json.Unmarshal([]byte(r.Out), &creds); err != nil || !strings.HasPrefix(creds.APIKey, "sk_test_") {
		t.Fatalf("init printed %q (%v)", r.Out, err)
	}
	r = runArgs(t, "server", "init", "--database", url, "--master-key-file", key)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "second init", r.Err, "already holds a timbra database")

	r = runArgs(t, "server", "check", "--database", url, "--master-key-file", key)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "check", r.Out, "OK: tables, schema and master key", "tenants ", "people ", "environment  test")

	other := filepath.Join(dir, "other.key")
	if _, _, err := secrets.LoadOrCreate(other); err != nil {
		t.Fatal(err)
	}
	r = runArgs(t, "server", "check", "--database", url, "--master-key-file", other)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "check with another key", r.Out, "PROBLEM: the master key")
	r = runArgs(t, "server", "restore", filepath.Join(dir, "b.db"), "--database", url, "--master-key-file", key)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "restore", r.Err, "pg_restore")
}

// TestDatabaseFlagRules: a password in --database is refused without being repeated, --data and
// --database together are refused, and PostgreSQL needs --master-key-file. None of these
// reaches a database.
func TestDatabaseFlagRules(t *testing.T) {
	cmdtest.Isolate(t)
	key := filepath.Join(t.TempDir(), "m.key")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--database", "postgres://u:hunter2pw@127.0.0.1:1/db", "--master-key-file", key}, "no password in the connection string"},
		{[]string{"--database", "postgres://u@127.0.0.1:1/db?password=hunter2pw", "--master-key-file", key}, "no password in the connection string"},
		{[]string{"--database", "host=127.0.0.1 port=1 password=hunter2pw", "--master-key-file", key}, "no password in the connection string"},
		{[]string{"--database", "postgres://u@127.0.0.1:1/db", "--data", "x.db", "--master-key-file", key}, "--data and --database"},
		{[]string{"--database", "postgres://u@127.0.0.1:1/db"}, "needs --master-key-file"},
	} {
		for _, sub := range [][]string{{"server", "init"}, {"server", "check"}} {
			r := runArgs(t, append(sub, c.args...)...)
			if r.Code == 0 || strings.Contains(r.Out+r.Err, "hunter2pw") {
				t.Errorf("%v %v: exit %d, %s %s", sub, c.args, r.Code, r.Out, r.Err)
			}
			cmdtest.WantContains(t, strings.Join(c.args, " "), r.Err, c.want)
		}
	}
}

// TestPostgresMigrateData: a bbolt database made by `server init` is copied by `server
// migrate-data` into PostgreSQL (JSON report: every bucket verified); `server check` on
// PostgreSQL with the file's master key finds it sound, with its tenant; a second copy into
// it is refused without --replace; a password in --to is refused.
func TestPostgresMigrateData(t *testing.T) {
	cmdtest.Isolate(t)
	url := pgtest.URL(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	cmdtest.WantCode(t, runArgs(t, "server", "init", "--data", db, "--json"), 0)

	r := runArgs(t, "server", "migrate-data", "--from", db, "--to", url, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var rep struct {
		Buckets []struct {
			Bucket string
			Keys   int
			Sha256 string
		}
	}
	if err := json.Unmarshal([]byte(r.Out), &rep); err != nil || len(rep.Buckets) < 10 {
		t.Fatalf("report %q (%v)", r.Out, err)
	}
	keys := map[string]int{}
	for _, b := range rep.Buckets {
		keys[b.Bucket] = b.Keys
	}
	if keys["tenants"] != 1 || keys["people"] != 1 || keys["apikeys"] != 1 {
		t.Fatalf("copied: %v", keys)
	}
	r = runArgs(t, "server", "check", "--database", url, "--master-key-file", db+".key")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "check", r.Out, "OK: tables, schema and master key")

	r = runArgs(t, "server", "migrate-data", "--from", db, "--to", url)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "copy again", r.Err, "--replace")
	r = runArgs(t, "server", "migrate-data", "--from", db, "--to", url, "--replace")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "replace", r.Out, "each bucket verified", db+".key")

	r = runArgs(t, "server", "migrate-data", "--from", db, "--to", "postgres://u:hunter2pw@127.0.0.1/x")
	if r.Code == 0 || strings.Contains(r.Out+r.Err, "hunter2pw") || !strings.Contains(r.Err, "--to: no password") {
		t.Fatalf("a password in --to: %d %s %s", r.Code, r.Out, r.Err)
	}
}
