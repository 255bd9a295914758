package events

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// An envelope as the server writes it, spacing included: -o json must print data byte for byte.
const rawEvent = `{"id":"` + eventID + `","type":"invoice.canceled","createdAt":"2025-03-10T11:58:00.000Z","personId":"p-1",` +
	`"data":{"relatedObject":{"id":"inv-7","type":"invoice","url":"/api/v4/invoices/inv-7"},"status":"Cancelado","previousStatus":"Vigente"}}`

const rawTest = `{"id":"e-2","type":"webhook.test","createdAt":"2025-03-09T11:00:00.000Z","personId":null,` +
	`"data":{"relatedObject":{"id":"w-1","type":"webhook","url":"/api/v4/webhooks/w-1"},"status":"test","previousStatus":""}}`

func eventsAPI(t *testing.T) *cmdtest.FakeAPI {
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "GET" && r.URL.Path == "/api/v4/events":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":{"items":[`+rawEvent+`,`+rawTest+`],"pageNumber":1,"pageSize":10,"totalPages":1,"totalCount":2,`+
				`"totalItems":2,"hasPreviousPage":false,"hasNextPage":false},"succeeded":true,"message":"","details":"","httpStatusCode":200,"traceIdentifier":"t"}`)
		case r.Method == "GET" && r.URL.Path == "/api/v4/events/"+eventID:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":`+rawEvent+`,"succeeded":true,"message":"","details":"","httpStatusCode":200,"traceIdentifier":"t"}`)
		case r.Method == "POST" && r.URL.Path == "/api/v4/events/"+eventID+"/resend":
			var in api.EventResend
			json.NewDecoder(r.Body).Decode(&in)
			if in.WebhookID == nil {
				cmdtest.WriteEnvelope(w, 409, nil, "La escucha de CLI no está conectada; ejecuta timbra listen.", "t")
				return
			}
			cmdtest.WriteEnvelope(w, 202, api.EventResent{DeliveryID: deliveryID, WebhookID: *in.WebhookID}, "", "t")
		case r.Method == "GET" && r.URL.Path == "/api/v4/webhooks/"+hookID+"/deliveries":
			d := api.Delivery{ID: deliveryID, EventID: eventID, WebhookID: hookID, Kind: "manual", Status: "succeeded", Attempts: 1, LastStatusCode: intp(200), LastResponseExcerpt: "ok"}
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.Delivery{d}, 1, 50, 1), "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: "+strings.TrimPrefix(r.URL.Path, "/api/v4/events/"), "t")
		}
	})
}

func TestEventsList(t *testing.T) {
	cmdtest.Isolate(t)
	srv := eventsAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "events", "list", "--type", "invoice.canceled", "--related", "inv-7",
		"--from", "2025-03-01", "--to", "2025-03-09", "--page", "2", "--page-size", "5")
	cmdtest.WantCode(t, r, 0)
	want := "ID\tTYPE\tCREATED\tRELATED OBJECT\tSTATUS\n" +
		eventID + "\tinvoice.canceled\t2025-03-10T11:58:00.000Z\tinvoice inv-7\tCancelado (was Vigente)\n" +
		"e-2\twebhook.test\t2025-03-09T11:00:00.000Z\twebhook w-1\ttest\n"
	if r.Out != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, want)
	}
	q, _ := url.ParseQuery(srv.Last(t).Query)
	wantQ := url.Values{
		"type": {"invoice.canceled"}, "relatedObjectId": {"inv-7"}, "pageNumber": {"2"}, "pageSize": {"5"},
		"from": {"2025-03-01T00:00:00.000Z"}, "to": {"2025-03-09T23:59:59.999Z"},
	}
	if q.Encode() != wantQ.Encode() {
		t.Errorf("query %s\nwant  %s", q.Encode(), wantQ.Encode())
	}

	// times without offset are read in --time-zone; durations count back from now
	r = runArgs(t, "events", "list", "--from", "2025-03-10T06:00", "--to", "90m", "--time-zone", "America/Mexico_City")
	cmdtest.WantCode(t, r, 0)
	q, _ = url.ParseQuery(srv.Last(t).Query)
	if q.Get("from") != "2025-03-10T12:00:00.000Z" || q.Get("to") != "2025-03-10T10:30:00.000Z" {
		t.Errorf("query %v", q)
	}
	if q.Has("type") || q.Has("relatedObjectId") {
		t.Errorf("empty filters sent: %v", q)
	}

	// -o json: the page, each envelope as it came
	r = runArgs(t, "events", "list", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var page api.PagedList[api.Event]
	if err := json.Unmarshal([]byte(r.Out), &page); err != nil || len(page.Items) != 2 || page.Items[0].Data.RelatedObject.ID != "inv-7" {
		t.Errorf("JSON output %v: %s", err, r.Out)
	}
}

