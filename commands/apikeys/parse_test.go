package apikeys

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// parseCase is one command line of a command whose options are O: the options it gives (f
// left out), or the usage error that refuses it with the run not called.
type parseCase[O any] struct {
	args  []string
	want  O
	usage string
}

// checkParse runs the cases through the command newCmd builds, with a run that records the
// options.
func checkParse[O any](t *testing.T, f *cmdutil.Factory, newCmd func(*cmdutil.Factory, cmdutil.RunFunc[O]) *cli.Command, clearF func(*O), cases []parseCase[O]) {
	t.Helper()
	errRan := errors.New("ran")
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
			g := *got
			clearF(&g)
			if !reflect.DeepEqual(g, c.want) {
				t.Fatalf("options %+v\nwant    %+v", g, c.want)
			}
		})
	}
}

// TestCommandsParse checks what each api-keys command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	t.Run("list", func(t *testing.T) {
		checkParse(t, f, newListCmd, func(o *listOptions) { o.f = nil }, []parseCase[listOptions]{
			{args: []string{"list"}, want: listOptions{PagingOptions: cmdutil.PagingOptions{Page: 1}}},
			{args: []string{"list", "--page", "2", "--page-size", "5"}, want: listOptions{PagingOptions: cmdutil.PagingOptions{Page: 2, PageSize: 5}}},
			{args: []string{"list", "--page", "0"}, usage: "pages start at 1"},
			{args: []string{"list", "--page-size", "0"}, usage: "give a positive number"},
			{args: []string{"list", "extra"}, usage: `unexpected argument "extra"`},
		})
	})
	t.Run("create", func(t *testing.T) {
		checkParse(t, f, newCreateCmd, func(o *createOptions) { o.f = nil }, []parseCase[createOptions]{
			{args: []string{"create"}, want: createOptions{}},
			{args: []string{"create", "--person", "p-1", "--description", "CI pipeline"}, want: createOptions{PersonID: "p-1", Description: str("CI pipeline")}},
			{args: []string{"create", "--description", ""}, want: createOptions{Description: str("")}},
			{args: []string{"create", "--person", " "}, usage: "--person: give a person ID"},
			{args: []string{"create", "k-1"}, usage: `unexpected argument "k-1"`},
		})
	})
	t.Run("get", func(t *testing.T) {
		checkParse(t, f, newGetCmd, func(o *getOptions) { o.f = nil }, []parseCase[getOptions]{
			{args: []string{"get", "k-1"}, want: getOptions{ID: "k-1"}},
			{args: []string{"get", "k-1", "--show-value"}, want: getOptions{ID: "k-1", ShowValue: true}},
			{args: []string{"get"}, usage: "missing argument: API key ID"},
			{args: []string{"get", "k-1", "k-2"}, usage: `unexpected argument "k-2"`},
		})
	})
	t.Run("update", func(t *testing.T) {
		checkParse(t, f, newUpdateCmd, func(o *updateOptions) { o.f = nil }, []parseCase[updateOptions]{
			{args: []string{"update", "k-1", "--status", "suspended"}, want: updateOptions{ID: "k-1", Status: num(keyStatusSuspended)}},
			{args: []string{"update", "k-1", "--status", " Active ", "--description", "CI"}, want: updateOptions{ID: "k-1", Status: num(keyStatusActive), Description: str("CI")}},
			{args: []string{"update", "k-1", "--status", "0"}, want: updateOptions{ID: "k-1", Status: num(keyStatusSuspended)}},
			{args: []string{"update", "k-1", "--description", ""}, want: updateOptions{ID: "k-1", Description: str("")}},
			{args: []string{"update", "k-1", "--status", "paused"}, usage: `invalid value "paused" for --status`},
			{args: []string{"update", "k-1"}, usage: "nothing to change"},
			{args: []string{"update", "--status", "active"}, usage: "missing argument: API key ID"},
		})
	})
	t.Run("revoke", func(t *testing.T) {
		checkParse(t, f, newRevokeCmd, func(o *revokeOptions) { o.f = nil }, []parseCase[revokeOptions]{
			{args: []string{"revoke", "k-1", "--yes"}, want: revokeOptions{ID: "k-1", Yes: true}},
			{args: []string{"revoke", "-y", "k-1"}, want: revokeOptions{ID: "k-1", Yes: true}},
			{args: []string{"revoke", "k-1"}, usage: "refusing to revoke without confirmation"},
			{args: []string{"revoke", "--yes"}, usage: "missing argument: API key ID"},
		})
	})
}
