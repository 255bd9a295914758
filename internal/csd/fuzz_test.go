package csd_test

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

// The fuzz seeds are the real SAT files (read from ../shared/sat when present: they must not be
// copied into the repository) and the generated corpus in testdata/fuzz, written by
// TestWriteFuzzCorpus (CSD_WRITE_FUZZ_CORPUS=1). The generated seeds are files, not made in the
// fuzz functions, because every fuzzing worker runs those and RSA key generation under the
// fuzzer's coverage instrumentation takes minutes.
func realSeeds() (certs, keys [][]byte) {
	entries, _ := os.ReadDir(filepath.Join(satDir, "certs"))
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(satDir, "certs", e.Name()))
		if err != nil {
			continue
		}
		switch filepath.Ext(e.Name()) {
		case ".cer":
			certs = append(certs, b)
		case ".key":
			keys = append(keys, b)
		}
	}
	return certs, keys
}

// TestWriteFuzzCorpus writes the generated seeds of both fuzz targets to testdata/fuzz.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("CSD_WRITE_FUZZ_CORPUS") == "" {
		t.Skip("set CSD_WRITE_FUZZ_CORPUS=1 to rewrite testdata/fuzz")
	}
	key := csdtest.Keys(1, 1024)[0]
	var certs, keys [][]byte
	for _, kind := range []csd.Kind{csd.KindCSD, csd.KindFIEL} {
		p, err := csdtest.NewPair(csdtest.Options{Kind: kind, Key: key, Serial: "30001000000500000001"})
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, p.Cer, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.Cer}))
	}
	for _, c := range [][]int{csd.OIDDESEDE3CBC, csd.OIDAES128CBC, csd.OIDAES256CBC} {
		for _, prf := range [][]int{nil, csd.OIDHMACWithSHA256} {
			der, err := csd.EncryptPKCS8With(key, []byte(csdtest.DefaultPassword), 1, prf, c)
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, der)
		}
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, pkcs8, x509.MarshalPKCS1PrivateKey(key), pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: keys[0]}))

	write := func(target string, values ...[]byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, v := range values {
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		}
		sum := sha256.Sum256([]byte(b.String()))
		if err := os.WriteFile(filepath.Join(dir, "generated-"+hex.EncodeToString(sum[:8])), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range append(certs, keys[0]) {
		write("FuzzParseCertificate", c)
	}
	for _, k := range append(keys, certs[0]) {
		write("FuzzParsePrivateKey", k, []byte(csdtest.DefaultPassword))
	}
}

func FuzzParseCertificate(f *testing.F) {
	certs, keys := realSeeds()
	for _, b := range append(certs, keys...) {
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := csd.ParseCertificate(b)
		if err != nil {
			if !errors.Is(err, csd.ErrNotCertificate) || c != nil {
				t.Fatalf("error %v does not wrap ErrNotCertificate (or a certificate came with it)", err)
			}
			return
		}
		_ = c.Base64()
		_ = c.PublicKeyID()
		_ = c.ValidAt(time.Now())
		_ = c.Kind.String()
		if c.ValidTo.Before(c.ValidFrom) && c.ValidAt(c.ValidFrom) {
			t.Fatal("valid within an empty validity")
		}
	})
}

func FuzzParsePrivateKey(f *testing.F) {
	certs, keys := realSeeds()
	for _, b := range keys {
		f.Add(b, []byte("12345678a"))
		f.Add(b, []byte("wrong"))
	}
	for _, b := range certs {
		f.Add(b, []byte("12345678a"))
	}
	f.Add([]byte{0x30, 0x00}, []byte{})
	f.Fuzz(func(t *testing.T, der, password []byte) {
		k, err := csd.ParsePrivateKey(der, password)
		// the check without a password fails exactly when and as the opening fails before the
		// password counts
		if cerr := csd.CheckEncryptedKey(der); cerr != nil && (err == nil || err.Error() != cerr.Error()) {
			t.Fatalf("CheckEncryptedKey: %v, ParsePrivateKey: %v", cerr, err)
		}
		if err != nil {
			if k != nil || !(errors.Is(err, csd.ErrWrongPassword) || errors.Is(err, csd.ErrNotEncrypted)) {
				t.Fatalf("error %v is neither ErrWrongPassword nor ErrNotEncrypted", err)
			}
			return
		}
		if k.RSA == nil || k.PublicKeyID() == "" {
			t.Fatal("opened a key without an RSA key")
		}
		if _, err := k.Sign([]byte("x")); err != nil {
			t.Fatalf("an opened key cannot sign: %v", err)
		}
	})
}
