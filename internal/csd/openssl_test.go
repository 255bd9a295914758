package csd_test

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

// Independent oracle: Debian's openssl. Passwords go through files (-passin/-passout file:),
// never argv.

func needOpenSSL(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not on PATH: skipping the openssl oracle tests")
	}
}

func openssl(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("openssl", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// modulus is what `openssl rsa -noout -modulus` prints for a key.
func modulus(k *csd.PrivateKey) string {
	return "Modulus=" + strings.ToUpper(hex.EncodeToString(k.RSA.N.Bytes())) + "\n"
}

// TestOpenSSLOpensEncryptPKCS8: keys written by EncryptPKCS8 open with openssl pkcs8 and carry
// the same modulus.
func TestOpenSSLOpensEncryptPKCS8(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	pw := writeFile(t, dir, "pw", []byte("contraseña de prueba"))
	for i, key := range csdtest.Keys(2, 2048) {
		for _, iter := range []int{0, 1, 10000} {
			der, err := csd.EncryptPKCS8(key, []byte("contraseña de prueba"), iter)
			if err != nil {
				t.Fatal(err)
			}
			in := writeFile(t, dir, fmt.Sprintf("k%d-%d.key", i, iter), der)
			plain := filepath.Join(dir, fmt.Sprintf("k%d-%d.pem", i, iter))
			openssl(t, "pkcs8", "-inform", "DER", "-in", in, "-passin", "file:"+pw, "-out", plain)
			got := openssl(t, "rsa", "-in", plain, "-noout", "-modulus")
			if want := modulus(&csd.PrivateKey{RSA: key}); string(got) != want {
				t.Errorf("key %d, %d iterations: openssl gives %s, want %s", i, iter, got, want)
			}
			// And the header is what SAT's keys have.
			asn := string(openssl(t, "asn1parse", "-inform", "DER", "-in", in))
			for _, want := range []string{":PBES2", ":PBKDF2", ":des-ede3-cbc"} {
				if !strings.Contains(asn, want) {
					t.Errorf("asn1parse lacks %s:\n%s", want, asn)
				}
			}
		}
	}
}

// TestParseOpenSSLKeys: keys encrypted by openssl pkcs8 -topk8 -v2 (AES and 3DES, with
// hmacWithSHA256 and hmacWithSHA1) open with ParsePrivateKey, DER and PEM; what openssl writes
// with other schemes is refused as unsupported.
func TestParseOpenSSLKeys(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	key := csdtest.Keys(1, 2048)[0]
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	plain := writeFile(t, dir, "plain.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
	const password = "12345678a"
	pw := writeFile(t, dir, "pw", []byte(password))
	sha256OID := []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x02, 0x09}

	for _, cipher := range []string{"des3", "aes-128-cbc", "aes-192-cbc", "aes-256-cbc"} {
		for _, prf := range []string{"", "hmacWithSHA1", "hmacWithSHA256"} {
			name := cipher + "/" + prf
			if prf == "" {
				name = cipher + "/openssl-default"
			}
			t.Run(name, func(t *testing.T) {
				args := []string{"pkcs8", "-topk8", "-in", plain, "-passout", "file:" + pw, "-v2", cipher}
				if prf != "" {
					args = append(args, "-v2prf", prf)
				}
				derFile := filepath.Join(dir, strings.ReplaceAll(name, "/", "_")+".der")
				openssl(t, append(args, "-outform", "DER", "-out", derFile)...)
				der, err := os.ReadFile(derFile)
				if err != nil {
					t.Fatal(err)
				}
				if usesSHA256 := bytes.Contains(der, sha256OID); (prf == "hmacWithSHA256" && !usesSHA256) || (prf == "hmacWithSHA1" && usesSHA256) {
					t.Fatalf("openssl did not use %s", prf)
				}
				k, err := csd.ParsePrivateKey(der, []byte(password))
				if err != nil {
					t.Fatalf("DER: %v", err)
				}
				if !k.RSA.Equal(key) {
					t.Fatal("a different key came out")
				}
				if _, err := csd.ParsePrivateKey(der, []byte("12345678b")); !errors.Is(err, csd.ErrWrongPassword) {
					t.Errorf("wrong password: %v", err)
				}
				pemOut := openssl(t, args...)
				if k, err := csd.ParsePrivateKey(pemOut, []byte(password)); err != nil || !k.RSA.Equal(key) {
					t.Errorf("PEM: %v", err)
				}
			})
		}
	}

	for name, args := range map[string][]string{
		"hmacWithSHA512":  {"-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA512"},
		"PBE-SHA1-3DES":   {"-v1", "PBE-SHA1-3DES"},
		"scrypt":          {"-v2", "aes-256-cbc", "-scrypt"},
		"camellia256-cbc": {"-v2", "camellia-256-cbc"},
	} {
		t.Run("refused "+name, func(t *testing.T) {
			cmd := exec.Command("openssl", append([]string{"pkcs8", "-topk8", "-in", plain, "-passout", "file:" + pw, "-outform", "DER"}, args...)...)
			der, err := cmd.Output()
			if err != nil {
				t.Skipf("this openssl cannot write %s: %v", name, err)
			}
			_, err = csd.ParsePrivateKey(der, []byte(password))
			if !errors.Is(err, csd.ErrUnsupported) || !errors.Is(err, csd.ErrWrongPassword) {
				t.Errorf("err = %v, want ErrUnsupported", err)
			}
		})
	}
}

// TestSignMatchesOpenSSL: Sign equals openssl dgst -sha256 -sign, for the real SAT key and a
// generated one.
func TestSignMatchesOpenSSL(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	data := writeFile(t, dir, "data", []byte("||4.0|A|1|2025-02-19T08:32:29|01|30001000000500003416|Café ñandú||"))
	content, _ := os.ReadFile(data)

	keys := map[string]*csd.PrivateKey{"generated": {RSA: csdtest.Keys(1, 2048)[0]}}
	if b, err := os.ReadFile(filepath.Join(satDir, "certs/EKU9003173C9.key")); err == nil {
		k, err := csd.ParsePrivateKey(b, satPassword(t))
		if err != nil {
			t.Fatal(err)
		}
		keys["EKU9003173C9"] = k
	} else {
		t.Logf("SAT key absent (%v): only the generated key", err)
	}
	for name, k := range keys {
		pkcs8, err := x509.MarshalPKCS8PrivateKey(k.RSA)
		if err != nil {
			t.Fatal(err)
		}
		keyFile := writeFile(t, dir, name+".pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
		want := base64.StdEncoding.EncodeToString(openssl(t, "dgst", "-sha256", "-sign", keyFile, data))
		got, err := k.Sign(content)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: Sign = %s, openssl = %s", name, got, want)
		}
	}
}

// TestCertificatesAgreeWithOpenSSL: number (serial), validity and subject RFC as openssl reads
// them, for the real certificates and generated ones of both kinds.
func TestCertificatesAgreeWithOpenSSL(t *testing.T) {
	needOpenSSL(t)
	dir := t.TempDir()
	files := map[string][]byte{}
	if entries, err := os.ReadDir(filepath.Join(satDir, "certs")); err == nil {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".cer") {
				files[e.Name()] = satFile(t, "certs/"+e.Name())
			}
		}
	} else {
		t.Logf("SAT certificates absent (%v): only generated ones", err)
	}
	key := csdtest.Keys(1, 2048)[0]
	for _, kind := range []csd.Kind{csd.KindCSD, csd.KindFIEL} {
		p, err := csdtest.NewPair(csdtest.Options{RFC: "XIQB891116QE4", Kind: kind, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		files["generated "+kind.String()] = p.Cer
	}
	for name, der := range files {
		c, err := csd.ParseCertificate(der)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		f := writeFile(t, dir, "c.cer", der)
		out := string(openssl(t, "x509", "-inform", "DER", "-in", f, "-noout", "-serial", "-startdate", "-enddate", "-subject", "-nameopt", "RFC2253,-esc_msb"))
		fields := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			k, v, _ := strings.Cut(line, "=")
			fields[k] = v
		}
		serial, err := hex.DecodeString(fields["serial"])
		if err != nil || string(serial) != c.Number {
			t.Errorf("%s: openssl serial %s spells %q, Number %q", name, fields["serial"], serial, c.Number)
		}
		for field, got := range map[string]time.Time{"notBefore": c.ValidFrom, "notAfter": c.ValidTo} {
			want, err := time.Parse("Jan _2 15:04:05 2006 MST", fields[field])
			if err != nil || !want.Equal(got) {
				t.Errorf("%s: openssl %s %q, parsed %v", name, field, fields[field], got)
			}
		}
		if !strings.Contains(fields["subject"], "x500UniqueIdentifier="+c.RFC) || c.RFC == "" {
			t.Errorf("%s: RFC %q not the first of the subject's x500UniqueIdentifier: %s", name, c.RFC, fields["subject"])
		}
	}
}
