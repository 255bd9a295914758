package manifests

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// TestManifestsSignGetAndList: against a real server, the owner signs its letter twice with
// `manifests sign` (the password from a file, then the environment; a wrong one is refused
// without being shown); `manifests get` writes the newest byte for byte as signed, under the
// server's name or --out, `list` shows both versions newest first, `get --version` the first;
// an unknown person is an error that names it.
func TestManifestsSignGetAndList(t *testing.T) {
	cmdtest.Isolate(t)
	d, err := server.OpenData(server.DataOptions{Path: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	srv, err := server.New(server.Config{Environment: d.Environment, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	creds, err := srv.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	const rfc = "ANA010101AAA"
	if err := d.Store.Update(ctx, func(tx storage.Tx) error {
		p, err := tx.People(creds.TenantKey).Get(creds.PersonID)
		if err != nil {
			return err
		}
		p.Tin = new(rfc)
		return tx.People(creds.TenantKey).Put(p)
	}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cmdtest.UseAPI(t, hs.URL)
	t.Setenv("TIMBRA_TENANT_KEY", creds.TenantKey)
	t.Setenv("TIMBRA_API_KEY", creds.APIKey)

	now := time.Now()
	pair, err := csdtest.NewPair(csdtest.Options{RFC: rfc, Key: csdtest.Keys(1, 1024)[0], Kind: csd.KindFIEL, Password: "Clave-1",
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for name, b := range map[string][]byte{"fiel.cer": pair.Cer, "fiel.key": pair.Key, "pw.txt": []byte("Clave-1\n"), "bad.txt": []byte("Clave-2\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// a wrong password: the server's text, the flag that gave it, never the password
	r := runArgs(t, "manifests", "sign", "--cer", "fiel.cer", "--key", "fiel.key", "--password-file", "bad.txt")
	if r.Code == 0 || !strings.Contains(r.Err, "--password-file") || strings.Contains(r.Out+r.Err, "Clave-2") {
		t.Fatalf("a wrong password: exit %d\n%s%s", r.Code, r.Out, r.Err)
	}
	cmdtest.WantCode(t, runArgs(t, "manifests", "sign", "--cer", "fiel.cer", "--key", "fiel.key", "--password-file", "pw.txt", "--out", "first.xml"), 0)
	time.Sleep(1100 * time.Millisecond) // another Fecha, so the letters differ
	r = runArgs(t, "manifests", "sign", "--cer", "fiel.cer", "--key", "fiel.key", "--password-env", "FIEL_PW", "--out", "-")
	if r.Code != 2 {
		t.Fatalf("--password-env of an unset variable: exit %d\n%s", r.Code, r.Err)
	}
	t.Setenv("FIEL_PW", "Clave-1")
	r = runArgs(t, "manifests", "sign", "--cer", "fiel.cer", "--key", "fiel.key", "--password-env", "FIEL_PW", "--out", "-")
	cmdtest.WantCode(t, r, 0)
	first, err := os.ReadFile("first.xml")
	if err != nil || !strings.HasPrefix(string(first), "<?xml") || r.Out == string(first) || !strings.Contains(r.Out, `Rfc="`+rfc+`"`) {
		t.Fatalf("the letters signed: %v\n%s\n%s", err, first, r.Out)
	}
	signed := [][]byte{first, []byte(r.Out)}

	r = runArgs(t, "manifests", "get", creds.PersonID)
	cmdtest.WantCode(t, r, 0)
	if got, err := os.ReadFile(filepath.Join(dir, "carta-manifiesto-"+rfc+".xml")); err != nil || !bytes.Equal(got, signed[1]) {
		t.Fatalf("the letter saved under the server's name differs from the newest signed (%v)\n%s", err, r.Out)
	}
	r = runArgs(t, "manifests", "list", creds.PersonID, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var page api.PagedList[api.Manifest]
	if err := json.Unmarshal([]byte(r.Out), &page); err != nil || page.TotalItems != 2 || len(page.Items) != 2 || page.Items[0].Tin != rfc {
		t.Fatalf("list: %v %s", err, r.Out)
	}
	r = runArgs(t, "manifests", "list", creds.PersonID)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, page.Items[0].ID, page.Items[1].ID, rfc, page.Items[0].CertificateNumber)
	if strings.Index(r.Out, page.Items[0].ID) > strings.Index(r.Out, page.Items[1].ID) {
		t.Errorf("list is not newest first:\n%s", r.Out)
	}
	r = runArgs(t, "manifests", "get", creds.PersonID, "--version", page.Items[1].ID, "--out", "-")
	cmdtest.WantCode(t, r, 0)
	if r.Out != string(signed[0]) {
		t.Fatalf("--version of the first letter wrote:\n%s", r.Out)
	}
	out := filepath.Join(dir, "carta.xml")
	cmdtest.WantCode(t, runArgs(t, "manifests", "get", creds.PersonID, "--out", out), 0)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, signed[1]) {
		t.Fatal("--out FILE differs from the newest letter")
	}
	r = runArgs(t, "manifests", "get", "no-such-person")
	if r.Code == 0 || !strings.Contains(r.Err, "no-such-person") {
		t.Fatalf("an unknown person: exit %d\n%s%s", r.Code, r.Out, r.Err)
	}
}
