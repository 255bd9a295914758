package cfdi

// One list per element of the attributes both the XML and the cadena original write, in the
// schema's order (which is the stylesheet's): the XML writer and the cadena walk the same list,
// so an attribute added, moved or made optional changes both.

// attrSink is what both do with an attribute: req writes a required one even when empty, opt an
// optional one when present, seal one of the seal's (Sello, Certificado), which the cadena
// leaves out.
type attrSink interface {
	req(name, v string)
	opt(name, v string)
	seal(name, v string)
}

// attrLister is an element whose attributes are one list (attrs).
type attrLister interface{ attrs(attrSink) }

// empty writes an element with attributes and no content: <name .../>.
func (w *xmlWriter) empty(name string, e attrLister) {
	w.open(name)
	e.attrs(w)
	w.endEmpty()
}

func (w *xmlWriter) req(name, v string)  { w.attr(name, v) }
func (w *xmlWriter) seal(name, v string) { w.attr(name, v) }

// cadenaAttrs writes attributes into a cadena original: values only, no seal.
type cadenaAttrs struct{ c *cadenaBuilder }

func (a cadenaAttrs) req(_, v string)   { a.c.req(v) }
func (a cadenaAttrs) opt(_, v string)   { a.c.opt(v) }
func (cadenaAttrs) seal(string, string) {}

func (c *Comprobante) attrs(s attrSink) {
	s.req("Version", c.Version)
	s.opt("Serie", c.Serie)
	s.opt("Folio", c.Folio)
	s.req("Fecha", c.Fecha)
	s.seal("Sello", c.Sello)
	s.opt("FormaPago", c.FormaPago)
	s.req("NoCertificado", c.NoCertificado)
	s.seal("Certificado", c.Certificado)
	s.opt("CondicionesDePago", c.CondicionesDePago)
	s.req("SubTotal", c.SubTotal)
	s.opt("Descuento", c.Descuento)
	s.req("Moneda", c.Moneda)
	s.opt("TipoCambio", c.TipoCambio)
	s.req("Total", c.Total)
	s.req("TipoDeComprobante", c.TipoDeComprobante)
	s.req("Exportacion", c.Exportacion)
	s.opt("MetodoPago", c.MetodoPago)
	s.req("LugarExpedicion", c.LugarExpedicion)
	s.opt("Confirmacion", c.Confirmacion)
}

func (g *InformacionGlobal) attrs(s attrSink) {
	s.req("Periodicidad", g.Periodicidad)
	s.req("Meses", g.Meses)
	s.req("Año", g.Año)
}

func (e *Emisor) attrs(s attrSink) {
	s.req("Rfc", e.Rfc)
	s.req("Nombre", e.Nombre)
	s.req("RegimenFiscal", e.RegimenFiscal)
	s.opt("FacAtrAdquirente", e.FacAtrAdquirente)
}

func (r *Receptor) attrs(s attrSink) {
	s.req("Rfc", r.Rfc)
	s.req("Nombre", r.Nombre)
	s.req("DomicilioFiscalReceptor", r.DomicilioFiscalReceptor)
	s.opt("ResidenciaFiscal", r.ResidenciaFiscal)
	s.opt("NumRegIdTrib", r.NumRegIdTrib)
	s.req("RegimenFiscalReceptor", r.RegimenFiscalReceptor)
	s.req("UsoCFDI", r.UsoCFDI)
}

func (k *Concepto) attrs(s attrSink) {
	s.req("ClaveProdServ", k.ClaveProdServ)
	s.opt("NoIdentificacion", k.NoIdentificacion)
	s.req("Cantidad", k.Cantidad)
	s.req("ClaveUnidad", k.ClaveUnidad)
	s.opt("Unidad", k.Unidad)
	s.req("Descripcion", k.Descripcion)
	s.req("ValorUnitario", k.ValorUnitario)
	s.req("Importe", k.Importe)
	s.opt("Descuento", k.Descuento)
	s.req("ObjetoImp", k.ObjetoImp)
}

func (t *Traslado) attrs(s attrSink) {
	s.req("Base", t.Base)
	s.req("Impuesto", t.Impuesto)
	s.req("TipoFactor", t.TipoFactor)
	s.opt("TasaOCuota", t.TasaOCuota)
	s.opt("Importe", t.Importe)
}

func (t *Retencion) attrs(s attrSink) {
	s.req("Base", t.Base)
	s.req("Impuesto", t.Impuesto)
	s.req("TipoFactor", t.TipoFactor)
	s.req("TasaOCuota", t.TasaOCuota)
	s.req("Importe", t.Importe)
}

func (a *ACuentaTerceros) attrs(s attrSink) {
	s.req("RfcACuentaTerceros", a.RfcACuentaTerceros)
	s.req("NombreACuentaTerceros", a.NombreACuentaTerceros)
	s.req("RegimenFiscalACuentaTerceros", a.RegimenFiscalACuentaTerceros)
	s.req("DomicilioFiscalACuentaTerceros", a.DomicilioFiscalACuentaTerceros)
}

func (p *Parte) attrs(s attrSink) {
	s.req("ClaveProdServ", p.ClaveProdServ)
	s.opt("NoIdentificacion", p.NoIdentificacion)
	s.req("Cantidad", p.Cantidad)
	s.opt("Unidad", p.Unidad)
	s.req("Descripcion", p.Descripcion)
	s.opt("ValorUnitario", p.ValorUnitario)
	s.opt("Importe", p.Importe)
}

func (t *RetencionTotal) attrs(s attrSink) {
	s.req("Impuesto", t.Impuesto)
	s.req("Importe", t.Importe)
}

func (t *TrasladoTotal) attrs(s attrSink) {
	s.req("Base", t.Base)
	s.req("Impuesto", t.Impuesto)
	s.req("TipoFactor", t.TipoFactor)
	s.opt("TasaOCuota", t.TasaOCuota)
	s.opt("Importe", t.Importe)
}
