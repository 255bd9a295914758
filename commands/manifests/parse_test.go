package manifests

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

// TestCommandsParse checks what `timbra manifests sign`, `get` and `list` parse a command line into,
// apart from calling the API.
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	for _, c := range []struct {
		args  []string
		want  getOptions
		usage string
	}{
		{[]string{"get", "p-1"}, getOptions{f: f, PersonID: "p-1"}, ""},
		{[]string{"get", "p-1", "--out", "carta.xml", "--version", "v-1"}, getOptions{f: f, PersonID: "p-1", Out: "carta.xml", Version: "v-1"}, ""},
		{[]string{"get", "p-1", "--out", "-"}, getOptions{f: f, PersonID: "p-1", Out: "-"}, ""},
		{[]string{"get"}, getOptions{}, "missing argument: person ID"},
		{[]string{"get", "p-1", "p-2"}, getOptions{}, `unexpected argument "p-2"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *getOptions
			err := cmdtest.Parse(t, newGetCmd(f, func(_ *cli.Context, o *getOptions) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		args  []string
		want  signOptions
		usage string
	}{
		{[]string{"sign", "--cer", "f.cer", "--key", "f.key"}, signOptions{f: f, Cer: "f.cer", Key: "f.key"}, ""},
		{[]string{"sign", "--cer", "f.cer", "--key", "f.key", "--password-env", "FIEL_PW", "--out", "-"},
			signOptions{f: f, Cer: "f.cer", Key: "f.key", Out: "-", Password: cmdutil.KeyPassword{Env: "FIEL_PW"}}, ""},
		{[]string{"sign", "--cer", "f.cer", "--key", "f.key", "--password-file", "pw.txt", "--password-stdin"},
			signOptions{f: f, Cer: "f.cer", Key: "f.key", Password: cmdutil.KeyPassword{File: "pw.txt", Stdin: true}}, ""}, // refused by the run
		{[]string{"sign", "--key", "f.key"}, signOptions{}, `Required flag "cer" not set`},
		{[]string{"sign", "--cer", "f.cer", "--key", "f.key", "secret"}, signOptions{}, `unexpected argument "secret"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *signOptions
			err := cmdtest.Parse(t, newSignCmd(f, func(_ *cli.Context, o *signOptions) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) || !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("err %v, options %+v\nwant %+v", err, got, c.want)
			}
		})
	}
	for _, c := range []struct {
		args           []string
		person         string
		page, pageSize int
		usage          string
	}{
		{[]string{"list", "p-1"}, "p-1", 1, 0, ""},
		{[]string{"list", "p-1", "--page", "2", "--page-size", "50"}, "p-1", 2, 50, ""},
		{[]string{"list"}, "", 0, 0, "missing argument: person ID"},
		{[]string{"list", "p-1", "--page", "0"}, "", 0, 0, "invalid value 0 for --page"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *listOptions
			err := cmdtest.Parse(t, newListCmd(f, func(_ *cli.Context, o *listOptions) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) || got.PersonID != c.person || got.Page != c.page || got.PageSize != c.pageSize {
				t.Fatalf("err %v, options %+v", err, got)
			}
		})
	}
}
