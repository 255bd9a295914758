package commands

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestInvoicesPDF(t *testing.T) {
	isolate(t)
	pdf := []byte("%PDF-1.3\nfake\n%%EOF\n")
	fake := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		json.NewDecoder(r.Body).Decode(&in)
		if in["bandColor"] == "rojo" {
			writeEnvelope(w, 400, []map[string]any{{"propertyName": "BandColor", "errorMessage": "El color 'rojo' no es válido: usa un color hexadecimal como #1F4E79 o #FFF."}}, "", "tr-1")
			return
		}
		b64 := base64.StdEncoding.EncodeToString(pdf)
		writeEnvelope(w, 200, map[string]any{"base64File": b64, "base64Content": b64, "fileName": "ABC.pdf", "fileExtension": "pdf", "contentType": "application/pdf"}, "", "t")
	})
	useAPI(t, fake.URL)
	dir := t.TempDir()
	logo := filepath.Join(dir, "logo.png")
	os.WriteFile(logo, []byte("\x89PNG-bytes"), 0o644)
	out := filepath.Join(dir, "factura.pdf")

	r := runArgs(t, "invoices", "pdf", "inv-1", "--out", out, "--band-color", "#8B0000", "--font-color", "#FFF", "--logo", logo)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Invoice: inv-1", "File: "+out)
	if got, _ := os.ReadFile(out); !bytes.Equal(got, pdf) {
		t.Fatalf("file: %q", got)
	}
	last := fake.last(t)
	var body map[string]string
	json.Unmarshal([]byte(last.Body), &body)
	if last.Method != "POST" || last.Path != "/api/v4/invoices/pdf" || body["invoiceId"] != "inv-1" || body["bandColor"] != "#8B0000" ||
		body["fontColor"] != "#FFF" || body["base64Logo"] != base64.StdEncoding.EncodeToString([]byte("\x89PNG-bytes")) {
		t.Fatalf("request: %s %s %s", last.Method, last.Path, last.Body)
	}

	// --out - writes the PDF itself to stdout; nothing else is printed
	r = runArgs(t, "invoices", "pdf", "inv-1", "--out", "-")
	wantCode(t, r, 0)
	if r.out != string(pdf) {
		t.Fatalf("stdout: %q", r.out)
	}
	if b := fake.last(t).Body; b != `{"invoiceId":"inv-1"}` {
		t.Fatalf("body: %s", b)
	}

	// the server's 400 reaches the user
	r = runArgs(t, "invoices", "pdf", "inv-1", "--band-color", "rojo", "--out", out)
	if r.code == 0 {
		t.Fatalf("a 400 exited 0: %s", r.out)
	}
	wantContains(t, "stderr", r.err, "no es válido")

	if r := runArgs(t, "invoices", "pdf"); r.code == 0 {
		t.Fatal("no ID accepted")
	}
}
