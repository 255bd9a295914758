package mail_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"testing"

	timbramail "github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
)

func TestSendThroughSink(t *testing.T) {
	sink := mailtest.Start(t)
	s, err := timbramail.ParseURL("smtp://facturas@" + sink.Addr)
	if err != nil {
		t.Fatal(err)
	}
	s.Password = "s3cret"
	attach := bytes.Repeat([]byte("<x>ñ</x>\n"), 40) // longer than one base64 line
	msg, err := timbramail.Message{From: "facturas@example.com", To: []string{"cliente@example.com"},
		Subject: "Factura F-1 · ESCUELA", Text: "Hola.\n.una línea con punto\nAdiós.",
		Attachments: []timbramail.Attachment{{Name: "A.xml", ContentType: "application/xml", Content: attach}}}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), "facturas@example.com", []string{"cliente@example.com"}, msg); err != nil {
		t.Fatal(err)
	}
	got := sink.Messages()
	if len(got) != 1 || got[0].From != "facturas@example.com" || len(got[0].To) != 1 || got[0].To[0] != "cliente@example.com" ||
		got[0].Auth != "facturas\x00s3cret" {
		t.Fatalf("envelope: %+v", got)
	}
	m, err := mail.ReadMessage(bytes.NewReader(got[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	subj, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
	if subj != "Factura F-1 · ESCUELA" || m.Header.Get("To") != "cliente@example.com" || m.Header.Get("Message-Id") == "" {
		t.Fatalf("headers: %v (subject %q)", m.Header, subj)
	}
	_, params, _ := mime.ParseMediaType(m.Header.Get("Content-Type"))
	mr := multipart.NewReader(m.Body, params["boundary"])
	text, _ := mr.NextPart() // quoted-printable is decoded by the reader
	body, _ := io.ReadAll(text)
	if string(body) != "Hola.\r\n.una línea con punto\r\nAdiós." {
		t.Fatalf("text: %q", body)
	}
	att, err := mr.NextPart()
	if err != nil || att.FileName() != "A.xml" {
		t.Fatalf("attachment: %v %v", att, err)
	}
	raw, _ := io.ReadAll(att)
	dec, err := io.ReadAll(base64Decoder(raw))
	if err != nil || !bytes.Equal(dec, attach) {
		t.Fatalf("attachment content differs: %v", err)
	}
}

func TestParseURL(t *testing.T) {
	for raw, want := range map[string]string{
		"smtp://a@mail.example.com":   "mail.example.com:587 a false",
		"smtps://mail.example.com":    "mail.example.com:465  true",
		"smtp://u%40x@127.0.0.1:2525": "127.0.0.1:2525 u@x false",
	} {
		s, err := timbramail.ParseURL(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := s.Host + ":" + s.Port + " " + s.Username + " " + map[bool]string{true: "true", false: "false"}[s.ImplicitTLS]; got != want {
			t.Fatalf("%s: %s", raw, got)
		}
	}
	for _, raw := range []string{"smtp://u:pw@h", "http://h", "smtp://", "smtp://h/x"} {
		_, err := timbramail.ParseURL(raw)
		if err == nil {
			t.Fatalf("%s accepted", raw)
		}
		if strings.Contains(err.Error(), "pw") {
			t.Fatalf("password echoed: %v", err)
		}
	}
}

func TestValidAddress(t *testing.T) {
	for s, ok := range map[string]bool{"a@b.mx": true, "a.b+c@x.example.com": true, "": false, "a": false, "a@": false,
		"Ana <a@b.mx>": false, "a@b.mx\r\nBcc: x@y.z": false, "a@b.mx, c@d.mx": false, "@b.mx": false} {
		if timbramail.ValidAddress(s) != ok {
			t.Errorf("%q: want %v", s, ok)
		}
	}
}

func base64Decoder(raw []byte) io.Reader {
	return base64.NewDecoder(base64.StdEncoding, bytes.NewReader(bytes.ReplaceAll(raw, []byte("\r\n"), nil)))
}
