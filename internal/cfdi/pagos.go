package cfdi

// Pagos 2.0 (pago20:Pagos), the complement of a payment receipt (TipoDeComprobante P).

// Pagos 2.0 namespace and schema.
const (
	NSPagos20             = "http://www.sat.gob.mx/Pagos20"
	Pagos20SchemaLocation = "http://www.sat.gob.mx/sitio_internet/cfd/Pagos/Pagos20.xsd"
)

// Pagos is the payments complement. Attributes are text as written, like the rest of the model.
type Pagos struct {
	Version string // "2.0"
	Totales PagosTotales
	Pagos   []Pago
}

// PagosTotales are the complement's totals (in MXN).
type PagosTotales struct {
	TotalRetencionesIVA         string
	TotalRetencionesISR         string
	TotalRetencionesIEPS        string
	TotalTrasladosBaseIVA16     string
	TotalTrasladosImpuestoIVA16 string
	TotalTrasladosBaseIVA8      string
	TotalTrasladosImpuestoIVA8  string
	TotalTrasladosBaseIVA0      string
	TotalTrasladosImpuestoIVA0  string
	TotalTrasladosBaseIVAExento string
	MontoTotalPagos             string
}

// Pago is one payment.
type Pago struct {
	FechaPago        string
	FormaDePagoP     string
	MonedaP          string
	TipoCambioP      string
	Monto            string
	NumOperacion     string
	RfcEmisorCtaOrd  string
	NomBancoOrdExt   string
	CtaOrdenante     string
	RfcEmisorCtaBen  string
	CtaBeneficiario  string
	TipoCadPago      string
	CertPago         string
	CadPago          string
	SelloPago        string
	DoctoRelacionado []DoctoRelacionado
	// ImpuestosP; both empty means no pago20:ImpuestosP.
	RetencionesP []RetencionP
	TrasladosP   []TrasladoP
}

// DoctoRelacionado is an invoice the payment pays (part of).
type DoctoRelacionado struct {
	IdDocumento      string
	Serie            string
	Folio            string
	MonedaDR         string
	EquivalenciaDR   string
	NumParcialidad   string
	ImpSaldoAnt      string
	ImpPagado        string
	ImpSaldoInsoluto string
	ObjetoImpDR      string
	// ImpuestosDR; both empty means no pago20:ImpuestosDR.
	RetencionesDR []ImpuestoDR
	TrasladosDR   []ImpuestoDR
}

// ImpuestoDR is a withheld or transferred tax of a related document (for a transferred Exento
// tax TasaOCuotaDR and ImporteDR are empty).
type ImpuestoDR struct {
	BaseDR       string
	ImpuestoDR   string
	TipoFactorDR string
	TasaOCuotaDR string
	ImporteDR    string
}

// RetencionP is a withheld tax of a payment.
type RetencionP struct {
	ImpuestoP string
	ImporteP  string
}

// TrasladoP is a transferred tax of a payment.
type TrasladoP struct {
	BaseP       string
	ImpuestoP   string
	TipoFactorP string
	TasaOCuotaP string
	ImporteP    string
}

func (p *Pagos) namespace() (string, string, string) {
	return "pago20", NSPagos20, Pagos20SchemaLocation
}

func (p *Pagos) writeXML(w *xmlWriter) {
	w.open("pago20:Pagos")
	w.attr("Version", p.Version)
	w.endStart()
	t := &p.Totales
	w.empty("pago20:Totales", t)
	for i := range p.Pagos {
		x := &p.Pagos[i]
		w.open("pago20:Pago")
		x.attrs(w)
		w.endStart()
		for j := range x.DoctoRelacionado {
			dr := &x.DoctoRelacionado[j]
			w.open("pago20:DoctoRelacionado")
			dr.attrs(w)
			if len(dr.RetencionesDR) == 0 && len(dr.TrasladosDR) == 0 {
				w.endEmpty()
				continue
			}
			w.endStart()
			w.raw("<pago20:ImpuestosDR>")
			if len(dr.RetencionesDR) > 0 {
				w.raw("<pago20:RetencionesDR>")
				for k := range dr.RetencionesDR {
					w.open("pago20:RetencionDR")
					dr.RetencionesDR[k].retencionAttrs(w)
					w.endEmpty()
				}
				w.close("pago20:RetencionesDR")
			}
			if len(dr.TrasladosDR) > 0 {
				w.raw("<pago20:TrasladosDR>")
				for k := range dr.TrasladosDR {
					w.open("pago20:TrasladoDR")
					dr.TrasladosDR[k].trasladoAttrs(w)
					w.endEmpty()
				}
				w.close("pago20:TrasladosDR")
			}
			w.close("pago20:ImpuestosDR")
			w.close("pago20:DoctoRelacionado")
		}
		if len(x.RetencionesP) > 0 || len(x.TrasladosP) > 0 {
			w.raw("<pago20:ImpuestosP>")
			if len(x.RetencionesP) > 0 {
				w.raw("<pago20:RetencionesP>")
				for k := range x.RetencionesP {
					w.empty("pago20:RetencionP", &x.RetencionesP[k])
				}
				w.close("pago20:RetencionesP")
			}
			if len(x.TrasladosP) > 0 {
				w.raw("<pago20:TrasladosP>")
				for k := range x.TrasladosP {
					w.empty("pago20:TrasladoP", &x.TrasladosP[k])
				}
				w.close("pago20:TrasladosP")
			}
			w.close("pago20:ImpuestosP")
		}
		w.close("pago20:Pago")
	}
	w.close("pago20:Pagos")
}

