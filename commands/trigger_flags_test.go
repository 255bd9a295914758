package commands

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/urfave/cli/v2"
)

// TestTriggerParse checks what `timbra trigger` parses a command line into, apart from sending
// anything.
func TestTriggerParse(t *testing.T) {
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}, "dev")
	errRan := errors.New("ran")
	var got *triggerOptions
	err := cmdtest.Parse(t, newTriggerCmd(f, func(_ *cli.Context, o *triggerOptions) error { got = o; return errRan }),
		"trigger", "invoice.stamped", "--related-object-id", "inv-1", "--webhook-id", "w-1")
	if !errors.Is(err, errRan) || got.Type != "invoice.stamped" || got.RelatedObjectID != "inv-1" || got.WebhookID != "w-1" {
		t.Fatalf("err %v, options %+v", err, got)
	}
}
