package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// NotClients are the top commands that do not call the API (`timbra server` runs it): they take
// no --profile or --time-zone.
var NotClients = []string{"server"}

// Setup makes app a timbra command tree run with f: the streams, the global flags (--output,
// --time-zone, --profile) on every command, usage errors with a hint to the help, a help command
// per group and the hint for an unknown command. app names the binary and lists its commands;
// the commands named in NotClients take only --output of the global flags.
func Setup(f *Factory, app *cli.App) {
	app.Version = f.Version
	app.EnableBashCompletion = true
	app.Reader, app.Writer, app.ErrWriter = f.IO.In, f.IO.Out, f.IO.Err
	// the cli package adds --help itself only when it adds its own help command
	app.Flags = append(globalFlags(f, ""), cli.HelpFlag)
	// The exit code is decided by Execute, never by the cli package (which would call os.Exit).
	app.ExitErrHandler = func(*cli.Context, error) {}
	// `timbra people bogus --help` asks the cli package for the help of an unknown command
	app.CommandNotFound = func(c *cli.Context, name string) {
		f.notFound = unknownCommand(c, name)
	}
	app.Commands = append(app.Commands, newHelpCmd())
	app.Action = GroupAction
	app.Before = func(c *cli.Context) error {
		// TIMBRA_PROFILE is read here rather than as the flag's environment variable, so that a
		// --profile given anywhere on the command line wins over it.
		if v := os.Getenv("TIMBRA_PROFILE"); v != "" {
			if err := ValidProfileName(v); err != nil {
				return UsageErrorf(c, "TIMBRA_PROFILE: %v", err)
			}
			f.Profile, f.profileSource = v, "env TIMBRA_PROFILE"
		}
		return nil
	}
	app.OnUsageError = onUsageError
	for _, c := range app.Commands {
		if c.Name == "help" {
			continue
		}
		if slices.Contains(NotClients, c.Name) {
			// of the global flags, only --output (and only where it has no flag of that name itself)
			prepare(c, app.HelpName, func() []cli.Flag { return []cli.Flag{outputFlag(f, "GLOBAL")} })
			continue
		}
		prepare(c, app.HelpName, func() []cli.Flag { return globalFlags(f, "GLOBAL") })
	}
}

// Execute runs one command line (without the program name) through app, made by Setup, and
// returns the exit code: 0 success, 1 the API answered an error or a check failed, 2 wrong usage,
// 130 interrupted.
func Execute(ctx context.Context, f *Factory, app *cli.App, args []string) int {
	argv := append([]string{app.Name}, ReorderArgs(app.Commands, app.Flags, args)...)
	err := app.RunContext(ctx, argv)
	if err == nil {
		err = f.notFound
	}
	return f.ExitCode(ctx, err)
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) {
		fmt.Fprintf(c.App.Writer, "%s %s\n", c.App.Name, c.App.Version)
	}
}

// prepare walks a command tree: every command gets its full name (for hints) and the usage-error
// handler; groups get an action that rejects unknown subcommands and a help command of their own;
// leaves lose the implicit `help` subcommand; and every command gets its own copy of the flags
// given, so that global flags may follow the command name (`timbra people list -o json`).
func prepare(c *cli.Command, parent string, flags func() []cli.Flag) {
	full := parent + " " + c.Name
	if c.HelpName == "" && strings.Contains(parent, " ") {
		// what the cli package sets when it runs c; it sets the top commands' itself, taking a
		// HelpName given to one of them as relative to the app's
		c.HelpName = full
	}
	if c.OnUsageError == nil {
		c.OnUsageError = onUsageError
	}
	for _, fl := range flags() {
		if !hasAnyName(c.Flags, fl.Names()) {
			c.Flags = append(c.Flags, fl)
		}
	}
	requireFlags(c)
	if len(c.Subcommands) == 0 {
		c.HideHelpCommand = true
		return
	}
	if c.Action == nil {
		c.Action = GroupAction
	}
	if FindCommand(c.Subcommands, "help") == nil {
		c.Subcommands = append(c.Subcommands, newHelpCmd())
	}
	for _, s := range c.Subcommands {
		if s.Name != "help" {
			prepare(s, full, flags)
		}
	}
}

// requireFlags checks a command's required flags itself, as one usage error (one line, the
// hint to the help, exit 2) like every other: the cli package would print the whole help and
// exit 1. Each such flag is marked "(required)" in the help instead.
func requireFlags(c *cli.Command) {
	var names []string
	for _, fl := range c.Flags {
		rf, ok := fl.(cli.RequiredFlag)
		if !ok || !rf.IsRequired() {
			continue
		}
		v := reflect.ValueOf(fl)
		if v.Kind() != reflect.Pointer || !v.Elem().FieldByName("Required").CanSet() {
			continue
		}
		v.Elem().FieldByName("Required").SetBool(false)
		if u := v.Elem().FieldByName("Usage"); u.CanSet() && !strings.Contains(u.String(), "(required)") {
			u.SetString(u.String() + " (required)")
		}
		names = append(names, fl.Names()[0])
	}
	if len(names) == 0 || c.Action == nil {
		return
	}
	requiredMu.Lock()
	required[c] = names
	requiredMu.Unlock()
	action := c.Action
	c.Action = func(ctx *cli.Context) error {
		var missing []string
		for _, n := range names {
			if !ctx.IsSet(n) {
				missing = append(missing, "--"+n)
			}
		}
		switch len(missing) {
		case 0:
			return action(ctx)
		case 1:
			return UsageErrorf(ctx, "missing flag %s", missing[0])
		}
		return UsageErrorf(ctx, "missing flags %s", strings.Join(missing, ", "))
	}
}

