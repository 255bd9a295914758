package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
)

// readFixture is a hook fixture (controlled clock, webhook engine) with the mini catalogs and a
// member holding stamps.
func readFixture(t *testing.T) (*hookFixture, member) {
	t.Helper()
	f := newHookFixture(t, "")
	withMiniCatalogs(t, f.fixture)
	m := addMemberDirect(t, f.fixture, f.creds.TenantKey, f.creds.PersonID, "stamper@example.com", storage.Balance{CreditType: 1, Available: 20})
	return f, m
}

// stamp makes an invoice: big ones total more than 1,000 MXN; changes are set on the body.
func stamp(t *testing.T, f *hookFixture, m member, big bool, changes map[string]any) api.Invoice {
	t.Helper()
	body := byValue(t)
	if big {
		body["items"].([]any)[1].(map[string]any)["unitPrice"] = 1000
	}
	for k, v := range changes {
		body[k] = v
	}
	return invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
}

func ok[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &v) != nil {
		t.Fatalf("want 200, got %d %s", r.status, r.raw)
	}
	return v
}

func TestInvoiceListGetXML(t *testing.T) {
	f, m := readFixture(t)
	a := stamp(t, f, m, false, nil)
	b := stamp(t, f, m, true, map[string]any{"series": "G"})
	c := stamp(t, f, m, false, map[string]any{"typeCode": "E", "series": "G", "relatedInvoices": []any{map[string]any{"uuid": a.UUID, "relationshipTypeCode": "01"}}})

	// any person of the tenant (the owner here) sees the member's invoices
	page := ok[api.PagedList[api.Invoice]](t, f.do("GET", "/api/v4/invoices?PageNumber=1&PageSize=2", ""))
	if page.TotalCount != 3 || len(page.Items) != 2 || !page.HasNextPage || page.Items[0].ID != a.ID || page.Items[1].ID != b.ID || len(page.Items[0].Responses) != 0 {
		t.Fatalf("page 1: %+v", page)
	}
	for q, want := range map[string][]string{
		"series=g":                                   {b.ID, c.ID},
		"typeCode=E":                                 {c.ID},
		"issuerTin=EKU9003173C9&series=G":            {b.ID, c.ID},
		"recipientTin=XAXX010101000":                 nil,
		"status=Cancelado":                           nil,
		"status=Vigente&typeCode=I":                  {a.ID, b.ID},
		"from=" + a.Date[:10] + "&to=" + a.Date[:10]: {a.ID, b.ID, c.ID},
		"to=2020-01-01":                              nil,
		"from=" + a.Date:                             {a.ID, b.ID, c.ID},
	} {
		page := ok[api.PagedList[api.Invoice]](t, f.do("GET", "/api/v4/invoices?"+q, ""))
		var got []string
		for _, it := range page.Items {
			got = append(got, it.ID)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") || page.TotalCount != len(want) {
			t.Fatalf("%s: got %v, want %v", q, got, want)
		}
	}
	// one filter: its kept count is the total, the page read from its index
	for _, tc := range []struct {
		q     string
		want  []string
		total int
	}{{"series=g&pageSize=1&pageNumber=2", []string{c.ID}, 2}, {"status=VIGENTE&pageSize=2&pageNumber=2", []string{c.ID}, 3},
		{"typeCode=i&pageSize=1&pageNumber=3", nil, 2}} {
		page := ok[api.PagedList[api.Invoice]](t, f.do("GET", "/api/v4/invoices?"+tc.q, ""))
		var got []string
		for _, it := range page.Items {
			got = append(got, it.ID)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || page.TotalCount != tc.total {
			t.Fatalf("%s: got %v of %d, want %v of %d", tc.q, got, page.TotalCount, tc.want, tc.total)
		}
	}
	expectFailure(t, f.do("GET", "/api/v4/invoices?from=ayer", ""), "from", "La fecha 'ayer' no es válida para from: usa AAAA-MM-DD o AAAA-MM-DDThh:mm:ss.")
	expectFailure(t, f.do("GET", "/api/v4/invoices?pageSize=51", ""), "pageSize", "'pageSize' debe estar entre 1 y 50.")

	got := ok[api.Invoice](t, f.do("GET", "/api/v4/invoices/"+b.ID, "", m.headers()...))
	// the stamp response made at creation (from the document in memory) is the one rebuilt
	// from the stored XML
	if !reflect.DeepEqual(got.Responses, b.Responses) {
		t.Fatalf("responses differ:\ncreate %+v\nget    %+v", b.Responses, got.Responses)
	}
	if got.ID != b.ID || got.UUID != b.UUID || got.Total != b.Total || len(got.Responses) != 1 || got.Responses[0].InvoiceBase64 != b.Responses[0].InvoiceBase64 || got.Status != "Vigente" {
		t.Fatalf("get: %+v", got)
	}
	if r := f.do("GET", "/api/v4/invoices/nope", ""); r.status != 404 {
		t.Fatalf("get of an unknown id: %s", r.raw)
	}
	file := ok[api.InvoiceFile](t, f.do("GET", "/api/v4/invoices/"+b.ID+"/xml", ""))
	xml, _ := base64.StdEncoding.DecodeString(file.Base64File)
	if file.Base64Content != file.Base64File || file.FileName != b.UUID+".xml" || file.FileExtension != "xml" || file.ContentType != "application/xml" ||
		file.Base64File != b.Responses[0].InvoiceBase64 || !strings.Contains(string(xml), b.UUID) {
		t.Fatalf("xml: %+v", file)
	}
	if r := f.do("GET", "/api/v4/invoices/nope/xml", ""); r.status != 404 {
		t.Fatalf("xml of an unknown id: %s", r.raw)
	}
	// another tenant sees none of them
	other, err := f.srv.Accounts().CreateTenant(t.Context(), api.TenantCreate{OwnerEmail: "other@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	oh := []string{"X-TENANT-KEY", other.TenantKey, "X-API-KEY", other.APIKey}
	if page := ok[api.PagedList[api.Invoice]](t, f.do("GET", "/api/v4/invoices", "", oh...)); page.TotalCount != 0 {
		t.Fatalf("another tenant lists %+v", page)
	}
	if r := f.do("GET", "/api/v4/invoices/"+a.ID, "", oh...); r.status != 404 {
		t.Fatalf("another tenant gets: %s", r.raw)
	}
}

// statusOf asks the status by id.
func statusOf(t *testing.T, f *hookFixture, id string) api.InvoiceStatus {
	t.Helper()
	return ok[api.InvoiceStatus](t, f.do("POST", "/api/v4/invoices/status", `{"id":"`+id+`"}`))
}

func cancelBody(id, reason, replacement string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "cancellationReasonCode": reason, "replacementUuid": replacement})
	return string(b)
}

func TestInvoiceCancelPaths(t *testing.T) {
	f, m := readFixture(t)
	small := stamp(t, f, m, false, nil)
	big := stamp(t, f, m, true, nil)
	big2 := stamp(t, f, m, true, nil)
	replacement := stamp(t, f, m, true, map[string]any{"relatedInvoices": []any{map[string]any{"uuid": big2.UUID, "relationshipTypeCode": "04"}}})

	// status before: valid; within 24 h of the stamp everything cancels without acceptance
	if s := statusOf(t, f, big.ID); s.Status != "Vigente" || s.StatusCode != invoices.StatusCodeFound || s.CancelableStatus != "Cancelable sin aceptación" || s.CancellationStatus != "" || s.EfosValidation != "200" {
		t.Fatalf("status: %+v", s)
	}
	f.clock.Add(25 * time.Hour)
	if s := statusOf(t, f, big.ID); s.CancelableStatus != "Cancelable con aceptación" {
		t.Fatalf("status after 25 h: %+v", s)
	}
	if s := statusOf(t, f, small.ID); s.CancelableStatus != "Cancelable sin aceptación" {
		t.Fatalf("status of a small one: %+v", s)
	}
	// big2 is related by its replacement: not cancellable but with that replacement
	if s := statusOf(t, f, big2.ID); s.CancelableStatus != "No cancelable" {
		t.Fatalf("status of a replaced one: %+v", s)
	}

	// bad requests
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "05", "")), "CancellationReasonCode", "El valor '05' no existe en el catálogo c_MotivosCancelacion del SAT.")
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "", "")), "CancellationReasonCode", "'Cancellation Reason Code' no debería estar vacío.")
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "01", "")), "ReplacementUuid", invoices.MsgReplacementNeeded)
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "02", replacement.UUID)), "ReplacementUuid", invoices.MsgReplacementOnly01)
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "01", big.UUID)), "ReplacementUuid", invoices.MsgReplacementSelf)
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", `{"cancellationReasonCode":"02"}`), "Id", invoices.MsgCancelTarget)
	if r := f.do("DELETE", "/api/v4/invoices", cancelBody("nope", "02", "")); r.status != 404 {
		t.Fatalf("unknown id: %s", r.raw)
	}
	if r := f.do("DELETE", "/api/v4/invoices", cancelBody(big2.ID, "02", "")); r.status != 409 || !strings.Contains(r.env.Details, replacement.UUID) {
		t.Fatalf("cancel of a related one: %s", r.raw)
	}

	// immediate: small total, even after 24 h
	ack := ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(small.ID, "02", "")))
	acuse, _ := base64.StdEncoding.DecodeString(ack.Base64CancellationAcknowledgement)
	if ack.Status != "Cancelado" || ack.InvoiceUUIDs[small.UUID] != "201" || !strings.Contains(string(acuse), "<EstatusCancelacion>Cancelado sin aceptación</EstatusCancelacion>") ||
		!strings.Contains(string(acuse), small.UUID) {
		t.Fatalf("immediate: %+v %s", ack, acuse)
	}
	if s := statusOf(t, f, small.ID); s.Status != "Cancelado" || s.CancellationStatus != "Cancelado sin aceptación" {
		t.Fatalf("status after: %+v", s)
	}
	if got := ok[api.Invoice](t, f.do("GET", "/api/v4/invoices/"+small.ID, "")); got.Status != "Cancelado" {
		t.Fatalf("get after: %+v", got)
	}
	// twice: 202, nothing changes, no second event
	again := ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(small.ID, "02", "")))
	if again.InvoiceUUIDs[small.UUID] != "202" || again.Status != "Cancelado" {
		t.Fatalf("twice: %+v", again)
	}

	// with replacement (01): big2 with the replacement that relates it
	ack = ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(big2.ID, "01", strings.ToLower(replacement.UUID))))
	if ack.Status != "EnProcesoDeCancelacion" {
		t.Fatalf("01: %+v", ack)
	}

	// needs acceptance, then rejected, then requested again and accepted
	ack = ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "03", "")))
	if ack.Status != "EnProcesoDeCancelacion" || ack.InvoiceUUIDs[big.UUID] != "201" {
		t.Fatalf("needs acceptance: %+v", ack)
	}
	if s := statusOf(t, f, big.ID); s.Status != "Vigente" || s.CancellationStatus != "En proceso" {
		t.Fatalf("in process: %+v", s)
	}
	if again := ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "03", ""))); again.Status != "EnProcesoDeCancelacion" || again.Base64CancellationAcknowledgement != ack.Base64CancellationAcknowledgement {
		t.Fatalf("while pending: %+v", again)
	}
	expectFailure(t, f.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{}`), "Accept", invoices.MsgAnswerNeeded)
	s := ok[api.InvoiceStatus](t, f.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{"accept":false}`))
	if s.Status != "Vigente" || s.CancellationStatus != "Solicitud rechazada" {
		t.Fatalf("rejected: %+v", s)
	}
	if r := f.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{"accept":true}`); r.status != 409 {
		t.Fatalf("answer without a request: %s", r.raw)
	}
	ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(big.ID, "03", "")))
	s = ok[api.InvoiceStatus](t, f.do("POST", "/api/v4/invoices/"+big.ID+"/cancellation-answer", `{"accept":true}`))
	if s.Status != "Cancelado" || s.CancellationStatus != "Cancelado con aceptación" {
		t.Fatalf("accepted: %+v", s)
	}

	// the events, in order, each with its invoice
	r := f.do("GET", "/api/v4/events?pageSize=50", "")
	var events api.PagedList[api.Event]
	json.Unmarshal(r.env.Data, &events)
	var seq []string // the list is newest first
	for i := len(events.Items) - 1; i >= 0; i-- {
		e := events.Items[i]
		if e.Type != "invoice.stamped" {
			seq = append(seq, e.Type+" "+e.Data.RelatedObject.ID)
		}
	}
	want := []string{"invoice.canceled " + small.ID, "invoice.cancellation_requested " + big2.ID, "invoice.cancellation_requested " + big.ID,
		"invoice.cancellation_rejected " + big.ID, "invoice.cancellation_requested " + big.ID, "invoice.canceled " + big.ID}
	if strings.Join(seq, "|") != strings.Join(want, "|") {
		t.Fatalf("events:\n%v\nwant\n%v", seq, want)
	}
}

func TestInvoiceCancelByUUIDAndStatusByExpression(t *testing.T) {
	f, m := readFixture(t)
	inv := stamp(t, f, m, true, nil)
	cer, key, password := realPair(t)
	creds := []any{
		map[string]any{"base64File": base64.StdEncoding.EncodeToString(cer), "fileType": 0, "password": password},
		map[string]any{"base64File": base64.StdEncoding.EncodeToString(key), "fileType": 1, "password": password},
	}
	body := func(tin string, creds any) string {
		b, _ := json.Marshal(map[string]any{"invoiceUuid": inv.UUID, "tin": tin, "cancellationReasonCode": "02", "taxCredentials": creds})
		return string(b)
	}
	r := f.do("DELETE", "/api/v4/invoices", body("EKU9003173C9", nil))
	expectFailure(t, r, "TaxCredentials", invoices.MsgCredentialsNeeded)
	wrong := []any{creds[0], map[string]any{"base64File": creds[1].(map[string]any)["base64File"], "fileType": 1, "password": "nope"}}
	r = f.do("DELETE", "/api/v4/invoices", body("EKU9003173C9", wrong))
	expectFailure(t, r, "TaxCredentials[1].Password", taxfiles.MsgWrongPassword)
	if strings.Contains(r.raw, password) || strings.Contains(r.raw, "nope") {
		t.Fatalf("a secret is echoed: %s", r.raw)
	}
	expectFailure(t, f.do("DELETE", "/api/v4/invoices", body("AAA010101AAA", creds)), "TaxCredentials[0].Base64File", "El RFC del certificado 'EKU9003173C9' no coincide con el RFC del emisor 'AAA010101AAA'.")

	// SAT's expression
	sello := inv.Responses[0].InvoiceBase64Sello
	expr := func(total string, last8 string) string {
		return `{"invoiceUuid":"` + inv.UUID + `","issuerTin":"EKU9003173C9","recipientTin":"EKU9003173C9","invoiceTotal":` + total + `,"last8DigitsIssuerSignature":"` + last8 + `"}`
	}
	if s := ok[api.InvoiceStatus](t, f.do("POST", "/api/v4/invoices/status", expr(string(inv.Total), sello[len(sello)-8:]))); s.Status != "Vigente" || s.CancelableStatus != "Cancelable sin aceptación" {
		t.Fatalf("by expression: %+v", s)
	}
	if s := ok[api.InvoiceStatus](t, f.do("POST", "/api/v4/invoices/status", expr("1", sello[len(sello)-8:]))); s.Status != "No Encontrado" || s.StatusCode != invoices.StatusCodeNotFound {
		t.Fatalf("wrong total: %+v", s)
	}
	expectFailure(t, f.do("POST", "/api/v4/invoices/status", `{}`), "Id", invoices.MsgStatusTarget)

	ack := ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", body("eku9003173c9", creds)))
	if ack.Status != "Cancelado" || ack.InvoiceUUIDs[inv.UUID] != "201" {
		t.Fatalf("by uuid: %+v", ack)
	}
}

// A URL webhook receives a signed invoice.canceled and a listener session receives it too, with
// the invoice as relatedObject.
func TestInvoiceCanceledReachesWebhookAndListener(t *testing.T) {
	f, m := readFixture(t)
	inv := stamp(t, f, m, false, nil)
	w := f.create(`{"url":"` + f.url + `","enabledEvents":["invoice.canceled"]}`)
	conn, ready := f.dialListen(t, "?events=invoice.canceled")

	ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(inv.ID, "02", "")))

	got := f.rc.next(t)
	if err := webhook.Verify(w.Secret, got.header, got.body, f.clock.Now(), 5*time.Minute); err != nil {
		t.Fatalf("the delivery does not verify: %v", err)
	}
	var ev api.Event
	json.Unmarshal(got.body, &ev)
	if ev.Type != "invoice.canceled" || ev.Data.RelatedObject.ID != inv.ID || ev.Data.RelatedObject.Type != "invoice" ||
		ev.Data.RelatedObject.URL != "/api/v4/invoices/"+inv.ID || ev.Data.Status != "Cancelado" || ev.Data.PreviousStatus != "Vigente" {
		t.Fatalf("webhook event: %s", got.body)
	}
	var lev listener.Event
	for lev.Body == "" || !strings.Contains(lev.Body, "invoice.canceled") {
		lev = readEvent(t, conn)
	}
	h := map[string][]string{}
	for k, v := range lev.Headers {
		h[k] = []string{v}
	}
	if err := webhook.Verify(ready.Secret, h, []byte(lev.Body), f.clock.Now(), 5*time.Minute); err != nil {
		t.Fatalf("listener event does not verify: %v", err)
	}
	var lv api.Event
	json.Unmarshal([]byte(lev.Body), &lv)
	if lv.ID != ev.ID || lv.Data.RelatedObject.ID != inv.ID || lv.Data.RelatedObject.URL != "/api/v4/invoices/"+inv.ID {
		t.Fatalf("listener event: %s", lev.Body)
	}
}

// TestCancellationTacitlyAccepted: a cancellation the recipient does not answer within 72 hours
// is accepted ("Plazo vencido", invoice.canceled); an answered one, or one asked again after a
// rejection, waits its own 72 hours.
func TestCancellationTacitlyAccepted(t *testing.T) {
	f, m := readFixture(t)
	a := stamp(t, f, m, true, nil)
	b := stamp(t, f, m, true, nil)
	f.clock.Add(25 * time.Hour) // past the 24 hours in which no acceptance is needed
	for _, id := range []string{a.ID, b.ID} {
		if ack := ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(id, "03", ""))); ack.Status != "EnProcesoDeCancelacion" {
			t.Fatalf("cancel %s: %+v", id, ack)
		}
	}
	expire := func(want int) {
		t.Helper()
		if n, err := f.srv.Invoices().ExpireCancellations(context.Background()); err != nil || n != want {
			t.Fatalf("ExpireCancellations = %d, %v; want %d", n, err, want)
		}
	}
	f.clock.Add(71 * time.Hour)
	expire(0)
	// b is rejected, then asked again: its 72 hours start again
	ok[api.InvoiceStatus](t, f.do("POST", "/api/v4/invoices/"+b.ID+"/cancellation-answer", `{"accept":false}`))
	ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(b.ID, "03", "")))
	f.clock.Add(time.Hour)
	expire(1)
	if s := statusOf(t, f, a.ID); s.Status != "Cancelado" || s.CancellationStatus != invoices.CanceledTimedOut {
		t.Fatalf("a after 72 hours: %+v", s)
	}
	if s := statusOf(t, f, b.ID); s.Status != "Vigente" || s.CancellationStatus != "En proceso" {
		t.Fatalf("b asked again 1 hour ago: %+v", s)
	}
	if got := ok[api.Invoice](t, f.do("GET", "/api/v4/invoices/"+a.ID, "")); got.Status != "Cancelado" {
		t.Fatalf("a's status: %s", got.Status)
	}
	expire(0)
	f.clock.Add(71 * time.Hour)
	expire(1)
	expire(0)
	// each tacit acceptance recorded invoice.canceled
	var events api.PagedList[api.Event]
	json.Unmarshal(f.do("GET", "/api/v4/events?pageSize=50", "").env.Data, &events)
	canceled := map[string]int{}
	for _, e := range events.Items {
		if e.Type == invoices.EventCanceled {
			canceled[e.Data.RelatedObject.ID]++
		}
	}
	if canceled[a.ID] != 1 || canceled[b.ID] != 1 {
		t.Fatalf("invoice.canceled events: %v", canceled)
	}

	// A serving server does it by itself (at start, then every minute).
	c := stamp(t, f, m, true, nil)
	f.clock.Add(25 * time.Hour)
	ok[api.InvoiceCancelled](t, f.do("DELETE", "/api/v4/invoices", cancelBody(c.ID, "03", "")))
	f.clock.Add(73 * time.Hour)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.srv.Serve(ctx, ln) }()
	defer func() { stop(); <-served }()
	for deadline := time.Now().Add(10 * time.Second); statusOf(t, f, c.ID).Status != "Cancelado"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the serving server did not accept the unanswered cancellation: %+v", statusOf(t, f, c.ID))
		}
	}
}
