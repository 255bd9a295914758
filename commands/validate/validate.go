// Package validate is `timbra validate`: SAT validations of CFDI files or of an RFC (spec 3
// §4.7), for people and for scripts. Exit code 0 when every check passed, 1 when any failed (or
// a file could not be validated), 2 on usage errors. Each type requested of each file uses one
// validation credit.
package validate

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// listTypeIDs are the types a --tin request may ask for (and what --all means with --tin).
var listTypeIDs = []string{"sat.blacklist.69b", "sat.blacklist.69bbis"}

type validateOptions struct {
	f           *cmdutil.Factory
	Types       cli.StringSlice
	All         bool
	TIN         string
	Concurrency int
	Files       []string // the files named, patterns expanded
}

// NewCmd is `timbra validate`, with its subcommands types and statuses.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return newValidateCmd(f, nil)
}

func newValidateCmd(f *cmdutil.Factory, run cmdutil.RunFunc[validateOptions]) *cli.Command {
	o := &validateOptions{f: f}
	run = cmdutil.OrRun(run, validateRun)
	return &cli.Command{
		Name:      "validate",
		Usage:     "Run SAT validations on CFDI files or on an RFC (each type uses one validation credit)",
		UsageText: "timbra validate FILE.xml... (--types TYPE,... | --all) [--concurrency N] [-o json]\n   timbra validate --tin RFC [--types TYPE,... | --all]\n   timbra validate types\n   timbra validate statuses TYPE",
		ArgsUsage: "FILE.xml...",
		Description: "Reads each XML file, encodes it and asks the server to validate it (several files at once;\n" +
			"patterns such as 'invoices/*.xml' are expanded). Prints one row per file with ✓ or ✗ and\n" +
			"the status of each type, then the details of what failed and the validation credits used.\n" +
			"With --tin only the two list checks apply (--all means both). Exit code 0 when every check\n" +
			"passed, 1 when any failed, 2 on usage errors.\n\n" +
			"A server in the test environment does not ask SAT: each type gets a random status it can\n" +
			"have, whatever the XML (the same API as production, fictitious results). The command says\n" +
			"so after the results (\"simulated\": true with -o json); only production results are real.\n\n" +
			"Examples:\n" +
			"  timbra validate factura.xml --all\n" +
			"  timbra validate 'facturas/*.xml' --types sat.cfdi.sello,sat.tfd.sello -o json\n" +
			"  timbra validate --tin EKU9003173C9 --all\n" +
			"  timbra validate types\n" +
			"  timbra validate statuses sat.cfdi.status",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "types", Aliases: []string{"t"}, Destination: &o.Types,
				Usage: "validation `TYPE`s to run, comma-separated or repeated (see 'timbra validate types')"},
			&cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "run every active type (with --tin, both lists)"},
			&cli.StringFlag{Name: "tin", Destination: &o.TIN, Usage: "validate the `RFC` against the 69-B and 69-B Bis lists instead of files"},
			&cli.IntFlag{Name: "concurrency", Value: 4, Destination: &o.Concurrency, Usage: "`N` files validated at once"},
		},
		Subcommands: []*cli.Command{newTypesCmd(f, nil), newStatusesCmd(f, nil)},
		Action: func(c *cli.Context) error {
			if o.All == c.IsSet("types") {
				return cmdutil.UsageErrorf(c, "give --types TYPE,... or --all (each type uses one validation credit)")
			}
			if o.Concurrency < 1 {
				return cmdutil.UsageErrorf(c, "invalid value %d for --concurrency: give 1 or more", o.Concurrency)
			}
			if o.TIN != "" {
				if c.Args().Len() > 0 {
					return cmdutil.UsageErrorf(c, "give files or --tin, not both")
				}
			} else if c.Args().Len() == 0 {
				return cmdutil.UsageErrorf(c, "missing argument: FILE.xml (or --tin RFC)")
			}
			files, err := expandFiles(c.Args().Slice())
			if err != nil {
				return cmdutil.UsageErrorf(c, "%v", err)
			}
			o.Files = files
			return run(c, o)
		},
	}
}