// cadena follows Pagos20.xslt: the attributes of each element, in document order.
func (p *Pagos) cadena(c *cadenaBuilder) error {
	a := cadenaAttrs{c}
	c.req(p.Version)
	p.Totales.attrs(a)
	for i := range p.Pagos {
		x := &p.Pagos[i]
		x.attrs(a)
		for j := range x.DoctoRelacionado {
			dr := &x.DoctoRelacionado[j]
			dr.attrs(a)
			for k := range dr.RetencionesDR {
				dr.RetencionesDR[k].retencionAttrs(a)
			}
			for k := range dr.TrasladosDR {
				dr.TrasladosDR[k].trasladoAttrs(a)
			}
		}
		for k := range x.RetencionesP {
			x.RetencionesP[k].attrs(a)
		}
		for k := range x.TrasladosP {
			x.TrasladosP[k].attrs(a)
		}
	}
	return nil
}

func (t *PagosTotales) attrs(s attrSink) {
	s.opt("TotalRetencionesIVA", t.TotalRetencionesIVA)
	s.opt("TotalRetencionesISR", t.TotalRetencionesISR)
	s.opt("TotalRetencionesIEPS", t.TotalRetencionesIEPS)
	s.opt("TotalTrasladosBaseIVA16", t.TotalTrasladosBaseIVA16)
	s.opt("TotalTrasladosImpuestoIVA16", t.TotalTrasladosImpuestoIVA16)
	s.opt("TotalTrasladosBaseIVA8", t.TotalTrasladosBaseIVA8)
	s.opt("TotalTrasladosImpuestoIVA8", t.TotalTrasladosImpuestoIVA8)
	s.opt("TotalTrasladosBaseIVA0", t.TotalTrasladosBaseIVA0)
	s.opt("TotalTrasladosImpuestoIVA0", t.TotalTrasladosImpuestoIVA0)
	s.opt("TotalTrasladosBaseIVAExento", t.TotalTrasladosBaseIVAExento)
	s.req("MontoTotalPagos", t.MontoTotalPagos)
}

func (x *Pago) attrs(s attrSink) {
	s.req("FechaPago", x.FechaPago)
	s.req("FormaDePagoP", x.FormaDePagoP)
	s.req("MonedaP", x.MonedaP)
	s.opt("TipoCambioP", x.TipoCambioP)
	s.req("Monto", x.Monto)
	s.opt("NumOperacion", x.NumOperacion)
	s.opt("RfcEmisorCtaOrd", x.RfcEmisorCtaOrd)
	s.opt("NomBancoOrdExt", x.NomBancoOrdExt)
	s.opt("CtaOrdenante", x.CtaOrdenante)
	s.opt("RfcEmisorCtaBen", x.RfcEmisorCtaBen)
	s.opt("CtaBeneficiario", x.CtaBeneficiario)
	s.opt("TipoCadPago", x.TipoCadPago)
	s.opt("CertPago", x.CertPago)
	s.opt("CadPago", x.CadPago)
	s.opt("SelloPago", x.SelloPago)
}

func (dr *DoctoRelacionado) attrs(s attrSink) {
	s.req("IdDocumento", dr.IdDocumento)
	s.opt("Serie", dr.Serie)
	s.opt("Folio", dr.Folio)
	s.req("MonedaDR", dr.MonedaDR)
	s.opt("EquivalenciaDR", dr.EquivalenciaDR)
	s.req("NumParcialidad", dr.NumParcialidad)
	s.req("ImpSaldoAnt", dr.ImpSaldoAnt)
	s.req("ImpPagado", dr.ImpPagado)
	s.req("ImpSaldoInsoluto", dr.ImpSaldoInsoluto)
	s.req("ObjetoImpDR", dr.ObjetoImpDR)
}

func (r *ImpuestoDR) retencionAttrs(s attrSink) {
	s.req("BaseDR", r.BaseDR)
	s.req("ImpuestoDR", r.ImpuestoDR)
	s.req("TipoFactorDR", r.TipoFactorDR)
	s.req("TasaOCuotaDR", r.TasaOCuotaDR)
	s.req("ImporteDR", r.ImporteDR)
}

func (r *ImpuestoDR) trasladoAttrs(s attrSink) {
	s.req("BaseDR", r.BaseDR)
	s.req("ImpuestoDR", r.ImpuestoDR)
	s.req("TipoFactorDR", r.TipoFactorDR)
	s.opt("TasaOCuotaDR", r.TasaOCuotaDR)
	s.opt("ImporteDR", r.ImporteDR)
}

