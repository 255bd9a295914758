package sat

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/urfave/cli/v2"
)

// TestCommandsParse checks what `timbra sat serve` parses a command line into.
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	for _, c := range []struct {
		args  []string
		want  serveOptions
		usage string
	}{
		{[]string{"serve", "--cfdis", "d"}, serveOptions{f: f, Addr: "127.0.0.1:8089", CFDIs: "d"}, ""},
		{[]string{"serve", "--cfdis", "d", "--addr", "127.0.0.1:0", "--addr-file", "a", "--delay", "2s", "--latency", "5ms", "--package-size", "10",
			"--code", "verify=404x2", "--code", "query=5002"},
			serveOptions{f: f, Addr: "127.0.0.1:0", AddrFile: "a", CFDIs: "d", Delay: 2 * time.Second, Latency: 5 * time.Millisecond, PackageSize: 10,
				Codes: []satlocal.Code{{Op: "verify", Code: 404, Times: 2}, {Op: "query", Code: 5002}}}, ""},
		{[]string{"serve", "--cfdis", "d", "--code", "upload=1"}, serveOptions{}, "OP=CODE with OP auth, query, verify or download"},
		{[]string{"serve", "--cfdis", "d", "--package-size", "-1"}, serveOptions{}, "--package-size must be 0 or more"},
		{[]string{"serve", "--cfdis", "d", "x"}, serveOptions{}, `unexpected argument "x"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *serveOptions
			err := cmdtest.Parse(t, newServeCmd(f, func(_ *cli.Context, o *serveOptions) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
			}
		})
	}
}
