package invoices

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

func TestInvoicesPDF(t *testing.T) {
	cmdtest.Isolate(t)
	pdf := []byte("%PDF-1.3\nfake\n%%EOF\n")
	fake := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		json.NewDecoder(r.Body).Decode(&in)
		if in["bandColor"] == "rojo" {
			cmdtest.WriteEnvelope(w, 400, []map[string]any{{"propertyName": "BandColor", "errorMessage": "El color 'rojo' no es válido: usa un color hexadecimal como #1F4E79 o #FFF."}}, "", "tr-1")
			return
		}
		b64 := base64.StdEncoding.EncodeToString(pdf)
		cmdtest.WriteEnvelope(w, 200, map[string]any{"base64File": b64, "base64Content": b64, "fileName": "ABC.pdf", "fileExtension": "pdf", "contentType": "application/pdf"}, "", "t")
	})
	cmdtest.UseAPI(t, fake.URL)
	dir := t.TempDir()
	logo := filepath.Join(dir, "logo.png")
	os.WriteFile(logo, []byte("\x89PNG-bytes"), 0o644)
	out := filepath.Join(dir, "factura.pdf")

	r := runArgs(t, "invoices", "pdf", "inv-1", "--out", out, "--band-color", "#8B0000", "--font-color", "#FFF", "--logo", logo)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Invoice: inv-1", "File: "+out)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, pdf) {
		t.Fatalf("file: %q", got)
	}
	last := fake.Last(t)
	var body map[string]string
	json.Unmarshal([]byte(last.Body), &body)
	if last.Method != "POST" || last.Path != "/api/v4/invoices/pdf" || body["invoiceId"] != "inv-1" || body["bandColor"] != "#8B0000" ||
		body["fontColor"] != "#FFF" || body["base64Logo"] != base64.StdEncoding.EncodeToString([]byte("\x89PNG-bytes")) {
		t.Fatalf("request: %s %s %s", last.Method, last.Path, last.Body)
	}

	// --out - writes the PDF itself to stdout; nothing else is printed
	r = runArgs(t, "invoices", "pdf", "inv-1", "--out", "-")
	cmdtest.WantCode(t, r, 0)
	if r.Out != string(pdf) {
		t.Fatalf("stdout: %q", r.Out)
	}
	if b := fake.Last(t).Body; b != `{"invoiceId":"inv-1"}` {
		t.Fatalf("body: %s", b)
	}

	// the server's 400 reaches the user
	r = runArgs(t, "invoices", "pdf", "inv-1", "--band-color", "rojo", "--out", out)
	if r.Code == 0 {
		t.Fatalf("a 400 exited 0: %s", r.Out)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "no es válido")

	if r := runArgs(t, "invoices", "pdf"); r.Code == 0 {
		t.Fatal("no ID accepted")
	}
}
