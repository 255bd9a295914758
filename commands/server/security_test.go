package server

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	apiserver "github.com/timbra-mx/timbra/server"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

// Tests of docs/security.md about `timbra server` that no other test file holds.

// TestServerRefusesAnOpenTokenFile: the operator token file is made with mode 0600 and refused
// when others may read it, as the master key is.
func TestServerRefusesAnOpenTokenFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	t.Setenv("TIMBRA_ADMIN_TOKEN", "")
	path := filepath.Join(t.TempDir(), "t.db.admin-token")
	made, err := adminToken(path)
	if err != nil || made == "" {
		t.Fatalf("made: %q %v", made, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v (%v)", st.Mode(), err)
	}
	if again, err := adminToken(path); err != nil || again != made {
		t.Fatalf("read again: %q %v", again, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if tok, err := adminToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), made) {
		t.Fatalf("a token file readable by others: %q %v", tok, err)
	}
}

// TestServerTLSFloor: `timbra server --tls-cert/--tls-key` accepts TLS 1.2 and later only.
func TestServerTLSFloor(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, kfile := filepath.Join(dir, "c.pem"), filepath.Join(dir, "k.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kfile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadTLS(cert, kfile)
	if err != nil || cfg == nil {
		t.Fatalf("loadTLS: %v", err)
	}
	if cfg.MinVersion != tls.VersionTLS12 {
		t.Fatalf("MinVersion %x, want TLS 1.2", cfg.MinVersion)
	}
}

// TestFirstCredentialsOnlyToATerminal: the credentials of a database made at the first start are
// printed on a terminal; off one (a service's journal) they go to a file of mode 0600 beside the
// database and the output names the file but holds no key; an old file is never overwritten.
func TestFirstCredentialsOnlyToATerminal(t *testing.T) {
	creds := api.Credentials{TenantKey: "tenant-1", APIKey: "sk_test_0123456789abcdefWXYZ", PersonID: "p-1", Environment: "test"}
	for _, tty := range []bool{true, false} {
		t.Run(map[bool]string{true: "terminal", false: "journal"}[tty], func(t *testing.T) {
			var out bytes.Buffer
			db := filepath.Join(t.TempDir(), "t.db")
			d := &apiserver.Data{Name: db, Files: db}
			if err := firstCredentials(&cmdutil.IOStreams{Out: &out, OutTTY: tty}, d, creds); err != nil {
				t.Fatal(err)
			}
			file := db + credentialsSuffix
			raw, err := os.ReadFile(file)
			if tty {
				if !strings.Contains(out.String(), creds.APIKey) || err == nil {
					t.Fatalf("on a terminal: output %q, file err %v", out.String(), err)
				}
				return
			}
			if strings.Contains(out.String(), "sk_") || !strings.Contains(out.String(), file) {
				t.Fatalf("off a terminal the output is %q", out.String())
			}
			var got api.Credentials
			if err != nil || json.Unmarshal(raw, &got) != nil || got != creds {
				t.Fatalf("the file holds %s (%v)", raw, err)
			}
			if st, _ := os.Stat(file); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
				t.Errorf("the file's mode is %o", st.Mode().Perm())
			}
			if err := firstCredentials(&cmdutil.IOStreams{Out: &out}, d, api.Credentials{APIKey: "sk_other"}); err == nil {
				t.Error("an old credentials file was overwritten")
			}
			if again, _ := os.ReadFile(file); string(again) != string(raw) {
				t.Error("the old credentials file changed")
			}
		})
	}
}
