package server

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// satCSDFiles are the paths of SAT's public test CSD EKU9003173C9 (../shared/sat/certs), valid
// at cmdtest.Now; the test is skipped without them. The stamping flags' variables are unset.
func satCSDFiles(t *testing.T) (cer, key, passwordFile, password string) {
	t.Helper()
	for _, k := range []string{"TIMBRA_STAMP_CERT", "TIMBRA_STAMP_KEY", "TIMBRA_STAMP_KEY_PASSWORD_FILE", "TIMBRA_ENVIRONMENT", "TIMBRA_DATA"} {
		cmdtest.Unsetenv(t, k)
	}
	dir := testpaths.Shared("sat", "certs")
	cer, key, passwordFile = filepath.Join(dir, "EKU9003173C9.cer"), filepath.Join(dir, "EKU9003173C9.key"), filepath.Join(dir, "EKU9003173C9.password.txt")
	raw, err := os.ReadFile(passwordFile)
	if err != nil {
		t.Skipf("needs SAT's test CSD in %s: %v", dir, err)
	}
	return cer, key, passwordFile, strings.TrimSpace(string(raw))
}

// startServer runs `timbra server` with args until stop, which returns what it did.
func startServer(t *testing.T, args ...string) (base string, stop func() cmdtest.Result) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan cmdtest.Result, 1)
	go func() {
		done <- run1(t, cmdtest.Opts{Ctx: ctx}, append([]string{"server", "--catalogs", "none", "--addr", "127.0.0.1:0", "--addr-file", addrFile}, args...)...)
	}()
	for base == "" {
		select {
		case r := <-done:
			cancel()
			t.Fatalf("server ended: %d %s", r.Code, r.Err)
		case <-time.After(20 * time.Millisecond):
		}
		if raw, err := os.ReadFile(addrFile); err == nil {
			base = "http://" + strings.TrimSpace(string(raw))
		}
	}
	return base, func() cmdtest.Result { cancel(); return <-done }
}

