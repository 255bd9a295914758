package webhooks

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/internal/api"
)

// loadAPI fakes the webhook list, the deliveries load endpoint (bare answers) and one event.
func loadAPI(t *testing.T) *cmdtest.FakeAPI {
	d := api.Delivery{ID: deliveryID, WebhookID: hookID, EventID: eventID, EventType: "invoice.canceled", Kind: "automatic",
		Status: "failed", Attempts: 2, LastStatusCode: intp(500), LastResponseExcerpt: "down",
		CreatedAt: "2025-03-10T11:00:00.000Z", History: []api.Attempt{
			{At: "2025-03-10T11:00:00.500Z", StatusCode: intp(503), DurationMS: 40},
			{At: "2025-03-10T11:00:30.250Z", StatusCode: intp(500), DurationMS: 250},
		}}
	return cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4/webhooks":
			cmdtest.WriteEnvelope(w, 200, api.NewPage([]api.Webhook{{ID: hookID, Kind: "url", URL: strp("https://example.com/hooks"),
				EnabledEvents: []string{"*"}, Status: "enabled", CreatedAt: "2025-03-10T10:00:00.000Z"}}, 1, 50, 1), "", "t")
		case "/api/v4/webhooks/" + hookID + "/deliveries/load":
			data := []api.Delivery{d}
			if strings.Contains(r.URL.Query().Get("filter"), "nope") {
				data = []api.Delivery{}
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"data": data, "totalCount": 7, "groupCount": -1, "summary": nil})
		case "/api/v4/events/" + eventID:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data":{"id":"` + eventID + `","type":"invoice.canceled","data":{"relatedObject":{"id":"inv-1"}}},"succeeded":true,"message":"","details":"","httpStatusCode":200,"traceIdentifier":"t"}`))
		default:
			cmdtest.WriteEnvelope(w, 404, nil, "No such resource for the given Id: x", "t")
		}
	})
}

func TestWebhooksDeliveriesFiltered(t *testing.T) {
	cmdtest.Isolate(t)
	f := loadAPI(t)
	cmdtest.UseAPI(t, f.URL)
	r := runArgs(t, "webhooks", "deliveries", hookID, "--status", "Failed", "--event-type", "invoice.canceled", "--page", "2", "--page-size", "3", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	q, _ := url.ParseQuery(f.Last(t).Query)
	if q.Get("filter") != `[["status","=","failed"],"and",["eventType","=","invoice.canceled"]]` || q.Get("skip") != "3" ||
		q.Get("take") != "3" || q.Get("requireTotalCount") != "true" {
		t.Errorf("query %v", q)
	}
	var page api.PagedList[api.Delivery]
	if err := json.Unmarshal([]byte(r.Out), &page); err != nil {
		t.Fatal(err)
	}
	if page.PageNumber != 2 || page.PageSize != 3 || page.TotalCount != 7 || page.TotalPages != 3 || !page.HasNextPage || len(page.Items) != 1 {
		t.Errorf("page %+v", page)
	}
	// without a filter the paged list is read, as before
	r = runArgs(t, "webhooks", "deliveries", hookID)
	if got := f.Last(t).Path; got != "/api/v4/webhooks/"+hookID+"/deliveries" {
		t.Errorf("read %s", got)
	}
	r = runArgs(t, "webhooks", "deliveries", hookID, "--event-type", " ")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, "--event-type: give an event type")
}

func TestWebhooksDelivery(t *testing.T) {
	cmdtest.Isolate(t)
	f := loadAPI(t)
	cmdtest.UseAPI(t, f.URL)
	r := runArgs(t, "webhooks", "delivery", hookID, deliveryID)
	cmdtest.WantCode(t, r, 0)
	cmdtest.WantContains(t, "stdout", r.Out, "ID: "+deliveryID+"\n", "Status: failed\n", "Status code: 500\n", "Response: down\n",
		"  webhook-id: "+eventID+"\n",
		"  webhook-timestamp: 1741604430 (about when the last attempt was signed)\n", // 11:00:30.250 less 250 ms
		"History (2 attempts, newest first):\n  2025-03-10T11:00:30.250Z  500  250 ms\n  2025-03-10T11:00:00.500Z  503  40 ms\n",
		"Event:\n{\n  \"id\": \""+eventID+"\",\n")
	q, _ := url.ParseQuery(f.Requests()[0].Query)
	if q.Get("filter") != `["id","=","`+deliveryID+`"]` || q.Get("take") != "1" {
		t.Errorf("query %v", q)
	}

	r = runArgs(t, "webhooks", "delivery", hookID, deliveryID, "-o", "json")
	cmdtest.WantCode(t, r, 0)
	var out struct {
		Delivery api.Delivery   `json:"delivery"`
		Event    map[string]any `json:"event"`
	}
	if err := json.Unmarshal([]byte(r.Out), &out); err != nil || out.Delivery.ID != deliveryID || out.Event["id"] != eventID {
		t.Errorf("JSON %s (%v)", r.Out, err)
	}

	r = runArgs(t, "webhooks", "delivery", hookID, "nope")
	cmdtest.WantCode(t, r, 1)
	cmdtest.WantContains(t, "stderr", r.Err, "no delivery nope in the log of webhook "+hookID+" (last 30 days)")
	r = runArgs(t, "webhooks", "delivery", hookID)
	cmdtest.WantCode(t, r, 2)
}

func TestInspectOffATerminal(t *testing.T) {
	cmdtest.Isolate(t)
	f := loadAPI(t)
	cmdtest.UseAPI(t, f.URL)
	for _, args := range [][]string{{"inspect"}, {"webhooks", "inspect"}} {
		r := runArgs(t, args...)
		cmdtest.WantCode(t, r, 0)
		cmdtest.WantContains(t, "stdout", r.Out, "ID\tKIND\tURL\tSTATUS\tEVENTS\tFAILING SINCE\tCREATED\n", hookID+"\turl\thttps://example.com/hooks\tenabled\t*\t")
	}
	r := run1(t, cmdtest.Opts{TTY: true, InTTY: true}, "inspect", hookID, "--status", "failed", "-o", "json")
	cmdtest.WantCode(t, r, 0)
	if !strings.Contains(r.Out, `"totalCount": 7`) || !strings.Contains(f.Last(t).Query, "failed") {
		t.Errorf("stdout %s, query %s", r.Out, f.Last(t).Query)
	}
	r = runArgs(t, "inspect", "a", "b")
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, `unexpected argument "b"`)
	r = runArgs(t, "inspect", "--status", "lost", hookID)
	cmdtest.WantCode(t, r, 2)
	cmdtest.WantContains(t, "stderr", r.Err, `invalid value "lost" for --status`)
}
