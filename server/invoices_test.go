package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/invoices/invoicetest"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/storage"
)

// sharedSat is ../shared/sat from this package's folder (the XSLT oracles use it when present).
var sharedSat = testpaths.Shared("sat")

// invoiceFixture is a fixture with the mini SAT catalogs and a member of the tenant holding
// stamps, who makes the invoices.
func invoiceFixture(t *testing.T, stamps int) (*fixture, member) {
	t.Helper()
	f := newFixture(t)
	withMiniCatalogs(t, f)
	m := addMemberDirect(t, f, f.creds.TenantKey, f.creds.PersonID, "stamper@example.com", storage.Balance{CreditType: 1, Available: int64(stamps)})
	return f, m
}

// byValue is an income invoice by value with SAT's test CSD EKU9003173C9.
func byValue(t *testing.T) map[string]any {
	cer, key, password := realPair(t)
	return map[string]any{
		"versionCode": "4.0", "series": "F", "paymentFormCode": "01", "paymentMethodCode": "PUE",
		"currencyCode": "MXN", "typeCode": "I", "expeditionZipCode": "42501", "exportCode": "01",
		"paymentConditions": "Contado",
		"issuer": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "taxRegimeCode": "601",
			"taxCredentials": []any{
				map[string]any{"base64File": base64.StdEncoding.EncodeToString(cer), "fileType": 0, "password": password},
				map[string]any{"base64File": base64.StdEncoding.EncodeToString(key), "fileType": 1, "password": password},
			}},
		"recipient": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "zipCode": "42501",
			"taxRegimeCode": "601", "cfdiUseCode": "G01", "email": "someone@example.com"},
		"items": []any{
			map[string]any{"itemCode": "44121706", "quantity": 3, "unitOfMeasurementCode": "H87", "unitOfMeasurement": "Pieza",
				"description": "Lápiz de madera HB", "unitPrice": "12.505", "taxObjectCode": "02", "itemSku": "LAP-HB", "discount": 1.5,
				"itemTaxes": []any{
					map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T"},
					map[string]any{"taxCode": "001", "taxTypeCode": "Tasa", "taxRate": 0.1, "taxFlagCode": "R"},
				}},
			map[string]any{"itemCode": "01010101", "quantity": "2.5", "unitOfMeasurementCode": "KGM",
				"description": "Servicio exento", "unitPrice": 100, "taxObjectCode": "02",
				"itemTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Exento", "taxFlagCode": "T"}}},
		},
	}
}

func invoiceOf(t *testing.T, r result) api.Invoice {
	t.Helper()
	var inv api.Invoice
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &inv) != nil {
		t.Fatalf("want a stamped invoice, got %d %s", r.status, r.raw)
	}
	return inv
}

func stampsOf(t *testing.T, f *fixture, personID string) float64 {
	t.Helper()
	_, _, m := personBalances(t, f, personID)
	return m[1]
}

