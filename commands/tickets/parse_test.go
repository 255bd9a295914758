package tickets

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

// TestCommandsParse checks what each tickets command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	t.Run("record", func(t *testing.T) {
		testParse(t, newRecordCmd, func(o *recordOptions) { o.f = nil },
			parseCase[recordOptions]{args: []string{"record", "--file", "ticket.json"}, want: recordOptions{File: "ticket.json"}},
			parseCase[recordOptions]{args: []string{"record", "-f", "-"}, want: recordOptions{File: "-"}},
			parseCase[recordOptions]{args: []string{"record"}, usage: `Required flag "file" not set`},
			parseCase[recordOptions]{args: []string{"record", "--file", "a.json", "b.json"}, usage: `unexpected argument "b.json"`},
		)
	})
	t.Run("list", func(t *testing.T) {
		testParse(t, newListCmd, func(o *listOptions) { o.f = nil },
			parseCase[listOptions]{args: []string{"list"}, want: listOptions{PagingOptions: cmdutil.PagingOptions{Page: 1}}},
			parseCase[listOptions]{args: []string{"list", "--status", "pending", "--issuer", "p-1", "--from", "2026-11-01", "--to", "2026-11-30", "--page", "2", "--page-size", "100"},
				want: listOptions{PagingOptions: cmdutil.PagingOptions{Page: 2, PageSize: 100}, Status: "pending", Issuer: "p-1", From: "2026-11-01", To: "2026-11-30"}},
			parseCase[listOptions]{args: []string{"list", "--page", "0"}, usage: "pages start at 1"},
			parseCase[listOptions]{args: []string{"list", "--page-size", "-1"}, usage: "give a positive number"},
			parseCase[listOptions]{args: []string{"list", "pending"}, usage: `unexpected argument "pending"`},
		)
	})
	t.Run("get", func(t *testing.T) {
		testParse(t, newGetCmd, func(o *getOptions) { o.f = nil },
			parseCase[getOptions]{args: []string{"get", "tk-1"}, want: getOptions{ID: "tk-1"}},
			parseCase[getOptions]{args: []string{"get"}, usage: "missing argument: id"},
		)
	})
	t.Run("invoice", func(t *testing.T) {
		testParse(t, newInvoiceCmd, func(o *invoiceOptions) { o.f = nil },
			parseCase[invoiceOptions]{args: []string{"invoice", "tk-1", "--recipient-id", "p-2", "--xml-out", "f.xml"},
				want: invoiceOptions{ID: "tk-1", Recipient: api.InvoiceRecipientInput{ID: "p-2"}, XMLOut: "f.xml"}},
			parseCase[invoiceOptions]{args: []string{"invoice", "tk-1", "--tin", "EKU9003173C9", "--legal-name", "ESCUELA KEMPER URGATE", "--zip-code", "42501",
				"--tax-regime", "601", "--cfdi-use", "G01", "--email", "a@b.mx"},
				want: invoiceOptions{ID: "tk-1", Recipient: api.InvoiceRecipientInput{Tin: "EKU9003173C9", LegalName: "ESCUELA KEMPER URGATE", ZipCode: "42501",
					TaxRegimeCode: "601", CfdiUseCode: "G01", Email: "a@b.mx"}}},
			parseCase[invoiceOptions]{args: []string{"invoice", "tk-1", "--legal-name", "X"}, usage: "give the customer: --recipient-id, or --tin"},
			parseCase[invoiceOptions]{args: []string{"invoice", "--tin", "EKU9003173C9"}, usage: "missing argument: id"},
		)
	})
	t.Run("cancel", func(t *testing.T) {
		testParse(t, newCancelCmd, func(o *cancelOptions) { o.f = nil },
			parseCase[cancelOptions]{args: []string{"cancel", "tk-1", "--yes"}, want: cancelOptions{ID: "tk-1", Yes: true}},
			parseCase[cancelOptions]{args: []string{"cancel", "tk-1"}, usage: "stdin is not a terminal; pass --yes"},
			parseCase[cancelOptions]{args: []string{"cancel", "-y"}, usage: "missing argument: id"},
		)
	})
	t.Run("globalize", func(t *testing.T) {
		testParse(t, newGlobalizeCmd, func(o *globalizeOptions) { o.f = nil },
			parseCase[globalizeOptions]{args: []string{"globalize", "--issuer", "p-1", "--periodicity", "04", "--month", "11", "--year", "2026"},
				want: globalizeOptions{Issuer: "p-1", Periodicity: "04", Month: "11", Year: "2026"}},
			parseCase[globalizeOptions]{args: []string{"globalize", "--issuer", "p-1", "--periodicity", "05", "--month", "18", "--year", "2026",
				"--ticket", "tk-1", "--ticket", "tk-2", "--xml-out", "global.xml"},
				want: globalizeOptions{Issuer: "p-1", Periodicity: "05", Month: "18", Year: "2026", Tickets: []string{"tk-1", "tk-2"}, XMLOut: "global.xml"}},
			parseCase[globalizeOptions]{args: []string{"globalize", "--issuer", "p-1", "--periodicity", "04", "--month", "11"}, usage: `Required flag "year" not set`},
			parseCase[globalizeOptions]{args: []string{"globalize", "--issuer", "p-1", "--periodicity", "04", "--month", "11", "--year", "2026", "tk-1"},
				usage: `unexpected argument "tk-1"`},
		)
	})
}

// parseCase is one command line and the options it gives, or the usage error it is refused with.
type parseCase[O any] struct {
	args  []string
	want  O      // the options, without the factory
	usage string // a usage error, and the run not called
}

// testParse runs each case through the command newCmd makes, with a run function that keeps the
// options; noFactory clears the options' factory so that they compare with want.
func testParse[O any](t *testing.T, newCmd func(*cmdutil.Factory, cmdutil.RunFunc[O]) *cli.Command, noFactory func(*O), cases ...parseCase[O]) {
	t.Helper()
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
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
			noFactory(&g)
			if !reflect.DeepEqual(g, c.want) {
				t.Fatalf("options %+v\nwant    %+v", g, c.want)
			}
		})
	}
}
