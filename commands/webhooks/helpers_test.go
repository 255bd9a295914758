package webhooks

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// run1 runs one command line through an app of `timbra webhooks` and `timbra inspect`.
func run1(t *testing.T, o cmdtest.Opts, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd, NewCmdInspect), o, args...)
}

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return run1(t, cmdtest.Opts{}, args...)
}

func strp(s string) *string { return &s }

func intp(n int) *int { return &n }
