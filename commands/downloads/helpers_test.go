package downloads

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd), cmdtest.Opts{}, args...)
}
