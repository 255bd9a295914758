package cfdi

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// readAgrees checks ReadCFDI against Parse on one input: what Parse accepts ReadCFDI accepts
// and reads the same way (the comprobante's attributes, its elements, the stamp), and every
// complement's XML is the document's own bytes (those Parse keeps raw, the same bytes).
func readAgrees(data []byte) error {
	d, rerr := ReadCFDI(bytes.NewReader(data))
	if rerr == nil {
		body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		for _, x := range d.Complementos {
			if !bytes.HasPrefix(x.XML, []byte("<")) || !bytes.Contains(body, x.XML) {
				return fmt.Errorf("complement %s: %q is not the document's bytes", x.Local, x.XML)
			}
		}
		var n int
		for _, c := range d.Conceptos {
			n += 1 + len(c.Traslados) + len(c.Retenciones) + len(c.InformacionAduanera) + len(c.CuentaPredial) + len(c.Partes)
		}
		if n+len(d.Complementos) > bytes.Count(data, []byte("<")) {
			return fmt.Errorf("%d elements kept from %d tags", n+len(d.Complementos), bytes.Count(data, []byte("<")))
		}
	}
	p, perr := Parse(data)
	if perr != nil {
		return nil
	}
	if rerr != nil {
		return fmt.Errorf("Parse accepts, ReadCFDI refuses: %v", rerr)
	}
	header := func(v ...string) []string { return v }
	if got, want := header(d.Version, d.Serie, d.Folio, d.Fecha, d.FormaPago, d.NoCertificado, d.CondicionesDePago, d.SubTotal,
		d.Descuento, d.Moneda, d.TipoCambio, d.Total, d.TipoDeComprobante, d.Exportacion, d.MetodoPago, d.LugarExpedicion, d.Confirmacion),
		header(p.Version, p.Serie, p.Folio, p.Fecha, p.FormaPago, p.NoCertificado, p.CondicionesDePago, p.SubTotal,
			p.Descuento, p.Moneda, p.TipoCambio, p.Total, p.TipoDeComprobante, p.Exportacion, p.MetodoPago, p.LugarExpedicion, p.Confirmacion); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("attributes %q, Parse %q", got, want)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"InformacionGlobal", d.InformacionGlobal, p.InformacionGlobal}, {"CfdiRelacionados", d.CfdiRelacionados, p.CfdiRelacionados},
		{"Emisor", d.Emisor, p.Emisor}, {"Receptor", d.Receptor, p.Receptor}, {"Conceptos", d.Conceptos, p.Conceptos},
		{"Impuestos", d.Impuestos, p.Impuestos}, {"TFD", d.Timbre, p.TFD()},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			return fmt.Errorf("%s: %+v, Parse %+v", c.name, c.got, c.want)
		}
	}
	if len(d.Complementos) != len(p.Complemento) {
		return fmt.Errorf("%d complements, Parse %d", len(d.Complementos), len(p.Complemento))
	}
	for i, x := range p.Complemento {
		if r, ok := x.(*RawComplement); ok && (r.Space != d.Complementos[i].Space || r.Local != d.Complementos[i].Local || !bytes.Equal(r.XML, d.Complementos[i].XML)) {
			return fmt.Errorf("complement %d: %s %q, Parse %s %q", i, d.Complementos[i].Local, d.Complementos[i].XML, r.Local, r.XML)
		}
	}
	return nil
}

