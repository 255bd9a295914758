package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// The scripts rely on the cli package answering --generate-bash-completion with the next words.
func TestCompletionProtocol(t *testing.T) {
	cmdtest.Isolate(t)
	// the default completer reads os.Args to decide between commands and flags
	old := os.Args
	t.Cleanup(func() { os.Args = old })

	os.Args = []string{"timbra", "people", "--generate-bash-completion"}
	r := runArgs(t, "people", "--generate-bash-completion")
	cmdtest.WantCode(t, r, 0)
	words := strings.Fields(r.Out)
	if !contains(words, "list") || !contains(words, "get") {
		t.Errorf("completion of 'timbra people': %q", r.Out)
	}

	os.Args = []string{"timbra", "--generate-bash-completion"}
	r = runArgs(t, "--generate-bash-completion")
	cmdtest.WantCode(t, r, 0)
	for _, w := range []string{"people", "admin", "login", "completion"} {
		if !contains(strings.Fields(r.Out), w) {
			t.Errorf("completion of 'timbra' lacks %q: %q", w, r.Out)
		}
	}

	os.Args = []string{"timbra", "people", "list", "--pa", "--generate-bash-completion"}
	r = runArgs(t, "people", "list", "--pa", "--generate-bash-completion")
	cmdtest.WantCode(t, r, 0)
	if !contains(strings.Fields(r.Out), "--page") || !contains(strings.Fields(r.Out), "--page-size") {
		t.Errorf("flag completion: %q", r.Out)
	}
}

func contains(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}
