package invoices

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

func TestInvoicesReadCommands(t *testing.T) {
	cmdtest.Isolate(t)
	xml := `<?xml version="1.0"?><cfdi:Comprobante/>`
	fake := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		inv := map[string]any{"id": "inv-1", "uuid": "AAAA-1", "typeCode": "I", "series": "F", "date": "2026-11-20T10:00:00", "total": 116,
			"currencyCode": "MXN", "status": "Vigente", "issuer": map[string]any{"tin": "EKU9003173C9"}, "recipient": map[string]any{"tin": "XAXX010101000"}}
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v4/invoices":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"items": []any{inv}, "pageNumber": 1, "pageSize": 10, "totalPages": 1, "totalCount": 1}, "", "t")
		case "GET /api/v4/invoices/inv-1":
			cmdtest.WriteEnvelope(w, 200, inv, "", "t")
		case "GET /api/v4/invoices/inv-1/xml":
			b := base64.StdEncoding.EncodeToString([]byte(xml))
			cmdtest.WriteEnvelope(w, 200, map[string]any{"base64File": b, "fileName": "AAAA-1.xml", "fileExtension": "xml"}, "", "t")
		case "DELETE /api/v4/invoices":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"base64CancellationAcknowledgement": "PEFjdXNlLz4=", "invoiceUuids": map[string]string{"AAAA-1": "201"}, "status": "Cancelado"}, "", "t")
		case "POST /api/v4/invoices/status":
			cmdtest.WriteEnvelope(w, 200, map[string]any{"statusCode": "S", "status": "Cancelado", "cancelableStatus": "Cancelable sin aceptación", "cancellationStatus": "Cancelado sin aceptación"}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource", "t")
		}
	})
	cmdtest.UseAPI(t, fake.URL)

	r := runArgs(t, "invoices", "list", "--from", "2026-11-01", "--recipient", "XAXX010101000", "--type", "I", "--page-size", "5")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "inv-1", "AAAA-1", "116 MXN", "Vigente")
	if q := fake.Last(t).Query; !strings.Contains(q, "from=2026-11-01") || !strings.Contains(q, "recipientTin=XAXX010101000") || !strings.Contains(q, "typeCode=I") || !strings.Contains(q, "pageSize=5") {
		t.Fatalf("query: %s", q)
	}

	r = runArgs(t, "invoices", "get", "inv-1")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "UUID", "AAAA-1", "Status", "Vigente")

	out := filepath.Join(t.TempDir(), "f.xml")
	r = runArgs(t, "invoices", "xml", "inv-1", "--out", out)
	cmdtest.WantCode(t, r, 0)
	if got, _ := os.ReadFile(out); string(got) != xml {
		t.Fatalf("xml file: %q", got)
	}
	r = runArgs(t, "invoices", "xml", "inv-1", "--out", "-")
	cmdtest.WantCode(t, r, 0)
	if r.Out != xml {
		t.Fatalf("xml to stdout: %q", r.Out)
	}

	// cancel: refuses off a terminal without --yes, asks on one
	r = runArgs(t, "invoices", "cancel", "inv-1", "--reason", "02")
	if r.Code == 0 || !strings.Contains(r.Err, "--yes") {
		t.Fatalf("cancel without --yes: %d %s", r.Code, r.Err)
	}
	n := len(fake.Requests())
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "n\n"}, "invoices", "cancel", "inv-1", "--reason", "02")
	if r.Code == 0 || len(fake.Requests()) != n {
		t.Fatalf("a no was sent: %d %s", r.Code, r.Err)
	}
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "y\n"}, "invoices", "cancel", "inv-1", "--reason", "01", "--replacement", "BBBB-2")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stderr", r.Err, "Cancel invoice inv-1 with reason 01?")
	cmdtest.WantContains(t, "stdout", r.Out, "Cancelado", "AAAA-1 (201)")
	var body map[string]any
	json.Unmarshal([]byte(fake.Last(t).Body), &body)
	if fake.Last(t).Method != "DELETE" || body["id"] != "inv-1" || body["cancellationReasonCode"] != "01" || body["replacementUuid"] != "BBBB-2" {
		t.Fatalf("cancel body: %s", fake.Last(t).Body)
	}
	cf := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(cf, []byte(`{"invoiceUuid":"AAAA-1","tin":"EKU9003173C9","cancellationReasonCode":"02","taxCredentials":[{"base64File":"x","fileType":1,"password":"s3cret"}]}`), 0o600)
	r = runArgs(t, "invoices", "cancel", "--file", cf, "--yes")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantNotContains(t, "output", r.Out+r.Err, "s3cret")
	if b := fake.Last(t).Body; !strings.Contains(b, `"invoiceUuid":"AAAA-1"`) || !strings.Contains(b, `"password":"s3cret"`) {
		t.Fatalf("cancel by file: %s", b)
	}
	r = runArgs(t, "invoices", "cancel", "inv-1", "--yes")
	if r.Code == 0 || !strings.Contains(r.Err, "--reason") {
		t.Fatalf("no reason: %d %s", r.Code, r.Err)
	}

	r = runArgs(t, "invoices", "status", "inv-1")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Cancelado", "Cancelable sin aceptación")
	if b := fake.Last(t).Body; !strings.Contains(b, `"id":"inv-1"`) {
		t.Fatalf("status body: %s", b)
	}
}

// TestInvoicesFileName: without --out the file is saved under the server's fileName, its
// extension added only when missing, and a name that is a path is refused, nothing written.
func TestInvoicesFileName(t *testing.T) {
	cmdtest.Isolate(t)
	xml := `<cfdi:Comprobante/>`
	pdf := "%PDF-1.7\n"
	var name, ext string
	fake := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		content := xml
		if r.URL.Path == "/api/v4/invoices/pdf" {
			content = pdf
		}
		b := base64.StdEncoding.EncodeToString([]byte(content))
		cmdtest.WriteEnvelope(w, 200, map[string]any{"base64File": b, "base64Content": b, "fileName": name, "fileExtension": ext}, "", "t")
	})
	cmdtest.UseAPI(t, fake.URL)
	parent := t.TempDir()
	dir := filepath.Join(parent, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)

	for _, c := range []struct{ cmd, name, ext, want, content string }{
		{"xml", "AAAA-1.xml", "xml", "AAAA-1.xml", xml},
		{"xml", "AAAA-2", "xml", "AAAA-2.xml", xml},
		{"pdf", "AAAA-3.pdf", "pdf", "AAAA-3.pdf", pdf},
		{"pdf", "AAAA-4", "pdf", "AAAA-4.pdf", pdf},
	} {
		name, ext = c.name, c.ext
		r := runArgs(t, "invoices", c.cmd, "inv-1")
		cmdtest.WantCode(t, r, 0)
		if got, err := os.ReadFile(filepath.Join(dir, c.want)); err != nil || string(got) != c.content {
			t.Fatalf("%s %q: %q %v", c.cmd, c.name, got, err)
		}
	}
	for _, cmd := range []string{"xml", "pdf"} {
		name, ext = "../escaped.xml", "xml"
		r := runArgs(t, "invoices", cmd, "inv-1")
		if r.Code == 0 || !strings.Contains(r.Err, "not a plain file name; give --out") {
			t.Fatalf("%s: a path as fileName: %d %s", cmd, r.Code, r.Err)
		}
		if _, err := os.Stat(filepath.Join(parent, "escaped.xml")); err == nil {
			t.Fatalf("%s wrote outside the working folder", cmd)
		}
	}
}
