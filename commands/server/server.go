package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/commands/catalogs"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	satcatalogs "github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/internal/webhooks"
	apiserver "github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// DefaultOwnerEmail is the owner of the tenant a new database starts with.
const DefaultOwnerEmail = "owner@timbra.local"

// dataOptions are the flags that find a database and its master key.
type dataOptions struct {
	Data, Database, Environment, MasterKeyFile string
}

// open opens (or makes) the database the flags name: the bbolt file, or PostgreSQL with
// --database.
func (o *dataOptions) open(makeNew bool) (*apiserver.Data, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	return apiserver.OpenData(apiserver.DataOptions{Path: o.Data, Database: o.Database, MasterKeyFile: o.MasterKeyFile, Environment: o.Environment, New: makeNew})
}

// check refuses flags that name no database or two, and fills in the default file.
func (o *dataOptions) check() error {
	switch {
	case o.Database == "":
		if o.Data == "" {
			o.Data = cmdutil.DefaultDataPath()
		}
		return nil
	case o.Data != "":
		return errors.New("--data and --database name two databases: give one (--data is the bbolt file, --database PostgreSQL)")
	case o.MasterKeyFile == "":
		return errors.New(apiserver.ErrPostgresKeyFile)
	}
	return checkDatabaseURL("--database", o.Database)
}

// checkDatabaseURL refuses a PostgreSQL connection string that holds a password: a flag's value
// shows in the process list and an environment variable in the service's unit. The password
// goes where libpq and pgx look for it: PGPASSWORD or a password file (~/.pgpass, PGPASSFILE).
func checkDatabaseURL(flag, s string) error {
	say := flag + ": no password in the connection string (it would show in the process list): put it in PGPASSWORD or in a password file (~/.pgpass, or PGPASSFILE)"
	if u, err := url.Parse(s); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		if _, ok := u.User.Password(); ok || u.Query().Has("password") {
			return errors.New(say)
		}
		return nil
	}
	if strings.Contains(strings.ToLower(s), "password") {
		return errors.New(say)
	}
	return nil
}

func dataFlags(o *dataOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "data", EnvVars: []string{"TIMBRA_DATA"}, Destination: &o.Data, DefaultText: "the user data folder's timbra/timbra.db",
			Usage: "database file `PATH`; its master key lives beside it as PATH.key"},
		&cli.StringFlag{Name: "database", EnvVars: []string{"TIMBRA_DATABASE"}, Destination: &o.Database,
			Usage: "PostgreSQL instead of the file: `URL` postgres://USER@HOST:5432/DB?sslmode=require (search_path=SCHEMA to use one; the password from PGPASSWORD or ~/.pgpass); several server nodes may share it; needs --master-key-file"},
		&cli.StringFlag{Name: "environment", EnvVars: []string{"TIMBRA_ENVIRONMENT"}, Destination: &o.Environment, DefaultText: "test for a new database, else the stored one",
			Usage: "`test` or production; stored in the database when it is made and checked at every start"},
		&cli.StringFlag{Name: "master-key-file", EnvVars: []string{"TIMBRA_MASTER_KEY_FILE"}, Destination: &o.MasterKeyFile, DefaultText: "PATH.key beside the database",
			Usage: "`FILE` with the master key that seals secrets at rest (mode 0600; made with a new database)"},
	}
}

// NewCmd is `timbra server`, which runs the API, and its subcommands.
func NewCmd(f *cmdutil.Factory) *cli.Command { return newServeCmd(f, nil) }

// serveOptions are the options of `timbra server` itself.
type serveOptions struct {
	f *cmdutil.Factory
	dataOptions
	Addr, AddrFile, AdminTokenFile string
	LogFormat, LogLevel            string
	RateLimit                      int
	WebhookAllow                   cli.StringSlice
	WebhookCAFile                  string
	WebhookConcurrency             int
	TLSCert, TLSKey                string
	Catalogs                       string
	Validations                    validationFlags
	Mail                           mailFlags
	Stamp                          stampFlags
	// SatDownloadURL is where the download requests go: "sat" (SAT's own services) or the base
	// address of a service at SAT's paths (timbra sat serve).
	SatDownloadURL string
	// SatRetencionesURL is where the requests of withholding CFDIs go: "sat" (SAT's own
	// retenciones services), the base address of one at SAT's paths, or "" (the default): the
	// same as SatDownloadURL, at the path where timbra sat serve answers them.
	SatRetencionesURL string
	// SatDownloadPoll is the first wait before a request is verified again and the worker's
	// round (0: SAT's pace, 1 minute doubling up to 30, rounds every 30 s).
	SatDownloadPoll time.Duration
	// DownloadRulesEvery is how often an approved download rule creates its request (0: a day).
	DownloadRulesEvery time.Duration
	// NodeName names this server among the nodes of a shared database.
	NodeName string

	// made from the flags above when they are checked
	log    *slog.Logger   // --log-format, --log-level
	policy webhook.Policy // --webhook-allow-cidr
}

