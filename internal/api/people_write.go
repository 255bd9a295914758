package api

import (
	"context"
	"net/http"
	"net/url"
)

// PersonInput is the body of POST /api/v4/people and PUT /api/v4/people/<id> (spec 2 §2.1,
// §4.3). A nil field was not sent: on create it takes its default, on update it keeps the saved
// value. Read-only fields of Person (balances, tenantId, isOwner, expanded records...) are not
// here, so the server ignores them when sent.
type PersonInput struct {
	ID             *string `json:"id,omitempty"`
	LegalName      *string `json:"legalName,omitempty"`
	Email          *string `json:"email,omitempty"`
	PhoneNumber    *string `json:"phoneNumber,omitempty"`
	Password       *string `json:"password,omitempty"`
	SatTaxRegimeID *string `json:"satTaxRegimeId,omitempty"`
	SatCfdiUseID   *string `json:"satCfdiUseId,omitempty"`
	UserTypeID     *string `json:"userTypeId,omitempty"`
	Tin            *string `json:"tin,omitempty"`
	Curp           *string `json:"curp,omitempty"`
	ZipCode        *string `json:"zipCode,omitempty"`
	CountryID      *string `json:"countryId,omitempty"`
	ForeignTin     *string `json:"foreignTin,omitempty"`
	Base64Photo    *string `json:"base64Photo,omitempty"`
	TaxPassword    *string `json:"taxPassword,omitempty"`
}

// CreatePerson creates a person in the caller's tenant.
func (c *Client) CreatePerson(ctx context.Context, in PersonInput) (Person, error) {
	var out Person
	err := c.Do(ctx, http.MethodPost, "/api/v4/people", nil, in, &out)
	return out, err
}

// UpdatePerson changes the fields of a person that in carries.
func (c *Client) UpdatePerson(ctx context.Context, id string, in PersonInput) (Person, error) {
	var out Person
	err := c.Do(ctx, http.MethodPut, "/api/v4/people/"+url.PathEscape(id), nil, in, &out)
	return out, err
}

// DeletePerson deletes a person and revokes its API keys.
func (c *Client) DeletePerson(ctx context.Context, id string) error {
	return c.Do(ctx, http.MethodDelete, "/api/v4/people/"+url.PathEscape(id), nil, nil, nil)
}
