package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
)

// invoiceReadRoutes are the list, an invoice, its XML, its cancellation (with the recipient's
// answer to one that needs acceptance) and SAT's status of it.
func (s *Server) invoiceReadRoutes() {
	s.mux.Handle("GET /api/v4/invoices", s.apiRoute(s.standard, s.listInvoices))
	s.mux.Handle("GET /api/v4/invoices/{id}", s.apiRoute(s.standard, s.getInvoice))
	s.mux.Handle("GET /api/v4/invoices/{id}/xml", s.apiRoute(s.standard, s.invoiceXML))
	s.mux.Handle("DELETE /api/v4/invoices", s.apiRoute(s.standard, s.cancelInvoice))
	s.mux.Handle("POST /api/v4/invoices/{id}/cancellation-answer", s.apiRoute(s.standard, s.answerCancellation))
	s.mux.Handle("POST /api/v4/invoices/status", s.apiRoute(s.standard, s.invoiceStatus))
}

func (s *Server) listInvoices(r *http.Request) (any, error) {
	page, size, err := paging(r, invoices.ListDefaultPageSize, invoices.ListMaxPageSize)
	if err != nil {
		return nil, err
	}
	q := func(name string) string { v, _ := query(r, name); return v }
	return s.invoices.List(r.Context(), caller(r), invoices.ListFilter{
		From: q("from"), To: q("to"), IssuerTin: q("issuerTin"), IssuerID: q("issuerId"),
		RecipientTin: q("recipientTin"), RecipientID: q("recipientId"), TypeCode: q("typeCode"),
		Status: q("status"), Series: q("series"), Page: page, Size: size,
	})
}

func (s *Server) getInvoice(r *http.Request) (any, error) {
	return s.invoices.Get(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) invoiceXML(r *http.Request) (any, error) {
	return s.invoices.XML(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) cancelInvoice(r *http.Request) (any, error) {
	var in api.InvoiceCancel
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.invoices.Cancel(r.Context(), caller(r), in)
}

func (s *Server) answerCancellation(r *http.Request) (any, error) {
	var in api.InvoiceCancellationAnswer
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.invoices.AnswerCancellation(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) invoiceStatus(r *http.Request) (any, error) {
	var in api.InvoiceStatusQuery
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.invoices.Status(r.Context(), caller(r), in)
}
