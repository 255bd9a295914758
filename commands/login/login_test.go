package login

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/zalando/go-keyring"
)

const goodKey = "sk_test_0123456789abcdefWXYZ"

// loginAPI accepts goodKey for tenant-1 and refuses everything else with a 401.
func loginAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != goodKey || r.Header.Get("X-TENANT-KEY") != "tenant-1" {
			cmdtest.WriteEnvelope(w, 401, nil, "Invalid API key or tenant key", "t-401")
			return
		}
		cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.Person{}, 1, 1, 0), "", "t")
	})
}

func fileMode(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func readConfigFile(t *testing.T, dir string) cmdutil.Config {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, cmdutil.ConfigFileName))
	if err != nil {
		t.Fatal(err)
	}
	var c cmdutil.Config
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoginFromEnvironmentWithJSON(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := loginAPI(t)
	t.Setenv("TIMBRA_BASE_URL", srv.URL)
	t.Setenv("TIMBRA_TENANT_KEY", "tenant-1")
	t.Setenv("TIMBRA_API_KEY", goodKey)
	r := runArgs(t, "login", "--profile", "ci", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var got map[string]string
	if err := json.Unmarshal([]byte(r.Out), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.Out)
	}
	if got["profile"] != "ci" || got["baseUrl"] != srv.URL || got["apiKey"] != "sk_test_…WXYZ" {
		t.Errorf("login JSON %v", got)
	}
	if readConfigFile(t, dir).Profiles["ci"].TenantKey != "tenant-1" {
		t.Error("profile ci not saved")
	}
}

func TestLoginRefusedSavesNothing(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := loginAPI(t)
	r := run1(t, cmdtest.Opts{Stdin: "sk_bad_key_0123456789\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 1)
	want := "401: Invalid API key or tenant key\n" +
		"hint: the API key is wrong, not missing: " + srv.URL + " refused it for tenant tenant-1 (a mistyped key, one of another tenant or database, revoked or suspended; " +
		"or a wrong tenant key). Nothing was saved; use the pair 'timbra server init' or the server's first start printed, or a key of 'timbra api-keys create'\n"
	if r.Err != want {
		t.Errorf("stderr %q\nwant %q", r.Err, want)
	}
	for _, name := range []string{cmdutil.ConfigFileName, cmdutil.CredentialsFileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written after a refused login", name)
		}
	}
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, "sk_bad_key")
}

func TestLoginNeedsAKey(t *testing.T) {
	cmdtest.Isolate(t)
	srv := loginAPI(t)
	r := runArgs(t, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "TIMBRA_API_KEY", "--api-key-stdin", "terminal", "Run 'timbra login --help'.")

	r = run1(t, cmdtest.Opts{Stdin: "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 2)

	// no tenant key, and no terminal to ask on
	t.Setenv("TIMBRA_API_KEY", goodKey)
	r = runArgs(t, "login", "--base-url", srv.URL)
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "missing tenant key")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests made before the usage was right", n)
	}
}

func TestLoginPrompts(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := loginAPI(t)
	r := run1(t, cmdtest.Opts{InTTY: true, Stdin: "tenant-1\n" + goodKey + "\n"}, "login", "--base-url", srv.URL)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stderr", r.Err, "Tenant key: ", "API key: ")
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, goodKey)
	if readConfigFile(t, dir).Profiles["default"].TenantKey != "tenant-1" {
		t.Error("prompted tenant key not saved")
	}
	// a second login offers the saved tenant key and keeps it on an empty answer
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "\n" + goodKey + "\n"}, "login")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stderr", r.Err, "Tenant key [tenant-1]: ")
	cmdtest.WantContains(t, "stdout", r.Out, "Logged in to "+srv.URL+" ")
}

