// Package catalogs is `timbra catalogs`: lookups in the SAT and timbra catalogs of a server, and
// the import of the SAT catalogs into a stopped server's database.
package catalogs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	satcatalogs "github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/storage"
)

// NewCmd is `timbra catalogs` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "catalogs",
		Usage: "Look up SAT and timbra catalogs; import the SAT catalogs into a server's database",
		Description: "The SAT catalogs (c_RegimenFiscal, c_ClaveProdServ...) are data a server imports: they are\n" +
			"not part of timbra. 'timbra server' imports the public source on its first start when it can\n" +
			"reach the internet; 'timbra catalogs import' imports a folder, .zip or URL while the server\n" +
			"is stopped. docs/catalogs.md lists every catalog and where its records come from.\n\n" +
			"Examples:\n" +
			"  timbra catalogs search SatProductCodes \"lápiz\"\n" +
			"  timbra catalogs get SatTaxRegimes 601\n" +
			"  timbra catalogs status\n" +
			"  timbra catalogs import ./resources-sat-catalogs-master.zip",
		Subcommands: []*cli.Command{
			newListCmd(f, nil), newSearchCmd(f, nil), newGetCmd(f, nil), newDownloadCmd(f, nil),
			newStatusCmd(f, nil), newImportCmd(f, nil),
		},
	}
}

type listOptions struct {
	f *cmdutil.Factory
}

func newListCmd(f *cmdutil.Factory, run cmdutil.RunFunc[listOptions]) *cli.Command {
	o := &listOptions{f: f}
	run = cmdutil.OrRun(run, listRun)
	return &cli.Command{
		Name:      "list",
		Usage:     "List the names of the catalogs",
		UsageText: "timbra catalogs list [-o json]",
		Description: "Prints the names GET /api/v4/catalogs answers, one per line. Names are case-sensitive.\n" +
			"The bulk-download catalogs are listed by 'timbra catalogs download'.\n\n" +
			"Examples:\n" +
			"  timbra catalogs list\n" +
			"  timbra catalogs list -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func listRun(c *cli.Context, o *listOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	names, err := client.ListCatalogs(c.Context)
	if err != nil {
		return err
	}
	return printNames(o.f, names)
}

func printNames(f *cmdutil.Factory, names []string) error {
	if f.JSON() {
		return cmdutil.WriteJSON(f.IO.Out, names)
	}
	_, err := io.WriteString(f.IO.Out, strings.Join(names, "\n")+"\n")
	return err
}

var catalogColumns = []string{"ID", "DESCRIPTION"}

func catalogRows(items []api.CatalogRecord) [][]string {
	rows := make([][]string, len(items))
	for i, it := range items {
		rows[i] = []string{it.ID, it.Description}
	}
	return rows
}

type searchOptions struct {
	f *cmdutil.Factory
	cmdutil.PagingOptions
	Name, Term string
}

func newSearchCmd(f *cmdutil.Factory, run cmdutil.RunFunc[searchOptions]) *cli.Command {
	o := &searchOptions{f: f}
	run = cmdutil.OrRun(run, searchRun)
	return &cli.Command{
		Name:      "search",
		Usage:     "Find the records of a catalog by key or by words of the description",
		UsageText: "timbra catalogs search NAME TERM [--page N] [--page-size N] [-o json]",
		ArgsUsage: "NAME TERM",
		Description: "Matches the key (\"5010\" finds 50101500...) or the words of the description, ignoring case\n" +
			"and accents (\"lapiz\" finds \"Lápices de colores\"); best matches first, then by key.\n\n" +
			"Examples:\n" +
			"  timbra catalogs search SatProductCodes leche\n" +
			"  timbra catalogs search SatUnitMeasurements pieza --page-size 5 -o json",
		Flags: cmdutil.PagingFlags(&o.PagingOptions, "records", 100, "50"),
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "catalog NAME", "search TERM"); err != nil {
				return err
			}
			if err := o.Check(c, 100); err != nil {
				return err
			}
			o.Name, o.Term = c.Args().Get(0), c.Args().Get(1)
			return run(c, o)
		},
	}
}

