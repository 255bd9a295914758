package server

import (
	"context"
	"net/http"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// routes is the whole route table.
func (s *Server) routes() {
	s.mux.Handle("GET /healthz", s.publicRoute(s.probes, s.health))
	s.mux.HandleFunc("GET "+OpenAPIPath, s.serveOpenAPI)
	s.mux.HandleFunc("GET /metrics", s.serveMetrics)
	s.mux.HandleFunc("GET /admin/v1/backup", s.serveBackup)

	s.mux.Handle("GET /admin/v1/tenants", s.adminRoute(s.listTenants))
	s.mux.Handle("POST /admin/v1/tenants", s.adminRoute(s.createTenant))
	s.mux.Handle("POST /admin/v1/tenants/{tenantKey}/credits", s.adminRoute(s.grantCredits))
	s.mux.Handle("GET /admin/v1/tenants/{tenantKey}/subscription", s.adminRoute(s.getSubscription))
	s.mux.Handle("PUT /admin/v1/tenants/{tenantKey}/subscription", s.adminRoute(s.setSubscription))

	s.peopleRoutes()

	s.mux.Handle("GET /api/v4/apikeys", s.apiRoute(s.standard, s.listKeys))
	s.mux.Handle("POST /api/v4/apikeys", s.apiRoute(s.standard, s.createKey))
	s.mux.Handle("GET /api/v4/apikeys/{id}", s.apiRoute(s.standard, s.getKey))
	s.mux.Handle("PUT /api/v4/apikeys/{id}", s.apiRoute(s.standard, s.updateKey))
	s.mux.Handle("DELETE /api/v4/apikeys/{id}", s.apiRoute(s.standard, s.deleteKey))

	s.webhookRoutes()
	s.mux.Handle(requestLogPattern, s.guard(s.standard, s.tailRequests))
	s.listenRoutes()
	s.catalogRoutes()
	s.employmentRoutes()
	s.creditRoutes()
	s.taxFileRoutes()
	s.productRoutes()
	s.downloadRuleRoutes()
	s.downloadRequestRoutes()
	s.manifestRoutes()
	s.validationRoutes()
	s.invoiceRoutes()
	s.invoicePDFRoutes()
	s.invoiceReadRoutes()
	s.invoiceSendRoutes()
	s.autoInvoiceRoutes()
	s.ticketRoutes()
	s.portalPages()

	s.mux.Handle("/", http.HandlerFunc(s.noRoute))
}

func caller(r *http.Request) auth.Caller {
	c, _ := auth.From(r.Context())
	return c
}

// MsgDatabaseDown is /healthz's answer when the database does not answer.
const MsgDatabaseDown = "The database does not answer: the server cannot serve requests."

// health answers GET /healthz once the database has answered a read (within 2 s).
func (s *Server) health(r *http.Request) (any, error) {
	h := api.Health{Status: "ok", Version: s.cfg.Version, Environment: s.cfg.Environment, Database: "bbolt"}
	if s.shared != nil {
		h.Database, h.Node = "postgresql", s.cfg.Node
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	err := s.store.View(ctx, func(tx storage.Tx) error {
		_, err := tx.Meta().Get(storage.MetaEnvironment)
		return err
	})
	if err != nil {
		s.log.Error("health: the database does not answer", "err", err)
		return nil, &apierr.Error{Status: http.StatusServiceUnavailable, Details: MsgDatabaseDown}
	}
	return h, nil
}

// API keys.

func (s *Server) listKeys(r *http.Request) (any, error) {
	page, size, err := paging(r, accounts.KeysDefaultPageSize, accounts.KeysMaxPageSize)
	if err != nil {
		return nil, err
	}
	return s.accounts.ListKeys(r.Context(), caller(r), page, size)
}

func (s *Server) createKey(r *http.Request) (any, error) {
	var in api.APIKeyCreate
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.accounts.CreateKey(r.Context(), caller(r), in)
}

func (s *Server) getKey(r *http.Request) (any, error) {
	return s.accounts.GetKey(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) updateKey(r *http.Request) (any, error) {
	var in api.APIKeyUpdate
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.accounts.UpdateKey(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deleteKey(r *http.Request) (any, error) {
	if err := s.accounts.DeleteKey(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}

// Operator API.

func (s *Server) listTenants(r *http.Request) (any, error) {
	return s.accounts.ListTenants(r.Context())
}

func (s *Server) createTenant(r *http.Request) (any, error) {
	var in api.TenantCreate
	if err := decodeBody(r, &in, true); err != nil {
		return nil, err
	}
	return s.accounts.CreateTenant(r.Context(), in)
}

func (s *Server) grantCredits(r *http.Request) (any, error) {
	var in api.CreditGrant
	if err := decodeBody(r, &in, true); err != nil {
		return nil, err
	}
	return s.accounts.GrantCredits(r.Context(), r.PathValue("tenantKey"), in)
}