func TestEventsGet(t *testing.T) {
	cmdtest.Isolate(t)
	srv := eventsAPI(t)
	cmdtest.UseAPI(t, srv.URL)

	// -o json: the bytes exactly as the server answered them, nothing added
	r := runArgs(t, "events", "get", eventID, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	if r.Out != rawEvent {
		t.Errorf("stdout:\n%q\nwant:\n%q", r.Out, rawEvent)
	}
	// on a terminal a line break ends it
	r = run1(t, cmdtest.Opts{TTY: true}, "events", "get", eventID, "-o", "json")
	if r.Out != rawEvent+"\n" {
		t.Errorf("stdout %q", r.Out)
	}

	// otherwise indented, keys in the envelope's order
	r = runArgs(t, "events", "get", eventID)
	cmdtest.WantCode(t, r, 0)
	if !strings.HasPrefix(r.Out, "{\n  \"id\": \""+eventID+"\",\n  \"type\": \"invoice.canceled\",\n  \"createdAt\"") || !strings.HasSuffix(r.Out, "}\n") {
		t.Errorf("stdout:\n%s", r.Out)
	}

	r = runArgs(t, "events", "get", "nope")
	cmdtest.WantCode(t, r, 1)
	if r.Err != "404: No such resource for the given Id: nope\n" {
		t.Errorf("stderr %q", r.Err)
	}
}

// The delivery log answers the delivery finished at the first read: --wait does not poll.
func TestEventsResend(t *testing.T) {
	cmdtest.Isolate(t)
	srv := eventsAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "events", "resend", eventID, "--webhook", hookID)
	cmdtest.WantCode(t, r, 0)
	if r.Out != "Delivery: "+deliveryID+"\nWebhook: "+hookID+"\n" {
		t.Errorf("stdout %q", r.Out)
	}
	if b := srv.Last(t).Body; b != `{"webhookId":"`+hookID+`"}` {
		t.Errorf("request body %s", b)
	}

	r = runArgs(t, "events", "resend", eventID, "--webhook", hookID, "--wait")
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "Delivery: "+deliveryID+"\n", "Status: succeeded\n", "Status code: 200\n", "Response: ok\n")

	// without --webhook, to the caller's listener: the API's 409 when none is open
	r = runArgs(t, "events", "resend", eventID)
	cmdtest.WantCode(t, r, 1)
	if b := srv.Last(t).Body; b != `{"webhookId":null}` {
		t.Errorf("request body %s", b)
	}
	if r.Err != "409: La escucha de CLI no está conectada; ejecuta timbra listen.\n" {
		t.Errorf("stderr %q", r.Err)
	}
}

func TestEventsUsageErrors(t *testing.T) {
	cmdtest.Isolate(t)
	srv := eventsAPI(t)
	cmdtest.UseAPI(t, srv.URL)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"events", "list", "--from", "yesterday"}, `invalid value "yesterday" for --from`},
		{[]string{"events", "resend", eventID, "--webhook", ""}, "--webhook"},
	} {
		r := runArgs(t, c.args...)
		cmdtest.WantCode(t, r, 2)
		cmdtest.WantContains(t, strings.Join(c.args, " "), r.Err, c.msg, "Run 'timbra ")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("usage errors made %d requests", n)
	}
}