// verifyAnswer re-verifies the XML of an answer and checks that responses[0] says what it holds.
func verifyAnswer(t *testing.T, f *fixture, inv api.Invoice) *cfdi.Comprobante {
	t.Helper()
	if len(inv.Responses) != 1 {
		t.Fatalf("responses: %+v", inv.Responses)
	}
	resp := inv.Responses[0]
	xml, err := base64.StdEncoding.DecodeString(resp.InvoiceBase64)
	if err != nil {
		t.Fatal(err)
	}
	pac, err := f.srv.Invoices().PAC(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	doc, checked := invoicetest.Verify(t, xml, pac.Cert, sharedSat)
	if !checked.XSLT {
		t.Log("xsltproc or ../shared/sat missing: the cadenas were not compared with SAT's XSLT")
	}
	tfd := doc.TFD()
	cadena, _ := base64.StdEncoding.DecodeString(resp.SatBase64OriginalString)
	if resp.InvoiceUUID != tfd.UUID || inv.UUID != tfd.UUID || tfd.UUID != strings.ToUpper(tfd.UUID) || len(tfd.UUID) != 36 ||
		tfd.UUID[14] != '4' || resp.InvoiceCertificateNumber != doc.NoCertificado || resp.InvoiceBase64Sello != doc.Sello ||
		resp.SatBase64Sello != tfd.SelloSAT || string(cadena) != tfd.Cadena() || resp.SatCertificateNumber != pac.Cert.Number ||
		len(pac.Cert.Number) != 20 || tfd.RfcProvCertif != pac.RFC || resp.InvoiceID != inv.ID || resp.ID == "" {
		t.Fatalf("responses[0] does not describe the XML: %+v\nTFD %+v", resp, tfd)
	}
	qrURL, err := cfdi.QRURL(doc)
	if err != nil {
		t.Fatal(err)
	}
	wantQR, err := invoices.QRPNG(qrURL)
	if err != nil {
		t.Fatal(err)
	}
	if gotQR, err := base64.StdEncoding.DecodeString(resp.InvoiceBase64QrCode); err != nil || !bytes.Equal(gotQR, wantQR) {
		t.Fatalf("invoiceBase64QrCode is not the QR code of %s (%v)", qrURL, err)
	}
	if string(inv.Total) != doc.Total || string(inv.Subtotal) != doc.SubTotal {
		t.Fatalf("answer totals %s/%s, XML %s/%s", inv.Subtotal, inv.Total, doc.SubTotal, doc.Total)
	}
	var stored storage.Invoice
	err = f.srv.Accounts().Store.View(context.Background(), func(tx storage.Tx) error {
		var err error
		stored, err = tx.Invoices(f.creds.TenantKey).ByUUID(tfd.UUID)
		return err
	})
	if err != nil || stored.ID != inv.ID || string(stored.XML) != string(xml) || stored.Status != "Vigente" {
		t.Fatalf("stored invoice %+v, %v", stored.ID, err)
	}
	return doc
}

func TestInvoiceByValue(t *testing.T) {
	f, m := invoiceFixture(t, 3)
	r := f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...)
	inv := invoiceOf(t, r)
	doc := verifyAnswer(t, f, inv)

	// 3 × 12.505 = 37.515 → 37.52; −1.50 → base 36.02; IVA 5.7632 → 5.76; ISR 3.602 → 3.60;
	// 2.5 × 100 = 250.00 exempt. SubTotal 287.52, Descuento 1.50, Total 287.52 − 1.50 + 5.76 − 3.60.
	if doc.SubTotal != "287.52" || doc.Descuento != "1.50" || doc.Total != "288.18" || doc.Moneda != "MXN" || doc.TipoCambio != "" ||
		doc.Serie != "F" || doc.FormaPago != "01" || doc.MetodoPago != "PUE" || doc.LugarExpedicion != "42501" || doc.CondicionesDePago != "Contado" ||
		doc.Emisor.Rfc != "EKU9003173C9" || doc.Emisor.RegimenFiscal != "601" || doc.Receptor.UsoCFDI != "G01" ||
		doc.Receptor.DomicilioFiscalReceptor != "42501" || doc.NoCertificado != "30001000000500003416" {
		t.Fatalf("document: %+v", doc)
	}
	k := doc.Conceptos[0]
	if k.Importe != "37.52" || k.ValorUnitario != "12.505" || k.Descuento != "1.50" || k.NoIdentificacion != "LAP-HB" || k.Unidad != "Pieza" ||
		len(k.Traslados) != 1 || k.Traslados[0].Importe != "5.76" || k.Traslados[0].Base != "36.02" || len(k.Retenciones) != 1 || k.Retenciones[0].Importe != "3.60" {
		t.Fatalf("first line: %+v", k)
	}
	if k2 := doc.Conceptos[1]; k2.Cantidad != "2.5" || k2.Traslados[0].TipoFactor != "Exento" || k2.Traslados[0].Importe != "" {
		t.Fatalf("second line: %+v", k2)
	}
	if inv.Subtotal != "287.52" || inv.Discount != "1.50" || inv.Total != "288.18" || inv.Issuer.ID != nil || inv.Issuer.Tin != "EKU9003173C9" ||
		len(inv.Items) != 2 || inv.Items[0].ItemTaxes[1].TaxAmount != "3.60" || inv.Items[0].ItemTaxes[0].TaxRate != "0.160000" ||
		inv.Date != doc.Fecha || inv.Status != "Vigente" || inv.TypeCode != "I" {
		t.Fatalf("answer: %s", r.raw)
	}
	if strings.Contains(r.raw, "taxCredentials") || strings.Contains(r.raw, "12345678a") {
		t.Fatalf("the answer echoes the credentials: %s", r.raw)
	}
	if got := stampsOf(t, f, m.person); got != 2 {
		t.Fatalf("stamps after one invoice = %v, want 2", got)
	}
	// the stamp's movement: one stamp used by the stamper, for that invoice, 2 left
	var moves api.PagedList[api.StampTransaction]
	if r := f.do("GET", "/api/v4/stamps?pageSize=50", "", m.headers()...); json.Unmarshal(r.env.Data, &moves) != nil || moves.TotalCount != 1 ||
		moves.Items[0].TransactionType != 3 || moves.Items[0].Amount != 1 || moves.Items[0].ReferenceID == nil || *moves.Items[0].ReferenceID != inv.ID ||
		moves.Items[0].FromPerson == nil || moves.Items[0].FromPerson.ID != m.person || *moves.Items[0].FromBalance != 2 || moves.Items[0].ToPerson != nil {
		t.Fatalf("the stamp's movement: %s", r.raw)
	}
	// the event of the stamp
	ev := f.do("GET", "/api/v4/events?type=invoice.stamped", "")
	if ev.status != 200 || !strings.Contains(ev.raw, inv.ID) {
		t.Fatalf("no invoice.stamped event for %s: %s", inv.ID, ev.raw)
	}

	// a transfer in dollars with a date sent
	body := byValue(t)
	body["typeCode"] = "T"
	delete(body, "paymentFormCode")
	delete(body, "paymentMethodCode")
	delete(body, "paymentConditions")
	body["currencyCode"] = "USD"
	body["exchangeRate"] = "17.25"
	body["date"] = doc.Fecha
	body["items"] = []any{map[string]any{"itemCode": "44121706", "quantity": 10, "unitOfMeasurementCode": "H87",
		"description": "Lápices en traslado", "unitPrice": 0, "taxObjectCode": "01"}}
	tr := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	tdoc := verifyAnswer(t, f, tr)
	if tdoc.TipoDeComprobante != "T" || tdoc.Total != "0.00" || tdoc.TipoCambio != "17.25" || tdoc.Moneda != "USD" || tdoc.FormaPago != "" ||
		tdoc.Impuestos != nil || tdoc.Fecha != doc.Fecha {
		t.Fatalf("transfer: %+v", tdoc)
	}

	// a credit note related to the first invoice, with local taxes
	body = byValue(t)
	body["typeCode"] = "E"
	body["relatedInvoices"] = []any{map[string]any{"relationshipTypeCode": "01", "uuid": strings.ToLower(inv.UUID)}}
	body["complement"] = map[string]any{"localTaxes": map[string]any{"taxes": []any{
		map[string]any{"taxName": "ISH", "taxRate": 3, "taxAmount": "1.08", "taxFlagCode": "T"},
		map[string]any{"taxName": "CEDULAR", "taxRate": "1.5", "taxAmount": 0.54, "taxFlagCode": "R"},
	}}}
	cn := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	cdoc := verifyAnswer(t, f, cn)
	if cdoc.TipoDeComprobante != "E" || len(cdoc.CfdiRelacionados) != 1 || cdoc.CfdiRelacionados[0].UUIDs[0] != inv.UUID ||
		cdoc.Total != "288.72" || len(cdoc.Complemento) != 2 || cn.Complement == nil || len(cn.Complement.LocalTaxes.Taxes) != 2 {
		t.Fatalf("credit note: %+v", cdoc)
	}
	if got := stampsOf(t, f, m.person); got != 0 {
		t.Fatalf("stamps after three invoices = %v, want 0", got)
	}

	// the balance is empty now: 403, and nothing stored
	r = f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...)
	if r.status != 403 || r.env.Details != invoices.MsgNoCredits || r.env.Message != "Sorry, it's not me, it's you." {
		t.Fatalf("empty balance: %d %s", r.status, r.raw)
	}
	// an invalid request with an empty balance is a 400: validation comes first
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t), "typeCode", "X"), m.headers()...), "TypeCode",
		"El valor 'X' no existe en el catálogo c_TipoDeComprobante del SAT.")
	var count int
	f.srv.Accounts().Store.View(context.Background(), func(tx storage.Tx) error {
		_, count, _ = tx.Invoices(m.tenant).List(0, 10)
		return nil
	})
	if count != 3 {
		t.Fatalf("%d invoices stored, want 3", count)
	}
}

