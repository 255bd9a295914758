package server

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/internal/mail"
)

// mailFlags are the SMTP settings of `timbra server` for invoices sent by e-mail
// (POST /api/v4/invoices/send). The password is never a flag value: TIMBRA_SMTP_PASSWORD or
// --smtp-password-file.
type mailFlags struct {
	url, from, passwordFile string
}

func (m *mailFlags) flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "smtp-url", EnvVars: []string{"TIMBRA_SMTP_URL"}, Destination: &m.url, DefaultText: "none: sending invoices by e-mail answers 503",
			Usage: "mail server for invoices sent by e-mail: `smtp://USER@HOST:PORT` (STARTTLS when offered; port 587 by default) or smtps://USER@HOST:PORT (TLS, 465); no password in the URL"},
		&cli.StringFlag{Name: "smtp-from", EnvVars: []string{"TIMBRA_SMTP_FROM"}, Destination: &m.from, DefaultText: "the SMTP user when it is an address",
			Usage: "sender `ADDRESS` of invoices sent by e-mail"},
		&cli.StringFlag{Name: "smtp-password-file", EnvVars: []string{"TIMBRA_SMTP_PASSWORD_FILE"}, Destination: &m.passwordFile, TakesFile: true, DefaultText: "TIMBRA_SMTP_PASSWORD",
			Usage: "`FILE` holding the SMTP password (or set TIMBRA_SMTP_PASSWORD)"},
	}
}

// transport is the configured SMTP transport and sender address; nil without --smtp-url.
func (m *mailFlags) transport() (mail.Transport, string, error) {
	if m.url == "" {
		if m.from != "" || m.passwordFile != "" {
			return nil, "", errors.New("--smtp-from and --smtp-password-file need --smtp-url")
		}
		return nil, "", nil
	}
	s, err := mail.ParseURL(m.url)
	if err != nil {
		return nil, "", err
	}
	from := m.from
	if from == "" && mail.ValidAddress(s.Username) {
		from = s.Username
	}
	if !mail.ValidAddress(from) {
		return nil, "", fmt.Errorf("--smtp-from: %q is not one e-mail address", from)
	}
	switch {
	case m.passwordFile != "":
		raw, err := os.ReadFile(m.passwordFile)
		if err != nil {
			return nil, "", fmt.Errorf("--smtp-password-file: %w", err)
		}
		s.Password = strings.TrimRight(string(raw), "\r\n")
	default:
		s.Password = os.Getenv("TIMBRA_SMTP_PASSWORD")
	}
	if s.Username != "" && s.Password == "" {
		return nil, "", errors.New("--smtp-url names a user but no password was given: set TIMBRA_SMTP_PASSWORD or --smtp-password-file")
	}
	return s, from, nil
}