var (
	requiredMu sync.Mutex
	required   = map[*cli.Command][]string{}
)

// RequiredFlags are the names of the flags a prepared command requires (for tests).
func RequiredFlags(c *cli.Command) []string {
	requiredMu.Lock()
	defer requiredMu.Unlock()
	return required[c]
}

func hasAnyName(flags []cli.Flag, names []string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			for _, m := range names {
				if n == m {
					return true
				}
			}
		}
	}
	return false
}

// globalFlags are the options of every client command, shown under category in its help. Their
// actions store the value in f; the most specific one given wins because actions run from the
// root down.
func globalFlags(f *Factory, category string) []cli.Flag {
	return []cli.Flag{
		outputFlag(f, category),
		&cli.StringFlag{
			Name:     "time-zone",
			Usage:    "IANA time zone `NAME` sent to the API as X-TIME-ZONE, for example America/Mexico_City",
			Category: category,
			Action: func(c *cli.Context, v string) error {
				if v == "" {
					f.TimeZone = ""
					return nil
				}
				if _, err := time.LoadLocation(v); err != nil || v == "Local" {
					return UsageErrorf(c, "unknown time zone %q for --time-zone (use an IANA name such as America/Mexico_City)", v)
				}
				f.TimeZone = v
				return nil
			},
		},
		&cli.StringFlag{
			Name:        "profile",
			Usage:       "configuration profile `NAME` to use",
			DefaultText: "$TIMBRA_PROFILE or " + DefaultProfile,
			Category:    category,
			Action: func(c *cli.Context, v string) error {
				if err := ValidProfileName(v); err != nil {
					return UsageErrorf(c, "%v", err)
				}
				f.Profile, f.profileSource = v, SrcFlag+" --profile"
				return nil
			},
		},
	}
}

// newHelpCmd is `help [command...]`, a new one for each group. (The cli package's own help
// command is one shared value that it modifies when run; a second run in the same process, as in
// tests, would make it its own subcommand.)
func newHelpCmd() *cli.Command {
	return &cli.Command{
		Name:            "help",
		Aliases:         []string{"h"},
		Usage:           "Show the commands, or the help of one command",
		ArgsUsage:       "[command]",
		HideHelpCommand: true,
		Action: func(c *cli.Context) error {
			ctx := c.Lineage()[1] // the context of the group this help belongs to
			args := c.Args().Slice()
			if len(args) == 0 {
				return showHelp(ctx)
			}
			for i, name := range args {
				sub := FindCommand(ctx.Command.Subcommands, name)
				if sub == nil {
					return unknownCommand(ctx, name)
				}
				if i == len(args)-1 {
					return cli.ShowCommandHelp(ctx, name)
				}
				next := cli.NewContext(c.App, nil, ctx)
				next.Command = sub
				ctx = next
			}
			return nil
		},
	}
}

// GroupAction runs for a command that has subcommands when none of them was named: with no
// argument it shows the help, otherwise the argument is an unknown command.
func GroupAction(c *cli.Context) error {
	if c.Args().Present() {
		return unknownCommand(c, c.Args().First())
	}
	return showHelp(c)
}

// showHelp prints the help of the command of c, or of the app at the root.
func showHelp(c *cli.Context) error {
	if c.Command == nil || c.Command.Name == "" || c.Command.HelpName == c.App.HelpName {
		return cli.ShowAppHelp(c)
	}
	return cli.ShowSubcommandHelp(c)
}

func unknownCommand(c *cli.Context, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, helpName(c))
	var subs []*cli.Command
	if c.Command != nil {
		subs = c.Command.Subcommands
	}
	if len(subs) == 0 {
		subs = c.App.Commands
	}
	if s := closestCommand(subs, name); s != "" {
		msg += fmt.Sprintf(". Did you mean %q?", s)
	}
	return &UsageError{msg: msg, cmd: helpName(c)}
}

// closestCommand is the visible command Suggest names among the names of commands.
func closestCommand(commands []*cli.Command, name string) string {
	var names []string
	byName := map[string]string{}
	for _, c := range commands {
		if c.Hidden {
			continue
		}
		for _, n := range c.Names() {
			names = append(names, n)
			byName[n] = c.Name
		}
	}
	return byName[Suggest(names, name)]
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		msg = "unknown flag: " + Dashes(name)
		if near := nearFlags(c, strings.TrimLeft(name, "-")); len(near) > 0 {
			if len(near) > 1 {
				near = append(near[:len(near)-2], near[len(near)-2]+" or "+near[len(near)-1])
			}
			msg += ". Did you mean " + strings.Join(near, ", ") + "?"
		}
	}
	return &UsageError{msg: msg, cmd: helpName(c)}
}