func TestInvoiceByReference(t *testing.T) {
	f, m := invoiceFixture(t, 1)
	cer, key, password := realPair(t)
	issuer := taxPerson(t, f, "kemper@example.com", "EKU9003173C9")
	recipient := taxPerson(t, f, "client@example.com", "XAXX010101000")
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		for _, c := range []struct {
			id, name, regime, zip, use string
		}{{issuer.person, "ESCUELA KEMPER URGATE", "601", "42501", "G01"}, {recipient.person, "PUBLICO EN GENERAL", "616", "42501", "S01"}} {
			p, err := tx.People(f.creds.TenantKey).Get(c.id)
			if err != nil {
				return err
			}
			p.LegalName, p.SatTaxRegimeID, p.ZipCode, p.SatCfdiUseID = c.name, &c.regime, &c.zip, &c.use
			if err := tx.People(f.creds.TenantKey).Put(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// the issuer has no tax files yet
	ref := map[string]any{"typeCode": "I", "paymentFormCode": "01", "paymentMethodCode": "PUE", "expeditionZipCode": "42501",
		"issuer": map[string]any{"id": issuer.person}, "recipient": map[string]any{"id": recipient.person},
		"globalInformation": map[string]any{"periodicityCode": "04", "monthCode": "11", "year": 2026},
	}
	product := productOf(t, f.do("POST", "/api/v4/products", empBody(productBase())))
	ref["items"] = []any{map[string]any{"id": product.ID, "quantity": 4}}
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(ref), m.headers()...), "Issuer.Id",
		"La persona '"+issuer.person+"' no tiene un certificado de sello digital (CSD) vigente con su llave privada: súbelos en /api/v4/tax-files.")
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 0, cer, "", "")))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 1, key, password, "")))

	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(ref), m.headers()...))
	doc := verifyAnswer(t, f, inv)
	// 4 × 12.50 = 50.00; IVA 8.00; ISR 5.00
	if doc.Emisor.Rfc != "EKU9003173C9" || doc.Emisor.Nombre != "ESCUELA KEMPER URGATE" || doc.Receptor.Rfc != "XAXX010101000" ||
		doc.Receptor.UsoCFDI != "S01" || doc.Receptor.RegimenFiscalReceptor != "616" || doc.InformacionGlobal == nil ||
		doc.InformacionGlobal.Año != "2026" || doc.Total != "53.00" || doc.Conceptos[0].ClaveProdServ != "44121706" ||
		doc.Conceptos[0].Descripcion != "Lápiz de madera HB" {
		t.Fatalf("document by reference: %+v", doc)
	}
	if inv.Issuer.ID == nil || *inv.Issuer.ID != issuer.person || inv.Items[0].ID == nil || *inv.Items[0].ID != product.ID {
		t.Fatalf("answer by reference: %+v", inv)
	}
	// a product or person of nobody
	ref["items"] = []any{map[string]any{"id": "0193a0c4-0000-7000-8000-000000000000", "quantity": 1}}
	ref["recipient"] = map[string]any{"id": "nobody"}
	r := f.do("POST", "/api/v4/invoices", empBody(ref), m.headers()...)
	expectFailure(t, r, "Items[0].Id", "El producto '0193a0c4-0000-7000-8000-000000000000' no existe.")
	expectFailure(t, r, "Recipient.Id", "La persona 'nobody' no existe.")
}

