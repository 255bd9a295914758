package satlocal

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestReadCFDI: a CFDI file gives the local SAT its filters' and metadata's fields: the
// parties (RFCs in upper case), the stamp, the third parties of its concepts and its
// complements' codes (the stamp's not among them; Impuestos Locales as implocal); a file
// that is not a stamped CFDI is an error.
func TestReadCFDI(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.xml")
	x := `<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" xmlns:pago20="http://www.sat.gob.mx/Pagos20" xmlns:implocal="http://www.sat.gob.mx/implocal" Version="4.0" Fecha="2024-01-05T10:00:00" Total="116.00" TipoDeComprobante="I">
  <cfdi:Emisor Rfc="eku9003173c9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>
  <cfdi:Receptor Rfc="AAA010101AAA" Nombre="B"/>
  <cfdi:Conceptos>
    <cfdi:Concepto ClaveProdServ="01010101"><cfdi:ACuentaTerceros RfcACuentaTerceros="cacx7605101p8" NombreACuentaTerceros="TERCERO"/></cfdi:Concepto>
    <cfdi:Concepto ClaveProdServ="01010101"/>
  </cfdi:Conceptos>
  <cfdi:Complemento>
    <tfd:TimbreFiscalDigital Version="1.1" UUID="aaaaaaaa-0000-4000-8000-000000000001" FechaTimbrado="2024-01-05T10:01:00" RfcProvCertif="SAT970701NN3"/>
    <pago20:Pagos Version="2.0"/>
    <implocal:ImpuestosLocales version="1.0"/>
  </cfdi:Complemento>
</cfdi:Comprobante>`
	if err := os.WriteFile(p, []byte(x), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := readCFDI(p)
	if err != nil {
		t.Fatal(err)
	}
	want := CFDI{Path: p, UUID: "AAAAAAAA-0000-4000-8000-000000000001", IssuerRFC: "EKU9003173C9", IssuerName: "ESCUELA KEMPER URGATE",
		ReceiverRFC: "AAA010101AAA", ReceiverName: "B", PacRFC: "SAT970701NN3", Date: time.Date(2024, 1, 5, 10, 0, 0, 0, time.UTC),
		Certified: time.Date(2024, 1, 5, 10, 1, 0, 0, time.UTC), Total: "116.00", Type: "I", Complements: []string{"pagos20", "implocal"},
		OnBehalfRFCs: []string{"CACX7605101P8"}, OnBehalfNames: []string{"TERCERO"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("%+v\nwant %+v", c, want)
	}
	for _, bad := range []string{`<a/>`, `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Fecha="2024-01-05T10:00:00"><cfdi:Emisor Rfc="X"/></cfdi:Comprobante>`} {
		os.WriteFile(p, []byte(bad), 0o600)
		if _, err := readCFDI(p); err == nil {
			t.Errorf("%s read", bad)
		}
	}
}
