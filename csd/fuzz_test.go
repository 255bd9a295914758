package csd_test

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/csd"
	"github.com/timbra-mx/timbra/csd/csdtest"
)

// fuzzSeedPair is a generated pair whose key is also encrypted with one iteration, so that the
// fuzzer's executions are cheap.
func fuzzSeeds(f *testing.F) (certs [][]byte, keys [][]byte) {
	f.Helper()
	if entries, err := os.ReadDir(filepath.Join(satDir, "certs")); err == nil {
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(satDir, "certs", e.Name())); err == nil {
				switch filepath.Ext(e.Name()) {
				case ".cer":
					certs = append(certs, b)
				case ".key":
					keys = append(keys, b)
				}
			}
		}
	}
	key := csdtest.Keys(1, 2048)[0]
	for _, kind := range []csd.Kind{csd.KindCSD, csd.KindFIEL} {
		p, err := csdtest.NewPair(csdtest.Options{Kind: kind, Key: key, Password: "12345678a"})
		if err != nil {
			f.Fatal(err)
		}
		certs = append(certs, p.Cer, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.Cer}))
	}
	for _, c := range [][]int{csd.OIDDESEDE3CBC, csd.OIDAES128CBC, csd.OIDAES256CBC} {
		for _, prf := range [][]int{nil, csd.OIDHMACWithSHA256} {
			der, err := csd.EncryptPKCS8With(key, []byte("12345678a"), 1, prf, c)
			if err != nil {
				f.Fatal(err)
			}
			keys = append(keys, der)
		}
	}
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(key)
	keys = append(keys, pkcs8, x509.MarshalPKCS1PrivateKey(key), pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: keys[len(keys)-1]}))
	return certs, keys
}

func FuzzParseCertificate(f *testing.F) {
	certs, keys := fuzzSeeds(f)
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
	certs, keys := fuzzSeeds(f)
	for _, b := range keys {
		f.Add(b, []byte("12345678a"))
	}
	for _, b := range certs[:1] {
		f.Add(b, []byte("12345678a"))
	}
	f.Add([]byte{0x30, 0x00}, []byte{})
	f.Fuzz(func(t *testing.T, der, password []byte) {
		k, err := csd.ParsePrivateKey(der, password)
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