func searchRun(c *cli.Context, o *searchOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	res, err := client.SearchCatalog(c.Context, o.Name, o.Term, o.Page, o.PageSize)
	if err != nil {
		return didYouMean(c, client, err, o.Name, false)
	}
	if err := o.f.Printer().Table(res, catalogColumns, catalogRows(res.Items), "No records match."); err != nil {
		return err
	}
	cmdutil.PageFooter(o.f, res.PageNumber, res.TotalPages, res.TotalCount, "records")
	return nil
}

type getOptions struct {
	f        *cmdutil.Factory
	Name, ID string
}

func newGetCmd(f *cmdutil.Factory, run cmdutil.RunFunc[getOptions]) *cli.Command {
	o := &getOptions{f: f}
	run = cmdutil.OrRun(run, getRun)
	return &cli.Command{
		Name:      "get",
		Usage:     "Show one record of a catalog by its key",
		UsageText: "timbra catalogs get NAME ID [-o json]",
		ArgsUsage: "NAME ID",
		Description: "Examples:\n" +
			"  timbra catalogs get SatTaxRegimes 626\n" +
			"  timbra catalogs get SatMunicipio AGU-001 -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "catalog NAME", "record ID"); err != nil {
				return err
			}
			o.Name, o.ID = c.Args().Get(0), c.Args().Get(1)
			return run(c, o)
		},
	}
}

func getRun(c *cli.Context, o *getOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	rec, err := client.GetCatalogRecord(c.Context, o.Name, o.ID)
	if err != nil {
		return didYouMean(c, client, err, o.Name, false)
	}
	return o.f.Printer().Fields(rec, []cmdutil.Field{{Label: "ID", Value: rec.ID}, {Label: "Description", Value: rec.Description}})
}

type downloadOptions struct {
	f    *cmdutil.Factory
	List bool   // no NAME: list the bulk-download catalogs
	Name string // the catalog whose records to print
}

func newDownloadCmd(f *cmdutil.Factory, run cmdutil.RunFunc[downloadOptions]) *cli.Command {
	o := &downloadOptions{f: f}
	run = cmdutil.OrRun(run, downloadRun)
	return &cli.Command{
		Name:      "download",
		Usage:     "List the bulk-download catalogs, or the records of one",
		UsageText: "timbra catalogs download [NAME] [-o json]",
		ArgsUsage: "[NAME]",
		Description: "Examples:\n" +
			"  timbra catalogs download\n" +
			"  timbra catalogs download SatInvoiceTypes",
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 1 {
				return cmdutil.UsageErrorf(c, "too many arguments: give at most one catalog NAME")
			}
			o.List, o.Name = c.Args().Len() == 0, c.Args().First()
			return run(c, o)
		},
	}
}

func downloadRun(c *cli.Context, o *downloadOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	if o.List {
		names, err := client.ListDownloadCatalogs(c.Context)
		if err != nil {
			return err
		}
		return printNames(o.f, names)
	}
	recs, err := client.GetDownloadCatalog(c.Context, o.Name)
	if err != nil {
		return didYouMean(c, client, err, o.Name, true)
	}
	return o.f.Printer().Table(recs, catalogColumns, catalogRows(recs), "No records.")
}

// didYouMean adds to the API's 404 of a catalog name the closest name the server has
// (cmdutil.Suggest), as a hint line; the API's text stays as it is. A name the server has (the
// 404 was of a record) and every other error pass as they are.
func didYouMean(c *cli.Context, client *api.Client, err error, name string, download bool) error {
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Status != 404 {
		return err
	}
	list, cmd := client.ListCatalogs, "timbra catalogs list"
	if download {
		list, cmd = client.ListDownloadCatalogs, "timbra catalogs download"
	}
	names, lerr := list(c.Context)
	if lerr != nil {
		return err
	}
	s := cmdutil.Suggest(names, name)
	if s == "" {
		if slices.Contains(names, name) {
			return err
		}
		return cmdutil.Explain(err, nil, cmdutil.Hint{Text: fmt.Sprintf("'%s' lists the catalogs (names are case-sensitive)", cmd)})
	}
	return cmdutil.Explain(err, nil, cmdutil.Hint{Text: fmt.Sprintf("did you mean %s? ('%s' lists the catalogs)", s, cmd)})
}

