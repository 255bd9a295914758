package commands

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

const testKeyID = "0195a7c4-1111-7c3d-9f00-1a2b3c4d5e6f"

// newKeyAPI fakes the API key and stamps endpoints of one key and two people.
func newKeyAPI(t *testing.T) *fakeAPI {
	key := map[string]any{
		"id": testKeyID, "environment": "test", "apiKeyValue": "sk_test_abcdefghijklmnopqrstuvwxyz012345",
		"personId": "p-1", "tenantId": "tenant-1", "apiKeyStatus": 1, "description": "ci",
		"createdAt": "2025-03-10T11:00:00.000", "updatedAt": "2025-03-10T11:00:00.000",
	}
	return newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v4/apikeys/"+testKeyID && r.Method == "GET":
			writeEnvelope(w, 200, key, "", "")
		case r.URL.Path == "/api/v4/apikeys/"+testKeyID && r.Method == "PUT":
			var in map[string]any
			json.NewDecoder(r.Body).Decode(&in)
			out := map[string]any{}
			for k, v := range key {
				out[k] = v
			}
			out["description"], out["apiKeyStatus"] = in["description"], in["apiKeyStatus"]
			writeEnvelope(w, 200, out, "", "")
		case r.URL.Path == "/api/v4/apikeys/"+testKeyID && r.Method == "DELETE":
			writeEnvelope(w, 200, true, "", "")
		case r.URL.Path == "/api/v4/stamps":
			writeEnvelope(w, 200, true, "", "")
		case strings.HasPrefix(r.URL.Path, "/api/v4/people/"):
			id := strings.TrimPrefix(r.URL.Path, "/api/v4/people/")
			writeEnvelope(w, 200, map[string]any{"id": id, "email": id + "@example.com",
				"balances": []map[string]any{{"creditType": 1, "available": 40}, {"creditType": 2, "available": 7}}}, "", "")
		default:
			writeEnvelope(w, 404, nil, "Not Found", "")
		}
	})
}

func TestAPIKeysRevokeAsks(t *testing.T) {
	isolate(t)
	h := newKeyAPI(t)
	useAPI(t, h.URL)
	deletes := func() int {
		n := 0
		for _, r := range h.requests() {
			if r.Method == "DELETE" {
				n++
			}
		}
		return n
	}
	r := runArgs(t, "api-keys", "revoke", testKeyID)
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.err, "pass --yes")
	r = run1(t, runOpts{inTTY: true, stdin: "n\n"}, "api-keys", "revoke", testKeyID)
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "Revoke API key "+testKeyID+" (sk_test_…2345, ci) of person p-1?", "not revoked")
	wantNotContains(t, "stderr", r.err, "sk_test_abcdefghijklmnopqrstuvwxyz012345")
	if deletes() != 0 {
		t.Fatal("revoked after a no")
	}
	r = run1(t, runOpts{inTTY: true, stdin: "y\n"}, "api-keys", "revoke", testKeyID)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Revoked API key "+testKeyID+".")
	if deletes() != 1 {
		t.Fatal("not revoked after a yes")
	}
}

func TestAPIKeysUpdateKeepsDescription(t *testing.T) {
	isolate(t)
	h := newKeyAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "api-keys", "update", testKeyID, "--status", "suspended")
	wantCode(t, r, 0)
	if got := h.last(t).Body; got != `{"id":"`+testKeyID+`","description":"ci","apiKeyStatus":0}` {
		t.Errorf("PUT body %s", got)
	}
	wantContains(t, "stdout", r.out, "Status: suspended", "Description: ci")
	r = runArgs(t, "api-keys", "update", testKeyID, "--description", "")
	wantCode(t, r, 0)
	if got := h.last(t).Body; got != `{"id":"`+testKeyID+`","description":null,"apiKeyStatus":null}` {
		t.Errorf("PUT body %s", got)
	}
	wantCode(t, runArgs(t, "api-keys", "update", testKeyID, "--status", "paused"), 2)
	wantCode(t, runArgs(t, "api-keys", "update", testKeyID), 2)
}

func TestCreditsTransferSends(t *testing.T) {
	isolate(t)
	h := newKeyAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "credits", "transfer", "--from", "p-1", "--to", "p-2", "--amount", "5", "--type", "validation", "--comments", "marzo", "-o", "json")
	wantCode(t, r, 0)
	var sent map[string]any
	for _, q := range h.requests() {
		if q.Path == "/api/v4/stamps" {
			json.Unmarshal([]byte(q.Body), &sent)
		}
	}
	if sent["fromPersonId"] != "p-1" || sent["toPersonId"] != "p-2" || sent["amount"] != 5.0 || sent["creditType"] != 2.0 || sent["comments"] != "marzo" {
		t.Fatalf("body sent: %v", sent)
	}
	var out transferResult
	if err := json.Unmarshal([]byte(r.out), &out); err != nil || out.From.Available != 7 || out.To.PersonID != "p-2" || out.CreditType != 2 {
		t.Fatalf("output %v: %s", err, r.out)
	}
	for _, bad := range [][]string{
		{"--to", "p-2", "--amount", "5"},
		{"--from", "p-1", "--amount", "5"},
		{"--from", "p-1", "--to", "p-2"},
		{"--from", "p-1", "--to", "p-2", "--amount", "2.5"},
		{"--from", "p-1", "--to", "p-2", "--amount", "1", "--type", "gold"},
	} {
		if r := runArgs(t, append([]string{"credits", "transfer"}, bad...)...); r.code != 2 {
			t.Errorf("%v: exit %d, want a usage error", bad, r.code)
		}
	}
}
