// Package auth holds who is asking (the Caller) and the owner rules of spec 1 §5.5, one
// function per rule, called by the services.
package auth

import (
	"context"
	"time"

	"github.com/timbra-mx/timbra/internal/apierr"
)

// Owner-rule texts (spec 1 §5, spec 2 §4).
const (
	MsgOnlyOwnerCredentials = "Solo el propietario de la cuenta puede gestionar las credenciales de otra persona: correo, contraseña, API keys y certificados."
	MsgOnlyOwnerModifyOwner = "Solo el propietario de la cuenta puede modificar al propietario de la cuenta."
)

// Caller is the person a request acts for.
type Caller struct {
	TenantID    string
	PersonID    string
	APIKeyID    string
	IsOwner     bool
	Environment string
	// Zone is the time zone the caller asked for with X-TIME-ZONE; nil when none.
	Zone *time.Location
}

type callerKey struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// From returns the caller of ctx; ok is false on an unauthenticated context.
func From(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}

// ManageCredentialsOf allows the owner, or the person themself, to manage a person's
// credentials (email, password, API keys, tax files).
func ManageCredentialsOf(c Caller, personID string) error {
	if c.IsOwner || c.PersonID == personID {
		return nil
	}
	return apierr.Forbidden(MsgOnlyOwnerCredentials)
}

// SeesCredentialsOf tells whether c may see a person's credentials; others get "not found".
func SeesCredentialsOf(c Caller, personID string) bool { return c.IsOwner || c.PersonID == personID }

// ModifyPerson allows anybody of the tenant to modify a non-owner, and only the owner to modify
// the owner.
func ModifyPerson(c Caller, personID string, personIsOwner bool) error {
	if personIsOwner && !(c.IsOwner && c.PersonID == personID) {
		return apierr.Forbidden(MsgOnlyOwnerModifyOwner)
	}
	return nil
}
