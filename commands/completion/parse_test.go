package completion

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what the completion command parses a command line into, apart from
// running it (the constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("completion", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			shell string
			usage string // a usage error, and the run not called
		}{
			{[]string{"completion", "bash"}, "bash", ""},
			{[]string{"completion", "zsh"}, "zsh", ""},
			{[]string{"completion", "fish"}, "fish", ""},
			{[]string{"completion", "powershell"}, "powershell", ""},
			{[]string{"completion", "pwsh"}, "pwsh", ""},
			{[]string{"completion"}, "", "missing argument: shell (bash, zsh, fish or powershell)"},
			{[]string{"completion", "bash", "zsh"}, "", `unexpected argument "zsh"`},
			{[]string{"completion", "tcsh"}, "", `unknown shell "tcsh": use bash, zsh, fish or powershell`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *completionOptions
				err := cmdtest.Parse(t, newCompletionCmd(f, func(_ *cli.Context, o *completionOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.Shell != c.shell {
					t.Fatalf("err %v, options %+v; want shell %q", err, got, c.shell)
				}
			})
		}
	})
}