func TestInvoiceValidation(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	body := byValue(t)
	body["paymentMethodCode"] = "PPD"
	body["currencyCode"] = "EUR"
	body["date"] = "2026-13-01T10:00:00"
	body["issuer"].(map[string]any)["tin"] = "EKU900317"
	body["issuer"].(map[string]any)["taxCredentials"].([]any)[1].(map[string]any)["password"] = "wrong-password"
	body["recipient"].(map[string]any)["cfdiUseCode"] = "Z99"
	body["recipient"].(map[string]any)["zipCode"] = "4250"
	items := body["items"].([]any)
	items[0].(map[string]any)["itemCode"] = "99999999"
	items[0].(map[string]any)["quantity"] = 0
	items[0].(map[string]any)["itemTaxes"].([]any)[1].(map[string]any)["taxRate"] = 0.5
	items[1].(map[string]any)["taxObjectCode"] = "01"
	body["complement"] = map[string]any{"payroll": map[string]any{"version": "1.2"}}
	body["payments"] = []any{map[string]any{"amount": 1}}
	r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	for _, c := range [][2]string{
		{"PaymentFormCode", invoices.MsgPPDForm},
		{"ExchangeRate", "Con la moneda EUR el tipo de cambio es requerido y debe ser mayor a 0."},
		{"Date", "La fecha '2026-13-01T10:00:00' no es válida: usa AAAA-MM-DDThh:mm:ss, sin zona horaria (hora del lugar de expedición)."},
		{"Issuer.Tin", "El RFC 'EKU900317' no tiene un formato válido."},
		{"Issuer.TaxCredentials[1].Password", "La contraseña de la llave privada (.key) es incorrecta o el archivo no es una llave privada."},
		{"Recipient.CfdiUseCode", "El valor 'Z99' no existe en el catálogo c_UsoCFDI del SAT."},
		{"Recipient.ZipCode", "El código postal '4250' no es válido: debe tener 5 dígitos."},
		{"Items[0].ItemCode", "El valor '99999999' no existe en el catálogo c_ClaveProdServ del SAT."},
		{"Items[0].Quantity", invoices.MsgQuantity},
		{"Items[0].ItemTaxes[1].TaxRate", "La tasa o cuota '0.500000' no existe en el catálogo c_TasaOCuota del SAT para ISR Tasa retenido: usa un valor de 0.000000 a 0.350000."},
		{"Items[1].ItemTaxes", "El objeto de impuesto '01' no lleva impuestos: deja itemTaxes vacío o usa el objeto de impuesto 02."},
		{"Complement.Payroll", invoices.MsgPayrollOnlyN},
		{"Payments", "Desde el 1 de enero de 2026 el complemento 'payments' va en 'complement.payment'."},
	} {
		expectFailure(t, r, c[0], c[1])
	}
	for _, fl := range failures(t, r) {
		if fl.PropertyName == "Issuer.TaxCredentials[1].Password" && fl.AttemptedValue != nil {
			t.Fatalf("the key password failure echoes a value: %+v", fl)
		}
	}
	if strings.Contains(r.raw, "wrong-password") || strings.Contains(r.raw, "MIIF") {
		t.Fatalf("a secret is echoed: %s", r.raw)
	}

	// credentials: a list without the key is masked; a certificate of another RFC; the key of
	// another certificate; a certificate type of an unknown kind
	body = byValue(t)
	creds := body["issuer"].(map[string]any)["taxCredentials"].([]any)
	body["issuer"].(map[string]any)["taxCredentials"] = creds[:1]
	r = f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.TaxCredentials", invoices.MsgCredentialsNeeded)
	if fs := failures(t, r); fs[0].AttemptedValue != "[masked]" {
		t.Fatalf("taxCredentials not masked: %+v", fs[0])
	}
	body = byValue(t)
	body["issuer"].(map[string]any)["tin"] = "AAA010101AAA"
	r = f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.TaxCredentials[0].Base64File", "El RFC del certificado 'EKU9003173C9' no coincide con el RFC del emisor 'AAA010101AAA'.")
	for _, fl := range failures(t, r) {
		if s, _ := fl.AttemptedValue.(string); fl.PropertyName == "Issuer.TaxCredentials[0].Base64File" && !strings.HasPrefix(s, "[masked: ") {
			t.Fatalf("base64File not masked: %+v", fl)
		}
	}
	other := newPair(t, csdtest.Options{RFC: "EKU9003173C9", Key: genKeys(1)[0]})
	body = byValue(t)
	body["issuer"].(map[string]any)["taxCredentials"].([]any)[1] = map[string]any{"base64File": base64.StdEncoding.EncodeToString(other.Key), "fileType": 1, "password": other.Password}
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...), "Issuer.TaxCredentials[1].Base64File", invoices.MsgKeyMismatch)

	// types and complements not supported yet; a parse error keeps its path
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t), "typeCode", "P"), m.headers()...), "Complement.Payment", invoices.MsgPaymentNeeded)
	r = f.do("POST", "/api/v4/invoices", `{"typeCode":"I","items":[{"quantity":true}]}`, m.headers()...)
	if fs := failures(t, r); r.status != 400 || fs[0].PropertyName != "$.items[0].quantity" {
		t.Fatalf("parse error: %s", r.raw)
	}
	// no failure used a stamp
	if got := stampsOf(t, f, m.person); got != 5 {
		t.Fatalf("stamps after failures = %v, want 5", got)
	}
}

