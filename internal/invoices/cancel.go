package invoices

// Cancellation (DELETE /api/v4/invoices), the recipient's answer to one that needs acceptance
// (POST /api/v4/invoices/<id>/cancellation-answer) and SAT's status of an invoice
// (POST /api/v4/invoices/status). The spec shows none of them; decided here, after SAT's rules
// (RMF rule 2.7.1.34 and Anexo 20's cancellation service), the server being SAT and the
// certification provider of its own environment:
//
//   - The invoice is named by id, or by invoiceUuid with the issuer's RFC (tin) and the issuer's
//     CSD (taxCredentials: certificate and key, checked as in stamping: a CSD of that RFC, valid
//     today, matching the key). The reason is a key of SatMotivosCancelacion; 01 needs the
//     replacement's UUID (replacementUuid, not the invoice's own) and only 01 takes one.
//   - "No cancelable": a valid invoice of the tenant whose XML relates this one (CfdiRelacionado
//     or a payment's DoctoRelacionado), other than the replacement, blocks the cancellation (409)
//     until it is cancelled, as SAT blocks a CFDI with valid related CFDIs.
//   - Without the recipient's acceptance ("Cancelable sin aceptación") when any of: the total in
//     MXN (Total × TipoCambio) is at most 1,000; the recipient is a generic RFC (XAXX010101000,
//     XEXX010101000); the request comes within 24 hours of the stamp; the type is E, T, N or P.
//     Then the invoice is Cancelado at once ("Cancelado sin aceptación") and `invoice.canceled`
//     is emitted. Otherwise ("Cancelable con aceptación") it becomes EnProcesoDeCancelacion
//     ("En proceso") and `invoice.cancellation_requested` is emitted.
//   - The recipient answers through POST /api/v4/invoices/<id>/cancellation-answer
//     {"accept": true|false} (SAT's buzón tributario, played by this server for the tenant):
//     accepted → Cancelado ("Cancelado con aceptación", `invoice.canceled`); rejected → Vigente
//     again ("Solicitud rechazada", `invoice.cancellation_rejected`); a new request may follow.
//     Without an answer within 72 hours (AnswerWindow) the cancellation is tacitly accepted, as
//     SAT does: Cancelado ("Plazo vencido", `invoice.canceled`), by ExpireCancellations, which
//     the server runs every minute.
//   - The acknowledgement is SAT's acuse (XML, base64) with the UUID's code: 201 (request
//     received) or 202 (previously cancelled: a second request changes nothing and emits no
//     event). A request while one is pending answers 201 again, unchanged.
//   - Any person of the tenant may cancel any invoice of the tenant (read.go: visibility).

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

// Events of a cancellation (docs/events.md).
const (
	EventCanceled              = "invoice.canceled"
	EventCancellationRequested = "invoice.cancellation_requested"
	EventCancellationRejected  = "invoice.cancellation_rejected"
)

// Statuses of an invoice (catalog InvoiceStatuses) besides StatusValid.
const (
	StatusCanceled  = "Cancelado"
	StatusCanceling = storage.StatusCanceling
)

// SAT's words of a status query and of an acuse.
const (
	CancelableWithout = "Cancelable sin aceptación"
	CancelableWith    = "Cancelable con aceptación"
	NotCancelable     = "No cancelable"

	CancellationInProcess = "En proceso"
	CanceledWithout       = "Cancelado sin aceptación"
	CanceledWith          = "Cancelado con aceptación"
	CancellationRejected  = "Solicitud rechazada"
	// CanceledTimedOut is SAT's EstatusCancelacion of a cancellation the recipient did not
	// answer within AnswerWindow: tacitly accepted.
	CanceledTimedOut = "Plazo vencido"

	StatusCodeFound    = "S - Comprobante obtenido satisfactoriamente."
	StatusCodeNotFound = "N - 602: Comprobante no encontrado."
	StatusNotFound     = "No Encontrado"
	// EfosNotListed is SAT's ValidacionEFOS of an issuer not in the 69-B list.
	EfosNotListed = "200"

	AckReceived           = "201"
	AckPreviouslyCanceled = "202"
)