// TestReadCFDISamples: SAT's two sample CFDIs read as their files say.
func TestReadCFDISamples(t *testing.T) {
	real := satFile(t, "samples/cfdi40-real.xml")
	d, err := ReadCFDI(bytes.NewReader(real))
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != "4.0" || d.Serie != "O" || d.Folio != "52375239" || d.Fecha != "2025-01-24T10:10:41" || d.SubTotal != "862.07" ||
		d.Total != "1000.00" || d.TipoCambio != "1" || d.NoCertificado != "00001000000510877575" || d.FormaPago != "04" {
		t.Errorf("header: %+v", d)
	}
	if d.Emisor.Rfc != "ISD950921HE5" || d.Receptor.Rfc != "COSC8001137NA" || d.Receptor.DomicilioFiscalReceptor != "52176" || d.Receptor.UsoCFDI != "G03" {
		t.Errorf("parties: %+v %+v", d.Emisor, d.Receptor)
	}
	if len(d.Conceptos) != 2 || d.Conceptos[1].ClaveProdServ != "95111615" || d.Conceptos[1].ValorUnitario != "853.448276" ||
		!reflect.DeepEqual(d.Conceptos[0].Traslados, []Traslado{{"8.620690", "002", "Tasa", "0.160000", "1.379310"}}) {
		t.Errorf("concepts: %+v", d.Conceptos)
	}
	if d.Impuestos == nil || d.Impuestos.TotalImpuestosTrasladados != "137.93" ||
		!reflect.DeepEqual(d.Impuestos.Traslados, []TrasladoTotal{{"862.07", "002", "Tasa", "0.160000", "137.93"}}) {
		t.Errorf("taxes: %+v", d.Impuestos)
	}
	if d.Timbre == nil || d.Timbre.UUID != "C2832671-DA6D-11EF-A83D-00155D012007" || d.Timbre.RfcProvCertif != "TBN040609RKA" ||
		len(d.Complementos) != 1 || d.Complementos[0].Local != "TimbreFiscalDigital" || d.Complementos[0].Version != "1.1" ||
		!bytes.HasPrefix(d.Complementos[0].XML, []byte(`<tfd:TimbreFiscalDigital xmlns:tfd=`)) || !bytes.HasSuffix(d.Complementos[0].XML, []byte(`eA=="/>`)) {
		t.Errorf("stamp: %+v %+v", d.Timbre, d.Complementos)
	}
	valid := satFile(t, "samples/cfdi40-valid.xml")
	if d, err = ReadCFDI(bytes.NewReader(valid)); err != nil {
		t.Fatal(err)
	}
	if len(d.Conceptos) != 1 || d.Conceptos[0].NoIdentificacion != "GAMEPAD007" || d.Conceptos[0].Descuento != "956.04" ||
		d.Conceptos[0].Descripcion != "Portable tetris gamepad pro++ ⏻" || d.Descuento != "956.04" || d.Timbre.UUID != "6F35D3B5-3651-5370-BC2C-14CDBE384CD7" {
		t.Errorf("%+v", d)
	}
	for _, b := range [][]byte{real, valid} {
		if err := readAgrees(b); err != nil {
			t.Error(err)
		}
	}
}

// TestReadCFDICorpus: over generated CFDIs of types I, E, T, P and N (every kind of tax,
// CfdiRelacionados, InformacionGlobal, third parties, customs and property numbers; Pagos 2.0,
// Impuestos Locales 1.0, Nómina 1.2, the stamp), ReadCFDI reads what Parse reads, and each
// complement's XML is the document's bytes.
func TestReadCFDICorpus(t *testing.T) {
	docs := corpus(t, 80)
	g := gen{rand.New(rand.NewPCG(3, 12))}
	for i := range 10 {
		c, _, err := g.nominaDoc(i)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, c)
	}
	kinds := map[string]bool{}
	for i, c := range docs {
		x, err := c.XML()
		if err != nil {
			t.Fatal(err)
		}
		if err := readAgrees(x); err != nil {
			t.Fatalf("document %d: %v\n%s", i, err, x)
		}
		d, _ := ReadCFDI(bytes.NewReader(x))
		for _, k := range d.Complementos {
			kinds[k.Local+" "+k.Version] = true
		}
		for _, c := range d.Conceptos {
			if len(c.Retenciones) > 0 {
				kinds["withheld"] = true
			}
		}
		if len(d.CfdiRelacionados) > 0 {
			kinds["related"] = true
		}
	}
	for _, k := range []string{"TimbreFiscalDigital 1.1", "Pagos 2.0", "ImpuestosLocales 1.0", "Nomina 1.2", "withheld", "related"} {
		if !kinds[k] {
			t.Errorf("the corpus has no %s", k)
		}
	}
}

