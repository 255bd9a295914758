package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// selfSigned writes a certificate for 127.0.0.1 and its key to dir and returns their paths and
// a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "timbra test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func TestServerTLS(t *testing.T) {
	cmdtest.Isolate(t)
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	db := filepath.Join(dir, "t.db")

	r := runArgs(t, "server", "--data", db, "--catalogs", "none", "--tls-cert", certFile)
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "cert without key", r.Err, "--tls-cert and --tls-key go together")
	r = runArgs(t, "server", "--data", db, "--catalogs", "none", "--tls-key", keyFile)
	cmdtest.WantCode(t, r, 2)
	r = runArgs(t, "server", "--data", db, "--catalogs", "none", "--tls-cert", keyFile, "--tls-key", certFile)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "swapped files", r.Err, "--tls-cert "+keyFile)

	addrFile := filepath.Join(dir, "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- run1(t, cmdtest.Opts{Ctx: ctx}, "server", "--data", db, "--catalogs", "none", "--addr", "127.0.0.1:0",
			"--addr-file", addrFile, "--tls-cert", certFile, "--tls-key", keyFile)
	}()
	var base string
	for base == "" {
		select {
		case r := <-done:
			cancel()
			t.Fatalf("server ended: %d %s", r.Code, r.Err)
		case <-time.After(20 * time.Millisecond):
		}
		if raw, err := os.ReadFile(addrFile); err == nil {
			base = strings.TrimSpace(string(raw))
		}
	}
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		cancel()
		t.Fatalf("--addr-file over TLS: %q", base)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := client.Get(base + "/healthz")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		cancel()
		t.Fatalf("healthz over TLS: %d %s", resp.StatusCode, body)
	}
	// A client that does not trust the certificate is refused.
	if _, err := http.Get(base + "/healthz"); err == nil {
		cancel()
		t.Fatal("an untrusting client connected")
	}
	cancel()
	r = <-done
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "log", r.Err, "addr=https://127.0.0.1:")
}