// CatalogCancellationReasons is c_MotivosCancelacion.
const CatalogCancellationReasons = "SatMotivosCancelacion"

func init() { satName[CatalogCancellationReasons] = "c_MotivosCancelacion" }

// ReasonWithReplacement is the reason that needs a replacement (c_MotivosCancelacion 01).
const ReasonWithReplacement = "01"

// AcceptanceThreshold is the total in MXN up to which no acceptance is needed.
const AcceptanceThreshold = 1000

// Texts of cancellation and status.
const (
	MsgCancelTarget          = "Envía el id de la factura, o su invoiceUuid con el RFC del emisor (tin) y su CSD (taxCredentials)."
	MsgCancelUUIDMismatch    = "El UUID '%s' no es el de la factura '%s'."
	MsgReplacementNeeded     = "Con el motivo de cancelación 01 (comprobante emitido con errores con relación) se requiere el UUID del comprobante que lo sustituye (replacementUuid)."
	MsgReplacementOnly01     = "El UUID del comprobante que sustituye (replacementUuid) solo aplica con el motivo de cancelación 01."
	MsgReplacementSelf       = "Un comprobante no puede sustituirse a sí mismo: replacementUuid es el UUID del comprobante que se cancela."
	MsgCancelTinMismatch     = "El RFC '%s' no es el emisor del comprobante %s (su emisor es %s)."
	MsgInvoiceUUIDAbsent     = "No existe una factura con el UUID '%s'."
	MsgCancelCertificateDate = "El certificado no está vigente hoy (%s): es válido del %s al %s."
	MsgNotCancelable         = "El comprobante %s no es cancelable: tiene comprobantes relacionados vigentes (%s); cancélalos primero."
	MsgNoPendingCancellation = "La factura '%s' no tiene una solicitud de cancelación en proceso (su estado es %s)."
	MsgAnswerNeeded          = "'Accept' no debería estar vacío: envía true para aceptar la cancelación o false para rechazarla."
	MsgStatusTarget          = "Envía el id de la factura, o su invoiceUuid con issuerTin, recipientTin, invoiceTotal y last8DigitsIssuerSignature."
)

// acuse is SAT's acknowledgement of a cancellation request.
type acuse struct {
	XMLName   xml.Name `xml:"Acuse"`
	Xmlns     string   `xml:"xmlns,attr"`
	Fecha     string   `xml:"Fecha,attr"`
	RfcEmisor string   `xml:"RfcEmisor,attr"`
	Folios    struct {
		UUID               string `xml:"UUID"`
		EstatusUUID        string `xml:"EstatusUUID"`
		Motivo             string `xml:"Motivo"`
		FolioSustitucion   string `xml:"FolioSustitucion,omitempty"`
		EstatusCancelacion string `xml:"EstatusCancelacion"`
	} `xml:"Folios"`
}

func newAcuse(rec storage.Invoice, code, reason, replacement, status string, at time.Time) []byte {
	a := acuse{Xmlns: "http://cancelacfd.sat.gob.mx", Fecha: at.In(cfdi.Mexico).Format(cfdi.DateLayout), RfcEmisor: rec.IssuerTin}
	a.Folios.UUID, a.Folios.EstatusUUID, a.Folios.Motivo, a.Folios.FolioSustitucion, a.Folios.EstatusCancelacion = rec.UUID, code, reason, replacement, status
	b, _ := xml.Marshal(a) // only strings of known shape
	return append([]byte(xml.Header), b...)
}

