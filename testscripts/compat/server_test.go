package compat

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// nodeOrSkip returns node when it and the fiscalapi package are installed. Without them the test
// skips, unless TIMBRA_REQUIRE_COMPAT=1 (CI), where it fails.
func nodeOrSkip(t *testing.T) string {
	t.Helper()
	return nodeModuleOrSkip(t, "fiscalapi", "fiscalapi")
}

// nodeModuleOrSkip returns node when it and the npm package module of the folder (installed by
// 'npm ci --prefix testscripts/compat/<folder>') are there; it skips or fails as nodeOrSkip.
func nodeModuleOrSkip(t *testing.T, folder, module string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(folder, "node_modules", filepath.FromSlash(module), "package.json"))
	}
	if err != nil {
		msg := "needs node and the " + module + " package: run 'npm ci --prefix testscripts/compat/" + folder + "' (" + err.Error() + ")"
		if os.Getenv("TIMBRA_REQUIRE_COMPAT") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}

// newServer starts a server in process over a new database with the small SAT catalog source of
// the catalogs package imported; cfg is its configuration (environment and logger are filled in).
// Everything is closed when the test ends.
func newServer(t *testing.T, cfg server.Config) (*server.Server, *server.Data, *httptest.Server) {
	t.Helper()
	opt := server.DataOptions{Path: filepath.Join(t.TempDir(), "t.db")}
	if pgtest.Chosen() { // TIMBRA_TEST_BACKEND=postgres: the oracles against a server on PostgreSQL
		opt = server.DataOptions{Database: pgtest.URL(t), MasterKeyFile: filepath.Join(t.TempDir(), "master.key")}
	}
	d, err := server.OpenData(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	cfg.Environment = d.Environment
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := server.New(cfg, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(context.Background(), testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := s.Catalogs().Import(context.Background(), src, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, d, hs
}
