package satlocal_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
)

const me = "EKU9003173C9"

// writeCFDI writes a stamped CFDI with the fields the local SAT reads.
func writeCFDI(t *testing.T, dir, uuid, issuer, receiver, typ, date string) {
	t.Helper()
	x := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Fecha="%s" Total="116.00" TipoDeComprobante="%s">
  <cfdi:Emisor Rfc="%s" Nombre="EMISOR %s" RegimenFiscal="601"/>
  <cfdi:Receptor Rfc="%s" Nombre="RECEPTOR %s" UsoCFDI="G03"/>
  <cfdi:Conceptos><cfdi:Concepto ClaveProdServ="01010101" Cantidad="1" Descripcion="x" ValorUnitario="100" Importe="100" ObjetoImp="02"/></cfdi:Conceptos>
  <cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="%s" FechaTimbrado="%s" RfcProvCertif="SAT970701NN3"/></cfdi:Complemento>
</cfdi:Comprobante>`, date, typ, issuer, issuer, receiver, receiver, uuid, date)
	if err := os.WriteFile(filepath.Join(dir, uuid+".xml"), []byte(x), 0o600); err != nil {
		t.Fatal(err)
	}
}

// corpus: three issued by EKU9003173C9 in January 2024 (one cancelled, one a payment), one
// in March, two received.
func corpus(t *testing.T) string {
	dir := t.TempDir()
	writeCFDI(t, dir, "11111111-1111-4111-8111-111111111111", me, "AAA010101AAA", "I", "2024-01-05T10:00:00")
	writeCFDI(t, dir, "22222222-2222-4222-8222-222222222222", me, "XAXX010101000", "I", "2024-01-20T23:59:59")
	writeCFDI(t, dir, "33333333-3333-4333-8333-333333333333", me, "AAA010101AAA", "P", "2024-01-31T12:00:00")
	writeCFDI(t, dir, "44444444-4444-4444-8444-444444444444", me, "AAA010101AAA", "I", "2024-03-01T00:00:00")
	writeCFDI(t, dir, "55555555-5555-4555-8555-555555555555", "AAA010101AAA", me, "I", "2024-01-10T08:00:00")
	writeCFDI(t, dir, "66666666-6666-4666-8666-666666666666", "XIQB891116QE4", me, "E", "2024-01-11T08:00:00")
	os.WriteFile(filepath.Join(dir, satlocal.CancelledFile), []byte("22222222-2222-4222-8222-222222222222~2024-01-25 10:00:00\n"), 0o600)
	return dir
}

func start(t *testing.T, o satlocal.Options) (*satws.Client, *satlocal.Server, string) {
	t.Helper()
	if o.CFDIs == "" {
		o.CFDIs = corpus(t)
	}
	s, err := satlocal.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &satws.Client{HTTP: ts.Client(), Endpoints: satws.EndpointsAt(ts.URL), Credential: satwstest.EFirma(t)}, s, ts.URL
}

func day(s string) time.Time {
	t, _ := time.Parse(satws.DateFormat, s)
	return t
}

var january = satws.Query{Operation: satws.Issued, Requester: me, Issuer: me, Start: day("2024-01-01T00:00:00"), End: day("2024-01-31T23:59:59")}

var fast = satws.Backoff{Initial: 5 * time.Millisecond, Max: 20 * time.Millisecond, Factor: 2}

func unzip(t *testing.T, b []byte) map[string]string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range z.File {
		r, _ := f.Open()
		c, _ := io.ReadAll(r)
		r.Close()
		out[f.Name] = string(c)
	}
	return out
}

// TestIssuedCFDIsEndToEnd: the client, signing with SAT's test e.firma, authenticates, asks
// for January's issued CFDIs, waits through accepted and in progress, and downloads the
// packages: the vigente CFDIs of the period, as <uuid>.xml files byte for byte.
func TestIssuedCFDIsEndToEnd(t *testing.T) {
	c, _, _ := start(t, satlocal.Options{Delay: 60 * time.Millisecond, PackageSize: 1})
	ctx := context.Background()
	q := january
	q.RequestType = satws.RequestCFDI
	q.Status = satws.StatusActive
	res, err := c.Query(ctx, q)
	if err != nil || !res.Accepted() || res.RequestID == "" || res.Requester != me {
		t.Fatalf("query: %+v %v", res, err)
	}
	v, err := c.Verify(ctx, res.RequestID)
	if err != nil || !v.Pending() {
		t.Fatalf("verify at once: %+v %v", v, err)
	}
	v, err = c.Wait(ctx, res.RequestID, fast)
	if err != nil || v.State != satws.StateFinished || v.StateCode != satws.CodeAccepted || v.Count != 2 || len(v.PackageIDs) != 2 {
		t.Fatalf("wait: %+v %v", v, err)
	}
	var got []string
	for _, id := range v.PackageIDs {
		if !strings.HasPrefix(id, res.RequestID+"_0") {
			t.Errorf("package id %s", id)
		}
		var buf bytes.Buffer
		d, err := c.Download(ctx, id, &buf)
		if err != nil || d.Code != satws.CodeAccepted || d.Bytes != int64(buf.Len()) {
			t.Fatalf("download %s: %+v %v", id, d, err)
		}
		for name, content := range unzip(t, buf.Bytes()) {
			got = append(got, name)
			if !strings.Contains(content, strings.ToUpper(strings.TrimSuffix(name, ".xml"))) {
				t.Errorf("%s does not hold its CFDI", name)
			}
		}
	}
	slices.Sort(got)
	if want := []string{"11111111-1111-4111-8111-111111111111.xml", "33333333-3333-4333-8333-333333333333.xml"}; !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	// twice per package, then 5008
	var sink bytes.Buffer
	c.Download(ctx, v.PackageIDs[0], &sink)
	if d, err := c.Download(ctx, v.PackageIDs[0], &sink); err != nil || d.Code != satws.CodeDownloadsExceeded {
		t.Errorf("third download: %+v %v", d, err)
	}
	if d, err := c.Download(ctx, "nope_01", &sink); err != nil || d.Code != satws.CodeNotFound {
		t.Errorf("unknown package: %+v %v", d, err)
	}
}

// TestMetadataEndToEnd: received metadata with every status: the metadata file's header and
// lines, CRLF, the cancelled one with status 0 and its date.
func TestMetadataEndToEnd(t *testing.T) {
	c, _, _ := start(t, satlocal.Options{})
	ctx := context.Background()
	q := satws.Query{Operation: satws.Received, Requester: me, Receiver: me, Start: day("2024-01-01T00:00:00"), End: day("2024-02-01T00:00:00"),
		RequestType: satws.RequestMetadata, Status: satws.StatusAll}
	res, err := c.Query(ctx, q)
	if err != nil || !res.Accepted() {
		t.Fatalf("query: %+v %v", res, err)
	}
	v, err := c.Wait(ctx, res.RequestID, fast)
	if err != nil || v.Count != 2 || len(v.PackageIDs) != 1 {
		t.Fatalf("wait: %+v %v", v, err)
	}
	var buf bytes.Buffer
	if _, err := c.Download(ctx, v.PackageIDs[0], &buf); err != nil {
		t.Fatal(err)
	}
	files := unzip(t, buf.Bytes())
	txt, ok := files[v.PackageIDs[0]+".txt"]
	if !ok {
		t.Fatalf("files %v", files)
	}
	lines := strings.Split(strings.TrimSuffix(txt, "\r\n"), "\r\n")
	if len(lines) != 3 || lines[0] != satlocal.MetadataHeader {
		t.Fatalf("metadata %q", txt)
	}
	if want := "55555555-5555-4555-8555-555555555555~AAA010101AAA~EMISOR AAA010101AAA~EKU9003173C9~RECEPTOR EKU9003173C9~SAT970701NN3~2024-01-10 08:00:00~2024-01-10 08:00:00~116.00~I~1~"; !slices.Contains(lines, want) {
		t.Errorf("no line %q in %q", want, lines)
	}

	// issued metadata of the cancelled ones only
	q = january
	q.RequestType, q.Status = satws.RequestMetadata, satws.StatusCancelled
	res, _ = c.Query(ctx, q)
	v, _ = c.Wait(ctx, res.RequestID, fast)
	buf.Reset()
	c.Download(ctx, v.PackageIDs[0], &buf)
	if txt := unzip(t, buf.Bytes())[v.PackageIDs[0]+".txt"]; !strings.Contains(txt, "22222222-2222-4222-8222-222222222222~EKU9003173C9~EMISOR EKU9003173C9~XAXX010101000~RECEPTOR XAXX010101000~SAT970701NN3~2024-01-20 23:59:59~2024-01-20 23:59:59~116.00~I~0~2024-01-25 10:00:00\r\n") || v.Count != 1 {
		t.Errorf("cancelled metadata %+v %q", v, txt)
	}
}

// TestQueryRules: SAT's answers to what it refuses.
func TestQueryRules(t *testing.T) {
	c, _, _ := start(t, satlocal.Options{Delay: time.Hour})
	ctx := context.Background()
	q := satws.Query{Operation: satws.Received, Requester: me, Receiver: me, Start: day("2024-01-01T00:00:00"), End: day("2024-02-01T00:00:00"),
		RequestType: satws.RequestCFDI, Status: satws.StatusAll}
	if res, err := c.Query(ctx, q); err != nil || res.Code != satws.CodeMalformedXML || !strings.Contains(res.Message, "cancelados") {
		t.Errorf("received XML with every status: %+v %v", res, err)
	}
	q.Status = satws.StatusActive
	q.Start = time.Now().AddDate(-7, 0, 0)
	if res, _ := c.Query(ctx, q); res.Code != satws.CodeMalformedXML {
		t.Errorf("seven years back: %+v", res)
	}
	q.Start = day("2024-01-01T00:00:00")
	if res, _ := c.Query(ctx, q); !res.Accepted() {
		t.Fatalf("a good query: %+v", res)
	}
	if res, _ := c.Query(ctx, q); res.Code != satws.CodeDuplicate {
		t.Errorf("the same while active: %+v", res)
	}
	other := satws.Query{Operation: satws.Issued, Requester: me, Issuer: "AAA010101AAA", Start: q.Start, End: q.End, RequestType: satws.RequestCFDI}
	if res, _ := c.Query(ctx, other); res.Code != satws.CodeSignatureRFC {
		t.Errorf("issued by another RFC: %+v", res)
	}
	if v, _ := c.Verify(ctx, "00000000-0000-4000-8000-000000000000"); v.Code != satws.CodeNotFound {
		t.Errorf("unknown request: %+v", v)
	}
}

// TestSignaturesAndCertificates: a CSD is refused with 305 (after an authentication SAT lets
// through), a changed message with 302, a missing token with 300, a bad authentication with
// SAT's fault.
func TestSignaturesAndCertificates(t *testing.T) {
	c, _, base := start(t, satlocal.Options{})
	ctx := context.Background()
	cer, key, pw := satwstest.CSD(t)
	cert, _ := csd.ParseCertificate(cer)
	k, err := csd.ParsePrivateKey(key, pw)
	if err != nil {
		t.Fatal(err)
	}
	csdClient := &satws.Client{HTTP: c.HTTP, Endpoints: c.Endpoints, Credential: &satws.Credential{Cert: cert, Key: k}}
	q := january
	q.RequestType = satws.RequestMetadata
	if res, err := csdClient.Query(ctx, q); err != nil || res.Code != satws.CodeInvalidCertificate {
		t.Errorf("CSD: %+v %v", res, err)
	}

	tok, err := c.Authenticate(ctx)
	if err != nil || tok.Value == "" || !tok.Expires.After(time.Now()) {
		t.Fatalf("authenticate: %+v %v", tok, err)
	}
	msg, _ := c.Credential.QueryMessage(q)
	post := func(m []byte, token string) string {
		req, _ := http.NewRequest(http.MethodPost, base+satws.PathQuery, bytes.NewReader(m))
		req.Header.Set("SOAPAction", `"`+satws.ActionIssued+`"`)
		if token != "" {
			req.Header.Set("Authorization", `WRAP access_token="`+token+`"`)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if a := post(msg, tok.Value); !strings.Contains(a, `CodEstatus="5000"`) {
		t.Errorf("the message as signed: %s", a)
	}
	changed := bytes.Replace(msg, []byte(`TipoSolicitud="Metadata"`), []byte(`TipoSolicitud="CFDI"`), 1)
	if a := post(changed, tok.Value); !strings.Contains(a, `CodEstatus="302"`) {
		t.Errorf("a changed message: %s", a)
	}
	if a := post(msg, ""); !strings.Contains(a, `CodEstatus="300"`) {
		t.Errorf("no token: %s", a)
	}
	auth, _ := c.Credential.AuthenticateMessage(time.Now(), "")
	auth = bytes.Replace(auth, []byte("<u:Created>"), []byte("<u:Created>1"), 1)
	req, _ := http.NewRequest(http.MethodPost, base+satws.PathAuthenticate, bytes.NewReader(auth))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(b), "a:InvalidSecurity") {
		t.Errorf("a changed authentication: %d %s", resp.StatusCode, b)
	}
}

// TestForcedCodes: --code makes the service answer SAT's codes; Wait retries SAT's 404 and
// answers a rejection.
func TestForcedCodes(t *testing.T) {
	codes := []satlocal.Code{}
	for _, s := range []string{"verify=404x2", "query=5002x1", "auth=300x1"} {
		c, err := satlocal.ParseCode(s)
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, c)
	}
	c, _, _ := start(t, satlocal.Options{Codes: codes})
	ctx := context.Background()
	q := january
	q.RequestType = satws.RequestMetadata
	var f *satws.Fault
	if _, err := c.Query(ctx, q); !errors.As(err, &f) || f.Code != "a:InvalidSecurity" {
		t.Fatalf("forced auth: %v", err)
	}
	if res, err := c.Query(ctx, q); err != nil || res.Code != satws.CodeExhausted {
		t.Errorf("forced query: %+v %v", res, err)
	}
	res, _ := c.Query(ctx, q)
	v, err := c.Wait(ctx, res.RequestID, fast)
	if err != nil || v.State != satws.StateFinished || v.Count != 3 {
		t.Errorf("wait through two 404s: %+v %v", v, err)
	}
	for _, bad := range []string{"x=1", "query", "query=abc", "verify=404x0"} {
		if _, err := satlocal.ParseCode(bad); err == nil {
			t.Errorf("ParseCode(%q) passed", bad)
		}
	}
}
