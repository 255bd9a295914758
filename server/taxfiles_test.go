package server

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/storage"
)

// satCerts is where the SAT test certificates are, from this package's folder.
var satCerts = testpaths.Shared("sat", "certs")

// realPair reads the SAT test CSD EKU9003173C9 (certificate, key, password); the test skips
// when the shared folder is absent.
func realPair(t *testing.T) (cer, key []byte, password string) {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(satCerts, name))
		if err != nil {
			t.Skipf("needs the SAT test certificates in %s: %v", satCerts, err)
		}
		return b
	}
	cer, key = read("EKU9003173C9.cer"), read("EKU9003173C9.key")
	return cer, key, strings.TrimSpace(string(read("EKU9003173C9.password.txt")))
}

// taxPerson makes a non-owner person with an RFC (none when tin is empty) and an API key.
func taxPerson(t *testing.T, f *fixture, email, tin string) member {
	t.Helper()
	m := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, email)
	if tin == "" {
		return m
	}
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(m.tenant).Get(m.person)
		if err != nil {
			return err
		}
		p.Tin = &tin
		return tx.People(m.tenant).Put(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// genKeys are RSA keys for generated pairs (1024 bits: fast, and csd opens any size).
func genKeys(n int) []*rsa.PrivateKey { return csdtest.Keys(n, 1024) }

func newPair(t *testing.T, o csdtest.Options) csdtest.Pair {
	t.Helper()
	p, err := csdtest.NewPair(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// uploadBody is an upload's JSON; fileType is any JSON value (an integer or a name), nil omits it.
func uploadBody(personID string, fileType any, content []byte, password, tin string) string {
	m := map[string]any{"personId": personID, "base64File": base64.StdEncoding.EncodeToString(content), "password": password}
	if fileType != nil {
		m["fileType"] = fileType
	}
	if tin != "" {
		m["tin"] = tin
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func taxFile(t *testing.T, r result) api.TaxFile {
	t.Helper()
	var out api.TaxFile
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &out) != nil {
		t.Fatalf("want a tax file, got %d %s", r.status, r.raw)
	}
	if out.Base64File != "" || out.Password != "" {
		t.Fatalf("an answer carries content or password: %s", r.raw)
	}
	return out
}

func taxFiles(t *testing.T, r result) []api.TaxFile {
	t.Helper()
	var out []api.TaxFile
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &out) != nil {
		t.Fatalf("want a list of tax files, got %d %s", r.status, r.raw)
	}
	return out
}

func taxPage(t *testing.T, r result) api.PagedList[api.TaxFile] {
	t.Helper()
	var page api.PagedList[api.TaxFile]
	if r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil {
		t.Fatalf("list: %s", r.raw)
	}
	for _, f := range page.Items {
		if f.Base64File != "" || f.Password != "" {
			t.Fatalf("the list carries content or a password: %s", r.raw)
		}
	}
	return page
}

// TestTaxFileUploadErrors is the upload table of spec 2 §4.2 and timbra's own failures: 403
// before any 400, each failure's property, text, errorCode and attemptedValue (secrets masked,
// the key password null).
func TestTaxFileUploadErrors(t *testing.T) {
	f := newFixture(t)
	keys := genKeys(4)
	ana := taxPerson(t, f, "ana@example.com", "AAA010101AAA")
	bob := taxPerson(t, f, "bob@example.com", "BOB800101AB1")
	norfc := taxPerson(t, f, "norfc@example.com", "")
	good := newPair(t, csdtest.Options{RFC: "AAA010101AAA", Key: keys[0]})
	expired := newPair(t, csdtest.Options{RFC: "AAA010101AAA", Key: keys[1], NotBefore: time.Now().AddDate(-4, 0, 0), NotAfter: time.Now().AddDate(0, 0, -1)})
	fiel := newPair(t, csdtest.Options{RFC: "AAA010101AAA", Key: keys[2], Kind: csd.KindFIEL})
	other := newPair(t, csdtest.Options{RFC: "XYZ010101XY1", Key: keys[3]})
	plain, err := x509.MarshalPKCS8PrivateKey(keys[0])
	if err != nil {
		t.Fatal(err)
	}
	garbage := []byte("this is neither a certificate nor a key")
	owner := as(f.creds)

	for _, c := range []struct {
		name      string
		headers   []string
		body      string
		status    int
		details   string
		property  string
		message   string
		code      string
		attempted any // compared as JSON text; "-" skips
	}{
		{"another person's files, caller not owner (403 first)", bob.headers(), uploadBody(ana.person, 9, garbage, "", "nope"), 403, auth.MsgOnlyOwnerCredentials, "", "", "", "-"},
		{"fileType 4", owner, uploadBody(ana.person, 4, good.Cer, "", ""), 400, "", "FileType", taxfiles.MsgPfx, taxfiles.CodePfx, "4"},
		{"fileType Pfx by name", owner, uploadBody(ana.person, "Pfx", good.Cer, "", ""), 400, "", "FileType", taxfiles.MsgPfx, taxfiles.CodePfx, `"Pfx"`},
		{"fileType out of range", owner, uploadBody(ana.person, 7, good.Cer, "", ""), 400, "", "FileType", "'File Type' tiene un rango de valores que no incluye '7'.", "EnumValidator", "7"},
		{"fileType negative", owner, uploadBody(ana.person, -1, good.Cer, "", ""), 400, "", "FileType", "'File Type' tiene un rango de valores que no incluye '-1'.", "EnumValidator", "-1"},
		{"fileType unknown name", owner, uploadBody(ana.person, "Cer", good.Cer, "", ""), 400, "", "FileType", "'File Type' tiene un rango de valores que no incluye 'Cer'.", "EnumValidator", `"Cer"`},
		{"fileType absent", owner, uploadBody(ana.person, nil, good.Cer, "", ""), 400, "", "FileType", "'File Type' no debe estar vacío.", "NotNullValidator", "null"},
		{"wrong password", owner, uploadBody(ana.person, 1, good.Key, "not-the-password", ""), 400, "", "Password", taxfiles.MsgWrongPassword, taxfiles.CodeWrongPassword, "null"},
		{"no password", owner, uploadBody(ana.person, "PrivateKeyCsd", good.Key, "", ""), 400, "", "Password", taxfiles.MsgWrongPassword, taxfiles.CodeWrongPassword, "null"},
		{"garbage as a key", owner, uploadBody(ana.person, 1, garbage, "12345678a", ""), 400, "", "Password", taxfiles.MsgWrongPassword, taxfiles.CodeWrongPassword, "null"},
		{"a certificate as a key", owner, uploadBody(ana.person, 3, good.Cer, "12345678a", ""), 400, "", "Password", taxfiles.MsgWrongPassword, taxfiles.CodeWrongPassword, "null"},
		{"unencrypted key", owner, uploadBody(ana.person, 1, plain, "12345678a", ""), 400, "", "Password", taxfiles.MsgWrongPassword, taxfiles.CodeKeyNotEncrypted, "null"},
		{"garbage as a certificate", owner, uploadBody(ana.person, 0, garbage, "", ""), 400, "", "Base64File", taxfiles.MsgNotCertificate, taxfiles.CodeNotCertificate, fmt.Sprintf(`"[masked: %d]"`, base64.StdEncoding.EncodedLen(len(garbage)))},
		{"a key as a certificate", owner, uploadBody(ana.person, "CertificateCsd", good.Key, "", ""), 400, "", "Base64File", taxfiles.MsgNotCertificate, taxfiles.CodeNotCertificate, "-"},
		{"not base64", owner, `{"personId":"` + ana.person + `","fileType":0,"base64File":"MII@@@"}`, 400, "", "Base64File", fmt.Sprintf(taxfiles.MsgNotBase64, 3), taxfiles.CodeNotBase64, `"[masked: 6]"`},
		{"base64File absent", owner, `{"personId":"` + ana.person + `","fileType":0}`, 400, "", "Base64File", "'Base64 File' no debería estar vacío.", "NotEmptyValidator", "null"},
		{"base64File empty", owner, `{"personId":"` + ana.person + `","fileType":0,"base64File":""}`, 400, "", "Base64File", "'Base64 File' no debería estar vacío.", "NotEmptyValidator", `"[masked: 0]"`},
		{"a FIEL certificate as fileType 0", owner, uploadBody(ana.person, 0, fiel.Cer, "", ""), 400, "", "FileType", taxfiles.MsgCertificateIsFIEL, taxfiles.CodeCertificateKind, "0"},
		{"a CSD certificate as fileType 2", owner, uploadBody(ana.person, "CertificateFiel", good.Cer, "", ""), 400, "", "FileType", taxfiles.MsgCertificateIsCSD, taxfiles.CodeCertificateKind, "2"},
		{"expired certificate", owner, uploadBody(ana.person, 0, expired.Cer, "", ""), 400, "", "Base64File", fmt.Sprintf(taxfiles.MsgCertificateExpired, api.FormatAudit(expired.Cert.ValidTo)), taxfiles.CodeCertificateExpired, "-"},
		{"certificate of another RFC", owner, uploadBody(ana.person, 0, other.Cer, "", ""), 400, "", "Base64File", fmt.Sprintf(taxfiles.MsgCertificateRFC, "XYZ010101XY1", "AAA010101AAA"), taxfiles.CodeCertificateRFC, "-"},
		{"tin is not the person's RFC", owner, uploadBody(ana.person, 0, good.Cer, "", "BOB800101AB1"), 400, "", "Tin", fmt.Sprintf(taxfiles.MsgTinMismatch, "BOB800101AB1", "AAA010101AAA"), taxfiles.CodeTinMismatch, `"BOB800101AB1"`},
		{"the person's own files, tin mismatch", bob.headers(), uploadBody(bob.person, 0, good.Cer, "", "AAA010101AAA"), 400, "", "Tin", fmt.Sprintf(taxfiles.MsgTinMismatch, "AAA010101AAA", "BOB800101AB1"), taxfiles.CodeTinMismatch, `"AAA010101AAA"`},
		{"person without RFC", owner, uploadBody(norfc.person, 0, good.Cer, "", ""), 400, "", "Tin", fmt.Sprintf(taxfiles.MsgPersonWithoutTin, norfc.person), taxfiles.CodePersonWithoutTin, "null"},
		{"person not of the tenant", owner, uploadBody("nobody", 0, good.Cer, "", ""), 400, "", "PersonId", taxfiles.MsgPersonNotValid, taxfiles.CodePersonNotValid, `"nobody"`},
		{"personId absent", owner, `{"fileType":0,"base64File":"` + base64.StdEncoding.EncodeToString(good.Cer) + `"}`, 400, "", "PersonId", "'Person Id' no debería estar vacío.", "NotEmptyValidator", "null"},
		{"base64File of another type", owner, `{"personId":"` + ana.person + `","fileType":0,"base64File":12}`, 400, "", "$.base64File", "-", "", "-"},
		{"empty body", owner, ``, 400, "", "$", "El cuerpo de la petición es requerido y no debe estar vacío.", "", "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.do("POST", "/api/v4/tax-files", c.body, c.headers...)
			if c.status != 400 {
				expectStatus(t, r, c.status, c.details)
				return
			}
			got := failureOn(t, r, c.property)
			if c.message != "-" && got.ErrorMessage != c.message {
				t.Errorf("message = %q, want %q", got.ErrorMessage, c.message)
			}
			if c.code != "" && (got.ErrorCode == nil || *got.ErrorCode != c.code) {
				t.Errorf("errorCode = %v, want %s", got.ErrorCode, c.code)
			}
			if c.attempted != "-" {
				if a, _ := json.Marshal(got.AttemptedValue); string(a) != c.attempted {
					t.Errorf("attemptedValue = %s, want %s", a, c.attempted)
				}
			}
			for _, secret := range []string{good.Password, "not-the-password", base64.StdEncoding.EncodeToString(good.Key)[:40]} {
				if strings.Contains(r.raw, secret) {
					t.Errorf("the answer echoes a secret: %s", r.raw)
				}
			}
		})
	}
	// every failure of a body comes in one answer
	r := f.do("POST", "/api/v4/tax-files", `{"personId":"`+norfc.person+`","fileType":7,"base64File":"@"}`)
	for _, p := range []string{"Tin", "FileType", "Base64File"} {
		failureOn(t, r, p)
	}
	// nothing was saved
	if page := taxPage(t, f.do("GET", "/api/v4/tax-files", "")); page.TotalCount != 0 {
		t.Fatalf("failed uploads saved files: %+v", page)
	}
}

// TestTaxFileRealPair uploads SAT's test CSD EKU9003173C9 and reads it back through every
// endpoint, and through DefaultPair.
func TestTaxFileRealPair(t *testing.T) {
	cer, key, password := realPair(t)
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) // within the certificate's validity
	f := newFixture(t, func(c *Config) { c.Now = func() time.Time { return now } })
	ana := taxPerson(t, f, "ana@example.com", "EKU9003173C9")

	// the key first: no validity until its certificate comes; the names the clients send
	k := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, "PrivateKeyCsd", key, password, "eku9003173c9")))
	if k.FileType != 1 || k.Sequence != 1 || k.ValidFrom != nil || k.ValidTo != nil || k.CertificateNumber != nil || k.Tin != "EKU9003173C9" || k.PersonID != ana.person {
		t.Fatalf("key = %+v", k)
	}
	c := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, "CertificateCsd", cer, "", "")))
	if c.FileType != 0 || c.Sequence != 1 || c.CertificateNumber == nil || *c.CertificateNumber != "30001000000500003416" || c.Tin != "EKU9003173C9" ||
		c.ValidFrom == nil || !strings.HasPrefix(*c.ValidFrom, "2023-05-18T") || c.ValidTo == nil || !strings.HasPrefix(*c.ValidTo, "2027-05-18T") {
		t.Fatalf("certificate = %+v", c)
	}
	k = taxFile(t, f.do("GET", "/api/v4/tax-files/"+k.ID, ""))
	if k.ValidFrom == nil || *k.ValidFrom != *c.ValidFrom || *k.ValidTo != *c.ValidTo {
		t.Fatalf("the key did not take its certificate's validity: %+v", k)
	}

	values := taxFiles(t, f.do("GET", "/api/v4/tax-files/"+ana.person+"/default-values", ""))
	if len(values) != 2 || values[0].ID != c.ID || values[0].FileType != 0 || values[1].ID != k.ID || values[1].FileType != 1 {
		t.Fatalf("default values = %+v", values)
	}
	if values[0].Base64File != base64.StdEncoding.EncodeToString(cer) || values[1].Base64File != base64.StdEncoding.EncodeToString(key) || values[1].Password != password {
		t.Fatal("default values do not carry the files and the password as uploaded")
	}
	// the person sees them too
	if v := taxFiles(t, f.do("GET", "/api/v4/tax-files/"+ana.person+"/default-values", "", ana.headers()...)); len(v) != 2 || v[1].Password != password {
		t.Fatalf("the person's own default values = %+v", v)
	}
	refs := f.do("GET", "/api/v4/tax-files/"+ana.person+"/default-references", "")
	got := taxFiles(t, refs)
	if len(got) != 2 || got[0].ID != c.ID || got[1].ID != k.ID || got[0].Tin != "EKU9003173C9" || got[0].ValidTo == nil ||
		got[0].Base64File != "" || got[1].Password != "" || !strings.Contains(refs.raw, `"base64File":""`) || !strings.Contains(refs.raw, `"password":""`) {
		t.Fatalf("default references = %s", refs.raw)
	}

	cert, pk, _, err := f.srv.TaxFiles().DefaultPair(context.Background(), f.creds.TenantKey, ana.person)
	if err != nil || cert.Number != "30001000000500003416" || cert.RFC != "EKU9003173C9" || !cert.Matches(pk) {
		t.Fatalf("DefaultPair = %+v, %v", cert, err)
	}
	page := taxPage(t, f.do("GET", "/api/v4/tax-files", ""))
	if page.TotalCount != 2 || page.PageSize != 10 || page.Items[0].ID != k.ID || page.Items[1].ID != c.ID {
		t.Fatalf("list = %+v", page)
	}
}

