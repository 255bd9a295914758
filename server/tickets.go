package server

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/tickets"
)

// Texts of the tickets list's day filters.
const (
	msgTicketDay = "'%s' debe ser una fecha YYYY-MM-DD."
)

// ticketRoutes are Auto CFDI's tickets, global invoices and usage report (spec 3 §4.6; the
// tickets resource is timbra's design, documented in package tickets), and the customer portal.
func (s *Server) ticketRoutes() {
	s.mux.Handle("POST /api/v4/auto-invoice/tickets", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		var in api.TicketInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		return s.tickets.Record(r.Context(), caller(r), in)
	}))
	s.mux.Handle("GET /api/v4/auto-invoice/tickets", s.apiRoute(s.standard, s.listTickets))
	s.mux.Handle("GET /api/v4/auto-invoice/tickets/{id}", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		return s.tickets.Get(r.Context(), caller(r), r.PathValue("id"))
	}))
	s.mux.Handle("POST /api/v4/auto-invoice/tickets/{id}/cancel", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		return s.tickets.Cancel(r.Context(), caller(r), r.PathValue("id"))
	}))
	s.mux.Handle("POST /api/v4/auto-invoice/tickets/{id}/invoice", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		var in api.TicketInvoiceInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		return s.tickets.Invoice(r.Context(), caller(r), r.PathValue("id"), in)
	}))
	s.mux.Handle("POST /api/v4/auto-invoice/global-invoices", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		var in api.GlobalInvoiceInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		return s.tickets.Globalize(r.Context(), caller(r), in)
	}))
	s.mux.Handle("GET /api/v4/auto-invoice/reports/consumption", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		q := r.URL.Query()
		return s.tickets.Report(r.Context(), caller(r), q.Get("from"), q.Get("to"), q.Get("personId"))
	}))

	s.mux.Handle("GET /portal/v1/{name}", s.publicRoute(s.anonymous, func(r *http.Request) (any, error) {
		out, err := s.tickets.Portal(r.Context(), r.PathValue("name"))
		return out, moved(err, "")
	}))
	s.mux.Handle("POST /portal/v1/{name}/invoices", s.publicRoute(s.anonymous, func(r *http.Request) (any, error) {
		var in api.PortalInvoiceInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		out, err := s.tickets.PortalInvoice(r.Context(), r.PathValue("name"), in)
		return out, moved(err, "/invoices")
	}))
}

// moved turns a portal's previous name into a 308 to its current one (method and body kept).
func moved(err error, suffix string) error {
	var m *tickets.Moved
	if !errors.As(err, &m) {
		return err
	}
	return &apierr.Error{Status: http.StatusPermanentRedirect, Details: m.Error(),
		Header: http.Header{"Location": {"/portal/v1/" + url.PathEscape(m.Name) + suffix}}}
}

func (s *Server) listTickets(r *http.Request) (any, error) {
	page, size, err := paging(r, tickets.DefaultPageSize, tickets.MaxPageSize)
	if err != nil {
		return nil, err
	}
	f := tickets.Filter{Page: page, Size: size}
	f.Status, _ = query(r, "status")
	f.IssuerID, _ = query(r, "issuerId")
	var fs []api.Failure
	for _, b := range []struct {
		name string
		to   *string
	}{{"from", &f.From}, {"to", &f.To}} {
		v, ok := query(r, b.name)
		if !ok || v == "" {
			continue
		}
		d, err := time.Parse(time.DateOnly, strings.TrimSpace(v))
		if err != nil {
			fs = append(fs, apierr.Field(b.name, strings.Replace(msgTicketDay, "%s", b.name, 1), v, "", nil))
			continue
		}
		*b.to = d.Format(time.DateOnly)
	}
	if len(fs) > 0 {
		return nil, apierr.Invalid(fs...)
	}
	return s.tickets.List(r.Context(), caller(r), f)
}
