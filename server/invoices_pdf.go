package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/invoices"
)

// invoicePDFRoutes is the printed representation of a stamped invoice (the official client's
// invoices.getPdf: POST /api/v4/invoices/pdf {invoiceId, bandColor, fontColor, base64Logo}).
func (s *Server) invoicePDFRoutes() {
	s.mux.Handle("POST /api/v4/invoices/pdf", s.apiRoute(s.standard, s.invoicePDF))
}

func (s *Server) invoicePDF(r *http.Request) (any, error) {
	var in invoices.PDFRequest
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.invoices.PDF(r.Context(), caller(r), in)
}
