package logs

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// run1 runs one command line through an app of `timbra logs`.
func run1(t *testing.T, o cmdtest.Opts, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd), o, args...)
}