// cancelableWithout tells whether SAT cancels the invoice without the recipient's acceptance.
func cancelableWithout(rec storage.Invoice, now time.Time) bool {
	switch rec.TypeCode {
	case cfdi.TipoEgreso, cfdi.TipoTraslado, cfdi.TipoNomina, cfdi.TipoPago:
		return true
	}
	if rec.RecipientTin == RFCPublic || rec.RecipientTin == RFCForeign {
		return true
	}
	if now.Sub(rec.CreatedAt) <= 24*time.Hour {
		return true
	}
	total, ok := new(big.Rat).SetString(rec.Total)
	if !ok {
		return false
	}
	var v struct {
		ExchangeRate string `json:"exchangeRate"`
	}
	if json.Unmarshal(rec.View, &v) == nil && v.ExchangeRate != "" {
		if rate, ok := new(big.Rat).SetString(v.ExchangeRate); ok {
			total.Mul(total, rate)
		}
	}
	return total.Cmp(big.NewRat(AcceptanceThreshold, 1)) <= 0
}

// relatedValid are the UUIDs of the tenant's valid invoices whose XML relates rec, but except.
func relatedValid(tx storage.Tx, tenant string, rec storage.Invoice, except string) ([]string, error) {
	all, _, err := tx.Invoices(tenant).List(0, math.MaxInt)
	if err != nil {
		return nil, err
	}
	var out []string
	needle := []byte(strings.ToUpper(rec.UUID))
	for _, o := range all {
		if o.ID == rec.ID || o.Status == StatusCanceled || strings.EqualFold(o.UUID, except) {
			continue
		}
		if bytes.Contains(bytes.ToUpper(o.XML), needle) {
			out = append(out, o.UUID)
		}
	}
	return out, nil
}

// cancelTarget checks the request and finds the invoice.
func (s *Service) cancelTarget(ctx context.Context, c auth.Caller, in api.InvoiceCancel, now time.Time) (storage.Invoice, error) {
	k := &checker{ctx: ctx, s: s, c: callerRef{tenantID: c.TenantID}}
	defer k.done() // the credentials sent are only checked
	id, u, tin := strings.TrimSpace(in.ID), strings.TrimSpace(in.InvoiceUUID), strings.ToUpper(strings.TrimSpace(in.Tin))
	var is issuer
	switch {
	case id == "" && u == "":
		k.add("Id", MsgCancelTarget, nil, CodeNotEmpty)
	case id == "":
		if !uuidPattern.MatchString(u) {
			k.add("InvoiceUuid", fmt.Sprintf(MsgUUID, u), u, CodeFormat)
		}
		k.rfc("Tin", tin)
		is.tin = tin
		k.credentials(in.TaxCredentials, &is)
		for i := range k.fs { // the checker names the stamping request's place
			f := &k.fs[i]
			if strings.HasPrefix(f.PropertyName, "Issuer.") {
				f.PropertyName = strings.TrimPrefix(f.PropertyName, "Issuer.")
				f.Placeholders = apierr.Placeholders(f.PropertyName, f.AttemptedValue)
			}
		}
		if is.cert != nil && !is.cert.ValidAt(now) {
			k.add(is.certFailureProp, fmt.Sprintf(MsgCancelCertificateDate, now.In(cfdi.Mexico).Format(cfdi.DateLayout),
				api.FormatAudit(is.cert.ValidFrom), api.FormatAudit(is.cert.ValidTo)), is.certAttempted, CodeCertificateDate)
		}
	}
	reason, repl := strings.TrimSpace(in.CancellationReasonCode), strings.TrimSpace(in.ReplacementUUID)
	k.requiredCode("CancellationReasonCode", CatalogCancellationReasons, reason)
	switch {
	case reason == ReasonWithReplacement && repl == "":
		k.add("ReplacementUuid", MsgReplacementNeeded, nil, CodeNotEmpty)
	case repl != "" && reason != ReasonWithReplacement:
		k.add("ReplacementUuid", MsgReplacementOnly01, repl, CodeRule)
	case repl != "" && !uuidPattern.MatchString(repl):
		k.add("ReplacementUuid", fmt.Sprintf(MsgUUID, repl), repl, CodeFormat)
	}
	if k.err != nil {
		return storage.Invoice{}, k.err
	}
	if len(k.fs) > 0 {
		return storage.Invoice{}, apierr.Invalid(k.fs...)
	}
	var rec storage.Invoice
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if id != "" {
			rec, err = tx.Invoices(c.TenantID).Get(id)
		} else {
			rec, err = tx.Invoices(c.TenantID).ByUUID(u)
		}
		return err
	})
	switch {
	case errors.Is(err, storage.ErrNotFound) && id != "":
		return rec, apierr.NotFound(id)
	case errors.Is(err, storage.ErrNotFound):
		return rec, apierr.NotFoundText(fmt.Sprintf(MsgInvoiceUUIDAbsent, u))
	case err != nil:
		return rec, err
	}
	switch {
	case id != "" && u != "" && !strings.EqualFold(u, rec.UUID):
		k.add("InvoiceUuid", fmt.Sprintf(MsgCancelUUIDMismatch, u, id), u, CodeRule)
	case id == "" && tin != rec.IssuerTin:
		k.add("Tin", fmt.Sprintf(MsgCancelTinMismatch, tin, rec.UUID, rec.IssuerTin), tin, CodeRule)
	}
	if strings.EqualFold(repl, rec.UUID) {
		k.add("ReplacementUuid", MsgReplacementSelf, repl, CodeRule)
	}
	if len(k.fs) > 0 {
		return rec, apierr.Invalid(k.fs...)
	}
	return rec, nil
}

