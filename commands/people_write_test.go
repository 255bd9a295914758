package commands

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
)

// personEcho answers a create or update with the body it received, as a person.
func personEcho(t *testing.T) *fakeAPI {
	return newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in api.PersonInput
		json.NewDecoder(r.Body).Decode(&in)
		p := api.Person{ID: "p-9", LegalName: deref(in.LegalName), Email: deref(in.Email), Tin: in.Tin}
		if r.Method == http.MethodGet {
			p.LegalName, p.Email = "Ana", "ana@example.com"
		}
		if r.Method == http.MethodDelete {
			writeEnvelope(w, 200, true, "", "t")
			return
		}
		writeEnvelope(w, 200, p, "", "t")
	})
}

func TestPeopleCreatePromptsForThePasswordOnATerminal(t *testing.T) {
	isolate(t)
	srv := personEcho(t)
	useAPI(t, srv.URL)
	r := run1(t, runOpts{inTTY: true, stdin: "Clave#123\nClave#123\n"}, "people", "create", "--legal-name", "Ana", "--email", "ana@example.com")
	wantCode(t, r, 0)
	if !strings.Contains(r.err, "Password: ") || !strings.Contains(r.err, "Repeat the password: ") {
		t.Fatalf("no prompt: %q", r.err)
	}
	last := srv.last(t)
	if last.Method != "POST" || last.Path != "/api/v4/people" ||
		last.Body != `{"legalName":"Ana","email":"ana@example.com","password":"Clave#123"}` {
		t.Fatalf("request = %+v", last)
	}
	if strings.Contains(r.out, "Clave#123") {
		t.Fatal("the password is printed")
	}
	// two different answers: nothing is sent
	n := len(srv.requests())
	r = run1(t, runOpts{inTTY: true, stdin: "Clave#123\nClave#124\n"}, "people", "create", "--legal-name", "Ana", "--email", "ana@example.com")
	if r.code != 1 || !strings.Contains(r.err, "do not match") || len(srv.requests()) != n {
		t.Fatalf("mismatch: exit %d %q", r.code, r.err)
	}
}

func TestPeopleUpdateSendsOnlyWhatIsGiven(t *testing.T) {
	isolate(t)
	srv := personEcho(t)
	useAPI(t, srv.URL)
	r := run1(t, runOpts{stdin: "s3creto\n"}, "people", "update", "p-9", "--tin", "", "--curp", "CURP1", "--tax-password-stdin", "-o", "json")
	wantCode(t, r, 0)
	last := srv.last(t)
	if last.Method != "PUT" || last.Path != "/api/v4/people/p-9" || last.Body != `{"tin":"","curp":"CURP1","taxPassword":"s3creto"}` {
		t.Fatalf("request = %+v", last)
	}
	// --password-prompt needs a terminal; secrets never come from a flag value
	r = run1(t, runOpts{}, "people", "update", "p-9", "--password-prompt")
	wantCode(t, r, 2)
	r = run1(t, runOpts{}, "people", "update", "p-9", "--password", "x")
	wantCode(t, r, 2)
}

func TestPeopleDeleteConfirms(t *testing.T) {
	isolate(t)
	srv := personEcho(t)
	useAPI(t, srv.URL)
	r := run1(t, runOpts{inTTY: true, stdin: "n\n"}, "people", "delete", "p-9")
	if r.code != 1 || !strings.Contains(r.err, "Delete p-9 (Ana, ana@example.com)?") {
		t.Fatalf("exit %d %q", r.code, r.err)
	}
	for _, q := range srv.requests() {
		if q.Method == "DELETE" {
			t.Fatal("deleted without a yes")
		}
	}
	r = run1(t, runOpts{inTTY: true, stdin: "y\n"}, "people", "delete", "p-9")
	wantCode(t, r, 0)
	if last := srv.last(t); last.Method != "DELETE" || last.Path != "/api/v4/people/p-9" {
		t.Fatalf("request = %+v", last)
	}
	r = run1(t, runOpts{}, "people", "delete", "p-9")
	wantCode(t, r, 2)
}
