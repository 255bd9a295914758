package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/commands/admin"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/secrets"
	apiserver "github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// masterKeyNote is said by every command that makes or restores a backup.
const masterKeyNote = "The master key is NOT in the backup: keep its key file (PATH.key beside the database) separately and safely; without it the sealed secrets cannot be read."

type backupOptions struct {
	f              *cmdutil.Factory
	*admin.Options // --base-url, --admin-token-file
	File           string
}

func newBackupCmd(f *cmdutil.Factory, run cmdutil.RunFunc[backupOptions]) *cli.Command {
	o := &backupOptions{f: f, Options: admin.NewOptions(f)}
	run = cmdutil.OrRun(run, backupRun)
	return &cli.Command{
		Name:      "backup",
		Usage:     "Copy a running server's database to FILE (a consistent hot copy)",
		UsageText: "timbra server backup FILE [--base-url URL] [--admin-token-file PATH]",
		Description: `Asks the running server for a copy of its database (GET /admin/v1/backup, operator token) and
writes it to FILE atomically with mode 0600. The copy is consistent as of the moment it began;
the server goes on serving meanwhile. The copy is checked (bbolt integrity, schema) before it
replaces FILE. ` + masterKeyNote + `

Examples:
  timbra server backup ./timbra-2026-11-22.db
  TIMBRA_ADMIN_TOKEN=... timbra server backup /backups/timbra.db --base-url https://timbra.example.com`,
		Flags: admin.Flags(o.Options),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.UsageErrorf(c, "give the backup FILE, exactly one argument")
			}
			o.File = c.Args().First()
			return run(c, o)
		},
	}
}

func backupRun(c *cli.Context, o *backupOptions) error {
	file := o.File
	client, err := o.Client()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".timbra-backup-*") // mode 0600
	if err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := client.Backup(c.Context, tmp)
	if err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	rep, err := storage.Inspect(tmp.Name())
	if err != nil {
		return fmt.Errorf("the copy received is not a valid database: %w", err)
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("the copy received is not a valid database: %s", rep.Problems[0])
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	done = true
	w := o.f.IO.Out
	fmt.Fprintf(w, "Wrote %s (%d bytes, schema %d, %s environment).\n", file, n, rep.Schema, rep.Environment)
	fmt.Fprintln(w, masterKeyNote)
	return nil
}

type restoreOptions struct {
	f *cmdutil.Factory
	dataOptions
	File  string
	Force bool
}

func newRestoreCmd(f *cmdutil.Factory, run cmdutil.RunFunc[restoreOptions]) *cli.Command {
	o := &restoreOptions{f: f}
	run = cmdutil.OrRun(run, restoreRun)
	return &cli.Command{
		Name:      "restore",
		Usage:     "Put a backup in place of the database (server stopped)",
		UsageText: "timbra server restore FILE [--data PATH] [--master-key-file FILE] [--force]",
		Description: `With the server stopped, checks that FILE is a sound timbra database of a schema this timbra
knows, then puts it at --data PATH (mode 0600). An existing database is only replaced with --force,
and is kept as PATH.bak. When the master key beside PATH exists it must belong to the backup;
when it does not, put the backup's key there before starting the server.

Examples:
  timbra server restore ./timbra-2026-11-22.db --data ./t.db
  timbra server restore /backups/timbra.db --force`,
		Flags: append(dataFlags(&o.dataOptions), &cli.BoolFlag{Name: "force", Destination: &o.Force, Usage: "replace an existing database (kept as PATH.bak)"}),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.UsageErrorf(c, "give the backup FILE, exactly one argument")
			}
			o.File = c.Args().First()
			return run(c, o)
		},
	}
}

func restoreRun(_ *cli.Context, o *restoreOptions) error {
	w, file := o.f.IO.Out, o.File
	if o.Database != "" {
		return errors.New("restore writes a bbolt backup to a database file (--data): a PostgreSQL database is restored with pg_restore (docs/guides/postgres.md)")
	}
	if o.Data == "" {
		o.Data = cmdutil.DefaultDataPath()
	}
	if o.MasterKeyFile == "" {
		o.MasterKeyFile = o.Data + ".key"
	}
	rep, err := storage.Inspect(file)
	if err != nil {
		return fmt.Errorf("backup %s: %w", file, err)
	}
	if len(rep.Problems) > 0 {
		return fmt.Errorf("backup %s is not a sound timbra database: %s", file, rep.Problems[0])
	}
	if rep.KeyCheck == nil {
		return fmt.Errorf("backup %s is not a timbra database (no key check)", file)
	}
	if _, err := os.Stat(o.Data); err == nil {
		if !o.Force {
			return fmt.Errorf("database %s exists: pass --force to replace it (it is kept as %s.bak)", o.Data, o.Data)
		}
		if _, err := storage.Inspect(o.Data); err != nil && !errors.Is(err, storage.ErrNotTimbra) {
			return err // in use by a running server, or unreadable
		}
	}
	keyFound := false
	if _, err := os.Stat(o.MasterKeyFile); err == nil {
		keys, _, err := secrets.LoadOrCreate(o.MasterKeyFile)
		if err != nil {
			return err
		}
		if !apiserver.KeyMatches(keys, rep.KeyCheck) {
			return fmt.Errorf("the master key %s does not belong to backup %s: put the backup's key there (or pass --master-key-file)", o.MasterKeyFile, file)
		}
		keyFound = true
	}
	src, err := os.Open(file)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(o.Data), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.Data), ".timbra-restore-*")
	if err != nil {
		return err
	}
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("copy the backup: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	tmp.Close()
	if _, err := os.Stat(o.Data); err == nil {
		if err := os.Rename(o.Data, o.Data+".bak"); err != nil {
			os.Remove(tmp.Name())
			return fmt.Errorf("keep the old database: %w", err)
		}
		fmt.Fprintf(w, "Kept the old database as %s.\n", o.Data+".bak")
	}
	if err := os.Rename(tmp.Name(), o.Data); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	fmt.Fprintf(w, "Restored %s to %s (schema %d, %s environment).\n", file, o.Data, rep.Schema, rep.Environment)
	if keyFound {
		fmt.Fprintf(w, "The master key %s belongs to it.\n", o.MasterKeyFile)
	} else {
		fmt.Fprintf(w, "No master key at %s: put the backup's key file there before starting the server.\n", o.MasterKeyFile)
	}
	return nil
}

