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
	w.open("pago20:Totales")
	w.opt("TotalRetencionesIVA", t.TotalRetencionesIVA)
	w.opt("TotalRetencionesISR", t.TotalRetencionesISR)
	w.opt("TotalRetencionesIEPS", t.TotalRetencionesIEPS)
	w.opt("TotalTrasladosBaseIVA16", t.TotalTrasladosBaseIVA16)
	w.opt("TotalTrasladosImpuestoIVA16", t.TotalTrasladosImpuestoIVA16)
	w.opt("TotalTrasladosBaseIVA8", t.TotalTrasladosBaseIVA8)
	w.opt("TotalTrasladosImpuestoIVA8", t.TotalTrasladosImpuestoIVA8)
	w.opt("TotalTrasladosBaseIVA0", t.TotalTrasladosBaseIVA0)
	w.opt("TotalTrasladosImpuestoIVA0", t.TotalTrasladosImpuestoIVA0)
	w.opt("TotalTrasladosBaseIVAExento", t.TotalTrasladosBaseIVAExento)
	w.attr("MontoTotalPagos", t.MontoTotalPagos)
	w.endEmpty()
	for i := range p.Pagos {
		x := &p.Pagos[i]
		w.open("pago20:Pago")
		w.attr("FechaPago", x.FechaPago)
		w.attr("FormaDePagoP", x.FormaDePagoP)
		w.attr("MonedaP", x.MonedaP)
		w.opt("TipoCambioP", x.TipoCambioP)
		w.attr("Monto", x.Monto)
		w.opt("NumOperacion", x.NumOperacion)
		w.opt("RfcEmisorCtaOrd", x.RfcEmisorCtaOrd)
		w.opt("NomBancoOrdExt", x.NomBancoOrdExt)
		w.opt("CtaOrdenante", x.CtaOrdenante)
		w.opt("RfcEmisorCtaBen", x.RfcEmisorCtaBen)
		w.opt("CtaBeneficiario", x.CtaBeneficiario)
		w.opt("TipoCadPago", x.TipoCadPago)
		w.opt("CertPago", x.CertPago)
		w.opt("CadPago", x.CadPago)
		w.opt("SelloPago", x.SelloPago)
		w.endStart()
		for j := range x.DoctoRelacionado {
			dr := &x.DoctoRelacionado[j]
			w.open("pago20:DoctoRelacionado")
			w.attr("IdDocumento", dr.IdDocumento)
			w.opt("Serie", dr.Serie)
			w.opt("Folio", dr.Folio)
			w.attr("MonedaDR", dr.MonedaDR)
			w.opt("EquivalenciaDR", dr.EquivalenciaDR)
			w.attr("NumParcialidad", dr.NumParcialidad)
			w.attr("ImpSaldoAnt", dr.ImpSaldoAnt)
			w.attr("ImpPagado", dr.ImpPagado)
			w.attr("ImpSaldoInsoluto", dr.ImpSaldoInsoluto)
			w.attr("ObjetoImpDR", dr.ObjetoImpDR)
			if len(dr.RetencionesDR) == 0 && len(dr.TrasladosDR) == 0 {
				w.endEmpty()
				continue
			}
			w.endStart()
			w.raw("<pago20:ImpuestosDR>")
			if len(dr.RetencionesDR) > 0 {
				w.raw("<pago20:RetencionesDR>")
				for _, r := range dr.RetencionesDR {
					w.open("pago20:RetencionDR")
					w.attr("BaseDR", r.BaseDR)
					w.attr("ImpuestoDR", r.ImpuestoDR)
					w.attr("TipoFactorDR", r.TipoFactorDR)
					w.attr("TasaOCuotaDR", r.TasaOCuotaDR)
					w.attr("ImporteDR", r.ImporteDR)
					w.endEmpty()
				}
				w.close("pago20:RetencionesDR")
			}
			if len(dr.TrasladosDR) > 0 {
				w.raw("<pago20:TrasladosDR>")
				for _, r := range dr.TrasladosDR {
					w.open("pago20:TrasladoDR")
					w.attr("BaseDR", r.BaseDR)
					w.attr("ImpuestoDR", r.ImpuestoDR)
					w.attr("TipoFactorDR", r.TipoFactorDR)
					w.opt("TasaOCuotaDR", r.TasaOCuotaDR)
					w.opt("ImporteDR", r.ImporteDR)
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
				for _, r := range x.RetencionesP {
					w.open("pago20:RetencionP")
					w.attr("ImpuestoP", r.ImpuestoP)
					w.attr("ImporteP", r.ImporteP)
					w.endEmpty()
				}
				w.close("pago20:RetencionesP")
			}
			if len(x.TrasladosP) > 0 {
				w.raw("<pago20:TrasladosP>")
				for _, r := range x.TrasladosP {
					w.open("pago20:TrasladoP")
					w.attr("BaseP", r.BaseP)
					w.attr("ImpuestoP", r.ImpuestoP)
					w.attr("TipoFactorP", r.TipoFactorP)
					w.opt("TasaOCuotaP", r.TasaOCuotaP)
					w.opt("ImporteP", r.ImporteP)
					w.endEmpty()
				}
				w.close("pago20:TrasladosP")
			}
			w.close("pago20:ImpuestosP")
		}
		w.close("pago20:Pago")
	}
	w.close("pago20:Pagos")
}