// expandFiles expands patterns (a pattern that matches nothing is an error; a plain name is
// kept as is, so that a missing file is reported with the others).
func expandFiles(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		names := []string{a}
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("pattern %q: %v", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("no file matches %q", a)
			}
			sort.Strings(m)
			names = m
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// envTest is the environment whose validations are fictitious (spec 3 §4.7 rule 4).
const envTest = "test"

// validateResult is one file's (or the RFC's) answer, as -o json prints it.
type validateResult struct {
	File    string                    `json:"file,omitempty"`
	TIN     string                    `json:"tin,omitempty"`
	Results []api.SatValidationResult `json:"results"`
	Error   *string                   `json:"error"`
}

type validateReport struct {
	Items       []validateResult `json:"items"`
	Passed      bool             `json:"passed"`
	CreditsUsed int              `json:"creditsUsed"`
	// Simulated: the server is in the test environment, whose results are random.
	Simulated bool `json:"simulated"`
}

// chosenTypes resolves --types and --all against the server's catalog (a free request), so that
// an unknown type is a usage error before any credit is used.
func chosenTypes(c *cli.Context, o *validateOptions, client *api.Client) ([]string, error) {
	if o.All && o.TIN != "" {
		return listTypeIDs, nil
	}
	active, err := client.ListSatValidationTypes(c.Context)
	if err != nil {
		return nil, err
	}
	if o.All {
		out := make([]string, len(active))
		for i, t := range active {
			out[i] = t.ID
		}
		return out, nil
	}
	known := map[string]bool{}
	for _, t := range active {
		known[t.ID] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range o.Types.Value() {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			switch {
			case t == "" || seen[t]:
				continue
			case !known[t]:
				return nil, cmdutil.UsageErrorf(c, "unknown validation type %q (see 'timbra validate types')", t)
			}
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, cmdutil.UsageErrorf(c, "--types names no validation type")
	}
	return out, nil
}

func validateRun(c *cli.Context, o *validateOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	types, err := chosenTypes(c, o, client)
	if err != nil {
		return err
	}
	var items []validateResult
	if o.TIN != "" {
		items = []validateResult{validateOne(c.Context, client, types, "", o.TIN)}
	} else {
		items = make([]validateResult, len(o.Files))
		sem := make(chan struct{}, o.Concurrency)
		var wg sync.WaitGroup
		for i, name := range o.Files {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				items[i] = validateOne(c.Context, client, types, name, "")
			}()
		}
		wg.Wait()
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	rep := validateReport{Items: items, Passed: true, Simulated: client.Environment() == envTest}
	for _, it := range items {
		rep.CreditsUsed += len(it.Results) // a failed request uses none (spec 3 §4.7 rule 2)
		if it.Error != nil {
			rep.Passed = false
		}
		for _, r := range it.Results {
			rep.Passed = rep.Passed && r.Passed
		}
	}
	if err := printValidation(o.f, types, rep); err != nil {
		return err
	}
	if rep.Simulated && !o.f.Printer().JSON {
		o.f.IO.Warn("These results are simulated: the server is in the test environment, where SAT is not asked and each\n" +
			"validation gets a random status. A production server gives real results.")
	}
	if !rep.Passed {
		return cli.Exit("", 1)
	}
	return nil
}

func validateOne(ctx context.Context, client *api.Client, types []string, file, tin string) validateResult {
	res := validateResult{File: file, TIN: tin, Results: []api.SatValidationResult{}}
	req := api.SatValidationRequest{}
	for _, t := range types {
		req.ValidationTypes = append(req.ValidationTypes, &t)
	}
	if file != "" {
		raw, err := os.ReadFile(file)
		if err != nil {
			msg := err.Error()
			var pe *os.PathError
			if errors.As(err, &pe) {
				msg = pe.Err.Error()
			}
			res.Error = &msg
			return res
		}
		x := base64.StdEncoding.EncodeToString(raw)
		req.XML = &x
	} else {
		req.TIN = &tin
	}
	out, err := client.ValidateSat(ctx, req)
	if err != nil {
		msg := err.Error()
		var ae *api.Error
		if errors.As(err, &ae) {
			msg = strings.Join(ae.Lines(), "; ")
		}
		res.Error = &msg
		return res
	}
	res.Results = out
	return res
}

func printValidation(f *cmdutil.Factory, types []string, rep validateReport) error {
	p := f.Printer()
	if p.JSON {
		return cmdutil.WriteJSON(f.IO.Out, rep)
	}
	headers := append([]string{"FILE"}, types...)
	var rows [][]string
	var notes []string
	for _, it := range rep.Items {
		name := it.File
		if name == "" {
			name = it.TIN
			headers[0] = "RFC"
		}
		row := []string{name}
		got := map[string]api.SatValidationResult{}
		for _, r := range it.Results {
			got[r.Type.ID] = r
		}
		for _, t := range types {
			r, ok := got[t]
			switch {
			case !ok:
				row = append(row, "-")
			case r.Passed:
				row = append(row, "✓ "+r.Status.ID)
			default:
				row = append(row, "✗ "+r.Status.ID)
			}
			if ok && !r.Passed {
				note := fmt.Sprintf("%s: %s %s: %s", name, t, r.Status.ID, r.Status.Description)
				if r.Status.Details != nil && *r.Status.Details != "" {
					note += " " + *r.Status.Details
				}
				notes = append(notes, note)
			}
		}
		if it.Error != nil {
			notes = append(notes, fmt.Sprintf("%s: %s", name, *it.Error))
		}
		rows = append(rows, row)
	}
	if err := p.Table(rep, headers, rows, ""); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(f.IO.Err, cmdutil.OneLine(n))
	}
	fmt.Fprintf(f.IO.Err, "Validation credits used: %d.\n", rep.CreditsUsed)
	return nil
}

type typesOptions struct {
	f *cmdutil.Factory
}

func newTypesCmd(f *cmdutil.Factory, run cmdutil.RunFunc[typesOptions]) *cli.Command {
	o := &typesOptions{f: f}
	run = cmdutil.OrRun(run, typesRun)
	return &cli.Command{
		Name:      "types",
		Usage:     "List the validation types (no credits)",
		UsageText: "timbra validate types [-o json]",
		Description: "Prints the active validation types in the catalog's order: ID and description.\n\n" +
			"Example:\n" +
			"  timbra validate types -o json",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c); err != nil {
				return err
			}
			return run(c, o)
		},
	}
}

