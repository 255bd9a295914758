package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
	apiserver "github.com/timbra-mx/timbra/server"
)

// stampFlags are the operator's stamping identity (the server is the PAC of its environment):
// the certificate, the key and the file holding the key's password, as paths; the password is
// never a flag value. Production needs them until they are stored (invoices.InstallPAC decides);
// in test they replace the generated identity.
type stampFlags struct {
	cert, key, passwordFile string
}

func (s *stampFlags) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "stamp-cert", EnvVars: []string{"TIMBRA_STAMP_CERT"}, Destination: &s.cert, TakesFile: true,
			DefaultText: "the stored one; in test, one generated on the first stamp",
			Usage:       "stamping certificate `FILE` of your PAC (.cer DER as SAT issues it, or PEM): its number is the stamps' NoCertificadoSAT; required in production until stored"},
		&cli.StringFlag{Name: "stamp-key", EnvVars: []string{"TIMBRA_STAMP_KEY"}, Destination: &s.key, TakesFile: true,
			Usage: "encrypted private key `FILE` of --stamp-cert (.key PKCS#8 DER as SAT issues it, or PEM); stored sealed under the master key"},
		&cli.StringFlag{Name: "stamp-key-password-file", EnvVars: []string{"TIMBRA_STAMP_KEY_PASSWORD_FILE"}, Destination: &s.passwordFile, TakesFile: true,
			Usage: "`FILE` holding the password of --stamp-key"},
	}
}

// check is a usage error unless the three are given together, or none.
func (s *stampFlags) check(c *cli.Context) error {
	given := 0
	for _, v := range []string{s.cert, s.key, s.passwordFile} {
		if v != "" {
			given++
		}
	}
	if given != 0 && given != 3 {
		return cmdutil.UsageErrorf(c, "--stamp-cert, --stamp-key and --stamp-key-password-file go together: give all three, or none")
	}
	return nil
}

// open reads the files and opens the identity (invoices.OpenPAC); nil when none was given.
func (s *stampFlags) open(now time.Time) (*invoices.PAC, error) {
	if s.cert == "" {
		return nil, nil
	}
	cert, err := os.ReadFile(s.cert)
	if err != nil {
		return nil, fmt.Errorf("--stamp-cert: %w", err)
	}
	key, err := os.ReadFile(s.key)
	if err != nil {
		return nil, fmt.Errorf("--stamp-key: %w", err)
	}
	password, err := os.ReadFile(s.passwordFile)
	if err != nil {
		return nil, fmt.Errorf("--stamp-key-password-file: %w", err)
	}
	return invoices.OpenPAC(cert, key, []byte(strings.TrimRight(string(password), "\r\n")), now)
}

// installStamping settles the stamping identity of d (invoices.InstallPAC) and tells what changed
// through say, never a secret: the certificate's number, RFC and validity.
func installStamping(ctx context.Context, d *apiserver.Data, given *invoices.PAC, now time.Time, say func(msg string, args ...any)) error {
	setup, err := invoices.InstallPAC(ctx, d.Store, d.Keys, d.Environment, given, now)
	if err != nil {
		return err
	}
	if setup.PAC == nil {
		say("stamping certificate: the server makes its own on the first stamp (test environment; --stamp-cert gives yours)")
		return nil
	}
	c := setup.PAC.Cert
	args := []any{"number", c.Number, "rfc", setup.PAC.RFC, "validTo", api.FormatAudit(c.ValidTo) + "Z", "origin", setup.PAC.Origin}
	switch setup.Change {
	case invoices.PACInstalled:
		say("stamping certificate stored", args...)
	case invoices.PACReplaced:
		say("stamping certificate replaced: stamps from now on use the new one; those of the old one stay the server's",
			append(args, "replaced", setup.Replaced.Number)...)
	case invoices.PACUnchanged:
		say("stamping certificate unchanged (the one given is the one stored)", args...)
	default:
		say("stamping certificate", args...)
	}
	return nil
}

// logSay tells through the server's log.
func logSay(log *slog.Logger) func(string, ...any) {
	return func(msg string, args ...any) { log.Info(msg, args...) }
}

// printSay tells as a line of text (server init): the message and its key=value pairs.
func printSay(w io.Writer) func(string, ...any) {
	return func(msg string, args ...any) {
		var b strings.Builder
		b.WriteString(msg)
		for i := 0; i+1 < len(args); i += 2 {
			fmt.Fprintf(&b, " %v=%v", args[i], args[i+1])
		}
		fmt.Fprintln(w, b.String())
	}
}