func TestInvoiceDeprecatedEndpoints(t *testing.T) {
	f := newFixture(t)
	for path, want := range map[string]string{
		"/api/v4/invoices/income":      "El endpoint POST /api/v4/invoices/income se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices (el tipo de comprobante va en typeCode).",
		"/api/v4/invoices/credit-note": "El endpoint POST /api/v4/invoices/credit-note se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices (el tipo de comprobante va en typeCode).",
		"/api/v4/invoices/payment":     "El endpoint POST /api/v4/invoices/payment se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices; el complemento pasó de invoice.payment a invoice.complement.payment.",
		"/api/v4/invoices/payroll":     "El endpoint POST /api/v4/invoices/payroll se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices; el complemento pasó de invoice.payroll a invoice.complement.payroll.",
		"/api/v4/invoices/local-taxes": "El endpoint POST /api/v4/invoices/local-taxes se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices; el complemento pasó de invoice.localTaxes a invoice.complement.localTaxes.",
	} {
		r := f.do("POST", path, `{}`)
		if r.status != 410 || r.env.Succeeded || r.env.HTTPStatusCode != 410 || r.env.Details != want || r.env.Message != "Sorry, it's not me, it's you." {
			t.Errorf("%s: %d %s", path, r.status, r.raw)
		}
	}
}

