package commands

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fatih/color"
	"github.com/timbra-mx/timbra/internal/api"
)

func intp(n int) *int { return &n }

const (
	hookID     = "3f2a0c1e-5b7d-4c39-9a61-2d8e4f0b7c15"
	listenerID = "9b1d0c1e-5b7d-4c39-9a61-2d8e4f0b7c16"
	deliveryID = "0195a7c4-2b1e-7c3d-9f00-1a2b3c4d5e6f"
	eventID    = "0195a7c4-2b1e-7c3d-9f00-000000000001"
)

// hookAPI is a fake of the webhook endpoints with one URL webhook and one listener. deliveries
// are the answers of successive reads of the delivery log (the last one repeats).
type hookAPI struct {
	*fakeAPI
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
	h.fakeAPI = newFakeAPI(t, h.serve)
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
		out.URL, out.EnabledEvents, out.PersonIDs, out.Description = in.URL, in.EnabledEvents, in.PersonIDs, deref(in.Description)
		out.Secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY="
		writeEnvelope(w, 201, out, "", "t")
	case r.Method == "GET" && r.URL.Path == "/api/v4/webhooks":
		listener := api.Webhook{ID: listenerID, Kind: "cliListener", EnabledEvents: []string{"*"}, Status: "enabled",
			ListenerPersonID: strp("p-9"), CreatedAt: "2025-03-10T11:00:00.000Z", UpdatedAt: "2025-03-10T11:00:00.000Z"}
		gone := h.hook
		gone.Status, gone.DisabledReason, gone.FailingSince = "disabled", strp("gone"), strp("2025-03-09T10:00:00.000Z")
		writeEnvelope(w, 200, api.NewPage([]api.Webhook{gone, listener}, 1, 10, 2), "", "t")
	case r.Method == "GET" && r.URL.Path == base:
		writeEnvelope(w, 200, h.hook, "", "t")
	case r.Method == "PUT" && r.URL.Path == base:
		var in api.WebhookUpdate
		json.NewDecoder(r.Body).Decode(&in)
		h.hook.URL, h.hook.EnabledEvents, h.hook.PersonIDs, h.hook.Description = in.URL, in.EnabledEvents, in.PersonIDs, deref(in.Description)
		if in.Status != nil {
			h.hook.Status = *in.Status
			h.hook.DisabledReason = nil
			if *in.Status == "disabled" {
				h.hook.DisabledReason = strp("manual")
			}
		}
		writeEnvelope(w, 200, h.hook, "", "t")
	case r.Method == "GET" && r.URL.Path == base+"/queue":
		writeEnvelope(w, 200, api.WebhookQueue{WebhookID: hookID, Pending: 3, InFlight: 2, Concurrency: 8,
			OldestPendingAt: strp("2025-03-10T11:59:00.000Z"), OldestPendingAgeSeconds: 60, LastError: strp("Timeout"),
			LastErrorAt: strp("2025-03-10T11:59:30.000Z")}, "", "t")
	case r.Method == "DELETE" && r.URL.Path == base:
		writeEnvelope(w, 200, true, "", "t")
	case r.Method == "POST" && r.URL.Path == base+"/test":
		if h.hook.Status == "disabled" {
			writeEnvelope(w, 400, nil, "El webhook está deshabilitado: habilítalo antes de probarlo.", "t")
			return
		}
		writeEnvelope(w, 202, api.WebhookTested{EventID: eventID, DeliveryID: deliveryID}, "", "t")
	case r.Method == "POST" && r.URL.Path == base+"/rotate-secret":
		out := h.hook
		out.Secret = "whsec_NEWQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY="
		writeEnvelope(w, 200, out, "", "t")
	case r.Method == "GET" && r.URL.Path == base+"/deliveries":
		var items []api.Delivery
		if len(h.deliveries) > 0 {
			items = h.deliveries[min(h.reads, len(h.deliveries)-1)]
		}
		h.reads++
		writeEnvelope(w, 200, api.NewPage(items, 1, 50, len(items)), "", "t")
	default:
		writeEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
	}
}

