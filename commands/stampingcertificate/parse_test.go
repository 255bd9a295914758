package stampingcertificate

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

// TestCommandsParse checks what `timbra stamping-certificate` parses a command line into, apart
// from calling the API.
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	for _, c := range []struct {
		args  []string
		want  certificateOptions
		usage string // a usage error, and the run not called
	}{
		{[]string{"stamping-certificate"}, certificateOptions{f: f}, ""},
		{[]string{"stamping-certificate", "--out", "pac.pem"}, certificateOptions{f: f, Out: "pac.pem"}, ""},
		{[]string{"stamping-certificate", "--out", "pac.cer", "--der"}, certificateOptions{f: f, Out: "pac.cer", DER: true}, ""},
		{[]string{"stamping-certificate", "--out", "-"}, certificateOptions{f: f, Out: "-"}, ""},
		{[]string{"stamping-certificate", "--der"}, certificateOptions{}, "--der needs --out FILE"},
		{[]string{"stamping-certificate", "x"}, certificateOptions{}, `unexpected argument "x"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *certificateOptions
			err := cmdtest.Parse(t, newCertificateCmd(f, func(_ *cli.Context, o *certificateOptions) error { got = o; return errRan }), c.args...)
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
