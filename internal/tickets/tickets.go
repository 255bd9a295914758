// Package tickets is Auto CFDI's tickets (spec 3 §4.6): sale receipts that a tenant records and
// that customers turn into CFDIs through the tenant's portal, or that go into a global invoice.
// The spec shows no tickets endpoint; this is timbra's design:
//
//   - Recording a ticket (POST /api/v4/auto-invoice/tickets) needs Auto CFDI in the
//     subscription and uses one ticket credit (type 3) of the person who records it, in the
//     ticket's transaction. Its issuer is a person of the tenant with an RFC, a tax regime and a
//     postal code; its items are invoice items (by value or product), checked by the invoice's
//     rules and copied by value; its amounts are what an income invoice in pesos would show. The
//     number (as printed on the receipt: letters, digits and - _ / .) is unique in the tenant.
//   - States: pending → invoicing → invoiced when a customer invoices it (the issuer's default
//     CSD seals, the issuer's stamp pays, the issuer owns the invoice); pending → globalizing →
//     globalized when it goes into a global invoice; pending → cancelled. invoicing and
//     globalizing hold the ticket while the CFDI is stamped: the final state is written in the
//     invoice's own transaction, so a ticket is never invoiced without its CFDI, and a failed
//     stamp puts it back to pending. A server stopped in between puts such tickets back to
//     pending when it starts (Recover).
//   - The billing window: by default a ticket can be invoiced until the last day of the month
//     it was paid in (Mexico City calendar); with allowBillingOutsideMonth until the end of that
//     year; with allowBillingOutsideYear at any time.
//   - The owner, the issuer and the person who recorded a ticket see it and act on it; to
//     anybody else it does not exist (auth.SeesTicket). The owner or the issuer make global
//     invoices.
package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/autoinvoice"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/storage"
)

// Texts (timbra's; the spec shows none for tickets).
const (
	MsgNeedsAutoCfdi   = "Para registrar y facturar tickets tu suscripción debe incluir: Auto CFDI."
	MsgNoTicketCredits = "No tienes créditos de tickets disponibles: tu saldo de tickets (créditos tipo 3) es 0. Pide al dueño de la cuenta que te transfiera créditos de tickets."
	MsgNumberFormat    = "El número de ticket debe tener de 1 a 40 caracteres: letras, números, guiones, guiones bajos, puntos o diagonales."
	MsgNumberTaken     = "Ya existe un ticket con el número %s."
	MsgPaidAtFormat    = "'Paid At' debe ser una fecha y hora YYYY-MM-DDTHH:MM:SS (hora de la Ciudad de México): '%s' no lo es."
	MsgPaidAtFuture    = "'Paid At' no puede ser posterior a ahora: %s."
	MsgPaymentFormOpen = "Un ticket es una venta pagada: 'Payment Form Code' no puede ser 99 (Por definir)."
	MsgCancelNotPend   = "Solo se cancela un ticket pendiente: el ticket %s está %s."
	MsgInvoiced        = "El ticket %s ya fue facturado."
	MsgGlobalized      = "El ticket %s ya se incluyó en una factura global."
	MsgCancelled       = "El ticket %s fue cancelado."
	MsgInProgress      = "El ticket %s se está facturando. Intenta de nuevo en unos segundos."
	MsgWindowClosed    = "El plazo para facturar el ticket %s terminó el %s."
	MsgRecipientNeeded = "'Recipient' no debería estar vacío: son los datos fiscales de quien recibe la factura."
	MsgMonthsOfPeriod  = "Con periodicidad 05 (bimestral) 'Month Code' va de 13 a 18; con otra periodicidad, de 01 a 12."
	MsgNoPending       = "No hay tickets pendientes de %s pagados en el periodo."
	MsgTicketAbsent    = "El ticket '%s' no existe."
	MsgTicketOtherIss  = "El ticket %s es de otro emisor."
	MsgTicketNotPend   = "El ticket %s no está pendiente: está %s."
	MsgTicketOutside   = "El ticket %s no se pagó en el periodo de la factura global."
	MsgTicketTwice     = "El ticket '%s' está repetido."
)

// Spanish names of the statuses, for messages.
var statusWords = map[string]string{
	api.TicketPending: "pendiente", api.TicketInvoicing: "facturándose", api.TicketInvoiced: "facturado",
	api.TicketGlobalizing: "incluyéndose en una factura global", api.TicketGlobalized: "en una factura global",
	api.TicketCancelled: "cancelado",
}

