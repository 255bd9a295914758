// Package testscripts drives the real timbra binary end to end: each testdata/*.txtar script
// starts servers on free ports, waits for readiness with a command, and runs client commands.
package testscripts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/timbra-mx/timbra/commands"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"timbra": func() { os.Exit(commands.Main()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("HOME", work)
			env.Setenv("XDG_CONFIG_HOME", filepath.Join(work, ".config"))
			env.Setenv("XDG_DATA_HOME", filepath.Join(work, ".local", "share"))
			env.Setenv("TIMBRA_CONFIG_DIR", filepath.Join(work, ".config", "timbra"))
			env.Setenv("TIMBRA_KEYRING", "file")
			env.Setenv("NO_COLOR", "1")
			// no script reaches the internet: those about catalogs import a local source
			env.Setenv("TIMBRA_CATALOGS", "none")
			// scripts that stamp import the small SAT catalog fixture of the catalogs package
			mini, err := filepath.Abs(testpaths.Repo("internal", "catalogs", "testdata", "mini"))
			if err != nil {
				return err
			}
			env.Setenv("MINI_CATALOGS", mini)
			env.Setenv("GORACE", "atexit_sleep_ms=0") // under -race each timbra run would pause a second at exit
			rs := &receivers{byName: map[string]*receiver{}}
			env.Values[receiversKey{}] = rs
			env.Defer(rs.close)
			for _, k := range []string{"TIMBRA_BASE_URL", "TIMBRA_TENANT_KEY", "TIMBRA_API_KEY", "TIMBRA_PROFILE", "TIMBRA_ADMIN_TOKEN", "TIMBRA_DATA", "TIMBRA_ENVIRONMENT",
				"TIMBRA_STAMP_CERT", "TIMBRA_STAMP_KEY", "TIMBRA_STAMP_KEY_PASSWORD_FILE"} {
				env.Setenv(k, "")
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond != "satefirma" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			cer, _, _ := satwstest.Files()
			_, err := os.Stat(cer)
			return err == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitserver": waitServer,
			"clientenv":  clientEnv,
			"http":       httpCmd,
			"eventually": eventually,
			"envfile":    envFile,
			"receiver":   receiverCmd,
			"jsonget":    jsonGet,
			"genpair":    genPair,
			"mxnow":      mxNow,
			"satefirma":  satEFirma,
		},
	})
}

// waitserver ADDRFILE [listening]: waits (at most 20 s) until the server wrote its address and
// answers /healthz; with listening, until the address is written (a server that writes it once
// it listens and has no /healthz: timbra sat serve).
func waitServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || (len(args) == 2 && args[1] != "listening") {
		ts.Fatalf("usage: waitserver ADDRFILE [listening]")
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		raw, err := os.ReadFile(ts.MkAbs(args[0]))
		if addr := strings.TrimSpace(string(raw)); err == nil && addr != "" {
			if len(args) == 2 {
				return
			}
			resp, err := http.Get("http://" + addr + "/healthz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("server did not become ready (address file %s)", args[0])
}

// clientenv ADDRFILE CREDSJSON: points client commands at the server with the credentials that
// `timbra server init --json` printed (TIMBRA_BASE_URL, TIMBRA_TENANT_KEY, TIMBRA_API_KEY).
// It also sets PERSON_ID and TENANT_KEY for use in the script.
func clientEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: clientenv ADDRFILE CREDSJSON")
	}
	addr, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	raw, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var c api.Credentials
	ts.Check(json.Unmarshal(raw, &c))
	ts.Setenv("TIMBRA_BASE_URL", "http://"+strings.TrimSpace(string(addr)))
	ts.Setenv("TIMBRA_TENANT_KEY", c.TenantKey)
	ts.Setenv("TIMBRA_API_KEY", c.APIKey)
	ts.Setenv("PERSON_ID", c.PersonID)
	ts.Setenv("TENANT_KEY", c.TenantKey)
}

