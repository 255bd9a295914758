package commands

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

func TestVersion(t *testing.T) {
	cmdtest.Isolate(t)
	r := runArgs(t, "--version")
	cmdtest.WantCode(t, r, 0)
	if r.Out != "timbra "+version+"\n" {
		t.Fatalf("stdout %q, want %q", r.Out, "timbra "+version+"\n")
	}
}

func TestUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	cases := []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "timbra"`, "Run 'timbra --help'."},
		{[]string{"peple"}, `Did you mean "people"?`, "Run 'timbra --help'."},
		{[]string{"people", "lsit"}, `unknown command "lsit" for "timbra people"`, "Run 'timbra people --help'."},
		{[]string{"help", "nope"}, `unknown command "nope"`, "Run 'timbra --help'."},
		{[]string{"people", "list", "--bogus"}, "unknown flag: --bogus", "Run 'timbra people list --help'."},
		{[]string{"people", "list", "--pge", "2"}, "unknown flag: --pge. Did you mean --page?", "Run 'timbra people list --help'."},
		{[]string{"listen", "--forward", "http://localhost:3000"}, "unknown flag: --forward. Did you mean --forward-to, --forward-from-webhooks or --forward-timeout?", "Run 'timbra listen --help'."},
		{[]string{"people", "list", "-o", "xml"}, `invalid value "xml" for --output`, "Run 'timbra people list --help'."},
		{[]string{"--output", "yaml", "people", "list"}, `invalid value "yaml" for --output`, "Run 'timbra --help'."},
		{[]string{"people", "list", "--time-zone", "Mars/Olympus"}, `unknown time zone "Mars/Olympus"`, "Run 'timbra people list --help'."},
		{[]string{"people", "list", "--page", "0"}, "--page", "Run 'timbra people list --help'."},
		{[]string{"people", "list", "--page", "two"}, "invalid value", "Run 'timbra people list --help'."},
		{[]string{"people", "list", "extra"}, `unexpected argument "extra"`, "Run 'timbra people list --help'."},
		{[]string{"people", "get"}, "missing argument: person ID", "Run 'timbra people get --help'."},
		{[]string{"people", "get", "a", "b"}, `unexpected argument "b"`, "Run 'timbra people get --help'."},
		{[]string{"people", "list", "--profile", "no/slash"}, "invalid profile name", "Run 'timbra people list --help'."},
		{[]string{"completion"}, "missing argument: shell", "Run 'timbra completion --help'."},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"`, "Run 'timbra completion --help'."},
		{[]string{"admin", "tenants", "create"}, "missing flag --owner-email", "Run 'timbra admin tenants create --help'."},
		{[]string{"admin", "credits", "grant", "--tenant", "t"}, "missing flag --type", "Run 'timbra admin credits grant --help'."},
		{[]string{"admin", "credits", "grant", "--tenant", "t", "--type", "4", "--amount", "1"}, `invalid value "4" for --type`, ""},
		{[]string{"admin", "credits", "grant", "--tenant", "t", "--type", "1"}, "missing flag --amount", ""},
		{[]string{"admin", "credits", "grant", "--tenant", "t", "--type", "1", "--amount", "1.5"}, `invalid value "1.5" for --amount`, ""},
		{[]string{"admin", "tenants", "list", "--base-url", "ftp://x"}, "invalid base URL", ""},
		{[]string{"login", "--base-url", "localhost:8080", "--tenant-key", "t"}, "invalid base URL", "Run 'timbra login --help'."},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runArgs(t, c.args...)
			cmdtest.WantCode(t, r, 2)
			cmdtest.WantContains(t, "stderr", r.Err, c.msg, c.hint)
			if r.Out != "" {
				t.Errorf("stdout should be empty on a usage error, got:\n%s", r.Out)
			}
			if n := strings.Count(strings.TrimSpace(r.Err), "\n"); n != 1 {
				t.Errorf("want one error line and one hint, got:\n%s", r.Err)
			}
		})
	}
}

func TestEmptyProfileEnvIsDefault(t *testing.T) {
	cmdtest.Isolate(t)
	t.Setenv("TIMBRA_PROFILE", "")
	r := run1(t, cmdtest.Opts{}, "config", "show", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, `"value": "default"`)
}

