// Package api holds the wire types of the timbra API (requests, responses, the envelope, paged
// lists, validation failures) and the Go HTTP client every command uses. The server encodes the
// same types, so the two cannot drift.
package api

import "encoding/json"

// Envelope is the body of every response (spec 1 §7.1).
type Envelope struct {
	Data            any    `json:"data"`
	Succeeded       bool   `json:"succeeded"`
	Message         string `json:"message"`
	Details         string `json:"details"`
	HTTPStatusCode  int    `json:"httpStatusCode"`
	TraceIdentifier string `json:"traceIdentifier"`
}

// RawEnvelope is an Envelope whose data is left undecoded, for clients.
type RawEnvelope struct {
	Data            json.RawMessage `json:"data"`
	Succeeded       bool            `json:"succeeded"`
	Message         string          `json:"message"`
	Details         string          `json:"details"`
	HTTPStatusCode  int             `json:"httpStatusCode"`
	TraceIdentifier string          `json:"traceIdentifier"`
}

// Failure is one validation or parsing failure (spec 1 §7.4, §7.5).
type Failure struct {
	PropertyName   string         `json:"propertyName"`
	ErrorMessage   string         `json:"errorMessage"`
	AttemptedValue any            `json:"attemptedValue"`
	CustomState    any            `json:"customState"`
	Severity       int            `json:"severity"`
	ErrorCode      *string        `json:"errorCode"`
	Placeholders   map[string]any `json:"formattedMessagePlaceholderValues"`
}

// PagedList is a page of a list (spec 1 §7.2). TotalItems repeats TotalCount for clients that
// read that name.
type PagedList[T any] struct {
	Items           []T  `json:"items"`
	PageNumber      int  `json:"pageNumber"`
	PageSize        int  `json:"pageSize"`
	TotalPages      int  `json:"totalPages"`
	TotalCount      int  `json:"totalCount"`
	TotalItems      int  `json:"totalItems"`
	HasPreviousPage bool `json:"hasPreviousPage"`
	HasNextPage     bool `json:"hasNextPage"`
}

// NewPage builds a page from the items of that page and the total count.
func NewPage[T any](items []T, pageNumber, pageSize, total int) PagedList[T] {
	if items == nil {
		items = []T{}
	}
	pages := 0
	if pageSize > 0 {
		pages = (total + pageSize - 1) / pageSize
	}
	return PagedList[T]{
		Items:           items,
		PageNumber:      pageNumber,
		PageSize:        pageSize,
		TotalPages:      pages,
		TotalCount:      total,
		TotalItems:      total,
		HasPreviousPage: pageNumber > 1,
		HasNextPage:     pageNumber < pages,
	}
}

// CatalogRecord is a catalog record (CatalogDto, spec 1 §7.3).
type CatalogRecord struct {
	ID          string  `json:"id"`
	Description string  `json:"description"`
	CreatedAt   *string `json:"createdAt"`
	UpdatedAt   *string `json:"updatedAt"`
}
