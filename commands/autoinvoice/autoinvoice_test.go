package autoinvoice

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

func TestAutoInvoiceCommands(t *testing.T) {
	cmdtest.Isolate(t)
	url, name, at, next, taken := "https://example.com/aviso", "mi-tienda", "2026-03-01T18:00:00.000", "2026-03-31T18:00:00.000", "taken"
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v4/auto-invoice/settings":
			cmdtest.WriteEnvelope(w, 200, api.AutoInvoiceSettings{AllowBillingOutsideMonth: true, PrivacyNoticeURL: &url}, "", "t")
		case r.URL.Path == "/api/v4/auto-invoice/portal-names/availability":
			cmdtest.WriteEnvelope(w, 200, api.PortalNameAvailability{Name: r.URL.Query().Get("name"), Reason: &taken}, "", "t")
		case r.Method == http.MethodPut && r.URL.Path == "/api/v4/auto-invoice/portal-name":
			cmdtest.WriteEnvelope(w, 409, nil, "Ese nombre ya está en uso. Elige otro.", "t")
		default:
			cmdtest.WriteEnvelope(w, 200, api.PortalName{Name: &name, AssignedAt: &at, NextChangeAllowedAt: &next}, "", "t")
		}
	})
	cmdtest.UseAPI(t, srv.URL)

	r := runArgs(t, "auto-invoice", "settings", "get")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Billing outside the month: true", "Privacy notice URL: https://example.com/aviso")

	r = runArgs(t, "auto-invoice", "settings", "set", "--outside-month", "--privacy-notice-url", url)
	cmdtest.WantCode(t, r, 0)
	want := `{"allowBillingOutsideMonth":true,"allowBillingOutsideYear":false,"privacyNoticeUrl":"https://example.com/aviso"}`
	if last := srv.Last(t); last.Method != "PUT" || last.Body != want {
		t.Fatalf("settings request = %s %s", last.Method, last.Body)
	}
	r = runArgs(t, "auto-invoice", "settings", "set")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Body != `{"allowBillingOutsideMonth":false,"allowBillingOutsideYear":false,"privacyNoticeUrl":null}` {
		t.Fatalf("defaults request = %s", last.Body)
	}

	r = runArgs(t, "auto-invoice", "portal-name", "get")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Name: mi-tienda", "Next change allowed: 2026-03-31T18:00:00.000")

	r = runArgs(t, "auto-invoice", "portal-name", "check", "otra")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Name: otra", "Available: false", "Reason: taken")

	r = runArgs(t, "auto-invoice", "portal-name", "set", "otra")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "Ese nombre ya está en uso. Elige otro.")
	if last := srv.Last(t); last.Body != `{"name":"otra"}` {
		t.Fatalf("name request = %s", last.Body)
	}
	cmdtest.WantCode(t, runArgs(t, "auto-invoice", "portal-name", "set"), 2)
}
