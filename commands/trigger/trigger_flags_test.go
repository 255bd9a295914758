package trigger

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

// TestCommandsParse checks what `timbra trigger` parses a command line into, apart from sending
// anything.
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	for _, c := range []struct {
		args  []string
		want  triggerOptions
		usage string // a usage error, and the run not called
	}{
		{[]string{"trigger", "invoice.stamped", "--related-object-id", "inv-1", "--webhook-id", "w-1"},
			triggerOptions{f: f, Type: "invoice.stamped", RelatedObjectID: "inv-1", WebhookID: "w-1"}, ""},
		{[]string{"trigger", " invoice.canceled ", "--person-id", " p-1 "}, triggerOptions{f: f, Type: "invoice.canceled", PersonID: "p-1"}, ""},
		{[]string{"trigger", "--list"}, triggerOptions{f: f, List: true}, ""},
		{[]string{"trigger"}, triggerOptions{}, "missing argument: event type (see timbra trigger --list)"},
		{[]string{"trigger", " "}, triggerOptions{}, "missing argument: event type (see timbra trigger --list)"},
		{[]string{"trigger", "a", "b"}, triggerOptions{}, `unexpected argument "b"`},
		{[]string{"trigger", "--list", "invoice.canceled"}, triggerOptions{}, `unexpected argument "invoice.canceled"`},
		{[]string{"trigger", "--list", "--person-id", "p-1"}, triggerOptions{}, "--list takes no --person-id"},
		{[]string{"trigger", "invoice.canceled", "--webhook-id", " "}, triggerOptions{}, "--webhook-id: give an ID"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *triggerOptions
			err := cmdtest.Parse(t, newTriggerCmd(f, func(_ *cli.Context, o *triggerOptions) error { got = o; return errRan }), c.args...)
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
