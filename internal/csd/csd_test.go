package csd_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// satDir is the shared SAT material, beside the repository (see shared/sat/README.md).
var satDir = testpaths.Shared("sat")

// satFile reads a file of the shared SAT material, skipping the test when it is absent.
func satFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(satDir, rel))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("SAT test material %s not found beside the repository (../shared/sat): skipping", rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func satPassword(t testing.TB) []byte {
	return bytes.TrimRight(satFile(t, "certs/EKU9003173C9.password.txt"), "\r\n")
}

func utc(s string) time.Time {
	t, err := time.Parse(time.DateTime, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestRealEKU9003173C9(t *testing.T) {
	cer := satFile(t, "certs/EKU9003173C9.cer")
	keyDER := satFile(t, "certs/EKU9003173C9.key")
	pw := satPassword(t)

	c, err := csd.ParseCertificate(cer)
	if err != nil {
		t.Fatal(err)
	}
	// What openssl x509 -inform DER -noout -serial -dates -subject says.
	if c.Number != "30001000000500003416" {
		t.Errorf("Number = %q", c.Number)
	}
	if c.RFC != "EKU9003173C9" {
		t.Errorf("RFC = %q", c.RFC)
	}
	if c.Name != "ESCUELA KEMPER URGATE SA DE CV" {
		t.Errorf("Name = %q", c.Name)
	}
	if from, to := utc("2023-05-18 11:43:51"), utc("2027-05-18 11:43:51"); !c.ValidFrom.Equal(from) || !c.ValidTo.Equal(to) {
		t.Errorf("validity %v .. %v, want %v .. %v", c.ValidFrom, c.ValidTo, from, to)
	}
	if c.Kind != csd.KindCSD {
		t.Errorf("Kind = %v, want CSD", c.Kind)
	}
	if !c.ValidAt(utc("2025-01-01 00:00:00")) || c.ValidAt(utc("2023-05-18 11:43:50")) || c.ValidAt(utc("2027-05-18 11:43:52")) {
		t.Error("ValidAt wrong around the validity")
	}
	if !c.ValidAt(c.ValidFrom) || !c.ValidAt(c.ValidTo) {
		t.Error("ValidAt excludes the ends of the validity")
	}
	if c.Base64() != base64.StdEncoding.EncodeToString(cer) || strings.ContainsAny(c.Base64(), "\r\n") {
		t.Error("Base64 is not the standard base64 of the DER on one line")
	}
	if !bytes.Equal(c.Raw, cer) {
		t.Error("Raw is not the DER")
	}

	// The certificate as a CFDI carries it: the Certificado attribute of the sample sealed with it.
	xml := satFile(t, "samples/cfdi40-valid.xml")
	if m := regexp.MustCompile(` Certificado="([^"]+)"`).FindSubmatch(xml); m == nil || string(m[1]) != c.Base64() {
		t.Error("Base64 differs from the Certificado attribute of samples/cfdi40-valid.xml")
	}

	// PEM, for convenience.
	pc, err := csd.ParseCertificate(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cer}))
	if err != nil || pc.Number != c.Number {
		t.Errorf("PEM: %v", err)
	}

	k, err := csd.ParsePrivateKey(keyDER, pw)
	if err != nil {
		t.Fatalf("the password of EKU9003173C9.password.txt does not open the key: %v", err)
	}
	if !c.Matches(k) {
		t.Error("Matches = false for the real pair")
	}
	if c.PublicKeyID() != k.PublicKeyID() || len(c.PublicKeyID()) != 64 {
		t.Errorf("PublicKeyID: certificate %s, key %s", c.PublicKeyID(), k.PublicKeyID())
	}
	// The ID is the SHA-256 of the certificate's SubjectPublicKeyInfo as SAT encoded it.
	if sum := sha256.Sum256(c.X509.RawSubjectPublicKeyInfo); c.PublicKeyID() != hexString(sum[:]) {
		t.Error("PublicKeyID is not the SHA-256 of the SubjectPublicKeyInfo")
	}

	for _, wrong := range []string{"", "12345678", "12345678A", "12345678a ", "x"} {
		if _, err := csd.ParsePrivateKey(keyDER, []byte(wrong)); !errors.Is(err, csd.ErrWrongPassword) {
			t.Errorf("password %q: err = %v, want ErrWrongPassword", wrong, err)
		}
	}
	// PEM "ENCRYPTED PRIVATE KEY" of the same bytes.
	if _, err := csd.ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: keyDER}), pw); err != nil {
		t.Errorf("PEM key: %v", err)
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

func TestOtherRealCertificates(t *testing.T) {
	key, err := csd.ParsePrivateKey(satFile(t, "certs/EKU9003173C9.key"), satPassword(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, number, rfc, name, from, to string
	}{
		// SAT's own stamping certificate: x500UniqueIdentifier "SAT970701NN3 / MIML911119PJ8", OU PACTBN040609RKA55702.
		{"00001000000708361114.cer", "00001000000708361114", "SAT970701NN3", "SERVICIO DE ADMINISTRACION TRIBUTARIA", "2024-07-02 00:35:57", "2028-07-02 00:35:57"},
		{"30001000000500003456.cer", "30001000000500003456", "SPR190613I52", "SAT PRUEBAS", "2023-05-18 16:23:14", "2027-05-18 16:23:14"},
		{"CSD09_AAA010101AAA.cer", "30001000000300023705", "AAA010101AAA", "ACCEM SERVICIOS EMPRESARIALES SC", "2017-05-18 03:54:54", "2021-05-18 03:54:54"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			c, err := csd.ParseCertificate(satFile(t, "certs/"+tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if c.Number != tc.number || c.RFC != tc.rfc || c.Name != tc.name {
				t.Errorf("got %q %q %q, want %q %q %q", c.Number, c.RFC, c.Name, tc.number, tc.rfc, tc.name)
			}
			if !c.ValidFrom.Equal(utc(tc.from)) || !c.ValidTo.Equal(utc(tc.to)) {
				t.Errorf("validity %v .. %v", c.ValidFrom, c.ValidTo)
			}
			if c.Kind != csd.KindCSD {
				t.Errorf("Kind = %v, want CSD (signing-only, with an OU)", c.Kind)
			}
			if c.Matches(key) || c.PublicKeyID() == key.PublicKeyID() {
				t.Error("EKU9003173C9's key matches another certificate")
			}
		})
	}
	expired, err := csd.ParseCertificate(satFile(t, "certs/CSD09_AAA010101AAA.cer"))
	if err != nil {
		t.Fatal(err)
	}
	if expired.ValidAt(time.Now()) {
		t.Error("CSD09_AAA010101AAA (expired 2021) is valid now")
	}
}

// TestCFDISello re-seals SAT's sample: the cadena original (computed by SAT's XSLT with
// xsltproc) signed with EKU9003173C9's key is exactly the Sello of samples/cfdi40-valid.xml.
func TestCFDISello(t *testing.T) {
	xml := satFile(t, "samples/cfdi40-valid.xml")
	keyDER := satFile(t, "certs/EKU9003173C9.key")
	xslt := filepath.Join(satDir, "resources/www.sat.gob.mx/sitio_internet/cfd/4/cadenaoriginal_4_0/cadenaoriginal_4_0.xslt")
	if _, err := os.Stat(xslt); err != nil {
		t.Skipf("SAT's XSLT not found (%v): skipping", err)
	}
	if _, err := exec.LookPath("xsltproc"); err != nil {
		t.Skip("xsltproc not on PATH (Debian package xsltproc): skipping the CFDI seal test vector")
	}
	// xsltproc warns on stderr that the stylesheets declare XSLT 2.0; stdout is the cadena.
	cmd := exec.Command("xsltproc", xslt, filepath.Join(satDir, "samples/cfdi40-valid.xml"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cadena, err := cmd.Output()
	if err != nil {
		t.Fatalf("xsltproc: %v\n%s", err, stderr.String())
	}
	if !bytes.HasPrefix(cadena, []byte("||4.0|")) || !bytes.HasSuffix(cadena, []byte("||")) {
		t.Fatalf("unexpected cadena original %q", cadena)
	}
	m := regexp.MustCompile(` Sello="([^"]+)"`).FindSubmatch(xml)
	if m == nil {
		t.Fatal("no Sello in the sample")
	}
	k, err := csd.ParsePrivateKey(keyDER, satPassword(t))
	if err != nil {
		t.Fatal(err)
	}
	sello, err := k.Sign(cadena)
	if err != nil {
		t.Fatal(err)
	}
	if sello != string(m[1]) {
		t.Errorf("Sign(cadena original) =\n%s\nwant the sample's Sello\n%s", sello, m[1])
	}
	c, err := csd.ParseCertificate(satFile(t, "certs/EKU9003173C9.cer"))
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(sello)
	sum := sha256.Sum256(cadena)
	if err := rsa.VerifyPKCS1v15(c.X509.PublicKey.(*rsa.PublicKey), crypto.SHA256, sum[:], sig); err != nil {
		t.Errorf("the seal does not verify with the certificate: %v", err)
	}
}

func TestGeneratedValidity(t *testing.T) {
	keys := csdtest.Keys(2, 2048)
	now := time.Now().UTC().Truncate(time.Second)
	for _, tc := range []struct {
		name          string
		from, to      time.Time
		validNow      bool
		validAt       time.Time
		validAtResult bool
	}{
		{"current", now.Add(-time.Hour), now.AddDate(4, 0, 0), true, now.AddDate(3, 0, 0), true},
		{"expired", now.AddDate(-4, 0, 0), now.Add(-time.Second), false, now.AddDate(-1, 0, 0), true},
		{"not yet valid", now.Add(time.Hour), now.AddDate(4, 0, 0), false, now.Add(2 * time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := csdtest.NewPair(csdtest.Options{RFC: "xaxx010101000", Key: keys[0], NotBefore: tc.from, NotAfter: tc.to})
			if err != nil {
				t.Fatal(err)
			}
			c, err := csd.ParseCertificate(p.Cer)
			if err != nil {
				t.Fatal(err)
			}
			if !c.ValidFrom.Equal(tc.from) || !c.ValidTo.Equal(tc.to) {
				t.Errorf("validity %v .. %v, want %v .. %v", c.ValidFrom, c.ValidTo, tc.from, tc.to)
			}
			if c.ValidAt(now) != tc.validNow {
				t.Errorf("ValidAt(now) = %v", !tc.validNow)
			}
			if c.ValidAt(tc.validAt) != tc.validAtResult {
				t.Errorf("ValidAt(%v) = %v", tc.validAt, !tc.validAtResult)
			}
			if c.RFC != "XAXX010101000" || p.RFC != c.RFC || c.Number != p.Number || len(c.Number) != 20 {
				t.Errorf("RFC %q (pair %q), Number %q (pair %q)", c.RFC, p.RFC, c.Number, p.Number)
			}
		})
	}
}

func TestGeneratedPairs(t *testing.T) {
	keys := csdtest.Keys(2, 2048)
	a, err := csdtest.NewPair(csdtest.Options{RFC: "EKU9003173C9", Key: keys[0], Serial: "30001000000500009999", Password: "otra clave"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := csdtest.NewPair(csdtest.Options{RFC: "EKU9003173C9", Key: keys[1]})
	if err != nil {
		t.Fatal(err)
	}
	if a.Number != "30001000000500009999" || a.Cert.Number != a.Number {
		t.Errorf("Number %q / %q", a.Number, a.Cert.Number)
	}
	if b.Number == a.Number || len(b.Number) != 20 || b.Password != csdtest.DefaultPassword {
		t.Errorf("random number %q, password %q", b.Number, b.Password)
	}
	ka, err := csd.ParsePrivateKey(a.Key, []byte(a.Password))
	if err != nil {
		t.Fatal(err)
	}
	kb, err := csd.ParsePrivateKey(b.Key, []byte(b.Password))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Cert.Matches(ka) || !b.Cert.Matches(kb) {
		t.Error("a pair does not match")
	}
	if a.Cert.Matches(kb) || b.Cert.Matches(ka) || a.Cert.PublicKeyID() == kb.PublicKeyID() {
		t.Error("mismatched pair matches")
	}
	if a.Cert.PublicKeyID() != ka.PublicKeyID() {
		t.Error("PublicKeyID differs within a pair")
	}
	if _, err := csd.ParsePrivateKey(a.Key, []byte(csdtest.DefaultPassword)); !errors.Is(err, csd.ErrWrongPassword) {
		t.Errorf("wrong password: %v", err)
	} else if strings.Contains(err.Error(), csdtest.DefaultPassword) {
		t.Error("the error echoes the password")
	}
	if (*csd.Certificate)(nil).Matches(ka) || a.Cert.Matches(nil) || a.Cert.Matches(&csd.PrivateKey{}) {
		t.Error("Matches with nothing is true")
	}
	sig, err := ka.Sign([]byte("||4.0|hola||"))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(sig)
	sum := sha256.Sum256([]byte("||4.0|hola||"))
	if err := rsa.VerifyPKCS1v15(&keys[0].PublicKey, crypto.SHA256, sum[:], raw); err != nil {
		t.Errorf("Sign does not verify: %v", err)
	}
	if _, err := (&csd.PrivateKey{}).Sign(nil); err == nil {
		t.Error("Sign without a key succeeded")
	}
}

func TestKinds(t *testing.T) {
	key := csdtest.Keys(1, 2048)[0]
	for _, tc := range []struct {
		kind csd.Kind
		rfc  string
	}{{csd.KindCSD, "EKU9003173C9"}, {csd.KindFIEL, "VADA800927DJ3"}, {csd.KindFIEL, "EKU9003173C9"}} {
		p, err := csdtest.NewPair(csdtest.Options{RFC: tc.rfc, Kind: tc.kind, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		c, err := csd.ParseCertificate(p.Cer)
		if err != nil {
			t.Fatal(err)
		}
		if c.Kind != tc.kind || c.RFC != tc.rfc {
			t.Errorf("%v %s: parsed as %v %q", tc.kind, tc.rfc, c.Kind, c.RFC)
		}
	}
	if p, _ := csdtest.NewPair(csdtest.Options{Key: key}); p.Cert == nil || p.Cert.Kind != csd.KindCSD {
		t.Error("the default kind is not CSD")
	}

	// The rule on its own.
	for _, tc := range []struct {
		name string
		x    x509.Certificate
		want csd.Kind
	}{
		{"signing only with an OU", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment, Subject: pkixOU("Sucursal 1")}, csd.KindCSD},
		{"signing only without an OU", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment}, csd.KindFIEL},
		{"blank OU", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature, Subject: pkixOU(" ")}, csd.KindFIEL},
		{"data encipherment", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageDataEncipherment, Subject: pkixOU("x")}, csd.KindFIEL},
		{"key agreement", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyAgreement, Subject: pkixOU("x")}, csd.KindFIEL},
		{"client auth", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, Subject: pkixOU("x")}, csd.KindFIEL},
		{"email protection", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageEmailProtection}}, csd.KindFIEL},
		{"cannot sign", x509.Certificate{KeyUsage: x509.KeyUsageKeyEncipherment, Subject: pkixOU("x")}, csd.KindUnknown},
		{"no key usage", x509.Certificate{Subject: pkixOU("x")}, csd.KindUnknown},
		{"a CA", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}, csd.KindUnknown},
		{"CA constraint", x509.Certificate{KeyUsage: x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true}, csd.KindUnknown},
	} {
		if got := csd.KindOf(&tc.x); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if csd.KindOf(nil) != csd.KindUnknown {
		t.Error("KindOf(nil)")
	}
	if csd.KindCSD.String() != "CSD" || csd.KindFIEL.String() != "FIEL" || csd.KindUnknown.String() != "unknown" {
		t.Error("Kind.String")
	}
}

func TestNotEncrypted(t *testing.T) {
	key := csdtest.Keys(1, 2048)[0]
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := x509.MarshalPKCS1PrivateKey(key)
	for name, b := range map[string][]byte{
		"PKCS#8 DER":     pkcs8,
		"PKCS#1 DER":     pkcs1,
		"PKCS#8 PEM":     pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}),
		"PKCS#1 PEM":     pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: pkcs1}),
		"PEM after CRLF": append([]byte("\r\n"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})...),
	} {
		if err := csd.CheckEncryptedKey(b); !errors.Is(err, csd.ErrNotEncrypted) {
			t.Errorf("%s: CheckEncryptedKey = %v, want ErrNotEncrypted", name, err)
		}
		for _, pw := range []string{"", "12345678a"} {
			if _, err := csd.ParsePrivateKey(b, []byte(pw)); !errors.Is(err, csd.ErrNotEncrypted) {
				t.Errorf("%s, password %q: err = %v, want ErrNotEncrypted", name, pw, err)
			}
		}
	}
	legacy := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "DES-EDE3-CBC,0011223344556677"}, Bytes: []byte{1, 2, 3}})
	if _, err := csd.ParsePrivateKey(legacy, []byte("x")); !errors.Is(err, csd.ErrUnsupported) || !errors.Is(err, csd.ErrWrongPassword) {
		t.Errorf("legacy PEM encryption: %v", err)
	}
}

