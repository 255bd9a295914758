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
		{[]string{"trigger", "invoice.stamped", "--synthetic", "--related-object-id", "inv-1", "--webhook-id", "w-1"},
			triggerOptions{f: f, Type: "invoice.stamped", Synthetic: true, RelatedObjectID: "inv-1", WebhookID: "w-1"}, ""},
		{[]string{"trigger", " invoice.canceled ", "--synthetic", "--person-id", " p-1 "}, triggerOptions{f: f, Type: "invoice.canceled", Synthetic: true, PersonID: "p-1"}, ""},
		{[]string{"trigger", "invoice.canceled"}, triggerOptions{f: f, Type: "invoice.canceled"}, ""},
		{[]string{"trigger", "invoice.canceled", "--related-object-id", "inv-2", "--yes"}, triggerOptions{f: f, Type: "invoice.canceled", RelatedObjectID: "inv-2", Yes: true}, ""},
		{[]string{"trigger", "invoice.stamped", "--add", "invoice:series=F", "--override", "recipient.tin=XEXX010101000", "--remove", "invoice:items[0].taxObjectCode"},
			triggerOptions{f: f, Type: "invoice.stamped", Edits: []edit{
				{op: "add", arg: "invoice:series=F", step: "invoice", path: []segment{{key: "series", index: -1}}, value: "F"},
				{op: "override", arg: "recipient.tin=XEXX010101000", path: []segment{{key: "recipient", index: -1}, {key: "tin", index: -1}}, value: "XEXX010101000"},
				{op: "remove", arg: "invoice:items[0].taxObjectCode", step: "invoice", path: []segment{{key: "items", index: -1}, {index: 0}, {key: "taxObjectCode", index: -1}}},
			}}, ""},
		{[]string{"trigger", "--fixture", "f.json", "--add", "inv:series=F"},
			triggerOptions{f: f, Fixture: "f.json", Edits: []edit{{op: "add", arg: "inv:series=F", step: "inv", path: []segment{{key: "series", index: -1}}, value: "F"}}}, ""},
		{[]string{"trigger", "--list"}, triggerOptions{f: f, List: true}, ""},
		{[]string{"trigger"}, triggerOptions{}, "missing argument: event type (see timbra trigger --list)"},
		{[]string{"trigger", " "}, triggerOptions{}, "missing argument: event type (see timbra trigger --list)"},
		{[]string{"trigger", "a", "b"}, triggerOptions{}, `unexpected argument "b"`},
		{[]string{"trigger", "invoice.cancelled"}, triggerOptions{}, `unknown event type "invoice.cancelled"; did you mean invoice.canceled? (timbra trigger --list names them)`},
		{[]string{"trigger", "customer.created"}, triggerOptions{}, `unknown event type "customer.created" (timbra trigger --list names them)`},
		{[]string{"trigger", "webhook.test"}, triggerOptions{}, "webhook.test is sent by timbra webhooks test ID, not triggered"},
		{[]string{"trigger", "--list", "invoice.canceled"}, triggerOptions{}, `unexpected argument "invoice.canceled"`},
		{[]string{"trigger", "--list", "--person-id", "p-1"}, triggerOptions{}, "--list takes no --person-id"},
		{[]string{"trigger", "--list", "--add", "a=1"}, triggerOptions{}, "--list takes no --add"},
		{[]string{"trigger", "--fixture", "f.json", "invoice.canceled"}, triggerOptions{}, `unexpected argument "invoice.canceled"`},
		{[]string{"trigger", "--fixture", "f.json", "--synthetic"}, triggerOptions{}, "--fixture takes no --synthetic"},
		{[]string{"trigger", "--fixture", " "}, triggerOptions{}, "--fixture: give a FILE"},
		{[]string{"trigger", "invoice.canceled", "--synthetic", "--webhook-id", " "}, triggerOptions{}, "--webhook-id: give an ID"},
		{[]string{"trigger", "invoice.canceled", "--webhook-id", "w-1"}, triggerOptions{}, "--webhook-id goes with --synthetic"},
		{[]string{"trigger", "invoice.canceled", "--person-id", "p-1"}, triggerOptions{}, "--person-id goes with --synthetic"},
		{[]string{"trigger", "invoice.canceled", "--synthetic", "--yes"}, triggerOptions{}, "--synthetic changes nothing: it takes no --yes"},
		{[]string{"trigger", "invoice.stamped", "--add", "series"}, triggerOptions{}, "--add series: give [STEP:]PATH=VALUE, such as invoice:series=F"},
		{[]string{"trigger", "invoice.stamped", "--remove", "invoice:items[x]"}, triggerOptions{}, `--remove invoice:items[x]: path "items[x]": [x] is not a list index (0, 1, …)`},
		{[]string{"trigger", "invoice.stamped", "--override", "invoice:=1"}, triggerOptions{}, "--override invoice:=1: no path"},
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
