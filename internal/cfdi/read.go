package cfdi

import (
	"encoding/xml"
	"io"
)

// NS33 is CFDI 3.3's namespace.
const NS33 = "http://www.sat.gob.mx/cfd/3"

// Document is a CFDI 4.0 or 3.3 as ReadCFDI reads it: every attribute's text as written, in the
// model's types (3.3's single CuentaPredial is the one element of CuentaPredial; 4.0's fields
// it lacks are empty), each complement as written, and the stamp's attributes.
type Document struct {
	Version           string
	Serie             string
	Folio             string
	Fecha             string
	FormaPago         string
	NoCertificado     string
	CondicionesDePago string
	SubTotal          string
	Descuento         string
	Moneda            string
	TipoCambio        string
	Total             string
	TipoDeComprobante string
	Exportacion       string
	MetodoPago        string
	LugarExpedicion   string
	Confirmacion      string

	InformacionGlobal *InformacionGlobal
	CfdiRelacionados  []CfdiRelacionados
	Emisor            Emisor
	Receptor          Receptor
	Conceptos         []Concepto
	Impuestos         *Impuestos
	// Complementos are the children of cfdi:Complemento, in order (the stamp's too).
	Complementos []ComplementXML
	// ComplementosConcepto are the names of the concepts' complements (the children of each
	// Concepto's ComplementoConcepto), in order, repeated as written.
	ComplementosConcepto []xml.Name
	// Timbre is the Timbre Fiscal Digital's attributes; nil when the document has none.
	Timbre *TimbreFiscalDigital
}

// ComplementXML is one complement of a Document: its element's name, its Version attribute
// (Impuestos Locales': version) and its XML as written in the document (prefixes declared above it stay undeclared).
type ComplementXML struct {
	Space, Local, Version string
	XML                   []byte
}

// ReadCFDI reads a CFDI 4.0 or 3.3 from r as a stream (encoding/xml's tokens, no tree, at most
// MaxReadSize bytes). Like Parse, it takes the first Emisor, Receptor, Conceptos, Impuestos and
// Complemento of the comprobante, and the first ACuentaTerceros of a concept; it checks the
// document's structure (one root, its namespace) and nothing else: a missing element is empty.
func ReadCFDI(r io.Reader) (*Document, error) {
	s := newStream(r)
	c := &cfdiReader{s: s, doc: &Document{}}
	if err := s.run(c.start); err != nil {
		return nil, err
	}
	return c.doc, nil
}

// cfdiReader fills a Document from the start tags of a stream.
type cfdiReader struct {
	s   *stream
	doc *Document
	ns  string // the root's namespace: NS or NS33

	seen map[string]bool // the comprobante's single children already read
	// the element being filled at depth 2, 3 and 4
	rel     *CfdiRelacionados
	concept *Concepto
	parte   *Parte
	inFirst bool // inside the first Conceptos, Impuestos or Complemento
	records int  // the CFDI's elements read so far
}

// maxRecords bounds the CFDI's elements of a document (a complement counts once, not its
// insides): with MaxReadSize it bounds what reading costs, as a concept or tax kept costs a
// few hundred bytes however short its tag.
const maxRecords = 250_000

