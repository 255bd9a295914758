package downloadrules

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

func downloadRulesAPI(t *testing.T) *cmdtest.FakeAPI {
	rule := api.DownloadRule{ID: "r-1", PersonID: "p-1", Tin: "ANA010101AAA", Description: "Emitidos", DownloadRuleStatusID: "1",
		SatQueryTypeID: "CFDI", DownloadTypeID: "Emitidos", SatInvoiceStatusID: "Vigente", IsTest: true, CreatedAt: "2026-01-02T03:04:05"}
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/api/v4/download-rules":
			x := rule
			x.DownloadRuleStatus = &api.CatalogRecord{ID: "1", Description: "Pendiente"}
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.DownloadRule{x}, 1, 10, 1), "", "t")
		case r.Method == http.MethodDelete:
			cmdtest.WriteEnvelope(w, 200, true, "", "t")
		case r.URL.Path == "/api/v4/download-rules/nope":
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: nope", "t")
		default:
			cmdtest.WriteEnvelope(w, 200, rule, "", "t")
		}
	})
}

func TestDownloadRulesCommands(t *testing.T) {
	cmdtest.Isolate(t)
	srv := downloadRulesAPI(t)
	cmdtest.UseAPI(t, srv.URL)

	r := runArgs(t, "download-rules", "list")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "r-1", "ANA010101AAA", "CFDI", "Emitidos", "Vigente", "1 Pendiente")

	r = runArgs(t, "download-rules", "create", "--person", "p-1", "--description", "Emitidos", "--query", "Metadata", "--type", "Emitidos", "--status", "Cancelado")
	cmdtest.WantCode(t, r, 0)
	last := srv.Last(t)
	want := `{"personId":"p-1","description":"Emitidos","satQueryTypeId":"Metadata","downloadTypeId":"Emitidos","satInvoiceStatusId":"Cancelado"}`
	if last.Method != "POST" || last.Path != "/api/v4/download-rules" || last.Body != want {
		t.Fatalf("create request = %s %s %s", last.Method, last.Path, last.Body)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "ID: r-1", "RFC: ANA010101AAA")
	cmdtest.WantCode(t, runArgs(t, "download-rules", "create", "--person", "p-1"), 2)

	r = runArgs(t, "download-rules", "update", "r-1", "--description", "Nuevo")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "PUT" || last.Path != "/api/v4/download-rules/r-1" || last.Body != `{"id":"r-1","description":"Nuevo"}` {
		t.Fatalf("update request = %s %s %s", last.Method, last.Path, last.Body)
	}

	r = runArgs(t, "download-rules", "get", "nope")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "No such resource for the given Id: nope")

	cmdtest.WantCode(t, runArgs(t, "download-rules", "delete", "r-1"), 2) // no terminal, no --yes
	r = runArgs(t, "download-rules", "delete", "r-1", "--yes")
	cmdtest.WantCode(t, r, 0)
	if last := srv.Last(t); last.Method != "DELETE" || last.Path != "/api/v4/download-rules/r-1" {
		t.Fatalf("delete request = %s %s", last.Method, last.Path)
	}
}

// TestDownloadRulePaused: an approved rule the server paused shows ", paused" in the list and
// why, since when, in get.
func TestDownloadRulePaused(t *testing.T) {
	cmdtest.Isolate(t)
	reason, since := "La persona 'p-1' no tiene una e.firma vigente: la regla no crea solicitudes.", "2026-03-10T12:00:00"
	rule := api.DownloadRule{ID: "r-1", PersonID: "p-1", Tin: "ANA010101AAA", DownloadRuleStatusID: "2", SatQueryTypeID: "CFDI",
		DownloadTypeID: "Emitidos", SatInvoiceStatusID: "Vigente", CreatedAt: "2026-01-02T03:04:05",
		DownloadRuleStatus: &api.CatalogRecord{ID: "2", Description: "Aprobada"}, PausedReason: &reason, PausedSince: &since}
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v4/download-rules" {
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.DownloadRule{rule}, 1, 10, 1), "", "t")
			return
		}
		cmdtest.WriteEnvelope(w, 200, rule, "", "t")
	})
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "download-rules", "list")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "2 Aprobada, paused")
	r = runArgs(t, "download-rules", "get", "r-1")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Status: 2 Aprobada, paused", "Paused: "+reason+" (since 2026-03-10")
}
