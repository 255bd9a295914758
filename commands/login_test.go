package commands

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

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/zalando/go-keyring"
)

const goodKey = "sk_test_0123456789abcdefWXYZ"

// loginAPI accepts goodKey for tenant-1 and refuses everything else with a 401.
func loginAPI(t *testing.T) *fakeAPI {
	return newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != goodKey || r.Header.Get("X-TENANT-KEY") != "tenant-1" {
			writeEnvelope(w, 401, nil, "Invalid API key or tenant key", "t-401")
			return
		}
		writeEnvelope(w, 200, api.NewPage([]api.Person{}, 1, 1, 0), "", "t")
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

func readConfigFile(t *testing.T, dir string) Config {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, configFileName))
	if err != nil {
		t.Fatal(err)
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoginWithKeyOnStdinSavesToFile(t *testing.T) {
	dir := filepath.Join(isolate(t), "nested", "timbra") // made by login
	t.Setenv("TIMBRA_CONFIG_DIR", dir)
	srv := loginAPI(t)
	r := run1(t, runOpts{stdin: "  " + goodKey + "  \nignored\n"}, "login", "--base-url", srv.URL+"/", "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out,
		"Logged in to "+srv.URL+" (profile default, tenant tenant-1).\n",
		filepath.Join(dir, credentialsFileName))
	wantNotContains(t, "output", r.out+r.err, goodKey)

	// verified with one person
	req := srv.last(t)
	if req.Path != "/api/v4/people" || req.Query != "pageNumber=1&pageSize=1" {
		t.Errorf("verification request %s?%s", req.Path, req.Query)
	}

	cfg := readConfigFile(t, dir)
	if p := cfg.Profiles["default"]; p.BaseURL != srv.URL || p.TenantKey != "tenant-1" {
		t.Errorf("profile %+v", p)
	}
	raw, err := os.ReadFile(filepath.Join(dir, configFileName))
	if err != nil {
		t.Fatal(err)
	}
	wantNotContains(t, "config.json", string(raw), goodKey)
	raw, err = os.ReadFile(filepath.Join(dir, credentialsFileName))
	if err != nil {
		t.Fatal(err)
	}
	var cf credentialsFile
	if err := json.Unmarshal(raw, &cf); err != nil || cf.Profiles["default"].APIKey != goodKey {
		t.Errorf("credentials file %s (%v)", raw, err)
	}
	if runtime.GOOS != "windows" {
		for _, name := range []string{configFileName, credentialsFileName} {
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
	wantCode(t, r, 0)
	if got := srv.last(t).Header.Get("X-API-KEY"); got != goodKey {
		t.Errorf("stored key not used")
	}
}

func TestLoginFromEnvironmentWithJSON(t *testing.T) {
	dir := isolate(t)
	srv := loginAPI(t)
	t.Setenv("TIMBRA_BASE_URL", srv.URL)
	t.Setenv("TIMBRA_TENANT_KEY", "tenant-1")
	t.Setenv("TIMBRA_API_KEY", goodKey)
	r := runArgs(t, "login", "--profile", "ci", "-o", "json")
	wantCode(t, r, 0)
	var got map[string]string
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if got["profile"] != "ci" || got["baseUrl"] != srv.URL || got["apiKey"] != "sk_test_…WXYZ" {
		t.Errorf("login JSON %v", got)
	}
	if readConfigFile(t, dir).Profiles["ci"].TenantKey != "tenant-1" {
		t.Error("profile ci not saved")
	}
}

func TestLoginRefusedSavesNothing(t *testing.T) {
	dir := isolate(t)
	srv := loginAPI(t)
	r := run1(t, runOpts{stdin: "sk_bad_key_0123456789\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 1)
	if r.err != "401: Invalid API key or tenant key\n" {
		t.Errorf("stderr %q", r.err)
	}
	for _, name := range []string{configFileName, credentialsFileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written after a refused login", name)
		}
	}
	wantNotContains(t, "output", r.out+r.err, "sk_bad_key")
}

func TestLoginNeedsAKey(t *testing.T) {
	isolate(t)
	srv := loginAPI(t)
	r := runArgs(t, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.err, "TIMBRA_API_KEY", "--api-key-stdin", "terminal", "Run 'timbra login --help'.")

	r = run1(t, runOpts{stdin: "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 2)

	// no tenant key, and no terminal to ask on
	t.Setenv("TIMBRA_API_KEY", goodKey)
	r = runArgs(t, "login", "--base-url", srv.URL)
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.err, "missing tenant key")
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests made before the usage was right", n)
	}
}

func TestLoginPrompts(t *testing.T) {
	dir := isolate(t)
	srv := loginAPI(t)
	r := run1(t, runOpts{inTTY: true, stdin: "tenant-1\n" + goodKey + "\n"}, "login", "--base-url", srv.URL)
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.err, "Tenant key: ", "API key: ")
	wantNotContains(t, "output", r.out+r.err, goodKey)
	if readConfigFile(t, dir).Profiles["default"].TenantKey != "tenant-1" {
		t.Error("prompted tenant key not saved")
	}
	// a second login offers the saved tenant key and keeps it on an empty answer
	r = run1(t, runOpts{inTTY: true, stdin: "\n" + goodKey + "\n"}, "login")
	wantCode(t, r, 0)
	wantContains(t, "stderr", r.err, "Tenant key [tenant-1]: ")
	wantContains(t, "stdout", r.out, "Logged in to "+srv.URL+" ")
}

func TestLoginKeyring(t *testing.T) {
	dir := isolate(t)
	keyring.MockInit()
	t.Setenv("TIMBRA_KEYRING", "auto")
	srv := loginAPI(t)
	// a stale key in the file from an earlier login on a machine without keyring
	fileStore := &secretStore{backend: backendFile, dir: dir}
	if _, _, err := fileStore.set("default", "sk_stale_key_0123456789"); err != nil {
		t.Fatal(err)
	}

	r := run1(t, runOpts{stdin: goodKey + "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "API key stored in the system keyring.")
	if r.err != "" {
		t.Errorf("no warning expected, got %q", r.err)
	}
	if got, err := keyring.Get(keyringService, "default"); err != nil || got != goodKey {
		t.Errorf("keyring has %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, credentialsFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Error("the stale key was left in the credentials file")
	}

	r = runArgs(t, "config", "show")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "API key\tsk_test_…WXYZ\tkeyring\n")

	r = runArgs(t, "logout")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "from the system keyring", "Removed profile default from")
	if _, err := keyring.Get(keyringService, "default"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the key is still in the keyring: %v", err)
	}
}

func TestLoginFallsBackToFileWithoutKeyring(t *testing.T) {
	dir := isolate(t)
	keyring.MockInitWithError(errors.New("The name org.freedesktop.secrets was not provided by any .service files\nmore"))
	t.Cleanup(keyring.MockInit)
	t.Setenv("TIMBRA_KEYRING", "auto")
	srv := loginAPI(t)
	r := run1(t, runOpts{stdin: goodKey + "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 0)
	path := filepath.Join(dir, credentialsFileName)
	if strings.Count(r.err, "\n") != 1 {
		t.Errorf("want a one-line warning, got %q", r.err)
	}
	wantContains(t, "stderr", r.err, "warning:", "no system keyring", path, "0600")
	wantContains(t, "stdout", r.out, "API key stored in "+path+".")
	if runtime.GOOS != "windows" && fileMode(t, path) != 0o600 {
		t.Errorf("mode %o", fileMode(t, path))
	}
	// and it is read back from the file
	r = runArgs(t, "config", "show")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "API key\tsk_test_…WXYZ\tfile\n")

	// forcing the system keyring fails instead
	t.Setenv("TIMBRA_KEYRING", "system")
	r = run1(t, runOpts{stdin: goodKey + "\n"}, "login", "--profile", "other", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "system keyring")
	if _, ok := readConfigFile(t, dir).Profiles["other"]; ok {
		t.Error("profile saved although its key could not be")
	}
}

func TestInvalidKeyringBackend(t *testing.T) {
	isolate(t)
	t.Setenv("TIMBRA_KEYRING", "vault")
	r := runArgs(t, "config", "show")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "TIMBRA_KEYRING")
}

func TestLogoutIsIdempotent(t *testing.T) {
	dir := isolate(t)
	srv := loginAPI(t)
	r := run1(t, runOpts{stdin: goodKey + "\n"}, "login", "--profile", "live", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 0)
	r = run1(t, runOpts{stdin: goodKey + "\n"}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1", "--api-key-stdin")
	wantCode(t, r, 0)

	r = runArgs(t, "logout", "--profile", "live")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out,
		"Removed the API key of profile live from "+filepath.Join(dir, credentialsFileName)+".",
		"Removed profile live from "+filepath.Join(dir, configFileName)+".")
	cfg := readConfigFile(t, dir)
	if _, ok := cfg.Profiles["live"]; ok {
		t.Error("profile live still in the configuration")
	}
	if _, ok := cfg.Profiles["default"]; !ok {
		t.Error("logout of live removed the default profile")
	}
	store := &secretStore{backend: backendFile, dir: dir}
	if k, _, _ := store.get("default"); k != goodKey {
		t.Error("logout of live removed the default key")
	}

	r = runArgs(t, "logout", "--profile", "live")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Profile live was not logged in: nothing to remove.")

	r = runArgs(t, "people", "list", "--profile", "live")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "not logged in")
}

func TestConfigShowMasksAndTellsSources(t *testing.T) {
	dir := isolate(t)
	if err := saveConfig(dir, &Config{Profiles: map[string]Profile{"default": {BaseURL: "http://10.0.0.1:9000", TenantKey: "tenant-profile"}}}); err != nil {
		t.Fatal(err)
	}
	const secret = "sk_live_abcdefgh_SECRET_MIDDLE_7890"
	if _, _, err := (&secretStore{backend: backendFile, dir: dir}).set("default", secret); err != nil {
		t.Fatal(err)
	}

	r := runArgs(t, "config", "show")
	wantCode(t, r, 0)
	want := "SETTING\tVALUE\tSOURCE\n" +
		"profile\tdefault\tdefault\n" +
		"base URL\thttp://10.0.0.1:9000\tprofile\n" +
		"tenant key\ttenant-profile\tprofile\n" +
		"API key\tsk_live_…7890\tfile\n" +
		"config file\t" + filepath.Join(dir, configFileName) + "\t\n"
	if r.out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.out, want)
	}

	t.Setenv("TIMBRA_TENANT_KEY", "tenant-env")
	t.Setenv("TIMBRA_API_KEY", "sk_env_0123456789_SECRET_abcd")
	r = runArgs(t, "config", "show", "-o", "json")
	wantCode(t, r, 0)
	var got shownConfig
	if err := json.Unmarshal([]byte(r.out), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.out)
	}
	if got.APIKey != (shownSetting{"sk_env_0…abcd", "env TIMBRA_API_KEY"}) ||
		got.TenantKey != (shownSetting{"tenant-env", "env TIMBRA_TENANT_KEY"}) ||
		got.BaseURL != (shownSetting{"http://10.0.0.1:9000", "profile"}) ||
		got.Profile != (shownSetting{"default", "default"}) {
		t.Errorf("config show JSON %+v", got)
	}
	wantNotContains(t, "output", r.out+r.err, "SECRET")

	unsetenv(t, "TIMBRA_TENANT_KEY")
	unsetenv(t, "TIMBRA_API_KEY")
	r = run1(t, runOpts{tty: true}, "config", "show", "--profile", "nobody")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "(not set)", "flag --profile")
}

