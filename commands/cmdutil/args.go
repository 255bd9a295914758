package cmdutil

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the flag the shell completion scripts append to the command line.
const completionFlag = "--generate-bash-completion"

// ReorderArgs lets flags follow positional arguments. The cli package parses flags with the
// standard flag package, which stops at the first positional argument, so that
// `timbra people get ID -o json` would leave `-o json` unparsed. ReorderArgs walks the command
// names, and for each level puts its flags (with their values) before the next command name, and
// the positional arguments of the last command after all its flags. Nothing after `--` moves;
// the completion flag stays last.
func ReorderArgs(commands []*cli.Command, flags []cli.Flag, args []string) []string {
	var tail []string
	if n := len(args); n > 0 && args[n-1] == completionFlag {
		args, tail = args[:n-1], []string{completionFlag}
	}
	out := make([]string, 0, len(args)+len(tail))
	var positional []string
	descend := true // positional arguments may still name a subcommand
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			out = append(out, a)
			if !strings.Contains(a, "=") && TakesValue(flags, strings.TrimLeft(a, "-")) && i+1 < len(args) {
				i++
				out = append(out, args[i])
			}
			continue
		}
		if descend {
			if sub := FindCommand(commands, a); sub != nil {
				out = append(out, a)
				commands, flags = sub.Subcommands, sub.Flags
				continue
			}
			descend = false
		}
		positional = append(positional, a)
	}
	out = append(out, positional...)
	return append(out, tail...)
}

func FindCommand(commands []*cli.Command, name string) *cli.Command {
	for _, c := range commands {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// TakesValue tells whether the flag called name (without Dashes) is followed by a value.
// Unknown flags are taken as switches; the parser reports them.
func TakesValue(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n != name {
				continue
			}
			if v, ok := f.(cli.DocGenerationFlag); ok {
				return v.TakesValue()
			}
			return false
		}
	}
	return false
}
