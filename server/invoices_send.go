package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/invoices"
)

// invoiceSendRoutes is sending an invoice by e-mail (internal/invoices/send.go has the decisions).
func (s *Server) invoiceSendRoutes() {
	sender := &invoices.Sender{Store: s.invoices.Store, Transport: s.cfg.Mail, From: s.cfg.MailFrom, PDF: invoices.SendPDF, Now: s.cfg.Now}
	s.mux.Handle("POST /api/v4/invoices/send", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		var in invoices.SendInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		return sender.Send(r.Context(), caller(r), in)
	}))
}
