package webhooks

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

const (
	hookID     = "3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15"
	listenerID = "9b1d0c1e-5b7d-4c39-9a61-2d8e4f0b7c16"
	deliveryID = "0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f"
	eventID    = "0195a7c4-2b1e-7c3d-9f00-000000000001"
)

// hookAPI is a fake of the webhook endpoints with one URL webhook and one listener. deliveries
// are the answers of successive reads of the delivery log (the last one repeats).
type hookAPI struct {
	*cmdtest.FakeAPI
	mu         sync.Mutex
	hook       api.Webhook
	deliveries [][]api.Delivery
	reads      int
}

func newHookAPI(t *testing.T) *hookAPI {
	h := &hookAPI{hook: api.Webhook{
		ID: hookID, Kind: "url", URL: strp("https://example.com/hooks"), Description: "orders",
		EnabledEvents: []string{"invoice.canceled", "invoice.stamped"}, PersonIDs: []string{"p-1", "p-2"},
		Status: "enabled", CreatedAt: "2025-03-10T11:57:00.000Z", UpdatedAt: "2025-03-10T11:58:00.000Z",
	}}
	h.FakeAPI = cmdtest.NewFakeAPI(t, h.serve)
	return h
}

func (h *hookAPI) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	base := "/api/v4/webhooks/" + hookID
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/v4/webhooks":
		var in api.WebhookCreate
		json.NewDecoder(r.Body).Decode(&in)
		out := h.hook
		out.URL, out.EnabledEvents, out.PersonIDs, out.Description = in.URL, in.EnabledEvents, in.PersonIDs, api.Deref(in.Description)
		out.Secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY="
		cmdtest.WriteEnvelope(w, 201, out, "", "t")
	case r.Method == "GET" && r.URL.Path == "/api/v4/webhooks":
		listener := api.Webhook{ID: listenerID, Kind: "cliListener", EnabledEvents: []string{"*"}, Status: "enabled",
			ListenerPersonID: strp("p-9"), CreatedAt: "2025-03-10T11:00:00.000Z", UpdatedAt: "2025-03-10T11:00:00.000Z"}
		gone := h.hook
		gone.Status, gone.DisabledReason, gone.FailingSince = "disabled", strp("gone"), strp("2025-03-09T10:00:00.000Z")
		cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.Webhook{gone, listener}, 1, 10, 2), "", "t")
	case r.Method == "GET" && r.URL.Path == base:
		cmdtest.WriteEnvelope(w, 200, h.hook, "", "t")
	case r.Method == "PUT" && r.URL.Path == base:
		var in api.WebhookUpdate
		json.NewDecoder(r.Body).Decode(&in)
		h.hook.URL, h.hook.EnabledEvents, h.hook.PersonIDs, h.hook.Description = in.URL, in.EnabledEvents, in.PersonIDs, api.Deref(in.Description)
		if in.Status != nil {
			h.hook.Status = *in.Status
			h.hook.DisabledReason = nil
			if *in.Status == "disabled" {
				h.hook.DisabledReason = strp("manual")
			}
		}
		cmdtest.WriteEnvelope(w, 200, h.hook, "", "t")
	case r.Method == "GET" && r.URL.Path == base+"/queue":
		cmdtest.WriteEnvelope(w, 200, api.WebhookQueue{WebhookID: hookID, Pending: 3, InFlight: 2, Concurrency: 8,
			OldestPendingAt: strp("2025-03-10T11:59:00.000Z"), OldestPendingAgeSeconds: 60, LastError: strp("Timeout"),
			LastErrorAt: strp("2025-03-10T11:59:30.000Z")}, "", "t")
	case r.Method == "DELETE" && r.URL.Path == base:
		cmdtest.WriteEnvelope(w, 200, true, "", "t")
	case r.Method == "POST" && r.URL.Path == base+"/test":
		if h.hook.Status == "disabled" {
			cmdtest.WriteEnvelope(w, 400, nil, "El webhook está deshabilitado: habilítalo antes de probarlo.", "t")
			return
		}
		cmdtest.WriteEnvelope(w, 202, api.WebhookTested{EventID: eventID, DeliveryID: deliveryID}, "", "t")
	case r.Method == "POST" && r.URL.Path == base+"/rotate-secret":
		out := h.hook
		out.Secret = "whsec_NEWQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY="
		cmdtest.WriteEnvelope(w, 200, out, "", "t")
	case r.Method == "GET" && r.URL.Path == base+"/deliveries":
		var items []api.Delivery
		if len(h.deliveries) > 0 {
			items = h.deliveries[min(h.reads, len(h.deliveries)-1)]
		}
		h.reads++
		cmdtest.WriteEnvelope(w, 200, api.NewPage(items, 1, 50, len(items)), "", "t")
	default:
		cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
	}
}

