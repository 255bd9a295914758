package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/invoices/invoicetest"
	"github.com/timbra-mx/timbra/internal/validations"
	"github.com/timbra-mx/timbra/storage"
)

// stampingCertificateOf reads GET /api/v4/stamping-certificate and parses its certificate.
func stampingCertificateOf(t *testing.T, f *fixture) (api.StampingCertificate, *csd.Certificate) {
	t.Helper()
	r := f.do("GET", "/api/v4/stamping-certificate", "")
	var sc api.StampingCertificate
	if r.status != 200 || json.Unmarshal(r.env.Data, &sc) != nil {
		t.Fatalf("stamping certificate: %s", r.raw)
	}
	der, err := base64.StdEncoding.DecodeString(sc.Base64Certificate)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := csd.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Number != sc.CertificateNumber || invoices.ProviderRFC(cert) != sc.Tin || cert.Name != sc.LegalName ||
		api.FormatAudit(cert.ValidFrom) != sc.ValidFrom || api.FormatAudit(cert.ValidTo) != sc.ValidTo {
		t.Fatalf("the answer's fields do not describe its certificate: %+v", sc)
	}
	return sc, cert
}

// stampedXML is the stamped XML of an invoice answer and its Timbre Fiscal Digital, the SelloSAT
// verified with cert (and the cadenas with SAT's XSLT when present).
func stampedXML(t *testing.T, inv api.Invoice, cert *csd.Certificate) (xml []byte, tfd *stampFields) {
	t.Helper()
	xml, err := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := invoicetest.Verify(t, xml, cert, sharedSat)
	d := doc.TFD()
	return xml, &stampFields{number: d.NoCertificadoSAT, rfc: d.RfcProvCertif}
}

type stampFields struct{ number, rfc string }

// productionInvoiceFixture is a production server (its clock at a time SAT's test CSD is valid)
// with the mini catalogs and a member holding stamps.
func productionInvoiceFixture(t *testing.T, clk *clock) (*fixture, member) {
	t.Helper()
	f := newFixture(t, func(c *Config) { c.Environment, c.Now = accounts.EnvProduction, clk.Now })
	withMiniCatalogs(t, f)
	return f, addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "stamper@example.com", storage.Balance{CreditType: 1, Available: 5})
}

