package cmdutil

import (
	"testing"

	"github.com/urfave/cli/v2"
)

func TestClosestCommand(t *testing.T) {
	cs := []*cli.Command{{Name: "people"}, {Name: "login"}, {Name: "logout"}, {Name: "secret", Hidden: true}}
	for in, want := range map[string]string{"peple": "people", "logni": "login", "bogus": "", "secrt": "", "admin": ""} {
		if got := closestCommand(cs, in); got != want {
			t.Errorf("closestCommand(%q) = %q, want %q", in, got, want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}
