package commands

import (
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

func strp(s string) *string { return &s }

var testPeople = []api.Person{
	{ID: "p-1", LegalName: "Ana López", Email: "ana@example.com", IsOwner: true, Tin: strp("LOAA800101AB1"), CreatedAt: "2025-03-10T11:57:00.000"},
	{ID: "p-2", LegalName: "Beto", Email: "beto@example.com", CreatedAt: "2025-01-02T03:04:05.000"},
}

// peopleAPI answers people list and get like the API, for the tests that run the whole tree
// (the people package's tests have their own).
func peopleAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-KEY") != "sk_test_0123456789abcdefWXYZ" || r.Header.Get("X-TENANT-KEY") == "" {
			cmdtest.WriteEnvelope(w, 401, nil, "Invalid API key", "t")
			return
		}
		switch {
		case r.URL.Path == "/api/v4/people":
			cmdtest.WriteEnvelope(w, 200, api.NewPage(testPeople, 1, 10, 2), "", "t")
		case r.URL.Path == "/api/v4/people/p-1":
			p := testPeople[0]
			p.Balances = []api.Balance{{CreditType: 1, Available: 100}, {CreditType: 2, Available: 2.5}}
			p.SatTaxRegime = &api.CatalogRecord{ID: "601", Description: "General de Ley Personas Morales"}
			p.SatTaxRegimeID = strp("601")
			cmdtest.WriteEnvelope(w, 200, p, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
		}
	})
}

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
