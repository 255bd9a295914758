package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
	"github.com/timbra-mx/timbra/storage"
)

// sendFixture is an invoice fixture whose server sends mail through tr (nil: no transport).
func sendFixture(t *testing.T, tr mail.Transport) (*fixture, member) {
	t.Helper()
	f := newFixture(t, func(c *Config) { c.Mail, c.MailFrom = tr, "facturas@timbra.example" })
	withMiniCatalogs(t, f)
	m := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "stamper@example.com", storage.Balance{CreditType: 1, Available: 5})
	return f, m
}

func TestInvoiceSendBySMTP(t *testing.T) {
	sink := mailtest.Start(t)
	f, m := sendFixture(t, &mail.SMTP{Host: sink.Host(), Port: sink.Port()})
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	stored, _ := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)

	// the body exactly as the official client's invoices.send(SendInvoiceRequest) posts it
	body := `{"invoiceId":"` + inv.ID + `","toEmail":"cliente@example.com","bandColor":"#FF0000","fontColor":"#FFFFFF","base64Logo":""}`
	r := f.do("POST", "/api/v4/invoices/send", body, m.headers()...)
	if r.status != 200 || !r.env.Succeeded || string(r.env.Data) != "true" {
		t.Fatalf("send: %d %s", r.status, r.raw)
	}
	msgs := sink.Messages()
	if len(msgs) != 1 || msgs[0].From != "facturas@timbra.example" || len(msgs[0].To) != 1 || msgs[0].To[0] != "cliente@example.com" {
		t.Fatalf("envelope: %+v", msgs)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(msgs[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	if msg.Header.Get("From") != "facturas@timbra.example" || msg.Header.Get("To") != "cliente@example.com" ||
		subject != "Factura F de ESCUELA KEMPER URGATE" || msg.Header.Get("Mime-Version") != "1.0" {
		t.Fatalf("headers: %v subject %q", msg.Header, subject)
	}
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	text, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := io.ReadAll(text)
	for _, want := range []string{"Folio fiscal (UUID): " + inv.UUID, "Emisor: ESCUELA KEMPER URGATE (RFC EKU9003173C9)",
		"Total: 288.18 MXN", "Se adjuntan el XML y su representación impresa en PDF."} {
		if !strings.Contains(string(tb), want) {
			t.Fatalf("text lacks %q:\n%s", want, tb)
		}
	}
	att, err := mr.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	if att.FileName() != inv.UUID+".xml" || att.Header.Get("Content-Transfer-Encoding") != "base64" {
		t.Fatalf("attachment: %v", att.Header)
	}
	raw, _ := io.ReadAll(att)
	xml, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(raw), "\r\n", ""))
	if err != nil || !bytes.Equal(xml, stored) {
		t.Fatalf("the attached XML differs from the stored one (%v)", err)
	}
	pdfPart, err := mr.NextPart()
	if err != nil || pdfPart.FileName() != inv.UUID+".pdf" || pdfPart.Header.Get("Content-Type") != "application/pdf; name="+inv.UUID+".pdf" {
		t.Fatalf("PDF attachment: %v %v", err, pdfPart)
	}
	raw, _ = io.ReadAll(pdfPart)
	pdf, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(string(raw), "\r\n", ""))
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("%%EOF")) {
		t.Fatalf("the PDF attachment is not a PDF (%v)", err)
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Fatalf("more than the XML and the PDF attached: %v", err)
	}

	// the PDF's looks are checked as POST /api/v4/invoices/pdf checks them; nothing is sent
	r = f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`","toEmail":"cliente@example.com","bandColor":"azul"}`, m.headers()...)
	if r.status != 400 || !strings.Contains(r.raw, `"propertyName":"BandColor"`) || len(sink.Messages()) != 1 {
		t.Fatalf("bad band colour: %d %s", r.status, r.raw)
	}

	// without toEmail: the recipient's e-mail stored with the invoice
	r = f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`"}`, m.headers()...)
	if r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("send to the stored recipient: %d %s", r.status, r.raw)
	}
	if msgs = sink.Messages(); len(msgs) != 2 || msgs[1].To[0] != "someone@example.com" {
		t.Fatalf("second message: %+v", msgs)
	}
}

func TestInvoiceSendFailures(t *testing.T) {
	f, m := sendFixture(t, nil)
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))

	// no transport: 503 naming the server flag, never a silent success
	r := f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`","toEmail":"cliente@example.com"}`, m.headers()...)
	if r.status != 503 || r.env.Succeeded || r.env.Details != invoices.MsgSendNoTransport || !strings.Contains(r.env.Details, "--smtp-url") {
		t.Fatalf("no transport: %d %s", r.status, r.raw)
	}

	type failure struct {
		PropertyName, ErrorMessage, ErrorCode string
		AttemptedValue                        any
	}
	one := func(r result) failure {
		t.Helper()
		var fs []failure
		if r.status != 400 || json.Unmarshal(r.env.Data, &fs) != nil || len(fs) != 1 {
			t.Fatalf("want one failure, got %d %s", r.status, r.raw)
		}
		return fs[0]
	}
	if x := one(f.do("POST", "/api/v4/invoices/send", `{"toEmail":"a@b.mx"}`, m.headers()...)); x.PropertyName != "InvoiceId" ||
		x.ErrorMessage != "'Invoice Id' no debería estar vacío." || x.ErrorCode != invoices.CodeNotEmpty {
		t.Fatalf("no id: %+v", x)
	}
	if x := one(f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`","toEmail":"Ana <a@b.mx>"}`, m.headers()...)); x.PropertyName != "ToEmail" ||
		x.ErrorMessage != "'Ana <a@b.mx>' no es una dirección de correo electrónico válida." || x.ErrorCode != invoices.CodeEmail || x.AttemptedValue != "Ana <a@b.mx>" {
		t.Fatalf("bad email: %+v", x)
	}
	if x := one(f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`","toEmail":"a@b.mx\r\nBcc: x@y.mx"}`, m.headers()...)); x.PropertyName != "ToEmail" {
		t.Fatalf("header injection: %+v", x)
	}
	r = f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77","toEmail":"a@b.mx"}`, m.headers()...)
	if r.status != 404 || !strings.Contains(r.env.Details, "0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77") {
		t.Fatalf("unknown invoice: %d %s", r.status, r.raw)
	}
	// another tenant's invoice is not found either
	other := newFixture(t)
	if r := other.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`","toEmail":"a@b.mx"}`); r.status != 404 {
		t.Fatalf("other tenant: %d %s", r.status, r.raw)
	}
	r = f.do("POST", "/api/v4/invoices/send", `{"invoiceId": 5}`, m.headers()...)
	if r.status != 400 || r.env.Succeeded {
		t.Fatalf("bad JSON: %d %s", r.status, r.raw)
	}
}

func TestInvoiceSendSMTPUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	ln.Close() // nothing listens there now
	f, m := sendFixture(t, &mail.SMTP{Host: "127.0.0.1", Port: port})
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	r := f.do("POST", "/api/v4/invoices/send", `{"invoiceId":"`+inv.ID+`","toEmail":"cliente@example.com"}`, m.headers()...)
	if r.status != 502 || r.env.Succeeded || !strings.HasPrefix(r.env.Details, "El servidor de correo no aceptó el mensaje: ") {
		t.Fatalf("unreachable SMTP: %d %s", r.status, r.raw)
	}
}