func (h *hookAPI) requestsTo(method, path string) []seen {
	var out []seen
	for _, r := range h.requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

func TestWebhooksCreate(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "create", "--url", "https://example.com/new", "--events", "invoice.canceled, invoice.stamped",
		"--description", "new one", "--person", "p-1", "--person", "p-2")
	wantCode(t, r, 0)
	var body map[string]any
	if err := json.Unmarshal([]byte(h.last(t).Body), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"url": "https://example.com/new", "description": "new one",
		"enabledEvents": []any{"invoice.canceled", "invoice.stamped"}, "personIds": []any{"p-1", "p-2"},
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("request body %v, want %v", body, want)
	}
	wantContains(t, "stdout", r.out, "ID: "+hookID+"\n", "Secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY=\n",
		"Events: invoice.canceled,invoice.stamped\n", "People: p-1,p-2\n", "Status: enabled\n")
	wantContains(t, "stderr", r.err, "will not be shown again")
	wantNotContains(t, "stderr", r.err, "whsec_")

	// the wildcard, no description (sent as null), JSON output with the secret
	r = runArgs(t, "webhooks", "create", "--url", "https://example.com/all", "--events", "*", "-o", "json")
	wantCode(t, r, 0)
	if got := h.last(t).Body; !strings.Contains(got, `"description":null`) || !strings.Contains(got, `"enabledEvents":["*"]`) || !strings.Contains(got, `"personIds":null`) {
		t.Errorf("request body %s", got)
	}
	var w api.Webhook
	if err := json.Unmarshal([]byte(r.out), &w); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, r.out)
	}
	if w.Secret == "" || w.ID != hookID {
		t.Errorf("JSON output %+v", w)
	}
}

func TestWebhooksUsageErrors(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
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
		{[]string{"events", "list", "--from", "yesterday"}, `invalid value "yesterday" for --from`},
		{[]string{"events", "resend", eventID, "--webhook", ""}, "--webhook"},
	} {
		r := runArgs(t, c.args...)
		wantCode(t, r, 2)
		wantContains(t, strings.Join(c.args, " "), r.err, c.msg, "Run 'timbra ")
	}
	if n := len(h.requests()); n != 0 {
		t.Errorf("usage errors made %d requests", n)
	}
}

func TestWebhooksListPlain(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "list", "--page", "1", "--page-size", "10")
	wantCode(t, r, 0)
	want := "ID\tKIND\tURL\tSTATUS\tEVENTS\tFAILING SINCE\tCREATED\n" +
		hookID + "\turl\thttps://example.com/hooks\tdisabled (gone)\tinvoice.canceled,invoice.stamped\t2025-03-09T10:00:00.000Z\t2025-03-10T11:57:00.000Z\n" +
		listenerID + "\tcliListener\tlistener of p-9\tenabled\t*\t\t2025-03-10T11:00:00.000Z\n"
	if r.out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.out, want)
	}
	if q := h.last(t).Query; q != "pageNumber=1&pageSize=10" {
		t.Errorf("query %q", q)
	}

	r = runArgs(t, "webhooks", "list", "-o", "json")
	wantCode(t, r, 0)
	var page api.PagedList[api.Webhook]
	if err := json.Unmarshal([]byte(r.out), &page); err != nil || len(page.Items) != 2 || page.TotalCount != 2 {
		t.Errorf("JSON output %v: %s", err, r.out)
	}
}

// On a terminal the status cells are coloured after alignment: without the escape codes the
// table is the one printed without colour. NO_COLOR turns colour off.
func TestWebhooksListColour(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	plain := run1(t, runOpts{tty: true}, "webhooks", "list")
	t.Setenv("NO_COLOR", "1")
	noColour := run1(t, runOpts{tty: true}, "webhooks", "list")
	unsetenv(t, "NO_COLOR")
	wantCode(t, plain, 0)
	coloured := plain.out
	if !strings.Contains(coloured, "\x1b[31mdisabled (gone)\x1b[0m") || !strings.Contains(coloured, "\x1b[32menabled\x1b[0m") {
		t.Errorf("status not coloured:\n%q", coloured)
	}
	if strings.Contains(noColour.out, "\x1b[") {
		t.Errorf("colour with NO_COLOR:\n%q", noColour.out)
	}
	if got := ansiEscape.ReplaceAllString(coloured, ""); got != noColour.out {
		t.Errorf("colour changed the layout:\n%s\nwant:\n%s", got, noColour.out)
	}
	// relative times on a terminal (the test clock is 2025-03-10 12:00 UTC)
	wantContains(t, "stdout", noColour.out, "1 day ago", "3 minutes ago", "1 hour ago")
}

