package trigger

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

const (
	triggeredEvent = "0195a7c4-2b1e-7c3d-9f00-000000000009"
	listenerHook   = "0195a7c4-2b1e-7c3d-9f00-00000000000a"
	hookID         = "3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15"
)

// triggerAPI answers POST /api/v4/events/trigger as the server would in the test environment;
// listening tells whether the caller has a listener connected.
func triggerAPI(t *testing.T, listening bool, production bool) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != "/api/v4/events/trigger" {
			cmdtest.WriteEnvelope(w, 404, nil, "not here", "t")
			return
		}
		var in api.EventTrigger
		json.NewDecoder(r.Body).Decode(&in)
		switch {
		case in.Type == nil || *in.Type == "webhook.test" || !strings.HasPrefix(*in.Type, "invoice."):
			cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("Type", "El tipo de evento '"+api.Deref(in.Type)+"' no existe.")}, "", "t")
		case production:
			cmdtest.WriteEnvelope(w, 403, nil, "timbra trigger no está disponible en producción; usa el ambiente de pruebas.", "t")
		case in.WebhookID == nil && !listening:
			cmdtest.WriteEnvelope(w, 409, nil, "La escucha de CLI no está conectada; ejecuta timbra listen.", "t")
		case in.WebhookID == nil:
			cmdtest.WriteEnvelope(w, 202, api.EventTriggered{EventID: triggeredEvent, WebhookID: listenerHook}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 202, api.EventTriggered{EventID: triggeredEvent, WebhookID: *in.WebhookID}, "", "t")
		}
	})
}

func TestTrigger(t *testing.T) {
	cmdtest.Isolate(t)
	srv := triggerAPI(t, true, false)
	cmdtest.UseAPI(t, srv.URL)

	// to the caller's listener: nothing but the type is sent
	r := runArgs(t, "trigger", "invoice.canceled", "--synthetic")
	cmdtest.WantCode(t, r, 0)
	if r.Out != "Triggered invoice.canceled as event "+triggeredEvent+", sent to listener\n" || r.Err != "" {
		t.Fatalf("stdout %q stderr %q", r.Out, r.Err)
	}
	req := srv.Last(t)
	if req.Body != `{"type":"invoice.canceled","relatedObjectId":null,"personId":null,"webhookId":null}` {
		t.Errorf("body %s", req.Body)
	}
	if req.Header.Get("X-API-KEY") == "" || req.Header.Get("X-TENANT-KEY") != "tenant-1" {
		t.Errorf("headers %v", req.Header)
	}

	// to one webhook, with every field; flags may follow the type
	r = runArgs(t, "trigger", "invoice.stamped", "--synthetic", "--related-object-id", "inv-9", "--person-id", "p-1", "--webhook-id", hookID)
	cmdtest.WantCode(t, r, 0)
	if r.Out != "Triggered invoice.stamped as event "+triggeredEvent+", sent to webhook "+hookID+"\n" {
		t.Fatalf("stdout %q", r.Out)
	}
	want := `{"type":"invoice.stamped","relatedObjectId":"inv-9","personId":"p-1","webhookId":"` + hookID + `"}`
	if b := srv.Last(t).Body; b != want {
		t.Errorf("body %s\nwant %s", b, want)
	}

	// -o json: the API's answer
	r = runArgs(t, "trigger", "invoice.canceled", "--synthetic", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var got api.EventTriggered
	if err := json.Unmarshal([]byte(r.Out), &got); err != nil || got.EventID != triggeredEvent || got.WebhookID != listenerHook {
		t.Fatalf("stdout %s (%v)", r.Out, err)
	}

	// the API's refusals go through the usual error lines
	r = runArgs(t, "trigger", "invoice.canceled", "--synthetic", "--override", "trigger:type=webhook.test")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "Type: El tipo de evento 'webhook.test' no existe. (TYPE)\n" || r.Out != "" {
		t.Errorf("stdout %q stderr %q", r.Out, r.Err)
	}
}

func TestTriggerRefused(t *testing.T) {
	cmdtest.Isolate(t)
	srv := triggerAPI(t, false, false)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "trigger", "invoice.canceled", "--synthetic")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "409: La escucha de CLI no está conectada; ejecuta timbra listen.\n" {
		t.Errorf("stderr %q", r.Err)
	}

	srv = triggerAPI(t, true, true)
	cmdtest.UseAPI(t, srv.URL)
	r = runArgs(t, "trigger", "invoice.canceled", "--synthetic", "--webhook-id", hookID)
	cmdtest.WantCode(t, r, 1)
	if r.Err != "403: timbra trigger no está disponible en producción; usa el ambiente de pruebas.\n" {
		t.Errorf("stderr %q", r.Err)
	}
}

