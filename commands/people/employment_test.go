package people

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// employmentAPI fakes the employer and employee endpoints of one person, keeping the last body
// saved as the data (answered back as it came, amounts included).
type employmentAPI struct {
	*cmdtest.FakeAPI
	mu   sync.Mutex
	data map[string]json.RawMessage // "employer" / "employee" → saved body
}

func newEmploymentAPI(t *testing.T) *employmentAPI {
	e := &employmentAPI{data: map[string]json.RawMessage{}}
	e.FakeAPI = cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		defer e.mu.Unlock()
		parts := strings.Split(r.URL.Path, "/") // "", api, v4, people, id, kind
		if len(parts) != 6 || parts[4] != "p-1" {
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: "+parts[4], "t")
			return
		}
		kind := parts[5]
		saved, ok := e.data[kind]
		switch r.Method {
		case "GET":
			if !ok {
				cmdtest.WriteEnvelope(w, 404, nil, "La persona 'p-1' no tiene datos de "+map[string]string{"employer": "empleador", "employee": "empleado"}[kind]+".", "t")
				return
			}
			cmdtest.WriteEnvelope(w, 200, saved, "", "t")
		case "POST", "PUT":
			var body json.RawMessage
			json.NewDecoder(r.Body).Decode(&body)
			e.data[kind] = body
			cmdtest.WriteEnvelope(w, 200, body, "", "t")
		case "DELETE":
			delete(e.data, kind)
			cmdtest.WriteEnvelope(w, 200, true, "", "t")
		}
	})
	return e
}

func TestEmployerSetCreatesThenUpdatesKeepingFields(t *testing.T) {
	cmdtest.Isolate(t)
	e := newEmploymentAPI(t)
	cmdtest.UseAPI(t, e.URL)
	r := runArgs(t, "people", "employer", "set", "p-1", "--registration", "B5510768108", "--fund-source", "IP", "--own-resource-amount", "999999999999.999999")
	cmdtest.WantCode(t, r, 0)
	rs := e.Requests()
	if len(rs) != 2 || rs[0].Method != "GET" || rs[1].Method != "POST" || rs[1].Path != "/api/v4/people/p-1/employer" {
		t.Fatalf("requests: %+v", rs)
	}
	if rs[1].Body != `{"personId":"p-1","employerRegistration":"B5510768108","satFundSourceId":"IP","ownResourceAmount":999999999999.999999}` {
		t.Fatalf("POST body: %s", rs[1].Body)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Employer registration: B5510768108", "Own resource amount: 999999999999.999999")
	cmdtest.WantContains(t, "stderr", r.Err, "Employer data created.")

	// a second set changes one field and keeps the others, with PUT; an empty value clears
	r = runArgs(t, "people", "employer", "set", "p-1", "--registration", "Y1234567891", "--own-resource-amount", "", "--fund-source", "")
	cmdtest.WantCode(t, r, 0)
	last := e.Last(t)
	if last.Method != "PUT" || last.Body != `{"personId":"p-1","employerRegistration":"Y1234567891","satFundSourceId":""}` {
		t.Fatalf("PUT: %s %s", last.Method, last.Body)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "Employer data updated.")

	r = runArgs(t, "people", "employer", "set", "p-1", "--own-resource-amount", "12,5")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, `invalid value "12,5" for --own-resource-amount`)
}

func TestEmployeeSetFromFileGetAndDelete(t *testing.T) {
	cmdtest.Isolate(t)
	e := newEmploymentAPI(t)
	cmdtest.UseAPI(t, e.URL)
	file := filepath.Join(t.TempDir(), "employee.json")
	os.WriteFile(file, []byte(`{"employerPersonId":"p-0","employeePersonId":"other","employeeNumber":"120","seniority":"P54W",
		"baseSalaryForContributions":2828.50,"satPayrollState":{"id":"JAL"},"id":"ignored"}`), 0o644)
	r := runArgs(t, "people", "employee", "set", "p-1", "--file", file, "--daily-salary", "512.40", "--unionized", "Sí")
	cmdtest.WantCode(t, r, 0)
	var body map[string]json.RawMessage
	if err := json.Unmarshal([]byte(e.Last(t).Body), &body); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"employeePersonId": `"p-1"`, "employerPersonId": `"p-0"`, "baseSalaryForContributions": "2828.50",
		"integratedDailySalary": "512.40", "satUnionizedStatusId": `"Sí"`, "seniority": `"P54W"`} {
		if string(body[k]) != want {
			t.Errorf("%s = %s, want %s (body %s)", k, body[k], want, e.Last(t).Body)
		}
	}
	if _, ok := body["id"]; ok {
		t.Error("a read-only field of the file was sent")
	}
	r = runArgs(t, "people", "employee", "get", "p-1", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, `"integratedDailySalary": 512.40`)

	r = runArgs(t, "people", "employee", "get", "p-2")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "No such resource for the given Id: p-2")

	r = runArgs(t, "people", "employee", "delete", "p-1")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "pass --yes")
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "n\n"}, "people", "employee", "delete", "p-1")
	cmdtest.WantCode(t, r, 1)
	r = runArgs(t, "people", "employee", "delete", "p-1", "--yes")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Deleted the employee data of person p-1.")
	r = runArgs(t, "people", "employee", "get", "p-1")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "no tiene datos de empleado")
}