func typesRun(c *cli.Context, o *typesOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	ts, err := client.ListSatValidationTypes(c.Context)
	if err != nil {
		return err
	}
	rows := make([][]string, len(ts))
	for i, t := range ts {
		rows[i] = []string{t.ID, t.Description}
	}
	return o.f.Printer().Table(ts, []string{"ID", "DESCRIPTION"}, rows, "No validation types.")
}

type statusesOptions struct {
	f    *cmdutil.Factory
	Type string
}

func newStatusesCmd(f *cmdutil.Factory, run cmdutil.RunFunc[statusesOptions]) *cli.Command {
	o := &statusesOptions{f: f}
	run = cmdutil.OrRun(run, statusesRun)
	return &cli.Command{
		Name:      "statuses",
		Usage:     "List the statuses a validation type can return, passing ones first (no credits)",
		UsageText: "timbra validate statuses TYPE [-o json]",
		ArgsUsage: "TYPE",
		Description: "Prints the statuses the type can return (passing ones first, then by ID) with their\n" +
			"descriptions. Reading them uses no credit.\n\n" +
			"Example:\n" +
			"  timbra validate statuses sat.cfdi.status",
		Action: func(c *cli.Context) error {
			if err := cmdutil.ExactArgs(c, "validation type"); err != nil {
				return err
			}
			o.Type = c.Args().First()
			return run(c, o)
		},
	}
}

func statusesRun(c *cli.Context, o *statusesOptions) error {
	client, err := o.f.Client()
	if err != nil {
		return err
	}
	ss, err := client.ListSatValidationStatuses(c.Context, o.Type)
	if err != nil {
		return err
	}
	rows := make([][]string, len(ss))
	for i, s := range ss {
		rows[i] = []string{s.ID, s.Description}
	}
	return o.f.Printer().Table(ss, []string{"ID", "DESCRIPTION"}, rows, "No statuses.")
}