// Cancel asks SAT to cancel an invoice of the tenant and answers the acuse.
func (s *Service) Cancel(ctx context.Context, c auth.Caller, in api.InvoiceCancel) (api.InvoiceCancelled, error) {
	now := s.now()
	found, err := s.cancelTarget(ctx, c, in, now)
	if err != nil {
		return api.InvoiceCancelled{}, err
	}
	reason, repl := strings.TrimSpace(in.CancellationReasonCode), strings.ToUpper(strings.TrimSpace(in.ReplacementUUID))
	var out api.InvoiceCancelled
	var event string
	err = s.Store.Batch(ctx, func(tx storage.Tx) error {
		event = ""
		rec, err := tx.Invoices(c.TenantID).Get(found.ID)
		if err != nil {
			return err
		}
		switch rec.Status {
		case StatusCanceled:
			out = acknowledged(rec, newAcuse(rec, AckPreviouslyCanceled, reason, repl, cancellationStatus(rec), now))
			return nil
		case StatusCanceling:
			out = acknowledged(rec, rec.Cancellation.Acknowledgement)
			return nil
		}
		related, err := relatedValid(tx, c.TenantID, rec, repl)
		if err != nil {
			return err
		}
		if len(related) > 0 {
			return apierr.Conflict(fmt.Sprintf(MsgNotCancelable, rec.UUID, strings.Join(related, ", ")))
		}
		status, detail := StatusCanceling, CancellationInProcess
		event = EventCancellationRequested
		if cancelableWithout(rec, now) {
			status, detail, event = StatusCanceled, CanceledWithout, EventCanceled
		}
		at := now.UTC()
		rec.Status, rec.UpdatedAt = status, at
		rec.Cancellation = &storage.InvoiceCancellation{ReasonCode: reason, ReplacementUUID: repl, Status: detail, RequestedAt: at,
			Acknowledgement: newAcuse(rec, AckReceived, reason, repl, detail, now)}
		if status == StatusCanceled {
			rec.Cancellation.AnsweredAt = &at
		}
		out = acknowledged(rec, rec.Cancellation.Acknowledgement)
		if err := tx.Invoices(c.TenantID).Put(rec); err != nil {
			return err
		}
		return s.emitIn(tx, c, event, found.ID)
	})
	if err != nil {
		return api.InvoiceCancelled{}, err
	}
	s.wake(c.TenantID)
	return out, nil
}

// AnswerWindow is how long a recipient has to answer a cancellation before it is accepted.
const AnswerWindow = 72 * time.Hour

