package commands

import (
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// Tests of docs/security.md that no other test file holds.

// TestNoFlagTakesASecret: no flag of any command takes a password, key, secret or token as its
// value (argv is visible to every user of the machine and kept in shell histories): such flags
// name a file, an environment variable, stdin or a prompt instead.
func TestNoFlagTakesASecret(t *testing.T) {
	app := NewApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, "dev"))
	secretWords := []string{"password", "secret", "token", "api-key", "apikey", "master-key"}
	safeEnds := []string{"-file", "-env", "-stdin", "-prompt", "-dir"}
	checked := 0
	var walk func(path string, flags []cli.Flag, cmds []*cli.Command)
	walk = func(path string, flags []cli.Flag, cmds []*cli.Command) {
		for _, fl := range flags {
			for _, name := range fl.Names() {
				lower := strings.ToLower(name)
				secretish := false
				for _, w := range secretWords {
					secretish = secretish || strings.Contains(lower, w)
				}
				if !secretish {
					continue
				}
				checked++
				if _, isBool := fl.(*cli.BoolFlag); isBool {
					continue
				}
				safe := false
				for _, e := range safeEnds {
					safe = safe || strings.HasSuffix(lower, e)
				}
				if !safe {
					t.Errorf("%s --%s takes a secret on the command line", path, name)
				}
			}
		}
		for _, c := range cmds {
			walk(path+" "+c.Name, c.Flags, c.Subcommands)
		}
	}
	walk(app.Name, app.Flags, app.Commands)
	if checked < 5 {
		t.Fatalf("only %d secret flags found: the walk does not reach the command tree", checked)
	}
}
