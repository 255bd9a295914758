package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/manifests"
)

// manifestRoutes are the carta manifiesto's: the official client's manifests.sign, and the
// signed letters kept, read by the person and the tenant's owner.
func (s *Server) manifestRoutes() {
	s.mux.Handle("POST /api/v4/manifests", s.apiRoute(s.standard, s.signManifest))
	s.mux.Handle("GET /api/v4/manifests/{personId}", s.apiRoute(s.standard, s.latestManifest))
	s.mux.Handle("GET /api/v4/manifests/{personId}/versions", s.apiRoute(s.standard, s.listManifests))
	s.mux.Handle("GET /api/v4/manifests/{personId}/versions/{id}", s.apiRoute(s.standard, s.getManifest))
}

func (s *Server) signManifest(r *http.Request) (any, error) {
	var in api.SignManifestRequest
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.manifests.Sign(r.Context(), caller(r), in)
}

func (s *Server) latestManifest(r *http.Request) (any, error) {
	return s.manifests.Latest(r.Context(), caller(r), r.PathValue("personId"))
}

func (s *Server) listManifests(r *http.Request) (any, error) {
	page, size, err := paging(r, manifests.DefaultPage, manifests.MaxPage)
	if err != nil {
		return nil, err
	}
	return s.manifests.Versions(r.Context(), caller(r), r.PathValue("personId"), page, size)
}

func (s *Server) getManifest(r *http.Request) (any, error) {
	return s.manifests.Version(r.Context(), caller(r), r.PathValue("personId"), r.PathValue("id"))
}
