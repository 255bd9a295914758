package server

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrequests"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/internal/webhooks"
)

// clock is a controllable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// receiver is a local TLS endpoint whose answer can be switched.
type receiver struct {
	srv    *httptest.Server
	status atomic.Int32
	got    chan received
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) (*receiver, string) {
	rc := &receiver{got: make(chan received, 100)}
	rc.status.Store(200)
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		status := int(rc.status.Load()) // decided before the test hears of the request
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d", status)
		w.(http.Flusher).Flush()
		rc.got <- received{r.Header.Clone(), body}
	}))
	t.Cleanup(rc.srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return rc, ca
}

func (rc *receiver) next(t *testing.T) received {
	t.Helper()
	select {
	case r := <-rc.got:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the receiver got nothing")
	}
	return received{}
}

func (rc *receiver) none(t *testing.T) {
	t.Helper()
	select {
	case r := <-rc.got:
		t.Fatalf("the receiver got an unexpected delivery: %s", r.body)
	case <-time.After(200 * time.Millisecond):
	}
}

type hookFixture struct {
	*fixture
	clock *clock
	rc    *receiver
	url   string
}

func newHookFixture(t *testing.T, env string) *hookFixture {
	rc, ca := newReceiver(t)
	clk := &clock{t: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	policy, err := webhook.NewPolicy("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(c *Config) {
		c.Now, c.WebhookPolicy, c.WebhookCAFile = clk.Now, policy, ca
		if env != "" {
			c.Environment = env
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.srv.RunEngine(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &hookFixture{fixture: f, clock: clk, rc: rc, url: rc.srv.URL + "/hook"}
}

func (f *hookFixture) create(body string) api.Webhook {
	f.t.Helper()
	r := f.do("POST", "/api/v4/webhooks", body)
	if r.status != 201 {
		f.t.Fatalf("create webhook: %s", r.raw)
	}
	var w api.Webhook
	json.Unmarshal(r.env.Data, &w)
	return w
}

// waitDelivery polls a webhook's deliveries until one of them matches ok.
func (f *hookFixture) waitDelivery(hookID string, ok func(api.Delivery) bool) api.Delivery {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r := f.do("GET", "/api/v4/webhooks/"+hookID+"/deliveries?pageSize=50", "")
		var page api.PagedList[api.Delivery]
		json.Unmarshal(r.env.Data, &page)
		for _, d := range page.Items {
			if ok(d) {
				return d
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	f.t.Fatalf("no delivery of %s reached the expected state", hookID)
	return api.Delivery{}
}

func TestWebhookValidation(t *testing.T) {
	f := newHookFixture(t, "")
	cases := []struct{ body, prop, msg string }{
		{`{"enabledEvents":["*"]}`, "Url", "La URL es obligatoria."},
		{`{"url":"http://example.com/x","enabledEvents":["*"]}`, "Url", "La URL del webhook debe ser https, absoluta y sin usuario ni contraseña."},
		{`{"url":"https://u:p@example.com/x","enabledEvents":["*"]}`, "Url", "La URL del webhook debe ser https, absoluta y sin usuario ni contraseña."},
		{`{"url":"https://10.1.2.3/x","enabledEvents":["*"]}`, "Url", "La URL del webhook apunta a una dirección no permitida."},
		{`{"url":"https://example.com/` + strings.Repeat("a", 2048) + `","enabledEvents":["*"]}`, "Url", "La URL no puede tener más de 2048 caracteres."},
		{`{"url":"https://example.com/x","description":"` + strings.Repeat("é", 257) + `","enabledEvents":["*"]}`, "Description", "La descripción no puede tener más de 256 caracteres."},
		{`{"url":"https://example.com/x","enabledEvents":[]}`, "EnabledEvents", "Indica al menos un tipo de evento o '*' para recibirlos todos."},
		{`{"url":"https://example.com/x","enabledEvents":["*","invoice.canceled"]}`, "EnabledEvents", "El comodín '*' no se combina con otros tipos de evento."},
		{`{"url":"https://example.com/x","enabledEvents":["invoice.canceled","invoice.nope"]}`, "EnabledEvents[1]", "El tipo de evento 'invoice.nope' no existe."},
	}
	for _, c := range cases {
		expectFailure(t, f.do("POST", "/api/v4/webhooks", c.body), c.prop, c.msg)
	}
	people := `"` + strings.Repeat(`x","`, 100) + `x"`
	expectFailure(t, f.do("POST", "/api/v4/webhooks", `{"url":"https://example.com/x","enabledEvents":["*"],"personIds":[`+people+`]}`),
		"PersonIds", "Un webhook filtra como máximo 100 personas.")
	r := f.do("POST", "/api/v4/webhooks", `{"url":"https://example.com/x","enabledEvents":["*"],"personIds":["someone-else"]}`)
	if r.status != 400 || r.env.Details != "La persona especificada no es válida o no pertenece a tu organización." {
		t.Fatalf("person of another tenant: %s", r.raw)
	}
	for i := range 16 {
		f.create(fmt.Sprintf(`{"url":"https://example.com/%d","enabledEvents":["*"]}`, i))
	}
	if r := f.do("POST", "/api/v4/webhooks", `{"url":"https://example.com/x","enabledEvents":["*"]}`); r.status != 400 || r.env.Details != "Se alcanzó el máximo de 16 webhooks." {
		t.Fatalf("17th webhook: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/webhooks/not-a-guid", ""); r.status != 404 || r.env.Details != "Not Found" {
		t.Fatalf("non-GUID id: %s", r.raw)
	}
	absent := "0193a0c4-0000-7000-8000-000000000000"
	if r := f.do("GET", "/api/v4/webhooks/"+absent, ""); r.status != 404 || r.env.Details != "No such resource for the given Id: "+absent {
		t.Fatalf("absent id: %s", r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/webhooks?pageSize=51", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")
	expectFailure(t, f.do("GET", "/api/v4/webhooks?pageNumber=42949673", ""), "pageNumber", "'pageNumber' debe estar entre 1 y 42949672.")
	r = f.do("GET", "/api/v4/webhooks?pageSize=5&pageNumber=4", "")
	var page api.PagedList[api.Webhook]
	json.Unmarshal(r.env.Data, &page)
	if page.TotalCount != 16 || len(page.Items) != 1 || page.Items[0].URL == nil || *page.Items[0].URL != "https://example.com/15" {
		t.Fatalf("creation order: %s", r.raw)
	}
}

func TestWebhookLifecycleAndSigning(t *testing.T) {
	f := newHookFixture(t, "")
	w := f.create(`{"url":"` + f.url + `","description":"mine","enabledEvents":["*"]}`)
	if !strings.HasPrefix(w.Secret, "whsec_") || len(w.Secret) != 50 || w.CreatedAt != w.UpdatedAt || !strings.HasSuffix(w.CreatedAt, "Z") || w.Kind != "url" || w.PersonIDs != nil {
		t.Fatalf("created: %+v", w)
	}
	r := f.do("GET", "/api/v4/webhooks/"+w.ID, "", "X-TIME-ZONE", "America/Mexico_City")
	var got api.Webhook
	json.Unmarshal(r.env.Data, &got)
	if got.Secret != "" || strings.Contains(r.raw, "secret") || strings.HasSuffix(got.CreatedAt, "Z") || got.CreatedAt != "2026-11-22T06:00:00.000" {
		t.Fatalf("get in a zone: %s", r.raw)
	}

	// test: one signed attempt that verifies with the secret
	r = f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", "")
	var tested api.WebhookTested
	json.Unmarshal(r.env.Data, &tested)
	if r.status != 202 || tested.EventID == "" || tested.DeliveryID == "" || r.header.Get("RateLimit-Limit") != "600" {
		t.Fatalf("test: %s", r.raw)
	}
	got1 := f.rc.next(t)
	if err := webhook.Verify(w.Secret, got1.header, got1.body, f.clock.Now(), 5*time.Minute); err != nil {
		t.Fatalf("the test delivery does not verify: %v", err)
	}
	if got1.header.Get("webhook-id") != tested.EventID {
		t.Fatalf("webhook-id %q, event %q", got1.header.Get("webhook-id"), tested.EventID)
	}
	d := f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Status == "succeeded" })
	if d.Kind != "test" || d.Attempts != 1 || d.LastStatusCode == nil || *d.LastStatusCode != 200 || d.LastResponseExcerpt != "answer 200" || d.EventID != tested.EventID {
		t.Fatalf("test delivery: %+v", d)
	}
	// the event endpoint answers the exact bytes that were signed and delivered
	r = f.do("GET", "/api/v4/events/"+tested.EventID, "")
	if string(r.env.Data) != string(got1.body) {
		t.Fatalf("event bytes differ:\n%s\n%s", r.env.Data, got1.body)
	}
	var ev api.Event
	json.Unmarshal(got1.body, &ev)
	if ev.Type != "webhook.test" || ev.Data.RelatedObject.URL != "/api/v4/webhooks/"+w.ID || !strings.HasSuffix(ev.CreatedAt, "Z") {
		t.Fatalf("envelope: %s", got1.body)
	}

	// rotation: both secrets sign for 24 hours, then only the new one
	r = f.do("POST", "/api/v4/webhooks/"+w.ID+"/rotate-secret", "")
	var rotated api.Webhook
	json.Unmarshal(r.env.Data, &rotated)
	if r.status != 200 || rotated.Secret == "" || rotated.Secret == w.Secret {
		t.Fatalf("rotate: %s", r.raw)
	}
	f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", "")
	got2 := f.rc.next(t)
	if n := len(strings.Fields(got2.header.Get("webhook-signature"))); n != 2 {
		t.Fatalf("%d signatures after rotation, want 2", n)
	}
	for _, sec := range []string{w.Secret, rotated.Secret} {
		if err := webhook.Verify(sec, got2.header, got2.body, f.clock.Now(), 5*time.Minute); err != nil {
			t.Fatalf("a secret does not verify after rotation: %v", err)
		}
	}
	f.clock.Add(25 * time.Hour)
	f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", "")
	got3 := f.rc.next(t)
	if webhook.Verify(w.Secret, got3.header, got3.body, f.clock.Now(), 5*time.Minute) == nil {
		t.Fatal("the old secret still signs after 24 hours")
	}

	// PUT: id must match; disabling is manual and refuses tests; enabling clears it
	expectFailure(t, f.do("PUT", "/api/v4/webhooks/"+w.ID, `{"id":"0193a0c4-0000-7000-8000-000000000000","url":"`+f.url+`","enabledEvents":["*"]}`), "id", "IDs mismatches")
	r = f.do("PUT", "/api/v4/webhooks/"+w.ID, `{"id":"`+w.ID+`","url":"`+f.url+`","enabledEvents":["invoice.canceled"],"personIds":[],"status":"disabled"}`)
	json.Unmarshal(r.env.Data, &got)
	if r.status != 200 || got.Status != "disabled" || got.DisabledReason == nil || *got.DisabledReason != "manual" || got.PersonIDs != nil || got.Description != "" {
		t.Fatalf("disable: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", ""); r.status != 400 || r.env.Details != "El webhook está deshabilitado: habilítalo antes de probarlo." {
		t.Fatalf("test of a disabled webhook: %s", r.raw)
	}
	r = f.do("PUT", "/api/v4/webhooks/"+w.ID, `{"id":"`+w.ID+`","url":"`+f.url+`","enabledEvents":["*"],"status":"enabled"}`)
	json.Unmarshal(r.env.Data, &got)
	if got.Status != "enabled" || got.DisabledReason != nil || got.DisabledAt != nil {
		t.Fatalf("enable: %s", r.raw)
	}

	// delete keeps the delivery log
	if r := f.do("DELETE", "/api/v4/webhooks/"+w.ID, ""); r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/webhooks/"+w.ID+"/deliveries", "")
	var page api.PagedList[api.Delivery]
	json.Unmarshal(r.env.Data, &page)
	if r.status != 200 || page.TotalCount != 3 {
		t.Fatalf("log after delete: %s", r.raw)
	}
}

func TestAutomaticRetriesHealthAndGone(t *testing.T) {
	f := newHookFixture(t, "")
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["invoice.canceled"]}`)
	other := f.create(`{"url":"` + f.url + `?other","enabledEvents":["invoice.stamped"]}`)
	f.rc.status.Store(500)
	if _, err := f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.canceled", "inv-1", &f.creds.PersonID); err != nil {
		t.Fatal(err)
	}
	first := f.rc.next(t)
	f.rc.none(t) // the other webhook is not subscribed to this type
	d := f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Attempts == 1 })
	if d.Status != "pending" || d.Kind != "automatic" || d.NextAttemptAt == nil || *d.LastStatusCode != 500 {
		t.Fatalf("after a 500: %+v", d)
	}
	var got api.Webhook
	json.Unmarshal(f.do("GET", "/api/v4/webhooks/"+w.ID, "").env.Data, &got)
	if got.FailingSince == nil {
		t.Fatal("failingSince not set by a failing real event")
	}
	// the retry comes after its wait, with the same webhook-id
	f.clock.Add(6 * time.Second)
	f.srv.engine.Wake()
	second := f.rc.next(t)
	if second.header.Get("webhook-id") != first.header.Get("webhook-id") {
		t.Fatal("a retry changed the webhook-id")
	}
	f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Attempts == 2 }) // recorded before the clock moves
	// a 2xx for a real event clears failingSince
	f.rc.status.Store(204)
	f.clock.Add(6 * time.Minute)
	f.srv.engine.Wake()
	f.rc.next(t)
	f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Status == "succeeded" && d.Attempts == 3 })
	json.Unmarshal(f.do("GET", "/api/v4/webhooks/"+w.ID, "").env.Data, &got)
	if got.FailingSince != nil {
		t.Fatal("failingSince not cleared by a 2xx")
	}
	// a test's failure does not count for health; a 410 disables with gone
	f.rc.status.Store(410)
	f.do("POST", "/api/v4/webhooks/"+other.ID+"/test", "")
	f.rc.next(t)
	f.waitDelivery(other.ID, func(d api.Delivery) bool { return d.Status == "failed" })
	json.Unmarshal(f.do("GET", "/api/v4/webhooks/"+other.ID, "").env.Data, &got)
	if got.Status != "disabled" || got.DisabledReason == nil || *got.DisabledReason != "gone" || got.FailingSince != nil {
		t.Fatalf("after a 410: %+v", got)
	}
}

func TestFailingTooLongDisables(t *testing.T) {
	f := newHookFixture(t, "")
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["*"]}`)
	f.rc.status.Store(503)
	for i := range 3 {
		id, err := f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.stamped", fmt.Sprint("inv-", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i < 2 { // the failure on the sixth day may be a retry of the first two, due as well
			f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.EventID == id && d.Attempts == 1 })
		}
		f.clock.Add(3 * 24 * time.Hour)
	}
	var got api.Webhook
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && got.Status != "disabled" {
		json.Unmarshal(f.do("GET", "/api/v4/webhooks/"+w.ID, "").env.Data, &got)
		time.Sleep(10 * time.Millisecond)
	}
	if got.Status != "disabled" || *got.DisabledReason != "failingTooLong" {
		t.Fatalf("after 6 days of failures: %+v", got)
	}
	// disabling closed the pending retries
	r := f.do("GET", "/api/v4/webhooks/"+w.ID+"/deliveries", "")
	if strings.Contains(r.raw, `"status":"pending"`) {
		t.Fatalf("pending deliveries survived the disable: %s", r.raw)
	}
}

func TestEventsTriggerResend(t *testing.T) {
	f := newHookFixture(t, "")
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["invoice.stamped"]}`)
	// trigger validation, in one answer
	r := f.do("POST", "/api/v4/events/trigger", `{"type":"webhook.test","relatedObjectId":"`+strings.Repeat("x", 37)+`","webhookId":""}`)
	fs := failures(t, r)
	if len(fs) != 3 || fs[0].ErrorMessage != "El tipo de evento 'webhook.test' no existe." ||
		fs[1].ErrorMessage != "'Related Object Id' debe ser menor o igual que 36 caracteres. Ingresó 37 caracteres." || fs[2].PropertyName != "WebhookId" {
		t.Fatalf("trigger validation: %s", r.raw)
	}
	expectFailure(t, f.do("POST", "/api/v4/events/trigger", ""), "$", "El cuerpo de la petición es requerido y no debe estar vacío.")
	expectFailure(t, f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.stamped","extra":1}`), "$.extra", "El campo 'extra' no existe en este recurso.")
	if r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.canceled"}`); r.status != 409 || r.env.Details != "La escucha de CLI no está conectada; ejecuta timbra listen." {
		t.Fatalf("trigger without a listener: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.canceled","webhookId":"`+w.ID+`","personId":"nobody"}`); r.status != 400 || r.env.Details != "La persona especificada no es válida o no pertenece a tu organización." {
		t.Fatalf("trigger with a stranger: %s", r.raw)
	}
	// a trigger goes only to the webhook given, whatever its types; its event is synthetic
	r = f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.canceled","relatedObjectId":"inv-9","webhookId":"`+w.ID+`"}`)
	var trig api.EventTriggered
	json.Unmarshal(r.env.Data, &trig)
	if r.status != 202 || trig.WebhookID != w.ID {
		t.Fatalf("trigger: %s", r.raw)
	}
	got := f.rc.next(t)
	var ev api.Event
	json.Unmarshal(got.body, &ev)
	if ev.ID != trig.EventID || ev.Type != "invoice.canceled" || ev.Data.Status != "Cancelado" || ev.Data.PreviousStatus != "Vigente" || ev.Data.RelatedObject.URL != "/api/v4/invoices/inv-9" || ev.PersonID != nil {
		t.Fatalf("triggered envelope: %s", got.body)
	}
	// resend: one new delivery of the same event, kind manual
	expectFailure(t, f.do("POST", "/api/v4/events/"+trig.EventID+"/resend", `{"webhookId":""}`), "WebhookId", "'Webhook Id' no debería estar vacío.")
	if r := f.do("POST", "/api/v4/events/nope/resend", `{"webhookId":"`+w.ID+`"}`); r.status != 404 {
		t.Fatalf("resend of an absent event: %s", r.raw)
	}
	r = f.do("POST", "/api/v4/events/"+trig.EventID+"/resend", `{"webhookId":"`+w.ID+`"}`)
	var rs api.EventResent
	json.Unmarshal(r.env.Data, &rs)
	if r.status != 202 || rs.DeliveryID == "" || rs.WebhookID != w.ID {
		t.Fatalf("resend: %s", r.raw)
	}
	if again := f.rc.next(t); again.header.Get("webhook-id") != trig.EventID || string(again.body) != string(got.body) {
		t.Fatal("a resend must carry the same event and bytes")
	}
	f.waitDelivery(w.ID, func(d api.Delivery) bool {
		return d.ID == rs.DeliveryID && d.Kind == "manual" && d.Status == "succeeded"
	})

	// events list: filters and errors (the emit comes a moment after the trigger)
	f.clock.Add(time.Millisecond)
	f.srv.Webhooks().Emit(context.Background(), f.creds.TenantKey, "invoice.stamped", "inv-9", nil)
	f.rc.next(t)
	r = f.do("GET", "/api/v4/events?relatedObjectId=inv-9", "")
	var evs api.PagedList[json.RawMessage]
	json.Unmarshal(r.env.Data, &evs)
	if evs.TotalCount != 2 || !strings.Contains(string(evs.Items[0]), "invoice.stamped") {
		t.Fatalf("events of inv-9, newest first: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/events?type=invoice.canceled", "")
	json.Unmarshal(r.env.Data, &evs)
	if evs.TotalCount != 1 {
		t.Fatalf("events by type: %s", r.raw)
	}
	expectFailure(t, f.do("GET", "/api/v4/events?type=nope", ""), "Type", "El tipo de evento 'nope' no existe.")
	expectFailure(t, f.do("GET", "/api/v4/events?from=2026-11-20T00:00:00Z&to=2026-11-10T00:00:00Z", ""), "From", "'from' no puede ser posterior a 'to'.")
	expectFailure(t, f.do("GET", "/api/v4/events?from=2026-10-01T00:00:00Z&to=2026-11-10T00:00:00Z", ""), "From", "El rango de fechas no puede exceder 30 días.")
	// without `to` the range ends now: a `from` 31 days ago is too long a range, 29 days is not
	instant := func(d time.Duration) string { return f.clock.Now().Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }
	expectFailure(t, f.do("GET", "/api/v4/events?from="+instant(-31*24*time.Hour), ""), "From", "El rango de fechas no puede exceder 30 días.")
	total := func(r result) int {
		var l api.PagedList[json.RawMessage]
		if r.status != 200 || json.Unmarshal(r.env.Data, &l) != nil {
			t.Fatalf("a list of events: %s", r.raw)
		}
		return l.TotalCount
	}
	if n, all := total(f.do("GET", "/api/v4/events?from="+instant(-29*24*time.Hour), "")), total(f.do("GET", "/api/v4/events", "")); n != all || n == 0 {
		t.Fatalf("from 29 days ago, to now: %d events of %d", n, all)
	}
	// `to` is inclusive at the millisecond an event shows
	var shown struct {
		CreatedAt string `json:"createdAt"`
	}
	json.Unmarshal(evs.Items[0], &shown)
	if r := f.do("GET", "/api/v4/events?type=invoice.canceled&to="+shown.CreatedAt, ""); !strings.Contains(r.raw, `"totalCount":1`) {
		t.Fatalf("an event at exactly `to` (%s) is missing: %s", shown.CreatedAt, r.raw)
	}
	if r := f.do("GET", "/api/v4/events?type=webhook.test", ""); r.status != 200 {
		t.Fatalf("webhook.test as a filter: %s", r.raw)
	}
	// 30 days later the events are gone
	f.clock.Add(31 * 24 * time.Hour)
	if r := f.do("GET", "/api/v4/events/"+trig.EventID, ""); r.status != 404 {
		t.Fatalf("an event older than 30 days: %s", r.raw)
	}
	if n, err := f.srv.Webhooks().Purge(context.Background()); err != nil || n < 4 {
		t.Fatalf("purge removed %d records, %v", n, err)
	}
}

