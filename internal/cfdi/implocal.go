package cfdi

import "fmt"

// Impuestos Locales 1.0 (implocal:ImpuestosLocales): state and municipal taxes, which SAT's
// cfdi:Impuestos does not carry; their totals move the invoice's Total (Options of Compute).

// Impuestos Locales namespace and schema.
const (
	NSImpLocal             = "http://www.sat.gob.mx/implocal"
	ImpLocalSchemaLocation = "http://www.sat.gob.mx/sitio_internet/cfd/implocal/implocal.xsd"
)

// ImpuestosLocales is the complement.
type ImpuestosLocales struct {
	Version            string // "1.0" (attribute "version")
	TotaldeRetenciones string
	TotaldeTraslados   string
	Retenciones        []ImpuestoLocal // RetencionesLocales: ImpLocRetenido, TasadeRetencion, Importe
	Traslados          []ImpuestoLocal // TrasladosLocales: ImpLocTrasladado, TasadeTraslado, Importe
}

// ImpuestoLocal is one local tax: its name, its rate in percent (2 decimals) and its amount.
type ImpuestoLocal struct {
	Nombre  string
	Tasa    string
	Importe string
}

// LocalTax is a local tax to compute: Importe = Base × Tasa / 100 (Tasa rounded to the schema's 2
// decimals first), rounded to the currency's decimals half away from zero.
type LocalTax struct {
	Nombre string
	Tasa   Decimal // percent, e.g. 2.5 for 2.5 %
	Base   Decimal
}

// NewImpuestosLocales computes the complement; its totals are what Options.LocalTraslados and
// Options.LocalRetenciones take.
func NewImpuestosLocales(retenciones, traslados []LocalTax, currencyDecimals int) (c *ImpuestosLocales, totalRetenciones, totalTraslados Decimal, err error) {
	if currencyDecimals < 0 || currencyDecimals > Scale {
		return nil, Zero, Zero, fmt.Errorf("cfdi: currency decimals %d: must be 0 to 6", currencyDecimals)
	}
	c = &ImpuestosLocales{Version: "1.0"}
	hundredth := NewDecimal(0, unit/100)
	do := func(in []LocalTax, out *[]ImpuestoLocal, total *Decimal) error {
		for i, t := range in {
			if t.Tasa.Sign() < 0 || t.Base.Sign() < 0 {
				return fmt.Errorf("cfdi: local tax %d: negative rate or base", i)
			}
			tasa := t.Tasa.Round(2)                    // the schema's 2 decimals; the amount uses the rate as written
			rate, _ := tasa.MulRound(hundredth, Scale) // exact: 4 decimals
			amt, ok := t.Base.MulRound(rate, currencyDecimals)
			if !ok {
				return fmt.Errorf("cfdi: local tax %d: %w", i, ErrOverflow)
			}
			*out = append(*out, ImpuestoLocal{Nombre: t.Nombre, Tasa: tasa.Fixed(2), Importe: amt.Fixed(currencyDecimals)})
			if *total, ok = total.Add(amt); !ok {
				return fmt.Errorf("cfdi: local taxes: %w", ErrOverflow)
			}
		}
		return nil
	}
	if err := do(retenciones, &c.Retenciones, &totalRetenciones); err != nil {
		return nil, Zero, Zero, err
	}
	if err := do(traslados, &c.Traslados, &totalTraslados); err != nil {
		return nil, Zero, Zero, err
	}
	c.TotaldeRetenciones = totalRetenciones.Fixed(currencyDecimals)
	c.TotaldeTraslados = totalTraslados.Fixed(currencyDecimals)
	return c, totalRetenciones, totalTraslados, nil
}

func (c *ImpuestosLocales) namespace() (string, string, string) {
	return "implocal", NSImpLocal, ImpLocalSchemaLocation
}

func (c *ImpuestosLocales) writeXML(w *xmlWriter) {
	w.open("implocal:ImpuestosLocales")
	c.attrs(w)
	if len(c.Retenciones) == 0 && len(c.Traslados) == 0 {
		w.endEmpty()
		return
	}
	w.endStart()
	for i := range c.Retenciones {
		w.open("implocal:RetencionesLocales")
		c.Retenciones[i].retenidoAttrs(w)
		w.endEmpty()
	}
	for i := range c.Traslados {
		w.open("implocal:TrasladosLocales")
		c.Traslados[i].trasladoAttrs(w)
		w.endEmpty()
	}
	w.close("implocal:ImpuestosLocales")
}

// cadena follows implocal.xslt: the totals, every withholding, then every transfer.
func (c *ImpuestosLocales) cadena(b *cadenaBuilder) error {
	a := cadenaAttrs{b}
	c.attrs(a)
	for i := range c.Retenciones {
		c.Retenciones[i].retenidoAttrs(a)
	}
	for i := range c.Traslados {
		c.Traslados[i].trasladoAttrs(a)
	}
	return nil
}

func (c *ImpuestosLocales) attrs(s attrSink) {
	s.req("version", c.Version)
	s.req("TotaldeRetenciones", c.TotaldeRetenciones)
	s.req("TotaldeTraslados", c.TotaldeTraslados)
}

func (r *ImpuestoLocal) retenidoAttrs(s attrSink) {
	s.req("ImpLocRetenido", r.Nombre)
	s.req("TasadeRetencion", r.Tasa)
	s.req("Importe", r.Importe)
}

func (r *ImpuestoLocal) trasladoAttrs(s attrSink) {
	s.req("ImpLocTrasladado", r.Nombre)
	s.req("TasadeTraslado", r.Tasa)
	s.req("Importe", r.Importe)
}

func parseImpLocal(n *node) (Complement, error) {
	c := &ImpuestosLocales{Version: n.attr("version"), TotaldeRetenciones: n.attr("TotaldeRetenciones"),
		TotaldeTraslados: n.attr("TotaldeTraslados")}
	for _, r := range n.children(NSImpLocal, "RetencionesLocales") {
		c.Retenciones = append(c.Retenciones, ImpuestoLocal{r.attr("ImpLocRetenido"), r.attr("TasadeRetencion"), r.attr("Importe")})
	}
	for _, r := range n.children(NSImpLocal, "TrasladosLocales") {
		c.Traslados = append(c.Traslados, ImpuestoLocal{r.attr("ImpLocTrasladado"), r.attr("TasadeTraslado"), r.attr("Importe")})
	}
	return c, nil
}

func init() {
	complementParsers[NSImpLocal+" ImpuestosLocales"] = parseImpLocal
}
