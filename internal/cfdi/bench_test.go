package cfdi

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"testing"
)

func benchDoc(b *testing.B) *Comprobante {
	docs := corpus(b, 8)
	return docs[4] // an income invoice, sealed, not stamped
}

func BenchmarkCadena(b *testing.B) {
	doc := benchDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := doc.Cadena(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildXML(b *testing.B) {
	doc := benchDoc(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := doc.XML(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	x, err := benchDoc(b).XML()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(x); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeal is Seal (cadena + SHA-256 + RSA-2048 signature); BenchmarkSeal/rsa-floor is the
// bare RSA PKCS#1 v1.5 signature of a digest with the same key, the floor Seal cannot beat.
func BenchmarkSeal(b *testing.B) {
	issuer, _ := pairs(b)
	doc := benchDoc(b)
	key := keyOf(issuer)
	b.Run("seal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Seal(doc, issuer.Cert, key); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rsa-floor", func(b *testing.B) {
		sum := sha256.Sum256([]byte("x"))
		for b.Loop() {
			if _, err := rsa.SignPKCS1v15(nil, issuer.PrivateKey, crypto.SHA256, sum[:]); err != nil {
				b.Fatal(err)
			}
		}
	})
}
