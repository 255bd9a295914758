package invoices

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

func TestInvoicesSend(t *testing.T) {
	cmdtest.Isolate(t)
	fake := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		var in map[string]any
		json.NewDecoder(r.Body).Decode(&in)
		if in["invoiceId"] == "none" {
			cmdtest.WriteEnvelope(w, 503, nil, "El servidor no tiene configurado el envío de correo: inícialo con --smtp-url", "tr-1")
			return
		}
		cmdtest.WriteEnvelope(w, 200, true, "", "t")
	})
	cmdtest.UseAPI(t, fake.URL)
	logo := filepath.Join(t.TempDir(), "logo.png")
	os.WriteFile(logo, []byte("\x89PNG-bytes"), 0o644)

	r := runArgs(t, "invoices", "send", "inv-1", "--to", "cliente@example.com", "--band-color", "#1F4E79", "--font-color", "#FFF", "--logo", logo)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Sent: inv-1", "To: cliente@example.com")
	last := fake.Last(t)
	var body map[string]string
	if err := json.Unmarshal([]byte(last.Body), &body); err != nil {
		t.Fatal(err)
	}
	if last.Method != "POST" || last.Path != "/api/v4/invoices/send" || body["invoiceId"] != "inv-1" || body["toEmail"] != "cliente@example.com" ||
		body["bandColor"] != "#1F4E79" || body["fontColor"] != "#FFF" || body["base64Logo"] != base64.StdEncoding.EncodeToString([]byte("\x89PNG-bytes")) {
		t.Fatalf("request: %s %s %s", last.Method, last.Path, last.Body)
	}

	// without --to the server picks the stored recipient; toEmail is not sent
	r = runArgs(t, "invoices", "send", "inv-2")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "To: the invoice's recipient")
	if b := fake.Last(t).Body; b != `{"invoiceId":"inv-2"}` {
		t.Fatalf("body: %s", b)
	}

	// the server's 503 reaches the user
	r = runArgs(t, "invoices", "send", "none", "--to", "a@b.mx")
	if r.Code == 0 {
		t.Fatalf("a 503 exited 0: %s", r.Out)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "--smtp-url")

	r = runArgs(t, "invoices", "send")
	if r.Code == 0 {
		t.Fatal("no ID accepted")
	}
}
