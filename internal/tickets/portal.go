package tickets

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/autoinvoice"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/storage"
)

// The customer portal (GET /portal/v1/<name>, POST /portal/v1/<name>/invoices) needs no API
// key: a customer proves holding a receipt with its number and total. It serves customers only
// when the tenant's subscription includes Auto CFDI, it has a portal name and a privacy notice is
// set (spec 3 §4.6); otherwise it says so and stamps nothing. A previous name answers 308 to
// the current one. A customer's recipient is always by value (never a person of the tenant).

// Texts of the portal (timbra's).
const (
	MsgPortalAbsent   = "No existe un portal con el nombre %s."
	MsgPortalMoved    = "El portal ahora se llama %s."
	MsgNotOffered     = "Este negocio no ofrece facturación en línea."
	MsgTicketNotFound = "No encontramos un ticket con ese número y total."
	MsgTotalFormat    = "'Total' debe ser el total del ticket, por ejemplo 1160.00: '%s' no lo es."
)

// Moved is the answer for a portal's previous name: the current name.
type Moved struct{ Name string }

func (m *Moved) Error() string { return fmt.Sprintf(MsgPortalMoved, m.Name) }

// portal finds the tenant of a portal name and whether it serves customers.
func (s *Service) portal(tx storage.Tx, name string) (tenantID string, a storage.AutoInvoice, offered bool, err error) {
	name = autoinvoice.Normalize(name)
	tenantID, err = tx.AutoInvoices().PortalNameOwner(name)
	if errors.Is(err, storage.ErrNotFound) {
		return "", a, false, apierr.NotFoundText(fmt.Sprintf(MsgPortalAbsent, name))
	} else if err != nil {
		return "", a, false, err
	}
	if a, err = autoinvoice.Record(tx, tenantID); err != nil {
		return "", a, false, err
	}
	if a.PortalName != name {
		if a.PortalName == "" {
			return "", a, false, apierr.NotFoundText(fmt.Sprintf(MsgPortalAbsent, name))
		}
		return "", a, false, &Moved{Name: a.PortalName}
	}
	sub, err := accounts.TenantSubscription(tx, tenantID, s.Environment)
	if err != nil {
		return "", a, false, err
	}
	return tenantID, a, sub.AutoCfdi && a.PrivacyNoticeURL != nil, nil
}

// Portal is what a portal shows a customer before invoicing.
func (s *Service) Portal(ctx context.Context, name string) (api.Portal, error) {
	var out api.Portal
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		_, a, offered, err := s.portal(tx, name)
		if err != nil {
			return err
		}
		out = api.Portal{Name: a.PortalName, Offered: offered}
		if offered {
			out.PrivacyNoticeURL = a.PrivacyNoticeURL
		} else {
			msg := MsgNotOffered
			out.Message = &msg
		}
		return nil
	})
	return out, err
}

// PortalInvoice turns a customer's ticket into a CFDI and answers its XML and PDF. The same
// ticket asked again with the same recipient RFC answers the CFDI already made (a customer
// whose connection dropped gets their files); with another RFC it is a 409.
func (s *Service) PortalInvoice(ctx context.Context, name string, in api.PortalInvoiceInput) (api.PortalInvoice, error) {
	var tenantID string
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		id, _, offered, err := s.portal(tx, name)
		if err != nil {
			return err
		}
		if !offered {
			return apierr.Forbidden(MsgNotOffered)
		}
		tenantID = id
		return nil
	})
	if err != nil {
		return api.PortalInvoice{}, err
	}
	f := s.Invoices.Fields(ctx, tenantID)
	f.Required("Number", in.Number)
	var total cfdi.Decimal
	if f.Required("Total", string(in.Total)) {
		var err error
		if total, err = cfdi.ParseDecimal(strings.TrimSpace(string(in.Total))); err != nil {
			f.Add("Total", fmt.Sprintf(MsgTotalFormat, in.Total), string(in.Total), "")
		}
	}
	if in.Recipient == nil {
		f.Add("Recipient", MsgRecipientNeeded, nil, "NotEmptyValidator")
	}
	if err := f.Err(); err != nil {
		return api.PortalInvoice{}, err
	}
	rc := *in.Recipient
	rc.ID, rc.EmployeeData = "", nil // a customer names no person of the tenant

	var t storage.Ticket
	var done *storage.Invoice
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		t, err = tx.Tickets(tenantID).ByNumber(NormalizeNumber(in.Number))
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFoundText(MsgTicketNotFound)
		} else if err != nil {
			return err
		}
		if want, err := cfdi.ParseDecimal(t.Total); err != nil || want.Cmp(total) != 0 {
			return apierr.NotFoundText(MsgTicketNotFound)
		}
		if t.Status == api.TicketInvoiced {
			rec, err := tx.Invoices(tenantID).Get(t.InvoiceID)
			if err != nil {
				return err
			}
			if rec.RecipientTin != strings.ToUpper(strings.TrimSpace(rc.Tin)) {
				return notPending(t)
			}
			done = &rec
		}
		return nil
	})
	if err != nil {
		return api.PortalInvoice{}, err
	}
	var invoiceID, uuid string
	if done != nil {
		invoiceID, uuid = done.ID, done.UUID
	} else {
		inv, err := s.invoice(ctx, tenantID, t.ID, &rc)
		if err != nil {
			return api.PortalInvoice{}, err
		}
		invoiceID, uuid = inv.ID, inv.UUID
	}
	as := auth.Caller{TenantID: tenantID, PersonID: t.IssuerPersonID, Environment: s.Environment}
	xml, err := s.Invoices.XML(ctx, as, invoiceID)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	pdf, err := s.Invoices.PDF(ctx, as, invoices.PDFRequest{InvoiceID: invoiceID})
	if err != nil {
		return api.PortalInvoice{}, err
	}
	return api.PortalInvoice{UUID: uuid, Number: t.Number, Total: api.Decimal(t.Total), XML: xml, PDF: pdf}, nil
}
