package server

import (
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/products"
)

// productRoutes are the products of the tenant, at the paths the service's existing clients
// call (internal/products/products.go says how).
func (s *Server) productRoutes() {
	s.mux.Handle("GET /api/v4/products", s.apiRoute(s.standard, s.listProducts))
	s.mux.Handle("POST /api/v4/products", s.apiRoute(s.standard, s.createProduct))
	s.mux.Handle("GET /api/v4/products/{id}", s.apiRoute(s.standard, s.getProduct))
	s.mux.Handle("PUT /api/v4/products/{id}", s.apiRoute(s.standard, s.updateProduct))
	s.mux.Handle("DELETE /api/v4/products/{id}", s.apiRoute(s.standard, s.deleteProduct))
}

// Products is the products service (invoices by reference read their items through it).
func (s *Server) Products() *products.Service { return s.products }

// productAmounts is the shape of a product body's numbers, read first as numbers so that a value
// of another type fails at its path (decodeExact).
type productAmounts struct {
	UnitPrice    *float64 `json:"unitPrice"`
	ProductTaxes []struct {
		Rate *float64 `json:"rate"`
	} `json:"productTaxes"`
}

func (s *Server) listProducts(r *http.Request) (any, error) {
	page, size, err := paging(r, products.DefaultPageSize, products.MaxPageSize)
	if err != nil {
		return nil, err
	}
	return s.products.List(r.Context(), caller(r), page, size)
}

func (s *Server) getProduct(r *http.Request) (any, error) {
	return s.products.Get(r.Context(), caller(r), r.PathValue("id"))
}

func (s *Server) createProduct(r *http.Request) (any, error) {
	var in api.ProductInput
	if err := decodeExact(r, &productAmounts{}, &in); err != nil {
		return nil, err
	}
	return s.products.Create(r.Context(), caller(r), in)
}

func (s *Server) updateProduct(r *http.Request) (any, error) {
	var in api.ProductInput
	if err := decodeExact(r, &productAmounts{}, &in); err != nil {
		return nil, err
	}
	return s.products.Update(r.Context(), caller(r), r.PathValue("id"), in)
}

func (s *Server) deleteProduct(r *http.Request) (any, error) {
	if err := s.products.Delete(r.Context(), caller(r), r.PathValue("id")); err != nil {
		return nil, err
	}
	return true, nil
}