// TestInvoiceAndEventCommitTogether: the invoice, its stamp debit and its invoice.stamped event
// are one transaction. Work done in it that fails (CreateWith's also) leaves no invoice, no
// event and the stamp; when it succeeds, the event is there when Create returns.
func TestInvoiceAndEventCommitTogether(t *testing.T) {
	f, m := invoiceFixture(t, 3)
	raw, _ := json.Marshal(byValue(t))
	var in api.InvoiceInput
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	c := auth.Caller{TenantID: m.tenant, PersonID: m.person}
	stamped := func() []string { // related invoice of each invoice.stamped event
		t.Helper()
		var page api.PagedList[api.Event]
		if r := f.do("GET", "/api/v4/events?pageSize=50", ""); r.status != 200 || json.Unmarshal(r.env.Data, &page) != nil {
			t.Fatalf("events: %s", r.raw)
		}
		var ids []string
		for _, e := range page.Items {
			if e.Type == invoices.EventStamped {
				ids = append(ids, e.Data.RelatedObject.ID)
			}
		}
		return ids
	}
	refused := errors.New("refused")
	if _, err := f.srv.Invoices().CreateWith(context.Background(), c, in, func(storage.Tx, storage.Invoice) error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("CreateWith: %v", err)
	}
	if ids := stamped(); len(ids) != 0 {
		t.Fatalf("invoice.stamped events after a rolled-back invoice: %v", ids)
	}
	if got := stampsOf(t, f, m.person); got != 3 {
		t.Fatalf("stamps after a rolled-back invoice: %v", got)
	}
	inv, err := f.srv.Invoices().Create(context.Background(), c, in)
	if err != nil {
		t.Fatal(err)
	}
	if ids := stamped(); len(ids) != 1 || ids[0] != inv.ID {
		t.Fatalf("invoice.stamped events after invoice %s: %v", inv.ID, ids)
	}
	// one write transaction per invoice (the PAC identity exists by now)
	cs := &countingStore{Store: f.srv.accounts.Store}
	svc := &invoices.Service{Store: cs, Keys: f.srv.invoices.Keys, Catalogs: f.srv.catalogs, TaxFiles: f.srv.taxFiles, Events: f.srv.webhooks}
	if _, err := svc.Create(context.Background(), c, in); err != nil {
		t.Fatal(err)
	}
	if n := cs.writes.Load(); n != 1 {
		t.Fatalf("%d write transactions for one invoice, want 1", n)
	}
}