type checkOptions struct {
	f *cmdutil.Factory
	dataOptions
}

func newCheckCmd(f *cmdutil.Factory, run cmdutil.RunFunc[checkOptions]) *cli.Command {
	o := &checkOptions{f: f}
	run = cmdutil.OrRun(run, checkRun)
	return &cli.Command{
		Name:      "check",
		Usage:     "Check a database's integrity, schema and master key (server stopped)",
		UsageText: "timbra server check [--data PATH | --database URL] [--master-key-file FILE]",
		Description: `With the server stopped, opens the database read-only and checks bbolt's integrity (every page),
the schema version, that the master key belongs to it (its key check), and counts the keys of each
bucket. Exit 1 on any problem. With --database it reads a PostgreSQL database the same way,
without writing (its servers may run meanwhile); PostgreSQL keeps its pages' integrity itself.

Examples:
  timbra server check --data ./t.db
  timbra server check --data ./restored.db --master-key-file ./old.key
  timbra server check --database postgres://timbra@db:5432/timbra --master-key-file /etc/timbra/master.key`,
		Flags: dataFlags(&o.dataOptions),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func checkRun(c *cli.Context, o *checkOptions) error {
	w := o.f.IO.Out
	var rep storage.Report
	var err error
	var name string
	if err := o.check(); err != nil {
		return err
	}
	if o.Database != "" {
		name = "the PostgreSQL database"
		rep, err = storage.InspectPostgres(c.Context, o.Database)
	} else {
		if o.MasterKeyFile == "" {
			o.MasterKeyFile = o.Data + ".key"
		}
		name = o.Data
		rep, err = storage.Inspect(o.Data)
	}
	if err != nil {
		return cli.Exit(fmt.Sprintf("check %s: %v", name, err), 1)
	}
	problems := rep.Problems
	switch _, err := os.Stat(o.MasterKeyFile); {
	case err != nil:
		problems = append(problems, fmt.Sprintf("master key %s: %v", o.MasterKeyFile, err))
	case rep.KeyCheck == nil:
		problems = append(problems, "no key check in the database")
	default:
		keys, _, err := secrets.LoadOrCreate(o.MasterKeyFile)
		if err != nil {
			problems = append(problems, err.Error())
		} else if !apiserver.KeyMatches(keys, rep.KeyCheck) {
			problems = append(problems, fmt.Sprintf("the master key %s does not belong to this database", o.MasterKeyFile))
		}
	}
	fmt.Fprintf(w, "database     %s\nschema       %d (this timbra: %d)\nenvironment  %s\n\n", name, rep.Schema, storage.SchemaVersion, rep.Environment)
	if len(rep.Nodes) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NODE\tLAST SEEN\tLEASES")
		for _, n := range rep.Nodes {
			fmt.Fprintf(tw, "%s\t%s ago\t%d\n", n.Name, o.f.Now().Sub(n.Seen).Round(time.Second), n.Leases)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUCKET\tKEYS")
	for _, b := range rep.Buckets {
		fmt.Fprintf(tw, "%s\t%d\n", b.Name, b.Keys)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(w, "PROBLEM: "+p)
		}
		return cli.Exit(fmt.Sprintf("%d problem(s) found in %s", len(problems), name), 1)
	}
	if o.Database != "" {
		fmt.Fprintln(w, "OK: tables, schema and master key (PostgreSQL keeps its pages' integrity)")
		return nil
	}
	fmt.Fprintln(w, "OK: integrity, schema and master key")
	return nil
}

// loadTLS reads --tls-cert and --tls-key into a server TLS configuration; nil when neither is
// given. TLS 1.2 is the oldest version offered.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s and --tls-key %s: %v", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// addrFileLine is what --addr-file holds: HOST:PORT over plain HTTP (as it always was), the
// whole https:// URL over TLS so that no reader talks plain HTTP to it.
func addrFileLine(scheme, addr string) string {
	if scheme == "https" {
		return "https://" + addr
	}
	return addr
}
