package people

import (
	"strings"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
)

// Texts of the write side (spec 2 §4.3; the required and length texts in the style the rest of
// the API uses).
const (
	MsgTaxRegimeNotFound = "El régimen fiscal '%s' no existe en el catálogo c_RegimenFiscal del SAT."
	MsgCfdiUseNotFound   = "El uso de CFDI '%s' no existe en el catálogo c_UsoCFDI del SAT."
	MsgCountryNotFound   = "El país '%s' no existe en el catálogo c_Pais del SAT."
	MsgUserTypeInvalid   = "UserTypeId debe ser uno de: C, U. 'T' está reservado y solo se permite cuando la persona ya es Tenant."
	MsgLegalNameEmpty    = "'Legal Name' no debería estar vacío."
	MsgEmailEmpty        = "'Email' no debería estar vacío."
	MsgPasswordEmpty     = "'Password' no debería estar vacío."
	// MsgPasswordRule is the one failure of a sign-in password that breaks the rule; its errorCode
	// names the first requirement not met. English: spec 1 §7.4 says the password rule's texts
	// are (as the JSON parser's), in the wording of its errorCodes' framework.
	MsgPasswordRule = "Passwords must be at least 6 characters and have at least one uppercase ('A'-'Z'), one lowercase ('a'-'z'), one digit ('0'-'9') and one non alphanumeric character."
	MsgIDsMismatch  = "IDs mismatches"
)

// Limits of spec 1 §8.
const (
	MinPasswordLength = 6
	MaxForeignTin     = 40
	// MaxEmail is the longest e-mail (the identity store's column of the reference service);
	// it also keeps the e-mail index's key within what the store can key.
	MaxEmail       = 256
	MaxTaxPassword = 24
)

// User types a caller may send (spec 2 §2.1); UserTypeTenant is reserved.
const (
	UserTypeCustomer = "C"
	UserTypeUser     = "U"
)

// Password error codes: the ASP.NET Identity codes the reference service answers.
const (
	CodePasswordTooShort       = "PasswordTooShort"
	CodePasswordRequiresUpper  = "PasswordRequiresUpper"
	CodePasswordRequiresLower  = "PasswordRequiresLower"
	CodePasswordRequiresDigit  = "PasswordRequiresDigit"
	CodePasswordRequiresNonAlp = "PasswordRequiresNonAlphanumeric"
	CodeNotEmpty               = "NotEmptyValidator"
	CodeInvalidFormat          = "InvalidFormat" // as invoices name a malformed RFC
	CodeDuplicateEmail         = "DuplicateEmail"
)

// PasswordProblem returns the error code of the first requirement of the sign-in password rule
// that password does not meet, in the order the rule's text lists them (length, upper, lower,
// digit, other character), or "" when it meets them all. Letters are only the unaccented A to Z
// and a to z: an accented letter or ñ is a character that is not a letter or digit.
func PasswordProblem(password string) string {
	var upper, lower, digit, other bool
	for _, r := range password {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		default:
			other = true
		}
	}
	switch {
	case utf8.RuneCountInString(password) < MinPasswordLength:
		return CodePasswordTooShort
	case !upper:
		return CodePasswordRequiresUpper
	case !lower:
		return CodePasswordRequiresLower
	case !digit:
		return CodePasswordRequiresDigit
	case !other:
		return CodePasswordRequiresNonAlp
	}
	return ""
}

// CheckPassword returns the failure of a sign-in password that breaks the rule, or nil. Its
// attemptedValue is null (spec 1 §7.4).
func CheckPassword(password string) *api.Failure {
	code := PasswordProblem(password)
	if code == "" {
		return nil
	}
	f := apierr.Field("Password", MsgPasswordRule, nil, code, nil)
	return &f
}

// checkTin returns the failure of a tin sent that is not an RFC (cfdi.CheckRFC's text), or nil;
// an empty tin clears it, and on update the saved tin is not checked again.
func checkTin(tin, saved *string, create bool) *api.Failure {
	if tin == nil || *tin == "" || (!create && saved != nil && *saved == *tin) {
		return nil
	}
	if err := cfdi.CheckRFC(strings.ToUpper(*tin)); err != nil {
		f := apierr.Field("Tin", err.Error(), *tin, CodeInvalidFormat, apierr.Placeholders("Tin", *tin))
		return &f
	}
	return nil
}

// sentOr is an optional field after a write: what was sent (empty clears), else the saved value.
func sentOr(sent, saved *string) string {
	if sent != nil {
		return *sent
	}
	return api.Deref(saved)
}

// changed tells whether an optional field sent differs from the saved value.
func changed(sent, saved *string) bool { return sent != nil && *sent != api.Deref(saved) }

// notEmpty is the failure of a required value that is missing or blank.
func notEmpty(property, message string, attempted any) api.Failure {
	return apierr.Field(property, message, attempted, CodeNotEmpty, nil)
}
