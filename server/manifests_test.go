package server

import (
	"context"
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

// TestManifestKept: every signed letter is kept, byte for byte as answered, newest first; the
// person and the tenant's owner read it (the newest, the list, one version), and the letter read
// back verifies with goxmldsig; another person of the tenant, and another tenant's owner, get a
// 404; a person who never signed gets a 404 that says so.
func TestManifestKept(t *testing.T) {
	f := newFixture(t)
	owner := ownerMember(t, f, f.creds)
	ana := taxPerson(t, f, "ana@example.com", "ANA010101AAA")
	beto := taxPerson(t, f, "beto@example.com", "BETO010101AA")
	now := time.Now()
	fiel := newPair(t, csdtest.Options{RFC: "ANA010101AAA", Key: genKeys(1)[0], Kind: csd.KindFIEL, Password: "Clave-1", NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0)})
	body := fmt.Sprintf(`{"base64Cer":%q,"base64Key":%q,"password":"Clave-1"}`, base64.StdEncoding.EncodeToString(fiel.Cer), base64.StdEncoding.EncodeToString(fiel.Key))
	fileOf := func(r result) api.FileResponse {
		t.Helper()
		var file api.FileResponse
		if r.status != 200 || json.Unmarshal(r.env.Data, &file) != nil || file.FileExtension != "xml" || file.FileName != "carta-manifiesto-ANA010101AAA.xml" {
			t.Fatalf("a letter: %s", r.raw)
		}
		return file
	}

	r := f.do("GET", "/api/v4/manifests/"+ana.person, "", ana.headers()...)
	expectStatus(t, r, 404, fmt.Sprintf(manifests.MsgNotSigned, ana.person))
	var signed []api.FileResponse
	for range 2 {
		signed = append(signed, fileOf(f.do("POST", "/api/v4/manifests", body, ana.headers()...)))
		time.Sleep(1100 * time.Millisecond) // another Fecha, so the two letters differ
	}
	if signed[0].Base64File == signed[1].Base64File {
		t.Fatal("two signatures a second apart made the same letter")
	}
	for _, who := range []member{ana, owner} {
		got := fileOf(f.do("GET", "/api/v4/manifests/"+ana.person, "", who.headers()...))
		if got != signed[1] {
			t.Fatalf("the newest letter read by %s differs from the one signed last", who.person)
		}
	}
	letter, _ := base64.StdEncoding.DecodeString(signed[1].Base64File)
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(letter); err != nil {
		t.Fatal(err)
	}
	cert, _ := csd.ParseCertificate(fiel.Cer)
	if _, err := dsig.NewDefaultValidationContext(&dsig.MemoryX509CertificateStore{Roots: []*x509.Certificate{cert.X509}}).Validate(doc.Root()); err != nil {
		t.Fatalf("the letter read back: goxmldsig: %v", err)
	}

	r = f.do("GET", "/api/v4/manifests/"+ana.person+"/versions?pageSize=1", "", owner.headers()...)
	var page api.PagedList[api.Manifest]
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil || page.TotalItems != 2 || len(page.Items) != 1 {
		t.Fatalf("versions: %s", r.raw)
	}
	newest := page.Items[0]
	if newest.PersonID != ana.person || newest.Tin != "ANA010101AAA" || newest.CertificateNumber != cert.Number || newest.FileName != signed[1].FileName {
		t.Fatalf("newest version: %+v", newest)
	}
	r = f.do("GET", "/api/v4/manifests/"+ana.person+"/versions?pageNumber=2&pageSize=1", "", ana.headers()...)
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil || len(page.Items) != 1 || page.Items[0].SignedAt > newest.SignedAt {
		t.Fatalf("versions page 2: %s", r.raw)
	}
	if got := fileOf(f.do("GET", "/api/v4/manifests/"+ana.person+"/versions/"+page.Items[0].ID, "", ana.headers()...)); got != signed[0] {
		t.Fatal("the first version differs from the first letter signed")
	}
	if got := fileOf(f.do("GET", "/api/v4/manifests/"+ana.person+"/versions/"+newest.ID, "", owner.headers()...)); got != signed[1] {
		t.Fatal("the newest version differs from the letter signed last")
	}

	// another person of the tenant does not see ana's letters; nor does another tenant's owner
	for _, path := range []string{"", "/versions", "/versions/" + newest.ID} {
		expectStatus(t, f.do("GET", "/api/v4/manifests/"+ana.person+path, "", beto.headers()...), 404, "No such resource for the given Id: "+ana.person)
	}
	other, err := f.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "otro@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", "/versions", "/versions/" + newest.ID} {
		expectStatus(t, f.do("GET", "/api/v4/manifests/"+ana.person+path, "", as(other)...), 404, "No such resource for the given Id: "+ana.person)
	}
	// beto never signed: the owner reads a clear 404, and an empty list; an unknown version of ana is a 404
	expectStatus(t, f.do("GET", "/api/v4/manifests/"+beto.person, "", owner.headers()...), 404, fmt.Sprintf(manifests.MsgNotSigned, beto.person))
	r = f.do("GET", "/api/v4/manifests/"+beto.person+"/versions", "", beto.headers()...)
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil || page.TotalItems != 0 || len(page.Items) != 0 {
		t.Fatalf("beto's versions: %s", r.raw)
	}
	expectStatus(t, f.do("GET", "/api/v4/manifests/"+ana.person+"/versions/"+beto.person, "", ana.headers()...), 404,
		fmt.Sprintf(manifests.MsgNoVersion, ana.person, beto.person))
	expectStatus(t, f.do("GET", "/api/v4/manifests/no-such-person", "", owner.headers()...), 404, "No such resource for the given Id: no-such-person")

	// a deleted person's letters stay, for the owner
	if r := f.do("DELETE", "/api/v4/people/"+ana.person, "", owner.headers()...); r.status != 200 {
		t.Fatalf("delete ana: %s", r.raw)
	}
	if got := fileOf(f.do("GET", "/api/v4/manifests/"+ana.person, "", owner.headers()...)); got != signed[1] {
		t.Fatal("the newest letter of a deleted person differs from the one signed last")
	}
}