func TestTriggerInProduction(t *testing.T) {
	f := newHookFixture(t, "production")
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["*"]}`)
	r := f.do("POST", "/api/v4/events/trigger", `{"type":"invoice.canceled","webhookId":"`+w.ID+`"}`)
	if r.status != 403 || r.env.Details != "timbra trigger no está disponible en producción; usa el ambiente de pruebas." {
		t.Fatalf("trigger in production: %s", r.raw)
	}
}

func TestBusinessWriteLimit(t *testing.T) {
	f := newHookFixture(t, "")
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["*"]}`)
	f.do("PUT", "/api/v4/webhooks/"+w.ID, `{"id":"`+w.ID+`","url":"`+f.url+`","enabledEvents":["*"],"status":"disabled"}`)
	for i := range 600 {
		if r := f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", ""); r.status != 400 {
			t.Fatalf("request %d: %d", i, r.status)
		}
	}
	f.do("PUT", "/api/v4/webhooks/"+w.ID, `{"id":"`+w.ID+`","url":"`+f.url+`","enabledEvents":["*"],"status":"enabled"}`)
	r := f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", "")
	if r.status != 429 || r.env.Message != "Too Many Requests" || !strings.Contains(r.env.Details, "BusinessWrite") || r.header.Get("Retry-After") == "" {
		t.Fatalf("601st: %s", r.raw)
	}
	f.rc.none(t) // the refused test was not run
	if r := f.do("GET", "/api/v4/webhooks", ""); r.status != 200 {
		t.Fatal("the Standard family must not share the BusinessWrite count")
	}
}

