package downloadrequests

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"os"
	"reflect"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// TestParseDate: an offset is taken to Mexico City's wall clock (as the SAT's dates are), a
// date without one is that wall clock.
func TestParseDate(t *testing.T) {
	for in, want := range map[string]string{
		"2025-01-01T00:00:00.000-06:00": "2025-01-01T00:00:00",
		"2025-01-01T06:00:00Z":          "2025-01-01T00:00:00",
		"2025-07-01T12:30:00":           "2025-07-01T12:30:00",
		"2025-07-01":                    "2025-07-01T00:00:00",
	} {
		got, ok := parseDate(in)
		if !ok || got.Format(wallLayout) != want {
			t.Errorf("parseDate(%q) = %v %v, want %s", in, got, ok, want)
		}
	}
	if _, ok := parseDate("01/07/2025"); ok {
		t.Error("a date that is not ISO 8601 passed")
	}
}

// TestReadMetadata: lines end in CRLF and a bare LF stays in its field; the _tercero file is
// not metadata lines; a cancelled line has its date.
func TestReadMetadata(t *testing.T) {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	f, _ := z.Create("ABC_01.txt")
	f.Write([]byte("Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion\r\n" +
		"aaaaaaaa-0000-4000-8000-000000000001~EKU9003173C9~ESCUELA\nKEMPER~AAA010101AAA~\"B\"~SAT970701NN3~2024-01-05 10:00:00~2024-01-05 10:01:00~1160.50~I~0~2024-02-01 09:00:00\r\n"))
	g, _ := z.Create("ABC_01_tercero.txt")
	g.Write([]byte("Uuid~RfcACuentaTerceros~NombreACuentaTerceros\r\nx~y~z\r\n"))
	z.Close()
	r, _ := readZip(t, b.Bytes())
	ms, err := readMetadata(r, "req", "ABC_01")
	if err != nil || len(ms) != 1 {
		t.Fatalf("%+v %v", ms, err)
	}
	m := ms[0]
	if m.InvoiceUUID != "AAAAAAAA-0000-4000-8000-000000000001" || m.IssuerName != "ESCUELA\nKEMPER" || m.RecipientName != `"B"` || m.Amount != 1160.5 ||
		m.Status != 0 || m.CancellationDate == nil || *m.CancellationDate != "2024-02-01T09:00:00" || m.SatCertificationDate != "2024-01-05T10:01:00" {
		t.Errorf("%+v", m)
	}
}

// TestXMLOfSATSample: SAT's stamped sample CFDI as the client's Xml: the header, parties, both
// items with their transferred taxes, the total taxes, the stamp as a complement (its XML as
// the file has it), and every id consistent.
func TestXMLOfSATSample(t *testing.T) {
	raw, err := os.ReadFile(testpaths.Shared("sat", "samples", "cfdi40-real.xml"))
	if err != nil {
		t.Skip("SAT's samples are not beside the repository")
	}
	x, err := xmlOf(raw, "req", "pkg_01", 4)
	if err != nil {
		t.Fatal(err)
	}
	if x.ID != entryID("req", "xml", 4) || x.ID == entryID("req", "xml", 5) || x.InvoiceUUID != "C2832671-DA6D-11EF-A83D-00155D012007" ||
		*x.Series != "O" || *x.Number != "52375239" || x.Date != "2025-01-24T10:10:41" || *x.PaymentForm != "04" || *x.PaymentMethod != "PUE" ||
		x.SubTotal != 862.07 || x.Total != 1000 || *x.ExchangeRate != 1 || x.Discount != nil || x.Export != "01" || x.ExpeditionZipCode != "11529" ||
		*x.TotalTransferredTaxes != 137.93 || x.TotalWithheldTaxes != nil || x.XMLIssuer.Tin != "ISD950921HE5" || x.XMLRecipient.ZipCode != "52176" {
		t.Errorf("header: %+v", x)
	}
	if len(x.Taxes) != 1 || *x.Taxes[0].Base != 862.07 || x.Taxes[0].Tax != "002" || *x.Taxes[0].TaxType != "Tasa" || *x.Taxes[0].Rate != 0.16 ||
		*x.Taxes[0].Amount != 137.93 || x.Taxes[0].TaxFlag != "T" || x.Taxes[0].XMLID != x.ID {
		t.Errorf("taxes: %+v", x.Taxes)
	}
	if len(x.XMLItems) != 2 {
		t.Fatalf("items: %+v", x.XMLItems)
	}
	it := x.XMLItems[1]
	if it.XMLID != x.ID || it.ID == x.XMLItems[0].ID || it.ItemCode != "95111615" || it.Quantity != 1 || it.UnitMeasurement != "E54" ||
		it.Description != "RECARGA IDMX" || it.UnitPrice != 853.448276 || it.Amount != 853.448276 || *it.TaxObject != "02" || it.SKU != nil ||
		len(it.Taxes) != 1 || *it.Taxes[0].Base != 853.448276 || *it.Taxes[0].Amount != 136.551724 || *it.Taxes[0].Rate != 0.16 ||
		it.Taxes[0].TaxFlag != "T" || it.Taxes[0].XMLItemID != it.ID || len(it.XMLItemCustomsInformation) != 0 || it.ThirdPartyAccount != nil {
		t.Errorf("item: %+v", it)
	}
	if len(x.XMLComplements) != 1 || x.XMLComplements[0].ComplementName != "TimbreFiscalDigital" || x.XMLComplements[0].XMLID != x.ID {
		t.Fatalf("complements: %+v", x.XMLComplements)
	}
	c, _ := base64.StdEncoding.DecodeString(x.XMLComplements[0].Base64ComplementValue)
	if !bytes.HasPrefix(c, []byte("<tfd:TimbreFiscalDigital ")) || !bytes.HasSuffix(c, []byte("/>")) || !bytes.Contains(raw, c) {
		t.Errorf("the stamp's XML: %s", c)
	}
	if content, _ := base64.StdEncoding.DecodeString(x.Base64Content); !bytes.Equal(content, raw) {
		t.Error("base64Content is not the file")
	}
	if len(x.XMLRelated) != 0 || x.XMLGlobalInformation != nil {
		t.Errorf("related %+v, global %+v", x.XMLRelated, x.XMLGlobalInformation)
	}
}