func (r *RetencionP) attrs(s attrSink) {
	s.req("ImpuestoP", r.ImpuestoP)
	s.req("ImporteP", r.ImporteP)
}

func (r *TrasladoP) attrs(s attrSink) {
	s.req("BaseP", r.BaseP)
	s.req("ImpuestoP", r.ImpuestoP)
	s.req("TipoFactorP", r.TipoFactorP)
	s.opt("TasaOCuotaP", r.TasaOCuotaP)
	s.opt("ImporteP", r.ImporteP)
}

func parsePagos(n *node) (Complement, error) {
	p := &Pagos{Version: n.attr("Version")}
	if t := n.child(NSPagos20, "Totales"); t != nil {
		p.Totales = PagosTotales{
			t.attr("TotalRetencionesIVA"), t.attr("TotalRetencionesISR"), t.attr("TotalRetencionesIEPS"),
			t.attr("TotalTrasladosBaseIVA16"), t.attr("TotalTrasladosImpuestoIVA16"),
			t.attr("TotalTrasladosBaseIVA8"), t.attr("TotalTrasladosImpuestoIVA8"),
			t.attr("TotalTrasladosBaseIVA0"), t.attr("TotalTrasladosImpuestoIVA0"),
			t.attr("TotalTrasladosBaseIVAExento"), t.attr("MontoTotalPagos"),
		}
	}
	for _, x := range n.children(NSPagos20, "Pago") {
		pg := Pago{
			FechaPago: x.attr("FechaPago"), FormaDePagoP: x.attr("FormaDePagoP"), MonedaP: x.attr("MonedaP"),
			TipoCambioP: x.attr("TipoCambioP"), Monto: x.attr("Monto"), NumOperacion: x.attr("NumOperacion"),
			RfcEmisorCtaOrd: x.attr("RfcEmisorCtaOrd"), NomBancoOrdExt: x.attr("NomBancoOrdExt"),
			CtaOrdenante: x.attr("CtaOrdenante"), RfcEmisorCtaBen: x.attr("RfcEmisorCtaBen"),
			CtaBeneficiario: x.attr("CtaBeneficiario"), TipoCadPago: x.attr("TipoCadPago"),
			CertPago: x.attr("CertPago"), CadPago: x.attr("CadPago"), SelloPago: x.attr("SelloPago"),
		}
		for _, dn := range x.children(NSPagos20, "DoctoRelacionado") {
			dr := DoctoRelacionado{
				IdDocumento: dn.attr("IdDocumento"), Serie: dn.attr("Serie"), Folio: dn.attr("Folio"),
				MonedaDR: dn.attr("MonedaDR"), EquivalenciaDR: dn.attr("EquivalenciaDR"),
				NumParcialidad: dn.attr("NumParcialidad"), ImpSaldoAnt: dn.attr("ImpSaldoAnt"),
				ImpPagado: dn.attr("ImpPagado"), ImpSaldoInsoluto: dn.attr("ImpSaldoInsoluto"),
				ObjetoImpDR: dn.attr("ObjetoImpDR"),
			}
			for _, imp := range dn.children(NSPagos20, "ImpuestosDR") {
				for _, rs := range imp.children(NSPagos20, "RetencionesDR") {
					for _, r := range rs.children(NSPagos20, "RetencionDR") {
						dr.RetencionesDR = append(dr.RetencionesDR, impuestoDR(r))
					}
				}
				for _, ts := range imp.children(NSPagos20, "TrasladosDR") {
					for _, r := range ts.children(NSPagos20, "TrasladoDR") {
						dr.TrasladosDR = append(dr.TrasladosDR, impuestoDR(r))
					}
				}
			}
			pg.DoctoRelacionado = append(pg.DoctoRelacionado, dr)
		}
		for _, imp := range x.children(NSPagos20, "ImpuestosP") {
			for _, rs := range imp.children(NSPagos20, "RetencionesP") {
				for _, r := range rs.children(NSPagos20, "RetencionP") {
					pg.RetencionesP = append(pg.RetencionesP, RetencionP{r.attr("ImpuestoP"), r.attr("ImporteP")})
				}
			}
			for _, ts := range imp.children(NSPagos20, "TrasladosP") {
				for _, r := range ts.children(NSPagos20, "TrasladoP") {
					pg.TrasladosP = append(pg.TrasladosP, TrasladoP{r.attr("BaseP"), r.attr("ImpuestoP"),
						r.attr("TipoFactorP"), r.attr("TasaOCuotaP"), r.attr("ImporteP")})
				}
			}
		}
		p.Pagos = append(p.Pagos, pg)
	}
	return p, nil
}

func impuestoDR(r *node) ImpuestoDR {
	return ImpuestoDR{r.attr("BaseDR"), r.attr("ImpuestoDR"), r.attr("TipoFactorDR"), r.attr("TasaOCuotaDR"), r.attr("ImporteDR")}
}

func init() {
	complementParsers[NSPagos20+" Pagos"] = parsePagos
}
