package commands

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/mail"
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

func TestServerMailFlags(t *testing.T) {
	cmdtest.Unsetenv(t, "TIMBRA_SMTP_PASSWORD")
	m := mailFlags{}
	if tr, from, err := m.transport(); tr != nil || from != "" || err != nil {
		t.Fatalf("no URL: %v %q %v", tr, from, err)
	}
	m = mailFlags{url: "smtp://facturas@example.com@mail.example.com:2525"}
	if _, _, err := m.transport(); err == nil {
		t.Fatal("a user without a password was accepted")
	}
	t.Setenv("TIMBRA_SMTP_PASSWORD", "from-env")
	m = mailFlags{url: "smtp://facturas%40example.com@mail.example.com:2525"}
	tr, from, err := m.transport()
	if err != nil {
		t.Fatal(err)
	}
	s := tr.(*mail.SMTP)
	if from != "facturas@example.com" || s.Host != "mail.example.com" || s.Port != "2525" || s.Password != "from-env" {
		t.Fatalf("transport: %+v from %q", s, from)
	}
	pw := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(pw, []byte("from-file\n"), 0o600)
	m = mailFlags{url: "smtp://user@mail.example.com", from: "facturas@example.com", passwordFile: pw}
	tr, from, err = m.transport()
	if err != nil || tr.(*mail.SMTP).Password != "from-file" || from != "facturas@example.com" || tr.(*mail.SMTP).Port != "587" {
		t.Fatalf("password file: %+v %q %v", tr, from, err)
	}
	m = mailFlags{url: "smtp://mail.example.com"} // no user, no sender address
	if _, _, err := m.transport(); err == nil {
		t.Fatal("no --smtp-from accepted")
	}
	m = mailFlags{url: "smtp://u:secret@mail.example.com", from: "a@b.mx"}
	if _, _, err := m.transport(); err == nil {
		t.Fatal("a password in the URL was accepted")
	}
}