// The public recipient of a global invoice (SAT's rules for CFDI 4.0 global invoices).
const (
	PublicTin       = "XAXX010101000"
	PublicName      = "PUBLICO EN GENERAL"
	PublicRegime    = "616"
	PublicCfdiUse   = "S01"
	GlobalItemCode  = "01010101"
	GlobalUnitCode  = "ACT"
	GlobalItemText  = "Venta"
	MaxNumberLength = 40
)

// Service is the tickets area.
type Service struct {
	Store       storage.Store
	Invoices    *invoices.Service
	Environment string
	Now         func() time.Time
	// Mail e-mails a CFDI a customer makes through the portal; nil, or a Sender without a
	// Transport: the server sends no mail.
	Mail *invoices.Sender
	// Catalogs give the tax regimes and CFDI uses a portal's customer chooses from, and to whom
	// each applies (*catalogs.Service is one).
	Catalogs Applicabilities
}

// Applicabilities give to whom the records of a catalog apply (catalogs.Service.Applicability).
type Applicabilities interface {
	Applicability(ctx context.Context, name string) ([]catalogs.Applicability, error)
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// NormalizeNumber is a ticket number as stored and compared: trimmed, upper case.
func NormalizeNumber(n string) string { return strings.ToUpper(strings.TrimSpace(n)) }

// ValidNumber is the number rule: 1 to 40 letters, digits, '-', '_', '/' or '.'.
func ValidNumber(n string) bool {
	if n == "" || len(n) > MaxNumberLength {
		return false
	}
	for _, r := range n {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-_/.", r)) {
			return false
		}
	}
	return true
}

func needsAutoCfdi(tx storage.Tx, tenantID, env string) error {
	return autoinvoice.Subscribed(tx, tenantID, env, MsgNeedsAutoCfdi)
}

// Deadline is the last Mexico City day a ticket paid at paidAt can be invoiced under a
// tenant's settings; ok is false when there is no limit.
func Deadline(paidAt time.Time, a storage.AutoInvoice) (day time.Time, ok bool) {
	p := paidAt.In(cfdi.Mexico)
	switch {
	case a.AllowBillingOutsideYear:
		return time.Time{}, false
	case a.AllowBillingOutsideMonth:
		return time.Date(p.Year(), 12, 31, 0, 0, 0, 0, cfdi.Mexico), true
	default:
		return time.Date(p.Year(), p.Month()+1, 0, 0, 0, 0, 0, cfdi.Mexico), true
	}
}

// answer is the view of a stored ticket under its tenant's current settings.
func answer(tx storage.Tx, t storage.Ticket) (api.Ticket, error) {
	a, err := autoinvoice.Record(tx, t.TenantID)
	if err != nil {
		return api.Ticket{}, err
	}
	return view(t, a)
}

// view is the answer of a stored ticket.
func view(t storage.Ticket, a storage.AutoInvoice) (api.Ticket, error) {
	var items []api.InvoiceItemInput
	if err := json.Unmarshal(t.Items, &items); err != nil {
		return api.Ticket{}, fmt.Errorf("ticket %s: %w", t.ID, err)
	}
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	v := api.Ticket{
		ID: t.ID, Number: t.Number, Status: t.Status,
		Issuer:     api.TicketPerson{ID: t.IssuerPersonID, Tin: t.IssuerTin, LegalName: t.IssuerName},
		RecordedBy: api.TicketPerson{ID: t.RecordedByPersonID, Tin: t.RecordedByTin, LegalName: t.RecordedByName},
		PaidAt:     t.PaidAt.In(cfdi.Mexico).Format(cfdi.DateLayout), PaymentFormCode: t.PaymentFormCode,
		CurrencyCode: invoices.SaleCurrency, Items: items,
		Subtotal: api.Decimal(t.Subtotal), Discount: api.Decimal(t.Discount), Transfers: api.Decimal(t.Transfers),
		Withheld: api.Decimal(t.Withheld), Total: api.Decimal(t.Total),
		InvoiceID: opt(t.InvoiceID), InvoiceUUID: opt(t.InvoiceUUID), GlobalInvoiceID: opt(t.GlobalInvoiceID),
		GlobalInvoiceUUID: opt(t.GlobalInvoiceUUID),
		CreatedAt:         api.FormatAudit(t.CreatedAt), UpdatedAt: api.FormatAudit(t.UpdatedAt),
	}
	if t.CancelledAt != nil {
		c := api.FormatAudit(*t.CancelledAt)
		v.CancelledAt = &c
	}
	if t.Status == api.TicketPending {
		if d, ok := Deadline(t.PaidAt, a); ok {
			day := d.Format(time.DateOnly)
			v.InvoiceableUntil = &day
		}
	}
	return v, nil
}

