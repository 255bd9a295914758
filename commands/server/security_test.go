package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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
