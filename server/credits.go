package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
)

// creditRoutes are the credits operations of the API: the transfer the official client sends
// (its transferStamps and withdrawStamps).
func (s *Server) creditRoutes() {
	s.mux.Handle("POST /api/v4/stamps", s.apiRoute(s.standard, s.transferCredits))
}

func (s *Server) transferCredits(r *http.Request) (any, error) {
	var in api.StampTransfer
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	if err := s.accounts.TransferCredits(r.Context(), caller(r), in); err != nil {
		return nil, err
	}
	return true, nil
}
