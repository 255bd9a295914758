package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/internal/api"
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

// Sources names the flag (or file field) that carried the value of each property the API may
// fail on, by property name as the API writes it (any case): printed after the server's text,
// so a user sees which part of the command line to change.
type Sources map[string]string

// Hint is advice printed after a failure of the API whose property and text are these; a Hint
// without Property and Message is printed after any answer that failed (a 404, a 401).
type Hint struct {
	Property, Message, Text string
}

// Explained is an API error with the command's sources and hints; it unwraps to the
// *api.Error, and ExitCode prints it with them.
type Explained struct {
	API     *api.Error
	sources Sources
	hints   []Hint
}

func (e *Explained) Error() string { return e.API.Error() }
func (e *Explained) Unwrap() error { return e.API }

// Explain adds a command's sources and hints to an API error; other errors pass as they are.
func Explain(err error, sources Sources, hints ...Hint) error {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return err
	}
	return &Explained{API: ae, sources: sources, hints: hints}
}

// source is the flag of a property ("" when none is known); an item of a list
// (EnabledEvents[1]) is the list's.
func (e *Explained) source(prop string) string {
	if i := strings.IndexByte(prop, '['); i > 0 {
		prop = prop[:i]
	}
	for k, v := range e.sources {
		if strings.EqualFold(k, prop) {
			return v
		}
	}
	return ""
}
