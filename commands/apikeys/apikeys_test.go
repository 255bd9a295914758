package apikeys

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

const testKeyID = "0195a7c4-1111-7c3d-9f00-1a2b3c4d5e6f"

// newKeyAPI fakes the API key endpoints of one key.
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
