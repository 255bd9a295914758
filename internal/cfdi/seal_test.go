package cfdi

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
)

// opensslVerify checks sigB64 over data with the certificate's public key using openssl dgst.
func opensslVerify(t *testing.T, cert *csd.Certificate, data, sigB64 string) {
	t.Helper()
	bin := needTool(t, "openssl")
	dir := t.TempDir()
	pub, err := x509.MarshalPKIXPublicKey(cert.X509.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"pub.pem":    pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
		"sig":        sig,
		"cadena.txt": []byte(data),
	}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "cadena.txt")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Verified OK") {
		t.Fatalf("openssl dgst -verify: %v\n%s", err, out)
	}
}

// Seal and Stamp produce signatures openssl verifies: the Sello over the cadena (as xsltproc
// writes it from the document's XML) with the issuer's certificate, the SelloSAT over the TFD
// cadena with the stamping certificate. The document's XML carries both, parses back, and the
// QR address is SAT's.
func TestSealAndStampOpenSSL(t *testing.T) {
	issuer, pac := pairs(t)
	doc := corpus(t, 1)[0] // sealed and stamped
	tfd := doc.TFD()
	if tfd == nil {
		t.Fatal("not stamped")
	}
	x, err := doc.XML()
	if err != nil {
		t.Fatal(err)
	}
	cadena := string(xsltproc(t, xslt40, x))
	opensslVerify(t, issuer.Cert, cadena, doc.Sello)
	tx, _ := tfd.XML()
	opensslVerify(t, pac.Cert, string(xsltproc(t, xsltTFD, tx)), tfd.SelloSAT)

	if doc.NoCertificado != issuer.Cert.Number || doc.Certificado != issuer.Cert.Base64() {
		t.Fatalf("NoCertificado/Certificado not the issuer's")
	}
	if tfd.Version != "1.1" || tfd.SelloCFD != doc.Sello || tfd.NoCertificadoSAT != pac.Cert.Number || tfd.RfcProvCertif != "SPR190613I52" {
		t.Fatalf("TFD fields: %+v", tfd)
	}
	// 2025-03-09 08:30 UTC is 02:30 in Mexico City (UTC−6, no daylight saving time since 2022).
	if tfd.FechaTimbrado != "2025-03-09T02:30:00" {
		t.Fatalf("FechaTimbrado %s", tfd.FechaTimbrado)
	}
	back, err := Parse(x)
	if err != nil {
		t.Fatal(err)
	}
	if *back.TFD() != *tfd {
		t.Fatalf("parsed TFD differs: %+v", back.TFD())
	}
	u, err := QRURL(doc)
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := qrTotal(doc.Total)
	want := "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=" + tfd.UUID + "&re=EKU9003173C9&rr=" +
		strings.NewReplacer("&", "%26", "Ñ", "%C3%91").Replace(doc.Receptor.Rfc) + "&tt=" + tt + "&fe=" + doc.Sello[len(doc.Sello)-8:]
	if u != want {
		t.Fatalf("QRURL\n got: %s\nwant: %s", u, want)
	}
}

func TestSealStampErrors(t *testing.T) {
	issuer, pac := pairs(t)
	doc := &Comprobante{Version: "4.0"}
	if _, err := Seal(doc, issuer.Cert, keyOf(pac)); err == nil {
		t.Fatal("Seal accepted a key of another certificate")
	}
	if _, err := Stamp(doc, pac.Cert, keyOf(pac), "u", time.Now(), "X"); err == nil {
		t.Fatal("Stamp accepted an unsealed document")
	}
	if _, err := Seal(doc, issuer.Cert, keyOf(issuer)); err != nil {
		t.Fatal(err)
	}
	if _, err := Stamp(doc, pac.Cert, keyOf(issuer), "u", time.Now(), "X"); err == nil {
		t.Fatal("Stamp accepted a key of another certificate")
	}
	if _, err := QRURL(doc); err == nil {
		t.Fatal("QRURL of an unstamped document")
	}
	if _, err := Stamp(doc, pac.Cert, keyOf(pac), "abc", time.Now(), "X"); err != nil {
		t.Fatal(err)
	}
	if doc.TFD().UUID != "ABC" {
		t.Fatalf("UUID not upper case: %s", doc.TFD().UUID)
	}
	if _, err := Stamp(doc, pac.Cert, keyOf(pac), "abc", time.Now(), "X"); err == nil {
		t.Fatal("stamped twice")
	}
}

func TestQRTotal(t *testing.T) {
	for in, want := range map[string]string{"1000.00": "1000.0", "3327.01": "3327.01", "0": "0.0", "12.50": "12.5",
		"0.000001": "0.000001", "007.10": "7.1"} {
		if got, err := qrTotal(in); err != nil || got != want {
			t.Errorf("qrTotal(%s) = %s %v, want %s", in, got, err, want)
		}
	}
}

// Values XML cannot carry are refused, not written as broken XML.
func TestXMLRefusesControlCharacters(t *testing.T) {
	doc := corpus(t, 1)[0]
	doc.Emisor.Nombre = "bad\x01name"
	if _, err := doc.XML(); err == nil {
		t.Fatal("control character accepted")
	}
	doc.Emisor.Nombre = "bad\xffname"
	if _, err := doc.XML(); err == nil {
		t.Fatal("invalid UTF-8 accepted")
	}
}

func TestParseErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not xml":       "hello",
		"cfdi 3.3":      `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/3"/>`,
		"no emisor":     `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"/>`,
		"latin1":        `<?xml version="1.0" encoding="ISO-8859-1"?><a/>`,
		"two roots":     `<a/><b/>`,
		"deep":          strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100),
		"unclosed":      `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"><cfdi:Emisor>`,
		"text outside":  `<a/>text`,
		"empty":         ``,
		"no conceptos":  `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"><cfdi:Emisor/><cfdi:Receptor/></cfdi:Comprobante>`,
		"no receptor":   `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"><cfdi:Emisor/></cfdi:Comprobante>`,
		"bad namespace": `<x:Comprobante xmlns:x="urn:x"/>`,
	} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A complement this package does not model is kept as written and contributes its text, as the
// stylesheet's built-in rules do; one the stylesheet has rules for is refused by Cadena.
func TestRawComplement(t *testing.T) {
	doc := corpus(t, 2)[1] // no complement
	x, _ := doc.XML()
	s := strings.Replace(string(x), "</cfdi:Comprobante>", `<cfdi:Complemento><otro:Cosa xmlns:otro="urn:otro" A="1"> texto <otro:Hijo>más  texto</otro:Hijo></otro:Cosa></cfdi:Complemento></cfdi:Comprobante>`, 1)
	back, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Cadena()
	if err != nil {
		t.Fatal(err)
	}
	if want := string(xsltproc(t, xslt40, []byte(s))); got != want {
		t.Fatalf("raw complement cadena\n got: %q\nwant: %q", got, want)
	}
	out, _ := back.XML()
	if !strings.Contains(string(out), `<otro:Cosa xmlns:otro="urn:otro" A="1"> texto <otro:Hijo>más  texto</otro:Hijo></otro:Cosa>`) {
		t.Fatalf("raw complement not kept:\n%s", out)
	}
	s2 := strings.ReplaceAll(s, "urn:otro", "http://www.sat.gob.mx/nomina12")
	back, err = Parse([]byte(s2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.Cadena(); err == nil {
		t.Fatal("cadena of an unmodelled SAT complement")
	}
}