func tin(p storage.Person) string {
	if p.Tin == nil {
		return ""
	}
	return strings.ToUpper(*p.Tin)
}

// Record records a ticket, using one ticket credit of the caller.
func (s *Service) Record(ctx context.Context, c auth.Caller, in api.TicketInput) (api.Ticket, error) {
	if err := s.Store.View(ctx, func(tx storage.Tx) error { return needsAutoCfdi(tx, c.TenantID, s.Environment) }); err != nil {
		return api.Ticket{}, err
	}
	now := s.now()
	f := s.Invoices.Fields(ctx, c.TenantID)
	number := NormalizeNumber(in.Number)
	if f.Required("Number", in.Number) && !ValidNumber(number) {
		f.Add("Number", MsgNumberFormat, in.Number, "")
	}
	var paidAt time.Time
	if f.Required("PaidAt", in.PaidAt) {
		d, ok := invoices.ParseDate(in.PaidAt)
		switch {
		case !ok:
			f.Add("PaidAt", fmt.Sprintf(MsgPaidAtFormat, in.PaidAt), in.PaidAt, "")
		case d.After(now.Add(5 * time.Minute)): // a little clock skew is tolerated
			f.Add("PaidAt", fmt.Sprintf(MsgPaidAtFuture, in.PaidAt), in.PaidAt, "")
		default:
			paidAt = d
		}
	}
	if f.Code("PaymentFormCode", invoices.CatalogPaymentForms, in.PaymentFormCode) && in.PaymentFormCode == "99" {
		f.Add("PaymentFormCode", MsgPaymentFormOpen, in.PaymentFormCode, "")
	}
	var issuer storage.Person
	if f.Required("IssuerId", in.IssuerID) {
		issuer, _ = f.Issuer("IssuerId", in.IssuerID)
	}
	sale, _ := f.Sale(in.Items)
	if err := f.Err(); err != nil {
		return api.Ticket{}, err
	}
	items, err := json.Marshal(sale.Items)
	if err != nil {
		return api.Ticket{}, err
	}
	now = now.UTC()
	t := storage.Ticket{
		ID: ids.New(now), Number: number, IssuerPersonID: issuer.ID, IssuerTin: tin(issuer), IssuerName: issuer.LegalName,
		RecordedByPersonID: c.PersonID, PaidAt: paidAt.UTC(), PaidDay: mexicoDay(paidAt), RecordedDay: mexicoDay(now),
		PaymentFormCode: in.PaymentFormCode, Items: items,
		Subtotal: sale.Subtotal, Discount: sale.Discount, Transfers: sale.Transfers, Withheld: sale.Withheld, Total: sale.Total,
		Status: api.TicketPending, CreatedAt: now, UpdatedAt: now,
	}
	err = s.Store.Batch(ctx, func(tx storage.Tx) error {
		if err := needsAutoCfdi(tx, c.TenantID, s.Environment); err != nil {
			return err
		}
		ppl := tx.People(c.TenantID)
		rec, err := ppl.Get(c.PersonID)
		if err != nil {
			return err
		}
		if people.Available(rec, api.CreditTickets) < 1 {
			return apierr.Forbidden(MsgNoTicketCredits)
		}
		ts := tx.Tickets(c.TenantID)
		if _, err := ts.ByNumber(number); err == nil {
			return apierr.Conflict(fmt.Sprintf(MsgNumberTaken, number))
		} else if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if err := people.AddCredits(&rec, api.CreditTickets, -1, now); err != nil {
			return apierr.Forbidden(MsgNoTicketCredits)
		}
		if err := ppl.Put(rec); err != nil {
			return err
		}
		used := storage.StampTransaction{Amount: 1, TransactionType: people.TxAutoInvoice, CreditType: api.CreditTickets, ReferenceID: t.ID}
		if err := people.RecordCredits(tx, c.TenantID, used, &rec, nil, now); err != nil {
			return err
		}
		row := t
		row.RecordedByTin, row.RecordedByName = tin(rec), rec.LegalName
		return ts.Put(row)
	})
	if err != nil {
		return api.Ticket{}, err
	}
	var out api.Ticket
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		row, err := tx.Tickets(c.TenantID).Get(t.ID)
		if err != nil {
			return err
		}
		out, err = answer(tx, row)
		return err
	})
	return out, err
}

