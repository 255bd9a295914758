package commands

import (
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

func TestProfileSelection(t *testing.T) {
	dir := cmdtest.Isolate(t)
	live := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.Person{}, 1, 10, 0), "", "t")
	})
	if err := cmdutil.SaveConfig(dir, &cmdutil.Config{Profiles: map[string]cmdutil.Profile{"live": {BaseURL: live.URL, TenantKey: "tenant-live"}}}); err != nil {
		t.Fatal(err)
	}
	store, _ := cmdutil.NewSecretStore(dir)
	if _, _, err := store.Set("live", "sk_live_0123456789abcdef"); err != nil {
		t.Fatal(err)
	}
	r := runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 1) // default profile: not logged in

	r = runArgs(t, "people", "list", "--profile", "live")
	cmdtest.WantCode(t, r, 0)
	t.Setenv("TIMBRA_PROFILE", "live")
	r = runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 0)
	if n := len(live.Requests()); n != 2 {
		t.Errorf("the live API got %d requests, want 2", n)
	}
	// --profile wins over TIMBRA_PROFILE, wherever it is given
	for _, args := range [][]string{{"--profile", "default", "people", "list"}, {"people", "list", "--profile", "default"}} {
		r = runArgs(t, args...)
		cmdtest.WantCode(t, r, 1)
		cmdtest.WantContains(t, "stderr", r.Err, "not logged in")
	}
	r = runArgs(t, "config", "show")
	cmdtest.WantContains(t, "stdout", r.Out, "profile\tlive\tenv TIMBRA_PROFILE\n")
	t.Setenv("TIMBRA_PROFILE", "bad name")
	r = runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "TIMBRA_PROFILE")
	t.Setenv("TIMBRA_PROFILE", "live")
	// on a terminal an empty list says so on stderr
	r = run1(t, cmdtest.Opts{TTY: true}, "people", "list")
	cmdtest.WantCode(t, r, 0)
	if r.Out != "" || !strings.Contains(r.Err, "No people.") {
		t.Errorf("stdout %q stderr %q", r.Out, r.Err)
	}
}