func TestParseWhen(t *testing.T) {
	now := time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)
	mx, err := time.LoadLocation("America/Mexico_City")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		loc  *time.Location
		end  bool
		want string
	}{
		{"2025-03-10T06:00:00-06:00", time.UTC, false, "2025-03-10T12:00:00Z"},
		{"2025-03-10T06:00:00Z", mx, false, "2025-03-10T06:00:00Z"},
		{"2025-03-10T06:00", mx, false, "2025-03-10T12:00:00Z"},
		{"2025-03-10T06:00:30.5", time.UTC, false, "2025-03-10T06:00:30.5Z"},
		{"2025-03-10", time.UTC, false, "2025-03-10T00:00:00Z"},
		{"2025-03-10", time.UTC, true, "2025-03-10T23:59:59.999Z"},
		{"2025-03-10", mx, false, "2025-03-10T06:00:00Z"},
		{"24h", time.UTC, false, "2025-03-09T12:00:00Z"},
		{"7d", time.UTC, false, "2025-03-03T12:00:00Z"},
		{"0d", time.UTC, true, "2025-03-10T12:00:00Z"},
	} {
		got, err := parseWhen(c.in, now, c.loc, c.end)
		if err != nil || got.UTC().Format(time.RFC3339Nano) != c.want {
			t.Errorf("parseWhen(%q) = %v, %v; want %s", c.in, got.UTC(), err, c.want)
		}
	}
	for _, bad := range []string{"", "yesterday", "-5h", "2025-13-01", "10/03/2025", "-1d"} {
		if _, err := parseWhen(bad, now, time.UTC, false); err == nil {
			t.Errorf("parseWhen(%q) accepted", bad)
		}
	}
}

// TestEventsResendSince: every event since a time, of the types given, oldest first, to the
// listen session named; the summary in JSON.
func TestEventsResendSince(t *testing.T) {
	cmdtest.Isolate(t)
	var resent []string
	var sessions []string
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "GET" && r.URL.Path == "/api/v4/events":
			older := strings.Replace(rawEvent, eventID, "e-0", 1)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":{"items":[`+rawEvent+`,`+rawTest+`,`+older+`],"pageNumber":1,"pageSize":50,"totalPages":1,"totalCount":3,`+
				`"totalItems":3,"hasPreviousPage":false,"hasNextPage":false},"succeeded":true,"message":"","details":"","httpStatusCode":200,"traceIdentifier":"t"}`)
		case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/resend"):
			var in api.EventResend
			json.NewDecoder(r.Body).Decode(&in)
			resent = append(resent, strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/v4/events/"), "/resend"))
			sessions = append(sessions, api.Deref(in.ListenerSession))
			cmdtest.WriteEnvelope(w, 202, api.EventResent{DeliveryID: "d-" + resent[len(resent)-1], WebhookID: hookID}, "", "t")
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource", "t")
		}
	})
	cmdtest.UseAPI(t, srv.URL)
	r := runArgs(t, "events", "resend", "--since", "1h", "--type", "invoice.*", "--to-listener", "--session", "api", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	if strings.Join(resent, " ") != "e-0 "+eventID || strings.Join(sessions, " ") != "api api" {
		t.Fatalf("resent %v to %v; want the invoice events, oldest first, to the session api", resent, sessions)
	}
	var sum resendSummary
	if err := json.Unmarshal([]byte(r.Out), &sum); err != nil || sum.Total != 2 || sum.Resent != 2 || sum.Failed != 0 || sum.WebhookID != hookID ||
		len(sum.Deliveries) != 2 || sum.Deliveries[0].DeliveryID != "d-e-0" {
		t.Fatalf("summary %s (%v)", r.Out, err)
	}
	cmdtest.WantContains(t, "stderr", r.Err, "Resent 2 of 2 events.")
}