// countingStore counts the write transactions run through it.
type countingStore struct {
	storage.Store
	writes atomic.Int32
}

func (s *countingStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	s.writes.Add(1)
	return s.Store.Update(ctx, fn)
}

func (s *countingStore) Batch(ctx context.Context, fn func(storage.Tx) error) error {
	s.writes.Add(1)
	return s.Store.Batch(ctx, fn)
}

// TestInvoiceDateWindow: SAT stamps a date from 72 hours before the stamping up to the stamping
// itself (a Fecha after FechaTimbrado is refused), so later or older dates are refused before
// stamping.
func TestInvoiceDateWindow(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	now := time.Now().In(cfdi.Mexico)
	for _, c := range []struct {
		name string
		at   time.Time
		msg  string // "" stamps
	}{
		{"a minute ago", now.Add(-time.Minute), ""},
		{"71 hours ago", now.Add(-71 * time.Hour), ""},
		{"a minute ahead", now.Add(time.Minute), invoices.MsgDateFuture},
		{"73 hours ago", now.Add(-73 * time.Hour), invoices.MsgDateTooOld},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := byValue(t)
			date := c.at.Format(cfdi.DateLayout)
			body["date"] = date
			r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
			if c.msg == "" {
				inv := invoiceOf(t, r)
				xml, _ := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
				doc, err := cfdi.Parse(xml)
				if err != nil || doc.Fecha != date || doc.Fecha > doc.TFD().FechaTimbrado {
					t.Fatalf("Fecha %s, FechaTimbrado %s (%v)", doc.Fecha, doc.TFD().FechaTimbrado, err)
				}
				return
			}
			fs := failures(t, r)
			if r.status != 400 || len(fs) != 1 || fs[0].PropertyName != "Date" || !strings.HasPrefix(fs[0].ErrorMessage, strings.SplitN(c.msg, "%s", 2)[0]) {
				t.Fatalf("%s: %d %s", date, r.status, r.raw)
			}
		})
	}
}

// TestInvoiceAmountOfTheWrongType: an amount may be a number or a string holding one (as the
// official clients send it); a string holding no number, like any value of the wrong JSON type,
// is a parsing failure at the field's path (spec 1 §7.5), not a validation failure.
func TestInvoiceAmountOfTheWrongType(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	for _, c := range []struct {
		name  string
		value any
		path  string
	}{
		{"a word", "abc", "$.items[0].quantity"},
		{"a boolean", true, "$.items[0].quantity"},
		{"an object", map[string]any{}, "$.items[0].quantity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := byValue(t)
			body["items"].([]any)[0].(map[string]any)["quantity"] = c.value
			r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
			fs := failures(t, r)
			if r.status != 400 || len(fs) != 1 || fs[0].PropertyName != c.path ||
				!strings.HasPrefix(fs[0].ErrorMessage, "The JSON value could not be converted to a number. Path: "+c.path+" | LineNumber: ") {
				t.Fatalf("%v: %d %s", c.value, r.status, r.raw)
			}
		})
	}
	// a string holding a number is an amount
	body := byValue(t)
	body["items"].([]any)[0].(map[string]any)["quantity"] = " 3 "
	invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
}