// TestReadCFDI33: a CFDI 3.3 reads with its own namespace (its one CuentaPredial, no
// ObjetoImp), and a comprobante's second Emisor or a non-CFDI root do not pass for one.
func TestReadCFDI33(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/3" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="3.3" Fecha="2021-06-01T10:00:00" SubTotal="1000.00" Total="1053.33" Moneda="MXN" TipoDeComprobante="I" LugarExpedicion="01000">
 <cfdi:CfdiRelacionados TipoRelacion="04"><cfdi:CfdiRelacionado UUID="A0000000-0000-4000-8000-000000000001"/></cfdi:CfdiRelacionados>
 <cfdi:Emisor Rfc="EKU9003173C9" Nombre="ESCUELA KEMPER URGATE" RegimenFiscal="601"/>
 <cfdi:Emisor Rfc="XAXX010101000"/>
 <cfdi:Receptor Rfc="MCI7306249Y1" UsoCFDI="G03"/>
 <cfdi:Conceptos>
  <cfdi:Concepto ClaveProdServ="80131500" Cantidad="1" ClaveUnidad="E48" Descripcion="Renta" ValorUnitario="1000.00" Importe="1000.00">
   <cfdi:Impuestos>
    <cfdi:Traslados><cfdi:Traslado Base="1000.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="160.00"/></cfdi:Traslados>
    <cfdi:Retenciones><cfdi:Retencion Base="1000.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.106667" Importe="106.67"/></cfdi:Retenciones>
   </cfdi:Impuestos>
   <cfdi:CuentaPredial Numero="15956011002"/>
  </cfdi:Concepto>
 </cfdi:Conceptos>
 <cfdi:Impuestos TotalImpuestosRetenidos="106.67" TotalImpuestosTrasladados="160.00">
  <cfdi:Retenciones><cfdi:Retencion Impuesto="002" Importe="106.67"/></cfdi:Retenciones>
  <cfdi:Traslados><cfdi:Traslado Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="160.00"/></cfdi:Traslados>
 </cfdi:Impuestos>
 <cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="b0000000-0000-4000-8000-000000000002" FechaTimbrado="2021-06-01T10:00:05" RfcProvCertif="SAT970701NN3"/></cfdi:Complemento>
</cfdi:Comprobante>`
	d, err := ReadCFDI(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := d.Conceptos
	if d.Version != "3.3" || d.Emisor.Rfc != "EKU9003173C9" || len(c) != 1 || c[0].ObjetoImp != "" ||
		!reflect.DeepEqual(c[0].CuentaPredial, []string{"15956011002"}) || c[0].Retenciones[0].TasaOCuota != "0.106667" ||
		!reflect.DeepEqual(d.CfdiRelacionados, []CfdiRelacionados{{"04", []string{"A0000000-0000-4000-8000-000000000001"}}}) ||
		!reflect.DeepEqual(d.Impuestos.Retenciones, []RetencionTotal{{"002", "106.67"}}) || d.Timbre.UUID != "b0000000-0000-4000-8000-000000000002" ||
		string(d.Complementos[0].XML) != `<tfd:TimbreFiscalDigital Version="1.1" UUID="b0000000-0000-4000-8000-000000000002" FechaTimbrado="2021-06-01T10:00:05" RfcProvCertif="SAT970701NN3"/>` {
		t.Errorf("%+v", d)
	}
	for _, bad := range []string{
		`<retenciones:Retenciones xmlns:retenciones="http://www.sat.gob.mx/esquemas/retencionpago/2" Version="2.0"/>`,
		`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/2" Version="2.2"/>`,
		`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"><cfdi:Emisor>`,
		`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"/><cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"/>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"/>`,
		``,
	} {
		if _, err := ReadCFDI(strings.NewReader(bad)); err == nil {
			t.Errorf("%q read", bad)
		}
	}
}

// endless is an io.Reader of a CFDI whose concepts never end, counting what it gave.
type endless struct {
	n    int64
	rest string
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 && e.rest == "" {
		e.rest = `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4"><cfdi:Conceptos>`
	}
	for len(e.rest) < len(p) {
		e.rest += `<cfdi:Concepto ClaveProdServ="01010101"/>`
	}
	n := copy(p, e.rest)
	e.rest = e.rest[n:]
	e.n += int64(n)
	return n, nil
}

