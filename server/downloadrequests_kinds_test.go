package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrequests"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
)

// localSATFixture is a server whose worker calls a local SAT answering from dir (both of its
// services: CFDIs and withholding CFDIs), and the person of SAT's test e.firma, uploaded.
func localSATFixture(t *testing.T, dir string) (*fixture, member) {
	t.Helper()
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	local, err := satlocal.New(satlocal.Options{CFDIs: dir, Delay: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)
	f := newFixture(t, func(c *Config) {
		c.SatDownload = satws.EndpointsAt(sat.URL)
		c.SatRetenciones = satws.EndpointsAt(sat.URL + satlocal.RetencionesPath)
		c.SatDownloadBackoff = satws.Backoff{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, Factor: 2}
	})
	owner := ownerMember(t, f, f.creds)
	eku := taxPerson(t, f, "eku@example.com", "EKU9003173C9")
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 2, cerB, "", ""), owner.headers()...))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(eku.person, 3, keyB, strings.TrimSpace(string(pwB)), ""), owner.headers()...))
	return f, eku
}

// finish runs the worker until the request is Completed, and answers it; Failed fails the test.
func finish(t *testing.T, f *fixture, who member, id string) api.DownloadRequest {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := f.srv.worker.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
		r := requestOf(t, f.do("GET", "/api/v4/download-requests/"+id, "", who.headers()...))
		if r.DownloadRequestStatusID == downloadrequests.StatusCompleted {
			return r
		}
		if r.DownloadRequestStatusID == downloadrequests.StatusFailed || time.Now().After(deadline) {
			t.Fatalf("not completed: %+v\n%s", r, f.logs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func xmlsOf(t *testing.T, f *fixture, who member, id string) []api.DownloadXML {
	t.Helper()
	var xs api.PagedList[api.DownloadXML]
	r := f.do("GET", "/api/v4/download-requests/"+id+"/xmls", "", who.headers()...)
	if json.Unmarshal(r.env.Data, &xs) != nil {
		t.Fatalf("xmls: %s", r.raw)
	}
	return xs.Items
}

func rawRequestOf(t *testing.T, f *fixture, who member, id string) string {
	t.Helper()
	var raw api.FileResponse
	r := f.do("GET", "/api/v4/download-requests/"+id+"/raw-request", "", who.headers()...)
	if json.Unmarshal(r.env.Data, &raw) != nil {
		t.Fatalf("raw request: %s", r.raw)
	}
	b, _ := base64.StdEncoding.DecodeString(raw.Base64File)
	return string(b)
}

// TestDownloadByUUIDAgainstLocalSAT: downloadTypeId Uuid with the timbra extension uuid asks
// SAT's SolicitaDescargaFolio (no period, no filters) and indexes the one CFDI, received here;
// the official client's update round trip (the answer sent back, dates empty) is accepted; the
// UUID of someone else's CFDI completes with nothing; what such a request must not have is
// refused in the envelope.
func TestDownloadByUUIDAgainstLocalSAT(t *testing.T) {
	dir := t.TempDir()
	writeSATCFDI(t, dir, "33333333-3333-4333-8333-333333333333", "AAA010101AAA", "EKU9003173C9", "2024-01-21T00:00:00")
	writeSATCFDI(t, dir, "44444444-4444-4444-8444-444444444444", "AAA010101AAA", "XAXX010101000", "2024-01-21T00:00:00")
	f, eku := localSATFixture(t, dir)
	post := func(body string) result { return f.do("POST", "/api/v4/download-requests", body, eku.headers()...) }

	expectFailure(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI"}`), "Uuid", downloadrequests.MsgUUIDRequired)
	expectFailure(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI","uuid":"3333-not-a-uuid"}`),
		"Uuid", fmt.Sprintf(downloadrequests.MsgBadUUID, "3333-NOT-A-UUID"))
	expectFailure(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI","uuid":"33333333-3333-4333-8333-333333333333","startDate":"2024-01-01","endDate":"2024-02-01"}`),
		"StartDate", fmt.Sprintf(downloadrequests.MsgUUIDNoPeriod, "startDate"))
	expectFailure(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"Metadata","uuid":"33333333-3333-4333-8333-333333333333"}`),
		"SatQueryTypeId", fmt.Sprintf(downloadrequests.MsgUUIDQueryType, "Metadata"))
	expectFailure(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI","uuid":"33333333-3333-4333-8333-333333333333","satInvoiceStatusId":"Vigente"}`),
		"SatInvoiceStatusId", fmt.Sprintf(downloadrequests.MsgUUIDNoFilter, "satInvoiceStatusId"))
	expectFailure(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Emitidos","satQueryTypeId":"CFDI","uuid":"33333333-3333-4333-8333-333333333333","startDate":"2024-01-01","endDate":"2024-02-01"}`),
		"Uuid", downloadrequests.MsgUUIDOnly)
	expectFailure(t, post(`{"downloadRuleId":"r-1","downloadTypeId":"Uuid","uuid":"33333333-3333-4333-8333-333333333333"}`),
		"StartDate", fmt.Sprintf(downloadrequests.MsgDateRequired, "Start Date"))
	if r := post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI","uuid":12}`); r.status != 400 || r.env.Succeeded {
		t.Errorf("a uuid of another type: %d %s", r.status, r.raw)
	}

	byUUID := requestOf(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI","uuid":"33333333-3333-4333-8333-333333333333"}`))
	if byUUID.UUID == nil || *byUUID.UUID != "33333333-3333-4333-8333-333333333333" || byUUID.StartDate != "" || byUUID.EndDate != "" ||
		byUUID.DownloadType == nil || byUUID.DownloadType.ID != "Uuid" || byUUID.IssuerTin != nil || byUUID.RecipientTin != nil {
		t.Fatalf("created: %+v", byUUID)
	}
	// the official client's update sends the model back
	body, _ := json.Marshal(byUUID)
	if r := f.do("PUT", "/api/v4/download-requests/"+byUUID.ID, string(body), eku.headers()...); r.status != 200 {
		t.Errorf("update round trip: %s", r.raw)
	}
	expectFailure(t, f.do("PUT", "/api/v4/download-requests/"+byUUID.ID, `{"uuid":"44444444-4444-4444-8444-444444444444"}`, eku.headers()...),
		"Uuid", fmt.Sprintf(downloadrequests.MsgUnchangeable, "Uuid", "33333333-3333-4333-8333-333333333333"))

	done := finish(t, f, eku, byUUID.ID)
	if done.InvoiceCount != 1 || len(done.PackageIDs) != 1 {
		t.Errorf("completed: %+v", done)
	}
	xs := xmlsOf(t, f, eku, byUUID.ID)
	if len(xs) != 1 || xs[0].InvoiceUUID != "33333333-3333-4333-8333-333333333333" || xs[0].XMLRecipient.Tin != "EKU9003173C9" {
		t.Errorf("xmls: %+v", xs)
	}
	if raw := rawRequestOf(t, f, eku, byUUID.ID); !strings.Contains(raw, "SolicitaDescargaFolio") || !strings.Contains(raw, `Folio="33333333-3333-4333-8333-333333333333"`) ||
		strings.Contains(raw, "FechaInicial") || strings.Contains(raw, "TipoSolicitud") {
		t.Errorf("raw request: %s", raw)
	}

	// a CFDI the requester neither issued nor received: nothing found
	other := requestOf(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"CFDI","uuid":"44444444-4444-4444-8444-444444444444"}`))
	if got := finish(t, f, eku, other.ID); got.InvoiceCount != 0 || len(xmlsOf(t, f, eku, other.ID)) != 0 {
		t.Errorf("another's CFDI: %+v", got)
	}
}

// TestDownloadOnBehalfAgainstLocalSAT: the timbra extension onBehalfTin is SAT's
// RfcACuentaTerceros: of January's two received CFDIs only the one with a concept on behalf of
// that RFC comes; a malformed RFC is refused.
func TestDownloadOnBehalfAgainstLocalSAT(t *testing.T) {
	dir := t.TempDir()
	writeSATCFDI(t, dir, "55555555-5555-4555-8555-555555555555", "AAA010101AAA", "EKU9003173C9", "2024-01-10T08:00:00")
	writeSATCFDI(t, dir, "66666666-6666-4666-8666-666666666666", "AAA010101AAA", "EKU9003173C9", "2024-01-11T08:00:00")
	p := filepath.Join(dir, "55555555-5555-4555-8555-555555555555.xml")
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte("  <cfdi:Impuestos"), []byte(`  <cfdi:Conceptos><cfdi:Concepto ClaveProdServ="01010101" Cantidad="1" ClaveUnidad="H87" Descripcion="x" ValorUnitario="100.00" Importe="100.00" ObjetoImp="02">`+
		`<cfdi:ACuentaTerceros RfcACuentaTerceros="CACX7605101P8" NombreACuentaTerceros="TERCERO" RegimenFiscalACuentaTerceros="601" DomicilioFiscalACuentaTerceros="42501"/></cfdi:Concepto></cfdi:Conceptos>
  <cfdi:Impuestos`), 1)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, eku := localSATFixture(t, dir)
	post := func(body string) result { return f.do("POST", "/api/v4/download-requests", body, eku.headers()...) }
	const received = `"startDate":"2024-01-01","endDate":"2024-02-01","requesterTin":"EKU9003173C9","downloadTypeId":"Recibidos","satQueryTypeId":"CFDI","satInvoiceStatusId":"Vigente"`

	expectFailure(t, post(`{`+received+`,"onBehalfTin":"CACX76051"}`), "OnBehalfTin", "El RFC 'CACX76051' no tiene un formato válido.")

	r := requestOf(t, post(`{`+received+`,"onBehalfTin":"cacx7605101p8"}`))
	if r.OnBehalfTin == nil || *r.OnBehalfTin != "CACX7605101P8" {
		t.Fatalf("created: %+v", r)
	}
	if done := finish(t, f, eku, r.ID); done.InvoiceCount != 1 {
		t.Errorf("completed: %+v", done)
	}
	if xs := xmlsOf(t, f, eku, r.ID); len(xs) != 1 || xs[0].InvoiceUUID != "55555555-5555-4555-8555-555555555555" {
		t.Errorf("xmls: %+v", xs)
	}
	if raw := rawRequestOf(t, f, eku, r.ID); !strings.Contains(raw, `RfcACuentaTerceros="CACX7605101P8"`) {
		t.Errorf("raw request: %s", raw)
	}
	// without the filter, both
	all := requestOf(t, post(`{`+received+`}`))
	if done := finish(t, f, eku, all.ID); done.InvoiceCount != 2 || done.OnBehalfTin != nil {
		t.Errorf("without onBehalfTin: %+v", done)
	}
}

// TestDownloadRetencionesAgainstLocalSAT: satQueryTypeId Retenciones goes to SAT's service of
// withholding CFDIs (TipoSolicitud CFDI, v1.5): the issued and the received retenciones of
// January come, never a CFDI 4.0 of the same period, and /xmls shows each one's UUID, issuer,
// receiver, date and totals; one by its UUID too; what a retención does not have is refused.
func TestDownloadRetencionesAgainstLocalSAT(t *testing.T) {
	dir := t.TempDir()
	writeSATCFDI(t, dir, "11111111-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-05T10:00:00")
	for _, r := range []struct{ id, issuer, receiver, date string }{
		{"aaaaaaaa-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-10T12:00:00"},
		{"aaaaaaaa-2222-4222-8222-222222222222", "AAA010101AAA", "EKU9003173C9", "2024-01-11T12:00:00"},
	} {
		if err := os.WriteFile(filepath.Join(dir, r.id+".xml"), satwstest.Retenciones(r.id, r.issuer, r.receiver, r.date), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, eku := localSATFixture(t, dir)
	post := func(body string) result { return f.do("POST", "/api/v4/download-requests", body, eku.headers()...) }
	const period = `"startDate":"2024-01-01","endDate":"2024-02-01","requesterTin":"EKU9003173C9"`

	expectFailure(t, post(`{`+period+`,"downloadTypeId":"Emitidos","satQueryTypeId":"Retenciones","satInvoiceTypeId":"I"}`),
		"SatInvoiceTypeId", fmt.Sprintf(downloadrequests.MsgRetencionesNo, "satInvoiceTypeId"))
	expectFailure(t, post(`{`+period+`,"downloadTypeId":"Recibidos","satQueryTypeId":"Retenciones"}`), "SatInvoiceStatusId", downloadrequests.MsgReceivedXML)

	issued := requestOf(t, post(`{`+period+`,"downloadTypeId":"Emitidos","satQueryTypeId":"Retenciones"}`))
	received := requestOf(t, post(`{`+period+`,"downloadTypeId":"Recibidos","satQueryTypeId":"Retenciones","satInvoiceStatusId":"Vigente"}`))
	byUUID := requestOf(t, post(`{"requesterTin":"EKU9003173C9","downloadTypeId":"Uuid","satQueryTypeId":"Retenciones","uuid":"aaaaaaaa-2222-4222-8222-222222222222"}`))
	if issued.SatQueryType == nil || issued.SatQueryType.ID != "Retenciones" {
		t.Errorf("created: %+v", issued)
	}
	for _, c := range []struct {
		id, uuid, issuer, receiver, date string
	}{
		{issued.ID, "AAAAAAAA-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-10T12:00:00"},
		{received.ID, "AAAAAAAA-2222-4222-8222-222222222222", "AAA010101AAA", "EKU9003173C9", "2024-01-11T12:00:00"},
		{byUUID.ID, "AAAAAAAA-2222-4222-8222-222222222222", "AAA010101AAA", "EKU9003173C9", "2024-01-11T12:00:00"},
	} {
		if done := finish(t, f, eku, c.id); done.InvoiceCount != 1 {
			t.Errorf("%s completed: %+v", c.uuid, done)
		}
		xs := xmlsOf(t, f, eku, c.id)
		if len(xs) != 1 {
			t.Fatalf("%s xmls: %+v", c.uuid, xs)
		}
		x := xs[0]
		content, _ := base64.StdEncoding.DecodeString(x.Base64Content)
		if x.InvoiceUUID != c.uuid || x.XMLIssuer.Tin != c.issuer || x.XMLRecipient.Tin != c.receiver || x.Date != c.date || x.Version != "2.0" ||
			x.Total != 1000 || x.TotalWithheldTaxes == nil || *x.TotalWithheldTaxes != 100 || x.Number == nil || *x.Number != "R-9" ||
			x.XMLIssuer.LegalName != "EMISOR RET" || x.XMLRecipient.ZipCode != "42501" || !bytes.Contains(content, []byte("retenciones:Retenciones")) {
			t.Errorf("%s xml: %+v", c.uuid, x)
		}
	}
	if raw := rawRequestOf(t, f, eku, issued.ID); !strings.Contains(raw, "SolicitaDescargaEmitidos") || !strings.Contains(raw, `TipoSolicitud="CFDI"`) {
		t.Errorf("raw request: %s", raw)
	}
	// the CFDI service: the CFDI 4.0 of January, not the retención
	cfdis := requestOf(t, post(`{`+period+`,"downloadTypeId":"Emitidos","satQueryTypeId":"CFDI"}`))
	finish(t, f, eku, cfdis.ID)
	if xs := xmlsOf(t, f, eku, cfdis.ID); len(xs) != 1 || xs[0].InvoiceUUID != "11111111-1111-4111-8111-111111111111" {
		t.Errorf("CFDI xmls: %+v", xs)
	}
}
