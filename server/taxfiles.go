package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/taxfiles"
)

// taxFileRoutes are the tax files of people (spec 2 §4.2): certificates and private keys, their
// default pair, soft deletion. Uploads are bounded by the body limit (10 MB).
func (s *Server) taxFileRoutes() {
	s.mux.Handle("GET /api/v4/tax-files", s.apiRoute(s.standard, s.listTaxFiles))
	s.mux.Handle("POST /api/v4/tax-files", s.apiRoute(s.standard, s.uploadTaxFile))
	s.mux.Handle("GET /api/v4/tax-files/{id}", s.apiRoute(s.standard, s.getTaxFile))
	s.mux.Handle("DELETE /api/v4/tax-files/{id}", s.apiRoute(s.standard, s.deleteTaxFile))
	s.mux.Handle("GET /api/v4/tax-files/{personId}/default-values", s.apiRoute(s.standard, s.taxFileDefaultValues))
	s.mux.Handle("GET /api/v4/tax-files/{personId}/default-references", s.apiRoute(s.standard, s.taxFileDefaultReferences))
}

// TaxFiles is the tax files service (invoice sealing takes the default pair from it).
func (s *Server) TaxFiles() *taxfiles.Service { return s.taxFiles }

func (s *Server) listTaxFiles(r *http.Request) (any, error) {
	page, size, err := paging(r, taxfiles.DefaultPageSize, taxfiles.MaxPageSize)
	if err != nil {
		return nil, err
	}
	return s.taxFiles.List(r.Context(), caller(r), page, size)
}

func (s *Server) uploadTaxFile(r *http.Request) (any, error) {
	var in taxfiles.Upload
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.taxFiles.Upload(r.Context(), caller(r), in)
}

func (s *Server) getTaxFile(r *http.Request) (any, error) {
	return s.taxFiles.Get(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) deleteTaxFile(r *http.Request) (any, error) {
	if err := s.taxFiles.Delete(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}

func (s *Server) taxFileDefaultValues(r *http.Request) (any, error) {
	return s.taxFiles.DefaultValues(r.Context(), caller(r), r.PathValue("personId"))
}

func (s *Server) taxFileDefaultReferences(r *http.Request) (any, error) {
	return s.taxFiles.DefaultReferences(r.Context(), caller(r), r.PathValue("personId"))
}
