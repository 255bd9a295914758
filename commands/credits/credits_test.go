package credits

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// newCreditsAPI fakes the stamps endpoint and two people with balances of stamps and validations.
func newCreditsAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v4/stamps" && r.Method == http.MethodGet:
			from, to, ref := int64(993), int64(7), "inv-1"
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.StampTransaction{
				{ID: "t-1", Consecutive: 4, TransactionType: 2, CreditType: 1, Amount: 7, FromPerson: &api.UserLookup{ID: "p-1", Tin: "AAA010101AAA"},
					FromBalance: &from, ToPerson: &api.UserLookup{ID: "p-2"}, ToBalance: &to, CreatedAt: "2025-03-10T11:00:00"},
				{ID: "t-2", Consecutive: 5, TransactionType: 3, CreditType: 1, Amount: 1, FromPerson: &api.UserLookup{ID: "p-2"}, ReferenceID: &ref,
					CreatedAt: "2025-03-10T11:30:00"},
			}, 1, 10, 2), "", "")
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

func TestCreditsTransferSends(t *testing.T) {
	cmdtest.Isolate(t)
	h := newCreditsAPI(t)
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

func TestCreditsHistory(t *testing.T) {
	cmdtest.Isolate(t)
	h := newCreditsAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "credits", "history")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "transfer", "p-1 AAA010101AAA (993)", "p-2 (7)", "used", "inv-1")
}
