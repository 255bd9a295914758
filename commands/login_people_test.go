package commands

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

// Login and logout, then a client command of another noun (people) with the profile: tests of
// the whole tree. The tests of login, logout and config alone are in their packages.

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
