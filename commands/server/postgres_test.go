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
