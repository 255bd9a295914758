package login

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/config"
	"github.com/timbra-mx/timbra/commands/people"
)

// run1 runs one command line through an app of login, logout, config (to show what a login
// saved) and people (a client command that uses the profile).
func run1(t *testing.T, o cmdtest.Opts, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd, NewCmdLogout, config.NewCmd, people.NewCmd), o, args...)
}

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return run1(t, cmdtest.Opts{}, args...)
}
