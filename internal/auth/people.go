package auth

import (
	"strings"

	"github.com/timbra-mx/timbra/internal/apierr"
)

// CredentialsChange tells whether an update of a person changes its credentials (spec 1 §5.6):
// a non-empty sign-in password, or an email or private key password different from the saved
// one. Sending the same email or private key password again is not a change; neither is a change
// of only the case of the letters A to Z of the email, or of the spaces around it. A nil value
// was not sent; a saved private key password that is absent is the empty one.
func CredentialsChange(password, email, taxPassword *string, savedEmail, savedTaxPassword string) bool {
	if password != nil && *password != "" {
		return true
	}
	if email != nil && foldAZ(strings.TrimSpace(*email)) != foldAZ(strings.TrimSpace(savedEmail)) {
		return true
	}
	return taxPassword != nil && *taxPassword != savedTaxPassword
}

// foldAZ lowers the letters A to Z only: any other character change is a change.
func foldAZ(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ChangeCredentialsOf allows a credentials change of a person only to the owner and the person
// themself; anything that is not a change needs no permission.
func ChangeCredentialsOf(c Caller, personID string, change bool) error {
	if !change {
		return nil
	}
	return ManageCredentialsOf(c, personID)
}

// DeletePerson allows anybody of the tenant to delete a non-owner; nobody deletes the owner,
// not even the owner (spec 1 §5.5).
func DeletePerson(c Caller, personIsOwner bool) error {
	if personIsOwner {
		return apierr.Forbidden(MsgOnlyOwnerModifyOwner)
	}
	return nil
}