// TestCiphers round-trips every supported PRF and cipher, and checks that wrong passwords are
// always ErrWrongPassword (with DES-EDE3 one wrong password in 256 gives a valid-looking padding:
// the decrypted content is then rejected).
func TestCiphers(t *testing.T) {
	key := csdtest.Keys(1, 2048)[0]
	for _, prf := range []struct {
		name string
		oid  []int
	}{{"default", nil}, {"hmacWithSHA1", csd.OIDHMACWithSHA1}, {"hmacWithSHA256", csd.OIDHMACWithSHA256}} {
		for _, c := range []struct {
			name string
			oid  []int
		}{{"des3", csd.OIDDESEDE3CBC}, {"aes128", csd.OIDAES128CBC}, {"aes192", csd.OIDAES192CBC}, {"aes256", csd.OIDAES256CBC}} {
			t.Run(prf.name+"/"+c.name, func(t *testing.T) {
				der, err := csd.EncryptPKCS8With(key, []byte("contraseña ñ"), 3, prf.oid, c.oid)
				if err != nil {
					t.Fatal(err)
				}
				k, err := csd.ParsePrivateKey(der, []byte("contraseña ñ"))
				if err != nil {
					t.Fatal(err)
				}
				if !k.RSA.Equal(key) {
					t.Fatal("a different key came out")
				}
				for i := range 300 {
					if _, err := csd.ParsePrivateKey(der, []byte{byte(i), byte(i >> 8), 'x'}); !errors.Is(err, csd.ErrWrongPassword) {
						t.Fatalf("wrong password %d: %v", i, err)
					}
				}
			})
		}
	}
	if _, err := csd.EncryptPKCS8(nil, []byte("x"), 0); err == nil {
		t.Error("EncryptPKCS8(nil) succeeded")
	}
	if _, err := csd.EncryptPKCS8(key, []byte("x"), csd.MaxIterations+1); err == nil {
		t.Error("EncryptPKCS8 above MaxIterations succeeded")
	}
}

