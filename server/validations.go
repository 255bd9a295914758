package server

import (
	"context"
	"net/http"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/validations"
	"github.com/timbra-mx/timbra/storage"
)

// validationRoutes are the SAT validations of spec 3 §4.7.
func (s *Server) validationRoutes() {
	s.mux.Handle("GET /api/v4/sat-validations", s.apiRoute(s.standard, s.listValidationTypes))
	s.mux.Handle("POST /api/v4/sat-validations", s.apiRoute(s.standard, s.validate))
	s.mux.Handle("GET /api/v4/sat-validations/{id}", s.apiRoute(s.standard, s.getValidationType))
	s.mux.Handle("GET /api/v4/sat-validations/{id}/statuses", s.apiRoute(s.standard, s.listValidationStatuses))
}

// newValidations builds the validations service of the environment: fictitious results in the
// test environment, the real checks in production (the sources of cfg.Validations; the trust
// store of stamping certificates also holds the server's own, once it has made one).
//
// own answers sat.cfdi.status for the CFDIs the server stamped (the invoices service).
func newValidations(cfg Config, store storage.Store, own validations.OwnStatus) (*validations.Service, error) {
	prod, err := validations.NewProduction(cfg.Validations, ownStampCertificate(store), own)
	if err != nil {
		return nil, err
	}
	var checker validations.Checker = validations.Random{}
	if cfg.Environment == accounts.EnvProduction {
		checker = prod
	}
	return &validations.Service{Store: store, Checker: checker, Now: cfg.Now}, nil
}

// ownStampCertificate reads the server's stamping certificates (the current one and those it
// replaced; the invoices area keeps them): none before the first.
func ownStampCertificate(store storage.Store) validations.CertSource {
	return func(ctx context.Context) ([]*csd.Certificate, error) {
		return invoices.StampingCertificates(ctx, store)
	}
}

func (s *Server) listValidationTypes(r *http.Request) (any, error) { return s.validations.Types(), nil }

func (s *Server) getValidationType(r *http.Request) (any, error) {
	return s.validations.Type(r.PathValue("id"))
}

func (s *Server) listValidationStatuses(r *http.Request) (any, error) {
	return s.validations.TypeStatuses(r.PathValue("id"))
}

func (s *Server) validate(r *http.Request) (any, error) {
	var in api.SatValidationRequest
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.validations.Validate(r.Context(), caller(r), in)
}
