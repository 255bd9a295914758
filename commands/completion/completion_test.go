package completion

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

func TestCompletionScripts(t *testing.T) {
	cmdtest.Isolate(t)
	for shell, wants := range map[string][]string{
		"bash":       {"complete -o bashdefault -o default -F _timbra_complete timbra", "--generate-bash-completion"},
		"zsh":        {"#compdef timbra", "compdef _timbra timbra", "--generate-bash-completion"},
		"fish":       {"complete -c timbra", "-a 'completion'", "-a 'help h'"}, // the commands of the app
		"powershell": {"Register-ArgumentCompleter -Native -CommandName 'timbra'", "--generate-bash-completion"},
	} {
		r := runArgs(t, "completion", shell)
		cmdtest.WantCode(t, r, 0)
		cmdtest.WantContains(t, shell, r.Out, wants...)
		cmdtest.WantNotContains(t, shell, r.Out, "PROG")
	}
}
