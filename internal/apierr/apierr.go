// Package apierr is the only way a service reports a failure the client should see. Services
// return *Error; the server turns it into the response envelope in one place.
package apierr

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/timbra-mx/timbra/internal/api"
)

// Texts shared by every area (spec 1 §7).
const (
	MsgClient          = "Sorry, it's not me, it's you."
	MsgTooManyRequests = "Too Many Requests"
	MsgServer          = "Internal Server Error"
	DetailsValidation  = "One or more validation failures have occurred."
	DetailsServer      = "Ocurrió un error interno. Comparte el traceIdentifier con soporte para localizar la petición."
	DetailsNotFound    = "Not Found"
	BodyRequired       = "El cuerpo de la petición es requerido y no debe estar vacío."
	DetailsUnauth      = "Falta una API key válida: envía X-TENANT-KEY y X-API-KEY."
	DetailsBodyTooBig  = "El cuerpo de la petición excede el límite de 10 MB."
)

// Error is a failure with its HTTP status. Failures, when present, are sent in data; otherwise
// Data (usually nil) is.
type Error struct {
	Status   int
	Details  string
	Failures []api.Failure
	Data     any
	Header   http.Header // extra response headers (Retry-After, Allow)
}

func (e *Error) Error() string {
	if len(e.Failures) > 0 {
		return fmt.Sprintf("%d: %s: %s", e.Status, e.Failures[0].PropertyName, e.Failures[0].ErrorMessage)
	}
	return fmt.Sprintf("%d: %s", e.Status, e.Details)
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Invalid is a 400 with validation failures in data.
func Invalid(fs ...api.Failure) *Error {
	return &Error{Status: http.StatusBadRequest, Details: DetailsValidation, Failures: fs}
}

// BadRequest is a 400 whose cause is in details.
func BadRequest(details string) *Error {
	return &Error{Status: http.StatusBadRequest, Details: details}
}

// Unauthorized is the 401 of a request without a valid API key.
func Unauthorized() *Error { return &Error{Status: http.StatusUnauthorized, Details: DetailsUnauth} }

// Forbidden is a 403: permission, owner rule, environment or subscription rule.
func Forbidden(details string) *Error { return &Error{Status: http.StatusForbidden, Details: details} }

// NotFound is the 404 of most resources.
func NotFound(id string) *Error {
	return &Error{Status: http.StatusNotFound, Details: "No such resource for the given Id: " + id}
}

// NotFoundText is a 404 with a resource-specific text.
func NotFoundText(details string) *Error {
	return &Error{Status: http.StatusNotFound, Details: details}
}

// Conflict is a 409.
func Conflict(details string) *Error { return &Error{Status: http.StatusConflict, Details: details} }

// Field is a validation failure with an error code and placeholders.
func Field(property, message string, attempted any, code string, placeholders map[string]any) api.Failure {
	f := api.Failure{PropertyName: property, ErrorMessage: message, AttemptedValue: attempted, Placeholders: placeholders}
	if code != "" {
		f.ErrorCode = &code
	}
	return f
}

// Parse is a parsing failure (spec 1 §7.5): errorCode and placeholders null.
func Parse(property, message string, attempted any) api.Failure {
	return api.Failure{PropertyName: property, ErrorMessage: message, AttemptedValue: attempted}
}

// Masked is the attemptedValue of a secret that was sent: `[masked: n]` (spec 1 §7.4).
func Masked(s *string) any {
	if s == nil {
		return nil
	}
	return fmt.Sprintf("[masked: %d]", len([]rune(*s)))
}

// MessageFor is the envelope message of a status.
func MessageFor(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return MsgTooManyRequests
	case status >= 500:
		return MsgServer
	case status >= 400:
		return MsgClient
	}
	return ""
}
