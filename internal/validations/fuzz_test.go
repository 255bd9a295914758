package validations

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// FuzzProductionCheck feeds arbitrary bytes as the XML: the production checker never fails or
// panics, answers every type with a status the type accepts, and an input cfdi.Parse refuses
// gets §4.7's malformed column.
func FuzzProductionCheck(f *testing.F) {
	g := generate(f, csdtest.Options{RFC: "EKU9003173C9"}, time.Now().Add(-time.Hour), true)
	good, err := g.Doc.XML()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte(`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0"><cfdi:Emisor/><cfdi:Receptor/><cfdi:Conceptos/><cfdi:Complemento><tfd:TimbreFiscalDigital xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital"/></cfdi:Complemento></cfdi:Comprobante>`))
	for _, name := range []string{"cfdi40-real.xml", "cfdi40-valid.xml"} {
		if b, err := os.ReadFile(testpaths.Shared("sat", "samples", name)); err == nil {
			f.Add(b)
		}
	}
	p := &Production{Trust: NewTrustStore([]*csd.Certificate{g.PAC.Cert}, nil), Lists: map[string]*List{}}
	f.Fuzz(func(t *testing.T, xml []byte) {
		out, err := p.Check(context.Background(), Input{XML: xml}, allTypes)
		if err != nil {
			t.Fatalf("technical failure on input: %v", err)
		}
		if _, err := results(allTypes, out); err != nil {
			t.Fatal(err)
		}
		if _, perr := cfdi.Parse(xml); perr != nil {
			for _, typ := range allTypes[1:] {
				if out[typ].Status != Omitido {
					t.Fatalf("%s: %s on a malformed XML", typ, out[typ].Status)
				}
			}
			if out[TypeStructure].Status != Invalido {
				t.Fatalf("structure %s on a malformed XML", out[TypeStructure].Status)
			}
		}
	})
}
