package people

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// personEcho answers a create or update with the body it received, as a person.
func personEcho(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in api.PersonInput
		json.NewDecoder(r.Body).Decode(&in)
		p := api.Person{ID: "p-9", LegalName: api.Deref(in.LegalName), Email: api.Deref(in.Email), Tin: in.Tin}
		if r.Method == http.MethodGet {
			p.LegalName, p.Email = "Ana", "ana@example.com"
		}
		if r.Method == http.MethodDelete {
			cmdtest.WriteEnvelope(w, 200, true, "", "t")
			return
		}
		cmdtest.WriteEnvelope(w, 200, p, "", "t")
	})
}

func TestPeopleCreatePromptsForThePasswordOnATerminal(t *testing.T) {
	cmdtest.Isolate(t)
	srv := personEcho(t)
	cmdtest.UseAPI(t, srv.URL)
	r := run1(t, cmdtest.Opts{InTTY: true, Stdin: "Clave#123\nClave#123\n"}, "people", "create", "--legal-name", "Ana", "--email", "ana@example.com")
	cmdtest.WantCode(t, r, 0)
	if !strings.Contains(r.Err, "Password: ") || !strings.Contains(r.Err, "Repeat the password: ") {
		t.Fatalf("no prompt: %q", r.Err)
	}
	last := srv.Last(t)
	if last.Method != "POST" || last.Path != "/api/v4/people" ||
		last.Body != `{"legalName":"Ana","email":"ana@example.com","password":"Clave#123"}` {
		t.Fatalf("request = %+v", last)
	}
	if strings.Contains(r.Out, "Clave#123") {
		t.Fatal("the password is printed")
	}
	// two different answers: nothing is sent
	n := len(srv.Requests())
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "Clave#123\nClave#124\n"}, "people", "create", "--legal-name", "Ana", "--email", "ana@example.com")
	if r.Code != 1 || !strings.Contains(r.Err, "do not match") || len(srv.Requests()) != n {
		t.Fatalf("mismatch: exit %d %q", r.Code, r.Err)
	}
}

func TestPeopleUpdateSendsOnlyWhatIsGiven(t *testing.T) {
	cmdtest.Isolate(t)
	srv := personEcho(t)
	cmdtest.UseAPI(t, srv.URL)
	r := run1(t, cmdtest.Opts{Stdin: "s3creto\n"}, "people", "update", "p-9", "--tin", "", "--curp", "CURP1", "--tax-password-stdin", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	last := srv.Last(t)
	if last.Method != "PUT" || last.Path != "/api/v4/people/p-9" || last.Body != `{"tin":"","curp":"CURP1","taxPassword":"s3creto"}` {
		t.Fatalf("request = %+v", last)
	}
	// --password-prompt needs a terminal; secrets never come from a flag value
	r = run1(t, cmdtest.Opts{}, "people", "update", "p-9", "--password-prompt")
	cmdtest.WantCode(t, r, 2)
	r = run1(t, cmdtest.Opts{}, "people", "update", "p-9", "--password", "x")
	cmdtest.WantCode(t, r, 2)
}

func TestPeopleDeleteConfirms(t *testing.T) {
	cmdtest.Isolate(t)
	srv := personEcho(t)
	cmdtest.UseAPI(t, srv.URL)
	r := run1(t, cmdtest.Opts{InTTY: true, Stdin: "n\n"}, "people", "delete", "p-9")
	if r.Code != 1 || !strings.Contains(r.Err, "Delete p-9 (Ana, ana@example.com)?") {
		t.Fatalf("exit %d %q", r.Code, r.Err)
	}
	for _, q := range srv.Requests() {
		if q.Method == "DELETE" {
			t.Fatal("deleted without a yes")
		}
	}
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "y\n"}, "people", "delete", "p-9")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "DELETE" || last.Path != "/api/v4/people/p-9" {
		t.Fatalf("request = %+v", last)
	}
	r = run1(t, cmdtest.Opts{}, "people", "delete", "p-9")
	cmdtest.WantCode(t, r, 2)
}

// TestPeopleFailuresNameTheFlag: the API's failures name the flag that carried the value.
func TestPeopleFailuresNameTheFlag(t *testing.T) {
	cmdtest.Isolate(t)
	fake := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("Tin", "El RFC 'AAA011301AAA' no es válido: su fecha 011301 (AAMMDD) no existe en el calendario."),
			cmdtest.Failure("ZipCode", "El código postal '9' no existe.")}, "One or more validation failures have occurred.", "t")
	})
	cmdtest.UseAPI(t, fake.URL)
	r := runArgs(t, "people", "update", "p-1", "--tin", "AAA011301AAA", "--zip-code", "9")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "no existe en el calendario. (--tin)\n", "ZipCode: El código postal '9' no existe. (--zip-code)\n")
}