// installPAC settles the stamping identity of the fixture's database as `timbra server` does at
// start, before any stamp.
func installPAC(t *testing.T, f *fixture, env string, cer, key []byte, password string, now time.Time) {
	t.Helper()
	pac, err := invoices.OpenPAC(cer, key, []byte(password), now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := invoices.InstallPAC(context.Background(), f.srv.accounts.Store, f.srv.invoices.Keys, env, pac, now); err != nil {
		t.Fatal(err)
	}
}

// TestProductionStampsWithTheOperatorsCertificate: production never stamps with a certificate of
// its own (503, no stamp used) and answers no stamping certificate until the operator gave one;
// then its stamps name the operator's certificate (NoCertificadoSAT its number, RfcProvCertif its
// RFC), their SelloSAT verifies with the certificate GET /api/v4/stamping-certificate answers,
// and a stamp after the certificate's end is a 503 again.
func TestProductionStampsWithTheOperatorsCertificate(t *testing.T) {
	cer, key, password := realPair(t)
	clk := &clock{t: time.Date(2026, 3, 14, 18, 0, 0, 0, time.UTC)}
	f, m := productionInvoiceFixture(t, clk)

	r := f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...)
	if r.status != 503 || r.env.Details != invoices.MsgNoStampingCertificate {
		t.Fatalf("a production stamp without the operator's certificate: %s", r.raw)
	}
	if got := stampsOf(t, f, m.person); got != 5 {
		t.Fatalf("a refused stamp used a credit: %v left", got)
	}
	if r := f.do("GET", "/api/v4/stamping-certificate", ""); r.status != 503 || r.env.Details != invoices.MsgNoStampingCertificate {
		t.Fatalf("the stamping certificate of production without one: %s", r.raw)
	}

	installPAC(t, f, accounts.EnvProduction, cer, key, password, clk.Now())
	sc, cert := stampingCertificateOf(t, f)
	if sc.CertificateNumber != "30001000000500003416" || sc.Tin != "EKU9003173C9" || sc.Base64Certificate != base64.StdEncoding.EncodeToString(cer) ||
		sc.ValidTo != "2027-05-18T11:43:51.000" {
		t.Fatalf("the operator's certificate answered as %+v", sc)
	}
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	_, tfd := stampedXML(t, inv, cert)
	if tfd.number != "30001000000500003416" || tfd.rfc != "EKU9003173C9" || inv.Responses[0].SatCertificateNumber != tfd.number {
		t.Fatalf("stamped as %+v, answer's number %s", tfd, inv.Responses[0].SatCertificateNumber)
	}
	verifyAnswer(t, f, inv)

	// an operator's certificate that ends while the server runs stops its stamps
	short, err := csdtest.NewPair(csdtest.Options{RFC: "SPR190613I52", Key: csdtest.Keys(1, 2048)[0], NotBefore: clk.Now().Add(-time.Hour), NotAfter: clk.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	g := newFixture(t, func(c *Config) { c.Environment, c.Now = accounts.EnvProduction, clk.Now })
	withMiniCatalogs(t, g)
	gm := addMemberDirect(t, g, g.creds.TenantKey, g.creds.PersonID, "stamper@example.com", storage.Balance{CreditType: 1, Available: 5})
	installPAC(t, g, accounts.EnvProduction, short.Cer, short.Key, short.Password, clk.Now())
	inv = invoiceOf(t, g.do("POST", "/api/v4/invoices", empBody(byValue(t)), gm.headers()...))
	if _, tfd := stampedXML(t, inv, short.Cert); tfd.number != short.Number || tfd.rfc != "SPR190613I52" {
		t.Fatalf("stamped as %+v", tfd)
	}
	clk.Add(2 * time.Hour)
	r = g.do("POST", "/api/v4/invoices", empBody(byValue(t)), gm.headers()...)
	if r.status != 503 || !strings.Contains(r.env.Details, "El certificado de sello del servidor ("+short.Number+") no está vigente") {
		t.Fatalf("a stamp after the stamping certificate's end: %s", r.raw)
	}
	if got := stampsOf(t, g, gm.person); got != 4 {
		t.Fatalf("credits left %v, want 4", got)
	}
}

// restart is a new server over the fixture's database and keys (a restart of the process: no
// identity held in memory), with the fixture's tenant.
func restart(t *testing.T, f *fixture) *fixture {
	t.Helper()
	s, err := New(Config{Environment: f.srv.cfg.Environment, AdminToken: "op-token", Logger: f.srv.log, Now: f.srv.cfg.Now}, f.srv.accounts.Store, f.srv.invoices.Keys)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &fixture{t: t, srv: s, http: hs, creds: f.creds, logs: f.logs}
}

// TestStampingCertificateIsTheOneStampsUse: in the test environment the answer is the
// certificate stamps use, made on the first need when there is none yet; the operator's one
// given at a later start replaces it, and the stamps of the replaced certificate stay the
// server's (their SelloSAT trusted and their status its own in production validations).
func TestStampingCertificateIsTheOneStampsUse(t *testing.T) {
	cer, key, password := realPair(t)
	clk := &clock{t: time.Date(2026, 3, 14, 18, 0, 0, 0, time.UTC)}
	f := newFixture(t, func(c *Config) { c.Now = clk.Now })
	withMiniCatalogs(t, f)
	m := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "stamper@example.com", storage.Balance{CreditType: 1, Available: 5})

	sc, generated := stampingCertificateOf(t, f)
	if sc.Tin != invoices.RfcProvCertif || len(sc.CertificateNumber) != 20 {
		t.Fatalf("the generated certificate: %+v", sc)
	}
	if again, _ := stampingCertificateOf(t, f); again != sc {
		t.Fatalf("a second read answered another certificate: %+v", again)
	}
	old := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	if _, tfd := stampedXML(t, old, generated); tfd.number != sc.CertificateNumber || tfd.rfc != invoices.RfcProvCertif {
		t.Fatalf("stamped as %+v, the answer said %+v", tfd, sc)
	}

	installPAC(t, f, accounts.EnvTest, cer, key, password, clk.Now())
	f = restart(t, f)
	sc, operator := stampingCertificateOf(t, f)
	if sc.CertificateNumber != "30001000000500003416" {
		t.Fatalf("after the operator's: %+v", sc)
	}
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	if _, tfd := stampedXML(t, inv, operator); tfd.number != "30001000000500003416" || tfd.rfc != "EKU9003173C9" {
		t.Fatalf("stamped as %+v", tfd)
	}

	prod, err := validations.NewProduction(validations.Config{}, ownStampCertificate(f.srv.accounts.Store), f.srv.invoices)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.validations.Checker = prod
	for _, x := range []api.Invoice{old, inv} {
		r := f.do("POST", "/api/v4/sat-validations", mustJSON(t, map[string]any{"xml": x.Responses[0].InvoiceBase64,
			"validationTypes": []string{"sat.tfd.sello", "sat.cfdi.status"}}))
		var res []api.SatValidationResult
		if r.status != 200 || json.Unmarshal(r.env.Data, &res) != nil || len(res) != 2 {
			t.Fatalf("validate: %s", r.raw)
		}
		if res[0].Status.ID != "Valido" || res[1].Status.ID != "Vigente" {
			t.Errorf("stamp of %s: %s (%s), %s (%s)", x.Responses[0].SatCertificateNumber, res[0].Status.ID, deref(res[0].Status.Details), res[1].Status.ID, deref(res[1].Status.Details))
		}
	}
}