// cadena follows Pagos20.xslt.
func (p *Pagos) cadena(c *cadenaBuilder) error {
	c.req(p.Version)
	t := &p.Totales
	c.opt(t.TotalRetencionesIVA)
	c.opt(t.TotalRetencionesISR)
	c.opt(t.TotalRetencionesIEPS)
	c.opt(t.TotalTrasladosBaseIVA16)
	c.opt(t.TotalTrasladosImpuestoIVA16)
	c.opt(t.TotalTrasladosBaseIVA8)
	c.opt(t.TotalTrasladosImpuestoIVA8)
	c.opt(t.TotalTrasladosBaseIVA0)
	c.opt(t.TotalTrasladosImpuestoIVA0)
	c.opt(t.TotalTrasladosBaseIVAExento)
	c.req(t.MontoTotalPagos)
	for i := range p.Pagos {
		x := &p.Pagos[i]
		c.req(x.FechaPago)
		c.req(x.FormaDePagoP)
		c.req(x.MonedaP)
		c.opt(x.TipoCambioP)
		c.req(x.Monto)
		c.opt(x.NumOperacion)
		c.opt(x.RfcEmisorCtaOrd)
		c.opt(x.NomBancoOrdExt)
		c.opt(x.CtaOrdenante)
		c.opt(x.RfcEmisorCtaBen)
		c.opt(x.CtaBeneficiario)
		c.opt(x.TipoCadPago)
		c.opt(x.CertPago)
		c.opt(x.CadPago)
		c.opt(x.SelloPago)
		for j := range x.DoctoRelacionado {
			dr := &x.DoctoRelacionado[j]
			c.req(dr.IdDocumento)
			c.opt(dr.Serie)
			c.opt(dr.Folio)
			c.req(dr.MonedaDR)
			c.opt(dr.EquivalenciaDR)
			c.req(dr.NumParcialidad)
			c.req(dr.ImpSaldoAnt)
			c.req(dr.ImpPagado)
			c.req(dr.ImpSaldoInsoluto)
			c.req(dr.ObjetoImpDR)
			for _, r := range dr.RetencionesDR {
				c.req(r.BaseDR)
				c.req(r.ImpuestoDR)
				c.req(r.TipoFactorDR)
				c.req(r.TasaOCuotaDR)
				c.req(r.ImporteDR)
			}
			for _, r := range dr.TrasladosDR {
				c.req(r.BaseDR)
				c.req(r.ImpuestoDR)
				c.req(r.TipoFactorDR)
				c.opt(r.TasaOCuotaDR)
				c.opt(r.ImporteDR)
			}
		}
		for _, r := range x.RetencionesP {
			c.req(r.ImpuestoP)
			c.req(r.ImporteP)
		}
		for _, r := range x.TrasladosP {
			c.req(r.BaseP)
			c.req(r.ImpuestoP)
			c.req(r.TipoFactorP)
			c.opt(r.TasaOCuotaP)
			c.opt(r.ImporteP)
		}
	}
	return nil
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
