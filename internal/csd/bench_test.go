package csd_test

import (
	"testing"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

// The floor of a tax-file upload: opening the key (PBKDF2 + decryption + PKCS#8 parse) and
// parsing the certificate.

func BenchmarkParsePrivateKey(b *testing.B) {
	b.Run("sat-EKU9003173C9", func(b *testing.B) {
		der, pw := satFile(b, "certs/EKU9003173C9.key"), satPassword(b)
		for b.Loop() {
			if _, err := csd.ParsePrivateKey(der, pw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("csdtest-2048-iterations", func(b *testing.B) {
		p, err := csdtest.NewPair(csdtest.Options{Key: csdtest.Keys(1, 2048)[0]})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := csd.ParsePrivateKey(p.Key, []byte(p.Password)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkParseCertificate(b *testing.B) {
	b.Run("sat-EKU9003173C9", func(b *testing.B) {
		der := satFile(b, "certs/EKU9003173C9.cer")
		for b.Loop() {
			if _, err := csd.ParseCertificate(der); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("csdtest", func(b *testing.B) {
		p, err := csdtest.NewPair(csdtest.Options{Key: csdtest.Keys(1, 2048)[0]})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := csd.ParseCertificate(p.Cer); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSign(b *testing.B) {
	k := &csd.PrivateKey{RSA: csdtest.Keys(1, 2048)[0]}
	data := make([]byte, 1024)
	for b.Loop() {
		if _, err := k.Sign(data); err != nil {
			b.Fatal(err)
		}
	}
}
