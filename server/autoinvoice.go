package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/autoinvoice"
)

// autoInvoiceRoutes are the Auto CFDI settings and portal name (spec 3 §4.6).
func (s *Server) autoInvoiceRoutes() {
	ai := &autoinvoice.Service{Store: s.accounts.Store, Environment: s.cfg.Environment, Now: s.cfg.Now}
	s.mux.Handle("GET /api/v4/auto-invoice/settings", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		return ai.Settings(r.Context(), caller(r))
	}))
	s.mux.Handle("PUT /api/v4/auto-invoice/settings", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		var in api.AutoInvoiceSettingsInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		return ai.SetSettings(r.Context(), caller(r), in)
	}))
	s.mux.Handle("GET /api/v4/auto-invoice/portal-name", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		return ai.PortalName(r.Context(), caller(r))
	}))
	s.mux.Handle("GET /api/v4/auto-invoice/portal-names/availability", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		return ai.Availability(r.Context(), caller(r), r.URL.Query().Get("name"))
	}))
	s.mux.Handle("PUT /api/v4/auto-invoice/portal-name", s.apiRoute(s.standard, func(r *http.Request) (any, error) {
		var in api.PortalNameInput
		if err := decodeBody(r, &in, false); err != nil {
			return nil, err
		}
		return ai.SetPortalName(r.Context(), caller(r), in)
	}))
}
