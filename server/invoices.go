package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/invoices"
)

// invoiceRoutes are invoice creation (spec 3 §4.1), the per-type endpoints discontinued on
// 2026-01-01 (spec 1 §9), which answer 410 naming the replacement, and the certificate stamps
// are made with (timbra's own).
func (s *Server) invoiceRoutes() {
	s.mux.Handle("POST /api/v4/invoices", s.apiRoute(s.standard, s.createInvoice))
	for _, p := range []string{"income", "credit-note", "payment", "payroll", "local-taxes"} {
		s.mux.Handle("POST /api/v4/invoices/"+p, s.apiRoute(s.standard, s.deprecatedInvoice))
	}
	s.mux.Handle("GET /api/v4/stamping-certificate", s.apiRoute(s.standard, s.stampingCertificate))
}

func (s *Server) stampingCertificate(r *http.Request) (any, error) {
	return s.invoices.StampingCertificate(r.Context())
}

// Invoices is the invoices service.
func (s *Server) Invoices() *invoices.Service { return s.invoices }

func (s *Server) createInvoice(r *http.Request) (any, error) {
	var in api.InvoiceInput
	if raw, err := decodeBodyRaw(r, &in, false); err != nil {
		if off, bad := badAmount(raw); bad {
			path := pathAt(raw, off)
			return nil, apierr.Invalid(apierr.Parse(path, "The JSON value could not be converted to a number."+position(raw, off, path), nil))
		}
		return nil, err
	}
	return s.invoices.Create(r.Context(), caller(r), in)
}

// amountKeys are the fields of an invoice body that take a number (or a string holding one, as
// the official clients' model allows): api.Amount cannot tell the decoder where a value of
// another type was, so badAmount finds it.
var amountKeys = map[string]bool{"quantity": true, "unitprice": true, "discount": true, "taxrate": true,
	"taxamount": true, "exchangerate": true, "year": true}

// badAmount finds the first amount whose value is a boolean, an object or an array, and the
// offset just past its start.
func badAmount(raw []byte) (int64, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var inObject []bool // per open container: an object?
	expectKey, key := false, ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			inObject = inObject[:len(inObject)-1]
			expectKey = len(inObject) > 0 && inObject[len(inObject)-1]
			continue
		}
		if expectKey {
			key, expectKey = strings.ToLower(tok.(string)), false
			continue
		}
		isValueOfKey := len(inObject) > 0 && inObject[len(inObject)-1]
		_, isBool := tok.(bool)
		d, isDelim := tok.(json.Delim)
		if isValueOfKey && amountKeys[key] && (isBool || isDelim) {
			return dec.InputOffset(), true
		}
		if isDelim {
			inObject = append(inObject, d == '{')
			expectKey = d == '{'
			continue
		}
		expectKey = isValueOfKey
	}
}

func (s *Server) deprecatedInvoice(r *http.Request) (any, error) {
	return nil, invoices.Deprecated(r.URL.Path)
}