// ExpireCancellations accepts every cancellation of every tenant whose recipient did not answer
// within AnswerWindow: the invoice is Cancelado ("Plazo vencido") and invoice.canceled is
// recorded in the same transaction, attributed to the person who stamped it. It answers how
// many it accepted.
func (s *Service) ExpireCancellations(ctx context.Context) (int, error) {
	now := s.now().UTC()
	var due []storage.PendingCancellation
	if err := s.Store.View(ctx, func(tx storage.Tx) error {
		all, err := tx.PendingCancellations()
		for _, p := range all {
			if !now.Before(p.RequestedAt.Add(AnswerWindow)) {
				due = append(due, p)
			}
		}
		return err
	}); err != nil {
		return 0, err
	}
	n := 0
	for _, p := range due {
		expired := false
		err := s.Store.Batch(ctx, func(tx storage.Tx) error {
			expired = false
			rec, err := tx.Invoices(p.TenantID).Get(p.InvoiceID)
			if err != nil {
				return err
			}
			if rec.Status != StatusCanceling || rec.Cancellation == nil || now.Before(rec.Cancellation.RequestedAt.Add(AnswerWindow)) {
				return nil // answered (or asked again) since
			}
			cancellation := *rec.Cancellation
			cancellation.Status, cancellation.AnsweredAt = CanceledTimedOut, &now
			rec.Status, rec.Cancellation, rec.UpdatedAt = StatusCanceled, &cancellation, now
			if err := tx.Invoices(p.TenantID).Put(rec); err != nil {
				return err
			}
			expired = true
			return s.emitIn(tx, auth.Caller{TenantID: p.TenantID, PersonID: rec.PersonID}, EventCanceled, rec.ID)
		})
		if err != nil {
			return n, fmt.Errorf("expire the cancellation of %s/%s: %w", p.TenantID, p.InvoiceID, err)
		}
		if expired {
			n++
			s.wake(p.TenantID)
		}
	}
	return n, nil
}

func acknowledged(rec storage.Invoice, ack []byte) api.InvoiceCancelled {
	code := AckReceived
	if rec.Status == StatusCanceled && rec.Cancellation != nil && !bytes.Equal(ack, rec.Cancellation.Acknowledgement) {
		code = AckPreviouslyCanceled
	}
	return api.InvoiceCancelled{Base64CancellationAcknowledgement: base64.StdEncoding.EncodeToString(ack),
		InvoiceUUIDs: map[string]string{rec.UUID: code}, Status: rec.Status}
}

// emitIn records an event about invoice id in the transaction of the change ("" records none).
func (s *Service) emitIn(tx storage.Tx, c auth.Caller, event, id string) error {
	if event == "" || s.Events == nil {
		return nil
	}
	_, err := s.Events.EmitIn(tx, c.TenantID, event, id, &c.PersonID)
	return err
}

// wake tells the delivery engine after a transaction that recorded an event.
func (s *Service) wake(tenant string) {
	if s.Events != nil {
		s.Events.WakeEngine(tenant)
	}
}

