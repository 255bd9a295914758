package invoices

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/storage"
)

// satCSD is SAT's public test CSD EKU9003173C9 (../shared/sat/certs): certificate, encrypted
// key and password, as SAT issues them. The test is skipped without it.
func satCSD(t *testing.T) (cer, key, password []byte) {
	t.Helper()
	dir := testpaths.Shared("sat", "certs")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skipf("needs SAT's test CSD in %s: %v", dir, err)
		}
		return b
	}
	return read("EKU9003173C9.cer"), read("EKU9003173C9.key"), bytes.TrimSpace(read("EKU9003173C9.password.txt"))
}

// satCSDNow is a time within the validity of SAT's test CSD (2023-05-18 to 2027-05-18).
var satCSDNow = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// TestOpenPAC: the operator's certificate and key open as SAT issues them, and every reason to
// refuse them is said, never with the password.
func TestOpenPAC(t *testing.T) {
	cer, key, password := satCSD(t)
	pac, err := OpenPAC(cer, key, password, satCSDNow)
	if err != nil {
		t.Fatal(err)
	}
	if pac.Cert.Number != "30001000000500003416" || pac.RFC != "EKU9003173C9" || pac.Origin != OriginOperator || !pac.Cert.Matches(pac.Key) {
		t.Fatalf("opened %s %s %s", pac.Cert.Number, pac.RFC, pac.Origin)
	}

	keys := csdtest.Keys(2, 2048)
	now := time.Now()
	pair := func(o csdtest.Options) csdtest.Pair {
		t.Helper()
		o.Password = "Clave-Del-PAC-123"
		if o.Key == nil {
			o.Key = keys[0]
		}
		p, err := csdtest.NewPair(o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := pair(csdtest.Options{RFC: "SPR190613I52"})
	other := pair(csdtest.Options{RFC: "SPR190613I52", Key: keys[1]})
	expired := pair(csdtest.Options{RFC: "SPR190613I52", NotBefore: now.AddDate(-5, 0, 0), NotAfter: now.AddDate(-1, 0, 0)})
	future := pair(csdtest.Options{RFC: "SPR190613I52", NotBefore: now.AddDate(0, 1, 0)})
	physical := pair(csdtest.Options{RFC: "LOAA800101AB1"})
	plainKey, err := x509.MarshalPKCS8PrivateKey(keys[0])
	if err != nil {
		t.Fatal(err)
	}
	// a certificate whose serial is no SAT number (not 20 digits)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(77), Subject: pkix.Name{CommonName: "X"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature}
	shortDER, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &keys[0].PublicKey, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	if p, err := OpenPAC(good.Cer, good.Key, []byte(good.Password), now); err != nil || p.RFC != "SPR190613I52" {
		t.Fatalf("a generated PAC pair: %v", err)
	}
	secret := []byte(good.Password)
	for _, c := range []struct {
		name          string
		cer, key, pw  []byte
		at            time.Time
		want          string
		wantNotSecret bool
	}{
		{"wrong password", cer, key, []byte("not-the-password-12345"), satCSDNow, "the password does not open the stamping key", true},
		{"password of another key", good.Cer, good.Key, []byte("Clave-Del-PAC-124"), now, "the password does not open the stamping key", true},
		{"not a certificate", []byte("hello"), good.Key, secret, now, "the stamping certificate is not an X.509 certificate", false},
		{"the key of another certificate", good.Cer, other.Key, secret, now, "the stamping key does not belong to the stamping certificate " + good.Number, false},
		{"a key of another pair", cer, good.Key, secret, satCSDNow, "the stamping key does not belong to the stamping certificate 30001000000500003416", false},
		{"expired", expired.Cer, expired.Key, secret, now, "the stamping certificate " + expired.Number + " expired on ", false},
		{"SAT's expired after 2027-05-18", cer, key, password, time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC), "the stamping certificate 30001000000500003416 expired on 2027-05-18T", false},
		{"not valid yet", future.Cer, future.Key, secret, now, "is not valid yet", false},
		{"a physical person's RFC", physical.Cer, physical.Key, secret, now, "names the RFC LOAA800101AB1, which is not a moral person's", false},
		{"an unencrypted key", good.Cer, plainKey, secret, now, "the stamping key is not encrypted", false},
		{"no SAT number", shortDER, good.Key, secret, now, "does not spell the 20 digits of a SAT certificate number", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := OpenPAC(c.cer, c.key, c.pw, c.at)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			for _, pw := range [][]byte{c.pw, secret, password} {
				if strings.Contains(err.Error(), string(pw)) {
					t.Fatalf("the error quotes a password: %v", err)
				}
			}
		})
	}
}

