package cfdi

import (
	"os"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// FuzzParse: Parse never panics, and what it accepts can be written, cadena'd and parsed again.
func FuzzParse(f *testing.F) {
	for _, n := range []string{"cfdi40-valid.xml", "cfdi40-real.xml"} {
		if b, err := os.ReadFile(testpaths.Shared("sat", "samples", n)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0"><cfdi:Emisor/><cfdi:Receptor/><cfdi:Conceptos><cfdi:Concepto/></cfdi:Conceptos><cfdi:Complemento><pago20:Pagos xmlns:pago20="http://www.sat.gob.mx/Pagos20"><pago20:Pago><pago20:DoctoRelacionado/></pago20:Pago></pago20:Pagos><x:y xmlns:x="urn:x">t</x:y></cfdi:Complemento><cfdi:Addenda><a/></cfdi:Addenda></cfdi:Comprobante>`))
	f.Add([]byte(`<a/>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		doc, err := Parse(b)
		if err != nil {
			return
		}
		_, _ = doc.Cadena()
		x, err := doc.XML()
		if err != nil {
			return
		}
		if _, err := Parse(x); err != nil {
			t.Fatalf("the XML written for a parsed document does not parse: %v\n%s", err, x)
		}
	})
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "1.5", "-0.000001", "9223372036854.775807", "1e3", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			return
		}
		back, err := ParseDecimal(d.String())
		if err != nil || back != d {
			t.Fatalf("%q → %s → %v %v", s, d.String(), back, err)
		}
	})
}