// AnswerCancellation is the recipient's answer to a pending cancellation; it answers the status.
func (s *Service) AnswerCancellation(ctx context.Context, c auth.Caller, id string, in api.InvoiceCancellationAnswer) (api.InvoiceStatus, error) {
	if in.Accept == nil {
		return api.InvoiceStatus{}, apierr.Invalid(apierr.Field("Accept", MsgAnswerNeeded, nil, CodeNotEmpty, apierr.Placeholders("Accept", nil)))
	}
	now := s.now().UTC()
	var event string
	var out api.InvoiceStatus
	err := s.Store.Batch(ctx, func(tx storage.Tx) error {
		rec, err := tx.Invoices(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		if rec.Status != StatusCanceling || rec.Cancellation == nil {
			return apierr.Conflict(fmt.Sprintf(MsgNoPendingCancellation, id, rec.Status))
		}
		cancellation := *rec.Cancellation
		cancellation.AnsweredAt = &now
		if *in.Accept {
			rec.Status, cancellation.Status, event = StatusCanceled, CanceledWith, EventCanceled
		} else {
			rec.Status, cancellation.Status, event = StatusValid, CancellationRejected, EventCancellationRejected
		}
		rec.Cancellation, rec.UpdatedAt = &cancellation, now
		if err := tx.Invoices(c.TenantID).Put(rec); err != nil {
			return err
		}
		if out, err = statusOf(tx, c.TenantID, rec, now); err != nil {
			return err
		}
		return s.emitIn(tx, c, event, id)
	})
	if err != nil {
		return api.InvoiceStatus{}, err
	}
	s.wake(c.TenantID)
	return out, nil
}

func cancellationStatus(rec storage.Invoice) string {
	if rec.Cancellation == nil {
		return ""
	}
	return rec.Cancellation.Status
}

// statusOf is SAT's answer about a stored invoice.
func statusOf(tx storage.Tx, tenant string, rec storage.Invoice, now time.Time) (api.InvoiceStatus, error) {
	out := api.InvoiceStatus{StatusCode: StatusCodeFound, Status: StatusValid, CancelableStatus: CancelableWith,
		CancellationStatus: cancellationStatus(rec), EfosValidation: EfosNotListed}
	if rec.Status == StatusCanceled {
		out.Status = StatusCanceled
	}
	related, err := relatedValid(tx, tenant, rec, "")
	if err != nil {
		return out, err
	}
	switch {
	case len(related) > 0:
		out.CancelableStatus = NotCancelable
	case cancelableWithout(rec, now):
		out.CancelableStatus = CancelableWithout
	}
	return out, nil
}

// Status is SAT's status of an invoice of the tenant, by id or by SAT's expression (UUID, both
// RFCs, total and the last 8 characters of the issuer's seal); data that does not match is
// "No Encontrado", as SAT answers.
func (s *Service) Status(ctx context.Context, c auth.Caller, in api.InvoiceStatusQuery) (api.InvoiceStatus, error) {
	id, u := strings.TrimSpace(in.ID), strings.TrimSpace(in.InvoiceUUID)
	if id == "" && u == "" {
		return api.InvoiceStatus{}, apierr.Invalid(apierr.Field("Id", MsgStatusTarget, nil, CodeNotEmpty, apierr.Placeholders("Id", nil)))
	}
	now := s.now()
	notFound := api.InvoiceStatus{StatusCode: StatusCodeNotFound, Status: StatusNotFound}
	var out api.InvoiceStatus
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var rec storage.Invoice
		var err error
		if id != "" {
			rec, err = tx.Invoices(c.TenantID).Get(id)
			if errors.Is(err, storage.ErrNotFound) {
				return apierr.NotFound(id)
			}
		} else {
			rec, err = tx.Invoices(c.TenantID).ByUUID(u)
			if errors.Is(err, storage.ErrNotFound) {
				out = notFound
				return nil
			}
		}
		if err != nil {
			return err
		}
		if id == "" && !matchesExpression(rec, in) {
			out = notFound
			return nil
		}
		out, err = statusOf(tx, c.TenantID, rec, now)
		return err
	})
	return out, err
}

// matchesExpression compares what was sent of SAT's expression with the invoice.
func matchesExpression(rec storage.Invoice, in api.InvoiceStatusQuery) bool {
	if t := strings.TrimSpace(in.IssuerTin); t != "" && !strings.EqualFold(t, rec.IssuerTin) {
		return false
	}
	if t := strings.TrimSpace(in.RecipientTin); t != "" && !strings.EqualFold(t, rec.RecipientTin) {
		return false
	}
	if in.InvoiceTotal != "" {
		sent, ok1 := new(big.Rat).SetString(strings.Trim(string(in.InvoiceTotal), `"`))
		have, ok2 := new(big.Rat).SetString(rec.Total)
		if !ok1 || !ok2 || sent.Cmp(have) != 0 {
			return false
		}
	}
	if l8 := strings.TrimSpace(in.Last8DigitsIssuerSignature); l8 != "" {
		doc, err := cfdi.Parse(rec.XML)
		if err != nil || len(doc.Sello) < 8 || doc.Sello[len(doc.Sello)-8:] != l8 {
			return false
		}
	}
	return true
}