func TestLoginKeyring(t *testing.T) {
	dir := cmdtest.Isolate(t)
	keyring.MockInit()
	t.Setenv("TIMBRA_KEYRING", "auto")
	srv := loginAPI(t)
	// a stale key in the file from an earlier login on a machine without keyring
	stale := fileStore(t, dir)
	if _, _, err := stale.Set("default", "sk_stale_key_0123456789"); err != nil {
		t.Fatal(err)
	}

	r := run1(t, cmdtest.Opts{Stdin: goodKey + "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "API key stored in the system keyring.")
	if r.Err != "" {
		t.Errorf("no warning expected, got %q", r.Err)
	}
	if got, err := keyring.Get(cmdutil.KeyringService, "default"); err != nil || got != goodKey {
		t.Errorf("keyring has %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, cmdutil.CredentialsFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Error("the stale key was left in the credentials file")
	}

	r = runArgs(t, "config", "show")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "API key\tsk_test_…WXYZ\tkeyring\n")

	r = runArgs(t, "logout")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "from the system keyring", "Removed profile default from")
	if _, err := keyring.Get(cmdutil.KeyringService, "default"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the key is still in the keyring: %v", err)
	}
}

func TestLoginFallsBackToFileWithoutKeyring(t *testing.T) {
	dir := cmdtest.Isolate(t)
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files\nmore"))
	t.Cleanup(keyring.MockInit)
	t.Setenv("TIMBRA_KEYRING", "auto")
	srv := loginAPI(t)
	r := run1(t, cmdtest.Opts{Stdin: goodKey + "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 0)
	path := filepath.Join(dir, cmdutil.CredentialsFileName)
	if strings.Count(r.Err, "\n") != 1 {
		t.Errorf("want a one-line warning, got %q", r.Err)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "warning:", "no system keyring", path, "0600")
	cmdtest.WantContains(t, "stdout", r.Out, "API key stored in "+path+".")
	if runtime.GOOS != "windows" && fileMode(t, path) != 0o600 {
		t.Errorf("mode %o", fileMode(t, path))
	}
	// and it is read back from the file
	r = runArgs(t, "config", "show")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "API key\tsk_test_…WXYZ\tfile\n")

	// forcing the system keyring fails instead
	t.Setenv("TIMBRA_KEYRING", "system")
	r = run1(t, cmdtest.Opts{Stdin: goodKey + "\n"}, "login", "--profile", "other", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "system keyring")
	if _, ok := readConfigFile(t, dir).Profiles["other"]; ok {
		t.Error("profile saved although its key could not be")
	}
}

// Ctrl-C at a prompt ends the command, although the read cannot be interrupted.
func TestLoginPromptInterrupted(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := loginAPI(t)
	pr, pw := io.Pipe() // a terminal nobody types on
	t.Cleanup(func() { pw.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := run1(t, cmdtest.Opts{Ctx: ctx, In: pr, InTTY: true}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1")
	cmdtest.WantCode(t, r, 130)
	if _, err := os.Stat(filepath.Join(dir, cmdutil.ConfigFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Error("configuration written after an interrupted login")
	}
}

// fileStore is the credentials file of dir, whatever TIMBRA_KEYRING says.
func fileStore(t *testing.T, dir string) *cmdutil.SecretStore {
	t.Helper()
	old, had := os.LookupEnv("TIMBRA_KEYRING")
	os.Setenv("TIMBRA_KEYRING", "file")
	defer func() {
		if had {
			os.Setenv("TIMBRA_KEYRING", old)
		} else {
			os.Unsetenv("TIMBRA_KEYRING")
		}
	}()
	s, err := cmdutil.NewSecretStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoginWithKeyOnStdinSavesToFile(t *testing.T) {
	dir := filepath.Join(cmdtest.Isolate(t), "nested", "timbra") // made by login
	t.Setenv("TIMBRA_CONFIG_DIR", dir)
	srv := loginAPI(t)
	r := run1(t, cmdtest.Opts{Stdin: "  " + goodKey + "  \nignored\n"}, "login", "--base-url", srv.URL+"/", "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out,
		"Logged in to "+srv.URL+" (profile default, tenant tenant-1).\n",
		filepath.Join(dir, cmdutil.CredentialsFileName))
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, goodKey)

	// verified with one person
	req := srv.Last(t)
	if req.Path != "/api/v4/people" || req.Query != "pageNumber=1&pageSize=1" {
		t.Errorf("verification request %s?%s", req.Path, req.Query)
	}

	cfg := readConfigFile(t, dir)
	if p := cfg.Profiles["default"]; p.BaseURL != srv.URL || p.TenantKey != "tenant-1" {
		t.Errorf("profile %+v", p)
	}
	raw, err := os.ReadFile(filepath.Join(dir, cmdutil.ConfigFileName))
	if err != nil {
		t.Fatal(err)
	}
	cmdtest.WantNotContains(t, "config.json", string(raw), goodKey)
	raw, err = os.ReadFile(filepath.Join(dir, cmdutil.CredentialsFileName))
	if err != nil {
		t.Fatal(err)
	}
	var cf struct {
		Profiles map[string]struct {
			APIKey string `json:"apiKey"`
		} `json:"profiles"`
	}
	if err := json.Unmarshal(raw, &cf); err != nil || cf.Profiles["default"].APIKey != goodKey {
		t.Errorf("credentials file %s (%v)", raw, err)
	}
	if runtime.GOOS != "windows" {
		for _, name := range []string{cmdutil.ConfigFileName, cmdutil.CredentialsFileName} {
			if m := fileMode(t, filepath.Join(dir, name)); m != 0o600 {
				t.Errorf("%s mode %o, want 600", name, m)
			}
		}
		if m := fileMode(t, dir); m != 0o700 {
			t.Errorf("config folder mode %o, want 700", m)
		}
	}

	// the saved profile is used by client commands
	r = runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 0)
	if got := srv.Last(t).Header.Get("X-API-KEY"); got != goodKey {
		t.Errorf("stored key not used")
	}
}

func TestLogoutIsIdempotent(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := loginAPI(t)
	r := run1(t, cmdtest.Opts{Stdin: goodKey + "\n"}, "login", "--profile", "live", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 0)
	r = run1(t, cmdtest.Opts{Stdin: goodKey + "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	cmdtest.WantCode(t, r, 0)

	r = runArgs(t, "logout", "--profile", "live")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out,
		"Removed the API key of profile live from "+filepath.Join(dir, cmdutil.CredentialsFileName)+".",
		"Removed profile live from "+filepath.Join(dir, cmdutil.ConfigFileName)+".")
	cfg := readConfigFile(t, dir)
	if _, ok := cfg.Profiles["live"]; ok {
		t.Error("profile live still in the configuration")
	}
	if _, ok := cfg.Profiles["default"]; !ok {
		t.Error("logout of live removed the default profile")
	}
	store := fileStore(t, dir)
	if k, _, _ := store.Get("default"); k != goodKey {
		t.Error("logout of live removed the default key")
	}

	r = runArgs(t, "logout", "--profile", "live")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Profile live was not logged in: nothing to remove.")

	r = runArgs(t, "people", "list", "--profile", "live")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "not logged in")
}