func TestTriggerList(t *testing.T) {
	cmdtest.Isolate(t) // no API needed: the list is the binary's catalog
	r := runArgs(t, "trigger", "--list")
	cmdtest.WantCode(t, r, 0)
	want := "TYPE\tOBJECT\tDESCRIPTION\n" +
		"invoice.stamped\tinvoice\tAn invoice was sealed and stamped (Timbre Fiscal Digital).\n" +
		"invoice.canceled\tinvoice\tAn invoice was cancelled before the SAT.\n" +
		"invoice.cancellation_requested\tinvoice\tA cancellation that needs the recipient's acceptance was requested.\n" +
		"invoice.cancellation_rejected\tinvoice\tThe recipient rejected a cancellation: the invoice stays valid.\n" +
		"download_request.completed\tdownload_request\tA bulk download request finished at the SAT: its CFDIs or metadata are ready to download.\n" +
		"download_request.failed\tdownload_request\tThe SAT refused a bulk download request (Pending or InProgress), or its e.firma is gone (satStatusCode, satMessage).\n"
	if r.Out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.Out, want)
	}

	r = runArgs(t, "trigger", "--list", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var types []triggerable
	if err := json.Unmarshal([]byte(r.Out), &types); err != nil || len(types) != 6 || types[1] != (triggerable{"invoice.canceled", "invoice", "An invoice was cancelled before the SAT."}) {
		t.Errorf("stdout %s (%v)", r.Out, err)
	}
	cmdtest.WantNotContains(t, "stdout", r.Out, "webhook.test")

	r = run1(t, cmdtest.Opts{TTY: true}, "trigger", "--list")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "invoice.cancellation_rejected   invoice           The recipient rejected", "download_request.failed         download_request  The SAT refused")
}

func TestTriggerUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trigger"}, "missing argument: event type (see timbra trigger --list)"},
		{[]string{"trigger", "a", "b"}, `unexpected argument "b"`},
		{[]string{"trigger", "--list", "invoice.canceled"}, `unexpected argument "invoice.canceled"`},
		{[]string{"trigger", "--list", "--webhook-id", "w"}, "--list takes no --webhook-id"},
		{[]string{"trigger", "invoice.canceled", "--webhook-id", " "}, "--webhook-id: give an ID"},
		{[]string{"trigger", "invoice.canceled", "--related-object-id", ""}, "--related-object-id: give an ID"},
	} {
		r := runArgs(t, tc.args...)
		cmdtest.WantCode(t, r, 2)
		cmdtest.WantContains(t, strings.Join(tc.args, " "), r.Err, tc.want, "Run 'timbra trigger --help'.")
	}
}

// TestTriggerCompletesTypes: `timbra trigger <TAB>` offers the types the trigger accepts, and
// flags after a dash.
func TestTriggerCompletesTypes(t *testing.T) {
	cmdtest.Isolate(t)
	old := os.Args // the completer reads os.Args to tell a flag from an argument
	t.Cleanup(func() { os.Args = old })
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"trigger"}, []string{"invoice.stamped", "invoice.canceled", "invoice.cancellation_requested", "invoice.cancellation_rejected",
			"download_request.completed", "download_request.failed"}, []string{"webhook.test", "--synthetic"}},
		{[]string{"trigger", "--syn"}, []string{"--synthetic"}, []string{"invoice.stamped"}},
		{[]string{"trigger", "invoice.stamped"}, nil, []string{"invoice.canceled"}},
	} {
		args := append(c.args, "--generate-bash-completion")
		os.Args = append([]string{"timbra"}, args...)
		r := runArgs(t, args...)
		cmdtest.WantCode(t, r, 0)
		words := strings.Fields(r.Out)
		for _, w := range c.want {
			if !slices.Contains(words, w) {
				t.Errorf("%v: %q lacks %s", c.args, r.Out, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(words, w) {
				t.Errorf("%v: %q offers %s", c.args, r.Out, w)
			}
		}
	}
}