func (h *hookAPI) requestsTo(method, path string) []cmdtest.Seen {
	var out []cmdtest.Seen
	for _, r := range h.Requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

func TestWebhooksCreate(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "create", "--url", "https://example.com/new", "--events", "invoice.canceled, invoice.stamped",
		"--description", "new one", "--person", "p-1", "--person", "p-2")
	cmdtest.WantCode(t, r, 0)
	var body map[string]any
	if err := json.Unmarshal([]byte(h.Last(t).Body), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"url": "https://example.com/new", "description": "new one",
		"enabledEvents": []any{"invoice.canceled", "invoice.stamped"}, "personIds": []any{"p-1", "p-2"},
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("request body %v, want %v", body, want)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "ID: "+hookID+"\n", "Secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY=\n",
		"Events: invoice.canceled,invoice.stamped\n", "People: p-1,p-2\n", "Status: enabled\n")
	cmdtest.WantContains(t, "stderr", r.Err, "will not be shown again")
	cmdtest.WantNotContains(t, "stderr", r.Err, "whsec_")

	// the wildcard, no description (sent as null), JSON output with the secret
	r = runArgs(t, "webhooks", "create", "--url", "https://example.com/all", "--events", "*", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	if got := h.Last(t).Body; !strings.Contains(got, `"description":null`) || !strings.Contains(got, `"enabledEvents":["*"]`) || !strings.Contains(got, `"personIds":null`) {
		t.Errorf("request body %s", got)
	}
	var w api.Webhook
	if err := json.Unmarshal([]byte(r.Out), &w); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.Out)
	}
	if w.Secret == "" || w.ID != hookID {
		t.Errorf("JSON output %+v", w)
	}
}

func TestWebhooksUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"webhooks", "create", "--events", "*"}, "missing flag --url"},
		{[]string{"webhooks", "create", "--url", "https://x.example"}, "missing flag --events"},
		{[]string{"webhooks", "create", "--url", "https://x.example", "--events", " , "}, "missing flag --events"},
		{[]string{"webhooks", "get"}, "missing argument: webhook ID"},
		{[]string{"webhooks", "update", hookID}, "nothing to change"},
		{[]string{"webhooks", "update", hookID, "--person", "p-1", "--all-people"}, "cannot be used together"},
		{[]string{"webhooks", "list", "--page", "0"}, "--page"},
		{[]string{"webhooks", "deliveries", hookID, "--page-size", "0"}, "--page-size"},
		{[]string{"webhooks", "test", hookID, "--wait", "--timeout", "0s"}, "--timeout"},
		{[]string{"webhooks", "delete", hookID}, "pass --yes"},
	} {
		r := runArgs(t, c.args...)
		cmdtest.WantCode(t, r, 2)
		cmdtest.WantContains(t, strings.Join(c.args, " "), r.Err, c.msg, "Run 'timbra ")
	}
	if n := len(h.Requests()); n != 0 {
		t.Errorf("usage errors made %d requests", n)
	}
}

