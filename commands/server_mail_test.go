package commands

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/mail"
)

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