// visible reads a ticket the caller sees: 404 otherwise.
func visible(tx storage.Tx, c auth.Caller, id string) (storage.Ticket, error) {
	t, err := tx.Tickets(c.TenantID).Get(id)
	if errors.Is(err, storage.ErrNotFound) || err == nil && !auth.SeesTicket(c, t.IssuerPersonID, t.RecordedByPersonID) {
		return storage.Ticket{}, apierr.NotFound(id)
	}
	return t, err
}

// Get reads one ticket.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.Ticket, error) {
	var out api.Ticket
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		t, err := visible(tx, c, id)
		if err != nil {
			return err
		}
		out, err = answer(tx, t)
		return err
	})
	return out, err
}

// Filter selects tickets in a list; From and To are Mexico calendar days of the payment
// (YYYY-MM-DD, both included; "" leaves a side open).
type Filter struct {
	Status, IssuerID string
	From, To         string
	Page, Size       int
}

// Page sizes of the list.
const (
	DefaultPageSize = 50
	MaxPageSize     = 100
)

// List lists the tickets the caller sees, the latest paid first. It walks the smallest index
// that holds them all: a person's tickets (a cashier's own: those they issued or recorded), an
// issuer's, a status's, or, for the owner with dates alone or nothing, the payment days;
// it stops at the page's end when a kept count is the total (the owner's list unfiltered, of
// one status, of one issuer or both; anyone's own list, of one status or not) and decodes only
// the page.
func (s *Service) List(ctx context.Context, c auth.Caller, f Filter) (api.PagedList[api.Ticket], error) {
	items := []api.Ticket{}
	total := 0
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		ts := tx.Tickets(c.TenantID)
		var page []string
		dates := f.From != "" || f.To != ""
		walk := ts.EachPaid
		n, whole := -1, false
		choose := func(ix storage.TicketIndex, value string, exact bool) error {
			m, err := ts.CountBy(ix, value)
			if err != nil || n >= 0 && m >= n {
				return err
			}
			n, whole = m, exact && !dates
			walk = func(from, to string, reverse bool, fn func(id, issuerID, recordedByID, status string) error) error {
				return ts.EachPaidBy(ix, value, from, to, reverse, fn)
			}
			return nil
		}
		if !c.IsOwner {
			if err := choose(storage.TicketsOfPerson, c.PersonID, f.Status == "" && f.IssuerID == ""); err != nil {
				return err
			}
		}
		if f.IssuerID != "" {
			if err := choose(storage.TicketsOfIssuer, f.IssuerID, f.Status == "" && (c.IsOwner || f.IssuerID == c.PersonID)); err != nil {
				return err
			}
		}
		if f.Status != "" {
			if err := choose(storage.TicketsInStatus, f.Status, c.IsOwner && f.IssuerID == ""); err != nil {
				return err
			}
		}
		// a status with the caller's own tickets or one issuer's the caller sees whole: the
		// pair's kept count is the total (the walk stays on the smallest index)
		if f.Status != "" && !dates && n > 0 {
			ix, value := storage.TicketsOfPerson, c.PersonID
			if f.IssuerID != "" {
				ix, value = storage.TicketsOfIssuer, f.IssuerID
			}
			if c.IsOwner && f.IssuerID != "" || !c.IsOwner && (f.IssuerID == "" || f.IssuerID == c.PersonID) {
				m, err := ts.CountIn(ix, value, f.Status)
				if err != nil {
					return err
				}
				n, whole = m, true
			}
		}
		if n < 0 && c.IsOwner && !dates { // the owner, unfiltered: every ticket, counted
			_, all, err := ts.List(0, 0)
			if err != nil {
				return err
			}
			n, whole = all, true
		}
		if n == 0 {
			return nil
		}
		if whole {
			if total = n; (f.Page-1)*f.Size >= n {
				return nil
			}
		}
		seen := 0
		err := walk(f.From, f.To, true, func(id, issuerID, recorderID, status string) error {
			if !auth.SeesTicket(c, issuerID, recorderID) || f.Status != "" && status != f.Status || f.IssuerID != "" && issuerID != f.IssuerID {
				return nil
			}
			if seen >= (f.Page-1)*f.Size && len(page) < f.Size {
				page = append(page, id)
			}
			seen++
			if whole && len(page) == f.Size {
				return storage.ErrStop
			}
			return nil
		})
		if !whole {
			total = seen
		}
		if err != nil {
			return err
		}
		a, err := autoinvoice.Record(tx, c.TenantID)
		if err != nil {
			return err
		}
		got, err := ts.GetMany(page)
		if err != nil {
			return err
		}
		for _, t := range got {
			v, err := view(t, a)
			if err != nil {
				return err
			}
			items = append(items, v)
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.Ticket]{}, err
	}
	return api.NewPage(items, f.Page, f.Size, total), nil
}