// pacDB is an empty database and master key of an environment, and its invoices service.
func pacDB(t *testing.T, env string, now time.Time) (*Service, *storage.Bolt) {
	t.Helper()
	store, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	master := make([]byte, 32)
	rand.Read(master)
	keys, err := secrets.New(master)
	if err != nil {
		t.Fatal(err)
	}
	return &Service{Store: store, Keys: keys, Environment: env, Now: func() time.Time { return now }}, store
}

func metaOf(t *testing.T, store storage.Store, name string) []byte {
	t.Helper()
	var v []byte
	if err := store.View(context.Background(), func(tx storage.Tx) error {
		var err error
		v, err = tx.Meta().Get(name)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestInstallPACProduction: production starts only with the operator's identity, stores it (the
// key sealed), keeps it for later starts, replaces it with another (the old certificate kept),
// takes the same one again as a no-op, and never makes one of its own.
func TestInstallPACProduction(t *testing.T) {
	cer, key, password := satCSD(t)
	ctx := context.Background()
	now := satCSDNow
	s, store := pacDB(t, accounts.EnvProduction, now)

	_, err := InstallPAC(ctx, store, s.Keys, accounts.EnvProduction, nil, now)
	if err == nil || !strings.Contains(err.Error(), "production stamps only with the operator's own PAC certificate and key, and this production database has none") ||
		!strings.Contains(err.Error(), "--stamp-cert") || !strings.Contains(err.Error(), "TIMBRA_STAMP_KEY_PASSWORD_FILE") {
		t.Fatalf("production without a stamping certificate: %v", err)
	}
	_, err = s.PAC(ctx)
	if e, ok := apierr.As(err); !ok || e.Status != 503 || e.Details != MsgNoStampingCertificate {
		t.Fatalf("a stamp in production without one: %v", err)
	}
	if metaOf(t, store, storage.MetaPACCertificate) != nil {
		t.Fatal("production made a stamping identity of its own")
	}

	pac, err := OpenPAC(cer, key, password, now)
	if err != nil {
		t.Fatal(err)
	}
	setup, err := InstallPAC(ctx, store, s.Keys, accounts.EnvProduction, pac, now)
	if err != nil || setup.Change != PACInstalled || setup.PAC.Cert.Number != "30001000000500003416" {
		t.Fatalf("install: %+v %v", setup, err)
	}
	sealed := metaOf(t, store, storage.MetaPACKey)
	plain, _ := x509.MarshalPKCS8PrivateKey(pac.Key.RSA)
	if !bytes.Equal(metaOf(t, store, storage.MetaPACCertificate), cer) || string(metaOf(t, store, storage.MetaPACOrigin)) != OriginOperator ||
		bytes.Contains(sealed, plain) || bytes.Contains(sealed, key) {
		t.Fatal("stored: not the certificate given, or the key not sealed")
	}
	got, err := s.PAC(ctx)
	if err != nil || got.Cert.Number != "30001000000500003416" || got.RFC != "EKU9003173C9" || !got.Cert.Matches(got.Key) {
		t.Fatalf("the service stamps with %v %v", got, err)
	}

	// a later start without the flags keeps it; with the same identity nothing is written
	if setup, err := InstallPAC(ctx, store, s.Keys, accounts.EnvProduction, nil, now); err != nil || setup.Change != PACKept || setup.PAC.Cert.Number != "30001000000500003416" {
		t.Fatalf("a later start: %+v %v", setup, err)
	}
	again, _ := OpenPAC(cer, key, password, now)
	if setup, err := InstallPAC(ctx, store, s.Keys, accounts.EnvProduction, again, now); err != nil || setup.Change != PACUnchanged ||
		!bytes.Equal(metaOf(t, store, storage.MetaPACKey), sealed) {
		t.Fatalf("the same identity again: %+v %v", setup, err)
	}

	// a stored certificate expired stops the start, and the stamps
	later := time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	if _, err := InstallPAC(ctx, store, s.Keys, accounts.EnvProduction, nil, later); err == nil ||
		!strings.Contains(err.Error(), "the stamping certificate 30001000000500003416 expired on 2027-05-18T") || !strings.Contains(err.Error(), "--stamp-cert") {
		t.Fatalf("an expired stored certificate: %v", err)
	}
	if _, err := s.stampingPAC(ctx, later); err == nil {
		t.Fatal("stamped with an expired certificate")
	} else if e, ok := apierr.As(err); !ok || e.Status != 503 || !strings.Contains(e.Details, "30001000000500003416") {
		t.Fatalf("a stamp with an expired certificate: %v", err)
	}

	// another operator's certificate replaces it; the replaced one stays the server's
	other, err := csdtest.NewPair(csdtest.Options{RFC: "SPR190613I52", Key: csdtest.Keys(1, 2048)[0], NotBefore: now.Add(-time.Hour), Password: "Otra-Clave-987"})
	if err != nil {
		t.Fatal(err)
	}
	next, err := OpenPAC(other.Cer, other.Key, []byte(other.Password), now)
	if err != nil {
		t.Fatal(err)
	}
	setup, err = InstallPAC(ctx, store, s.Keys, accounts.EnvProduction, next, now)
	if err != nil || setup.Change != PACReplaced || setup.Replaced.Number != "30001000000500003416" || setup.PAC.RFC != "SPR190613I52" {
		t.Fatalf("replace: %+v %v", setup, err)
	}
	certs, err := StampingCertificates(ctx, store)
	if err != nil || len(certs) != 2 || certs[0].Number != other.Number || certs[1].Number != "30001000000500003416" {
		t.Fatalf("stamping certificates after a replacement: %v %v", certs, err)
	}
	s2 := &Service{Store: store, Keys: s.Keys, Environment: accounts.EnvProduction, Now: s.Now}
	if got, err := s2.PAC(ctx); err != nil || got.Cert.Number != other.Number || got.RFC != "SPR190613I52" {
		t.Fatalf("a server started after the replacement stamps with %v %v", got, err)
	}
}

// TestInstallPACReplacesAGeneratedOne: a production database that holds only the identity the
// server generated (as every database did before the operator's was required) does not start,
// saying so; the operator's replaces it. In the test environment the generated identity stays
// without flags, and the operator's replaces it when given.
func TestInstallPACReplacesAGeneratedOne(t *testing.T) {
	cer, key, password := satCSD(t)
	ctx := context.Background()
	for _, env := range []string{accounts.EnvTest, accounts.EnvProduction} {
		t.Run(env, func(t *testing.T) {
			s, store := pacDB(t, env, satCSDNow)
			if setup, err := InstallPAC(ctx, store, s.Keys, accounts.EnvTest, nil, satCSDNow); err != nil || setup.PAC != nil || setup.Change != PACKept {
				t.Fatalf("a new test database: %+v %v", setup, err)
			}
			test := &Service{Store: store, Keys: s.Keys, Environment: accounts.EnvTest, Now: s.Now}
			generated, err := test.PAC(ctx) // as a test server's first stamp does
			if err != nil || generated.Origin != OriginGenerated || generated.RFC != RfcProvCertif {
				t.Fatalf("generated: %+v %v", generated, err)
			}
			setup, err := InstallPAC(ctx, store, s.Keys, env, nil, satCSDNow)
			if env == accounts.EnvTest {
				if err != nil || setup.Change != PACKept || setup.PAC.Cert.Number != generated.Cert.Number {
					t.Fatalf("test keeps the generated one: %+v %v", setup, err)
				}
			} else {
				want := "this production database holds only the certificate " + generated.Cert.Number + " the server generated"
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("production with a generated one: %v", err)
				}
				if _, err := s.PAC(ctx); err == nil {
					t.Fatal("production stamps with a generated identity")
				}
			}
			pac, err := OpenPAC(cer, key, password, satCSDNow)
			if err != nil {
				t.Fatal(err)
			}
			setup, err = InstallPAC(ctx, store, s.Keys, env, pac, satCSDNow)
			if err != nil || setup.Change != PACReplaced || setup.Replaced.Number != generated.Cert.Number {
				t.Fatalf("the operator's replaces the generated one: %+v %v", setup, err)
			}
			fresh := &Service{Store: store, Keys: s.Keys, Environment: env, Now: s.Now}
			if got, err := fresh.PAC(ctx); err != nil || got.Cert.Number != "30001000000500003416" || got.Origin != OriginOperator {
				t.Fatalf("stamps with %+v %v", got, err)
			}
		})
	}
}

// TestProviderRFC: RfcProvCertif is the certificate's RFC, the constant when it names none.
func TestProviderRFC(t *testing.T) {
	if got := ProviderRFC(&csd.Certificate{RFC: "SPR190613I52"}); got != "SPR190613I52" {
		t.Fatal(got)
	}
	if got := ProviderRFC(&csd.Certificate{}); got != RfcProvCertif {
		t.Fatal(got)
	}
}
