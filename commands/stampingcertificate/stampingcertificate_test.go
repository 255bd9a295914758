package stampingcertificate

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
)

// serve runs a real server of env (pac, when not nil, installed as `timbra server` does at
// start) and points the client commands at its tenant's owner.
func serve(t *testing.T, env string, pac *invoices.PAC) *server.Server {
	t.Helper()
	cmdtest.Isolate(t)
	d, err := server.OpenData(server.DataOptions{Path: filepath.Join(t.TempDir(), "t.db"), Environment: env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	ctx := context.Background()
	if pac != nil {
		if _, err := invoices.InstallPAC(ctx, d.Store, d.Keys, env, pac, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := server.New(server.Config{Environment: env, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := srv.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Setenv("TIMBRA_BASE_URL", hs.URL)
	t.Setenv("TIMBRA_TENANT_KEY", creds.TenantKey)
	t.Setenv("TIMBRA_API_KEY", creds.APIKey)
	return srv
}

// satCSD opens SAT's public test CSD EKU9003173C9 (../shared/sat/certs) as an operator's
// stamping identity; the test is skipped without it.
func satCSD(t *testing.T) (*invoices.PAC, []byte) {
	t.Helper()
	dir := testpaths.Shared("sat", "certs")
	var files [3][]byte
	for i, name := range []string{"EKU9003173C9.cer", "EKU9003173C9.key", "EKU9003173C9.password.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skipf("needs SAT's test CSD in %s: %v", dir, err)
		}
		files[i] = b
	}
	pac, err := invoices.OpenPAC(files[0], files[1], bytes.TrimSpace(files[2]), time.Now())
	if err != nil {
		t.Skipf("SAT's test CSD cannot stamp now: %v", err)
	}
	return pac, files[0]
}

// TestStampingCertificateCommand: the production server's stamping certificate (the operator's)
// is shown, answered as JSON, and written as PEM or DER exactly as the operator's .cer, so that
// openssl reads it.
func TestStampingCertificateCommand(t *testing.T) {
	pac, cer := satCSD(t)
	serve(t, accounts.EnvProduction, pac)

	r := runArgs(t, "stamping-certificate")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "fields", r.Out, "Number: 30001000000500003416\n", "RFC: EKU9003173C9\n",
		"Name: "+pac.Cert.Name+"\n", "Valid from: 2023-05-18T11:43:51Z\n", "Valid to: 2027-05-18T11:43:51Z\n")

	r = runArgs(t, "stamping-certificate", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var got api.StampingCertificate
	if err := json.Unmarshal([]byte(r.Out), &got); err != nil || got.CertificateNumber != "30001000000500003416" || got.Tin != "EKU9003173C9" ||
		got.Base64Certificate != base64.StdEncoding.EncodeToString(cer) || got.ValidTo != "2027-05-18T11:43:51.000" {
		t.Fatalf("-o json: %v %s", err, r.Out)
	}

	dir := t.TempDir()
	pemFile, derFile := filepath.Join(dir, "pac.pem"), filepath.Join(dir, "pac.cer")
	r = runArgs(t, "stamping-certificate", "--out", pemFile)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "--out", r.Out, "Number: 30001000000500003416\n", "File: "+pemFile+"\n")
	raw, _ := os.ReadFile(pemFile)
	if block, rest := pem.Decode(raw); block == nil || block.Type != "CERTIFICATE" || !bytes.Equal(block.Bytes, cer) || len(rest) != 0 {
		t.Fatalf("--out wrote %q", raw)
	}
	r = runArgs(t, "stamping-certificate", "--out", derFile, "--der")
	cmdtest.WantCode(t, r, 0)
	if raw, _ := os.ReadFile(derFile); !bytes.Equal(raw, cer) {
		t.Fatal("--der did not write the operator's .cer")
	}
	r = runArgs(t, "stamping-certificate", "--out", "-")
	cmdtest.WantCode(t, r, 0)
	if r.Out != string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cer})) {
		t.Fatalf("--out - wrote %q", r.Out)
	}

	if bin, err := exec.LookPath("openssl"); err == nil {
		out, err := exec.Command(bin, "x509", "-in", pemFile, "-noout", "-serial").Output()
		if want := "serial=" + strings.ToUpper(hex.EncodeToString([]byte("30001000000500003416"))); err != nil || strings.TrimSpace(string(out)) != want {
			t.Fatalf("openssl x509 -serial: %q %v, want %s", out, err, want)
		}
	}
}

// TestStampingCertificateCommandEnvironments: in test, the server's own certificate, the one
// its stamps use (made on the first need); in production without the operator's, the API's
// 503 says what the operator must give.
func TestStampingCertificateCommandEnvironments(t *testing.T) {
	t.Run("test", func(t *testing.T) {
		srv := serve(t, accounts.EnvTest, nil)
		r := runArgs(t, "stamping-certificate", "-o", "json")
		cmdtest.WantCode(t, r, 0)
		pac, err := srv.Invoices().PAC(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got api.StampingCertificate
		if err := json.Unmarshal([]byte(r.Out), &got); err != nil || got.CertificateNumber != pac.Cert.Number || got.Tin != invoices.RfcProvCertif ||
			got.Base64Certificate != pac.Cert.Base64() {
			t.Fatalf("%v %s, stamps use %s", err, r.Out, pac.Cert.Number)
		}
	})
	t.Run("production", func(t *testing.T) {
		serve(t, accounts.EnvProduction, nil)
		r := runArgs(t, "stamping-certificate")
		cmdtest.WantCode(t, r, 1)
		cmdtest.WantContains(t, "stderr", r.Err, "--stamp-cert, --stamp-key y --stamp-key-password-file")
	})
}
