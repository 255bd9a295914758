package cfdi

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/csd"
)

func satPair(t testing.TB) (*csd.Certificate, *csd.PrivateKey) {
	t.Helper()
	cert, err := csd.ParseCertificate(satFile(t, "certs/EKU9003173C9.cer"))
	if err != nil {
		t.Fatal(err)
	}
	pw := strings.TrimSpace(string(satFile(t, "certs/EKU9003173C9.password.txt")))
	key, err := csd.ParsePrivateKey(satFile(t, "certs/EKU9003173C9.key"), []byte(pw))
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// The cadena of both SAT samples equals xsltproc's, byte for byte.
func TestCadenaSamples(t *testing.T) {
	for _, name := range []string{"samples/cfdi40-valid.xml", "samples/cfdi40-real.xml"} {
		t.Run(name, func(t *testing.T) {
			data := satFile(t, name)
			doc, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := doc.Cadena()
			if err != nil {
				t.Fatal(err)
			}
			want := string(xsltproc(t, xslt40, data))
			if got != want {
				t.Fatalf("cadena differs from xsltproc\n got: %s\nwant: %s", got, want)
			}
			// The XML this package writes for the parsed document gives the same cadena.
			out, err := doc.XML()
			if err != nil {
				t.Fatal(err)
			}
			if again := string(xsltproc(t, xslt40, out)); again != want {
				t.Fatalf("re-written XML's cadena differs\n got: %s\nwant: %s", again, want)
			}
		})
	}
}

// Re-sealing cfdi40-valid.xml with the EKU9003173C9 key gives its published Sello (the test
// vector): parse → cadena → sign.
func TestSealVector(t *testing.T) {
	data := satFile(t, "samples/cfdi40-valid.xml")
	doc, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	published := doc.Sello
	cert, key := satPair(t)
	doc.Sello = ""
	doc.Complemento = nil
	if _, err := Seal(doc, cert, key); err != nil {
		t.Fatal(err)
	}
	if doc.Sello != published {
		t.Fatalf("Sello differs from the published one\n got: %s\nwant: %s", doc.Sello, published)
	}
	if doc.NoCertificado != "30001000000500003416" {
		t.Fatalf("NoCertificado %q", doc.NoCertificado)
	}
}

// The Go TFD cadena of the real stamped sample verifies against its SelloSAT with SAT's
// certificate 00001000000708361114: a strong oracle of the TFD cadena.
func TestTFDCadenaRealSample(t *testing.T) {
	doc, err := Parse(satFile(t, "samples/cfdi40-real.xml"))
	if err != nil {
		t.Fatal(err)
	}
	tfd := doc.TFD()
	if tfd == nil {
		t.Fatal("no TFD")
	}
	cert, err := csd.ParseCertificate(satFile(t, "certs/00001000000708361114.cer"))
	if err != nil {
		t.Fatal(err)
	}
	if cert.Number != tfd.NoCertificadoSAT {
		t.Fatalf("certificate %s, stamp says %s", cert.Number, tfd.NoCertificadoSAT)
	}
	sig, err := base64.StdEncoding.DecodeString(tfd.SelloSAT)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(tfd.Cadena()))
	if err := rsa.VerifyPKCS1v15(cert.X509.PublicKey.(*rsa.PublicKey), crypto.SHA256, sum[:], sig); err != nil {
		t.Fatalf("SelloSAT does not verify over the Go TFD cadena %q: %v", tfd.Cadena(), err)
	}
	tx, err := tfd.XML()
	if err != nil {
		t.Fatal(err)
	}
	if want := string(xsltproc(t, xsltTFD, tx)); want != tfd.Cadena() {
		t.Fatalf("TFD cadena differs from xsltproc\n got: %s\nwant: %s", tfd.Cadena(), want)
	}
	url, err := QRURL(doc)
	if err != nil {
		t.Fatal(err)
	}
	const want = "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=C2832671-DA6D-11EF-A83D-00155D012007&re=ISD950921HE5&rr=COSC8001137NA&tt=1000.0&fe=hNjeNw=="
	if url != want {
		t.Fatalf("QRURL\n got: %s\nwant: %s", url, want)
	}
}