// TestSATLayout checks that EncryptPKCS8 writes what SAT writes: the real key's header (PBES2,
// PBKDF2 with an 8-byte salt and 2048 iterations, no PRF, DES-EDE3-CBC with an 8-byte IV).
func TestSATLayout(t *testing.T) {
	real := satFile(t, "certs/EKU9003173C9.key")
	mine, err := csd.EncryptPKCS8(csdtest.Keys(1, 2048)[0], []byte("x"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Bytes 4..70 are the AlgorithmIdentifier: equal but for the salt (36..44) and the IV (62..70).
	mask := func(b []byte) []byte {
		h := bytes.Clone(b[4:62])
		copy(h[36-4:44-4], make([]byte, 8))
		return h
	}
	if !bytes.Equal(mask(real), mask(mine)) {
		t.Errorf("header differs from SAT's:\n% x\n% x", mask(real), mask(mine))
	}
}

func TestUnsupported(t *testing.T) {
	key := csdtest.Keys(1, 2048)[0]
	sha256Key, err := csd.EncryptPKCS8With(key, []byte("x"), 1, csd.OIDHMACWithSHA256, csd.OIDAES256CBC)
	if err != nil {
		t.Fatal(err)
	}
	satKey, err := csd.EncryptPKCS8(key, []byte("x"), 1)
	if err != nil {
		t.Fatal(err)
	}
	// Same-length substitutions of one OID's last byte.
	oidSHA256 := []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x09}
	oidPBES2 := []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d}
	oidPBKDF2 := []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0c}
	oidDES3 := []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x03, 0x07}
	replaceLast := func(b, oid []byte, last byte) []byte {
		if !bytes.Contains(b, oid) {
			t.Fatalf("% x not found", oid)
		}
		repl := bytes.Clone(oid)
		repl[len(repl)-1] = last
		return bytes.Replace(b, oid, repl, 1)
	}
	ecKey, err := ecdsaKey()
	if err != nil {
		t.Fatal(err)
	}
	ec, err := csd.EncryptPKCS8With(ecKey, []byte("x"), 1, nil, csd.OIDDESEDE3CBC)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		b        []byte
		mentions string
	}{
		{"hmacWithSHA512", replaceLast(sha256Key, oidSHA256, 0x0b), "hmacWithSHA512"},
		{"PBES1", replaceLast(satKey, oidPBES2, 0x03), "pbeWithMD5AndDES"},
		{"not PBKDF2", replaceLast(satKey, oidPBKDF2, 0x0d), "PBKDF2"},
		{"RC2", replaceLast(satKey, oidDES3, 0x02), "RC2-CBC"},
		{"EC key", ec, "SAT keys are RSA"},
	} {
		if tc.name != "EC key" { // the key's algorithm is inside the encryption
			if err := csd.CheckEncryptedKey(tc.b); !errors.Is(err, csd.ErrUnsupported) {
				t.Errorf("%s: CheckEncryptedKey = %v, want ErrUnsupported", tc.name, err)
			}
		}
		_, err := csd.ParsePrivateKey(tc.b, []byte("x"))
		if !errors.Is(err, csd.ErrUnsupported) || !errors.Is(err, csd.ErrWrongPassword) {
			t.Errorf("%s: err = %v, want ErrUnsupported (and ErrWrongPassword)", tc.name, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.mentions) {
			t.Errorf("%s: %q does not mention %q", tc.name, err, tc.mentions)
		}
	}

	// An iteration count above MaxIterations is refused before deriving anything.
	heavy, err := csd.EncryptPKCS8(key, []byte("x"), csd.MaxIterations)
	if err != nil {
		t.Fatal(err)
	}
	count := []byte{0x02, 0x03, 0x10, 0x00, 0x00} // INTEGER 1<<20
	if !bytes.Contains(heavy, count) {
		t.Fatal("iteration count not found")
	}
	heavier := bytes.Replace(heavy, count, []byte{0x02, 0x03, 0x7f, 0xff, 0xff}, 1)
	if _, err := csd.ParsePrivateKey(heavier, []byte("x")); !errors.Is(err, csd.ErrUnsupported) {
		t.Errorf("iterations above the maximum: %v", err)
	}
	if k, err := csd.ParsePrivateKey(heavy, []byte("x")); err != nil || !k.RSA.Equal(key) {
		t.Errorf("MaxIterations itself: %v", err)
	}
}

