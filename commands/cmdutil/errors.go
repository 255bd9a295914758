package cmdutil

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// UsageError is a wrong command line: exit code 2, one line and a hint to the help.
type UsageError struct {
	msg string
	cmd string
}

func (e *UsageError) Error() string { return e.msg }

// usageErrorf returns a usage error of the command of c.
// RunFunc is what a command does once its flags and arguments are parsed into its options. Each
// command's constructor takes one (nil: the command's own), so a test can check what a command
// line parses into without running it.
type RunFunc[O any] func(c *cli.Context, o *O) error

// OrRun is run, or own when run is nil.
func OrRun[O any](run, own RunFunc[O]) RunFunc[O] {
	if run != nil {
		return run
	}
	return own
}

func UsageErrorf(c *cli.Context, format string, a ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, a...), cmd: helpName(c)}
}

// ExactArgs checks the number of positional arguments; names are what each one is, for the
// error message.
func ExactArgs(c *cli.Context, names ...string) error {
	n := c.Args().Len()
	if n < len(names) {
		return UsageErrorf(c, "missing argument: %s", names[n])
	}
	if n > len(names) {
		return UsageErrorf(c, "unexpected argument %q", c.Args().Get(len(names)))
	}
	return nil
}