// Every command teaches its use: a one-line usage and a description with an example.
func TestHelpOfEveryCommand(t *testing.T) {
	cmdtest.Isolate(t)
	app := NewApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, "dev"))
	var walk func(path []string, cs []*cli.Command)
	walk = func(path []string, cs []*cli.Command) {
		for _, c := range cs {
			p := append(append([]string(nil), path...), c.Name)
			name := strings.Join(p, " ")
			if c.Name == "help" || c.Name == "server" || (len(path) > 0 && path[0] == "server") {
				continue // written elsewhere
			}
			if c.Usage == "" || strings.Contains(c.Usage, "\n") {
				t.Errorf("%s: want a one-line Usage, got %q", name, c.Usage)
			}
			if !strings.Contains(c.Description, "timbra "+p[0]) {
				t.Errorf("%s: the description has no example invocation:\n%s", name, c.Description)
			}
			r := runArgs(t, append(p, "--help")...)
			cmdtest.WantCode(t, r, 0)
			cmdtest.WantContains(t, name+" --help", r.Out, "USAGE:", c.Usage)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
}

func TestBareGroupShowsHelp(t *testing.T) {
	cmdtest.Isolate(t)
	r := runArgs(t, "people")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "list", "get", "USAGE:")
	r = runArgs(t)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "COMMANDS:", "people", "admin")
}

func TestNotLoggedIn(t *testing.T) {
	cmdtest.Isolate(t)
	r := runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 1)
	want := "not logged in: run 'timbra login' or set TIMBRA_BASE_URL, TIMBRA_TENANT_KEY and TIMBRA_API_KEY\n"
	if r.Err != want {
		t.Fatalf("stderr %q, want %q", r.Err, want)
	}

	// a named profile that does not exist says so
	r = runArgs(t, "people", "list", "--profile", "live")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "not logged in", `no profile "live"`)
}

func TestAPIErrorsArePropertyLines(t *testing.T) {
	cmdtest.Isolate(t)
	api := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4/people/bad":
			cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("Id", "El Id no es válido."), cmdtest.Failure("", "Otra falla.")}, "One or more validation errors occurred.", "t-400")
		case "/api/v4/people/missing":
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: missing", "t-404")
		case "/api/v4/people/boom":
			cmdtest.WriteEnvelope(w, 500, nil, "An unexpected error occurred.", "trace-500")
		default:
			cmdtest.WriteEnvelope(w, 401, nil, "Invalid API key", "t-401")
		}
	})
	cmdtest.UseAPI(t, api.URL)

	r := runArgs(t, "people", "get", "bad")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "Id: El Id no es válido.\n$: Otra falla.\n" {
		t.Errorf("stderr %q", r.Err)
	}
	if r.Out != "" {
		t.Errorf("stdout should be empty, got %q", r.Out)
	}

	r = runArgs(t, "people", "get", "missing")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "404: No such resource for the given Id: missing\n" {
		t.Errorf("stderr %q", r.Err)
	}

	r = runArgs(t, "people", "get", "boom")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "500: An unexpected error occurred.\ntrace: trace-500\n" {
		t.Errorf("stderr %q", r.Err)
	}

	r = runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "401: Invalid API key\n" {
		t.Errorf("stderr %q", r.Err)
	}
	cmdtest.WantNotContains(t, "stderr", r.Err, "sk_test_0123456789abcdefWXYZ", "api.Error", "&{")
}

func TestUnreachableServer(t *testing.T) {
	cmdtest.Isolate(t)
	api := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {})
	url := api.URL
	api.Close()
	cmdtest.UseAPI(t, url)
	r := runArgs(t, "people", "list")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "cannot reach "+url)
	cmdtest.WantNotContains(t, "stderr", r.Err, "0: ")
}

func TestInterruptedRequest(t *testing.T) {
	cmdtest.Isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	api := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cancel() // as SIGINT would
		<-r.Context().Done()
	})
	cmdtest.UseAPI(t, api.URL)
	r := run1(t, cmdtest.Opts{Ctx: ctx}, "people", "list")
	cmdtest.WantCode(t, r, 130)
	cmdtest.WantContains(t, "stderr", r.Err, "interrupted")
}

