package compat

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// TestFiscalapiSend runs the official client's invoices.send against a server whose SMTP
// transport is a local sink, then checks what the sink received: the two messages, their
// recipients and the XML attachments byte for byte against the stored invoices.
func TestFiscalapiSend(t *testing.T) {
	node := nodeOrSkip(t)
	sink := mailtest.Start(t)
	s, d, hs := newServer(t, server.Config{Mail: &mail.SMTP{Host: sink.Host(), Port: sink.Port()}, MailFrom: "facturas@timbra.example"})
	env := invoicesTenant(t, s, t.TempDir())
	if strings.HasPrefix(env[0], "TIMBRA_INV_SKIP=") {
		t.Skip(env[0])
	}
	tenant := strings.TrimPrefix(env[0], "TIMBRA_INV_TENANT_KEY=")

	cmd := exec.Command(node, "--test", "--test-reporter=spec", "invoices_send.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(append(os.Environ(), "TIMBRA_BASE_URL="+hs.URL, "TIMBRA_SEND_SINK="+sink.Addr), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}

	msgs := sink.Messages()
	if len(msgs) != 2 {
		t.Fatalf("the sink received %d messages, want 2", len(msgs))
	}
	for i, want := range []string{"cliente@example.com", "invoices-recipient@example.com"} {
		m := msgs[i]
		if m.From != "facturas@timbra.example" || len(m.To) != 1 || m.To[0] != want {
			t.Fatalf("message %d envelope: %s → %v", i, m.From, m.To)
		}
		name, xml := xmlAttachment(t, m.Data)
		uuid := strings.TrimSuffix(name, ".xml")
		var rec storage.Invoice
		if err := d.Store.View(context.Background(), func(tx storage.Tx) error {
			var err error
			rec, err = tx.Invoices(tenant).ByUUID(uuid)
			return err
		}); err != nil {
			t.Fatalf("message %d: attachment %s: %v", i, name, err)
		}
		if !bytes.Equal(xml, rec.XML) {
			t.Fatalf("message %d: the attached XML differs from the stored invoice %s", i, uuid)
		}
	}
}

// xmlAttachment is the name and content of the .xml attachment of a message.
func xmlAttachment(t *testing.T, data []byte) (string, []byte) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("no XML attachment: %v", err)
		}
		if strings.HasSuffix(p.FileName(), ".xml") {
			raw, _ := io.ReadAll(p)
			xml, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(raw), "\r\n", ""))
			if err != nil {
				t.Fatal(err)
			}
			return p.FileName(), xml
		}
	}
}