type statusOptions struct {
	f   *cmdutil.Factory
	All bool
}

func newStatusCmd(f *cmdutil.Factory, run cmdutil.RunFunc[statusOptions]) *cli.Command {
	o := &statusOptions{f: f}
	run = cmdutil.OrRun(run, statusRun)
	return &cli.Command{
		Name:      "status",
		Usage:     "Tell whether the server has the SAT catalogs, their version, and which are incomplete",
		UsageText: "timbra catalogs status [--all] [-o json]",
		Description: "Asks the server (GET /healthz/catalogs, no credentials needed). Lists the catalogs that are\n" +
			"missing or incomplete, or every catalog with --all, and says how to import what is missing.\n\n" +
			"Examples:\n" +
			"  timbra catalogs status\n" +
			"  timbra catalogs status --all -o json",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "list every catalog, not only those missing records", Destination: &o.All},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func statusRun(c *cli.Context, o *statusOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	st, err := client.CatalogsStatus(c.Context)
	if err != nil {
		return err
	}
	if o.f.JSON() {
		return cmdutil.WriteJSON(o.f.IO.Out, st)
	}
	return printStatus(o.f, st, o.All)
}

func printStatus(f *cmdutil.Factory, st api.CatalogsStatus, all bool) error {
	w := f.IO.Out
	if st.Imported {
		fmt.Fprintf(w, "SAT catalogs: version %s, imported %s\n", st.Version, f.Printer().Time(st.ImportedAt))
	} else {
		fmt.Fprintln(w, "SAT catalogs: NOT IMPORTED. Lookups and checks against SAT catalogs answer an error until they are.")
	}
	var rows [][]string
	missing := 0
	for _, c := range st.Catalogs {
		bad := c.State != satcatalogs.StateComplete && c.State != satcatalogs.StateBuiltin
		if bad {
			missing++
		}
		if all || bad {
			name := c.Name
			if c.Download {
				name += " (download)"
			}
			rows = append(rows, []string{name, c.SAT, c.State, strconv.Itoa(c.Records), c.Reason})
		}
	}
	if missing == 0 {
		fmt.Fprintf(w, "All %d catalogs have their records.\n", len(st.Catalogs))
	} else {
		fmt.Fprintf(w, "%d of %d catalogs are missing records:\n", missing, len(st.Catalogs))
	}
	if len(rows) > 0 {
		if err := f.Printer().Table(st, []string{"CATALOG", "SAT", "STATE", "RECORDS", "REASON"}, rows, ""); err != nil {
			return err
		}
	}
	if len(st.TablesWithoutData) > 0 {
		fmt.Fprintf(w, "Tables the source lists without records: %s\n", strings.Join(st.TablesWithoutData, ", "))
	}
	if st.Hint != "" {
		fmt.Fprintf(w, "To import: %s\n", st.Hint)
	}
	return nil
}

type importOptions struct {
	f      *cmdutil.Factory
	Source string // as given: a folder, .zip, https URL or "default"
	Data   string // --data; empty for the default database
}

func newImportCmd(f *cmdutil.Factory, run cmdutil.RunFunc[importOptions]) *cli.Command {
	o := &importOptions{f: f}
	run = cmdutil.OrRun(run, importRun)
	return &cli.Command{
		Name:      "import",
		Usage:     "Import SAT catalogs into a database (the server must be stopped)",
		UsageText: "timbra catalogs import SOURCE [--data PATH]",
		ArgsUsage: "SOURCE",
		Description: "SOURCE is one of:\n" +
			"  a folder with schemas/ and data/ (one INSERT per line), or a checkout of\n" +
			"    phpcfdi/resources-sat-catalogs (its database/ folder is found);\n" +
			"  a .zip of such a folder, as GitHub publishes the repository archive;\n" +
			"  an https URL of a .zip, or of a folder (ending in /);\n" +
			"  \"default\": " + source.DefaultURL + ".\n" +
			"The import replaces the database's catalogs in one transaction: if it fails, the old ones\n" +
			"stay. A running server holds the database: stop it first, or start it with\n" +
			"'timbra server --catalogs SOURCE', which imports when SOURCE is newer.\n\n" +
			"Examples:\n" +
			"  timbra catalogs import ./resources-sat-catalogs/database\n" +
			"  timbra catalogs import default --data ./t.db",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", EnvVars: []string{"TIMBRA_DATA"}, Destination: &o.Data, DefaultText: "the user data folder's timbra/timbra.db",
				Usage: "database file `PATH` to import into"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "SOURCE (a folder, .zip or https URL)"); err != nil {
				return err
			}
			o.Source = c.Args().First()
			return run(c, o)
		},
	}
}