func TestLoadQueries(t *testing.T) {
	f := newHookFixture(t, "")
	a := f.create(`{"url":"` + f.url + `","description":"b","enabledEvents":["*"]}`)
	f.create(`{"url":"https://example.com/1","description":"a","enabledEvents":["invoice.canceled"]}`)
	f.create(`{"url":"https://example.com/2","description":"c","enabledEvents":["*"]}`)
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", f.http.URL+path, nil)
		req.Header.Set("X-TENANT-KEY", f.creds.TenantKey)
		req.Header.Set("X-API-KEY", f.creds.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	q := func(s string) string {
		return strings.NewReplacer(`"`, "%22", "[", "%5B", "]", "%5D", " ", "%20", ",", "%2C").Replace(s)
	}
	status, body := get("/api/v4/webhooks/load?filter=" + q(`["url","contains","example.com"]`) + "&sort=" + q(`[{"selector":"Description","desc":true}]`) + "&requireTotalCount=true")
	var res struct {
		Data       []api.Webhook `json:"data"`
		TotalCount int           `json:"totalCount"`
	}
	json.Unmarshal([]byte(body), &res)
	if status != 200 || strings.Contains(body, "succeeded") || res.TotalCount != 2 || len(res.Data) != 2 || res.Data[0].Description != "c" {
		t.Fatalf("load webhooks: %d %s", status, body)
	}
	status, body = get("/api/v4/webhooks/load?sort=" + q(`["nope"]`) + "&group=" + q(`[{"selector":"enabledEvents"}]`))
	if status != 400 || !strings.Contains(body, `"propertyName":"sort","errorMessage":"El campo 'nope' no existe en este recurso."`) ||
		!strings.Contains(body, `"propertyName":"group","errorMessage":"El campo 'enabledEvents' es un objeto o una lista`) {
		t.Fatalf("load failures: %d %s", status, body)
	}
	f.do("POST", "/api/v4/webhooks/"+a.ID+"/test", "")
	f.rc.next(t)
	f.waitDelivery(a.ID, func(d api.Delivery) bool { return d.Status == "succeeded" })
	status, body = get("/api/v4/webhooks/" + a.ID + "/deliveries/load?filter=" + q(`["lastStatusCode",">=",200]`) + "&totalSummary=" + q(`[{"selector":"attempts","summaryType":"sum"}]`))
	if status != 200 || !strings.Contains(body, `"kind":"test"`) || !strings.Contains(body, `"summary":[1]`) {
		t.Fatalf("load deliveries: %d %s", status, body)
	}
}

// TestWebhookPlainHTTPLoopback: in the test environment a webhook may be http:// to an
// allow-listed loopback address, and its deliveries arrive signed; in production the same URL
// is the spec's https refusal.
func TestWebhookPlainHTTPLoopback(t *testing.T) {
	got := make(chan http.Header, 4)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(plain.Close)
	url := plain.URL + "/hooks"

	f := newHookFixture(t, "")
	w := f.create(`{"url":"` + url + `","enabledEvents":["*"]}`)
	if r := f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", ""); r.status != 202 {
		t.Fatalf("test event: %s", r.raw)
	}
	select {
	case h := <-got:
		if h.Get("Webhook-Signature") == "" || h.Get("Webhook-Id") == "" {
			t.Fatalf("an unsigned delivery: %v", h)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery over plain http")
	}
	f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Status == "succeeded" })

	prod := newHookFixture(t, "production")
	expectFailure(t, prod.do("POST", "/api/v4/webhooks", `{"url":"`+url+`","enabledEvents":["*"]}`), "Url", webhook.MessageURLNotHTTPS)
}

