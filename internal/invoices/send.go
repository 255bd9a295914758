package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/storage"
)

// Sending an invoice by e-mail (POST /api/v4/invoices/send). The spec does not show the endpoint;
// it is built as the official client calls it (SendInvoiceRequest: invoiceId, toEmail, bandColor,
// fontColor, base64Logo; the answer's data is true), and decided here:
//
//   - Checks in this order: invoiceId required (400), the invoice exists in the caller's tenant
//     (404 as the other resources), toEmail (400 on ToEmail), the server has a mail transport
//     (503 naming --smtp-url), then the message is built and handed to the SMTP server (502 with
//     the server's answer when it refuses or cannot be reached). Nothing is ever answered true
//     without an SMTP server having accepted the message.
//   - toEmail may be left out: the recipient's e-mail stored with the invoice is used (the
//     recipient.email sent by value, or the recipient person's email by reference); without one
//     the 400 on ToEmail says to send it. toEmail is one bare address (no display name, no lists).
//   - The message: From the server's --smtp-from, a Spanish subject and text naming the UUID, the
//     issuer, the recipient and the total; attachments <UUID>.xml (the stored stamped XML, byte
//     for byte) and <UUID>.pdf (Sender.PDF; the server uses SendPDF: the PDF of
//     POST /api/v4/invoices/pdf drawn with the request's bandColor, fontColor and base64Logo,
//     whose failures are the same 400).
//   - Sending uses no credit and emits no event.

// Texts of sending by e-mail.
const (
	MsgSendEmailInvalid = "'%s' no es una dirección de correo electrónico válida."
	MsgSendEmailMissing = "'To Email' no debería estar vacío: la factura no tiene un correo del receptor, envía toEmail."
	MsgSendNoTransport  = "El servidor no tiene configurado el envío de correo: inícialo con --smtp-url smtp://usuario@servidor:puerto y --smtp-from (la contraseña en TIMBRA_SMTP_PASSWORD o --smtp-password-file)."
	MsgSendFailed       = "El servidor de correo no aceptó el mensaje: %s"
	MsgSendSubject      = "Factura %s de %s"
	CodeEmail           = "EmailValidator"
)

// SendInput is the body of POST /api/v4/invoices/send (the official client's SendInvoiceRequest).
type SendInput struct {
	InvoiceID  string `json:"invoiceId"`
	ToEmail    string `json:"toEmail"`
	BandColor  string `json:"bandColor"`
	FontColor  string `json:"fontColor"`
	Base64Logo string `json:"base64Logo"`
}

// PDFFunc renders a stored invoice as PDF with the looks of the request (bandColor, fontColor,
// base64Logo); an *apierr.Error it returns (a bad colour, say) is the answer.
type PDFFunc func(ctx context.Context, rec storage.Invoice, in SendInput) ([]byte, error)

// Sender sends stored invoices by e-mail.
type Sender struct {
	Store storage.Store
	// Transport is the mail server; nil when the server has none configured.
	Transport mail.Transport
	// From is the sender address of the messages.
	From string
	// PDF renders the attached PDF; nil attaches only the XML.
	PDF PDFFunc
	Now func() time.Time
}

// Send e-mails the invoice with its XML (and PDF) attached.
func (s *Sender) Send(ctx context.Context, c auth.Caller, in SendInput) (bool, error) {
	id := strings.TrimSpace(in.InvoiceID)
	if id == "" {
		return false, apierr.Invalid(apierr.Field("InvoiceId", fmt.Sprintf(apierr.MsgNotEmpty, "Invoice Id"), attempted(in.InvoiceID),
			CodeNotEmpty, apierr.Placeholders("InvoiceId", attempted(in.InvoiceID))))
	}
	var rec storage.Invoice
	var personEmail string
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if rec, err = tx.Invoices(c.TenantID).Get(id); err != nil {
			return err
		}
		if rec.RecipientPersonID != nil {
			if p, err := tx.People(c.TenantID).Get(*rec.RecipientPersonID); err == nil {
				personEmail = p.Email
			}
		}
		return nil
	})
	if errors.Is(err, storage.ErrNotFound) {
		return false, apierr.NotFound(id)
	}
	if err != nil {
		return false, err
	}
	to := strings.TrimSpace(in.ToEmail)
	if to == "" {
		to = recipientEmail(rec, personEmail)
		if to == "" {
			return false, apierr.Invalid(apierr.Field("ToEmail", MsgSendEmailMissing, nil, CodeNotEmpty, apierr.Placeholders("ToEmail", nil)))
		}
	}
	if !mail.ValidAddress(to) {
		return false, apierr.Invalid(apierr.Field("ToEmail", fmt.Sprintf(MsgSendEmailInvalid, to), to, CodeEmail, apierr.Placeholders("ToEmail", to)))
	}
	if s.Transport == nil || s.From == "" {
		return false, &apierr.Error{Status: http.StatusServiceUnavailable, Details: MsgSendNoTransport}
	}
	msg, err := s.message(ctx, rec, to, in)
	if err != nil {
		return false, err
	}
	raw, err := msg.Bytes()
	if err != nil {
		return false, err
	}
	if err := s.Transport.Send(ctx, s.From, msg.To, raw); err != nil {
		return false, &apierr.Error{Status: http.StatusBadGateway, Details: fmt.Sprintf(MsgSendFailed, err)}
	}
	return true, nil
}