// TestTaxFileDefaults checks the pairing (sequence), the choice of the default pair, and every
// error of the default-values and default-references table.
func TestTaxFileDefaults(t *testing.T) {
	f := newFixture(t)
	keys := genKeys(6)
	rfc := "AAA010101AAA"
	a := newPair(t, csdtest.Options{RFC: rfc, Key: keys[0]})
	b := newPair(t, csdtest.Options{RFC: rfc, Key: keys[1]})
	c := newPair(t, csdtest.Options{RFC: rfc, Key: keys[2]})
	future := newPair(t, csdtest.Options{RFC: rfc, Key: keys[3], NotBefore: time.Now().AddDate(0, 0, 1)})
	fiel := newPair(t, csdtest.Options{RFC: rfc, Key: keys[4], Kind: csd.KindFIEL})
	d := newPair(t, csdtest.Options{RFC: rfc, Key: keys[5]})
	ana := taxPerson(t, f, "ana@example.com", rfc)
	upload := func(who member, fileType int, content []byte, password string) api.TaxFile {
		t.Helper()
		return taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(who.person, fileType, content, password, ""), who.headers()...))
	}
	values := func(who member) result {
		return f.do("GET", "/api/v4/tax-files/"+who.person+"/default-values", "")
	}
	refs := func(who member) result {
		return f.do("GET", "/api/v4/tax-files/"+who.person+"/default-references", "")
	}
	pairIs := func(r result, cert, key api.TaxFile) {
		t.Helper()
		got := taxFiles(t, r)
		if len(got) != 2 || got[0].ID != cert.ID || got[1].ID != key.ID {
			t.Fatalf("default pair = %s, want %s and %s", r.raw, cert.ID, key.ID)
		}
	}

	// pair a: key first, then its certificate (the person uploads its own)
	aKey := upload(ana, 1, a.Key, a.Password)
	aCer := upload(ana, 0, a.Cer, "")
	if aKey.Sequence != 1 || aCer.Sequence != 1 {
		t.Fatalf("sequences of the first pair: %d, %d", aCer.Sequence, aKey.Sequence)
	}
	pairIs(refs(ana), aCer, aKey)
	// pair b, more recent, becomes the default
	bCer := upload(ana, 0, b.Cer, "")
	bKey := upload(ana, 1, b.Key, b.Password)
	if bCer.Sequence != 2 || bKey.Sequence != 2 {
		t.Fatalf("sequences of the second pair: %d, %d", bCer.Sequence, bKey.Sequence)
	}
	pairIs(refs(ana), bCer, bKey)
	vs := taxFiles(t, values(ana))
	if vs[0].Base64File != base64.StdEncoding.EncodeToString(b.Cer) || vs[1].Password != b.Password {
		t.Fatal("default values of pair b do not carry its files")
	}
	// a certificate without its key does not displace the pair; a not yet valid pair neither
	cCer := upload(ana, 0, c.Cer, "")
	fCer, fKey := upload(ana, 0, future.Cer, ""), upload(ana, 1, future.Key, future.Password)
	if cCer.Sequence != 3 || fCer.Sequence != 4 || fKey.Sequence != 4 {
		t.Fatalf("sequences: %d, %d, %d", cCer.Sequence, fCer.Sequence, fKey.Sequence)
	}
	pairIs(refs(ana), bCer, bKey)
	// the FIEL pair is not a default candidate
	if fc, fk := upload(ana, 2, fiel.Cer, ""), upload(ana, 3, fiel.Key, fiel.Password); fc.Sequence != 5 || fk.Sequence != 5 {
		t.Fatalf("FIEL sequences: %d, %d", fc.Sequence, fk.Sequence)
	}
	pairIs(values(ana), bCer, bKey)
	// deleting b's key falls back to pair a
	if r := f.do("DELETE", "/api/v4/tax-files/"+bKey.ID, ""); r.status != 200 {
		t.Fatalf("delete: %s", r.raw)
	}
	pairIs(refs(ana), aCer, aKey)
	// a new pair numbers after every file ever uploaded, deleted ones too
	if dCer := upload(ana, 0, d.Cer, ""); dCer.Sequence != 6 {
		t.Fatalf("sequence after a deletion: %d", dCer.Sequence)
	}
	// the key of a deleted pair uploaded again takes its certificate's sequence
	if again := upload(ana, 1, b.Key, b.Password); again.Sequence != 2 || again.ValidTo == nil {
		t.Fatalf("b's key again: %+v", again)
	}

	// the table of §4.2
	bob := taxPerson(t, f, "bob@example.com", rfc)
	norfc := taxPerson(t, f, "norfc@example.com", "")
	onlyCert, onlyKey, notValid, onlyFiel := taxPerson(t, f, "c@example.com", rfc), taxPerson(t, f, "k@example.com", rfc),
		taxPerson(t, f, "n@example.com", rfc), taxPerson(t, f, "f@example.com", rfc)
	upload(onlyCert, 0, a.Cer, "")
	upload(onlyKey, 1, a.Key, a.Password)
	upload(notValid, 0, future.Cer, "")
	upload(notValid, 1, future.Key, future.Password)
	upload(onlyFiel, 2, fiel.Cer, "")
	upload(onlyFiel, 3, fiel.Key, fiel.Password)
	mismatched := taxPerson(t, f, "m@example.com", rfc)
	upload(mismatched, 0, a.Cer, "")
	upload(mismatched, 1, c.Key, c.Password)

	for _, c := range []struct {
		name     string
		path     string
		headers  []string
		status   int
		details  string
		emptyArr bool
	}{
		{"values: no current files", bob.person + "/default-values", nil, 200, "", true},
		{"references: no current files", bob.person + "/default-references", nil, 404, fmt.Sprintf(taxfiles.MsgNoCurrentFiles, bob.person), false},
		{"values: only FIEL files", onlyFiel.person + "/default-values", nil, 200, "", true},
		{"references: only FIEL files", onlyFiel.person + "/default-references", nil, 404, fmt.Sprintf(taxfiles.MsgNoCurrentFiles, onlyFiel.person), false},
		{"certificate without key", onlyCert.person + "/default-values", nil, 404, fmt.Sprintf(taxfiles.MsgNoPrivateKey, onlyCert.person), false},
		{"certificate without key (references)", onlyCert.person + "/default-references", nil, 404, fmt.Sprintf(taxfiles.MsgNoPrivateKey, onlyCert.person), false},
		{"mismatched pair", mismatched.person + "/default-references", nil, 404, fmt.Sprintf(taxfiles.MsgNoPrivateKey, mismatched.person), false},
		{"key without certificate", onlyKey.person + "/default-values", nil, 404, fmt.Sprintf(taxfiles.MsgNoCertificate, onlyKey.person), false},
		{"key without certificate (references)", onlyKey.person + "/default-references", nil, 404, fmt.Sprintf(taxfiles.MsgNoCertificate, onlyKey.person), false},
		{"certificate not yet valid", notValid.person + "/default-values", nil, 404, fmt.Sprintf(taxfiles.MsgNoCertificate, notValid.person), false},
		{"person absent", "nobody/default-values", nil, 404, "La persona 'nobody' no existe", false},
		{"person absent (references)", "nobody/default-references", nil, 404, "La persona 'nobody' no existe", false},
		{"person without RFC", norfc.person + "/default-values", nil, 400, fmt.Sprintf(taxfiles.MsgPersonWithoutTin, norfc.person), false},
		{"person without RFC (references)", norfc.person + "/default-references", nil, 400, fmt.Sprintf(taxfiles.MsgPersonWithoutTin, norfc.person), false},
		{"neither the person nor the owner", ana.person + "/default-values", bob.headers(), 403, auth.MsgOnlyOwnerCredentials, false},
		{"neither the person nor the owner (references)", ana.person + "/default-references", bob.headers(), 403, auth.MsgOnlyOwnerCredentials, false},
		{"neither the person nor the owner, absent person", "nobody/default-values", bob.headers(), 403, auth.MsgOnlyOwnerCredentials, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.do("GET", "/api/v4/tax-files/"+c.path, "", c.headers...)
			if c.status == 200 {
				if got := taxFiles(t, r); len(got) != 0 || !strings.Contains(r.raw, `"data":[]`) {
					t.Fatalf("want an empty array, got %s", r.raw)
				}
				return
			}
			expectStatus(t, r, c.status, c.details)
			if string(r.env.Data) != "null" {
				t.Fatalf("data = %s", r.env.Data)
			}
		})
	}
	for _, who := range []member{onlyCert, onlyKey} {
		if _, _, _, err := f.srv.TaxFiles().DefaultPair(context.Background(), f.creds.TenantKey, who.person); err == nil {
			t.Fatal("DefaultPair found a pair where there is none")
		}
	}
}