func importRun(c *cli.Context, o *importOptions) error {
	ctx, f := c.Context, o.f
	data := o.Data
	if data == "" {
		data = cmdutil.DefaultDataPath()
	}
	spec := o.Source
	if spec == "default" {
		spec = source.DefaultURL
	}
	if _, err := os.Stat(data); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no database at %s: make one with 'timbra server init --data %s' (or start 'timbra server --data %s --catalogs SOURCE')", data, data, data)
	}
	store, err := storage.Open(data)
	if err != nil {
		return err
	}
	defer store.Close()
	prog := NewImportProgress(f.IO)
	src, err := source.Open(ctx, spec, source.Options{Progress: prog.Download})
	prog.Done()
	if err != nil {
		return err
	}
	defer src.Close()
	start := f.Now()
	set, err := satcatalogs.Import(ctx, store, src, f.Now(), prog.Step)
	prog.Done()
	if err != nil {
		return err
	}
	if err := store.Close(); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	rows, without := 0, 0
	for _, t := range set.Tables {
		rows += t.Rows
		if !t.HasData {
			without++
		}
	}
	if f.JSON() {
		return cmdutil.WriteJSON(f.IO.Out, set)
	}
	fmt.Fprintf(f.IO.Out, "Imported SAT catalogs %s from %s: %d tables, %d records, in %s.\n",
		set.Version, set.Source, len(set.Tables), rows, f.Now().Sub(start).Round(10*time.Millisecond))
	if without > 0 {
		fmt.Fprintf(f.IO.Out, "%d tables came without records; 'timbra catalogs status' names the catalogs they leave incomplete.\n", without)
	}
	return nil
}

// ImportProgress shows a download and an import on one line of a terminal's standard error,
// rewritten at most ten times a second; elsewhere it stays quiet. `timbra server` shows its
// first import with it too.
type ImportProgress struct {
	w    io.Writer
	tty  bool
	last time.Time
	line bool
}

// NewImportProgress is the progress of an import shown on the standard error of ios.
func NewImportProgress(ios *cmdutil.IOStreams) *ImportProgress {
	return &ImportProgress{w: ios.Err, tty: ios.ErrTTY}
}

func (p *ImportProgress) show(force bool, format string, a ...any) {
	if !p.tty {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "\r\033[K"+format, a...)
	p.line = true
}

// Download shows how much of the source was downloaded (a source.Options.Progress).
func (p *ImportProgress) Download(done, total int64) {
	if total > 0 {
		p.show(done == total, "Downloading catalogs: %s of %s (%d%%)", mib(done), mib(total), done*100/total)
		return
	}
	p.show(false, "Downloading catalogs: %s", mib(done))
}

// Step shows the table being imported and the records so far.
func (p *ImportProgress) Step(s satcatalogs.Progress) {
	if s.Table == "" {
		p.show(true, "Imported %d tables, %d records", s.TablesDone, s.Rows)
		return
	}
	pct := ""
	if s.TotalBytes > 0 {
		pct = fmt.Sprintf(" (%d%%)", s.Bytes*100/s.TotalBytes)
	}
	p.show(false, "Importing catalogs: table %d of %d%s, %d records: %s", s.TablesDone+1, s.Tables, pct, s.Rows, s.Table)
}

// Done ends the progress line.
func (p *ImportProgress) Done() {
	if p.line {
		fmt.Fprintln(p.w)
		p.line = false
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
