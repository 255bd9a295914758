package events

import (
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// run1 runs one command line through an app of `timbra events`.
func run1(t *testing.T, o cmdtest.Opts, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd), o, args...)
}

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return run1(t, cmdtest.Opts{}, args...)
}

func intp(n int) *int { return &n }

const (
	hookID     = "3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15"
	deliveryID = "0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f"
	eventID    = "0195a7c4-2b1e-7c3d-9f00-000000000001"
)