// TestDeliveryKeepsTheFailureDetail: a failed attempt keeps why, in the network's words, on
// the delivery and in its history; the URL (its query may hold a token) is not in it.
func TestDeliveryKeepsTheFailureDetail(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nobody listens there any more
	f := newHookFixture(t, "")
	w := f.create(`{"url":"https://` + closed + `/hooks?token=s3cret","enabledEvents":["*"]}`)
	if r := f.do("POST", "/api/v4/webhooks/"+w.ID+"/test", ""); r.status != 202 {
		t.Fatalf("test event: %s", r.raw)
	}
	d := f.waitDelivery(w.ID, func(d api.Delivery) bool { return d.Status == "failed" })
	detail := api.Deref(d.LastErrorDetail)
	if api.Deref(d.LastError) != webhook.ErrorConnectionFailed || !strings.Contains(detail, "connection refused") ||
		strings.Contains(detail, "s3cret") || len(d.History) != 1 || api.Deref(d.History[0].ErrorDetail) != detail {
		t.Fatalf("delivery: %+v", d)
	}
}

// TestTriggerUnknownTypeSuggests: the failure on an unknown type keeps the spec's text and
// names the nearest type and the valid ones in customState.
func TestTriggerUnknownTypeSuggests(t *testing.T) {
	f := newHookFixture(t, "")
	for _, c := range []struct{ path, body, prop, want string }{
		{"/api/v4/events/trigger", `{"type":"invoice.cancelled"}`, "Type", "invoice.canceled"},
		{"/api/v4/webhooks", `{"url":"` + f.url + `","enabledEvents":["invoice.stampd"]}`, "EnabledEvents[0]", "invoice.stamped"},
	} {
		r := f.do("POST", c.path, c.body)
		fs := failures(t, r)
		if len(fs) != 1 || fs[0].PropertyName != c.prop || !strings.HasPrefix(fs[0].ErrorMessage, "El tipo de evento '") {
			t.Fatalf("%s: %s", c.path, r.raw)
		}
		raw, _ := json.Marshal(fs[0].CustomState)
		var s webhooks.Suggestion
		if err := json.Unmarshal(raw, &s); err != nil || s.DidYouMean != c.want || !slices.Contains(s.ValidTypes, "invoice.cancellation_rejected") {
			t.Errorf("%s: customState %s", c.path, raw)
		}
		if c.prop == "Type" && slices.Contains(s.ValidTypes, webhooks.TypeTest) {
			t.Errorf("the trigger's valid types name webhook.test: %s", raw)
		}
	}
}

// TestEmittedTypesAreTriggerable: every type a service emits is in the catalog and may be
// triggered.
func TestEmittedTypesAreTriggerable(t *testing.T) {
	for _, typ := range []string{invoices.EventStamped, invoices.EventCanceled, invoices.EventCancellationRequested, invoices.EventCancellationRejected,
		downloadrequests.EventCompleted, downloadrequests.EventFailed} {
		if !slices.Contains(webhooks.TriggerableNames(), typ) {
			t.Errorf("%s is emitted but cannot be triggered", typ)
		}
	}
	if n := len(webhooks.TriggerableNames()); n != 6 {
		t.Errorf("%d triggerable types; a new one needs its emitter here", n)
	}
}
