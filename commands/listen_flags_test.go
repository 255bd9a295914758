package commands

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

// TestListenAndTriggerParse checks what `timbra listen` and `timbra trigger` parse a command
// line into, apart from connecting to anything.
func TestListenAndTriggerParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	t.Run("listen", func(t *testing.T) {
		for _, c := range []struct {
			args    []string
			forward string
			events  []string
			timeout time.Duration
			json    bool
			usage   string
		}{
			{[]string{"listen", "--forward-to", "3000", "--events", "invoice.stamped,invoice.cancelled", "--forward-timeout", "2s", "--format", "json"},
				"http://localhost:3000", []string{"invoice.stamped", "invoice.cancelled"}, 2 * time.Second, true, ""},
			{[]string{"listen", "--format", "yaml"}, "", nil, 0, false, `invalid value "yaml" for --format`},
		} {
			t.Run(strings.Join(c.args, " "), func(t *testing.T) {
				var got *listenOptions
				err := cmdtest.Parse(t, newListenCmd(f, func(_ *cli.Context, o *listenOptions) error { got = o; return errRan }), c.args...)
				if c.usage != "" {
					cmdtest.WantUsage(t, err, got != nil, c.usage)
					return
				}
				if !errors.Is(err, errRan) || got.ForwardTo != c.forward || !reflect.DeepEqual(got.Events, c.events) ||
					got.ForwardTimeout != c.timeout || got.JSON != c.json {
					t.Fatalf("err %v, options %+v", err, got)
				}
			})
		}
	})
	t.Run("trigger", func(t *testing.T) {
		var got *triggerOptions
		err := cmdtest.Parse(t, newTriggerCmd(f, func(_ *cli.Context, o *triggerOptions) error { got = o; return errRan }),
			"trigger", "invoice.stamped", "--related-object-id", "inv-1", "--webhook-id", "w-1")
		if !errors.Is(err, errRan) || got.Type != "invoice.stamped" || got.RelatedObjectID != "inv-1" || got.WebhookID != "w-1" {
			t.Fatalf("err %v, options %+v", err, got)
		}
	})
}