// nearFlags are the flags of c's command a mistyped flag may have meant: the one Suggest finds,
// else those that start with it (at most three).
func nearFlags(c *cli.Context, name string) []string {
	if c == nil || c.Command == nil || name == "" {
		return nil
	}
	var names []string
	for _, f := range c.Command.Flags {
		names = append(names, f.Names()...)
	}
	if s := Suggest(names, name); s != "" {
		return []string{Dashes(s)}
	}
	var out []string
	for _, n := range names {
		if len(n) > len(name) && strings.HasPrefix(n, name) && len(out) < 3 {
			out = append(out, Dashes(n))
		}
	}
	return out
}

// Dashes writes a flag the way the help shows it: --name, or -n for one letter.
func Dashes(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// helpName is the full command line of the command of c, for example "timbra people list".
func helpName(c *cli.Context) string {
	if c != nil && c.Command != nil && c.Command.HelpName != "" {
		return c.Command.HelpName
	}
	return "timbra"
}

// ExitCode prints err the way its kind asks for and returns the process exit code.
func (f *Factory) ExitCode(ctx context.Context, err error) int {
	if err == nil {
		return 0
	}
	w := f.IO.Err
	var ue *UsageError
	var ae *api.Error
	var ex *Explained
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(w, ue.msg)
		fmt.Fprintf(w, "Run '%s --help'.\n", ue.cmd)
		return 2
	case ctx.Err() != nil && (errors.As(err, &ae) || errors.Is(err, context.Canceled)):
		fmt.Fprintln(w, "interrupted")
		return 130
	case errors.As(err, &ex) && ex.API.Status != 0 && ctx.Err() == nil:
		printExplained(w, ex)
		return 1
	case errors.As(err, &ae):
		printAPIError(w, ae)
		return 1
	case errors.As(err, &ec):
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(w, msg)
		}
		if ec.ExitCode() == 0 {
			return 1
		}
		return ec.ExitCode()
	default:
		fmt.Fprintln(w, err.Error())
		return 1
	}
}

// printAPIError writes the API's failures as `property: message` lines, and the trace id of a
// server error so that it can be found in the server's log.
func printAPIError(w io.Writer, e *api.Error) {
	if e.Status == 0 {
		fmt.Fprintln(w, e.Details) // the server was not reached
		return
	}
	for _, l := range e.Lines() {
		fmt.Fprintln(w, OneLine(l))
	}
	for _, h := range suggestions(e.Failures) {
		fmt.Fprintln(w, "hint: "+h)
	}
	if e.Status >= 500 && e.TraceID != "" {
		fmt.Fprintf(w, "trace: %s\n", e.TraceID)
	}
}

// printExplained is printAPIError with the flag that carried each failed property after its
// line, and the hints of the failures met, once each.
func printExplained(w io.Writer, e *Explained) {
	var hints []string
	for _, h := range e.hints {
		if h.Property == "" && h.Message == "" && !slices.Contains(hints, h.Text) {
			hints = append(hints, h.Text)
		}
	}
	if len(e.API.Failures) == 0 {
		printAPIError(w, e.API)
	}
	for _, fl := range e.API.Failures {
		prop := fl.PropertyName
		if prop == "" {
			prop = "$"
		}
		line := prop + ": " + fl.ErrorMessage
		if src := e.source(fl.PropertyName); src != "" {
			line += " (" + src + ")"
		}
		fmt.Fprintln(w, OneLine(line))
		for _, h := range e.hints {
			if strings.EqualFold(h.Property, fl.PropertyName) && h.Message == fl.ErrorMessage && !slices.Contains(hints, h.Text) {
				hints = append(hints, h.Text)
			}
		}
	}
	for _, h := range append(suggestions(e.API.Failures), hints...) {
		fmt.Fprintln(w, "hint: "+h)
	}
}

// suggestions are the "did you mean" of failures whose customState names the value nearest to
// the one refused (an unknown event type: {"didYouMean": "invoice.canceled"}), once each.
func suggestions(fs []api.Failure) []string {
	var out []string
	for _, fl := range fs {
		m, _ := fl.CustomState.(map[string]any)
		if s, _ := m["didYouMean"].(string); s != "" {
			if h := fmt.Sprintf("did you mean %s?", s); !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// outputFlag is --output (-o): table or json.
func outputFlag(f *Factory, category string) cli.Flag {
	return &cli.StringFlag{
		Name:     "output",
		Aliases:  []string{"o"},
		Usage:    "output `FORMAT`: table or json",
		Value:    OutputTable,
		Category: category,
		Action: func(c *cli.Context, v string) error {
			switch v {
			case OutputTable, OutputJSON:
				f.Output = v
				return nil
			}
			return UsageErrorf(c, "invalid value %q for --output: use table or json", v)
		},
	}
}
