package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
)

// creditRoutes are the credits operations of the API: the transfer the official client sends
// (its transferStamps and withdrawStamps), and the movements it lists (getList, getById).
func (s *Server) creditRoutes() {
	s.mux.Handle("POST /api/v4/stamps", s.apiRoute(s.standard, s.transferCredits))
	s.mux.Handle("GET /api/v4/stamps", s.apiRoute(s.standard, s.listStampTransactions))
	s.mux.Handle("GET /api/v4/stamps/{id}", s.apiRoute(s.standard, s.getStampTransaction))
}

func (s *Server) listStampTransactions(r *http.Request) (any, error) {
	page, size, err := paging(r, accounts.DefaultStampPage, accounts.MaxStampPage)
	if err != nil {
		return nil, err
	}
	return s.accounts.ListStampTransactions(r.Context(), caller(r), page, size)
}

func (s *Server) getStampTransaction(r *http.Request) (any, error) {
	return s.accounts.GetStampTransaction(r.Context(), caller(r), r.PathValue("id"))
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