func TestColorColumn(t *testing.T) {
	red := func(string) *color.Color { return color.New(color.FgRed) }
	in := "\x1b[1mID  STATUS    NEXT\x1b[0m\nä1  failed    x\nb2  pending\nc3\n"
	got := colorColumn(in, []string{"ID", "STATUS", "NEXT"}, "STATUS", red)
	want := "\x1b[1mID  STATUS    NEXT\x1b[0m\nä1  \x1b[31mfailed\x1b[0m    x\nb2  \x1b[31mpending\x1b[0m\nc3\n"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestWebhooksGetZoneAsGiven(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	h.hook.CreatedAt = "2025-03-10T05:57:00.000" // the API's answer for X-TIME-ZONE America/Mexico_City
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "get", hookID, "--time-zone", "America/Mexico_City")
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Created: 2025-03-10T05:57:00.000\n", "Description: orders\n", "People: p-1,p-2\n",
		"Pending: 3\n", "In flight: 2 of 8\n", "Oldest pending: 2025-03-10T11:59:00.000Z (1m0s)\n", "Last error: Timeout, 2025-03-10T11:59:30.000Z\n")
	if got := h.last(t).Header.Get("X-TIME-ZONE"); got != "America/Mexico_City" {
		t.Errorf("X-TIME-ZONE %q", got)
	}
	// on a terminal, relative: read in the zone asked for, it is 3 minutes before 12:00 UTC
	r = run1(t, runOpts{tty: true}, "webhooks", "get", hookID, "--time-zone", "America/Mexico_City")
	wantContains(t, "stdout", r.out, "3 minutes ago")
}

// update reads the webhook and PUTs the whole model with only the named fields changed.
func TestWebhooksUpdateSendsFullModel(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "update", hookID, "--events", "*")
	wantCode(t, r, 0)
	rs := h.requests()
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
	wantContains(t, "stdout", r.out, "Events: *\n", "Description: orders\n")

	// several changes at once; --all-people removes the filter; "" clears the description
	r = runArgs(t, "webhooks", "update", hookID, "--url", "https://example.com/v2", "--description", "", "--all-people", "-o", "json")
	wantCode(t, r, 0)
	body = nil
	json.Unmarshal([]byte(h.last(t).Body), &body)
	want = map[string]any{
		"id": hookID, "url": "https://example.com/v2", "description": "",
		"enabledEvents": []any{"*"}, "personIds": nil, "status": nil,
	}
	if !reflect.DeepEqual(body, want) {
		t.Errorf("PUT body %v\nwant %v", body, want)
	}
	var w api.Webhook
	if err := json.Unmarshal([]byte(r.out), &w); err != nil || *w.URL != "https://example.com/v2" {
		t.Errorf("JSON output %v: %s", err, r.out)
	}
}

func TestWebhooksEnableDisable(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "disable", hookID)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Status: disabled (manual)\n")
	var body map[string]any
	json.Unmarshal([]byte(h.last(t).Body), &body)
	if body["status"] != "disabled" || body["url"] != "https://example.com/hooks" || body["id"] != hookID || body["description"] != "orders" {
		t.Errorf("PUT body %v", body)
	}

	// a disabled webhook's test is refused: the API's text, exit code 1
	r = runArgs(t, "webhooks", "test", hookID)
	wantCode(t, r, 1)
	if r.err != "400: El webhook está deshabilitado: habilítalo antes de probarlo.\n" {
		t.Errorf("stderr %q", r.err)
	}

	r = runArgs(t, "webhooks", "enable", hookID)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "Status: enabled\n")
	json.Unmarshal([]byte(h.last(t).Body), &body)
	if body["status"] != "enabled" {
		t.Errorf("PUT body %v", body)
	}
}

func TestWebhooksAPIErrors(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "get", "nope")
	wantCode(t, r, 1)
	if r.err != "404: No such resource for the given Id: x\n" || r.out != "" {
		t.Errorf("stdout %q stderr %q", r.out, r.err)
	}
	// an update of an absent webhook stops at the read
	r = runArgs(t, "webhooks", "update", "nope", "--events", "*")
	wantCode(t, r, 1)
	if n := len(h.requestsTo("PUT", "/api/v4/webhooks/nope")); n != 0 {
		t.Errorf("%d PUT requests", n)
	}

	srv := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(w, 400, []any{failure("Url", "La URL del webhook apunta a una dirección no permitida."),
			failure("EnabledEvents[1]", "El tipo de evento 'nope' no existe.")}, "One or more validation failures have occurred.", "t")
	})
	useAPI(t, srv.URL)
	r = runArgs(t, "webhooks", "create", "--url", "https://localhost/x", "--events", "invoice.canceled,nope")
	wantCode(t, r, 1)
	want := "Url: La URL del webhook apunta a una dirección no permitida.\nEnabledEvents[1]: El tipo de evento 'nope' no existe.\n"
	if r.err != want {
		t.Errorf("stderr %q, want %q", r.err, want)
	}
}