// TestTaxFileVisibilityAndDelete: a non-owner's list omits others' files, get answers 404,
// delete answers as for a missing file and deletes nothing; delete is soft; paging limits.
func TestTaxFileVisibilityAndDelete(t *testing.T) {
	f := newFixture(t)
	keys := genKeys(2)
	rfc := "AAA010101AAA"
	p, q := newPair(t, csdtest.Options{RFC: rfc, Key: keys[0]}), newPair(t, csdtest.Options{RFC: rfc, Key: keys[1]})
	ana, bob := taxPerson(t, f, "ana@example.com", rfc), taxPerson(t, f, "bob@example.com", rfc)
	anaCer := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 0, p.Cer, "", "")))
	anaKey := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 1, p.Key, p.Password, "")))
	bobCer := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(bob.person, 0, q.Cer, "", ""), bob.headers()...))

	page := taxPage(t, f.do("GET", "/api/v4/tax-files", "", bob.headers()...))
	if page.TotalCount != 1 || len(page.Items) != 1 || page.Items[0].ID != bobCer.ID {
		t.Fatalf("bob's list = %+v", page)
	}
	if page := taxPage(t, f.do("GET", "/api/v4/tax-files", "")); page.TotalCount != 3 {
		t.Fatalf("the owner's list = %+v", page)
	}
	expectStatus(t, f.do("GET", "/api/v4/tax-files/"+anaCer.ID, "", bob.headers()...), 404, "No such resource for the given Id: "+anaCer.ID)
	if got := taxFile(t, f.do("GET", "/api/v4/tax-files/"+anaCer.ID, "", ana.headers()...)); got.ID != anaCer.ID {
		t.Fatalf("ana's own get = %+v", got)
	}
	r := f.do("DELETE", "/api/v4/tax-files/"+anaCer.ID, "", bob.headers()...)
	if r.status != 400 || r.env.Succeeded || string(r.env.Data) != "false" || r.env.Details != fmt.Sprintf(taxfiles.MsgDeleteAbsent, anaCer.ID) {
		t.Fatalf("bob deletes ana's file: %s", r.raw)
	}
	taxFile(t, f.do("GET", "/api/v4/tax-files/"+anaCer.ID, "")) // still there
	expectStatus(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 0, p.Cer, "", ""), bob.headers()...), 403, auth.MsgOnlyOwnerCredentials)

	// delete: 200 true, then as missing; the record is kept without content and password
	r = f.do("DELETE", "/api/v4/tax-files/"+anaKey.ID, "", ana.headers()...)
	if r.status != 200 || !r.env.Succeeded || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	for _, id := range []string{anaKey.ID, "absent-id"} {
		r = f.do("DELETE", "/api/v4/tax-files/"+id, "")
		if r.status != 400 || r.env.Succeeded || string(r.env.Data) != "false" || r.env.Details != fmt.Sprintf(taxfiles.MsgDeleteAbsent, id) {
			t.Fatalf("delete %s again: %s", id, r.raw)
		}
	}
	expectStatus(t, f.do("GET", "/api/v4/tax-files/"+anaKey.ID, ""), 404, "No such resource for the given Id: "+anaKey.ID)
	if page := taxPage(t, f.do("GET", "/api/v4/tax-files", "")); page.TotalCount != 2 {
		t.Fatalf("a deleted file is listed: %+v", page)
	}
	err := f.srv.Accounts().Store.View(context.Background(), func(tx storage.Tx) error {
		d, err := tx.TaxFiles(f.creds.TenantKey).Get(anaKey.ID)
		if err != nil || !d.Deleted() || d.Content != nil || d.Password != nil || d.DeletedBy != ana.person ||
			d.FileType != 1 || d.Tin != rfc || d.ValidTo == nil || d.Sequence != 1 {
			t.Errorf("deleted record = %+v, %v", d, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// paging: default 10, at most 50
	for range 10 {
		taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(bob.person, 0, q.Cer, "", "")))
	}
	page = taxPage(t, f.do("GET", "/api/v4/tax-files", ""))
	if page.PageSize != 10 || len(page.Items) != 10 || page.TotalCount != 12 || page.TotalPages != 2 || !page.HasNextPage {
		t.Fatalf("default page = %+v", page)
	}
	page = taxPage(t, f.do("GET", "/api/v4/tax-files?PageNumber=2&PageSize=10", ""))
	if len(page.Items) != 2 || page.PageNumber != 2 {
		t.Fatalf("second page = %+v", page)
	}
	if page = taxPage(t, f.do("GET", "/api/v4/tax-files?pageSize=50", "")); len(page.Items) != 12 {
		t.Fatalf("page of 50 = %+v", page)
	}
	expectFailure(t, f.do("GET", "/api/v4/tax-files?pageSize=51", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
	expectFailure(t, f.do("GET", "/api/v4/tax-files?pageSize=0", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
}

// TestTaxFilesSealedAtRest reads the database file: neither the files' bytes (nor their base64)
// nor the password are in it, and the sealed values open only in their own record.
func TestTaxFilesSealedAtRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	d, err := OpenData(DataOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Environment: d.Environment, Logger: slog.New(slog.DiscardHandler)}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, srv: s, creds: creds}
	ana := taxPerson(t, f, "ana@example.com", "AAA010101AAA")
	const password = "Una clave muy secreta 123"
	p := newPair(t, csdtest.Options{RFC: "AAA010101AAA", Key: genKeys(1)[0], Password: password})
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	var saved []api.TaxFile
	for i, content := range [][]byte{p.Cer, p.Key} {
		text, pw := base64.StdEncoding.EncodeToString(content), password
		id := ana.person
		got, err := s.TaxFiles().Upload(context.Background(), owner, taxfiles.Upload{PersonID: &id, Base64File: &text, Password: &pw, FileType: json.RawMessage(fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, got)
	}
	err = d.Store.View(context.Background(), func(tx storage.Tx) error {
		rec, err := tx.TaxFiles(creds.TenantKey).Get(saved[1].ID)
		if err != nil {
			return err
		}
		if plain, err := d.Keys.Open(rec.Content, taxfiles.ContentContext(creds.TenantKey, ana.person, rec.ID)); err != nil || !bytes.Equal(plain, p.Key) {
			t.Errorf("the sealed key does not open in its record: %v", err)
		}
		if _, err := d.Keys.Open(rec.Content, taxfiles.ContentContext(creds.TenantKey, ana.person, saved[0].ID)); err == nil {
			t.Error("a sealed content opens in another record")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Store.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string][]byte{
		"certificate DER": p.Cer, "key DER": p.Key, "certificate base64": []byte(base64.StdEncoding.EncodeToString(p.Cer)[:64]),
		"key base64": []byte(base64.StdEncoding.EncodeToString(p.Key)[:64]), "key DER excerpt": p.Key[100:164], "password": []byte(password),
	} {
		if bytes.Contains(raw, secret) {
			t.Errorf("the database file holds the %s in clear", name)
		}
	}
	if !bytes.Contains(raw, []byte(saved[0].ID)) {
		t.Fatal("the records are not in the file: the search proves nothing")
	}
}

// TestDeletePersonTaxFiles: deleting a person soft-deletes its tax files in the same
// transaction: kept for audit, out of every list, content and password erased.
func TestDeletePersonTaxFiles(t *testing.T) {
	f := newFixture(t)
	p := newPair(t, csdtest.Options{RFC: "AAA010101AAA", Key: genKeys(1)[0]})
	ana := taxPerson(t, f, "ana@example.com", "AAA010101AAA")
	cer := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 0, p.Cer, "", "")))
	key := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(ana.person, 1, p.Key, p.Password, "")))
	if r := f.do("DELETE", "/api/v4/people/"+ana.person, ""); r.status != 200 {
		t.Fatalf("delete person: %s", r.raw)
	}
	if page := taxPage(t, f.do("GET", "/api/v4/tax-files", "")); page.TotalCount != 0 {
		t.Fatalf("the files of a deleted person are listed: %+v", page)
	}
	expectStatus(t, f.do("GET", "/api/v4/tax-files/"+cer.ID, ""), 404, "No such resource for the given Id: "+cer.ID)
	err := f.srv.Accounts().Store.View(context.Background(), func(tx storage.Tx) error {
		for _, id := range []string{cer.ID, key.ID} {
			d, err := tx.TaxFiles(f.creds.TenantKey).Get(id)
			if err != nil || !d.Deleted() || d.Content != nil || d.Password != nil || d.DeletedBy != f.creds.PersonID {
				t.Errorf("record %s after its person's deletion = %+v, %v", id, d, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = f.srv.TaxFiles().DefaultPair(context.Background(), f.creds.TenantKey, ana.person)
	if e, ok := apierr.As(err); !ok || e.Status != 404 || e.Details != fmt.Sprintf(taxfiles.MsgPersonAbsent, ana.person) {
		t.Fatalf("DefaultPair of a deleted person: %v", err)
	}
}

// TestTaxFileConcurrentUploads: certificates and keys of several pairs uploaded at once for one
// person; each pair ends with one sequence shared by its two files, all pairs distinct, and
// every key with its certificate's validity, whichever of the two was saved first.
func TestTaxFileConcurrentUploads(t *testing.T) {
	f := newFixture(t)
	const n = 8
	keys := genKeys(n)
	ana := taxPerson(t, f, "ana@example.com", "AAA010101AAA")
	pairs := make([]csdtest.Pair, n)
	for i := range pairs {
		pairs[i] = newPair(t, csdtest.Options{RFC: "AAA010101AAA", Key: keys[i]})
	}
	client := &api.Client{BaseURL: f.http.URL, TenantKey: f.creds.TenantKey, APIKey: f.creds.APIKey}
	done := make(chan error, 2*n)
	for _, p := range pairs {
		for ft, content := range [][]byte{p.Cer, p.Key} {
			go func() {
				_, err := client.UploadTaxFile(context.Background(), api.TaxFileUpload{PersonID: ana.person, FileType: ft,
					Base64File: base64.StdEncoding.EncodeToString(content), Password: p.Password})
				done <- err
			}()
		}
	}
	for range 2 * n {
		if err := <-done; err != nil {
			t.Fatalf("upload: %v", err)
		}
	}
	page := taxPage(t, f.do("GET", "/api/v4/tax-files?pageSize=50", ""))
	if page.TotalCount != 2*n {
		t.Fatalf("%d files listed, want %d", page.TotalCount, 2*n)
	}
	byNumber := map[string]int{}
	for i, p := range pairs {
		byNumber[p.Number] = i
	}
	certSeq := map[int]api.TaxFile{}
	for _, fl := range page.Items {
		if fl.FileType == 0 {
			if _, dup := certSeq[fl.Sequence]; dup {
				t.Fatalf("two certificates share sequence %d", fl.Sequence)
			}
			certSeq[fl.Sequence] = fl
		}
	}
	for _, fl := range page.Items {
		if fl.FileType != 1 {
			continue
		}
		c, ok := certSeq[fl.Sequence]
		if !ok || fl.ValidTo == nil || *fl.ValidTo != *c.ValidTo {
			t.Fatalf("key %+v has no certificate of its sequence, or not its validity (%+v)", fl, c)
		}
	}
	if len(certSeq) != n {
		t.Fatalf("%d distinct certificate sequences, want %d", len(certSeq), n)
	}
	// the pair of each sequence really pairs: the default pair is the most recent certificate's
	cert, key, _, err := f.srv.TaxFiles().DefaultPair(context.Background(), f.creds.TenantKey, ana.person)
	if err != nil || !cert.Matches(key) {
		t.Fatalf("DefaultPair: %v", err)
	}
	if _, ok := byNumber[cert.Number]; !ok {
		t.Fatalf("default certificate %s is none of the uploaded", cert.Number)
	}
}
