package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
)

func TestInvalidKeyringBackend(t *testing.T) {
	cmdtest.Isolate(t)
	t.Setenv("TIMBRA_KEYRING", "vault")
	r := runArgs(t, "config", "show")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "TIMBRA_KEYRING")
}

func TestConfigShowMasksAndTellsSources(t *testing.T) {
	dir := cmdtest.Isolate(t)
	if err := cmdutil.SaveConfig(dir, &cmdutil.Config{Profiles: map[string]cmdutil.Profile{"default": {BaseURL: "http://10.0.0.1:9000", TenantKey: "tenant-profile"}}}); err != nil {
		t.Fatal(err)
	}
	const secret = "sk_live_abcdefgh_SECRET_MIDDLE_7890"
	store, err := cmdutil.NewSecretStore(dir) // the credentials file: Isolate sets TIMBRA_KEYRING=file
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Set("default", secret); err != nil {
		t.Fatal(err)
	}

	r := runArgs(t, "config", "show")
	cmdtest.WantCode(t, r, 0)
	want := "SETTING\tVALUE\tSOURCE\n" +
		"profile\tdefault\tdefault\n" +
		"base URL\thttp://10.0.0.1:9000\tprofile\n" +
		"tenant key\ttenant-profile\tprofile\n" +
		"API key\tsk_live_…7890\tfile\n" +
		"config file\t" + filepath.Join(dir, cmdutil.ConfigFileName) + "\t\n"
	if r.Out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, want)
	}

	t.Setenv("TIMBRA_TENANT_KEY", "tenant-env")
	t.Setenv("TIMBRA_API_KEY", "sk_env_0123456789_SECRET_abcd")
	r = runArgs(t, "config", "show", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var got shownConfig
	if err := json.Unmarshal([]byte(r.Out), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.Out)
	}
	if got.APIKey != (shownSetting{"sk_env_0…abcd", "env TIMBRA_API_KEY"}) ||
		got.TenantKey != (shownSetting{"tenant-env", "env TIMBRA_TENANT_KEY"}) ||
		got.BaseURL != (shownSetting{"http://10.0.0.1:9000", "profile"}) ||
		got.Profile != (shownSetting{"default", "default"}) {
		t.Errorf("config show JSON %+v", got)
	}
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, "SECRET")

	cmdtest.Unsetenv(t, "TIMBRA_TENANT_KEY")
	cmdtest.Unsetenv(t, "TIMBRA_API_KEY")
	r = run1(t, cmdtest.Opts{TTY: true}, "config", "show", "--profile", "nobody")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "(not set)", "flag --profile")
}

func TestMaskSecret(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "(not set)",
		"short":                    "********",
		"sk_test_0123456":          "********",
		"sk_test_01234567":         "sk_test_…4567",
		"sk_test_0123456789abcdef": "sk_test_…cdef",
	} {
		if got := cmdutil.MaskSecret(in); got != want {
			t.Errorf("maskSecret(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCorruptCredentialsFileDoesNotLeak(t *testing.T) {
	dir := cmdtest.Isolate(t)
	if err := os.WriteFile(filepath.Join(dir, cmdutil.CredentialsFileName), []byte(`{"profiles": sk_SECRET_VALUE`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "config", "show")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "not a timbra credentials file")
	cmdtest.WantNotContains(t, "stderr", r.Err, "SECRET")
}
