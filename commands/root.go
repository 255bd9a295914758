// Package commands is the command tree of the timbra binary: `timbra server` and the client
// commands that call its API. Every command is an options struct plus a run function that writes
// only to the injected IOStreams, so that it can be tested without a terminal.
package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	_ "time/tzdata" // --time-zone must validate on machines without a zoneinfo database

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// version is set at build time: -ldflags "-X github.com/timbra-mx/timbra/commands.version=v1.2.3".
var version = "dev"

// IOStreams are the standard streams a command may use. Commands never touch os.Stdin,
// os.Stdout or os.Stderr directly.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	InTTY  bool // stdin is a terminal: a command may prompt
	OutTTY bool // stdout is a terminal: tables, colour, relative times
	ErrTTY bool // stderr is a terminal: colour in diagnostics
}

// ColorOut tells whether stdout may be coloured (a terminal, NO_COLOR unset, TERM not dumb).
func (s *IOStreams) ColorOut() bool { return s.OutTTY && colorAllowed() }

// ColorErr tells whether stderr may be coloured.
func (s *IOStreams) ColorErr() bool { return s.ErrTTY && colorAllowed() }

func colorAllowed() bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok {
		return false
	}
	return os.Getenv("TERM") != "dumb"
}

// Output formats chosen by --output.
const (
	outputTable = "table"
	outputJSON  = "json"
)

// Factory carries what commands share: the streams, the global options and the lazily built API
// client. Global options are filled while the command line is parsed, before any Action runs.
type Factory struct {
	IO *IOStreams

	// Client builds the API client from the profile, keyring and environment on first use.
	Client func() (*api.Client, error)

	Output   string // "table" or "json" (--output)
	TimeZone string // IANA name (--time-zone), sent as X-TIME-ZONE; empty for none
	Profile  string // --profile or TIMBRA_PROFILE; "default" when neither

	// HTTP is the HTTP client given to API clients; nil uses the api package's default.
	HTTP *http.Client
	// Now is the clock used for relative times.
	Now func() time.Time
	// Version is the version of this binary.
	Version string

	profileSource string // where Profile came from, for `timbra config show`

	clientOnce sync.Once
	client     *api.Client
	clientErr  error

	// notFound records an unknown command whose help was asked for.
	notFound error
}

// NewFactory returns a Factory writing to io, with the default global options.
func NewFactory(ios *IOStreams) *Factory {
	f := &Factory{IO: ios, Output: outputTable, Profile: defaultProfile, profileSource: srcDefault, Now: time.Now, Version: version}
	f.Client = func() (*api.Client, error) {
		f.clientOnce.Do(func() { f.client, f.clientErr = f.newClient() })
		return f.client, f.clientErr
	}
	return f
}

// JSON tells whether --output json was asked for.
func (f *Factory) JSON() bool { return f.Output == outputJSON }

func (f *Factory) userAgent() string { return "timbra/" + f.Version }

// Main runs the binary with the real process streams; SIGINT and SIGTERM cancel the context.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ios := &IOStreams{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	return Run(ctx, os.Args[1:], ios)
}

// Run runs one command line (without the program name) and returns the exit code: 0 success,
// 1 the API answered an error or a check failed, 2 wrong usage, 130 interrupted.
func Run(ctx context.Context, args []string, ios *IOStreams) int {
	return run(ctx, args, NewFactory(ios))
}

func run(ctx context.Context, args []string, f *Factory) int {
	app := newApp(f)
	argv := append([]string{app.Name}, reorderArgs(app.Commands, app.Flags, args)...)
	err := app.RunContext(ctx, argv)
	if err == nil {
		err = f.notFound
	}
	return f.exitCode(ctx, err)
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) {
		fmt.Fprintf(c.App.Writer, "%s %s\n", c.App.Name, c.App.Version)
	}
}

