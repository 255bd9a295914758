package credits

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each credits command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	t.Run("transfer", func(t *testing.T) {
		for _, c := range []struct {
			args  []string
			want  transferOptions
			usage string // a usage error, and the run not called
		}{
			{[]string{"transfer", "--from", "p-1", "--to", "p-2", "--amount", "100"},
				transferOptions{From: "p-1", To: "p-2", Amount: 100}, ""},
			{[]string{"transfer", "--from", " p-1 ", "--to", "p-2", "--amount", " -5 ", "--type", "Validation", "--comments", "marzo"},
				transferOptions{From: "p-1", To: "p-2", Amount: -5, CreditType: num(api.CreditValidation), Comments: str("marzo")}, ""},
			{[]string{"transfer", "--from", "p-1", "--to", "p-2", "--amount", "1", "--type", "3", "--comments", ""},
				transferOptions{From: "p-1", To: "p-2", Amount: 1, CreditType: num(api.CreditTickets), Comments: str("")}, ""},
			{[]string{"transfer", "--to", "p-2", "--amount", "5"}, transferOptions{}, "missing flag --from"},
			{[]string{"transfer", "--from", " ", "--to", "p-2", "--amount", "5"}, transferOptions{}, "missing flag --from"},
			{[]string{"transfer", "--from", "p-1", "--amount", "5"}, transferOptions{}, "missing flag --to"},
			{[]string{"transfer", "--from", "p-1", "--to", "p-2"}, transferOptions{}, "missing flag --amount"},
			{[]string{"transfer", "--from", "p-1", "--to", "p-2", "--amount", "2.5"}, transferOptions{}, `invalid value "2.5" for --amount`},
			{[]string{"transfer", "--from", "p-1", "--to", "p-2", "--amount", "1", "--type", "gold"}, transferOptions{}, `invalid value "gold" for --type`},
			{[]string{"transfer", "extra", "--from", "p-1", "--to", "p-2", "--amount", "1"}, transferOptions{}, `unexpected argument "extra"`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *transferOptions
				err := cmdtest.Parse(t, newTransferCmd(f, func(_ *cli.Context, o *transferOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) {
					t.Fatalf("err %v", err)
				}
				g := *got
				g.f = nil
				if !reflect.DeepEqual(g, c.want) {
					t.Fatalf("options %+v\nwant    %+v", g, c.want)
				}
			})
		}
	})
	t.Run("history", func(t *testing.T) {
		var got *historyOptions
		run := func(_ *cli.Context, o *historyOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newHistoryCmd(f, run), "history", "--page", "2", "--page-size", "50"); !errors.Is(err, errRan) || got.Page != 2 || got.PageSize != 50 {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newHistoryCmd(f, run), "history", "x"), got != nil, `unexpected argument "x"`)
	})
}