// attr is an unprefixed attribute's value.
func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// first reports whether the comprobante's child just opened is the first of its name.
func (c *cfdiReader) first(name string) bool {
	if c.seen[name] {
		return false
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[name] = true
	return true
}

func (c *cfdiReader) start(t xml.StartElement) error {
	s, d, a := c.s, c.doc, func(n string) string { return attr(t, n) }
	if s.depth() == 1 {
		if (t.Name.Space != NS && t.Name.Space != NS33) || t.Name.Local != "Comprobante" {
			return parseErr("the root element is {%s}%s, not cfdi:Comprobante of CFDI 4.0 or 3.3", t.Name.Space, t.Name.Local)
		}
		c.ns = t.Name.Space
		d.Version, d.Serie, d.Folio, d.Fecha = a("Version"), a("Serie"), a("Folio"), a("Fecha")
		d.FormaPago, d.NoCertificado, d.CondicionesDePago = a("FormaPago"), a("NoCertificado"), a("CondicionesDePago")
		d.SubTotal, d.Descuento, d.Moneda, d.TipoCambio, d.Total = a("SubTotal"), a("Descuento"), a("Moneda"), a("TipoCambio"), a("Total")
		d.TipoDeComprobante, d.Exportacion, d.MetodoPago = a("TipoDeComprobante"), a("Exportacion"), a("MetodoPago")
		d.LugarExpedicion, d.Confirmacion = a("LugarExpedicion"), a("Confirmacion")
		return nil
	}
	ns := c.ns
	if t.Name.Space == ns || s.depth() == 3 {
		if c.records++; c.records > maxRecords {
			return parseErr("more than %d elements", maxRecords)
		}
	}
	if s.depth() == 2 {
		c.inFirst = false
		if t.Name.Space != ns {
			return nil
		}
		switch t.Name.Local {
		case "InformacionGlobal":
			if c.first(t.Name.Local) {
				d.InformacionGlobal = &InformacionGlobal{a("Periodicidad"), a("Meses"), a("Año")}
			}
		case "CfdiRelacionados":
			d.CfdiRelacionados = append(d.CfdiRelacionados, CfdiRelacionados{TipoRelacion: a("TipoRelacion")})
			c.rel = &d.CfdiRelacionados[len(d.CfdiRelacionados)-1]
		case "Emisor":
			if c.first(t.Name.Local) {
				d.Emisor = Emisor{a("Rfc"), a("Nombre"), a("RegimenFiscal"), a("FacAtrAdquirente")}
			}
		case "Receptor":
			if c.first(t.Name.Local) {
				d.Receptor = Receptor{a("Rfc"), a("Nombre"), a("DomicilioFiscalReceptor"), a("ResidenciaFiscal"),
					a("NumRegIdTrib"), a("RegimenFiscalReceptor"), a("UsoCFDI")}
			}
		case "Impuestos":
			if c.inFirst = c.first(t.Name.Local); c.inFirst {
				d.Impuestos = &Impuestos{TotalImpuestosRetenidos: a("TotalImpuestosRetenidos"), TotalImpuestosTrasladados: a("TotalImpuestosTrasladados")}
			}
		case "Conceptos":
			c.inFirst = c.first(t.Name.Local)
		case "Complemento":
			if c.inFirst = c.first(t.Name.Local); c.inFirst {
				s.recordInside()
			}
		}
		return nil
	}
	switch {
	case s.at(ns, "CfdiRelacionados", "CfdiRelacionado"):
		c.rel.UUIDs = append(c.rel.UUIDs, a("UUID"))
	case !c.inFirst:
	case s.at(ns, "Impuestos", "Retenciones", "Retencion"):
		d.Impuestos.Retenciones = append(d.Impuestos.Retenciones, RetencionTotal{a("Impuesto"), a("Importe")})
	case s.at(ns, "Impuestos", "Traslados", "Traslado"):
		d.Impuestos.Traslados = append(d.Impuestos.Traslados, TrasladoTotal{a("Base"), a("Impuesto"), a("TipoFactor"), a("TasaOCuota"), a("Importe")})
	case s.depth() == 3 && s.path[1] == xml.Name{Space: ns, Local: "Complemento"}:
		i := len(d.Complementos)
		v := a("Version")
		if v == "" {
			v = a("version") // Impuestos Locales
		}
		d.Complementos = append(d.Complementos, ComplementXML{Space: t.Name.Space, Local: t.Name.Local, Version: v})
		s.capture(func(raw []byte) { d.Complementos[i].XML = raw })
		if t.Name.Space == NSTFD && t.Name.Local == "TimbreFiscalDigital" && d.Timbre == nil {
			d.Timbre = &TimbreFiscalDigital{Version: a("Version"), UUID: a("UUID"), FechaTimbrado: a("FechaTimbrado"),
				RfcProvCertif: a("RfcProvCertif"), Leyenda: a("Leyenda"), SelloCFD: a("SelloCFD"),
				NoCertificadoSAT: a("NoCertificadoSAT"), SelloSAT: a("SelloSAT")}
		}
	case s.at(ns, "Conceptos", "Concepto"):
		d.Conceptos = append(d.Conceptos, Concepto{ClaveProdServ: a("ClaveProdServ"), NoIdentificacion: a("NoIdentificacion"),
			Cantidad: a("Cantidad"), ClaveUnidad: a("ClaveUnidad"), Unidad: a("Unidad"), Descripcion: a("Descripcion"),
			ValorUnitario: a("ValorUnitario"), Importe: a("Importe"), Descuento: a("Descuento"), ObjetoImp: a("ObjetoImp")})
		c.concept = &d.Conceptos[len(d.Conceptos)-1]
	case s.at(ns, "Conceptos", "Concepto", "Impuestos", "Traslados", "Traslado"):
		c.concept.Traslados = append(c.concept.Traslados, Traslado{a("Base"), a("Impuesto"), a("TipoFactor"), a("TasaOCuota"), a("Importe")})
	case s.at(ns, "Conceptos", "Concepto", "Impuestos", "Retenciones", "Retencion"):
		c.concept.Retenciones = append(c.concept.Retenciones, Retencion{a("Base"), a("Impuesto"), a("TipoFactor"), a("TasaOCuota"), a("Importe")})
	case s.at(ns, "Conceptos", "Concepto", "ACuentaTerceros"):
		if c.concept.ACuentaTerceros == nil {
			c.concept.ACuentaTerceros = &ACuentaTerceros{a("RfcACuentaTerceros"), a("NombreACuentaTerceros"),
				a("RegimenFiscalACuentaTerceros"), a("DomicilioFiscalACuentaTerceros")}
		}
	case s.depth() == 5 && s.path[1] == xml.Name{Space: ns, Local: "Conceptos"} && s.path[2] == xml.Name{Space: ns, Local: "Concepto"} &&
		s.path[3] == xml.Name{Space: ns, Local: "ComplementoConcepto"}:
		d.ComplementosConcepto = append(d.ComplementosConcepto, t.Name)
	case s.at(ns, "Conceptos", "Concepto", "InformacionAduanera"):
		c.concept.InformacionAduanera = append(c.concept.InformacionAduanera, a("NumeroPedimento"))
	case s.at(ns, "Conceptos", "Concepto", "CuentaPredial"):
		c.concept.CuentaPredial = append(c.concept.CuentaPredial, a("Numero"))
	case s.at(ns, "Conceptos", "Concepto", "Parte"):
		c.concept.Partes = append(c.concept.Partes, Parte{a("ClaveProdServ"), a("NoIdentificacion"), a("Cantidad"), a("Unidad"),
			a("Descripcion"), a("ValorUnitario"), a("Importe"), nil})
		c.parte = &c.concept.Partes[len(c.concept.Partes)-1]
	case s.at(ns, "Conceptos", "Concepto", "Parte", "InformacionAduanera"):
		c.parte.InformacionAduanera = append(c.parte.InformacionAduanera, a("NumeroPedimento"))
	}
	return nil
}
