package people

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
)

// runeIndex is the column (in characters) where sub starts in s.
func runeIndex(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

func TestPeopleListPlain(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "people", "list", "--page", "2", "--page-size", "5", "--time-zone", "America/Mexico_City")
	cmdtest.WantCode(t, r, 0)
	want := "ID\tNAME\tEMAIL\tOWNER\tTIN\tCREATED\n" +
		"p-1\tAna López\tana@example.com\tyes\tLOAA800101AB1\t2025-03-10T05:57:00-06:00\n" +
		"p-2\tBeto\tbeto@example.com\tno\t\t2025-01-01T21:04:05-06:00\n"
	if r.Out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, want)
	}
	req := srv.Last(t)
	if req.Path != "/api/v4/people" || req.Query != "pageNumber=2&pageSize=5" {
		t.Errorf("request %s?%s", req.Path, req.Query)
	}
	if got := req.Header.Get("X-TIME-ZONE"); got != "America/Mexico_City" {
		t.Errorf("X-TIME-ZONE %q", got)
	}
	if got := req.Header.Get("X-TENANT-KEY"); got != "tenant-1" {
		t.Errorf("X-TENANT-KEY %q", got)
	}
	if !strings.HasPrefix(req.Header.Get("User-Agent"), "timbra/") {
		t.Errorf("User-Agent %q", req.Header.Get("User-Agent"))
	}
}

func TestPeopleListPlainUTC(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "\t2025-03-10T11:57:00Z\n")
	if q := srv.Last(t).Query; q != "pageNumber=1" {
		t.Errorf("query %q: no page size should be sent unless asked", q)
	}
	if tz := srv.Last(t).Header.Get("X-TIME-ZONE"); tz != "" {
		t.Errorf("X-TIME-ZONE %q sent without --time-zone", tz)
	}
}

func TestPeopleListTerminal(t *testing.T) {
	cmdtest.Isolate(t)
	t.Setenv("NO_COLOR", "1")
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := run1(t, cmdtest.Opts{TTY: true}, "people", "list")
	cmdtest.WantCode(t, r, 0)
	lines := strings.Split(strings.TrimRight(r.Out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header and two rows:\n%s", r.Out)
	}
	// aligned: every column starts at the same place on every line
	col := runeIndex(lines[0], "EMAIL")
	if runeIndex(lines[1], "ana@") != col || runeIndex(lines[2], "beto@") != col {
		t.Errorf("columns not aligned:\n%s", r.Out)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "3 minutes ago", "2025-01-02")
	cmdtest.WantNotContains(t, "stdout", r.Out, "\t", "\x1b[")
}

func TestPeopleListColour(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := run1(t, cmdtest.Opts{TTY: true}, "people", "list")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "\x1b[1mID")
	// not on a terminal, never
	r = runArgs(t, "people", "list")
	cmdtest.WantNotContains(t, "stdout", r.Out, "\x1b[")
}

func TestPeopleListJSON(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	for _, tty := range []bool{false, true} {
		r := run1(t, cmdtest.Opts{TTY: tty}, "people", "list", "-o", "json")
		cmdtest.WantCode(t, r, 0)
		var got api.PagedList[api.Person]
		if err := json.Unmarshal([]byte(r.Out), &got); err != nil {
			t.Fatalf("stdout is not the page as JSON: %v\n%s", err, r.Out)
		}
		if got.TotalCount != 2 || len(got.Items) != 2 || got.Items[0].LegalName != "Ana López" {
			t.Errorf("page %+v", got)
		}
		cmdtest.WantContains(t, "stdout", r.Out, "\n  \"items\": [")
	}
}

func TestPeopleGet(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "people", "get", "p-1")
	cmdtest.WantCode(t, r, 0)
	for _, line := range []string{
		"ID: p-1\n", "Name: Ana López\n", "Email: ana@example.com\n", "Owner: yes\n", "TIN: LOAA800101AB1\n",
		"Tax regime: 601 (General de Ley Personas Morales)\n", "Balances: stamps 100, validation 2.5\n",
		"Created: 2025-03-10T11:57:00Z\n", "\nPhone:\n",
	} {
		cmdtest.WantContains(t, "stdout", r.Out, line)
	}

	// flags may follow the argument
	r = runArgs(t, "people", "get", "p-1", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var p api.Person
	if err := json.Unmarshal([]byte(r.Out), &p); err != nil || p.ID != "p-1" || p.Balances[1].Available != 2.5 {
		t.Fatalf("JSON person %+v, %v\n%s", p, err, r.Out)
	}

	r = runArgs(t, "people", "get", "nope")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "404: No such resource")
}

// Environment variables override the profile, value by value.
func TestEnvOverridesProfile(t *testing.T) {
	dir := cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	other := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.Person{}, 1, 10, 0), "", "t")
	})
	if err := cmdutil.SaveConfig(dir, &cmdutil.Config{Profiles: map[string]cmdutil.Profile{"default": {BaseURL: other.URL, TenantKey: "tenant-profile"}}}); err != nil {
		t.Fatal(err)
	}
	store, _ := cmdutil.NewSecretStore(dir)
	if _, _, err := store.Set("default", "sk_test_0123456789abcdefWXYZ"); err != nil {
		t.Fatal(err)
	}

	// the profile alone
	r := runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 0)
	if got := other.Last(t).Header.Get("X-TENANT-KEY"); got != "tenant-profile" {
		t.Errorf("X-TENANT-KEY %q", got)
	}
	if got := other.Last(t).Header.Get("X-API-KEY"); got != "sk_test_0123456789abcdefWXYZ" {
		t.Errorf("the stored key was not sent")
	}

	// the environment wins
	t.Setenv("TIMBRA_BASE_URL", srv.URL)
	t.Setenv("TIMBRA_TENANT_KEY", "tenant-env")
	r = runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 0)
	if got := srv.Last(t).Header.Get("X-TENANT-KEY"); got != "tenant-env" {
		t.Errorf("X-TENANT-KEY %q", got)
	}

	t.Setenv("TIMBRA_API_KEY", "sk_wrong_key_from_environment")
	r = runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "401")
}