func TestWebhooksListPlain(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "list", "--page", "1", "--page-size", "10")
	cmdtest.WantCode(t, r, 0)
	want := "ID\tKIND\tURL\tSTATUS\tEVENTS\tFAILING SINCE\tCREATED\n" +
		hookID + "\turl\thttps://example.com/hooks\tdisabled (gone)\tinvoice.canceled,invoice.stamped\t2025-03-09T10:00:00.000Z\t2025-03-10T11:57:00.000Z\n" +
		listenerID + "\tcliListener\tlistener of p-9\tenabled\t*\t\t2025-03-10T11:00:00.000Z\n"
	if r.Out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, want)
	}
	if q := h.Last(t).Query; q != "pageNumber=1&pageSize=10" {
		t.Errorf("query %q", q)
	}

	r = runArgs(t, "webhooks", "list", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var page api.PagedList[api.Webhook]
	if err := json.Unmarshal([]byte(r.Out), &page); err != nil || len(page.Items) != 2 || page.TotalCount != 2 {
		t.Errorf("JSON output %v: %s", err, r.Out)
	}
}

// On a terminal the status cells are coloured after alignment: without the escape codes the
// table is the one printed without colour. NO_COLOR turns colour off.
func TestWebhooksListColour(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	plain := run1(t, cmdtest.Opts{TTY: true}, "webhooks", "list")
	t.Setenv("NO_COLOR", "1")
	noColour := run1(t, cmdtest.Opts{TTY: true}, "webhooks", "list")
	cmdtest.Unsetenv(t, "NO_COLOR")
	cmdtest.WantCode(t, plain, 0)
	coloured := plain.Out
	if !strings.Contains(coloured, "\x1b[31mdisabled (gone)\x1b[0m") || !strings.Contains(coloured, "\x1b[32menabled\x1b[0m") {
		t.Errorf("status not coloured:\n%q", coloured)
	}
	if strings.Contains(noColour.Out, "\x1b[") {
		t.Errorf("colour with NO_COLOR:\n%q", noColour.Out)
	}
	if got := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(coloured, ""); got != noColour.Out {
		t.Errorf("colour changed the layout:\n%s\nwant:\n%s", got, noColour.Out)
	}
	// relative times on a terminal (the test clock is 2025-03-10 12:00 UTC)
	cmdtest.WantContains(t, "stdout", noColour.Out, "1 day ago", "3 minutes ago", "1 hour ago")
}

func TestWebhooksGetZoneAsGiven(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	h.hook.CreatedAt = "2025-03-10T05:57:00.000" // the API's answer for X-TIME-ZONE America/Mexico_City
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "get", hookID, "--time-zone", "America/Mexico_City")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Created: 2025-03-10T05:57:00.000\n", "Description: orders\n", "People: p-1,p-2\n",
		"Pending: 3\n", "In flight: 2 of 8\n", "Oldest pending: 2025-03-10T11:59:00.000Z (1m0s)\n", "Last error: Timeout, 2025-03-10T11:59:30.000Z\n")
	if got := h.Last(t).Header.Get("X-TIME-ZONE"); got != "America/Mexico_City" {
		t.Errorf("X-TIME-ZONE %q", got)
	}
	// on a terminal, relative: read in the zone asked for, it is 3 minutes before 12:00 UTC
	r = run1(t, cmdtest.Opts{TTY: true}, "webhooks", "get", hookID, "--time-zone", "America/Mexico_City")
	cmdtest.WantContains(t, "stdout", r.Out, "3 minutes ago")
}

