package auth

import (
	"net/http"
	"testing"

	"github.com/timbra-mx/timbra/internal/apierr"
)

func status(err error) int {
	if err == nil {
		return 200
	}
	e, _ := apierr.As(err)
	return e.Status
}

func TestOwnerRules(t *testing.T) {
	owner := Caller{PersonID: "o", IsOwner: true}
	other := Caller{PersonID: "p"}
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"owner manages another's credentials", ManageCredentialsOf(owner, "p"), 200},
		{"a person manages own credentials", ManageCredentialsOf(other, "p"), 200},
		{"a person manages another's credentials", ManageCredentialsOf(other, "q"), http.StatusForbidden},
		{"owner modifies owner", ModifyPerson(owner, "o", true), 200},
		{"other modifies owner", ModifyPerson(other, "o", true), http.StatusForbidden},
		{"other modifies non-owner", ModifyPerson(other, "q", false), 200},
	}
	for _, c := range cases {
		if got := status(c.err); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	if e, _ := apierr.As(ManageCredentialsOf(other, "q")); e.Details != MsgOnlyOwnerCredentials {
		t.Errorf("details = %q", e.Details)
	}
}