// TestInvoiceRateRounded: a tax rate with more than 6 decimals (two thirds of IVA withheld, as
// the official client's example sends it) is written with the 6 of c_TasaOCuota.
func TestInvoiceRateRounded(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	body := byValue(t)
	item := body["items"].([]any)[0].(map[string]any)
	item["itemTaxes"] = append(item["itemTaxes"].([]any),
		map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": 0.10666666666, "taxFlagCode": "R"})
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	xml, _ := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
	if !strings.Contains(string(xml), `Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.106667"`) {
		t.Fatalf("the withheld IVA is not written at 0.106667:\n%s", xml)
	}
}

// TestInvoiceRFCDate: an RFC whose date is no day of the calendar is refused wherever an invoice
// takes one: the issuer and recipient by value, a recipient person saved before people checked
// it; 29 February of a leap year and a real RFC that SAT's check digit does not give are stamped
// (issue 25, item 6).
func TestInvoiceRFCDate(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	body := byValue(t)
	body["issuer"].(map[string]any)["tin"] = "EKU900230XX1"
	body["recipient"].(map[string]any)["tin"] = "gode010229ab1" // folded to upper case, as before
	r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.Tin", "El RFC 'EKU900230XX1' no es válido: su fecha 900230 (AAMMDD) no existe en el calendario.")
	expectFailure(t, r, "Recipient.Tin", "El RFC 'GODE010229AB1' no es válido: su fecha 010229 (AAMMDD) no existe en el calendario.")
	for _, fl := range failures(t, r) {
		if fl.PropertyName == "Recipient.Tin" && (fl.ErrorCode == nil || *fl.ErrorCode != invoices.CodeFormat || fl.AttemptedValue != "GODE010229AB1") {
			t.Fatalf("recipient failure %+v", fl)
		}
	}

	recipient := taxPerson(t, f, "april@example.com", "GODE560431AB1")
	body = byValue(t)
	body["recipient"] = map[string]any{"id": recipient.person}
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...), "Recipient.Id",
		"El RFC 'GODE560431AB1' no es válido: su fecha 560431 (AAMMDD) no existe en el calendario.")

	for _, tin := range []string{"GODE000229AB1", "BSM970519DU8"} {
		body = byValue(t)
		body["recipient"].(map[string]any)["tin"] = tin
		if inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)); inv.Recipient.Tin != tin {
			t.Fatalf("recipient %q stamped as %q", tin, inv.Recipient.Tin)
		}
	}
}

// TestInvoiceForeignTin: a foreign recipient's number (NumRegIdTrib) has the format c_Pais gives
// its country (ResidenciaFiscal) when it gives one, by value and by reference (issue 25, item 6).
func TestInvoiceForeignTin(t *testing.T) {
	f, m := invoiceFixture(t, 5)
	foreign := func(country, number string) map[string]any {
		body := byValue(t)
		rc := body["recipient"].(map[string]any)
		rc["tin"], rc["legalName"], rc["taxRegimeCode"], rc["cfdiUseCode"], rc["zipCode"] = "XEXX010101000", "ACME INC", "616", "S01", "42501"
		rc["countryId"], rc["foreignTin"] = country, number
		return body
	}
	msg := "El número de registro de identidad tributaria '%s' no tiene el formato que el catálogo c_Pais del SAT da para el país %s: [0-9]{9}."
	r := f.do("POST", "/api/v4/invoices", empBody(foreign("USA", "12-3456789")), m.headers()...)
	expectFailure(t, r, "Recipient.ForeignTin", fmt.Sprintf(msg, "12-3456789", "USA"))
	if fs := failures(t, r); len(fs) != 1 {
		t.Fatalf("want the one failure: %s", r.raw)
	}

	for _, c := range [][2]string{{"USA", "123456789"}, {"DEU", "DE 123/456/78901"}} {
		inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(foreign(c[0], c[1])), m.headers()...))
		doc := verifyAnswer(t, f, inv)
		if doc.Receptor.ResidenciaFiscal != c[0] || doc.Receptor.NumRegIdTrib != c[1] {
			t.Fatalf("Receptor %+v", doc.Receptor)
		}
	}

	// a person saved before people checked the number
	p := taxPerson(t, f, "acme@example.com", "XEXX010101000")
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		sp, err := tx.People(f.creds.TenantKey).Get(p.person)
		if err != nil {
			return err
		}
		country, number, zip, regime, use := "CAN", "12345678", "42501", "616", "S01"
		sp.LegalName, sp.CountryID, sp.ForeignTin, sp.ZipCode, sp.SatTaxRegimeID, sp.SatCfdiUseID = "ACME LTD", &country, &number, &zip, &regime, &use
		return tx.People(f.creds.TenantKey).Put(sp)
	})
	if err != nil {
		t.Fatal(err)
	}
	body := byValue(t)
	body["recipient"] = map[string]any{"id": p.person}
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...), "Recipient.Id", fmt.Sprintf(msg, "12345678", "CAN"))
}