// SendPDF is the PDF attached to a sent invoice: the one POST /api/v4/invoices/pdf renders, drawn
// with the request's looks (checked by ParsePDFOptions: a bad colour or logo is its 400).
func SendPDF(_ context.Context, rec storage.Invoice, in SendInput) ([]byte, error) {
	opt, err := ParsePDFOptions(PDFRequest{InvoiceID: rec.ID, BandColor: in.BandColor, FontColor: in.FontColor, Base64Logo: in.Base64Logo})
	if err != nil {
		return nil, err
	}
	if rec.Status != StatusValid {
		opt.Status = rec.Status
	}
	return RenderPDF(rec.XML, opt)
}

// recipientEmail is the e-mail stored with the invoice: recipient.email of its answer, else the
// recipient person's.
func recipientEmail(rec storage.Invoice, personEmail string) string {
	var view struct {
		Recipient struct {
			Email *string `json:"email"`
		} `json:"recipient"`
	}
	if json.Unmarshal(rec.View, &view) == nil && view.Recipient.Email != nil && strings.TrimSpace(*view.Recipient.Email) != "" {
		return strings.TrimSpace(*view.Recipient.Email)
	}
	return strings.TrimSpace(personEmail)
}

func (s *Sender) message(ctx context.Context, rec storage.Invoice, to string, in SendInput) (mail.Message, error) {
	doc, err := cfdi.Parse(rec.XML)
	if err != nil {
		return mail.Message{}, fmt.Errorf("invoice %s: %w", rec.ID, err)
	}
	uuid := rec.UUID
	if tfd := doc.TFD(); tfd != nil {
		uuid = tfd.UUID
	}
	name := strings.TrimSpace(doc.Serie + " " + doc.Folio)
	if name == "" {
		name = uuid
	}
	issuer := doc.Emisor.Nombre
	if issuer == "" {
		issuer = doc.Emisor.Rfc
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hola %s:\n\n", doc.Receptor.Nombre)
	fmt.Fprintf(&b, "%s le envía su Comprobante Fiscal Digital por Internet (CFDI %s).\n\n", issuer, doc.Version)
	fmt.Fprintf(&b, "Folio fiscal (UUID): %s\n", uuid)
	if doc.Serie != "" || doc.Folio != "" {
		fmt.Fprintf(&b, "Serie y folio: %s\n", name)
	}
	fmt.Fprintf(&b, "Emisor: %s (RFC %s)\n", issuer, doc.Emisor.Rfc)
	fmt.Fprintf(&b, "Receptor: %s (RFC %s)\n", doc.Receptor.Nombre, doc.Receptor.Rfc)
	fmt.Fprintf(&b, "Fecha: %s\n", doc.Fecha)
	fmt.Fprintf(&b, "Total: %s %s\n", doc.Total, doc.Moneda)
	if rec.Status != "" && rec.Status != StatusValid {
		fmt.Fprintf(&b, "Estado: %s\n", rec.Status)
	}
	atts := []mail.Attachment{{Name: uuid + ".xml", ContentType: "application/xml", Content: rec.XML}}
	if s.PDF != nil {
		pdf, err := s.PDF(ctx, rec, in)
		if err != nil {
			return mail.Message{}, err
		}
		atts = append(atts, mail.Attachment{Name: uuid + ".pdf", ContentType: "application/pdf", Content: pdf})
		b.WriteString("\nSe adjuntan el XML y su representación impresa en PDF.\n")
	} else {
		b.WriteString("\nSe adjunta el XML del comprobante.\n")
	}
	b.WriteString("Puede verificarlo en https://verificacfdi.facturaelectronica.sat.gob.mx/\n")
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	return mail.Message{From: s.From, To: []string{to}, Subject: fmt.Sprintf(MsgSendSubject, name, issuer),
		Text: b.String(), Attachments: atts, Date: now}, nil
}
