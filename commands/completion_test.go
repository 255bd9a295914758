package commands

import (
	"os"
	"strings"
	"testing"
)

func TestCompletionScripts(t *testing.T) {
	isolate(t)
	for shell, wants := range map[string][]string{
		"bash":       {"complete -o bashdefault -o default -F _timbra_complete timbra", "--generate-bash-completion"},
		"zsh":        {"#compdef timbra", "compdef _timbra timbra", "--generate-bash-completion"},
		"fish":       {"complete -c timbra", "people", "admin"},
		"powershell": {"Register-ArgumentCompleter -Native -CommandName 'timbra'", "--generate-bash-completion"},
	} {
		r := runArgs(t, "completion", shell)
		wantCode(t, r, 0)
		wantContains(t, shell, r.out, wants...)
		wantNotContains(t, shell, r.out, "PROG")
	}
}

// The scripts rely on the cli package answering --generate-bash-completion with the next words.
func TestCompletionProtocol(t *testing.T) {
	isolate(t)
	// the default completer reads os.Args to decide between commands and flags
	old := os.Args
	t.Cleanup(func() { os.Args = old })

	os.Args = []string{"timbra", "people", "--generate-bash-completion"}
	r := runArgs(t, "people", "--generate-bash-completion")
	wantCode(t, r, 0)
	words := strings.Fields(r.out)
	if !contains(words, "list") || !contains(words, "get") {
		t.Errorf("completion of 'timbra people': %q", r.out)
	}

	os.Args = []string{"timbra", "--generate-bash-completion"}
	r = runArgs(t, "--generate-bash-completion")
	wantCode(t, r, 0)
	for _, w := range []string{"people", "admin", "login", "completion"} {
		if !contains(strings.Fields(r.out), w) {
			t.Errorf("completion of 'timbra' lacks %q: %q", w, r.out)
		}
	}

	os.Args = []string{"timbra", "people", "list", "--pa", "--generate-bash-completion"}
	r = runArgs(t, "people", "list", "--pa", "--generate-bash-completion")
	wantCode(t, r, 0)
	if !contains(strings.Fields(r.out), "--page") || !contains(strings.Fields(r.out), "--page-size") {
		t.Errorf("flag completion: %q", r.out)
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
