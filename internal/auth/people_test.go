package auth

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/internal/apierr"
)

func TestCredentialsChange(t *testing.T) {
	s := func(v string) *string { return &v }
	cases := []struct {
		name                  string
		password, email, taxP *string
		savedTax              string
		want                  bool
	}{
		{"nothing sent", nil, nil, nil, "", false},
		{"empty password", s(""), nil, nil, "", false},
		{"a password", s("Abc123!"), nil, nil, "", true},
		{"same email", nil, s("ana@x.mx"), nil, "", false},
		{"email case of A-Z and spaces", nil, s("  ANA@X.MX "), nil, "", false},
		{"another email", nil, s("ana2@x.mx"), nil, "", true},
		{"same tax password", nil, nil, s("secreto"), "secreto", false},
		{"another tax password", nil, nil, s("Secreto"), "secreto", true},
		{"tax password cleared", nil, nil, s(""), "secreto", true},
		{"empty tax password, none saved", nil, nil, s(""), "", false},
	}
	for _, c := range cases {
		if got := CredentialsChange(c.password, c.email, c.taxP, "ana@x.mx", c.savedTax); got != c.want {
			t.Errorf("%s: change = %v, want %v", c.name, got, c.want)
		}
	}
	// only A to Z fold: an accented capital is another character
	if !CredentialsChange(nil, s("Á@x.mx"), nil, "á@x.mx", "") {
		t.Error("a change of Á to á is a change")
	}
}

func TestPersonRules(t *testing.T) {
	owner := Caller{PersonID: "o", IsOwner: true}
	other := Caller{PersonID: "p"}
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"other changes another's credentials", ChangeCredentialsOf(other, "q", true), http.StatusForbidden},
		{"other sends another's same credentials", ChangeCredentialsOf(other, "q", false), 200},
		{"other changes own credentials", ChangeCredentialsOf(other, "p", true), 200},
		{"owner changes another's credentials", ChangeCredentialsOf(owner, "q", true), 200},
		{"owner deletes owner", DeletePerson(owner, true), http.StatusForbidden},
		{"other deletes owner", DeletePerson(other, true), http.StatusForbidden},
		{"other deletes non-owner", DeletePerson(other, false), 200},
	}
	for _, c := range cases {
		if got := status(c.err); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	if e, _ := apierr.As(DeletePerson(owner, true)); e.Details != MsgOnlyOwnerModifyOwner {
		t.Errorf("details = %q", e.Details)
	}
}
