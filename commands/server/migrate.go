package server

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/storage"
)

type migrateOptions struct {
	f        *cmdutil.Factory
	From, To string
	Replace  bool
}

func newMigrateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[migrateOptions]) *cli.Command {
	o := &migrateOptions{f: f}
	run = cmdutil.OrRun(run, migrateRun)
	return &cli.Command{
		Name:      "migrate-data",
		Usage:     "Copy a bbolt database into PostgreSQL (server stopped), verified",
		UsageText: "timbra server migrate-data --from PATH --to URL [--replace]",
		Description: `Copies every record of a bbolt database file into a PostgreSQL database, as it is: the secrets
stay sealed under the file's master key, so start the PostgreSQL nodes with that key file
(--master-key-file PATH.key, the same file on every node). The copy goes in batches; one cut short
(a lost connection, Ctrl-C) goes on where it stopped when run again with the same file. Then each
bucket is verified on both sides (its number of keys and a SHA-256 of its keys and values) and
the table is printed. The server must be stopped (the file is opened read-only), and the file at
this timbra's schema (start it once with this version first). A PostgreSQL database that already
holds a timbra database is refused unless --replace (its contents are lost).

Examples:
  PGPASSWORD=... timbra server migrate-data --from /var/lib/timbra/timbra.db --to postgres://timbra@db:5432/timbra
  timbra server migrate-data --from ./t.db --to 'postgres://timbra@db/timbra?search_path=tenant_a' -o json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Destination: &o.From, Required: true, Usage: "the bbolt database `PATH` (its server stopped)"},
			&cli.StringFlag{Name: "to", EnvVars: []string{"TIMBRA_DATABASE"}, Destination: &o.To, Required: true,
				Usage: "the PostgreSQL `URL` (no password in it: PGPASSWORD or ~/.pgpass)"},
			&cli.BoolFlag{Name: "replace", Destination: &o.Replace, Usage: "empty a PostgreSQL database that holds another timbra database first (everything in it is lost)"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			if err := checkDatabaseURL("--to", o.To); err != nil {
				return cmdutil.UsageErrorf(c, "%v", err)
			}
			return run(c, o)
		},
	}
}

func migrateRun(c *cli.Context, o *migrateOptions) error {
	ios := o.f.IO
	last := ""
	rep, err := storage.CopyToPostgres(c.Context, o.From, o.To, storage.CopyOptions{
		Replace: o.Replace,
		Progress: func(bucket string, keys int) {
			if ios.ErrTTY && o.f.Output != "json" {
				if bucket != last && last != "" {
					fmt.Fprintln(ios.Err)
				}
				last = bucket
				fmt.Fprintf(ios.Err, "\rcopying %-32s %d keys", bucket, keys)
			}
		},
	})
	if last != "" {
		fmt.Fprintln(ios.Err)
	}
	if err != nil {
		return err
	}
	if o.f.Output == "json" {
		return json.NewEncoder(ios.Out).Encode(rep)
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUCKET\tKEYS\tSHA-256")
	total := 0
	for _, b := range rep.Buckets {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", b.Name, b.Keys, b.Checksum[:16])
		total += b.Keys
	}
	tw.Flush()
	resumed := ""
	if rep.Resumed {
		resumed = " (went on from a copy cut short)"
	}
	fmt.Fprintf(ios.Out, "\nCopied %d keys in %d buckets%s; each bucket verified: the same keys and values in the file and in PostgreSQL.\n", total, len(rep.Buckets), resumed)
	fmt.Fprintf(ios.Out, "Start the servers with --database and --master-key-file %s.key (the file's master key; the same file on every node).\n", o.From)
	return nil
}
