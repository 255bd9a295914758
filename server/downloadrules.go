package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrules"
)

// downloadRuleRoutes are the bulk-download rules (spec 2 §4.6) and the operator's approval of
// them; subscriptions are the operator's too (internal/accounts/subscriptions.go).
func (s *Server) downloadRuleRoutes() {
	s.mux.Handle("GET /api/v4/download-rules", s.apiRoute(s.standard, s.listDownloadRules))
	s.mux.Handle("POST /api/v4/download-rules", s.apiRoute(s.standard, s.createDownloadRule))
	s.mux.Handle("GET /api/v4/download-rules/{id}", s.apiRoute(s.standard, s.getDownloadRule))
	s.mux.Handle("PUT /api/v4/download-rules/{id}", s.apiRoute(s.standard, s.updateDownloadRule))
	s.mux.Handle("DELETE /api/v4/download-rules/{id}", s.apiRoute(s.standard, s.deleteDownloadRule))
	s.mux.Handle("PUT /admin/v1/tenants/{tenantKey}/download-rules/{id}/status", s.adminRoute(s.setDownloadRuleStatus))
}

func (s *Server) listDownloadRules(r *http.Request) (any, error) {
	page, size, err := paging(r, downloadrules.DefaultPageSize, downloadrules.MaxPageSize)
	if err != nil {
		return nil, err
	}
	return s.rules.List(r.Context(), caller(r), page, size)
}

func (s *Server) getDownloadRule(r *http.Request) (any, error) {
	return s.rules.Get(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) createDownloadRule(r *http.Request) (any, error) {
	var in api.DownloadRuleInput
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.rules.Create(r.Context(), caller(r), in)
}

func (s *Server) updateDownloadRule(r *http.Request) (any, error) {
	var in api.DownloadRuleInput
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.rules.Update(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deleteDownloadRule(r *http.Request) (any, error) {
	if err := s.rules.Delete(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}

func (s *Server) setDownloadRuleStatus(r *http.Request) (any, error) {
	var in api.DownloadRuleStatusUpdate
	if err := decodeBody(r, &in, true); err != nil {
		return nil, err
	}
	return s.rules.SetStatus(r.Context(), r.PathValue("tenantKey"), r.PathValue("id"), in)
}

func (s *Server) getSubscription(r *http.Request) (any, error) {
	return s.accounts.GetSubscription(r.Context(), r.PathValue("tenantKey"))
}

func (s *Server) setSubscription(r *http.Request) (any, error) {
	var in api.SubscriptionUpdate
	if err := decodeBody(r, &in, true); err != nil {
		return nil, err
	}
	return s.accounts.SetSubscription(r.Context(), r.PathValue("tenantKey"), in)
}
