package server

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/secrets"
	apiserver "github.com/timbra-mx/timbra/server"
)

// testAdminToken is the operator token of liveServer.
const testAdminToken = "op-token-0123456789"

// liveServer runs a real server over a new database in dir; stop closes it and its database.
func liveServer(t *testing.T, dir string) (base, dbPath string, stop func()) {
	t.Helper()
	dbPath = filepath.Join(dir, "live.db")
	d, err := apiserver.OpenData(apiserver.DataOptions{Path: dbPath})
	if err != nil {
		t.Fatal(err)
	}
	s, err := apiserver.New(apiserver.Config{Environment: d.Environment, AdminToken: testAdminToken, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			hs.Close()
			d.Store.Close()
		}
	}
	t.Cleanup(stop)
	return hs.URL, dbPath, stop
}

func TestServerBackupRestoreCheck(t *testing.T) {
	cmdtest.Isolate(t)
	dir := t.TempDir()
	base, live, stop := liveServer(t, dir)
	backup := filepath.Join(dir, "backup.db")

	cmdtest.Unsetenv(t, "TIMBRA_ADMIN_TOKEN")
	t.Setenv("TIMBRA_ADMIN_TOKEN", "wrong")
	r := runArgs(t, "server", "backup", backup, "--base-url", base)
	cmdtest.WantCode(t, r, 1)
	if _, err := os.Stat(backup); err == nil {
		t.Fatal("a refused backup left a file")
	}

	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)
	r = runArgs(t, "server", "backup", backup, "--base-url", base)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "backup", r.Out, "Wrote "+backup, "master key is NOT in the backup")
	fi, err := os.Stat(backup)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode %v", fi.Mode().Perm())
	}
	cmdtest.WantCode(t, runArgs(t, "server", "backup", "--base-url", base), 2)

	// The live database checks while stopped.
	stop()
	r = runArgs(t, "server", "check", "--data", live)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "check", r.Out, "OK: integrity, schema and master key", "tenants ", "schema ")

	// Restore the backup to a new path, with the live database's key: it belongs to it.
	restored := filepath.Join(dir, "restored.db")
	key, _ := os.ReadFile(live + ".key")
	if err := os.WriteFile(restored+".key", key, 0o600); err != nil {
		t.Fatal(err)
	}
	r = runArgs(t, "server", "restore", backup, "--data", restored)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "restore", r.Out, "Restored", "belongs to it")
	r = runArgs(t, "server", "check", "--data", restored)
	cmdtest.WantCode(t, r, 0)

	// An existing database is replaced only with --force, and kept as .bak.
	r = runArgs(t, "server", "restore", backup, "--data", restored)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "restore over", r.Err, "--force")
	r = runArgs(t, "server", "restore", backup, "--data", restored, "--force")
	cmdtest.WantCode(t, r, 0)
	if _, err := os.Stat(restored + ".bak"); err != nil {
		t.Fatal("the old database was not kept:", err)
	}

	// Another master key does not belong to it.
	other := filepath.Join(dir, "other.key")
	if _, _, err := secrets.LoadOrCreate(other); err != nil {
		t.Fatal(err)
	}
	r = runArgs(t, "server", "check", "--data", restored, "--master-key-file", other)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "check with another key", r.Out, "PROBLEM: the master key")
	r = runArgs(t, "server", "restore", backup, "--data", filepath.Join(dir, "x.db"), "--master-key-file", other)
	cmdtest.WantCode(t, r, 1)

	// A file that is not a database is refused by restore and check.
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte("not a database"), 0o600)
	cmdtest.WantCode(t, runArgs(t, "server", "restore", junk, "--data", filepath.Join(dir, "y.db")), 1)
	cmdtest.WantCode(t, runArgs(t, "server", "check", "--data", junk, "--master-key-file", other), 1)
}

func TestServerCheckCorrupted(t *testing.T) {
	cmdtest.Isolate(t)
	dir := t.TempDir()
	_, live, stop := liveServer(t, dir)
	stop()
	raw, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	// Overwrite every page after the two meta pages and the freelist with garbage: the meta
	// pages still open, the tree under them is broken.
	page := os.Getpagesize()
	for i := 3 * page; i < len(raw); i++ {
		raw[i] = byte(i*7 + 13)
	}
	if err := os.WriteFile(live, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "server", "check", "--data", live)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "check of a corrupted file", r.Out+r.Err, "PROBLEM: integrity")
}