// update reads the webhook and PUTs the whole model with only the named fields changed.
func TestWebhooksUpdateSendsFullModel(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "update", hookID, "--events", "*")
	cmdtest.WantCode(t, r, 0)
	rs := h.Requests()
	if len(rs) != 2 || rs[0].Method != "GET" || rs[1].Method != "PUT" || rs[1].Path != "/api/v4/webhooks/"+hookID {
		t.Fatalf("requests %+v", rs)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(rs[1].Body), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"id": hookID, "url": "https://example.com/hooks", "description": "orders",
		"enabledEvents": []any{"*"}, "personIds": []any{"p-1", "p-2"}, "status": nil,
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("PUT body %v\nwant %v", body, want)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Events: *\n", "Description: orders\n")

	// several changes at once; --all-people removes the filter; "" clears the description
	r = runArgs(t, "webhooks", "update", hookID, "--url", "https://example.com/v2", "--description", "", "--all-people", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	body = nil
	json.Unmarshal([]byte(h.Last(t).Body), &body)
	want = map[string]any{
		"id": hookID, "url": "https://example.com/v2", "description": "",
		"enabledEvents": []any{"*"}, "personIds": nil, "status": nil,
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("PUT body %v\nwant %v", body, want)
	}
	var w api.Webhook
	if err := json.Unmarshal([]byte(r.Out), &w); err != nil || *w.URL != "https://example.com/v2" {
		t.Errorf("JSON output %v: %s", err, r.Out)
	}
}

func TestWebhooksEnableDisable(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "disable", hookID)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Status: disabled (manual)\n")
	var body map[string]any
	json.Unmarshal([]byte(h.Last(t).Body), &body)
	if body["status"] != "disabled" || body["url"] != "https://example.com/hooks" || body["id"] != hookID || body["description"] != "orders" {
		t.Errorf("PUT body %v", body)
	}

	// a disabled webhook's test is refused: the API's text, exit code 1
	r = runArgs(t, "webhooks", "test", hookID)
	cmdtest.WantCode(t, r, 1)
	if r.Err != "400: El webhook está deshabilitado: habilítalo antes de probarlo.\n" {
		t.Errorf("stderr %q", r.Err)
	}

	r = runArgs(t, "webhooks", "enable", hookID)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Status: enabled\n")
	json.Unmarshal([]byte(h.Last(t).Body), &body)
	if body["status"] != "enabled" {
		t.Errorf("PUT body %v", body)
	}
}

func TestWebhooksAPIErrors(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "get", "nope")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "404: No such resource for the given Id: x\n" || r.Out != "" {
		t.Errorf("stdout %q stderr %q", r.Out, r.Err)
	}
	// an update of an absent webhook stops at the read
	r = runArgs(t, "webhooks", "update", "nope", "--events", "*")
	cmdtest.WantCode(t, r, 1)
	if n := len(h.requestsTo("PUT", "/api/v4/webhooks/nope")); n != 0 {
		t.Errorf("%d PUT requests", n)
	}

	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		cmdtest.WriteEnvelope(w, 400, []any{cmdtest.Failure("Url", "La URL del webhook apunta a una dirección no permitida."),
			cmdtest.Failure("EnabledEvents[1]", "El tipo de evento 'nope' no existe.")}, "One or more validation failures have occurred.", "t")
	})
	cmdtest.UseAPI(t, srv.URL)
	r = runArgs(t, "webhooks", "create", "--url", "https://localhost/x", "--events", "invoice.canceled,nope")
	cmdtest.WantCode(t, r, 1)
	// the server's texts, each with the flag that carried the value, then what to do
	want := "Url: La URL del webhook apunta a una dirección no permitida. (--url)\nEnabledEvents[1]: El tipo de evento 'nope' no existe. (--events)\n" +
		"hint: private, loopback and local addresses are refused unless the server's operator allows them (timbra server --webhook-allow-cidr 127.0.0.1, or the receiver's network); or run `timbra listen --forward-to URL`, which needs no webhook\n"
	if r.Err != want {
		t.Errorf("stderr %q, want %q", r.Err, want)
	}
}

