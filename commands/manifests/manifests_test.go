package manifests

import (
	"bytes"
	"context"
	"encoding/base64"
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

// TestManifestsGetAndList: against a real server, the owner signs its letter twice (the API, as
// the official client does); `manifests get` writes the newest byte for byte as signed, under
// the server's name or --out, `list` shows both versions newest first, `get --version` the
// first; a person who never signed is an error that says so.
func TestManifestsGetAndList(t *testing.T) {
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
	client := &api.Client{BaseURL: hs.URL, TenantKey: creds.TenantKey, APIKey: creds.APIKey}
	cer, key, password := base64.StdEncoding.EncodeToString(pair.Cer), base64.StdEncoding.EncodeToString(pair.Key), "Clave-1"
	var signed [][]byte
	for range 2 {
		file, err := client.SignManifest(ctx, api.SignManifestRequest{Base64Cer: &cer, Base64Key: &key, Password: &password})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := base64.StdEncoding.DecodeString(file.Base64File)
		signed = append(signed, b)
		time.Sleep(1100 * time.Millisecond) // another Fecha, so the letters differ
	}

	dir := t.TempDir()
	t.Chdir(dir)
	r := runArgs(t, "manifests", "get", creds.PersonID)
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
