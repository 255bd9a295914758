package satlocal_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
)

// files runs a query to its end and answers the names of the files of its packages.
func files(t *testing.T, c *satws.Client, q satws.Query) (satws.VerifyResult, []string) {
	t.Helper()
	ctx := context.Background()
	res, err := c.Query(ctx, q)
	if err != nil || !res.Accepted() {
		t.Fatalf("query %+v: %+v %v", q, res, err)
	}
	v, err := c.Wait(ctx, res.RequestID, fast)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, id := range v.PackageIDs {
		var buf bytes.Buffer
		if d, err := c.Download(ctx, id, &buf); err != nil || d.Code != satws.CodeAccepted {
			t.Fatalf("download %s: %+v %v", id, d, err)
		}
		for name := range unzip(t, buf.Bytes()) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return v, names
}

// TestByUUID: SolicitaDescargaFolio gives the one CFDI of that UUID when the requester issued
// or received it; another's CFDI, or an unknown UUID, finishes with 5004; a cancelled one is
// refused with 5012; a malformed Folio with 301.
func TestByUUID(t *testing.T) {
	dir := corpus(t)
	writeCFDI(t, dir, "77777777-7777-4777-8777-777777777777", "AAA010101AAA", "XAXX010101000", "I", "2024-01-10T08:00:00")
	c, _, _ := start(t, satlocal.Options{CFDIs: dir})
	ctx := context.Background()
	for _, id := range []string{"11111111-1111-4111-8111-111111111111", "55555555-5555-4555-8555-555555555555"} { // issued, received
		v, names := files(t, c, satws.Query{Operation: satws.ByUUID, Requester: me, UUID: strings.ToLower(id)})
		if v.Count != 1 || !slices.Equal(names, []string{id + ".xml"}) {
			t.Errorf("by UUID %s: %+v %v", id, v, names)
		}
	}
	for _, id := range []string{"77777777-7777-4777-8777-777777777777", "99999999-9999-4999-8999-999999999999"} { // another's, unknown
		res, err := c.Query(ctx, satws.Query{Operation: satws.ByUUID, Requester: me, UUID: id})
		if err != nil || !res.Accepted() {
			t.Fatalf("query %s: %+v %v", id, res, err)
		}
		if v, _ := c.Wait(ctx, res.RequestID, fast); v.State != satws.StateRejected || v.StateCode != satws.CodeNotFound {
			t.Errorf("by UUID %s: %+v", id, v)
		}
	}
	if res, _ := c.Query(ctx, satws.Query{Operation: satws.ByUUID, Requester: me, UUID: "22222222-2222-4222-8222-222222222222"}); res.Code != satws.CodeCancelledXML {
		t.Errorf("a cancelled CFDI: %+v", res)
	}
	if res, _ := c.Query(ctx, satws.Query{Operation: satws.ByUUID, Requester: me, UUID: "not-a-uuid"}); res.Code != satws.CodeMalformedXML {
		t.Errorf("a malformed Folio: %+v", res)
	}
}

// TestOnBehalf: RfcACuentaTerceros keeps the CFDIs with a concept on behalf of that RFC
// (cfdi:Concepto/cfdi:ACuentaTerceros), issued or received; the metadata's _tercero file names
// it.
func TestOnBehalf(t *testing.T) {
	dir := corpus(t)
	p := filepath.Join(dir, "55555555-5555-4555-8555-555555555555.xml")
	b, _ := os.ReadFile(p)
	b = bytes.Replace(b, []byte(`ObjetoImp="02"/>`), []byte(`ObjetoImp="02"><cfdi:ACuentaTerceros RfcACuentaTerceros="CACX7605101P8" NombreACuentaTerceros="TERCERO" RegimenFiscalACuentaTerceros="601" DomicilioFiscalACuentaTerceros="42501"/></cfdi:Concepto>`), 1)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, _ := start(t, satlocal.Options{CFDIs: dir})
	received := satws.Query{Operation: satws.Received, Requester: me, Receiver: me, Start: day("2024-01-01T00:00:00"), End: day("2024-02-01T00:00:00"),
		RequestType: satws.RequestCFDI, Status: satws.StatusActive, OnBehalf: "cacx7605101p8"}
	if v, names := files(t, c, received); v.Count != 1 || !slices.Equal(names, []string{"55555555-5555-4555-8555-555555555555.xml"}) {
		t.Errorf("received on behalf: %+v %v", v, names)
	}
	received.RequestType, received.Status = satws.RequestMetadata, satws.StatusAll
	res, _ := c.Query(context.Background(), received)
	v, _ := c.Wait(context.Background(), res.RequestID, fast)
	var buf bytes.Buffer
	c.Download(context.Background(), v.PackageIDs[0], &buf)
	if got := unzip(t, buf.Bytes())[v.PackageIDs[0]+"_tercero.txt"]; got != "Uuid~RfcACuentaTerceros~NombreACuentaTerceros\r\n55555555-5555-4555-8555-555555555555~CACX7605101P8~TERCERO\r\n" {
		t.Errorf("_tercero file %q", got)
	}
	issued := january
	issued.RequestType, issued.OnBehalf = satws.RequestCFDI, "CACX7605101P8"
	res, _ = c.Query(context.Background(), issued)
	if v, _ := c.Wait(context.Background(), res.RequestID, fast); v.State != satws.StateRejected || v.StateCode != satws.CodeNotFound {
		t.Errorf("issued on behalf of someone no CFDI names: %+v", v)
	}
}

// TestRetencionesService: the withholding CFDIs of the folder are served under
// RetencionesPath only (issued, received, by UUID); the CFDI service never gives them, and a
// token of one service is not taken by the other.
func TestRetencionesService(t *testing.T) {
	dir := corpus(t)
	for _, r := range []struct{ id, issuer, receiver, date string }{
		{"aaaaaaaa-1111-4111-8111-111111111111", me, "AAA010101AAA", "2024-01-10T12:00:00"},
		{"aaaaaaaa-2222-4222-8222-222222222222", "AAA010101AAA", me, "2024-01-11T12:00:00"},
		{"aaaaaaaa-3333-4333-8333-333333333333", me, "AAA010101AAA", "2024-03-10T12:00:00"},
	} {
		if err := os.WriteFile(filepath.Join(dir, r.id+".xml"), satwstest.Retenciones(r.id, r.issuer, r.receiver, r.date), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, s, base := start(t, satlocal.Options{CFDIs: dir})
	if all, ret := s.CFDIs(); all != 9 || ret != 3 {
		t.Errorf("CFDIs: %d, retenciones %d", all, ret)
	}
	ret := &satws.Client{HTTP: c.HTTP, Endpoints: satws.EndpointsAt(base + satlocal.RetencionesPath), Credential: c.Credential}

	issued := january
	issued.RequestType = satws.RequestCFDI
	if v, names := files(t, ret, issued); v.Count != 1 || !slices.Equal(names, []string{"aaaaaaaa-1111-4111-8111-111111111111.xml"}) {
		t.Errorf("issued retenciones: %+v %v", v, names)
	}
	received := satws.Query{Operation: satws.Received, Requester: me, Receiver: me, Start: day("2024-01-01T00:00:00"), End: day("2024-02-01T00:00:00"),
		RequestType: satws.RequestCFDI, Status: satws.StatusActive}
	if v, names := files(t, ret, received); v.Count != 1 || !slices.Equal(names, []string{"aaaaaaaa-2222-4222-8222-222222222222.xml"}) {
		t.Errorf("received retenciones: %+v %v", v, names)
	}
	if v, names := files(t, ret, satws.Query{Operation: satws.ByUUID, Requester: me, UUID: "AAAAAAAA-3333-4333-8333-333333333333"}); v.Count != 1 || len(names) != 1 {
		t.Errorf("a retención by UUID: %+v %v", v, names)
	}
	// the CFDI service: its own CFDIs only (every status)
	if _, names := files(t, c, issued); !slices.Equal(names, []string{"11111111-1111-4111-8111-111111111111.xml", "22222222-2222-4222-8222-222222222222.xml", "33333333-3333-4333-8333-333333333333.xml"}) {
		t.Errorf("issued CFDIs: %v", names)
	}
	ctx := context.Background()
	res, _ := c.Query(ctx, satws.Query{Operation: satws.ByUUID, Requester: me, UUID: "aaaaaaaa-3333-4333-8333-333333333333"})
	if v, _ := c.Wait(ctx, res.RequestID, fast); v.StateCode != satws.CodeNotFound {
		t.Errorf("a retención by UUID at the CFDI service: %+v", v)
	}
	// a request id of one service is unknown at the other
	if v, _ := ret.Verify(ctx, res.RequestID); v.Code != satws.CodeNotFound {
		t.Errorf("the CFDI service's request at the retenciones one: %+v", v)
	}
	// a token of the CFDI service at the retenciones one
	tok, err := c.Authenticate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := c.Credential.QueryMessage(issued)
	req, _ := http.NewRequest(http.MethodPost, base+satlocal.RetencionesPath+satws.PathQuery, bytes.NewReader(msg))
	req.Header.Set("SOAPAction", satws.ActionIssued)
	req.Header.Set("Authorization", `WRAP access_token="`+tok.Value+`"`)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `CodEstatus="300"`) {
		t.Errorf("a CFDI token at the retenciones service: %s", body)
	}
}

// TestComplementCodes: the Complemento filter takes SAT's codes (descarga-masiva.md §3), which
// are not always the element's name and version (donat11, leyendasfisc, ecc12, planesderetiro11,
// serviciosplataformastecnologicas10): a CFDI with Donatarias 1.1 is found by donat11, not by
// donatarias11; one with a concept's complement by its code (iedu); a withholding CFDI by each
// of its complements' codes.
func TestComplementCodes(t *testing.T) {
	dir := t.TempDir()
	complements := map[string]string{
		"11111111-1111-4111-8111-111111111111": `<donat:Donatarias xmlns:donat="http://www.sat.gob.mx/donat" version="1.1" noAutorizacion="1" fechaAutorizacion="2020-01-01" leyenda="x"/>`,
		"22222222-2222-4222-8222-222222222222": `<leyendasFisc:LeyendasFiscales xmlns:leyendasFisc="http://www.sat.gob.mx/leyendasFiscales" version="1.0"/>`,
		"33333333-3333-4333-8333-333333333333": `<ecc12:EstadoDeCuentaCombustible xmlns:ecc12="http://www.sat.gob.mx/EstadoDeCuentaCombustible12" Version="1.2"/>`,
		"44444444-4444-4444-8444-444444444444": `<pago20:Pagos xmlns:pago20="http://www.sat.gob.mx/Pagos20" Version="2.0"/><implocal:ImpuestosLocales xmlns:implocal="http://www.sat.gob.mx/implocal" version="1.0"/>`,
	}
	for id, x := range complements {
		writeCFDI(t, dir, id, me, "AAA010101AAA", "I", "2024-01-10T08:00:00")
		p := filepath.Join(dir, id+".xml")
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, bytes.Replace(b, []byte("<tfd:TimbreFiscalDigital"), []byte(x+"<tfd:TimbreFiscalDigital"), 1), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for id, x := range map[string]string{
		"aaaaaaaa-1111-4111-8111-111111111111": `<plataformas:ServiciosPlataformasTecnologicas xmlns:plataformas="http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10" Version="1.0"/>`,
		"aaaaaaaa-2222-4222-8222-222222222222": `<planesderetiro11:Planesderetiro xmlns:planesderetiro11="http://www.sat.gob.mx/esquemas/retencionpago/1/planesderetiro11" Version="1.1"/>`,
	} {
		b := bytes.Replace(satwstest.Retenciones(id, me, "AAA010101AAA", "2024-01-10T12:00:00"), []byte("<tfd:TimbreFiscalDigital"), []byte(x+"<tfd:TimbreFiscalDigital"), 1)
		if err := os.WriteFile(filepath.Join(dir, id+".xml"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// a concept's complement: Instituciones educativas privadas in one concept, twice
	writeCFDI(t, dir, "55555555-5555-4555-8555-555555555555", me, "AAA010101AAA", "I", "2024-01-10T08:00:00")
	p := filepath.Join(dir, "55555555-5555-4555-8555-555555555555.xml")
	b, _ := os.ReadFile(p)
	iedu := `<cfdi:ComplementoConcepto><iedu:instEducativas xmlns:iedu="http://www.sat.gob.mx/iedu" version="1.0"/><iedu:instEducativas xmlns:iedu="http://www.sat.gob.mx/iedu" version="1.0"/></cfdi:ComplementoConcepto>`
	if err := os.WriteFile(p, bytes.Replace(b, []byte(`ObjetoImp="02"/>`), []byte(`ObjetoImp="02">`+iedu+`</cfdi:Concepto>`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	c, s, base := start(t, satlocal.Options{CFDIs: dir})
	if all, _ := s.CFDIs(); all != 7 {
		t.Fatalf("CFDIs: %d, want 7", all)
	}
	ret := &satws.Client{HTTP: c.HTTP, Endpoints: satws.EndpointsAt(base + satlocal.RetencionesPath), Credential: c.Credential}
	ctx := context.Background()
	for _, tc := range []struct {
		client *satws.Client
		code   string
		want   []string // the files found; none: finished with 5004
	}{
		{c, "donat11", []string{"11111111-1111-4111-8111-111111111111.xml"}},
		{c, "donatarias11", nil},
		{c, "leyendasfisc", []string{"22222222-2222-4222-8222-222222222222.xml"}},
		{c, "ecc12", []string{"33333333-3333-4333-8333-333333333333.xml"}},
		{c, "pagos20", []string{"44444444-4444-4444-8444-444444444444.xml"}},
		{c, "implocal", []string{"44444444-4444-4444-8444-444444444444.xml"}},
		{c, "iedu", []string{"55555555-5555-4555-8555-555555555555.xml"}},
		{ret, "serviciosplataformastecnologicas10", []string{"aaaaaaaa-1111-4111-8111-111111111111.xml"}},
		{ret, "planesderetiro11", []string{"aaaaaaaa-2222-4222-8222-222222222222.xml"}},
		{ret, "planesderetiro", nil},
		{ret, "intereses", []string{"aaaaaaaa-1111-4111-8111-111111111111.xml", "aaaaaaaa-2222-4222-8222-222222222222.xml"}},
	} {
		q := january
		q.RequestType, q.Complement = satws.RequestCFDI, tc.code
		if tc.want == nil {
			res, err := tc.client.Query(ctx, q)
			if err != nil || !res.Accepted() {
				t.Fatalf("query %s: %+v %v", tc.code, res, err)
			}
			if v, _ := tc.client.Wait(ctx, res.RequestID, fast); v.State != satws.StateRejected || v.StateCode != satws.CodeNotFound {
				t.Errorf("complement %s: state %d (%d), %d CFDIs; want none", tc.code, v.State, v.StateCode, v.Count)
			}
			continue
		}
		if _, names := files(t, tc.client, q); !slices.Equal(names, tc.want) {
			t.Errorf("complement %s: %v, want %v", tc.code, names, tc.want)
		}
	}
}