// TestProductionStartNeedsAStampingCertificate: a production database is neither made nor
// started without the operator's stamping certificate, key and key password file, and the
// refusal says why and what to give; wrong material is refused saying what is wrong, never
// quoting the password. Given once, it is stored: later starts use it without the flags, the
// same flags again change nothing, and GET /api/v4/stamping-certificate answers it.
func TestProductionStartNeedsAStampingCertificate(t *testing.T) {
	cmdtest.Isolate(t)
	cer, key, passwordFile, password := satCSDFiles(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	noSecret := func(r cmdtest.Result) {
		t.Helper()
		for _, s := range []string{password, "not-the-password-42"} {
			if strings.Contains(r.Out+r.Err, s) {
				t.Fatalf("the output quotes a password:\n%s\n%s", r.Out, r.Err)
			}
		}
	}

	r := runArgs(t, "server", "init", "--data", db, "--environment", "production")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "why", r.Err, "production stamps only with the operator's own PAC certificate and key, and this production database has none")
	cmdtest.WantContains(t, "what to give", r.Err, "--stamp-cert FILE.cer, --stamp-key FILE.key and --stamp-key-password-file FILE (or TIMBRA_STAMP_CERT, TIMBRA_STAMP_KEY and TIMBRA_STAMP_KEY_PASSWORD_FILE)")
	if _, err := os.Stat(db); err == nil {
		t.Fatal("a refused init left a database behind")
	}
	r = runArgs(t, "server", "--data", db, "--environment", "production", "--catalogs", "none", "--addr", "127.0.0.1:0")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "a first start", r.Err, "production stamps only with the operator's own PAC certificate")
	if _, err := os.Stat(db); err == nil {
		t.Fatal("a refused start left a database behind")
	}

	wrong := filepath.Join(dir, "wrong.txt")
	os.WriteFile(wrong, []byte("not-the-password-42\n"), 0o600)
	other, err := csdtest.NewPair(csdtest.Options{RFC: "EKU9003173C9", Key: csdtest.Keys(1, 2048)[0]})
	if err != nil {
		t.Fatal(err)
	}
	otherKey := filepath.Join(dir, "other.key")
	os.WriteFile(otherKey, other.Key, 0o600)
	for _, c := range []struct {
		name, key, passwordFile, want string
	}{
		{"wrong password", key, wrong, "the password does not open the stamping key"},
		{"another key", otherKey, passwordFile, "the stamping key does not belong to the stamping certificate 30001000000500003416"},
		{"no password file", key, filepath.Join(dir, "absent.txt"), "--stamp-key-password-file: open "},
	} {
		r := runArgs(t, "server", "init", "--data", db, "--environment", "production", "--stamp-cert", cer, "--stamp-key", c.key, "--stamp-key-password-file", c.passwordFile)
		cmdtest.WantCode(t, r, 1)
		cmdtest.WantContains(t, c.name, r.Err, c.want)
		noSecret(r)
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("%s: a refused init left a database behind", c.name)
		}
	}

	r = runArgs(t, "server", "init", "--data", db, "--environment", "production", "--stamp-cert", cer, "--stamp-key", key, "--stamp-key-password-file", passwordFile)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "init", r.Out, "stamping certificate stored number=30001000000500003416 rfc=EKU9003173C9 validTo=2027-05-18T11:43:51.000Z origin=operator")
	noSecret(r)
	var creds api.Credentials
	for _, l := range strings.Split(r.Out, "\n") {
		switch f := strings.Fields(l); {
		case len(f) == 3 && f[0] == "tenant":
			creds.TenantKey = f[2]
		case len(f) == 3 && f[0] == "API":
			creds.APIKey = f[2]
		}
	}

	// later starts: without the flags the stored one; the same flags again are no change
	base, stop := startServer(t, "--data", db)
	req, _ := http.NewRequest("GET", base+"/api/v4/stamping-certificate", nil)
	req.Header.Set("X-TENANT-KEY", creds.TenantKey)
	req.Header.Set("X-API-KEY", creds.APIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r = stop()
	cmdtest.WantCode(t, r, 0)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"certificateNumber":"30001000000500003416"`) {
		t.Fatalf("GET /api/v4/stamping-certificate: %d %s", resp.StatusCode, body)
	}
	cmdtest.WantContains(t, "a start without the flags", r.Err, `msg="stamping certificate" number=30001000000500003416 rfc=EKU9003173C9`)
	_, stop = startServer(t, "--data", db, "--stamp-cert", cer, "--stamp-key", key, "--stamp-key-password-file", passwordFile)
	r = stop()
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "the same flags again", r.Err, `msg="stamping certificate unchanged (the one given is the one stored)" number=30001000000500003416`)
	noSecret(r)

	// another operator's certificate replaces it, and the log says which one it replaced
	pair, err := csdtest.NewPair(csdtest.Options{RFC: "SPR190613I52", Key: csdtest.Keys(1, 2048)[0], NotBefore: cmdtest.Now.Add(-time.Hour), Password: "Otra-Clave-987"})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"pac.cer": pair.Cer, "pac.key": pair.Key, "pac.pw": []byte(pair.Password + "\r\n")} {
		os.WriteFile(filepath.Join(dir, name), b, 0o600)
	}
	t.Setenv("TIMBRA_STAMP_CERT", filepath.Join(dir, "pac.cer"))
	t.Setenv("TIMBRA_STAMP_KEY", filepath.Join(dir, "pac.key"))
	t.Setenv("TIMBRA_STAMP_KEY_PASSWORD_FILE", filepath.Join(dir, "pac.pw"))
	_, stop = startServer(t, "--data", db)
	r = stop()
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "a replacement", r.Err, "number="+pair.Number+" rfc=SPR190613I52")
	cmdtest.WantContains(t, "a replacement", r.Err, "replaced=30001000000500003416")
	if strings.Contains(r.Err, pair.Password) {
		t.Fatal("the log quotes the password")
	}
}

// TestTestEnvironmentStampingIsOptional: a test database starts without a stamping certificate
// (the server makes its own on the first stamp) and takes the operator's when given.
func TestTestEnvironmentStampingIsOptional(t *testing.T) {
	cmdtest.Isolate(t)
	cer, key, passwordFile, _ := satCSDFiles(t)
	db := filepath.Join(t.TempDir(), "t.db")
	_, stop := startServer(t, "--data", db)
	r := stop()
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "without flags", r.Err, "the server makes its own on the first stamp")
	_, stop = startServer(t, "--data", db, "--stamp-cert", cer, "--stamp-key", key, "--stamp-key-password-file", passwordFile)
	r = stop()
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "with flags", r.Err, `msg="stamping certificate stored" number=30001000000500003416`)
}