func TestWebhooksDelete(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	del := "/api/v4/webhooks/" + hookID

	// not on a terminal, --yes is required: a usage error, nothing sent
	r := runArgs(t, "webhooks", "delete", hookID)
	wantCode(t, r, 2)
	wantContains(t, "stderr", r.err, "pass --yes", "Run 'timbra webhooks delete --help'.")
	if len(h.requests()) != 0 {
		t.Fatalf("requests sent: %+v", h.requests())
	}

	// on a terminal, a "no" keeps it
	r = run1(t, runOpts{inTTY: true, stdin: "n\n"}, "webhooks", "delete", hookID)
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "Delete webhook "+hookID+" (https://example.com/hooks)?", "not deleted")
	if n := len(h.requestsTo("DELETE", del)); n != 0 {
		t.Fatalf("deleted after a no")
	}

	// a "yes" deletes
	r = run1(t, runOpts{inTTY: true, stdin: "yes\n"}, "webhooks", "delete", hookID)
	wantCode(t, r, 0)
	if n := len(h.requestsTo("DELETE", del)); n != 1 {
		t.Fatalf("%d DELETE requests", n)
	}
	wantContains(t, "stdout", r.out, "Deleted webhook "+hookID+".")

	// --yes does not ask
	r = runArgs(t, "webhooks", "delete", hookID, "--yes", "-o", "json")
	wantCode(t, r, 0)
	if n := len(h.requestsTo("DELETE", del)); n != 2 {
		t.Fatalf("%d DELETE requests", n)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.out), &out); err != nil || out["deleted"] != true || out["id"] != hookID {
		t.Errorf("JSON output %v: %s", err, r.out)
	}
	wantNotContains(t, "stderr", r.err, "Delete webhook")
}

func fastPoll(t *testing.T) {
	old := deliveryPoll
	deliveryPoll = time.Millisecond
	t.Cleanup(func() { deliveryPoll = old })
}

func TestWebhooksTestWait(t *testing.T) {
	isolate(t)
	fastPoll(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	other := api.Delivery{ID: "0195a7c4-0000-7c3d-9f00-1a2b3c4d5e6f", Status: "succeeded", EventID: "e-0"}
	pending := api.Delivery{ID: deliveryID, EventID: eventID, WebhookID: hookID, Kind: "test", Status: "pending"}
	failed := pending
	failed.Status, failed.Attempts, failed.LastStatusCode, failed.LastResponseExcerpt = "failed", 1, intp(500), "oops\nmore"
	h.deliveries = [][]api.Delivery{{other}, {pending, other}, {failed, other}}

	r := runArgs(t, "webhooks", "test", hookID, "--wait")
	wantCode(t, r, 1)
	want := "Event: " + eventID + "\nDelivery: " + deliveryID + "\n" +
		"Status: failed\nAttempts: 1\nStatus code: 500\nError:\nResponse: oops more\n"
	if r.out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.out, want)
	}
	if r.err != "delivery "+deliveryID+" failed\n" {
		t.Errorf("stderr %q", r.err)
	}
	if h.reads != 3 {
		t.Errorf("%d reads of the log, want 3", h.reads)
	}

	// success, as JSON: the delivery object
	ok := pending
	ok.Status, ok.Attempts, ok.LastStatusCode = "succeeded", 1, intp(204)
	h.deliveries, h.reads = [][]api.Delivery{{ok}}, 0
	r = runArgs(t, "webhooks", "test", hookID, "--wait", "-o", "json")
	wantCode(t, r, 0)
	var d api.Delivery
	if err := json.Unmarshal([]byte(r.out), &d); err != nil || d.ID != deliveryID || d.Status != "succeeded" {
		t.Errorf("JSON output %v: %s", err, r.out)
	}

	// no answer from the receiver yet: the error is connection-level, no code
	noCode := pending
	noCode.Status, noCode.Attempts, noCode.LastError = "failed", 1, strp("TlsFailed")
	h.deliveries, h.reads = [][]api.Delivery{{noCode}}, 0
	r = runArgs(t, "webhooks", "test", hookID, "--wait")
	wantCode(t, r, 1)
	wantContains(t, "stdout", r.out, "Status code:\nError: TlsFailed\n")

	// still pending when the time is up: exit code 1 and where to look
	h.deliveries, h.reads = [][]api.Delivery{{pending}}, 0
	r = runArgs(t, "webhooks", "test", hookID, "--wait", "--timeout", "5ms")
	wantCode(t, r, 1)
	wantContains(t, "stderr", r.err, "still pending", "timbra webhooks deliveries "+hookID)

	// without --wait: the two IDs only
	h.deliveries, h.reads = nil, 0
	r = runArgs(t, "webhooks", "test", hookID)
	wantCode(t, r, 0)
	if r.out != "Event: "+eventID+"\nDelivery: "+deliveryID+"\n" || h.reads != 0 {
		t.Errorf("stdout %q, %d reads", r.out, h.reads)
	}
	r = runArgs(t, "webhooks", "test", hookID, "-o", "json")
	wantCode(t, r, 0)
	var tested api.WebhookTested
	if err := json.Unmarshal([]byte(r.out), &tested); err != nil || tested.DeliveryID != deliveryID || tested.EventID != eventID {
		t.Errorf("JSON output %v: %s", err, r.out)
	}
}

