// Package commands is the command tree of the timbra binary: `timbra server` and the client
// commands that call its API. Every command is an options struct plus a run function that writes
// only to the injected IOStreams, so that it can be tested without a terminal.
package commands

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // --time-zone must validate on machines without a zoneinfo database

	"github.com/timbra-mx/timbra/commands/admin"
	"github.com/timbra-mx/timbra/commands/apikeys"
	"github.com/timbra-mx/timbra/commands/autoinvoice"
	"github.com/timbra-mx/timbra/commands/catalogs"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/commands/completion"
	"github.com/timbra-mx/timbra/commands/config"
	"github.com/timbra-mx/timbra/commands/credits"
	"github.com/timbra-mx/timbra/commands/downloadrules"
	"github.com/timbra-mx/timbra/commands/downloads"
	"github.com/timbra-mx/timbra/commands/events"
	"github.com/timbra-mx/timbra/commands/invoices"
	"github.com/timbra-mx/timbra/commands/listen"
	"github.com/timbra-mx/timbra/commands/login"
	"github.com/timbra-mx/timbra/commands/logs"
	"github.com/timbra-mx/timbra/commands/manifests"
	"github.com/timbra-mx/timbra/commands/people"
	"github.com/timbra-mx/timbra/commands/products"
	"github.com/timbra-mx/timbra/commands/sat"
	"github.com/timbra-mx/timbra/commands/server"
	"github.com/timbra-mx/timbra/commands/stampingcertificate"
	"github.com/timbra-mx/timbra/commands/taxfiles"
	"github.com/timbra-mx/timbra/commands/tickets"
	"github.com/timbra-mx/timbra/commands/trigger"
	"github.com/timbra-mx/timbra/commands/validate"
	"github.com/timbra-mx/timbra/commands/webhooks"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// version is set at build time: -ldflags "-X github.com/timbra-mx/timbra/commands.version=v1.2.3".
var version = "dev"

// Main runs the binary with the real process streams; SIGINT and SIGTERM cancel the context.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ios := &cmdutil.IOStreams{
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
func Run(ctx context.Context, args []string, ios *cmdutil.IOStreams) int {
	f := cmdutil.NewFactory(ios, version)
	return cmdutil.Execute(ctx, f, NewApp(f), args)
}

// NewApp is the whole command tree of the binary, run with f.
func NewApp(f *cmdutil.Factory) *cli.App {
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
		Commands: []*cli.Command{
			server.NewCmd(f),
			login.NewCmd(f),
			login.NewCmdLogout(f),
			config.NewCmd(f),
			people.NewCmd(f),
			products.NewCmd(f),
			downloadrules.NewCmd(f),
			downloads.NewCmd(f),
			autoinvoice.NewCmd(f),
			tickets.NewCmd(f),
			invoices.NewCmd(f),
			validate.NewCmd(f),
			stampingcertificate.NewCmd(f),
			sat.NewCmd(f),
			taxfiles.NewCmd(f),
			manifests.NewCmd(f),
			apikeys.NewCmd(f),
			credits.NewCmd(f),
			webhooks.NewCmd(f),
			events.NewCmd(f),
			catalogs.NewCmd(f),
			listen.NewCmd(f),
			trigger.NewCmd(f),
			logs.NewCmd(f),
			webhooks.NewCmdInspect(f),
			admin.NewCmd(f),
			completion.NewCmd(f),
		},
	}
	cmdutil.Setup(f, app)
	return app
}