// http METHOD PATH [BODY]: a raw request with the client environment's credentials; prints the
// status line and the body to stdout, for checking what the API itself answers.
func httpCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http METHOD PATH [BODY]")
	}
	var body io.Reader
	if len(args) == 3 {
		body = strings.NewReader(args[2])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, args[0], ts.Getenv("TIMBRA_BASE_URL")+args[1], body)
	ts.Check(err)
	req.Header.Set("X-TENANT-KEY", ts.Getenv("TIMBRA_TENANT_KEY"))
	req.Header.Set("X-API-KEY", ts.Getenv("TIMBRA_API_KEY"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s\n%s\n", resp.Status, raw)
	if failed := resp.StatusCode >= 400; failed != neg {
		ts.Fatalf("%s %s answered %s", args[0], args[1], resp.Status)
	}
}

// eventually CMD ARGS...: runs a script command (for example `exec timbra trigger ...`) until it
// succeeds, at most 20 s; the last run's stdout and stderr stay. For waiting on something a
// background command does, without sleeping.
func eventually(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || args[0] != "exec" {
		ts.Fatalf("usage: eventually exec PROGRAM [ARGS...]")
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := ts.Exec(args[1], args[2:]...)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not succeed within 20 s: %v", strings.Join(args[1:], " "), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// satefirma DIR: copies SAT's test e.firma of EKU9003173C9 (from the shared folder beside the
// repository) as DIR/EKU9003173C9.cer, .key and .pw (the key's password). The condition
// [satefirma] says whether it is there.
func satEFirma(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: satefirma DIR")
	}
	cer, key, pw := satwstest.Files()
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for from, ext := range map[string]string{cer: ".cer", key: ".key", pw: ".pw"} {
		b, err := os.ReadFile(from)
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(dir, "EKU9003173C9"+ext), b, 0o600))
	}
}

// envfile VAR FILE: sets VAR to the content of FILE, trimmed.
func envFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: envfile VAR FILE")
	}
	raw, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Setenv(args[0], strings.TrimSpace(string(raw)))
}

// genpair DIR RFC [expired|mismatch|badpassword|fiel]: writes a generated CSD (or, with fiel,
// e.firma) pair of RFC as
// DIR/RFC.cer, DIR/RFC.key and DIR/RFC.pw (the key's password): valid for a year from an hour
// ago, or expired, or with the key of another certificate, or with a .pw that does not open the
// key. Keys come from csdtest's cache; the number is random.
func genPair(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: genpair DIR RFC [expired|mismatch|badpassword|fiel]")
	}
	mode := ""
	if len(args) == 3 {
		mode = args[2]
	}
	keys := csdtest.Keys(2, 2048)
	o := csdtest.Options{RFC: args[1], Key: keys[0], Password: "Clave-" + args[1], NotBefore: time.Now().Add(-time.Hour)}
	o.NotAfter = o.NotBefore.AddDate(1, 0, 0)
	switch mode {
	case "":
	case "expired":
		o.NotBefore, o.NotAfter = time.Now().AddDate(-5, 0, 0), time.Now().AddDate(-1, 0, 0)
	case "mismatch", "badpassword":
	case "fiel":
		o.Kind = csd.KindFIEL
	default:
		ts.Fatalf("genpair: unknown mode %q", mode)
	}
	p, err := csdtest.NewPair(o)
	ts.Check(err)
	key, password := p.Key, p.Password
	if mode == "mismatch" {
		other, err := csdtest.NewPair(csdtest.Options{RFC: args[1], Key: keys[1], Password: o.Password})
		ts.Check(err)
		key = other.Key
	}
	if mode == "badpassword" {
		password = "not-" + password
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	base := filepath.Join(dir, strings.ToUpper(args[1]))
	ts.Check(os.WriteFile(base+".cer", p.Cer, 0o600))
	ts.Check(os.WriteFile(base+".key", key, 0o600))
	ts.Check(os.WriteFile(base+".pw", []byte(password+"\n"), 0o600))
}
