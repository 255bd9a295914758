package downloads

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

func downloadsAPI(t *testing.T) *cmdtest.FakeAPI {
	var reads atomic.Int32
	sat := "5000"
	req := api.DownloadRequest{ID: "d-1", Consecutive: 1, RequesterTin: "EKU9003173C9", DownloadTypeID: "Emitidos", SatQueryTypeID: "CFDI",
		DownloadRequestTypeID: "Manual", StartDate: "2024-01-01T00:00:00", EndDate: "2024-02-01T00:00:00", DownloadRequestStatusID: "Pending",
		SatRequestStatusID: "0", CreatedAt: "2026-01-02T03:04:05"}
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost:
			var in api.DownloadRequestInput
			json.NewDecoder(r.Body).Decode(&in)
			x := req
			if in.UUID != nil { // a download by UUID: echoed as the server answers it
				x.ID, x.UUID, x.DownloadTypeID, x.SatQueryTypeID, x.StartDate, x.EndDate = "d-3", in.UUID, api.Deref(in.DownloadTypeID), api.Deref(in.SatQueryTypeID), "", ""
			}
			cmdtest.WriteEnvelope(w, 200, x, "", "t")
		case r.URL.Path == "/api/v4/download-requests":
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.DownloadRequest{req}, 1, 10, 1), "", "t")
		case r.URL.Path == "/api/v4/download-requests/d-1":
			x := req
			switch n := reads.Add(1); {
			case n == 2:
				x.DownloadRequestStatusID, x.SatRequestStatusID, x.SatStatusCode = "InProgress", "2", &sat
			case n >= 3:
				x.DownloadRequestStatusID, x.SatRequestStatusID, x.InvoiceCount, x.PackageIDs, x.IsReadyToDownload = "Completed", "3", 2, []string{"P_01"}, true
			}
			cmdtest.WriteEnvelope(w, 200, x, "", "t")
		case r.URL.Path == "/api/v4/download-requests/d-2":
			x := req
			code, msg := "5002", "Se agotó las solicitudes de por vida"
			x.ID, x.DownloadRequestStatusID, x.SatRequestStatusID, x.SatStatusCode, x.SatMessage = "d-2", "Failed", "5", &code, &msg
			cmdtest.WriteEnvelope(w, 200, x, "", "t")
		case r.URL.Path == "/api/v4/download-requests/d-1/package":
			cmdtest.WriteEnvelope(w, 200, []api.FileResponse{{Base64File: base64.StdEncoding.EncodeToString([]byte("PK zip")), FileName: "P_01.zip", FileExtension: "zip"}}, "", "t")
		case r.URL.Path == "/api/v4/download-requests/d-1/xmls":
			x := api.DownloadXML{InvoiceUUID: "11111111-1111-4111-8111-111111111111", Date: "2024-01-05T10:00:00", InvoiceType: "I", Total: 116, Currency: "MXN",
				XMLIssuer: api.DownloadXMLIssuer{Tin: "EKU9003173C9"}, XMLRecipient: api.DownloadXMLPerson{Tin: "AAA010101AAA"},
				Base64Content: base64.StdEncoding.EncodeToString([]byte("<cfdi/>"))}
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.DownloadXML{x}, 1, 50, 1), "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
		}
	})
}

func TestDownloadsCommands(t *testing.T) {
	cmdtest.Isolate(t)
	srv := downloadsAPI(t)
	cmdtest.UseAPI(t, srv.URL)

	r := runArgs(t, "downloads", "request", "--requester", "EKU9003173C9", "--type", "Emitidos", "--query", "CFDI", "--from", "2024-01-01", "--to", "2024-02-01")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "ID", "d-1", "Pending")
	cmdtest.WantContains(t, "stderr", r.Err, "timbra downloads wait d-1")

	r = runArgs(t, "downloads", "request", "--requester", "EKU9003173C9", "--uuid", "96623061-61FE-49DE-B298-C7156476AA8B")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "d-3", "Uuid", "CFDI", "UUID 96623061-61FE-49DE-B298-C7156476AA8B")

	r = runArgs(t, "downloads", "list")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "d-1", "EKU9003173C9", "Emitidos", "CFDI", "Pending")

	r = runArgs(t, "downloads", "wait", "d-1", "--interval", "1ms")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stderr", r.Err, "Pending\n", "InProgress, SAT 2: 5000", "Completed, SAT 3, 2 found in 1 packages")
	cmdtest.WantContains(t, "stdout", r.Out, "Completed", "Found:")

	dir := t.TempDir()
	r = runArgs(t, "downloads", "package", "d-1", "--dir", dir)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stderr", r.Err, "[1/1] ", "(6 bytes)")
	if b, err := os.ReadFile(filepath.Join(dir, "P_01.zip")); err != nil || string(b) != "PK zip" {
		t.Fatalf("package file: %q %v", b, err)
	}

	r = runArgs(t, "downloads", "xmls", "d-1", "--save", dir)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "11111111-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "116 MXN")
	if b, err := os.ReadFile(filepath.Join(dir, "11111111-1111-4111-8111-111111111111.xml")); err != nil || string(b) != "<cfdi/>" {
		t.Fatalf("saved CFDI: %q %v", b, err)
	}

	r = runArgs(t, "downloads", "wait", "d-2", "--interval", "1ms", "-o", "json")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stdout", r.Out, `"downloadRequestStatusId": "Failed"`)
	cmdtest.WantContains(t, "stderr", r.Err, "request d-2 failed: SAT 5002 Se agotó las solicitudes de por vida")

	r = runArgs(t, "downloads", "get", "nope")
	cmdtest.WantCode(t, r, 1)
}
