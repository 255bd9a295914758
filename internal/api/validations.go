package api

import (
	"context"
	"net/http"
)

// SatValidationType is a validation type (spec 3 §2.6).
type SatValidationType struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// SatValidationTypeStatus is a status a type can return, as GET .../<id>/statuses lists it.
type SatValidationTypeStatus struct {
	ID          string `json:"id"`
	Description string `json:"description"`
}

// SatValidationStatus is the status of one result; details is free text, null when none.
type SatValidationStatus struct {
	ID          string  `json:"id"`
	Description string  `json:"description"`
	Details     *string `json:"details"`
}

// SatValidationResult is the result of one type.
type SatValidationResult struct {
	Type   SatValidationType   `json:"type"`
	Status SatValidationStatus `json:"status"`
	Passed bool                `json:"passed"`
}

// SatValidationRequest is the body of POST /api/v4/sat-validations: exactly one of XML (the
// CFDI in Base64) and TIN. A null element of ValidationTypes is an empty one.
type SatValidationRequest struct {
	XML             *string   `json:"xml,omitempty"`
	TIN             *string   `json:"tin,omitempty"`
	ValidationTypes []*string `json:"validationTypes"`
}

// ListSatValidationTypes reads GET /api/v4/sat-validations.
func (c *Client) ListSatValidationTypes(ctx context.Context) ([]SatValidationType, error) {
	var out []SatValidationType
	err := c.Do(ctx, http.MethodGet, "/api/v4/sat-validations", nil, nil, &out)
	return out, err
}

// GetSatValidationType reads one type; the id travels as is (its periods unencoded).
func (c *Client) GetSatValidationType(ctx context.Context, id string) (SatValidationType, error) {
	var out SatValidationType
	err := c.Do(ctx, http.MethodGet, "/api/v4/sat-validations/"+pathSegment(id), nil, nil, &out)
	return out, err
}

// ListSatValidationStatuses reads the statuses a type can return.
func (c *Client) ListSatValidationStatuses(ctx context.Context, id string) ([]SatValidationTypeStatus, error) {
	var out []SatValidationTypeStatus
	err := c.Do(ctx, http.MethodGet, "/api/v4/sat-validations/"+pathSegment(id)+"/statuses", nil, nil, &out)
	return out, err
}

// ValidateSat runs POST /api/v4/sat-validations.
func (c *Client) ValidateSat(ctx context.Context, in SatValidationRequest) ([]SatValidationResult, error) {
	var out []SatValidationResult
	err := c.Do(ctx, http.MethodPost, "/api/v4/sat-validations", nil, in, &out)
	return out, err
}

// pathSegment escapes what a path segment cannot hold and keeps the rest (periods) as is.
func pathSegment(s string) string {
	b := make([]byte, 0, len(s))
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '/' || ch == '?' || ch == '#' || ch == '%' || ch <= ' ' || ch >= 0x7f {
			b = append(b, '%', hex[ch>>4], hex[ch&15])
			continue
		}
		b = append(b, ch)
	}
	return string(b)
}