// paymentCFDI is a stamped CFDI with what SAT's samples lack: a global invoice's information,
// related CFDIs in two groups, items with withheld taxes, an exempt transfer, customs and
// property numbers, a third party, total withholdings, and a Pagos 2.0 complement whose prefix
// is declared on the root.
const paymentCFDI = `<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:pago20="http://www.sat.gob.mx/Pagos20" Version="4.0" Fecha="2024-03-01T09:00:00" SubTotal="2000.00" Descuento="100.00" Moneda="USD" TipoCambio="17.0512" Total="1999.33" TipoDeComprobante="I" Exportacion="01" MetodoPago="PPD" FormaPago="99" LugarExpedicion="64000" NoCertificado="30001000000500003416">
  <cfdi:InformacionGlobal Periodicidad="04" Meses="03" Año="2024"/>
  <cfdi:CfdiRelacionados TipoRelacion="04"><cfdi:CfdiRelacionado UUID="A0000000-0000-4000-8000-000000000001"/><cfdi:CfdiRelacionado UUID="A0000000-0000-4000-8000-000000000002"/></cfdi:CfdiRelacionados>
  <cfdi:CfdiRelacionados TipoRelacion="07"><cfdi:CfdiRelacionado UUID="A0000000-0000-4000-8000-000000000003"/></cfdi:CfdiRelacionados>
  <cfdi:Emisor Rfc="EKU9003173C9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>
  <cfdi:Receptor Rfc="XEXX010101000" Nombre="FOREIGN INC" DomicilioFiscalReceptor="64000" ResidenciaFiscal="USA" NumRegIdTrib="123456789" RegimenFiscalReceptor="616" UsoCFDI="S01"/>
  <cfdi:Conceptos>
    <cfdi:Concepto ClaveProdServ="80131500" NoIdentificacion="RENTA-1" Cantidad="2" ClaveUnidad="E48" Unidad="Servicio" Descripcion="Renta &amp; mantenimiento" ValorUnitario="500.00" Importe="1000.00" Descuento="100.00" ObjetoImp="02">
      <cfdi:Impuestos>
        <cfdi:Traslados><cfdi:Traslado Base="900.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="144.00"/></cfdi:Traslados>
        <cfdi:Retenciones>
          <cfdi:Retencion Base="900.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.106667" Importe="96.00"/>
          <cfdi:Retencion Base="900.00" Impuesto="001" TipoFactor="Tasa" TasaOCuota="0.100000" Importe="90.00"/>
        </cfdi:Retenciones>
      </cfdi:Impuestos>
      <cfdi:ACuentaTerceros RfcACuentaTerceros="CACX7605101P8" NombreACuentaTerceros="XOCHILT CASAS CHAVEZ" RegimenFiscalACuentaTerceros="601" DomicilioFiscalACuentaTerceros="01000"/>
      <cfdi:CuentaPredial Numero="15956011002"/>
      <cfdi:CuentaPredial Numero="ABC123"/>
    </cfdi:Concepto>
    <cfdi:Concepto ClaveProdServ="43231500" Cantidad="1" ClaveUnidad="H87" Descripcion="Libro" ValorUnitario="1000.00" Importe="1000.00" ObjetoImp="02">
      <cfdi:Impuestos><cfdi:Traslados><cfdi:Traslado Base="1000.00" Impuesto="002" TipoFactor="Exento"/></cfdi:Traslados></cfdi:Impuestos>
      <cfdi:InformacionAduanera NumeroPedimento="21  47  3807  8003832"/>
    </cfdi:Concepto>
  </cfdi:Conceptos>
  <cfdi:Impuestos TotalImpuestosRetenidos="186.00" TotalImpuestosTrasladados="144.00">
    <cfdi:Retenciones><cfdi:Retencion Impuesto="001" Importe="90.00"/><cfdi:Retencion Impuesto="002" Importe="96.00"/></cfdi:Retenciones>
    <cfdi:Traslados><cfdi:Traslado Base="900.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="144.00"/><cfdi:Traslado Base="1000.00" Impuesto="002" TipoFactor="Exento"/></cfdi:Traslados>
  </cfdi:Impuestos>
  <cfdi:Complemento>
    <pago20:Pagos Version="2.0"><pago20:Totales MontoTotalPagos="1160.00"/><pago20:Pago FechaPago="2024-03-01T09:00:00" FormaDePagoP="03" MonedaP="MXN" Monto="1160.00"/></pago20:Pagos>
    <tfd:TimbreFiscalDigital xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="1.1" UUID="c0000000-0000-4000-8000-000000000009" FechaTimbrado="2024-03-01T09:00:05" RfcProvCertif="SAT970701NN3"/>
  </cfdi:Complemento>
</cfdi:Comprobante>`

