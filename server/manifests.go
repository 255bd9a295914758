package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
)

// manifestRoutes are the carta manifiesto's: the official client's manifests.sign.
func (s *Server) manifestRoutes() {
	s.mux.Handle("POST /api/v4/manifests", s.apiRoute(s.standard, s.signManifest))
}

func (s *Server) signManifest(r *http.Request) (any, error) {
	var in api.SignManifestRequest
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.manifests.Sign(r.Context(), caller(r), in)
}