func TestReorderArgs(t *testing.T) {
	app := NewApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, "dev"))
	cases := []struct{ in, want string }{
		{"people get ID -o json", "people get -o json ID"},
		{"-o json people get ID", "-o json people get ID"},
		{"people get ID --output=json", "people get --output=json ID"},
		{"people list --page 2 --page-size 5", "people list --page 2 --page-size 5"},
		{"admin credits grant --amount -5 --tenant T --type 1", "admin credits grant --amount -5 --tenant T --type 1"},
		{"login --api-key-stdin --tenant-key people", "login --api-key-stdin --tenant-key people"},
		{"people get ID -- -o", "people get ID -- -o"},
		{"people bogus list -o json", "people -o json bogus list"},
		{"people --generate-bash-completion", "people --generate-bash-completion"},
		{"people get ID -o json --generate-bash-completion", "people get -o json ID --generate-bash-completion"},
		{"completion bash --profile x", "completion --profile x bash"},
	}
	for _, c := range cases {
		got := strings.Join(cmdutil.ReorderArgs(app.Commands, app.Flags, strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("reorderArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The global flags may be given before or after the command name; the later one wins.
func TestGlobalFlagsAnywhere(t *testing.T) {
	cmdtest.Isolate(t)
	for _, args := range [][]string{
		{"-o", "json", "config", "show"},
		{"config", "-o", "json", "show"},
		{"config", "show", "-o", "json"},
		{"-o", "table", "config", "show", "--output=json"},
	} {
		r := runArgs(t, args...)
		cmdtest.WantCode(t, r, 0)
		if !strings.HasPrefix(r.Out, "{") {
			t.Errorf("%v: want JSON, got:\n%s", args, r.Out)
		}
	}
	r := runArgs(t, "--profile", "test", "config", "show", "--profile", "live")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "profile\tlive\tflag --profile")
}

func TestExactArgsNames(t *testing.T) {
	cmdtest.Isolate(t)
	r := runArgs(t, "logout", "extra")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, `unexpected argument "extra"`)
	if !reflect.DeepEqual(strings.Split(strings.TrimSpace(r.Err), "\n")[1], "Run 'timbra logout --help'.") {
		t.Errorf("hint: %q", r.Err)
	}
}

func TestHelpCommand(t *testing.T) {
	cmdtest.Isolate(t)
	for args, want := range map[string]string{
		"help":                        "timbra - ",
		"h":                           "COMMANDS:",
		"help people":                 "timbra people - ",
		"help people list":            "timbra people list - ",
		"people help get":             "timbra people get - ",
		"admin help tenants create":   "timbra admin tenants create - ",
		"help admin credits grant":    "--amount",
		"people list --help":          "timbra people list - ",
		"admin tenants create --help": "--owner-email",
	} {
		r := runArgs(t, strings.Fields(args)...)
		cmdtest.WantCode(t, r, 0)
		cmdtest.WantContains(t, args, r.Out, want)
	}
	r := runArgs(t, "help", "people", "nope")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, `unknown command "nope" for "timbra people"`)

	// the cli package's shared help command, once run, used to make fish completion recurse
	// forever in the same process
	r = runArgs(t, "completion", "fish")
	cmdtest.WantCode(t, r, 0)
}

// Commands write only to the injected streams.
func TestNothingWrittenToProcessStreams(t *testing.T) {
	cmdtest.Isolate(t)
	srv := cmdtest.PeopleAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	oldOut, oldErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = stdout, stderr
	for _, args := range [][]string{
		{"--help"}, {"--version"}, {"people", "list"}, {"people", "get", "p-1", "-o", "json"}, {"people", "get", "x"},
		{"bogus"}, {"people", "list", "--nope"}, {"config", "show"}, {"completion", "fish"}, {"help", "people"},
		{"admin", "tenants", "list"},
	} {
		runArgs(t, args...)
	}
	os.Stdout, os.Stderr = oldOut, oldErr
	stdout.Close()
	stderr.Close()
	for _, name := range []string{"stdout", "stderr"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != 0 {
			t.Errorf("written to the process %s: %s", name, raw)
		}
	}
}

// TestRequiredFlagsAreUsageErrors: every command with required flags, run without them, says
// which are missing in one line with the hint to its help and exit code 2, like every other
// usage error (the cli package would print the whole help and exit 1).
func TestRequiredFlagsAreUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	app := NewApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, "dev"))
	n := 0
	var walk func(path []string, cs []*cli.Command)
	walk = func(path []string, cs []*cli.Command) {
		for _, c := range cs {
			p := append(append([]string(nil), path...), c.Name)
			walk(p, c.Subcommands)
			required := cmdutil.RequiredFlags(c)
			if len(required) == 0 || len(c.Subcommands) > 0 {
				continue
			}
			n++
			args := p
			for _, a := range strings.Fields(c.ArgsUsage) { // the positional arguments it needs
				if !strings.HasPrefix(a, "[") {
					args = append(args, "x")
				}
			}
			r := runArgs(t, args...)
			name := strings.Join(p, " ")
			if r.Code != 2 {
				t.Errorf("%s: exit code %d, want 2:\n%s", name, r.Code, r.Err)
				continue
			}
			cmdtest.WantContains(t, name, r.Err, "missing flag", "--"+required[0], "Run 'timbra "+name+" --help'.")
			if lines := strings.Count(strings.TrimSpace(r.Err), "\n"); lines != 1 || r.Out != "" {
				t.Errorf("%s: want one error line and the hint, got:\n%s%s", name, r.Out, r.Err)
			}
		}
	}
	walk(nil, app.Commands)
	if n < 2 {
		t.Fatalf("only %d commands with required flags found", n)
	}
}