func newServeCmd(f *cmdutil.Factory, run cmdutil.RunFunc[serveOptions]) *cli.Command {
	o := &serveOptions{f: f}
	run = cmdutil.OrRun(run, serveRun)
	return &cli.Command{
		Name:  "server",
		Usage: "Run the invoicing API on an embedded database",
		Description: `Runs the whole API (spec: /api/v4) on one bbolt file, or on PostgreSQL with --database (several
nodes may share one: docs/guides/postgres.md). On a missing database it first makes one with a
tenant and its owner, and prints their credentials once.

Examples:
  timbra server                                   # 127.0.0.1:8080, the default database
  timbra server --addr 127.0.0.1:0 --addr-file addr --data ./t.db
  PGPASSWORD=... timbra server --database postgres://timbra@db:5432/timbra --master-key-file /etc/timbra/master.key
  TIMBRA_ADMIN_TOKEN=... timbra server            # operator token from the environment

The operator API (/admin/v1, used by 'timbra admin') is guarded by a token: TIMBRA_ADMIN_TOKEN, or
the file --admin-token-file (default PATH.admin-token beside the database, made when absent).
SAT catalogs: on a database without them, the server imports the public source
(` + source.DefaultURL + `) before it listens, showing progress;
offline it starts anyway (listen, trigger and webhooks need no catalogs) and says so. --catalogs
SOURCE imports a folder, .zip or URL when the database has no catalogs or SOURCE is newer;
--catalogs none skips. 'timbra catalogs status' tells what a running server has.
Invoices sent by e-mail go through --smtp-url (smtp://USER@HOST:PORT, STARTTLS when offered) from
--smtp-from; the password comes from TIMBRA_SMTP_PASSWORD or --smtp-password-file, never a flag.

The server is the certification provider (PAC) of its environment. Production stamps only with
your PAC's certificate and key: give --stamp-cert, --stamp-key and --stamp-key-password-file
(a file holding the key's password) once; they are stored in the database, the key sealed
under the master key, and later starts use them (give them again only to change them). Without
them a production database does not start. The test environment makes its own on the first
stamp unless you give one. 'timbra stamping-certificate' fetches the one in use.

--tls-cert and --tls-key serve HTTPS directly. GET /metrics (Prometheus text) answers to the
operator token; 'timbra server backup FILE' copies the running database, 'restore' and 'check'
work on a stopped one.

SIGINT or SIGTERM stop it cleanly: in-flight requests finish, the database closes, exit 0.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "addr", EnvVars: []string{"TIMBRA_ADDR"}, Value: "127.0.0.1:8080", Destination: &o.Addr,
				Usage: "`HOST:PORT` to listen on; port 0 picks a free one"},
			&cli.StringFlag{Name: "addr-file", EnvVars: []string{"TIMBRA_ADDR_FILE"}, Destination: &o.AddrFile,
				Usage: "write the bound address to `PATH` once listening"},
			&cli.StringFlag{Name: "admin-token-file", EnvVars: []string{"TIMBRA_ADMIN_TOKEN_FILE"}, Destination: &o.AdminTokenFile, DefaultText: "PATH.admin-token beside the database",
				Usage: "`FILE` holding the operator token (made when absent, mode 0600)"},
			&cli.StringFlag{Name: "log-format", EnvVars: []string{"TIMBRA_LOG_FORMAT"}, Value: "text", Destination: &o.LogFormat,
				Usage: "`text` or json logs on standard error"},
			&cli.StringFlag{Name: "log-level", EnvVars: []string{"TIMBRA_LOG_LEVEL"}, Value: "info", Destination: &o.LogLevel,
				Usage: "`debug`, info, warn or error"},
			&cli.IntFlag{Name: "rate-limit", EnvVars: []string{"TIMBRA_RATE_LIMIT"}, Value: apiserver.DefaultStandardLimit, Destination: &o.RateLimit,
				Usage: "requests per minute per API key on endpoints without a limit of their own (`N`)"},
			&cli.StringSliceFlag{Name: "webhook-allow-cidr", EnvVars: []string{"TIMBRA_WEBHOOK_ALLOW_CIDR"}, Destination: &o.WebhookAllow,
				Usage: "let webhooks reach this `CIDR` although it is private or local (development and tests; repeatable; off by default)"},
			&cli.StringFlag{Name: "catalogs", EnvVars: []string{"TIMBRA_CATALOGS"}, Destination: &o.Catalogs, DefaultText: "the public source, on the first start only",
				Usage: "SAT catalog `SOURCE` (folder, .zip or https URL) to import when the database has none or SOURCE is newer; none skips"},
			&cli.StringFlag{Name: "tls-cert", EnvVars: []string{"TIMBRA_TLS_CERT"}, Destination: &o.TLSCert,
				Usage: "serve HTTPS with this PEM certificate `FILE` (chain first to last; with --tls-key)"},
			&cli.StringFlag{Name: "tls-key", EnvVars: []string{"TIMBRA_TLS_KEY"}, Destination: &o.TLSKey,
				Usage: "PEM private key `FILE` of --tls-cert"},
			&cli.StringFlag{Name: "webhook-ca-file", EnvVars: []string{"TIMBRA_WEBHOOK_CA_FILE"}, Destination: &o.WebhookCAFile,
				Usage: "PEM `FILE` of a CA to trust, besides the system's, when delivering webhooks (a local test receiver)"},
			&cli.IntFlag{Name: "webhook-concurrency", EnvVars: []string{"TIMBRA_WEBHOOK_CONCURRENCY"}, Value: webhooks.DefaultPerDestination, Destination: &o.WebhookConcurrency,
				Usage: "attempts in flight to one destination, a webhook or a listen session (`N`, 1 to 64); a slow one holds only its own"},
			&cli.StringFlag{Name: "sat-download-url", Value: "sat", EnvVars: []string{"TIMBRA_SAT_DOWNLOAD_URL"}, Destination: &o.SatDownloadURL,
				Usage: "SAT's bulk download web service for the download requests: sat (SAT's own addresses) or the `URL` of one at SAT's paths (timbra sat serve)"},
			&cli.StringFlag{Name: "sat-retenciones-url", EnvVars: []string{"TIMBRA_SAT_RETENCIONES_URL"}, Destination: &o.SatRetencionesURL,
				Usage: "SAT's bulk download service of withholding CFDIs (query type Retenciones): sat (SAT's own retenciones addresses) or the `URL` of one at SAT's paths; default: sat with --sat-download-url sat, else that URL + /retenciones (timbra sat serve answers both)"},
			&cli.DurationFlag{Name: "sat-download-poll", EnvVars: []string{"TIMBRA_SAT_DOWNLOAD_POLL"}, Destination: &o.SatDownloadPoll,
				Usage: "wait `D` before verifying a download request again (doubling up to 30m) and between the worker's rounds; 0: 1m and 30s, SAT's pace (a local SAT: 200ms)"},
			&cli.StringFlag{Name: "node-name", EnvVars: []string{"TIMBRA_NODE_NAME"}, Destination: &o.NodeName, DefaultText: "the host's name and the process id",
				Usage: "this server's `NAME` among the nodes of a shared PostgreSQL database (/healthz, /metrics, the logs); unique per node"},
			&cli.DurationFlag{Name: "download-rules-every", EnvVars: []string{"TIMBRA_DOWNLOAD_RULES_EVERY"}, Value: 24 * time.Hour, Destination: &o.DownloadRulesEvery,
				Usage: "every approved download rule creates an Automatic download request every `D`, for the period since its last one"},
		}, append(append(append(o.Validations.flags(), o.Mail.flags()...), o.Stamp.flags()...), dataFlags(&o.dataOptions)...)...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			log, err := newLogger(f.IO.Err, o.LogFormat, o.LogLevel)
			if err != nil {
				return cmdutil.UsageErrorf(c, "%v", err)
			}
			policy, err := webhook.NewPolicy(o.WebhookAllow.Value()...)
			if err != nil {
				return cmdutil.UsageErrorf(c, "--webhook-allow-cidr: %v", err)
			}
			if (o.TLSCert == "") != (o.TLSKey == "") {
				return cmdutil.UsageErrorf(c, "--tls-cert and --tls-key go together: give both to serve HTTPS, or neither")
			}
			if o.WebhookConcurrency < 1 || o.WebhookConcurrency > 64 {
				return cmdutil.UsageErrorf(c, "--webhook-concurrency: %d is not between 1 and 64", o.WebhookConcurrency)
			}
			if o.SatDownloadPoll < 0 {
				return cmdutil.UsageErrorf(c, "--sat-download-poll must be 0 or more")
			}
			if o.DownloadRulesEvery < time.Minute {
				return cmdutil.UsageErrorf(c, "--download-rules-every must be 1m or more")
			}
			if err := o.Stamp.check(c); err != nil {
				return err
			}
			o.log, o.policy = log, policy
			return run(c, o)
		},
		Subcommands: []*cli.Command{newInitCmd(f, nil), newBackupCmd(f, nil), newRestoreCmd(f, nil), newCheckCmd(f, nil), newMigrateCmd(f, nil)},
	}
}

type initOptions struct {
	f *cmdutil.Factory
	dataOptions
	OwnerEmail string
	JSON       bool
	Stamp      stampFlags
}

func newInitCmd(f *cmdutil.Factory, run cmdutil.RunFunc[initOptions]) *cli.Command {
	o := &initOptions{f: f}
	run = cmdutil.OrRun(run, initRun)
	return &cli.Command{
		Name:  "init",
		Usage: "Make a new database with one tenant and its owner, and print their credentials",
		Description: `Makes the database (failing if it exists), its master key beside it, one tenant and its owner
person with an API key. In the test environment the owner starts with 1000 credits of each type.
A production database needs your PAC's stamping certificate, key and key password file
(--stamp-cert, --stamp-key, --stamp-key-password-file), stored with it; without them none is made.

Examples:
  timbra server init --data ./t.db
  timbra server init --data ./live.db --environment production --owner-email me@example.com --json \
    --stamp-cert pac.cer --stamp-key pac.key --stamp-key-password-file pac.password`,
		Flags: append(append(dataFlags(&o.dataOptions),
			&cli.StringFlag{Name: "owner-email", Value: DefaultOwnerEmail, Destination: &o.OwnerEmail, Usage: "email of the owner `EMAIL`"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON, Usage: "print exactly one JSON object {tenantKey, apiKey, personId, environment}"},
		), o.Stamp.flags()...),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := o.Stamp.check(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func initRun(c *cli.Context, o *initOptions) error {
	now := o.f.Now()
	stamp, err := o.Stamp.open(now)
	if err != nil {
		return err
	}
	d, err := o.open(true)
	if err != nil {
		return err
	}
	var said bytes.Buffer
	if err := installStamping(c.Context, d, stamp, now, printSay(&said)); err != nil {
		d.Discard()
		return err
	}
	creds, err := bootstrap(c.Context, d, o.OwnerEmail)
	if cerr := d.Store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if o.JSON || o.f.Output == "json" {
		enc := json.NewEncoder(o.f.IO.Out)
		return enc.Encode(creds)
	}
	printCredentials(o.f.IO.Out, d.Name, creds)
	if stamp != nil {
		_, err = o.f.IO.Out.Write(said.Bytes())
	}
	return err
}

// bootstrap makes the first tenant of a database made by this open. When that fails it closes
// and removes the database and its master key again, so a retry starts clean.
func bootstrap(ctx context.Context, d *apiserver.Data, ownerEmail string) (api.Credentials, error) {
	svc := &accounts.Service{Store: d.Store, Keys: d.Keys, Environment: d.Environment, Now: time.Now}
	creds, err := svc.CreateTenant(ctx, api.TenantCreate{OwnerEmail: ownerEmail})
	if err == nil {
		return creds, nil
	}
	d.Discard()
	if e, ok := apierr.As(err); ok && len(e.Failures) > 0 {
		return creds, fmt.Errorf("--owner-email: %s", e.Failures[0].ErrorMessage)
	}
	return creds, err
}

// credentialsSuffix is added to the database path to name the file of the first credentials.
const credentialsSuffix = ".credentials"

// firstCredentials tells the credentials of a database the server has just made: on a terminal,
// printed; elsewhere (a service whose output goes to a journal) written to a file beside the
// database (its master key on PostgreSQL), readable by the server's user only, and only its path
// printed.
func firstCredentials(ios *cmdutil.IOStreams, d *apiserver.Data, c api.Credentials) error {
	if ios.OutTTY {
		printCredentials(ios.Out, d.Name, c)
		return nil
	}
	raw, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	file := d.Files + credentialsSuffix
	if err := secrets.WriteFileExclusive(file, append(raw, '\n')); err != nil {
		return fmt.Errorf("write the first credentials (move away an old %s and start again): %w", file, err)
	}
	fmt.Fprintf(ios.Out, "Created a new %s database at %s with one tenant and its owner.\n", c.Environment, d.Name)
	fmt.Fprintf(ios.Out, "Its tenant key and the owner's API key are in %s, readable by this user only:\n"+
		"read them once, keep them in a password manager, then delete the file.\n\n", file)
	return nil
}

func printCredentials(w io.Writer, path string, c api.Credentials) {
	fmt.Fprintf(w, "Created a new %s database at %s with one tenant and its owner.\n", c.Environment, path)
	fmt.Fprintf(w, "Keep these credentials (an owner can list API keys later with the API):\n\n")
	fmt.Fprintf(w, "  tenant key   %s\n  API key      %s\n  person id    %s\n  environment  %s\n\n", c.TenantKey, c.APIKey, c.PersonID, c.Environment)
}

func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: use text or json", format)
}

// adminToken is the operator token: TIMBRA_ADMIN_TOKEN, or the token file (made when absent
// with mode 0600; refused when others may read it, as the master key is).
func adminToken(path string) (string, error) {
	if t := strings.TrimSpace(os.Getenv("TIMBRA_ADMIN_TOKEN")); t != "" {
		return t, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t := secrets.Token(32)
		if err := secrets.WriteFileExclusive(path, []byte(t+"\n")); err != nil {
			return "", fmt.Errorf("make the operator token file: %w", err)
		}
		return t, nil
	}
	if err != nil {
		return "", fmt.Errorf("read the operator token file: %w", err)
	}
	if err := secrets.CheckPrivate("the operator token file", path); err != nil {
		return "", err
	}
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return "", fmt.Errorf("the operator token file %s is empty", path)
	}
	return t, nil
}

func serveRun(c *cli.Context, o *serveOptions) error {
	f, log := o.f, o.log
	tlsConfig, err := loadTLS(o.TLSCert, o.TLSKey)
	if err != nil {
		return err
	}
	stamp, err := o.Stamp.open(f.Now())
	if err != nil {
		return err
	}
	d, err := o.open(false)
	if err != nil {
		return err
	}
	defer d.Store.Close()
	if err := installStamping(c.Context, d, stamp, f.Now(), logSay(log)); err != nil {
		if d.Created {
			d.Discard() // a retry starts clean
		}
		return err
	}
	if d.Created {
		creds, err := bootstrap(c.Context, d, DefaultOwnerEmail)
		if err != nil {
			return err
		}
		if err := firstCredentials(f.IO, d, creds); err != nil {
			d.Discard() // a retry starts clean, rather than with credentials nobody saw
			return err
		}
	}
	// bind first: a port in use is said at once, not after a catalog download
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	defer ln.Close() // Serve closes it; this is for the returns before
	if err := ensureCatalogs(c.Context, o, d.Store); err != nil {
		return err
	}
	if o.AdminTokenFile == "" {
		o.AdminTokenFile = d.Files + cmdutil.AdminTokenSuffix
	}
	token, err := adminToken(o.AdminTokenFile)
	if err != nil {
		return err
	}
	mailer, mailFrom, err := o.Mail.transport()
	if err != nil {
		return err
	}
	addr, scheme := ln.Addr().String(), "http"
	serving := ln
	if tlsConfig != nil {
		serving, scheme = tls.NewListener(ln, tlsConfig), "https"
	}
	if o.AddrFile != "" {
		if err := apiserver.WriteAddrFile(o.AddrFile, addrFileLine(scheme, addr)); err != nil {
			return fmt.Errorf("write --addr-file: %w", err)
		}
	}
	srv, err := apiserver.New(apiserver.Config{
		Environment: d.Environment, Version: f.Version, AdminToken: token, Logger: log, StandardLimit: o.RateLimit,
		WebhookPolicy: o.policy, WebhookCAFile: o.WebhookCAFile, WebhookConcurrency: o.WebhookConcurrency, Validations: o.Validations.config(),
		Mail: mailer, MailFrom: mailFrom, SatDownload: satDownload(o.SatDownloadURL),
		SatRetenciones:      satRetenciones(o.SatRetencionesURL, o.SatDownloadURL),
		SatDownloadInterval: o.SatDownloadPoll, SatDownloadBackoff: satDownloadBackoff(o.SatDownloadPoll),
		DownloadRulesEvery: o.DownloadRulesEvery, Node: o.NodeName,
	}, d.Store, d.Keys)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", scheme+"://"+addr, "environment", d.Environment, "data", d.Name, "version", f.Version)
	if err := srv.Serve(c.Context, serving); err != nil {
		return err
	}
	if err := d.Store.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	log.Info("stopped cleanly")
	return nil
}

// ensureCatalogs imports SAT catalogs before the server listens, as --catalogs says. A failure
// of the automatic first import is only a warning: the server works without catalogs, and says
// so loudly.
func ensureCatalogs(ctx context.Context, o *serveOptions, store storage.Store) error {
	f, log := o.f, o.log
	prog := catalogs.NewImportProgress(f.IO)
	start := time.Now()
	spec := o.Catalogs
	if spec == "default" {
		spec = source.DefaultURL // asked for by name: imported whenever it is newer
	}
	res, err := satcatalogs.Ensure(ctx, store, satcatalogs.EnsureOptions{
		Spec: spec, Now: f.Now(), Progress: prog.Step, Source: source.Options{Progress: prog.Download},
	})
	prog.Done()
	switch {
	case err != nil && !res.Default:
		return fmt.Errorf("import SAT catalogs from %s: %w", spec, err)
	case err != nil:
		log.Warn("could not import the SAT catalogs from the public source", "source", source.DefaultURL, "error", err.Error())
	case res.Imported:
		log.Info("imported SAT catalogs", "version", res.Set.Version, "source", res.Set.Source, "tables", len(res.Set.Tables), "took", time.Since(start).Round(time.Millisecond).String())
	default:
		log.Info(res.Note)
	}
	if res.Set.Version == "" && len(res.Set.Tables) == 0 {
		log.Warn("NO SAT CATALOGS: catalog lookups and every check against a SAT catalog answer an error until they are imported; listen, trigger and webhooks work",
			"import", satcatalogs.ImportHint)
	}
	return nil
}

// satDownloadBackoff is the back-off of --sat-download-poll (zero: the worker's default).
func satDownloadBackoff(poll time.Duration) satws.Backoff {
	if poll <= 0 {
		return satws.Backoff{}
	}
	return satws.Backoff{Initial: poll, Max: max(poll, satws.DefaultBackoff.Max), Factor: 2}
}

// satRetenciones are the endpoints of --sat-retenciones-url: SAT's own retenciones addresses
// for "sat", SAT's paths under a URL; when not given, those that follow --sat-download-url
// (SAT's own, or the local SAT's second service under the same address).
func satRetenciones(url, downloadURL string) satws.Endpoints {
	switch {
	case url == "sat" || (url == "" && (downloadURL == "" || downloadURL == "sat")):
		return satws.SATRetencionesEndpoints
	case url == "":
		return satws.EndpointsAt(strings.TrimRight(downloadURL, "/") + satlocal.RetencionesPath)
	}
	return satws.EndpointsAt(url)
}

// satDownload are the endpoints of --sat-download-url: SAT's own for "sat" (or empty), else
// SAT's paths under the URL.
func satDownload(url string) satws.Endpoints {
	if url == "" || url == "sat" {
		return satws.SATEndpoints
	}
	return satws.EndpointsAt(url)
}
