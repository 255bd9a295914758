package taxfiles

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

var errRan = errors.New("ran")

// parseCase is one command line and the options it parses into, or the refusal it gets (the run
// not called).
type parseCase[O any] struct {
	args  []string
	want  O
	usage string
}

func testParse[O any](t *testing.T, f *cmdutil.Factory, newCmd func(*cmdutil.Factory, cmdutil.RunFunc[O]) *cli.Command, cases []parseCase[O]) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *O
			err := cmdtest.Parse(t, newCmd(f, func(_ *cli.Context, o *O) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) {
				t.Fatalf("err %v", err)
			}
			if !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("options %+v\nwant    %+v", *got, c.want)
			}
		})
	}
}

// TestCommandsParse checks what each tax-files command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	t.Run("list", func(t *testing.T) {
		testParse(t, f, newListCmd, []parseCase[listOptions]{
			{[]string{"list"}, listOptions{f: f, PagingOptions: cmdutil.PagingOptions{Page: 1}}, ""},
			{[]string{"list", "--page", "2", "--page-size", "50"}, listOptions{f: f, PagingOptions: cmdutil.PagingOptions{Page: 2, PageSize: 50}}, ""},
			{[]string{"list", "--page", "0"}, listOptions{}, "pages start at 1"},
			{[]string{"list", "--page-size", "0"}, listOptions{}, "give a positive number"},
			{[]string{"list", "extra"}, listOptions{}, `unexpected argument "extra"`},
		})
	})
	t.Run("get", func(t *testing.T) {
		testParse(t, f, newGetCmd, []parseCase[getOptions]{
			{[]string{"get", "tf-1"}, getOptions{f: f, ID: "tf-1"}, ""},
			{[]string{"get"}, getOptions{}, "missing argument: tax file ID"},
			{[]string{"get", "tf-1", "tf-2"}, getOptions{}, `unexpected argument "tf-2"`},
		})
	})
	t.Run("upload", func(t *testing.T) {
		testParse(t, f, newUploadCmd, []parseCase[uploadOptions]{
			{[]string{"upload", "--person", "p-1", "--cer", "a.cer", "--key", "a.key"},
				uploadOptions{f: f, Person: "p-1", Cer: "a.cer", Key: "a.key"}, ""},
			{[]string{"upload", "--person", "p-1", "--cer", "f.cer", "--key", "f.key", "--fiel", "--password-env", "FIEL_PW"},
				uploadOptions{f: f, Person: "p-1", Cer: "f.cer", Key: "f.key", FIEL: true, Password: cmdutil.KeyPassword{Env: "FIEL_PW"}}, ""},
			{[]string{"upload", "--person", "p-1", "--cer", "a.cer", "--key", "a.key", "--password-file", "pw.txt", "--password-stdin"},
				uploadOptions{f: f, Person: "p-1", Cer: "a.cer", Key: "a.key", Password: cmdutil.KeyPassword{File: "pw.txt", Stdin: true}}, ""}, // refused by the run
			{[]string{"upload", "--person", "p-1", "--cer", "a.cer", "--key", "a.key", "extra"}, uploadOptions{}, `unexpected argument "extra"`},
			{[]string{"upload", "--person", "p-1"}, uploadOptions{}, `Required flags "cer, key" not set`},
			{[]string{"upload", "--person", "p-1", "--cer", "a.cer", "--key", "a.key", "--password", "x"}, uploadOptions{}, "flag provided but not defined: -password"},
		})
	})
	t.Run("delete", func(t *testing.T) {
		testParse(t, f, newDeleteCmd, []parseCase[deleteOptions]{
			{[]string{"delete", "tf-1", "--yes"}, deleteOptions{f: f, ID: "tf-1", Yes: true}, ""},
			{[]string{"delete", "-y", "tf-1"}, deleteOptions{f: f, ID: "tf-1", Yes: true}, ""},
			{[]string{"delete", "tf-1"}, deleteOptions{}, "stdin is not a terminal; pass --yes"},
			{[]string{"delete", "--yes"}, deleteOptions{}, "missing argument: tax file ID"},
		})
	})
	t.Run("defaults", func(t *testing.T) {
		testParse(t, f, newDefaultsCmd, []parseCase[defaultsOptions]{
			{[]string{"defaults", "p-1"}, defaultsOptions{f: f, Person: "p-1"}, ""},
			{[]string{"defaults", "p-1", "--values", "--out-dir", "csd"}, defaultsOptions{f: f, Person: "p-1", Values: true, OutDir: "csd"}, ""},
			{[]string{"defaults", "p-1", "--out-dir", "csd"}, defaultsOptions{}, "--out-dir needs --values"},
			{[]string{"defaults"}, defaultsOptions{}, "missing argument: person ID"},
		})
	})
	t.Run("bulk-upload", func(t *testing.T) {
		testParse(t, f, newBulkUploadCmd, []parseCase[bulkUploadOptions]{
			{[]string{"bulk-upload", "pairs.csv"}, bulkUploadOptions{f: f, Manifest: "pairs.csv", Concurrency: 4, MaxAttempts: 6}, ""},
			{[]string{"bulk-upload", "./csd", "-c", "16", "--max-attempts", "2", "--report", report, "--fiel"},
				bulkUploadOptions{f: f, Manifest: "./csd", Concurrency: 16, MaxAttempts: 2, Report: report, FIEL: true}, ""},
			{[]string{"bulk-upload"}, bulkUploadOptions{}, "missing argument: manifest (a CSV file or a folder)"},
			{[]string{"bulk-upload", "pairs.csv", "--concurrency", "0"}, bulkUploadOptions{}, "invalid value 0 for --concurrency: 1 to 256"},
			{[]string{"bulk-upload", "pairs.csv", "--concurrency", "257"}, bulkUploadOptions{}, "invalid value 257 for --concurrency: 1 to 256"},
			{[]string{"bulk-upload", "pairs.csv", "--max-attempts", "0"}, bulkUploadOptions{}, "invalid value 0 for --max-attempts: at least 1"},
			{[]string{"bulk-upload", "pairs.csv", "--report", filepath.Join(dir, "none", "r.json")}, bulkUploadOptions{}, "the folder does not exist"},
		})
	})
}
