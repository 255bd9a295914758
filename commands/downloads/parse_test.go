package downloads

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what each downloads command parses a command line into, apart from
// running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("request", func(t *testing.T) {
		var got *requestOptions
		run := func(_ *cli.Context, o *requestOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newRequestCmd(f, run), "request", "--rule", "r-1", "--from", "2026-01-01", "--to", "2026-02-01")
		if !errors.Is(err, errRan) || got.Rule != "r-1" || got.From != "2026-01-01" || got.To != "2026-02-01" || got.Requester != "" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newRequestCmd(f, run), "request", "--requester", "EKU9003173C9", "--type", "Recibidos", "--query", "CFDI",
			"--status", "Vigente", "--invoice-type", "I", "--issuer", "AAA010101AAA", "--from", "2026-01-01", "--to", "2026-02-01")
		if !errors.Is(err, errRan) || got.Requester != "EKU9003173C9" || got.Type != "Recibidos" || got.Query != "CFDI" ||
			got.Status != "Vigente" || got.InvoiceType != "I" || got.Issuer != "AAA010101AAA" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newRequestCmd(f, run), "request", "--requester", "EKU9003173C9", "--uuid", "96623061-61fe-49de-b298-c7156476aa8b")
		if !errors.Is(err, errRan) || got.UUID != "96623061-61fe-49de-b298-c7156476aa8b" || got.Type != "Uuid" || got.Query != "CFDI" || got.From != "" {
			t.Fatalf("--uuid: err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newRequestCmd(f, run), "request", "--requester", "EKU9003173C9", "--uuid", "u", "--query", "Retenciones")
		if !errors.Is(err, errRan) || got.Type != "Uuid" || got.Query != "Retenciones" {
			t.Fatalf("--uuid of a retención: err %v, options %+v", err, got)
		}
		got = nil
		err = cmdtest.Parse(t, newRequestCmd(f, run), "request", "--requester", "EKU9003173C9", "--type", "Emitidos", "--query", "Retenciones",
			"--on-behalf", "CACX7605101P8", "--from", "2026-01-01", "--to", "2026-02-01")
		if !errors.Is(err, errRan) || got.OnBehalf != "CACX7605101P8" || got.Query != "Retenciones" || got.UUID != "" {
			t.Fatalf("--on-behalf: err %v, options %+v", err, got)
		}
		for _, c := range []struct {
			args  []string
			usage string
		}{
			{[]string{"request", "--requester", "X", "--uuid", "u", "--from", "2026-01-01"}, "drop --from"},
			{[]string{"request", "--requester", "X", "--uuid", "u", "--type", "Emitidos"}, "drop --type"},
			{[]string{"request", "--requester", "X", "--uuid", "u", "--on-behalf", "Y"}, "drop --on-behalf"},
			{[]string{"request", "--uuid", "u"}, "missing flag --requester"},
			{[]string{"request", "--rule", "r-1", "--from", "2026-01-01"}, "missing flag --to"},
			{[]string{"request", "--rule", "r-1", "--to", "2026-01-01"}, "missing flag --from"},
			{[]string{"request", "--rule", "r-1", "--type", "Emitidos", "--from", "a", "--to", "b"}, "drop --type"},
			{[]string{"request", "--requester", "X", "--type", "Emitidos", "--from", "a", "--to", "b"}, "missing flag --query (or give --rule)"},
			{[]string{"request", "x"}, `unexpected argument "x"`},
		} {
			got = nil
			cmdtest.WantUsage(t, cmdtest.Parse(t, newRequestCmd(f, run), c.args...), got != nil, c.usage)
		}
	})
	t.Run("list", func(t *testing.T) {
		var got *listOptions
		run := func(_ *cli.Context, o *listOptions) error { got = o; return errRan }
		err := cmdtest.Parse(t, newListCmd(f, run), "list", "--page", "2", "--page-size", "50")
		if !errors.Is(err, errRan) || got.Page != 2 || got.PageSize != 50 {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newListCmd(f, run), "list", "--page", "0"), got != nil, "pages start at 1")
		cmdtest.WantUsage(t, cmdtest.Parse(t, newListCmd(f, run), "list", "extra"), got != nil, `unexpected argument "extra"`)
	})
	t.Run("get", func(t *testing.T) {
		var got *getOptions
		run := func(_ *cli.Context, o *getOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newGetCmd(f, run), "get", "d-1"); !errors.Is(err, errRan) || got.ID != "d-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newGetCmd(f, run), "get"), got != nil, "missing argument: request ID")
	})
	t.Run("wait", func(t *testing.T) {
		var got *waitOptions
		run := func(_ *cli.Context, o *waitOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newWaitCmd(f, run), "wait", "d-1"); !errors.Is(err, errRan) || got.ID != "d-1" || got.Interval != 5*time.Second || got.Timeout != 0 {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		if err := cmdtest.Parse(t, newWaitCmd(f, run), "wait", "d-1", "--interval", "100ms", "--timeout", "1m"); !errors.Is(err, errRan) ||
			got.Interval != 100*time.Millisecond || got.Timeout != time.Minute {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newWaitCmd(f, run), "wait", "d-1", "--interval", "0s"), got != nil, "--interval must be more than 0")
		cmdtest.WantUsage(t, cmdtest.Parse(t, newWaitCmd(f, run), "wait"), got != nil, "missing argument: request ID")
	})
	t.Run("xmls", func(t *testing.T) {
		var got *xmlsOptions
		run := func(_ *cli.Context, o *xmlsOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newXMLsCmd(f, run), "xmls", "d-1", "--page-size", "100", "--save", "out"); !errors.Is(err, errRan) ||
			got.ID != "d-1" || got.PageSize != 100 || got.Save != "out" {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newXMLsCmd(f, run), "xmls"), got != nil, "missing argument: request ID")
	})
	t.Run("metadata", func(t *testing.T) {
		var got *metadataOptions
		run := func(_ *cli.Context, o *metadataOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newMetadataCmd(f, run), "metadata", "d-1", "--page", "3"); !errors.Is(err, errRan) || got.ID != "d-1" || got.Page != 3 {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		cmdtest.WantUsage(t, cmdtest.Parse(t, newMetadataCmd(f, run), "metadata", "a", "b"), got != nil, `unexpected argument "b"`)
	})
	t.Run("package", func(t *testing.T) {
		var got *packageOptions
		run := func(_ *cli.Context, o *packageOptions) error { got = o; return errRan }
		if err := cmdtest.Parse(t, newPackageCmd(f, run), "package", "d-1"); !errors.Is(err, errRan) || got.ID != "d-1" || got.Dir != "." {
			t.Fatalf("err %v, options %+v", err, got)
		}
		got = nil
		if err := cmdtest.Parse(t, newPackageCmd(f, run), "package", "d-1", "--dir", "zips"); !errors.Is(err, errRan) || got.Dir != "zips" {
			t.Fatalf("err %v, options %+v", err, got)
		}
	})
}