// TestXMLOfEveryList: every list of the client's Xml filled from the CFDI, with its ids.
func TestXMLOfEveryList(t *testing.T) {
	x, err := xmlOf([]byte(paymentCFDI), "req", "pkg_01", 0)
	if err != nil {
		t.Fatal(err)
	}
	f := func(v float64) *float64 { return &v }
	s := func(v string) *string { return &v }
	if x.InvoiceUUID != "C0000000-0000-4000-8000-000000000009" || *x.Discount != 100 || *x.ExchangeRate != 17.0512 || *x.TotalWithheldTaxes != 186 ||
		*x.XMLRecipient.ForeignTaxID != "123456789" || *x.XMLRecipient.FiscalResidence != "USA" ||
		!reflect.DeepEqual(x.XMLGlobalInformation, &api.DownloadXMLGlobal{Periodicity: "04", Month: "03", Year: 2024}) {
		t.Errorf("header: %+v", x)
	}
	wantTaxes := []api.DownloadXMLTax{
		{Base: f(900), Tax: "002", TaxType: s("Tasa"), Rate: f(0.16), Amount: f(144), TaxFlag: "T", XMLID: x.ID},
		{Base: f(1000), Tax: "002", TaxType: s("Exento"), TaxFlag: "T", XMLID: x.ID},
		{Tax: "001", Amount: f(90), TaxFlag: "R", XMLID: x.ID},
		{Tax: "002", Amount: f(96), TaxFlag: "R", XMLID: x.ID},
	}
	if !reflect.DeepEqual(x.Taxes, wantTaxes) {
		t.Errorf("taxes: %+v", x.Taxes)
	}
	rel := func(typ, uuid string) api.DownloadXMLRelated {
		return api.DownloadXMLRelated{XMLID: x.ID, RelationshipType: typ, CfdiUUID: uuid}
	}
	wantRelated := []api.DownloadXMLRelated{rel("04", "A0000000-0000-4000-8000-000000000001"), rel("04", "A0000000-0000-4000-8000-000000000002"),
		rel("07", "A0000000-0000-4000-8000-000000000003")}
	if !reflect.DeepEqual(x.XMLRelated, wantRelated) {
		t.Errorf("related: %+v", x.XMLRelated)
	}
	if len(x.XMLItems) != 2 {
		t.Fatalf("items: %+v", x.XMLItems)
	}
	a, b := x.XMLItems[0], x.XMLItems[1]
	wantA := api.DownloadXMLItem{ID: a.ID, XMLID: x.ID, ItemCode: "80131500", SKU: s("RENTA-1"), Quantity: 2, UnitMeasurement: "E48",
		Description: "Renta & mantenimiento", UnitPrice: 500, Amount: 1000, Discount: f(100), TaxObject: s("02"), ThirdPartyAccount: s("CACX7605101P8"),
		XMLItemCustomsInformation: []api.DownloadXMLItemCustoms{},
		XMLItemPropertyAccounts: []api.DownloadXMLItemProperty{{XMLItemID: a.ID, PropertyAccountNumber: "15956011002"},
			{XMLItemID: a.ID, PropertyAccountNumber: "ABC123"}},
		Taxes: []api.DownloadXMLItemTax{
			{Base: f(900), Tax: "002", TaxType: s("Tasa"), Rate: f(0.16), Amount: f(144), TaxFlag: "T", XMLItemID: a.ID},
			{Base: f(900), Tax: "002", TaxType: s("Tasa"), Rate: f(0.106667), Amount: f(96), TaxFlag: "R", XMLItemID: a.ID},
			{Base: f(900), Tax: "001", TaxType: s("Tasa"), Rate: f(0.1), Amount: f(90), TaxFlag: "R", XMLItemID: a.ID},
		}}
	if !reflect.DeepEqual(a, wantA) || a.ID == "" || a.ID == b.ID || a.ID != entryID(x.ID, "item", 0) {
		t.Errorf("item 1: %+v", a)
	}
	if !reflect.DeepEqual(b.XMLItemCustomsInformation, []api.DownloadXMLItemCustoms{{XMLItemID: b.ID, CustomsDocumentNumber: "21  47  3807  8003832"}}) || b.SKU != nil ||
		len(b.Taxes) != 1 || *b.Taxes[0].TaxType != "Exento" || b.Taxes[0].Rate != nil || b.Taxes[0].Amount != nil || b.Taxes[0].XMLItemID != b.ID {
		t.Errorf("item 2: %+v", b)
	}
	if len(x.XMLComplements) != 2 || x.XMLComplements[0].ComplementName != "Pagos" || x.XMLComplements[1].ComplementName != "TimbreFiscalDigital" ||
		x.XMLComplements[0].XMLID != x.ID {
		t.Fatalf("complements: %+v", x.XMLComplements)
	}
	c, _ := base64.StdEncoding.DecodeString(x.XMLComplements[0].Base64ComplementValue)
	if string(c) != `<pago20:Pagos Version="2.0"><pago20:Totales MontoTotalPagos="1160.00"/><pago20:Pago FechaPago="2024-03-01T09:00:00" FormaDePagoP="03" MonedaP="MXN" Monto="1160.00"/></pago20:Pagos>` {
		t.Errorf("the Pagos XML: %s", c)
	}
	if again, _ := xmlOf([]byte(paymentCFDI), "req", "pkg_01", 0); !reflect.DeepEqual(again, x) {
		t.Error("a second read is not the same")
	}
	if _, err := xmlOf([]byte("<cfdi:Comprobante"), "req", "pkg_01", 0); err == nil {
		t.Error("a broken CFDI read")
	}
}

// TestXMLEntry: an entry reads back as written; every shorter or altered form is refused
// without a panic.
func TestXMLEntry(t *testing.T) {
	e := xmlEntry{Package: "4E0F9C6B-0A8E-4B4B-9C55-5C2F1B6A7D10_01", Offset: 1<<33 + 5, Size: 700, RawSize: 1500, Method: zipDeflate, CRC32: 0xdeadbeef}
	b := e.encode()
	if got, err := decodeXMLEntry(b); err != nil || got != e || len(b) > 64 {
		t.Fatalf("%+v %v (%d bytes)", got, err, len(b))
	}
	for i := range len(b) {
		if _, err := decodeXMLEntry(b[:i]); err == nil {
			t.Errorf("the first %d bytes read", i)
		}
	}
	for _, bad := range [][]byte{append(bytes.Clone(b), 0), append([]byte{'x'}, b[1:]...), {1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}} {
		if _, err := decodeXMLEntry(bad); err == nil {
			t.Errorf("%x read", bad)
		}
	}
}
