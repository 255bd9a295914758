package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/catalogs"
)

// Catalog search pages (spec 1 §8: page size of a catalog search 1 to 100, default 50).
const (
	catalogPageDefault = 50
	catalogPageMax     = 100
)

func (s *Server) catalogRoutes() {
	s.mux.Handle("GET /api/v4/catalogs", s.apiRoute(s.standard, s.listCatalogs))
	s.mux.Handle("GET /api/v4/catalogs/{name}/load", s.apiRoute(s.standard, s.loadCatalog))
	s.mux.Handle("GET /api/v4/catalogs/{name}/key/{id}", s.apiRoute(s.standard, s.getCatalogRecord))
	s.mux.Handle("GET /api/v4/catalogs/{name}/{term}", s.apiRoute(s.standard, s.searchCatalog))
	s.mux.Handle("GET /api/v4/download-catalogs", s.apiRoute(s.standard, s.listDownloadCatalogs))
	s.mux.Handle("GET /api/v4/download-catalogs/{name}", s.apiRoute(s.standard, s.getDownloadCatalog))
	s.mux.Handle("GET /healthz/catalogs", s.publicRoute(s.probes, s.catalogStatus))
}

func (s *Server) listCatalogs(r *http.Request) (any, error) { return s.catalogs.List(), nil }

func (s *Server) getCatalogRecord(r *http.Request) (any, error) {
	return s.catalogs.Get(r.Context(), r.PathValue("name"), r.PathValue("id"))
}

func (s *Server) searchCatalog(r *http.Request) (any, error) {
	page, size, err := paging(r, catalogPageDefault, catalogPageMax)
	if err != nil {
		return nil, err
	}
	return s.catalogs.Search(r.Context(), r.PathValue("name"), r.PathValue("term"), page, size)
}

func (s *Server) loadCatalog(r *http.Request) (any, error) {
	if r.URL.RawQuery == "" {
		// the whole catalog: one answer, made once, for every caller
		return s.catalogs.LoadAll(r.Context(), r.PathValue("name"))
	}
	return s.heavyLoad(r, func() (any, error) {
		res, err := s.catalogs.Load(r.Context(), r.PathValue("name"), r.URL.Query())
		if err != nil {
			return nil, err
		}
		return bare{data: res}, nil
	})
}

func (s *Server) listDownloadCatalogs(r *http.Request) (any, error) {
	return s.catalogs.DownloadList(), nil
}

func (s *Server) getDownloadCatalog(r *http.Request) (any, error) {
	return s.catalogs.Download(r.PathValue("name"))
}

func (s *Server) catalogStatus(r *http.Request) (any, error) {
	return s.catalogs.Status(r.Context())
}

// Catalogs is the catalogs service (other areas check their values against it).
func (s *Server) Catalogs() *catalogs.Service { return s.catalogs }
