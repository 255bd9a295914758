package admin

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// subscriptionsAPI answers the operator's subscription and download-rule status calls.
func subscriptionsAPI(t *testing.T) *cmdtest.FakeAPI {
	rule := api.DownloadRule{ID: "r-1", PersonID: "p-1", Tin: "ANA010101AAA", Description: "Emitidos", DownloadRuleStatusID: "1",
		SatQueryTypeID: "CFDI", DownloadTypeID: "Emitidos", SatInvoiceStatusID: "Vigente", IsTest: true, CreatedAt: "2026-01-02T03:04:05"}
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/admin/v1/tenants/tk-1/subscription":
			cmdtest.WriteEnvelope(w, 200, api.Subscription{TenantKey: "tk-1", AutoCfdi: true, DownloadSeats: 3, UpdatedAt: "2026-01-02T03:04:05"}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 200, rule, "", "t")
		}
	})
}

func TestAdminSubscriptionsCommands(t *testing.T) {
	cmdtest.Isolate(t)
	srv := subscriptionsAPI(t)
	t.Setenv("TIMBRA_ADMIN_TOKEN", testAdminToken)
	t.Setenv("TIMBRA_BASE_URL", srv.URL)

	r := runArgs(t, "admin", "subscriptions", "set", "tk-1", "--download-seats", "3")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "PUT" || last.Body != `{"autoCfdi":null,"downloadSeats":3}` || last.Header.Get("Authorization") != "Bearer "+testAdminToken {
		t.Fatalf("set request = %s %s", last.Method, last.Body)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Auto CFDI: true", "Download seats: 3")
	r = runArgs(t, "admin", "subscriptions", "set", "tk-1", "--auto-cfdi=false")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Body != `{"autoCfdi":false,"downloadSeats":null}` {
		t.Fatalf("set request = %s", last.Body)
	}
	cmdtest.WantCode(t, runArgs(t, "admin", "subscriptions", "set", "tk-1"), 2)
	r = runArgs(t, "admin", "subscriptions", "get", "tk-1", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, `"downloadSeats": 3`)

	r = runArgs(t, "admin", "download-rules", "approve", "tk-1", "r-1")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "PUT" || last.Path != "/admin/v1/tenants/tk-1/download-rules/r-1/status" || last.Body != `{"downloadRuleStatusId":"2"}` {
		t.Fatalf("approve request = %s %s %s", last.Method, last.Path, last.Body)
	}
}
