package tickets

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
// whose connection dropped gets their files); with another RFC it is a 409. A new CFDI is
// e-mailed to the recipient's e-mail when one was given and the server sends mail (Mail):
// EmailedTo says to whom; a message the mail server refuses does not undo the invoice.
func (s *Service) PortalInvoice(ctx context.Context, name string, in api.PortalInvoiceInput) (api.PortalInvoice, error) {
	tenantID, err := s.offered(ctx, name)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	total, err := s.CheckPortalInput(ctx, tenantID, in)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	rc := *in.Recipient
	rc.ID, rc.EmployeeData = "", nil // a customer names no person of the tenant
	t, done, err := s.portalTicket(ctx, tenantID, in.Number, total, rc.Tin)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	if done != nil {
		return s.portalFiles(ctx, tenantID, t, done.ID, done.UUID)
	}
	inv, err := s.invoice(ctx, tenantID, t.ID, &rc)
	if e, ok := apierr.As(err); ok && e.Status == http.StatusConflict {
		return api.PortalInvoice{}, &PortalError{Problem: ProblemUnavailable, Err: e} // another request took it
	} else if err != nil {
		return api.PortalInvoice{}, err
	}
	out, err := s.portalFiles(ctx, tenantID, t, inv.ID, inv.UUID)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	if to := strings.TrimSpace(rc.Email); to != "" && s.Mail != nil && s.Mail.Transport != nil {
		as := auth.Caller{TenantID: tenantID, PersonID: t.IssuerPersonID, Environment: s.Environment}
		if _, err := s.Mail.Send(ctx, as, invoices.SendInput{InvoiceID: inv.ID, ToEmail: to}); err == nil {
			out.EmailedTo = &to
		}
	}
	return out, nil
}

// PortalFiles answers again the files of a ticket a customer invoiced (the portal page's
// downloads): the ticket of that number and total, invoiced to the RFC tin; 404 otherwise.
func (s *Service) PortalFiles(ctx context.Context, name, number, total, tin string) (api.PortalInvoice, error) {
	tenantID, err := s.offered(ctx, name)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	d, err := cfdi.ParseDecimal(total)
	if err != nil {
		return api.PortalInvoice{}, notFound()
	}
	t, done, err := s.portalTicket(ctx, tenantID, number, d, tin)
	if err != nil {
		return api.PortalInvoice{}, err
	}
	if done == nil {
		return api.PortalInvoice{}, notFound()
	}
	return s.portalFiles(ctx, tenantID, t, done.ID, done.UUID)
}

// offered finds the tenant of a portal that serves customers: 403 when it does not.
func (s *Service) offered(ctx context.Context, name string) (string, error) {
	var tenantID string
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		id, _, offered, err := s.portal(tx, name)
		if err != nil {
			return err
		}
		if !offered {
			return &PortalError{Problem: ProblemNotOffered, Err: apierr.Forbidden(MsgNotOffered)}
		}
		tenantID = id
		return nil
	})
	return tenantID, err
}

func notFound() error {
	return &PortalError{Problem: ProblemNotFound, Err: apierr.NotFoundText(MsgTicketNotFound)}
}

// portalTicket finds the ticket a customer names by its number and total. done is its invoice
// when it was already invoiced to the RFC tin; any other state but pending is a 409, and a
// pending ticket whose billing window closed is the window's 400.
func (s *Service) portalTicket(ctx context.Context, tenantID, number string, total cfdi.Decimal, tin string) (storage.Ticket, *storage.Invoice, error) {
	var t storage.Ticket
	var done *storage.Invoice
	now := s.now()
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		t, err = tx.Tickets(tenantID).ByNumber(NormalizeNumber(number))
		if errors.Is(err, storage.ErrNotFound) {
			return notFound()
		} else if err != nil {
			return err
		}
		if want, err := cfdi.ParseDecimal(t.Total); err != nil || want.Cmp(total) != 0 {
			return notFound()
		}
		switch t.Status {
		case api.TicketInvoiced:
			rec, err := tx.Invoices(tenantID).Get(t.InvoiceID)
			if err != nil {
				return err
			}
			if rec.RecipientTin != strings.ToUpper(strings.TrimSpace(tin)) {
				return &PortalError{Problem: ProblemInvoiced, Err: notPending(t)}
			}
			done = &rec
		case api.TicketPending:
			a, err := autoinvoice.Record(tx, tenantID)
			if err != nil {
				return err
			}
			if err := inWindow(t, a, now); err != nil {
				return &PortalError{Problem: ProblemExpired, Err: err}
			}
		default:
			return &PortalError{Problem: ProblemUnavailable, Err: notPending(t)}
		}
		return nil
	})
	return t, done, err
}

// portalFiles is the portal's answer of a ticket's CFDI: its XML and PDF.
func (s *Service) portalFiles(ctx context.Context, tenantID string, t storage.Ticket, invoiceID, uuid string) (api.PortalInvoice, error) {
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