func TestMaskSecret(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "(not set)",
		"short":                    "********",
		"sk_test_0123456":          "********",
		"sk_test_01234567":         "sk_test_…4567",
		"sk_test_0123456789abcdef": "sk_test_…cdef",
	} {
		if got := maskSecret(in); got != want {
			t.Errorf("maskSecret(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCorruptCredentialsFileDoesNotLeak(t *testing.T) {
	dir := isolate(t)
	if err := os.WriteFile(filepath.Join(dir, credentialsFileName), []byte(`{"profiles": sk_SECRET_VALUE`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "config", "show")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "not a timbra credentials file")
	wantNotContains(t, "stderr", r.err, "SECRET")
}

// Ctrl-C at a prompt ends the command, although the read cannot be interrupted.
func TestLoginPromptInterrupted(t *testing.T) {
	dir := isolate(t)
	srv := loginAPI(t)
	pr, pw := io.Pipe() // a terminal nobody types on
	t.Cleanup(func() { pw.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := run1(t, runOpts{ctx: ctx, in: pr, inTTY: true}, "login", "--base-url", srv.URL, "--tenant-key", "tenant-1")
	wantCode(t, r, 130)
	if _, err := os.Stat(filepath.Join(dir, configFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Error("configuration written after an interrupted login")
	}
}