func TestWebhooksDelete(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	del := "/api/v4/webhooks/" + hookID

	// not on a terminal, --yes is required: a usage error, nothing sent
	r := runArgs(t, "webhooks", "delete", hookID)
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "pass --yes", "Run 'timbra webhooks delete --help'.")
	if len(h.Requests()) != 0 {
		t.Fatalf("requests sent: %+v", h.Requests())
	}

	// on a terminal, a "no" keeps it
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "n\n"}, "webhooks", "delete", hookID)
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "Delete webhook "+hookID+" (https://example.com/hooks)?", "not deleted")
	if n := len(h.requestsTo("DELETE", del)); n != 0 {
		t.Fatalf("deleted after a no")
	}

	// a "yes" deletes
	r = run1(t, cmdtest.Opts{InTTY: true, Stdin: "yes\n"}, "webhooks", "delete", hookID)
	cmdtest.WantCode(t, r, 0)
	if n := len(h.requestsTo("DELETE", del)); n != 1 {
		t.Fatalf("%d DELETE requests", n)
	}
	cmdtest.WantContains(t, "stdout", r.Out, "Deleted webhook "+hookID+".")

	// --yes does not ask
	r = runArgs(t, "webhooks", "delete", hookID, "--yes", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	if n := len(h.requestsTo("DELETE", del)); n != 2 {
		t.Fatalf("%d DELETE requests", n)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Out), &out); err != nil || out["deleted"] != true || out["id"] != hookID {
		t.Errorf("JSON output %v: %s", err, r.Out)
	}
	cmdtest.WantNotContains(t, "stderr", r.Err, "Delete webhook")
}

func fastPoll(t *testing.T) {
	old := deliveryPoll
	deliveryPoll = time.Millisecond
	t.Cleanup(func() { deliveryPoll = old })
}

func TestWebhooksTestWait(t *testing.T) {
	cmdtest.Isolate(t)
	fastPoll(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	other := api.Delivery{ID: "0195a7c4-0000-7c3d-9f00-1a2b3c4d5e6f", Status: "succeeded", EventID: "e-0"}
	pending := api.Delivery{ID: deliveryID, EventID: eventID, WebhookID: hookID, Kind: "test", Status: "pending"}
	failed := pending
	failed.Status, failed.Attempts, failed.LastStatusCode, failed.LastResponseExcerpt = "failed", 1, intp(500), "oops\nmore"
	h.deliveries = [][]api.Delivery{{other}, {pending, other}, {failed, other}}

	r := runArgs(t, "webhooks", "test", hookID, "--wait")
	cmdtest.WantCode(t, r, 1)
	want := "Event: " + eventID + "\nDelivery: " + deliveryID + "\n" +
		"Status: failed\nAttempts: 1\nStatus code: 500\nError:\nResponse: oops more\n"
	if r.Out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, want)
	}
	if r.Err != "delivery "+deliveryID+" failed\n" {
		t.Errorf("stderr %q", r.Err)
	}
	if h.reads != 3 {
		t.Errorf("%d reads of the log, want 3", h.reads)
	}

	// success, as JSON: the delivery object
	ok := pending
	ok.Status, ok.Attempts, ok.LastStatusCode = "succeeded", 1, intp(204)
	h.deliveries, h.reads = [][]api.Delivery{{ok}}, 0
	r = runArgs(t, "webhooks", "test", hookID, "--wait", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var d api.Delivery
	if err := json.Unmarshal([]byte(r.Out), &d); err != nil || d.ID != deliveryID || d.Status != "succeeded" {
		t.Errorf("JSON output %v: %s", err, r.Out)
	}

	// no answer from the receiver yet: the error is connection-level, no code
	noCode := pending
	noCode.Status, noCode.Attempts, noCode.LastError = "failed", 1, strp("TlsFailed")
	h.deliveries, h.reads = [][]api.Delivery{{noCode}}, 0
	r = runArgs(t, "webhooks", "test", hookID, "--wait")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stdout", r.Out, "Status code:\nError: TlsFailed\n")

	// still pending when the time is up: exit code 1 and where to look
	h.deliveries, h.reads = [][]api.Delivery{{pending}}, 0
	r = runArgs(t, "webhooks", "test", hookID, "--wait", "--timeout", "5ms")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "still pending", "timbra webhooks deliveries "+hookID)

	// without --wait: the two IDs only
	h.deliveries, h.reads = nil, 0
	r = runArgs(t, "webhooks", "test", hookID)
	cmdtest.WantCode(t, r, 0)
	if r.Out != "Event: "+eventID+"\nDelivery: "+deliveryID+"\n" || h.reads != 0 {
		t.Errorf("stdout %q, %d reads", r.Out, h.reads)
	}
	r = runArgs(t, "webhooks", "test", hookID, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var tested api.WebhookTested
	if err := json.Unmarshal([]byte(r.Out), &tested); err != nil || tested.DeliveryID != deliveryID || tested.EventID != eventID {
		t.Errorf("JSON output %v: %s", err, r.Out)
	}
}

