// Package invoicetest re-verifies a stamped CFDI the way a recipient or SAT would, for the tests
// of the invoices endpoint and of its clients: the XML parses, the cadena original computed in Go
// equals what SAT's XSLT gives with xsltproc (when xsltproc and ../shared/sat are present), the
// Sello verifies with the certificate the XML carries, and the SelloSAT of the Timbre Fiscal
// Digital verifies over its own cadena (also compared with SAT's TFD XSLT) with the stamping
// certificate.
package invoicetest

import (
	"bytes"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
)

// Stylesheets of SAT under the shared sat folder.
const (
	XSLT40  = "resources/www.sat.gob.mx/sitio_internet/cfd/4/cadenaoriginal_4_0/cadenaoriginal_4_0.xslt"
	XSLTTFD = "resources/www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/cadenaoriginal_TFD_1_1.xslt"
)

// Checked tells which oracles ran.
type Checked struct{ XSLT bool }

// Verify checks a stamped XML; satDir is the shared sat folder ("" or absent: the XSLT
// comparison is skipped, and Checked says so). pac is the stamping certificate.
func Verify(t testing.TB, xml []byte, pac *csd.Certificate, satDir string) (*cfdi.Comprobante, Checked) {
	t.Helper()
	var ch Checked
	doc, err := cfdi.Parse(xml)
	if err != nil {
		t.Fatalf("the stamped XML does not parse: %v\n%s", err, xml)
	}
	cadena, err := doc.Cadena()
	if err != nil {
		t.Fatal(err)
	}
	tfd := doc.TFD()
	if tfd == nil {
		t.Fatalf("no TimbreFiscalDigital in\n%s", xml)
	}
	if bin, err := exec.LookPath("xsltproc"); err == nil && satDir != "" {
		if _, err := os.Stat(filepath.Join(satDir, XSLT40)); err == nil {
			ch.XSLT = true
			if got := run(t, bin, filepath.Join(satDir, XSLT40), xml); got != cadena {
				t.Fatalf("cadena original:\n go:       %s\n xsltproc: %s", cadena, got)
			}
			tx, err := tfd.XML()
			if err != nil {
				t.Fatal(err)
			}
			if got := run(t, bin, filepath.Join(satDir, XSLTTFD), tx); got != tfd.Cadena() {
				t.Fatalf("TFD cadena:\n go:       %s\n xsltproc: %s", tfd.Cadena(), got)
			}
		}
	}
	certDER, err := base64.StdEncoding.DecodeString(doc.Certificado)
	if err != nil {
		t.Fatalf("Certificado is not base64: %v", err)
	}
	cert, err := csd.ParseCertificate(certDER)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Number != doc.NoCertificado {
		t.Fatalf("NoCertificado %s, the certificate's number is %s", doc.NoCertificado, cert.Number)
	}
	verify(t, "Sello", cert, cadena, doc.Sello)
	if tfd.SelloCFD != doc.Sello || tfd.NoCertificadoSAT != pac.Number || tfd.Version != "1.1" {
		t.Fatalf("TFD %+v does not match the document (Sello) or the stamping certificate %s", tfd, pac.Number)
	}
	verify(t, "SelloSAT", pac, tfd.Cadena(), tfd.SelloSAT)
	return doc, ch
}

func run(t testing.TB, bin, xsl string, doc []byte) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(f, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, xsl, f)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xsltproc %s: %v\n%s", xsl, err, stderr.String())
	}
	return string(out)
}

func verify(t testing.TB, what string, cert *csd.Certificate, cadena, sello string) {
	t.Helper()
	sig, err := base64.StdEncoding.DecodeString(sello)
	if err != nil {
		t.Fatalf("%s is not base64: %v", what, err)
	}
	pub, ok := cert.X509.PublicKey.(*rsa.PublicKey)
	if !ok {
		t.Fatalf("%s: the certificate's key is %T", what, cert.X509.PublicKey)
	}
	sum := sha256.Sum256([]byte(cadena))
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, sum[:], sig); err != nil {
		t.Fatalf("%s does not verify with certificate %s: %v\ncadena: %s", what, cert.Number, err, cadena)
	}
}
