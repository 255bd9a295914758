package webhooks

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// parseCase is one command line of a parse test: the options it gives or, when usage is set,
// the usage error it is refused with (its run not called).
type parseCase[O any] struct {
	args  []string
	want  O
	usage string
}

// testParse parses each command line of cases with the command newCmd makes, and checks the
// options the run function is given against the case's.
func testParse[O any](t *testing.T, newCmd func(cmdutil.RunFunc[O]) *cli.Command, cases []parseCase[O]) {
	t.Helper()
	errRan := errors.New("ran")
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var got *O
			err := cmdtest.Parse(t, newCmd(func(_ *cli.Context, o *O) error { got = o; return errRan }), c.args...)
			if c.usage != "" {
				cmdtest.WantUsage(t, err, got != nil, c.usage)
				return
			}
			if !errors.Is(err, errRan) {
				t.Fatalf("err %v", err)
			}
			if !reflect.DeepEqual(*got, c.want) {
				t.Fatalf("options %+v\nwant    %+v", *got, c.want)
			}
		})
	}
}

// TestCommandsParse checks what each webhooks command (and inspect) parses a command line into,
// apart from running it (each constructor takes the run function).
func TestCommandsParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	with := func(newCmd func(*cmdutil.Factory, cmdutil.RunFunc[idOptions]) *cli.Command) func(cmdutil.RunFunc[idOptions]) *cli.Command {
		return func(run cmdutil.RunFunc[idOptions]) *cli.Command { return newCmd(f, run) }
	}
	t.Run("create", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[createOptions]) *cli.Command { return newCreateCmd(f, run) }, []parseCase[createOptions]{
			{args: []string{"create", "--url", "https://example.com/hooks", "--events", "invoice.canceled, invoice.stamped", "--description", "orders", "--person", "p-1", "--person", "p-2"},
				want: createOptions{f: f, URL: "https://example.com/hooks", Events: []string{"invoice.canceled", "invoice.stamped"}, Description: strp("orders"), People: []string{"p-1", "p-2"}}},
			{args: []string{"create", "--url", "https://example.com/all", "--events", "*"},
				want: createOptions{f: f, URL: "https://example.com/all", Events: []string{"*"}}},
			{args: []string{"create", "--url", "https://example.com/all", "--events", "*", "--description", ""},
				want: createOptions{f: f, URL: "https://example.com/all", Events: []string{"*"}, Description: strp("")}},
			{args: []string{"create", "--url", " ", "--events", "*"}, usage: "missing flag --url"},
			{args: []string{"create", "--url", "https://x.example", "--events", " , "}, usage: "missing flag --events (event types, or '*' for all)"},
			{args: []string{"create", "x", "--url", "https://x.example", "--events", "*"}, usage: `unexpected argument "x"`},
		})
	})
	t.Run("list", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[listOptions]) *cli.Command { return newListCmd(f, run) }, []parseCase[listOptions]{
			{args: []string{"list"}, want: listOptions{f: f, PagingOptions: cmdutil.PagingOptions{Page: 1}}},
			{args: []string{"list", "--page", "2", "--page-size", "50"}, want: listOptions{f: f, PagingOptions: cmdutil.PagingOptions{Page: 2, PageSize: 50}}},
			{args: []string{"list", "--page", "0"}, usage: "pages start at 1"},
			{args: []string{"list", "--page-size", "0"}, usage: "give a positive number"},
			{args: []string{"list", "extra"}, usage: `unexpected argument "extra"`},
		})
	})
	for _, c := range []struct {
		name   string
		newCmd func(*cmdutil.Factory, cmdutil.RunFunc[idOptions]) *cli.Command
	}{{"get", newGetCmd}, {"queue", newQueueCmd}, {"rotate-secret", newRotateCmd}} {
		t.Run(c.name, func(t *testing.T) {
			testParse(t, with(c.newCmd), []parseCase[idOptions]{
				{args: []string{c.name, hookID}, want: idOptions{f: f, ID: hookID}},
				{args: []string{c.name}, usage: "missing argument: webhook ID"},
				{args: []string{c.name, hookID, "x"}, usage: `unexpected argument "x"`},
			})
		})
	}
	t.Run("update", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[updateOptions]) *cli.Command { return newUpdateCmd(f, run) }, []parseCase[updateOptions]{
			{args: []string{"update", hookID, "--url", " https://example.com/v2 ", "--events", "*", "--description", "", "--person", "p-1,p-2"},
				want: updateOptions{f: f, ID: hookID, URL: strp("https://example.com/v2"), Events: []string{"*"}, Description: strp(""), People: []string{"p-1", "p-2"}}},
			{args: []string{"update", hookID, "--all-people"}, want: updateOptions{f: f, ID: hookID, AllPeople: true}},
			{args: []string{"update", hookID}, usage: "nothing to change: give --url, --events, --description, --person or --all-people"},
			{args: []string{"update", hookID, "--events", " , "}, usage: "--events: give at least one event type, or '*' for all"},
			{args: []string{"update", hookID, "--person", " "}, usage: "--person: give a person ID"},
			{args: []string{"update", hookID, "--person", "p-1", "--all-people"}, usage: "--person and --all-people cannot be used together"},
			{args: []string{"update", "--events", "*"}, usage: "missing argument: webhook ID"},
		})
	})
	for _, c := range []struct {
		name, status string
		newCmd       func(*cmdutil.Factory, cmdutil.RunFunc[updateOptions]) *cli.Command
	}{{"enable", "enabled", newEnableCmd}, {"disable", "disabled", newDisableCmd}} {
		t.Run(c.name, func(t *testing.T) {
			testParse(t, func(run cmdutil.RunFunc[updateOptions]) *cli.Command { return c.newCmd(f, run) }, []parseCase[updateOptions]{
				{args: []string{c.name, hookID}, want: updateOptions{f: f, ID: hookID, Status: strp(c.status)}},
				{args: []string{c.name}, usage: "missing argument: webhook ID"},
			})
		})
	}
	t.Run("delete", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[deleteOptions]) *cli.Command { return newDeleteCmd(f, run) }, []parseCase[deleteOptions]{
			{args: []string{"delete", hookID, "--yes"}, want: deleteOptions{f: f, ID: hookID, Yes: true}},
			{args: []string{"delete", "-y", hookID}, want: deleteOptions{f: f, ID: hookID, Yes: true}},
			{args: []string{"delete", hookID}, usage: "refusing to delete without confirmation: stdin is not a terminal; pass --yes"},
			{args: []string{"delete", "--yes"}, usage: "missing argument: webhook ID"},
		})
	})
	t.Run("test", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[testOptions]) *cli.Command { return newTestCmd(f, run) }, []parseCase[testOptions]{
			{args: []string{"test", hookID}, want: testOptions{f: f, ID: hookID, Timeout: time.Minute}},
			{args: []string{"test", hookID, "--wait", "--timeout", "5s"}, want: testOptions{f: f, ID: hookID, Wait: true, Timeout: 5 * time.Second}},
			{args: []string{"test", hookID, "--wait", "--timeout", "0s"}, usage: "invalid value 0s for --timeout: give a positive duration such as 30s"},
			{args: []string{"test"}, usage: "missing argument: webhook ID"},
		})
	})
	t.Run("deliveries", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[deliveriesOptions]) *cli.Command { return newDeliveriesCmd(f, run) }, []parseCase[deliveriesOptions]{
			{args: []string{"deliveries", hookID}, want: deliveriesOptions{f: f, ID: hookID, PagingOptions: cmdutil.PagingOptions{Page: 1}}},
			{args: []string{"deliveries", hookID, "--status", " Failed ", "--event-type", " invoice.canceled ", "--page", "2", "--page-size", "3"},
				want: deliveriesOptions{f: f, ID: hookID, Status: "failed", EventType: "invoice.canceled", PagingOptions: cmdutil.PagingOptions{Page: 2, PageSize: 3}}},
			{args: []string{"deliveries", hookID, "--page-size", "60"}, want: deliveriesOptions{f: f, ID: hookID, PagingOptions: cmdutil.PagingOptions{Page: 1, PageSize: 60}}},
			{args: []string{"deliveries", hookID, "--status", "failed", "--page-size", "60"}, usage: "invalid value 60 for --page-size: give 1 to 50"},
			{args: []string{"deliveries", hookID, "--status", "lost"}, usage: `invalid value "lost" for --status: use pending, succeeded or failed`},
			{args: []string{"deliveries", hookID, "--event-type", " "}, usage: "--event-type: give an event type, for example invoice.canceled"},
			{args: []string{"deliveries", hookID, "--page-size", "0"}, usage: "give a positive number"},
			{args: []string{"deliveries"}, usage: "missing argument: webhook ID"},
		})
	})
	t.Run("delivery", func(t *testing.T) {
		testParse(t, func(run cmdutil.RunFunc[deliveryOptions]) *cli.Command { return newDeliveryCmd(f, run) }, []parseCase[deliveryOptions]{
			{args: []string{"delivery", hookID, deliveryID}, want: deliveryOptions{f: f, WebhookID: hookID, DeliveryID: deliveryID}},
			{args: []string{"delivery", hookID}, usage: "missing argument: delivery ID"},
			{args: []string{"delivery", hookID, deliveryID, "x"}, usage: `unexpected argument "x"`},
		})
	})
	for _, name := range []string{"timbra inspect", "timbra webhooks inspect"} {
		t.Run(name, func(t *testing.T) {
			if u := newInspectCmd(f, name, nil).UsageText; !strings.HasPrefix(u, name+" [WEBHOOK_ID]") {
				t.Errorf("usage %q", u)
			}
			testParse(t, func(run cmdutil.RunFunc[inspectOptions]) *cli.Command { return newInspectCmd(f, name, run) }, []parseCase[inspectOptions]{
				{args: []string{"inspect"}, want: inspectOptions{f: f}},
				{args: []string{"inspect", " " + hookID + " ", "--status", "FAILED", "--event-type", "invoice.canceled"},
					want: inspectOptions{f: f, ID: hookID, Status: "failed", EventType: "invoice.canceled"}},
				{args: []string{"inspect", "a", "b"}, usage: `unexpected argument "b"`},
				{args: []string{"inspect", hookID, "--status", "lost"}, usage: `invalid value "lost" for --status`},
				{args: []string{"inspect", "--status", "failed"}, usage: "--status and --event-type need a WEBHOOK_ID when stdout is not a terminal"},
			})
		})
	}
}
