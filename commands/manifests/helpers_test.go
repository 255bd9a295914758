package manifests

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// run1 runs one command line through an app of the manifests commands.
func run1(t *testing.T, o cmdtest.Opts, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd), o, args...)
}

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return run1(t, cmdtest.Opts{}, args...)
}