func TestGarbage(t *testing.T) {
	pair, err := csdtest.NewPair(csdtest.Options{Key: csdtest.Keys(1, 2048)[0]})
	if err != nil {
		t.Fatal(err)
	}
	keyInputs := map[string][]byte{
		"nil":          nil,
		"empty":        {},
		"text":         []byte("no soy una llave"),
		"zeros":        make([]byte, 1300),
		"certificate":  pair.Cer,
		"PEM cert":     pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pair.Cer}),
		"broken PEM":   []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nnot base64\n"),
		"trailing":     append(bytes.Clone(pair.Key), 0),
		"empty SEQ":    {0x30, 0x00},
		"huge length":  {0x30, 0x84, 0xff, 0xff, 0xff, 0xff},
		"bad cipher":   flipByte(pair.Key, len(pair.Key)-1),
		"bad iv":       flipByte(pair.Key, 65),
		"bad salt":     flipByte(pair.Key, 36),
		"bad iter":     flipByte(pair.Key, 47),
		"bad data len": truncateData(pair.Key),
	}
	for i := 1; i < len(pair.Key); i += 7 {
		keyInputs["truncated "+strconv.Itoa(i)] = pair.Key[:i]
	}
	// what the check without a password refuses: everything but the damage only the decryption
	// sees (a changed salt, iteration count, IV or cipher text opens nothing with the right password)
	opensWrong := map[string]bool{"bad cipher": true, "bad iv": true, "bad salt": true, "bad iter": true}
	for name, b := range keyInputs {
		if err := csd.CheckEncryptedKey(b); (err == nil) != opensWrong[name] || (err != nil && !errors.Is(err, csd.ErrWrongPassword)) {
			t.Errorf("CheckEncryptedKey(%s) = %v", name, err)
		}
	}
	if err := csd.CheckEncryptedKey(pair.Key); err != nil {
		t.Errorf("CheckEncryptedKey of a good key: %v", err)
	}
	for name, b := range keyInputs {
		k, err := csd.ParsePrivateKey(b, []byte(pair.Password))
		if err == nil {
			t.Errorf("key %s: opened (%v)", name, k != nil)
			continue
		}
		if !errors.Is(err, csd.ErrWrongPassword) {
			t.Errorf("key %s: err = %v, want ErrWrongPassword", name, err)
		}
	}

	certInputs := map[string][]byte{
		"nil":        nil,
		"empty":      {},
		"text":       []byte("no soy un certificado"),
		"key":        pair.Key,
		"PEM key":    pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: pair.Key}),
		"broken PEM": []byte("-----BEGIN CERTIFICATE-----\n!!!\n"),
		"base64":     []byte(pair.Cert.Base64()),
		"trailing":   append(bytes.Clone(pair.Cer), 0),
	}
	for i := 1; i < len(pair.Cer); i += 13 {
		certInputs["truncated "+strconv.Itoa(i)] = pair.Cer[:i]
	}
	for name, b := range certInputs {
		if _, err := csd.ParseCertificate(b); !errors.Is(err, csd.ErrNotCertificate) {
			t.Errorf("certificate %s: err = %v, want ErrNotCertificate", name, err)
		}
	}
}

func flipByte(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x5a
	return c
}

// truncateData shortens the encrypted data by 3 bytes: no longer a whole number of blocks.
func truncateData(key []byte) []byte {
	var info struct {
		Alg  asn1.RawValue
		Data []byte
	}
	if _, err := asn1.Unmarshal(key, &info); err != nil {
		panic(err)
	}
	info.Data = info.Data[:len(info.Data)-3]
	b, err := asn1.Marshal(info)
	if err != nil {
		panic(err)
	}
	return b
}

func pkixOU(ou string) pkix.Name { return pkix.Name{OrganizationalUnit: []string{ou}} }

func ecdsaKey() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }
