package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrequests"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
)

func writeSATCFDI(t *testing.T, dir, uuid, issuer, receiver, date string) {
	t.Helper()
	x := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Serie="A" Folio="7" Fecha="%s" SubTotal="100.00" Moneda="MXN" Total="116.00" TipoDeComprobante="I" Exportacion="01" LugarExpedicion="42501" NoCertificado="30001000000500003416">
  <cfdi:Emisor Rfc="%s" Nombre="EMISOR" RegimenFiscal="601"/>
  <cfdi:Receptor Rfc="%s" Nombre="RECEPTOR" DomicilioFiscalReceptor="42501" RegimenFiscalReceptor="601" UsoCFDI="G03"/>
  <cfdi:Impuestos TotalImpuestosTrasladados="16.00"/>
  <cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="%s" FechaTimbrado="%s" RfcProvCertif="SAT970701NN3"/></cfdi:Complemento>
</cfdi:Comprobante>`, date, issuer, receiver, uuid, date)
	if err := os.WriteFile(filepath.Join(dir, uuid+".xml"), []byte(x), 0o600); err != nil {
		t.Fatal(err)
	}
}

func requestOf(t *testing.T, r result) api.DownloadRequest {
	t.Helper()
	var out api.DownloadRequest
	if r.status != 200 || json.Unmarshal(r.env.Data, &out) != nil {
		t.Fatalf("want a download request, got %d %s", r.status, r.raw)
	}
	return out
}

// TestDownloadRequestsAgainstLocalSAT: a person with SAT's test e.firma asks for January's
// issued metadata and CFDIs (explicit parameters) and for a rule's; the worker queries the local
// SAT, verifies through accepted and in progress, downloads and indexes the packages; the API
// answers the requests, the metadata lines, the CFDIs, the ZIPs and the raw query.
func TestDownloadRequestsAgainstLocalSAT(t *testing.T) {
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	dir := t.TempDir()
	writeSATCFDI(t, dir, "11111111-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-05T10:00:00")
	writeSATCFDI(t, dir, "22222222-2222-4222-8222-222222222222", "EKU9003173C9", "XAXX010101000", "2024-01-20T23:59:59")
	writeSATCFDI(t, dir, "33333333-3333-4333-8333-333333333333", "AAA010101AAA", "EKU9003173C9", "2024-01-21T00:00:00")
	local, err := satlocal.New(satlocal.Options{CFDIs: dir, Delay: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)
	f := newFixture(t, func(c *Config) {
		c.SatDownload = satws.EndpointsAt(sat.URL)
		c.SatDownloadBackoff = satws.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Factor: 2}
	})
	owner := ownerMember(t, f, f.creds)
	eku := taxPerson(t, f, "eku@example.com", "EKU9003173C9")
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 2, cerB, "", ""), owner.headers()...))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 3, keyB, strings.TrimSpace(string(pwB)), ""), owner.headers()...))

	// what a create refuses
	expectFailure(t, f.do("POST", "/api/v4/download-requests", `{}`, eku.headers()...), "StartDate", fmt.Sprintf(downloadrequests.MsgDateRequired, "Start Date"))
	expectFailure(t, f.do("POST", "/api/v4/download-requests", `{"startDate":"2024-02-01T00:00:00","endDate":"2024-01-01T00:00:00","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"CFDI"}`, eku.headers()...),
		"EndDate", downloadrequests.MsgPeriod)
	expectFailure(t, f.do("POST", "/api/v4/download-requests", `{"startDate":"2024-01-01","endDate":"2024-02-01","requesterTin":"EKU9003173C9","downloadTypeId":"Recibidos","satQueryTypeId":"CFDI"}`, eku.headers()...),
		"SatInvoiceStatusId", downloadrequests.MsgReceivedXML)
	expectFailure(t, f.do("POST", "/api/v4/download-requests", `{"startDate":"2024-01-01","endDate":"2024-02-01","requesterTin":"NOP010101AAA","downloadTypeId":"Emitidos","satQueryTypeId":"CFDI"}`, eku.headers()...),
		"RequesterTin", fmt.Sprintf(downloadrequests.MsgNoPerson, "NOP010101AAA"))

	meta := requestOf(t, f.do("POST", "/api/v4/download-requests",
		`{"downloadRequestTypeId":"Manual","startDate":"2024-01-01T00:00:00.000-06:00","endDate":"2024-02-01T00:00:00.000-06:00","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"Metadata"}`, eku.headers()...))
	if meta.DownloadRequestStatusID != downloadrequests.StatusPending || meta.Consecutive != 1 || meta.IssuerTin == nil || *meta.IssuerTin != "EKU9003173C9" ||
		meta.StartDate != "2024-01-01T00:00:00" || meta.DownloadType == nil || meta.SatQueryType == nil || meta.SatInvoiceType == nil {
		t.Fatalf("created: %+v", meta)
	}
	xmls := requestOf(t, f.do("POST", "/api/v4/download-requests",
		`{"startDate":"2024-01-01T00:00:00","endDate":"2024-01-31T23:59:59","requesterTin":"eku9003173c9","downloadTypeId":"Recibidos","satQueryTypeId":"CFDI","satInvoiceStatusId":"Vigente"}`, eku.headers()...))
	if r := f.do("GET", "/api/v4/download-requests/"+meta.ID+"/package", "", eku.headers()...); r.status != 400 {
		t.Errorf("package before it finished: %d %s", r.status, r.raw)
	}

	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := f.srv.worker.Round(ctx); err != nil {
			t.Fatal(err)
		}
		a := requestOf(t, f.do("GET", "/api/v4/download-requests/"+meta.ID, "", eku.headers()...))
		b := requestOf(t, f.do("GET", "/api/v4/download-requests/"+xmls.ID, "", eku.headers()...))
		if a.DownloadRequestStatusID == downloadrequests.StatusCompleted && b.DownloadRequestStatusID == downloadrequests.StatusCompleted {
			meta, xmls = a, b
			break
		}
		if a.DownloadRequestStatusID == downloadrequests.StatusFailed || b.DownloadRequestStatusID == downloadrequests.StatusFailed || time.Now().After(deadline) {
			t.Fatalf("not completed:\n%+v\n%+v\n%s", a, b, f.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if meta.InvoiceCount != 2 || len(meta.PackageIDs) != 1 || !meta.IsReadyToDownload || meta.SatRequestID == nil || meta.SatRequestStatusID != "3" ||
		meta.SatRequestStatus == nil || meta.SatRequestStatus.Description != "Terminada" || meta.DownloadRequestStatus == nil {
		t.Errorf("completed: %+v", meta)
	}

	var items api.PagedList[api.DownloadMetadataItem]
	r := f.do("GET", "/api/v4/download-requests/"+meta.ID+"/meta-items", "", eku.headers()...)
	if json.Unmarshal(r.env.Data, &items) != nil || items.TotalCount != 2 || len(items.Items) != 2 {
		t.Fatalf("meta-items: %s", r.raw)
	}
	m := items.Items[0]
	if m.InvoiceUUID != "11111111-1111-4111-8111-111111111111" || m.IssuerTin != "EKU9003173C9" || m.RecipientTin != "AAA010101AAA" ||
		m.Amount != 116 || m.Status != 1 || m.InvoiceDate != "2024-01-05T10:00:00" || m.InvoiceType != "I" || m.DownloadRequestID != meta.ID ||
		m.DownloadPackageID != meta.PackageIDs[0] || m.CancellationDate != nil {
		t.Errorf("metadata item: %+v", m)
	}

	var xs api.PagedList[api.DownloadXML]
	r = f.do("GET", "/api/v4/download-requests/"+xmls.ID+"/xmls?pageSize=1", "", eku.headers()...)
	if json.Unmarshal(r.env.Data, &xs) != nil || xs.TotalCount != 1 || len(xs.Items) != 1 {
		t.Fatalf("xmls: %s", r.raw)
	}
	x := xs.Items[0]
	content, _ := base64.StdEncoding.DecodeString(x.Base64Content)
	if x.InvoiceUUID != "33333333-3333-4333-8333-333333333333" || x.XMLIssuer.Tin != "AAA010101AAA" || x.XMLRecipient.CfdiUse != "G03" ||
		x.Total != 116 || x.Series == nil || *x.Series != "A" || x.TotalTransferredTaxes == nil || *x.TotalTransferredTaxes != 16 ||
		!bytes.Contains(content, []byte(`UUID="33333333-3333-4333-8333-333333333333"`)) {
		t.Errorf("xml: %+v", x)
	}

	var files []api.FileResponse
	r = f.do("GET", "/api/v4/download-requests/"+xmls.ID+"/package", "", eku.headers()...)
	if json.Unmarshal(r.env.Data, &files) != nil || len(files) != 1 || files[0].FileExtension != "zip" || files[0].FileName != xmls.PackageIDs[0]+".zip" {
		t.Fatalf("package: %s", r.raw)
	}
	zb, _ := base64.StdEncoding.DecodeString(files[0].Base64File)
	z, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil || len(z.File) != 1 || z.File[0].Name != "33333333-3333-4333-8333-333333333333.xml" {
		t.Fatalf("zip: %v", err)
	}

	var raw api.FileResponse
	r = f.do("GET", "/api/v4/download-requests/"+meta.ID+"/raw-request", "", eku.headers()...)
	rb := []byte{}
	if json.Unmarshal(r.env.Data, &raw) == nil {
		rb, _ = base64.StdEncoding.DecodeString(raw.Base64File)
	}
	if !bytes.Contains(rb, []byte("SolicitaDescargaEmitidos")) || !bytes.Contains(rb, []byte(`TipoSolicitud="Metadata"`)) {
		t.Errorf("raw request: %s", r.raw)
	}
	r = f.do("GET", "/api/v4/download-requests/"+meta.ID+"/raw-response", "", eku.headers()...)
	if !strings.Contains(r.raw, `"fileExtension":"xml"`) {
		t.Errorf("raw response: %s", r.raw)
	}

	var list api.PagedList[api.DownloadRequest]
	r = f.do("GET", "/api/v4/download-requests", "", eku.headers()...)
	if json.Unmarshal(r.env.Data, &list) != nil || list.TotalCount != 2 || list.Items[0].ID != meta.ID {
		t.Errorf("list: %s", r.raw)
	}
	// another tenant's id, and a delete
	if r := f.do("GET", "/api/v4/download-requests/nope", "", eku.headers()...); r.status != 404 || r.env.Details != "No such resource for the given Id: nope" {
		t.Errorf("unknown: %d %s", r.status, r.raw)
	}
	if r := f.do("DELETE", "/api/v4/download-requests/"+meta.ID, "", eku.headers()...); r.status != 200 || !strings.Contains(r.raw, `"data":true`) {
		t.Errorf("delete: %s", r.raw)
	}
	if r := f.do("GET", "/api/v4/download-requests/"+meta.ID+"/meta-items", "", eku.headers()...); r.status != 404 {
		t.Errorf("items after delete: %d", r.status)
	}

	// from a rule: pending rules are refused, approved ones give their parameters
	rule := ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(eku.person, "Recibidos", "Metadata", "Recibidos", "Vigente"), eku.headers()...))
	body := `{"downloadRuleId":"` + rule.ID + `","downloadRequestTypeId":"Manual","startDate":"2024-01-01","endDate":"2024-02-01"}`
	expectFailure(t, f.do("POST", "/api/v4/download-requests", body, eku.headers()...), "DownloadRuleId", fmt.Sprintf(downloadrequests.MsgRuleNotApproved, rule.ID, "1"))
	if r := f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/download-rules/"+rule.ID+"/status", `{"downloadRuleStatusId":"2"}`, "Authorization", "Bearer op-token"); r.status != 200 {
		t.Fatalf("approve: %s", r.raw)
	}
	fromRule := requestOf(t, f.do("POST", "/api/v4/download-requests", body, eku.headers()...))
	if fromRule.DownloadRuleID == nil || *fromRule.DownloadRuleID != rule.ID || fromRule.DownloadTypeID != "Recibidos" || fromRule.SatQueryTypeID != "Metadata" ||
		fromRule.RecipientTin == nil || *fromRule.RecipientTin != "EKU9003173C9" || fromRule.Consecutive != 3 {
		t.Errorf("from a rule: %+v", fromRule)
	}
}

// TestDownloadRulesRun: an approved rule creates its Automatic request in the worker's round,
// for the day before (the CFDI stamped two hours ago is found), only once per day; the request's
// end is the event download_request.completed, written with it; a request the SAT refuses is
// download_request.failed.
func TestDownloadRulesRun(t *testing.T) {
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	dir := t.TempDir()
	mx, _ := time.LoadLocation("America/Mexico_City")
	writeSATCFDI(t, dir, "44444444-4444-4444-8444-444444444444", "EKU9003173C9", "AAA010101AAA", time.Now().Add(-2*time.Hour).In(mx).Format("2006-01-02T15:04:05"))
	local, err := satlocal.New(satlocal.Options{CFDIs: dir})
	if err != nil {
		t.Fatal(err)
	}
	var handler atomic.Pointer[satlocal.Server]
	handler.Store(local)
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.Load().ServeHTTP(w, r) }))
	t.Cleanup(sat.Close)
	f := newFixture(t, func(c *Config) {
		c.SatDownload = satws.EndpointsAt(sat.URL)
		c.SatDownloadBackoff = satws.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Factor: 2}
		c.DownloadRulesEvery = 24 * time.Hour
	})
	owner := ownerMember(t, f, f.creds)
	eku := taxPerson(t, f, "eku@example.com", "EKU9003173C9")
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 2, cerB, "", ""), owner.headers()...))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 3, keyB, strings.TrimSpace(string(pwB)), ""), owner.headers()...))
	rule := ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(eku.person, "Emitidos", "CFDI", "Emitidos", "Vigente"), eku.headers()...))

	ctx := context.Background()
	list := func() api.PagedList[api.DownloadRequest] {
		var l api.PagedList[api.DownloadRequest]
		r := f.do("GET", "/api/v4/download-requests", "", eku.headers()...)
		if json.Unmarshal(r.env.Data, &l) != nil {
			t.Fatalf("list: %s", r.raw)
		}
		return l
	}
	if err := f.srv.worker.Round(ctx); err != nil {
		t.Fatal(err)
	}
	if l := list(); l.TotalCount != 0 {
		t.Fatalf("a pending rule ran: %+v", l.Items)
	}
	if r := f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/download-rules/"+rule.ID+"/status", `{"downloadRuleStatusId":"2"}`, "Authorization", "Bearer op-token"); r.status != 200 {
		t.Fatalf("approve: %s", r.raw)
	}
	var auto api.DownloadRequest
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := f.srv.worker.Round(ctx); err != nil {
			t.Fatal(err)
		}
		l := list()
		if l.TotalCount != 1 {
			t.Fatalf("the approved rule's runs: %+v", l.Items)
		}
		auto = l.Items[0]
		if auto.DownloadRequestStatusID == downloadrequests.StatusCompleted || auto.DownloadRequestStatusID == downloadrequests.StatusFailed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not finished: %+v\n%s", auto, f.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if auto.DownloadRequestTypeID != downloadrequests.TypeAutomatic || auto.DownloadRuleID == nil || *auto.DownloadRuleID != rule.ID ||
		auto.DownloadRequestStatusID != downloadrequests.StatusCompleted || auto.InvoiceCount != 1 || auto.RequesterTin != "EKU9003173C9" {
		t.Fatalf("automatic request: %+v\n%s", auto, f.logs)
	}

	// the refused one: a request SAT answers 5002 to
	local2, err := satlocal.New(satlocal.Options{CFDIs: dir, Codes: []satlocal.Code{mustCode(t, "query=5002")}})
	if err != nil {
		t.Fatal(err)
	}
	handler.Store(local2)
	refused := requestOf(t, f.do("POST", "/api/v4/download-requests",
		`{"startDate":"2024-01-01","endDate":"2024-02-01","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"Metadata"}`, eku.headers()...))
	for range 3 {
		if err := f.srv.worker.Round(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := requestOf(t, f.do("GET", "/api/v4/download-requests/"+refused.ID, "", eku.headers()...)); got.DownloadRequestStatusID != downloadrequests.StatusFailed {
		t.Fatalf("refused: %+v", got)
	}
	if l := list(); l.TotalCount != 2 {
		t.Fatalf("the rule ran again within the day: %d requests", l.TotalCount)
	}

	var events api.PagedList[api.Event]
	r := f.do("GET", "/api/v4/events?pageSize=50", "", owner.headers()...)
	if json.Unmarshal(r.env.Data, &events) != nil {
		t.Fatalf("events: %s", r.raw)
	}
	got := map[string]api.Event{}
	for _, e := range events.Items {
		got[e.Type] = e
	}
	c, fl := got[downloadrequests.EventCompleted], got[downloadrequests.EventFailed]
	if c.Data.RelatedObject.ID != auto.ID || c.Data.RelatedObject.URL != "/api/v4/download-requests/"+auto.ID || c.Data.Status != "Completed" ||
		c.PersonID == nil || *c.PersonID != eku.person {
		t.Errorf("completed event: %+v", c)
	}
	if fl.Data.RelatedObject.ID != refused.ID || fl.Data.Status != "Failed" {
		t.Errorf("failed event: %+v", fl)
	}
	if len(events.Items) != 2 {
		t.Errorf("events: %s", r.raw)
	}
}

func mustCode(t *testing.T, s string) satlocal.Code {
	t.Helper()
	c, err := satlocal.ParseCode(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDownloadRequestLimits: the API refuses, with a 400 in the envelope and before the SAT is
// asked, what the SAT would refuse: a start older than six years, a request identical to an
// active one (5005), and a third identical CFDI request of a period (5002) once the local SAT
// took two; the local SAT agrees that the two were accepted.
func TestDownloadRequestLimits(t *testing.T) {
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	local, err := satlocal.New(satlocal.Options{CFDIs: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)
	f := newFixture(t, func(c *Config) {
		c.SatDownload = satws.EndpointsAt(sat.URL)
		c.SatDownloadBackoff = satws.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond, Factor: 2}
	})
	owner := ownerMember(t, f, f.creds)
	eku := taxPerson(t, f, "eku@example.com", "EKU9003173C9")
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 2, cerB, "", ""), owner.headers()...))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 3, keyB, strings.TrimSpace(string(pwB)), ""), owner.headers()...))

	mx, _ := time.LoadLocation("America/Mexico_City")
	today := time.Now().In(mx)
	oldest := time.Date(today.Year()-6, today.Month(), today.Day(), 0, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05")
	old := time.Date(today.Year()-6, today.Month(), today.Day()-1, 0, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05")
	expectFailure(t, f.do("POST", "/api/v4/download-requests", `{"startDate":"`+old+`","endDate":"2024-01-01","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"Metadata"}`, eku.headers()...),
		"StartDate", fmt.Sprintf(downloadrequests.MsgTooOld, old, oldest))

	body := `{"startDate":"2024-01-01","endDate":"2024-02-01","requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"CFDI"}`
	for i := range 2 {
		r := requestOf(t, f.do("POST", "/api/v4/download-requests", body, eku.headers()...))
		expectDetails(t, f.do("POST", "/api/v4/download-requests", body, eku.headers()...), 400, fmt.Sprintf(downloadrequests.MsgDuplicate, 5005))
		deadline := time.Now().Add(10 * time.Second)
		for {
			if err := f.srv.worker.Round(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := requestOf(t, f.do("GET", "/api/v4/download-requests/"+r.ID, "", eku.headers()...))
			if got.DownloadRequestStatusID == downloadrequests.StatusCompleted {
				if got.SatRequestID == nil {
					t.Fatalf("request %d completed without the SAT: %+v", i+1, got)
				}
				break
			}
			if got.DownloadRequestStatusID == downloadrequests.StatusFailed || time.Now().After(deadline) {
				t.Fatalf("request %d: %+v\n%s", i+1, got, f.logs)
			}
		}
	}
	expectDetails(t, f.do("POST", "/api/v4/download-requests", body, eku.headers()...), 400, fmt.Sprintf(downloadrequests.MsgExhausted, 5002))
	metadata := strings.Replace(body, `"CFDI"`, `"Metadata"`, 1)
	requestOf(t, f.do("POST", "/api/v4/download-requests", metadata, eku.headers()...))
}

// TestDownloadRulePausedWithoutEFirma: an approved rule whose person's e.firma was deleted
// creates no request in the worker's rounds; the rule answers why (pausedReason, pausedSince);
// once the e.firma is uploaded again the next round creates its request and the pause is gone.
func TestDownloadRulePausedWithoutEFirma(t *testing.T) {
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	local, err := satlocal.New(satlocal.Options{CFDIs: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)
	f := newFixture(t, func(c *Config) { c.SatDownload = satws.EndpointsAt(sat.URL) })
	owner := ownerMember(t, f, f.creds)
	eku := taxPerson(t, f, "eku@example.com", "EKU9003173C9")
	upload := func() []api.TaxFile {
		return []api.TaxFile{taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 2, cerB, "", ""), owner.headers()...)),
			taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 3, keyB, strings.TrimSpace(string(pwB)), ""), owner.headers()...))}
	}
	files := upload()
	rule := ruleOf(t, f.do("POST", "/api/v4/download-rules", ruleBody(eku.person, "Emitidos", "Metadata", "Emitidos", "Vigente"), eku.headers()...))
	if r := f.do("PUT", "/admin/v1/tenants/"+f.creds.TenantKey+"/download-rules/"+rule.ID+"/status", `{"downloadRuleStatusId":"2"}`, "Authorization", "Bearer op-token"); r.status != 200 {
		t.Fatalf("approve: %s", r.raw)
	}
	for _, tf := range files {
		if r := f.do("DELETE", "/api/v4/tax-files/"+tf.ID, "", owner.headers()...); r.status != 200 {
			t.Fatalf("delete the e.firma: %s", r.raw)
		}
	}
	count := func() int {
		var l api.PagedList[api.DownloadRequest]
		if r := f.do("GET", "/api/v4/download-requests", "", eku.headers()...); json.Unmarshal(r.env.Data, &l) != nil {
			t.Fatalf("list: %s", r.raw)
		}
		return l.TotalCount
	}
	for range 2 {
		if err := f.srv.worker.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	got := ruleOf(t, f.do("GET", "/api/v4/download-rules/"+rule.ID, "", eku.headers()...))
	if n := count(); n != 0 || got.PausedReason == nil || *got.PausedReason != fmt.Sprintf(downloadrequests.MsgRulePaused, eku.person) || got.PausedSince == nil {
		t.Fatalf("without an e.firma: %d requests, rule %+v", n, got)
	}
	if strings.Count(f.logs.String(), "download rule paused") != 1 {
		t.Errorf("the pause is logged once:\n%s", f.logs)
	}

	upload()
	if err := f.srv.worker.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	got = ruleOf(t, f.do("GET", "/api/v4/download-rules/"+rule.ID, "", eku.headers()...))
	if n := count(); n != 1 || got.PausedReason != nil || got.PausedSince != nil {
		t.Fatalf("with an e.firma again: %d requests, rule %+v", n, got)
	}
}
