package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/people"
)

// peopleRoutes is the people resource (spec 2 §4.3). Update and delete follow the paths the
// service's existing clients call (internal/people/write.go says how).
func (s *Server) peopleRoutes() {
	s.mux.Handle("GET /api/v4/people", s.apiRoute(s.standard, s.listPeople))
	s.mux.Handle("POST /api/v4/people", s.apiRoute(s.standard, s.createPerson))
	s.mux.Handle("GET /api/v4/people/{id}", s.apiRoute(s.standard, s.getPerson))
	s.mux.Handle("PUT /api/v4/people/{id}", s.apiRoute(s.standard, s.updatePerson))
	s.mux.Handle("DELETE /api/v4/people/{id}", s.apiRoute(s.standard, s.deletePerson))
}

func (s *Server) listPeople(r *http.Request) (any, error) {
	page, size, err := paging(r, people.DefaultPageSize, people.MaxPageSize)
	if err != nil {
		return nil, err
	}
	return s.people.List(r.Context(), caller(r), page, size)
}

func (s *Server) getPerson(r *http.Request) (any, error) {
	return s.people.Get(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) createPerson(r *http.Request) (any, error) {
	var in api.PersonInput
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.people.Create(r.Context(), caller(r), in)
}

func (s *Server) updatePerson(r *http.Request) (any, error) {
	var in api.PersonInput
	if err := decodeBody(r, &in, false); err != nil {
		return nil, err
	}
	return s.people.Update(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deletePerson(r *http.Request) (any, error) {
	if err := s.people.Delete(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}