// mexicoDay is the Mexico City calendar day of t as YYYY-MM-DD.
func mexicoDay(t time.Time) string { return t.In(cfdi.Mexico).Format(time.DateOnly) }

// Cancel cancels a pending ticket.
func (s *Service) Cancel(ctx context.Context, c auth.Caller, id string) (api.Ticket, error) {
	var out api.Ticket
	now := s.now().UTC()
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		t, err := visible(tx, c, id)
		if err != nil {
			return err
		}
		if t.Status != api.TicketPending {
			return apierr.Conflict(fmt.Sprintf(MsgCancelNotPend, t.Number, statusWords[t.Status]))
		}
		t.Status, t.CancelledAt, t.UpdatedAt = api.TicketCancelled, &now, now
		if err := tx.Tickets(c.TenantID).Put(t); err != nil {
			return err
		}
		out, err = answer(tx, t)
		return err
	})
	return out, err
}

// notPending is the 409 of a ticket that cannot be invoiced in its state.
func notPending(t storage.Ticket) error {
	switch t.Status {
	case api.TicketInvoiced:
		return apierr.Conflict(fmt.Sprintf(MsgInvoiced, t.Number))
	case api.TicketGlobalized:
		return apierr.Conflict(fmt.Sprintf(MsgGlobalized, t.Number))
	case api.TicketCancelled:
		return apierr.Conflict(fmt.Sprintf(MsgCancelled, t.Number))
	default:
		return apierr.Conflict(fmt.Sprintf(MsgInProgress, t.Number))
	}
}

// Recover puts back to pending every ticket left invoicing or globalizing by a server that
// stopped while stamping (the final state commits with the invoice, so such a ticket has
// none), and returns how many it put back. A server alone runs it at start, before it answers
// (before zero: every such ticket). With other nodes on the database a ticket may be stamping
// on one of them: only those unchanged since before are taken for abandoned (RecoverAfter).
// RecoverAfter is how long a ticket stays invoicing or globalizing before a node of a shared
// database takes it for abandoned (a stamp takes seconds).
const RecoverAfter = 5 * time.Minute

func Recover(ctx context.Context, st storage.Store, now, before time.Time) (int, error) {
	n := 0
	err := st.Update(ctx, func(tx storage.Tx) error {
		tenants, err := tx.Tenants().List()
		if err != nil {
			return err
		}
		for _, tn := range tenants {
			ts := tx.Tickets(tn.ID)
			var stuck []string // read first: Put rewrites the index walked
			for _, status := range []string{api.TicketInvoicing, api.TicketGlobalizing} {
				err := ts.EachPaidBy(storage.TicketsInStatus, status, "", "", false, func(id, _, _, _ string) error {
					stuck = append(stuck, id)
					return nil
				})
				if err != nil {
					return err
				}
			}
			for _, id := range stuck {
				t, err := ts.Get(id)
				if err != nil {
					return err
				}
				if !before.IsZero() && !t.UpdatedAt.Before(before) {
					continue // maybe stamping on another node now
				}
				t.Status, t.UpdatedAt = api.TicketPending, now.UTC()
				if err := ts.Put(t); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	return n, err
}
