package listen

import (
	"bytes"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// run1 runs one command line through an app of `timbra listen`.
func run1(t *testing.T, o cmdtest.Opts, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.App(NewCmd), o, args...)
}

func runArgs(t *testing.T, args ...string) cmdtest.Result {
	t.Helper()
	return run1(t, cmdtest.Opts{}, args...)
}

// syncBuffer is a buffer written by a running command and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
