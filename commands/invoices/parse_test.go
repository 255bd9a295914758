package invoices

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

// TestCommandsParse checks what each invoices command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	t.Run("create", func(t *testing.T) {
		testParse(t, newCreateCmd, func(o *createOptions) { o.f = nil },
			parseCase[createOptions]{args: []string{"create", "--file", "invoice.json"}, want: createOptions{File: "invoice.json"}},
			parseCase[createOptions]{args: []string{"create", "-f", "-", "--xml-out", "factura.xml"}, want: createOptions{File: "-", XMLOut: "factura.xml"}},
			parseCase[createOptions]{args: []string{"create", "--xml-out", "factura.xml"}, usage: `missing flag --file (or --example KIND for a body to start from)`},
			parseCase[createOptions]{args: []string{"create", "--example"}, want: createOptions{Example: true}},
			parseCase[createOptions]{args: []string{"create", "--example", "payroll"}, want: createOptions{Example: true, Kind: "payroll"}},
			parseCase[createOptions]{args: []string{"create", "--example", "nomina"}, usage: `no example "nomina": use income, credit-note, transfer, payment, payroll, global`},
			parseCase[createOptions]{args: []string{"create", "--example", "income", "global"}, usage: `unexpected argument "global"`},
			parseCase[createOptions]{args: []string{"create", "--example", "income", "--file", "x.json"}, usage: `--example prints a body and sends nothing`},
			parseCase[createOptions]{args: []string{"create", "--file", "invoice.json", "more.json"}, usage: `unexpected argument "more.json"`},
		)
	})
	t.Run("list", func(t *testing.T) {
		testParse(t, newListCmd, func(o *listOptions) { o.f = nil },
			parseCase[listOptions]{args: []string{"list"}, want: listOptions{PagingOptions: cmdutil.PagingOptions{Page: 1}}},
			parseCase[listOptions]{args: []string{"list", "--from", "2026-11-01", "--to", "2026-11-30", "--issuer", "EKU9003173C9", "--recipient", "XAXX010101000",
				"--type", "I", "--status", "Vigente", "--series", "F", "--page", "3", "--page-size", "50"},
				want: listOptions{PagingOptions: cmdutil.PagingOptions{Page: 3, PageSize: 50}, From: "2026-11-01", To: "2026-11-30", Issuer: "EKU9003173C9",
					Recipient: "XAXX010101000", TypeCode: "I", Status: "Vigente", Series: "F"}},
			parseCase[listOptions]{args: []string{"list", "--page", "0"}, usage: "pages start at 1"},
			parseCase[listOptions]{args: []string{"list", "--page-size", "0"}, usage: "give a positive number"},
			parseCase[listOptions]{args: []string{"list", "Vigente"}, usage: `unexpected argument "Vigente"`},
		)
	})
	t.Run("get", func(t *testing.T) {
		testParse(t, newGetCmd, func(o *getOptions) { o.f = nil },
			parseCase[getOptions]{args: []string{"get", "inv-1"}, want: getOptions{ID: "inv-1"}},
			parseCase[getOptions]{args: []string{"get"}, usage: "missing argument: invoice ID"},
			parseCase[getOptions]{args: []string{"get", "inv-1", "inv-2"}, usage: `unexpected argument "inv-2"`},
		)
	})
	t.Run("xml", func(t *testing.T) {
		testParse(t, newXMLCmd, func(o *xmlOptions) { o.f = nil },
			parseCase[xmlOptions]{args: []string{"xml", "inv-1"}, want: xmlOptions{ID: "inv-1"}},
			parseCase[xmlOptions]{args: []string{"xml", "inv-1", "--out", "-"}, want: xmlOptions{ID: "inv-1", Out: "-"}},
			parseCase[xmlOptions]{args: []string{"xml", "--out", "f.xml"}, usage: "missing argument: invoice ID"},
		)
	})
	t.Run("pdf", func(t *testing.T) {
		testParse(t, newPDFCmd, func(o *pdfOptions) { o.f = nil },
			parseCase[pdfOptions]{args: []string{"pdf", "inv-1"}, want: pdfOptions{ID: "inv-1"}},
			parseCase[pdfOptions]{args: []string{"pdf", "inv-1", "--out", "factura.pdf", "--band-color", "#8B0000", "--font-color", "#FFF", "--logo", "logo.png"},
				want: pdfOptions{ID: "inv-1", Out: "factura.pdf", Band: "#8B0000", Font: "#FFF", Logo: "logo.png"}},
			parseCase[pdfOptions]{args: []string{"pdf"}, usage: "missing argument: invoice ID"},
		)
	})
	t.Run("cancel", func(t *testing.T) {
		testParse(t, newCancelCmd, func(o *cancelOptions) { o.f = nil },
			parseCase[cancelOptions]{args: []string{"cancel", "inv-1", "--reason", "01", "--replacement", "BBBB-2", "--yes"},
				want: cancelOptions{ID: "inv-1", Reason: "01", Replacement: "BBBB-2", Yes: true}},
			// off a terminal without --yes the run refuses, after reading --file
			parseCase[cancelOptions]{args: []string{"cancel", "inv-1", "--reason", "02"}, want: cancelOptions{ID: "inv-1", Reason: "02"}},
			parseCase[cancelOptions]{args: []string{"cancel", "--file", "cancel.json", "-y"}, want: cancelOptions{File: "cancel.json", Yes: true}},
			parseCase[cancelOptions]{args: []string{"cancel", "inv-1"}, usage: "missing --reason (01 to 04)"},
			parseCase[cancelOptions]{args: []string{"cancel", "--reason", "02"}, usage: "missing argument: invoice ID"},
			parseCase[cancelOptions]{args: []string{"cancel", "--file", "-"}, usage: "--file - reads stdin: pass --yes"},
			parseCase[cancelOptions]{args: []string{"cancel", "inv-1", "--file", "cancel.json", "--yes"}, usage: `unexpected argument "inv-1"`},
		)
	})
	t.Run("status", func(t *testing.T) {
		testParse(t, newStatusCmd, func(o *statusOptions) { o.f = nil },
			parseCase[statusOptions]{args: []string{"status", "inv-1"}, want: statusOptions{ID: "inv-1"}},
			parseCase[statusOptions]{args: []string{"status"}, usage: "missing argument: invoice ID"},
		)
	})
	t.Run("send", func(t *testing.T) {
		testParse(t, newSendCmd, func(o *sendOptions) { o.f = nil },
			parseCase[sendOptions]{args: []string{"send", "inv-1"}, want: sendOptions{ID: "inv-1"}},
			parseCase[sendOptions]{args: []string{"send", "inv-1", "--to", "cliente@example.com", "--band-color", "#1F4E79", "--font-color", "#FFF", "--logo", "logo.png"},
				want: sendOptions{ID: "inv-1", To: "cliente@example.com", Band: "#1F4E79", Font: "#FFF", Logo: "logo.png"}},
			parseCase[sendOptions]{args: []string{"send", "--to", "cliente@example.com"}, usage: "missing argument: invoice ID"},
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