func TestWebhooksRotateSecret(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	r := runArgs(t, "webhooks", "rotate-secret", hookID)
	wantCode(t, r, 0)
	want := "ID: " + hookID + "\nURL: https://example.com/hooks\nSecret: whsec_NEWQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6jO7lH0lQrY=\n"
	if r.out != want {
		t.Errorf("stdout %q, want %q", r.out, want)
	}
	wantContains(t, "stderr", r.err, "will not be shown again", "24 hours")
	if rs := h.requestsTo("POST", "/api/v4/webhooks/"+hookID+"/rotate-secret"); len(rs) != 1 {
		t.Errorf("%d rotate requests", len(rs))
	}
}

func TestWebhooksDeliveries(t *testing.T) {
	isolate(t)
	h := newHookAPI(t)
	useAPI(t, h.URL)
	h.deliveries = [][]api.Delivery{{
		{ID: "d-3", CreatedAt: "2025-03-10T11:59:00.000Z", EventID: "e-3", EventType: "invoice.canceled", Kind: "automatic",
			Status: "pending", Attempts: 2, LastStatusCode: intp(503), NextAttemptAt: strp("2025-03-10T12:05:00.000Z")},
		{ID: "d-2", CreatedAt: "2025-03-10T11:00:00.000Z", EventID: "e-2", EventType: "webhook.test", Kind: "test",
			Status: "failed", Attempts: 1, LastError: strp("Timeout"), NextAttemptAt: strp("2025-03-10T11:02:00.000Z")},
		{ID: "d-1", CreatedAt: "2025-03-09T11:00:00.000Z", EventID: "e-1", EventType: "invoice.canceled", Kind: "manual",
			Status: "succeeded", Attempts: 1, LastStatusCode: intp(200)},
	}}
	r := runArgs(t, "webhooks", "deliveries", hookID, "--page-size", "3")
	wantCode(t, r, 0)
	want := "ID\tCREATED\tEVENT\tTYPE\tKIND\tSTATUS\tATTEMPTS\tLAST CODE/ERROR\tNEXT ATTEMPT\n" +
		"d-3\t2025-03-10T11:59:00.000Z\te-3\tinvoice.canceled\tautomatic\tpending\t2\t503\t2025-03-10T12:05:00.000Z\n" +
		"d-2\t2025-03-10T11:00:00.000Z\te-2\twebhook.test\ttest\tfailed\t1\tTimeout\t\n" +
		"d-1\t2025-03-09T11:00:00.000Z\te-1\tinvoice.canceled\tmanual\tsucceeded\t1\t200\t\n"
	if r.out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.out, want)
	}
	if q := h.last(t).Query; q != "pageNumber=1&pageSize=3" {
		t.Errorf("query %q", q)
	}
	r = run1(t, runOpts{tty: true}, "webhooks", "deliveries", hookID)
	wantCode(t, r, 0)
	wantContains(t, "stdout", r.out, "in 5 minutes", "1 minute ago", "1 day ago")
}

// Ctrl-C while waiting for a delivery ends the command with 130.
func TestWebhooksTestWaitInterrupted(t *testing.T) {
	isolate(t)
	fastPoll(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := newHookAPI(t)
	h.deliveries = [][]api.Delivery{{{ID: deliveryID, Status: "pending"}}}
	useAPI(t, h.URL)
	go func() {
		for len(h.requestsTo("GET", "/api/v4/webhooks/"+hookID+"/deliveries")) < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel() // as SIGINT would
	}()
	r := run1(t, runOpts{ctx: ctx}, "webhooks", "test", hookID, "--wait")
	wantCode(t, r, 130)
	wantContains(t, "stderr", r.err, "interrupted")
}