// TestReadCFDIBounded: an input without end is refused (by the number of elements kept, well
// before MaxReadSize), an input past MaxReadSize is refused without being read further, and one
// nested too deep is refused: reading costs what MaxReadSize and maxRecords allow, not what the
// input is.
func TestReadCFDIBounded(t *testing.T) {
	e := &endless{}
	start := time.Now()
	if _, err := ReadCFDI(e); err == nil || !strings.Contains(err.Error(), "elements") || e.n > MaxReadSize {
		t.Errorf("endless concepts: %v after %d bytes", err, e.n)
	}
	big := io.MultiReader(strings.NewReader(`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Serie="`),
		io.LimitReader(zeros{}, MaxReadSize), strings.NewReader(`"/>`))
	if _, err := ReadCFDI(big); !errors.Is(err, errTooLarge) {
		t.Errorf("a %d-byte attribute: %v", MaxReadSize, err)
	}
	deep := strings.Repeat(`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4">`, maxDepth+1)
	if _, err := ReadCFDI(strings.NewReader(deep)); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("nested %d deep: %v", maxDepth+1, err)
	}
	t.Logf("bounded inputs refused in %v", time.Since(start))
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// FuzzReadCFDI: ReadCFDI never panics; what it reads keeps no more elements than the input has
// tags and complements that are the input's bytes; what Parse accepts it reads the same way.
func FuzzReadCFDI(f *testing.F) {
	for _, n := range []string{"cfdi40-valid.xml", "cfdi40-real.xml"} {
		if b, err := os.ReadFile(testpaths.Shared("sat", "samples", n)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0"><cfdi:Emisor/><cfdi:Receptor/><cfdi:Conceptos><cfdi:Concepto><cfdi:Impuestos><cfdi:Traslados><cfdi:Traslado/></cfdi:Traslados></cfdi:Impuestos><cfdi:Parte><cfdi:InformacionAduanera/></cfdi:Parte></cfdi:Concepto></cfdi:Conceptos><cfdi:Complemento><pago20:Pagos xmlns:pago20="http://www.sat.gob.mx/Pagos20"><pago20:Pago><pago20:DoctoRelacionado/></pago20:Pago></pago20:Pagos><x:y xmlns:x="urn:x">t</x:y></cfdi:Complemento><cfdi:Addenda><a/></cfdi:Addenda></cfdi:Comprobante>`))
	f.Add([]byte("\xef\xbb\xbf<cfdi:Comprobante xmlns:cfdi=\"http://www.sat.gob.mx/cfd/3\"><cfdi:Complemento><a/><b></b></cfdi:Complemento><cfdi:Complemento><c/></cfdi:Complemento></cfdi:Comprobante>"))
	f.Add([]byte(`<a/>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := readAgrees(b); err != nil {
			t.Fatalf("%v\n%q", err, b)
		}
	})
}

// TestStreamCapture: the stream under ReadCFDI serves any kind of document: a start function
// of its own sees each start tag with its path, and an element captured inside one asked to
// be recorded comes back as written (a capture on the recorded element itself, or outside it,
// is ignored).
func TestStreamCapture(t *testing.T) {
	doc := "\xef\xbb\xbf<r:a xmlns:r=\"urn:r\"><r:b><c x=\"1\" /><d>t &amp; <e/></d></r:b><f/></r:a>"
	s := newStream(strings.NewReader(doc))
	var paths []string
	got := map[string]string{}
	err := s.run(func(el xml.StartElement) error {
		paths = append(paths, fmt.Sprintf("%d %s %v", s.depth(), el.Name.Local, s.at("urn:r", "b")))
		switch el.Name.Local {
		case "b":
			s.recordInside()
			s.capture(func(raw []byte) { got["b"] = string(raw) })
		case "c", "d", "e", "f":
			name := el.Name.Local
			s.capture(func(raw []byte) { got[name] = string(raw) })
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"c": `<c x="1" />`, "d": `<d>t &amp; <e/></d>`}
	if !reflect.DeepEqual(got, want) || strings.Join(paths, ",") != "1 a false,2 b true,3 c false,3 d false,4 e false,2 f false" {
		t.Errorf("captured %q, paths %q", got, paths)
	}
}

// TestReadCFDIConceptComplements: the children of each concept's ComplementoConcepto are named,
// in order, with their namespace; the complements of cfdi:Complemento are not among them.
func TestReadCFDIConceptComplements(t *testing.T) {
	doc := `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0">
 <cfdi:Conceptos>
  <cfdi:Concepto ClaveProdServ="86121500"><cfdi:ComplementoConcepto><iedu:instEducativas xmlns:iedu="http://www.sat.gob.mx/iedu" version="1.0"/></cfdi:ComplementoConcepto></cfdi:Concepto>
  <cfdi:Concepto ClaveProdServ="25101500"><cfdi:ComplementoConcepto><ventavehiculos:VentaVehiculos xmlns:ventavehiculos="http://www.sat.gob.mx/ventavehiculos" version="1.1"><ventavehiculos:Parte/></ventavehiculos:VentaVehiculos></cfdi:ComplementoConcepto></cfdi:Concepto>
  <cfdi:Concepto ClaveProdServ="01010101"/>
 </cfdi:Conceptos>
 <cfdi:Complemento><implocal:ImpuestosLocales xmlns:implocal="http://www.sat.gob.mx/implocal" version="1.0"/></cfdi:Complemento>
</cfdi:Comprobante>`
	d, err := ReadCFDI(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []xml.Name{{Space: "http://www.sat.gob.mx/iedu", Local: "instEducativas"}, {Space: "http://www.sat.gob.mx/ventavehiculos", Local: "VentaVehiculos"}}
	if !reflect.DeepEqual(d.ComplementosConcepto, want) || len(d.Conceptos) != 3 || len(d.Complementos) != 1 {
		t.Errorf("concept complements %v, %d concepts, %d complements", d.ComplementosConcepto, len(d.Conceptos), len(d.Complementos))
	}
}