func TestWebhooksRotateSecret(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	r := runArgs(t, "webhooks", "rotate-secret", hookID)
	cmdtest.WantCode(t, r, 0)
	want := "ID: " + hookID + "\nURL: https://example.com/hooks\nSecret: whsec_NEWQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY=\n"
	if r.Out != want {
		t.Errorf("stdout %q, want %q", r.Out, want)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "will not be shown again", "24 hours")
	if rs := h.requestsTo("POST", "/api/v4/webhooks/"+hookID+"/rotate-secret"); len(rs) != 1 {
		t.Errorf("%d rotate requests", len(rs))
	}
}

func TestWebhooksDeliveries(t *testing.T) {
	cmdtest.Isolate(t)
	h := newHookAPI(t)
	cmdtest.UseAPI(t, h.URL)
	h.deliveries = [][]api.Delivery{{
		{ID: "d-3", CreatedAt: "2025-03-10T11:59:00.000Z", EventID: "e-3", EventType: "invoice.canceled", Kind: "automatic",
			Status: "pending", Attempts: 2, LastStatusCode: intp(503), NextAttemptAt: strp("2025-03-10T12:05:00.000Z")},
		{ID: "d-2", CreatedAt: "2025-03-10T11:00:00.000Z", EventID: "e-2", EventType: "webhook.test", Kind: "test",
			Status: "failed", Attempts: 1, LastError: strp("Timeout"), NextAttemptAt: strp("2025-03-10T11:02:00.000Z")},
		{ID: "d-1", CreatedAt: "2025-03-09T11:00:00.000Z", EventID: "e-1", EventType: "invoice.canceled", Kind: "manual",
			Status: "succeeded", Attempts: 1, LastStatusCode: intp(200)},
	}}
	r := runArgs(t, "webhooks", "deliveries", hookID, "--page-size", "3")
	cmdtest.WantCode(t, r, 0)
	want := "ID\tCREATED\tEVENT\tTYPE\tKIND\tSTATUS\tATTEMPTS\tLAST CODE/ERROR\tNEXT ATTEMPT\n" +
		"d-3\t2025-03-10T11:59:00.000Z\te-3\tinvoice.canceled\tautomatic\tpending\t2\t503\t2025-03-10T12:05:00.000Z\n" +
		"d-2\t2025-03-10T11:00:00.000Z\te-2\twebhook.test\ttest\tfailed\t1\tTimeout\t\n" +
		"d-1\t2025-03-09T11:00:00.000Z\te-1\tinvoice.canceled\tmanual\tsucceeded\t1\t200\t\n"
	if r.Out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, want)
	}
	if q := h.Last(t).Query; q != "pageNumber=1&pageSize=3" {
		t.Errorf("query %q", q)
	}
	r = run1(t, cmdtest.Opts{TTY: true}, "webhooks", "deliveries", hookID)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "in 5 minutes", "1 minute ago", "1 day ago")
}

// Ctrl-C while waiting for a delivery ends the command with 130.
func TestWebhooksTestWaitInterrupted(t *testing.T) {
	cmdtest.Isolate(t)
	fastPoll(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHookAPI(t)
	h.deliveries = [][]api.Delivery{{{ID: deliveryID, Status: "pending"}}}
	cmdtest.UseAPI(t, h.URL)
	go func() {
		for len(h.requestsTo("GET", "/api/v4/webhooks/"+hookID+"/deliveries")) < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel() // as SIGINT would
	}()
	r := run1(t, cmdtest.Opts{Ctx: ctx}, "webhooks", "test", hookID, "--wait")
	cmdtest.WantCode(t, r, 130)
	cmdtest.WantContains(t, "stderr", r.Err, "interrupted")
}
