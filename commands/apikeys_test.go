package commands

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

const testKeyID = "0195a7c4-1111-7c3d-9f00-1a2b3c4d5e6f"

// newKeyAPI fakes the API key and stamps endpoints of one key and two people.
func newKeyAPI(t *testing.T) *cmdtest.FakeAPI {
	key := map[string]any{
		"id": testKeyID, "environment": "test", "apiKeyValue": "sk_test_abcdefghijklmnopqrstuvwxyz012345",
		"personId": "p-1", "tenantId": "tenant-1", "apiKeyStatus": 1, "description": "ci",
		"createdAt": "2025-03-10T11:00:00.000", "updatedAt": "2025-03-10T11:00:00.000",
	}
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v4/apikeys/"+testKeyID && r.Method == "GET":
			cmdtest.WriteEnvelope(w, 200, key, "", "")
		case r.URL.Path == "/api/v4/apikeys/"+testKeyID && r.Method == "PUT":
			var in map[string]any
			json.NewDecoder(r.Body).Decode(&in)
			out := map[string]any{}
			for k, v := range key {
				out[k] = v
			}
			out["description"], out["apiKeyStatus"] = in["description"], in["apiKeyStatus"]
			cmdtest.WriteEnvelope(w, 200, out, "", "")
		case r.URL.Path == "/api/v4/apikeys/"+testKeyID && r.Method == "DELETE":
			cmdtest.WriteEnvelope(w, 200, true, "", "")
		case r.URL.Path == "/api/v4/stamps":
			cmdtest.WriteEnvelope(w, 200, true, "", "")
		case strings.HasPrefix(r.URL.Path, "/api/v4/people/"):
			id := strings.TrimPrefix(r.URL.Path, "/api/v4/people/")
			cmdtest.WriteEnvelope(w, 200, map[string]any{"id": id, "email": id + "@example.com",
				"balances": []map[string]any{{"creditType": 1, "available": 40}, {"creditType": 2, "available": 7}}}, "", "")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "Not Found", "")
		}
	})
}

func TestAPIKeysRevokeAsks(t *testing.T) {
	cmdtest.Isolate(t)
	h := newKeyAPI(t)
	cmdtest.UseAPI(t, h.URL)
	deletes := func() int {
		n := 0
		for _, r := range h.Requests() {
			if r.Method == "DELETE" {
				n++
			}
		}
		return n
	}
	r := runArgs(t, "api-keys", "revoke", testKeyID)
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "pass --yes")
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "n\n"}, "api-keys", "revoke", testKeyID)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "Revoke API key "+testKeyID+" (sk_test_…2345, ci) of person p-1?", "not revoked")
	cmdtest.WantNotContains(t, "stderr", r.Err, "sk_test_abcdefghijklmnopqrstuvwxyz012345")
	if deletes() != 0 {
		t.Fatal("revoked after a no")
	}
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "y\n"}, "api-keys", "revoke", testKeyID)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Revoked API key "+testKeyID+".")
	if deletes() != 1 {
		t.Fatal("not revoked after a yes")
	}
}

func TestAPIKeysUpdateKeepsDescription(t *testing.T) {
	cmdtest.Isolate(t)
	h := newKeyAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "api-keys", "update", testKeyID, "--status", "suspended")
	cmdtest.WantCode(t, r, 0)
	if got := h.Last(t).Body; got != `{"id":"`+testKeyID+`","description":"ci","apiKeyStatus":0}` {
		t.Errorf("PUT body %s", got)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Status: suspended", "Description: ci")
	r = runArgs(t, "api-keys", "update", testKeyID, "--description", "")
	cmdtest.WantCode(t, r, 0)
	if got := h.Last(t).Body; got != `{"id":"`+testKeyID+`","description":null,"apiKeyStatus":null}` {
		t.Errorf("PUT body %s", got)
	}
	cmdtest.WantCode(t, runArgs(t, "api-keys", "update", testKeyID, "--status", "paused"), 2)
	cmdtest.WantCode(t, runArgs(t, "api-keys", "update", testKeyID), 2)
}

func TestCreditsTransferSends(t *testing.T) {
	cmdtest.Isolate(t)
	h := newKeyAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "credits", "transfer", "--from", "p-1", "--to", "p-2", "--amount", "5", "--type", "validation", "--comments", "marzo", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var sent map[string]any
	for _, q := range h.Requests() {
		if q.Path == "/api/v4/stamps" {
			json.Unmarshal([]byte(q.Body), &sent)
		}
	}
	if sent["fromPersonId"] != "p-1" || sent["toPersonId"] != "p-2" || sent["amount"] != 5.0 || sent["creditType"] != 2.0 || sent["comments"] != "marzo" {
		t.Fatalf("body sent: %v", sent)
	}
	var out transferResult
	if err := json.Unmarshal([]byte(r.Out), &out); err != nil || out.From.Available != 7 || out.To.PersonID != "p-2" || out.CreditType != 2 {
		t.Fatalf("output %v: %s", err, r.Out)
	}
	for _, bad := range [][]string{
		{"--to", "p-2", "--amount", "5"},
		{"--from", "p-1", "--amount", "5"},
		{"--from", "p-1", "--to", "p-2"},
		{"--from", "p-1", "--to", "p-2", "--amount", "2.5"},
		{"--from", "p-1", "--to", "p-2", "--amount", "1", "--type", "gold"},
	} {
		if r := runArgs(t, append([]string{"credits", "transfer"}, bad...)...); r.Code != 2 {
			t.Errorf("%v: exit %d, want a usage error", bad, r.Code)
		}
	}
}
