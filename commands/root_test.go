package commands

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestVersion(t *testing.T) {
	isolate(t)
	r := runArgs(t, "--version")
	wantCode(t, r, 0)
	if r.out != "timbra "+version+"\n" {
		t.Fatalf("stdout %q, want %q", r.out, "timbra "+version+"\n")
	}
}

func TestUsageErrors(t *testing.T) {
	isolate(t)
	cases := []struct {
		args      []string
		msg, hint string
	}{
		{[]string{"bogus"}, `unknown command "bogus" for "timbra"`, "Run 'timbra --help'."},
		{[]string{"peple"}, `Did you mean "people"?`, "Run 'timbra --help'."},
		{[]string{"people", "lsit"}, `unknown command "lsit" for "timbra people"`, "Run 'timbra people --help'."},
		{[]string{"help", "nope"}, `unknown command "nope"`, "Run 'timbra --help'."},
		{[]string{"people", "list", "--bogus"}, "unknown flag: --bogus", "Run 'timbra people list --help'."},
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
			wantCode(t, r, 2)
			wantContains(t, "stderr", r.err, c.msg, c.hint)
			if r.out != "" {
				t.Errorf("stdout should be empty on a usage error, got:\n%s", r.out)
			}
			if n := strings.Count(strings.TrimSpace(r.err), "\n"); n != 1 {
				t.Errorf("want one error line and one hint, got:\n%s", r.err)
			}
		})
	}
}

func TestEmptyProfileEnvIsDefault(t *testing.T) {
	isolate(t)
	t.Setenv("TIMBRA_PROFILE", "")
	r := run1(t, runOpts{}, "config", "show", "-o", "json")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, `"value": "default"`)
}

// Every command teaches its use: a one-line usage and a description with an example.
func TestHelpOfEveryCommand(t *testing.T) {
	isolate(t)
	app := newApp(NewFactory(&IOStreams{}))
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
			wantCode(t, r, 0)
			wantContains(t, name+" --help", r.out, "USAGE:", c.Usage)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
}

func TestBareGroupShowsHelp(t *testing.T) {
	isolate(t)
	r := runArgs(t, "people")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "list", "get", "USAGE:")
	r = runArgs(t)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "COMMANDS:", "people", "admin")
}

func TestNotLoggedIn(t *testing.T) {
	isolate(t)
	r := runArgs(t, "people", "list")
	wantCode(t, r, 1)
	want := "not logged in: run 'timbra login' or set TIMBRA_BASE_URL, TIMBRA_TENANT_KEY and TIMBRA_API_KEY\n"
	if r.err != want {
		t.Fatalf("stderr %q, want %q", r.err, want)
	}

	// a named profile that does not exist says so
	r = runArgs(t, "people", "list", "--profile", "live")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "not logged in", `no profile "live"`)
}

func TestAPIErrorsArePropertyLines(t *testing.T) {
	isolate(t)
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4/people/bad":
			writeEnvelope(w, 400, []any{failure("Id", "El Id no es válido."), failure("", "Otra falla.")}, "One or more validation errors occurred.", "t-400")
		case "/api/v4/people/missing":
			writeEnvelope(w, 404, nil, "No such resource for the given Id: missing", "t-404")
		case "/api/v4/people/boom":
			writeEnvelope(w, 500, nil, "An unexpected error occurred.", "trace-500")
		default:
			writeEnvelope(w, 401, nil, "Invalid API key", "t-401")
		}
	})
	useAPI(t, api.URL)

	r := runArgs(t, "people", "get", "bad")
	wantCode(t, r, 1)
	if r.err != "Id: El Id no es válido.\n$: Otra falla.\n" {
		t.Errorf("stderr %q", r.err)
	}
	if r.out != "" {
		t.Errorf("stdout should be empty, got %q", r.out)
	}

	r = runArgs(t, "people", "get", "missing")
	wantCode(t, r, 1)
	if r.err != "404: No such resource for the given Id: missing\n" {
		t.Errorf("stderr %q", r.err)
	}

	r = runArgs(t, "people", "get", "boom")
	wantCode(t, r, 1)
	if r.err != "500: An unexpected error occurred.\ntrace: trace-500\n" {
		t.Errorf("stderr %q", r.err)
	}

	r = runArgs(t, "people", "list")
	wantCode(t, r, 1)
	if r.err != "401: Invalid API key\n" {
		t.Errorf("stderr %q", r.err)
	}
	wantNotContains(t, "stderr", r.err, "sk_test_0123456789abcdefWXYZ", "api.Error", "&{")
}

func TestUnreachableServer(t *testing.T) {
	isolate(t)
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {})
	url := api.URL
	api.Close()
	useAPI(t, url)
	r := runArgs(t, "people", "list")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "cannot reach "+url)
	wantNotContains(t, "stderr", r.err, "0: ")
}

func TestInterruptedRequest(t *testing.T) {
	isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cancel() // as SIGINT would
		<-r.Context().Done()
	})
	useAPI(t, api.URL)
	r := run1(t, runOpts{ctx: ctx}, "people", "list")
	wantCode(t, r, 130)
	wantContains(t, "stderr", r.err, "interrupted")
}

func TestReorderArgs(t *testing.T) {
	app := newApp(NewFactory(&IOStreams{}))
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
		got := strings.Join(reorderArgs(app.Commands, app.Flags, strings.Fields(c.in)), " ")
		if got != c.want {
			t.Errorf("reorderArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestClosestCommand(t *testing.T) {
	cs := []*cli.Command{{Name: "people"}, {Name: "login"}, {Name: "logout"}, {Name: "secret", Hidden: true}}
	for in, want := range map[string]string{"peple": "people", "logni": "login", "bogus": "", "secrt": "", "admin": ""} {
		if got := closestCommand(cs, in); got != want {
			t.Errorf("closestCommand(%q) = %q, want %q", in, got, want)
		}
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance = %d, want 3", d)
	}
}

// The global flags may be given before or after the command name; the later one wins.
func TestGlobalFlagsAnywhere(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"-o", "json", "config", "show"},
		{"config", "-o", "json", "show"},
		{"config", "show", "-o", "json"},
		{"-o", "table", "config", "show", "--output=json"},
	} {
		r := runArgs(t, args...)
		wantCode(t, r, 0)
		if !strings.HasPrefix(r.out, "{") {
			t.Errorf("%v: want JSON, got:\n%s", args, r.out)
		}
	}
	r := runArgs(t, "--profile", "test", "config", "show", "--profile", "live")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "profile\tlive\tflag --profile")
}

func TestExactArgsNames(t *testing.T) {
	isolate(t)
	r := runArgs(t, "logout", "extra")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.err, `unexpected argument "extra"`)
	if !reflect.DeepEqual(strings.Split(strings.TrimSpace(r.err), "\n")[1], "Run 'timbra logout --help'.") {
		t.Errorf("hint: %q", r.err)
	}
}

func TestHelpCommand(t *testing.T) {
	isolate(t)
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
		wantCode(t, r, 0)
		wantContains(t, args, r.out, want)
	}
	r := runArgs(t, "help", "people", "nope")
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.err, `unknown command "nope" for "timbra people"`)

	// the cli package's shared help command, once run, used to make fish completion recurse
	// forever in the same process
	r = runArgs(t, "completion", "fish")
	wantCode(t, r, 0)
}
