package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
)

// employmentRoutes are the employer and employee data of a person (spec 2 §4.4, §4.5). The path
// names the person: the employer for employer data, the employee for employee data.
func (s *Server) employmentRoutes() {
	s.mux.Handle("GET /api/v4/people/{id}/employer", s.apiRoute(s.standard, s.getEmployer))
	s.mux.Handle("POST /api/v4/people/{id}/employer", s.apiRoute(s.standard, s.createEmployer))
	s.mux.Handle("PUT /api/v4/people/{id}/employer", s.apiRoute(s.standard, s.replaceEmployer))
	s.mux.Handle("DELETE /api/v4/people/{id}/employer", s.apiRoute(s.standard, s.deleteEmployer))
	s.mux.Handle("GET /api/v4/people/{id}/employee", s.apiRoute(s.standard, s.getEmployee))
	s.mux.Handle("POST /api/v4/people/{id}/employee", s.apiRoute(s.standard, s.createEmployee))
	s.mux.Handle("PUT /api/v4/people/{id}/employee", s.apiRoute(s.standard, s.replaceEmployee))
	s.mux.Handle("DELETE /api/v4/people/{id}/employee", s.apiRoute(s.standard, s.deleteEmployee))
}

// decodeExact decodes a body whose amounts must be read exactly. The first pass reads the
// amounts as numbers (shape), so a value of another type fails at its path as every parsing
// failure does (spec 1 §7.5); the second keeps each amount's text (api.Decimal).
func decodeExact(r *http.Request, shape, v any) error {
	raw, err := decodeBodyRaw(r, shape, false)
	if err != nil {
		return err
	}
	return decodeRaw(raw, v, false)
}

type employerAmounts struct {
	OwnResourceAmount *float64 `json:"ownResourceAmount"`
}

type employeeAmounts struct {
	BaseSalaryForContributions *float64 `json:"baseSalaryForContributions"`
	IntegratedDailySalary      *float64 `json:"integratedDailySalary"`
	TimePercentage             *float64 `json:"timePercentage"`
}

func (s *Server) getEmployer(r *http.Request) (any, error) {
	return s.employ.GetEmployer(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) createEmployer(r *http.Request) (any, error) {
	var in api.EmployerInput
	if err := decodeExact(r, &employerAmounts{}, &in); err != nil {
		return nil, err
	}
	return s.employ.CreateEmployer(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) replaceEmployer(r *http.Request) (any, error) {
	var in api.EmployerInput
	if err := decodeExact(r, &employerAmounts{}, &in); err != nil {
		return nil, err
	}
	return s.employ.ReplaceEmployer(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deleteEmployer(r *http.Request) (any, error) {
	if err := s.employ.DeleteEmployer(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}

func (s *Server) getEmployee(r *http.Request) (any, error) {
	return s.employ.GetEmployee(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) createEmployee(r *http.Request) (any, error) {
	var in api.EmployeeInput
	if err := decodeExact(r, &employeeAmounts{}, &in); err != nil {
		return nil, err
	}
	return s.employ.CreateEmployee(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) replaceEmployee(r *http.Request) (any, error) {
	var in api.EmployeeInput
	if err := decodeExact(r, &employeeAmounts{}, &in); err != nil {
		return nil, err
	}
	return s.employ.ReplaceEmployee(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deleteEmployee(r *http.Request) (any, error) {
	if err := s.employ.DeleteEmployee(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}
