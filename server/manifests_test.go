package server

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/manifests"
)

// TestManifestSign: a person signs its carta manifiesto with its own e.firma (manifests.sign):
// the answer is the letter, signed so that goxmldsig and xmlsec1 verify it with the e.firma's
// certificate, and the person is Signed; a CSD, another RFC's e.firma, a wrong password and
// an empty body are refused.
func TestManifestSign(t *testing.T) {
	f := newFixture(t)
	ana := taxPerson(t, f, "ana@example.com", "ANA010101AAA")
	keys := genKeys(2)
	now := time.Now()
	fiel := newPair(t, csdtest.Options{RFC: "ANA010101AAA", Key: keys[0], Kind: csd.KindFIEL, Password: "Clave-1", NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)})
	sealing := newPair(t, csdtest.Options{RFC: "ANA010101AAA", Key: keys[0], Password: "Clave-1", NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)})
	other := newPair(t, csdtest.Options{RFC: "BETO010101AA", Key: keys[1], Kind: csd.KindFIEL, Password: "Clave-1", NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)})
	body := func(p csdtest.Pair, password string) string {
		return fmt.Sprintf(`{"base64Cer":%q,"base64Key":%q,"password":%q}`, base64.StdEncoding.EncodeToString(p.Cer), base64.StdEncoding.EncodeToString(p.Key), password)
	}
	expectFailure(t, f.do("POST", "/api/v4/manifests", `{}`, ana.headers()...), "Base64Cer", fmt.Sprintf(manifests.MsgRequired, "Base64 Cer"))
	expectFailure(t, f.do("POST", "/api/v4/manifests", body(sealing, "Clave-1"), ana.headers()...), "Base64Cer", manifests.MsgNotFIEL)
	expectFailure(t, f.do("POST", "/api/v4/manifests", body(fiel, "otra"), ana.headers()...), "Password", manifests.MsgKey)
	expectFailure(t, f.do("POST", "/api/v4/manifests", body(other, "Clave-1"), ana.headers()...), "Base64Cer",
		fmt.Sprintf(manifests.MsgOtherRFC, "BETO010101AA", "ANA010101AAA"))

	r := f.do("POST", "/api/v4/manifests", body(fiel, "Clave-1"), ana.headers()...)
	var file api.FileResponse
	if r.status != 200 || json.Unmarshal(r.env.Data, &file) != nil || file.FileExtension != "xml" || file.FileName != "carta-manifiesto-ANA010101AAA.xml" {
		t.Fatalf("sign: %s", r.raw)
	}
	letter, _ := base64.StdEncoding.DecodeString(file.Base64File)
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(letter); err != nil {
		t.Fatal(err)
	}
	root := doc.Root()
	if root.Tag != "CartaManifiesto" || root.SelectAttrValue("Rfc", "") != "ANA010101AAA" || !strings.Contains(root.SelectElement("Texto").Text(), "con RFC ANA010101AAA") {
		t.Fatalf("letter: %s", letter)
	}
	cert, _ := csd.ParseCertificate(fiel.Cer)
	v := dsig.NewDefaultValidationContext(&dsig.MemoryX509CertificateStore{Roots: []*x509.Certificate{cert.X509}})
	if _, err := v.Validate(root); err != nil {
		t.Fatalf("goxmldsig: %v\n%s", err, letter)
	}
	if xmlsec, err := exec.LookPath("xmlsec1"); err == nil {
		dir := t.TempDir()
		path := filepath.Join(dir, "letter.xml")
		if err := os.WriteFile(path, letter, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(xmlsec, "--verify", "--enabled-key-data", "x509", "--insecure", path).CombinedOutput(); err != nil {
			t.Errorf("xmlsec1: %v\n%s", err, out)
		}
	}
	if r := f.do("GET", "/api/v4/people/"+ana.person, "", ana.headers()...); !strings.Contains(r.raw, `"manifestStatusId":"Signed"`) {
		t.Errorf("the person after signing: %s", r.raw)
	}
}