func newApp(f *Factory) *cli.App {
	app := &cli.App{
		Name:     "timbra",
		HelpName: "timbra",
		Usage:    "Run and use a Mexican e-invoicing (CFDI 4.0) API",
		Description: "timbra is one binary: `timbra server` runs the invoicing API, every other command is a\n" +
			"client of it.\n\n" +
			"Examples:\n" +
			"  timbra server init\n" +
			"  TIMBRA_API_KEY=... timbra login --base-url http://127.0.0.1:8080 --tenant-key TENANT\n" +
			"  timbra people list -o json",
		Version:              f.Version,
		EnableBashCompletion: true,
		Reader:               f.IO.In,
		Writer:               f.IO.Out,
		ErrWriter:            f.IO.Err,
		// the cli package adds --help itself only when it adds its own help command
		Flags: append(globalFlags(f, ""), cli.HelpFlag),
		// The exit code is decided by Run, never by the cli package (which would call os.Exit).
		ExitErrHandler: func(*cli.Context, error) {},
		// `timbra people bogus --help` asks the cli package for the help of an unknown command
		CommandNotFound: func(c *cli.Context, name string) {
			f.notFound = unknownCommand(c, name)
		},
		Commands: []*cli.Command{
			newServerCmd(f),
			newLoginCmd(f),
			newLogoutCmd(f),
			newConfigCmd(f),
			newPeopleCmd(f),
			newProductsCmd(f),
			newDownloadRulesCmd(f),
			newAutoInvoiceCmd(f),
			newTicketsCmd(f),
			newInvoicesCmd(f),
			newValidateCmd(f),
			newTaxFilesCmd(f),
			newAPIKeysCmd(f),
			newCreditsCmd(f),
			newWebhooksCmd(f),
			newEventsCmd(f),
			newCatalogsCmd(f),
			newListenCmd(f, nil),
			newTriggerCmd(f, nil),
			newInspectCmd(f, "timbra inspect"),
			newAdminCmd(f),
			newCompletionCmd(f),
			newHelpCmd(),
		},
	}
	app.Action = groupAction
	app.Before = func(c *cli.Context) error {
		// TIMBRA_PROFILE is read here rather than as the flag's environment variable, so that a
		// --profile given anywhere on the command line wins over it.
		if v := os.Getenv("TIMBRA_PROFILE"); v != "" {
			if err := validProfileName(v); err != nil {
				return usageErrorf(c, "TIMBRA_PROFILE: %v", err)
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
		if c.Name == "server" {
			// timbra server is not a client: of the global flags it takes only --output (and only
			// where it has no flag of that name itself).
			prepare(c, app.HelpName, func() []cli.Flag { return []cli.Flag{outputFlag(f, "GLOBAL")} })
			continue
		}
		prepare(c, app.HelpName, func() []cli.Flag { return globalFlags(f, "GLOBAL") })
	}
	return app
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
	if len(c.Subcommands) == 0 {
		c.HideHelpCommand = true
		return
	}
	if c.Action == nil {
		c.Action = groupAction
	}
	if findCommand(c.Subcommands, "help") == nil {
		c.Subcommands = append(c.Subcommands, newHelpCmd())
	}
	for _, s := range c.Subcommands {
		if s.Name != "help" {
			prepare(s, full, flags)
		}
	}
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
					return usageErrorf(c, "unknown time zone %q for --time-zone (use an IANA name such as America/Mexico_City)", v)
				}
				f.TimeZone = v
				return nil
			},
		},
		&cli.StringFlag{
			Name:        "profile",
			Usage:       "configuration profile `NAME` to use",
			DefaultText: "$TIMBRA_PROFILE or " + defaultProfile,
			Category:    category,
			Action: func(c *cli.Context, v string) error {
				if err := validProfileName(v); err != nil {
					return usageErrorf(c, "%v", err)
				}
				f.Profile, f.profileSource = v, srcFlag+" --profile"
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
				sub := findCommand(ctx.Command.Subcommands, name)
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

// groupAction runs for a command that has subcommands when none of them was named: with no
// argument it shows the help, otherwise the argument is an unknown command.
func groupAction(c *cli.Context) error {
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
	return &usageError{msg: msg, cmd: helpName(c)}
}

// closestCommand is the visible command whose name is at most two edits away from name.
func closestCommand(commands []*cli.Command, name string) string {
	best, bestDist := "", 3
	for _, c := range commands {
		if c.Hidden {
			continue
		}
		for _, n := range c.Names() {
			if d := editDistance(n, name); d < bestDist {
				best, bestDist = c.Name, d
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, counted in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func onUsageError(c *cli.Context, err error, _ bool) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		msg = "unknown flag: " + dashes(name)
	}
	return &usageError{msg: msg, cmd: helpName(c)}
}

// dashes writes a flag the way the help shows it: --name, or -n for one letter.
func dashes(name string) string {
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

// exitCode prints err the way its kind asks for and returns the process exit code.
func (f *Factory) exitCode(ctx context.Context, err error) int {
	if err == nil {
		return 0
	}
	w := f.IO.Err
	var ue *usageError
	var ae *api.Error
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ue):
		fmt.Fprintln(w, ue.msg)
		fmt.Fprintf(w, "Run '%s --help'.\n", ue.cmd)
		return 2
	case ctx.Err() != nil && (errors.As(err, &ae) || errors.Is(err, context.Canceled)):
		fmt.Fprintln(w, "interrupted")
		return 130
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
		fmt.Fprintln(w, oneLine(l))
	}
	if e.Status >= 500 && e.TraceID != "" {
		fmt.Fprintf(w, "trace: %s\n", e.TraceID)
	}
}

// usageError is a wrong command line: exit code 2, one line and a hint to the help.
type usageError struct {
	msg string
	cmd string
}

func (e *usageError) Error() string { return e.msg }

// usageErrorf returns a usage error of the command of c.
// runFunc is what a command does once its flags and arguments are parsed into its options. Each
// command's constructor takes one (nil: the command's own), so a test can check what a command
// line parses into without running it.
type runFunc[O any] func(c *cli.Context, o *O) error

// orRun is run, or own when run is nil.
func orRun[O any](run, own runFunc[O]) runFunc[O] {
	if run != nil {
		return run
	}
	return own
}

func usageErrorf(c *cli.Context, format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), cmd: helpName(c)}
}

// exactArgs checks the number of positional arguments; names are what each one is, for the
// error message.
func exactArgs(c *cli.Context, names ...string) error {
	n := c.Args().Len()
	if n < len(names) {
		return usageErrorf(c, "missing argument: %s", names[n])
	}
	if n > len(names) {
		return usageErrorf(c, "unexpected argument %q", c.Args().Get(len(names)))
	}
	return nil
}

// outputFlag is --output (-o): table or json.
func outputFlag(f *Factory, category string) cli.Flag {
	return &cli.StringFlag{
		Name:     "output",
		Aliases:  []string{"o"},
		Usage:    "output `FORMAT`: table or json",
		Value:    outputTable,
		Category: category,
		Action: func(c *cli.Context, v string) error {
			switch v {
			case outputTable, outputJSON:
				f.Output = v
				return nil
			}
			return usageErrorf(c, "invalid value %q for --output: use table or json", v)
		},
	}
}
