package cfdi

import (
	"fmt"
)

// Nómina 1.2 (nomina12:Nomina), the complement of a payroll CFDI (TipoDeComprobante N).
//
// The model holds text as written, like the rest of the package. Nomina.Compute writes the
// complement's totals from its lines (the sums SAT recomputes), and NominaConcepto is the one
// line a payroll CFDI carries (Anexo 20 and SAT's guide to filling the payroll CFDI).

// Nómina 1.2 namespace and schema.
const (
	NSNomina12             = "http://www.sat.gob.mx/nomina12"
	Nomina12SchemaLocation = "http://www.sat.gob.mx/sitio_internet/cfd/nomina/nomina12.xsd"
)

// Fixed values of a payroll CFDI (SAT's guide to filling the payroll CFDI 4.0).
const (
	NominaClaveProdServ = "84111505"
	NominaClaveUnidad   = "ACT"
	NominaDescripcion   = "Pago de nómina"
	NominaObjetoImp     = "01"
	NominaUsoCFDI       = "CN01"
	NominaMetodoPago    = "PUE"
	NominaRegimen       = "605"
	NominaMoneda        = "MXN"
	NominaExportacion   = "01"
)

// TipoPercepcion and TipoDeduccion keys the totals single out.
const (
	PercepcionPrimaAntiguedad     = "022"
	PercepcionPagosSeparacion     = "023"
	PercepcionIndemnizaciones     = "025"
	PercepcionJubilacionUnaExhib  = "039"
	PercepcionJubilacionParcial   = "044"
	DeduccionISR                  = "002"
	OtroPagoSubsidioEmpleo        = "002"
	OtroPagoCompensacionSaldosFav = "004"
)

// Nomina is the payroll complement.
type Nomina struct {
	Version           string // "1.2"
	TipoNomina        string // O, E
	FechaPago         string // 2006-01-02
	FechaInicialPago  string
	FechaFinalPago    string
	NumDiasPagados    string
	TotalPercepciones string
	TotalDeducciones  string
	TotalOtrosPagos   string

	Emisor        *NominaEmisor
	Receptor      NominaReceptor
	Percepciones  *Percepciones
	Deducciones   *Deducciones
	OtrosPagos    []OtroPago    // none means no nomina12:OtrosPagos
	Incapacidades []Incapacidad // none means no nomina12:Incapacidades
}

// NominaEmisor is the employer's data.
type NominaEmisor struct {
	Curp             string
	RegistroPatronal string
	RfcPatronOrigen  string
	EntidadSNCF      *EntidadSNCF
}

// EntidadSNCF: the employer is an entity of the national fiscal coordination system.
type EntidadSNCF struct {
	OrigenRecurso      string
	MontoRecursoPropio string
}

// NominaReceptor is the employee's data.
type NominaReceptor struct {
	Curp                   string
	NumSeguridadSocial     string
	FechaInicioRelLaboral  string
	Antigüedad             string
	TipoContrato           string
	Sindicalizado          string
	TipoJornada            string
	TipoRegimen            string
	NumEmpleado            string
	Departamento           string
	Puesto                 string
	RiesgoPuesto           string
	PeriodicidadPago       string
	Banco                  string
	CuentaBancaria         string
	SalarioBaseCotApor     string
	SalarioDiarioIntegrado string
	ClaveEntFed            string
	SubContratacion        []SubContratacion
}

// SubContratacion is a taxpayer the employee works for under subcontracting.
type SubContratacion struct {
	RfcLabora        string
	PorcentajeTiempo string
}

// Percepciones are the earnings.
type Percepciones struct {
	TotalSueldos                 string
	TotalSeparacionIndemnizacion string
	TotalJubilacionPensionRetiro string
	TotalGravado                 string
	TotalExento                  string
	Percepcion                   []Percepcion
	JubilacionPensionRetiro      *JubilacionPensionRetiro
	SeparacionIndemnizacion      *SeparacionIndemnizacion
}

// Percepcion is one earning.
type Percepcion struct {
	TipoPercepcion   string
	Clave            string
	Concepto         string
	ImporteGravado   string
	ImporteExento    string
	AccionesOTitulos *AccionesOTitulos
	HorasExtra       []HorasExtra
}

// AccionesOTitulos: stock options (TipoPercepcion 045).
type AccionesOTitulos struct {
	ValorMercado      string
	PrecioAlOtorgarse string
}

// HorasExtra: overtime (TipoPercepcion 019).
type HorasExtra struct {
	Dias          string
	TipoHoras     string
	HorasExtra    string
	ImportePagado string
}

// JubilacionPensionRetiro: retirement payments (TipoPercepcion 039, 044).
type JubilacionPensionRetiro struct {
	TotalUnaExhibicion  string
	TotalParcialidad    string
	MontoDiario         string
	IngresoAcumulable   string
	IngresoNoAcumulable string
}

// SeparacionIndemnizacion: severance payments (TipoPercepcion 022, 023, 025).
type SeparacionIndemnizacion struct {
	TotalPagado         string
	NumAñosServicio     string
	UltimoSueldoMensOrd string
	IngresoAcumulable   string
	IngresoNoAcumulable string
}

// Deducciones are the deductions.
type Deducciones struct {
	TotalOtrasDeducciones   string
	TotalImpuestosRetenidos string
	Deduccion               []Deduccion
}

// Deduccion is one deduction.
type Deduccion struct {
	TipoDeduccion string
	Clave         string
	Concepto      string
	Importe       string
}

// OtroPago is a payment that is not an earning (employment subsidy, balance compensation...).
type OtroPago struct {
	TipoOtroPago             string
	Clave                    string
	Concepto                 string
	Importe                  string
	SubsidioAlEmpleo         *SubsidioAlEmpleo
	CompensacionSaldosAFavor *CompensacionSaldosAFavor
}

// SubsidioAlEmpleo is the employment subsidy caused (TipoOtroPago 002).
type SubsidioAlEmpleo struct{ SubsidioCausado string }

// CompensacionSaldosAFavor is a compensation of a favourable balance (TipoOtroPago 004).
type CompensacionSaldosAFavor struct {
	SaldoAFavor     string
	Año             string
	RemanenteSalFav string
}

// Incapacidad is a disability.
type Incapacidad struct {
	DiasIncapacidad  string
	TipoIncapacidad  string
	ImporteMonetario string
}

// NominaTotals are the complement's totals as numbers.
type NominaTotals struct {
	Percepciones, Deducciones, OtrosPagos Decimal
}

// Compute writes the complement's totals from its lines, the way SAT recomputes them (Nómina
// 1.2 and its guide), every amount with 2 decimals (t_ImporteMXN):
//
//   - Percepciones: TotalGravado = Σ ImporteGravado, TotalExento = Σ ImporteExento;
//     TotalSeparacionIndemnizacion = Σ (gravado + exento) of TipoPercepcion 022, 023, 025 and
//     TotalJubilacionPensionRetiro of 039, 044, each present only when such lines exist;
//     TotalSueldos of every other type, present when there is one.
//   - TotalPercepciones = TotalSueldos + TotalSeparacionIndemnizacion +
//     TotalJubilacionPensionRetiro (present with Percepciones).
//   - Deducciones: TotalImpuestosRetenidos = Σ Importe of TipoDeduccion 002, TotalOtrasDeducciones
//     of the rest, each present when such lines exist; TotalDeducciones is their sum (present with
//     Deducciones).
//   - TotalOtrosPagos = Σ OtroPago.Importe (present with OtrosPagos).
//
// A line amount must be a non-negative number with at most 2 decimals.
func (n *Nomina) Compute() (NominaTotals, error) {
	var t NominaTotals
	var err error
	read := func(what, v string) Decimal {
		if err != nil {
			return Zero
		}
		d, e := ParseDecimal(v)
		switch {
		case e != nil:
			err = fmt.Errorf("cfdi: nómina: %s %q: %w", what, v, e)
		case d.Sign() < 0:
			err = fmt.Errorf("cfdi: nómina: %s %s is negative", what, v)
		case d.Places() > 2:
			err = fmt.Errorf("cfdi: nómina: %s %s has more than 2 decimals", what, v)
		}
		return d
	}
	sum := func(a *Decimal, b Decimal) {
		s, ok := a.Add(b)
		if !ok && err == nil {
			err = fmt.Errorf("cfdi: nómina: %w", ErrOverflow)
		}
		*a = s
	}
	n.TotalPercepciones, n.TotalDeducciones, n.TotalOtrosPagos = "", "", ""
	if p := n.Percepciones; p != nil {
		var gravado, exento, sueldos, separacion, jubilacion Decimal
		var anySueldos, anySeparacion, anyJubilacion bool
		for i := range p.Percepcion {
			x := &p.Percepcion[i]
			g, e := read("ImporteGravado", x.ImporteGravado), read("ImporteExento", x.ImporteExento)
			sum(&gravado, g)
			sum(&exento, e)
			line, _ := g.Add(e)
			switch x.TipoPercepcion {
			case PercepcionPrimaAntiguedad, PercepcionPagosSeparacion, PercepcionIndemnizaciones:
				sum(&separacion, line)
				anySeparacion = true
			case PercepcionJubilacionUnaExhib, PercepcionJubilacionParcial:
				sum(&jubilacion, line)
				anyJubilacion = true
			default:
				sum(&sueldos, line)
				anySueldos = true
			}
		}
		p.TotalGravado, p.TotalExento = gravado.Fixed(2), exento.Fixed(2)
		p.TotalSueldos, p.TotalSeparacionIndemnizacion, p.TotalJubilacionPensionRetiro = "", "", ""
		if anySueldos {
			p.TotalSueldos = sueldos.Fixed(2)
		}
		if anySeparacion {
			p.TotalSeparacionIndemnizacion = separacion.Fixed(2)
		}
		if anyJubilacion {
			p.TotalJubilacionPensionRetiro = jubilacion.Fixed(2)
		}
		sum(&t.Percepciones, sueldos)
		sum(&t.Percepciones, separacion)
		sum(&t.Percepciones, jubilacion)
		n.TotalPercepciones = t.Percepciones.Fixed(2)
	}
	if d := n.Deducciones; d != nil {
		var isr, otras Decimal
		var anyISR, anyOtras bool
		for i := range d.Deduccion {
			x := &d.Deduccion[i]
			v := read("Importe", x.Importe)
			if x.TipoDeduccion == DeduccionISR {
				sum(&isr, v)
				anyISR = true
			} else {
				sum(&otras, v)
				anyOtras = true
			}
		}
		d.TotalImpuestosRetenidos, d.TotalOtrasDeducciones = "", ""
		if anyISR {
			d.TotalImpuestosRetenidos = isr.Fixed(2)
		}
		if anyOtras {
			d.TotalOtrasDeducciones = otras.Fixed(2)
		}
		sum(&t.Deducciones, isr)
		sum(&t.Deducciones, otras)
		n.TotalDeducciones = t.Deducciones.Fixed(2)
	}
	if len(n.OtrosPagos) > 0 {
		for i := range n.OtrosPagos {
			sum(&t.OtrosPagos, read("Importe", n.OtrosPagos[i].Importe))
		}
		n.TotalOtrosPagos = t.OtrosPagos.Fixed(2)
	}
	if err != nil {
		return NominaTotals{}, err
	}
	return t, nil
}

// NominaConcepto is the one line of a payroll CFDI: ClaveProdServ 84111505, Cantidad 1, ClaveUnidad
// ACT, Descripcion "Pago de nómina", ValorUnitario (and Importe) = TotalPercepciones +
// TotalOtrosPagos, Descuento = TotalDeducciones, ObjetoImp 01 and no taxes. With it Compute gives
// SubTotal = TotalPercepciones + TotalOtrosPagos, Descuento = TotalDeducciones and Total =
// SubTotal − Descuento.
func NominaConcepto(t NominaTotals) (Item, error) {
	v, ok := t.Percepciones.Add(t.OtrosPagos)
	if !ok {
		return Item{}, fmt.Errorf("cfdi: nómina: %w", ErrOverflow)
	}
	if t.Deducciones.Cmp(v) > 0 {
		return Item{}, fmt.Errorf("cfdi: nómina: deductions %s exceed earnings and other payments %s", t.Deducciones.Fixed(2), v.Fixed(2))
	}
	return Item{ClaveProdServ: NominaClaveProdServ, ClaveUnidad: NominaClaveUnidad, Descripcion: NominaDescripcion,
		ObjetoImp: NominaObjetoImp, Cantidad: FromInt(1), ValorUnitario: v, Descuento: t.Deducciones}, nil
}

func (n *Nomina) namespace() (string, string, string) {
	return "nomina12", NSNomina12, Nomina12SchemaLocation
}

func (n *Nomina) writeXML(w *xmlWriter) {
	w.open("nomina12:Nomina")
	w.attr("Version", n.Version)
	w.attr("TipoNomina", n.TipoNomina)
	w.attr("FechaPago", n.FechaPago)
	w.attr("FechaInicialPago", n.FechaInicialPago)
	w.attr("FechaFinalPago", n.FechaFinalPago)
	w.attr("NumDiasPagados", n.NumDiasPagados)
	w.opt("TotalPercepciones", n.TotalPercepciones)
	w.opt("TotalDeducciones", n.TotalDeducciones)
	w.opt("TotalOtrosPagos", n.TotalOtrosPagos)
	w.endStart()
	if e := n.Emisor; e != nil {
		w.open("nomina12:Emisor")
		w.opt("Curp", e.Curp)
		w.opt("RegistroPatronal", e.RegistroPatronal)
		w.opt("RfcPatronOrigen", e.RfcPatronOrigen)
		if s := e.EntidadSNCF; s != nil {
			w.endStart()
			w.open("nomina12:EntidadSNCF")
			w.attr("OrigenRecurso", s.OrigenRecurso)
			w.opt("MontoRecursoPropio", s.MontoRecursoPropio)
			w.endEmpty()
			w.close("nomina12:Emisor")
		} else {
			w.endEmpty()
		}
	}
	r := &n.Receptor
	w.open("nomina12:Receptor")
	w.attr("Curp", r.Curp)
	w.opt("NumSeguridadSocial", r.NumSeguridadSocial)
	w.opt("FechaInicioRelLaboral", r.FechaInicioRelLaboral)
	w.opt("Antigüedad", r.Antigüedad)
	w.attr("TipoContrato", r.TipoContrato)
	w.opt("Sindicalizado", r.Sindicalizado)
	w.opt("TipoJornada", r.TipoJornada)
	w.attr("TipoRegimen", r.TipoRegimen)
	w.attr("NumEmpleado", r.NumEmpleado)
	w.opt("Departamento", r.Departamento)
	w.opt("Puesto", r.Puesto)
	w.opt("RiesgoPuesto", r.RiesgoPuesto)
	w.attr("PeriodicidadPago", r.PeriodicidadPago)
	w.opt("Banco", r.Banco)
	w.opt("CuentaBancaria", r.CuentaBancaria)
	w.opt("SalarioBaseCotApor", r.SalarioBaseCotApor)
	w.opt("SalarioDiarioIntegrado", r.SalarioDiarioIntegrado)
	w.attr("ClaveEntFed", r.ClaveEntFed)
	if len(r.SubContratacion) == 0 {
		w.endEmpty()
	} else {
		w.endStart()
		for _, s := range r.SubContratacion {
			w.open("nomina12:SubContratacion")
			w.attr("RfcLabora", s.RfcLabora)
			w.attr("PorcentajeTiempo", s.PorcentajeTiempo)
			w.endEmpty()
		}
		w.close("nomina12:Receptor")
	}
	if p := n.Percepciones; p != nil {
		w.open("nomina12:Percepciones")
		w.opt("TotalSueldos", p.TotalSueldos)
		w.opt("TotalSeparacionIndemnizacion", p.TotalSeparacionIndemnizacion)
		w.opt("TotalJubilacionPensionRetiro", p.TotalJubilacionPensionRetiro)
		w.attr("TotalGravado", p.TotalGravado)
		w.attr("TotalExento", p.TotalExento)
		w.endStart()
		for i := range p.Percepcion {
			x := &p.Percepcion[i]
			w.open("nomina12:Percepcion")
			w.attr("TipoPercepcion", x.TipoPercepcion)
			w.attr("Clave", x.Clave)
			w.attr("Concepto", x.Concepto)
			w.attr("ImporteGravado", x.ImporteGravado)
			w.attr("ImporteExento", x.ImporteExento)
			if x.AccionesOTitulos == nil && len(x.HorasExtra) == 0 {
				w.endEmpty()
				continue
			}
			w.endStart()
			if a := x.AccionesOTitulos; a != nil {
				w.open("nomina12:AccionesOTitulos")
				w.attr("ValorMercado", a.ValorMercado)
				w.attr("PrecioAlOtorgarse", a.PrecioAlOtorgarse)
				w.endEmpty()
			}
			for _, h := range x.HorasExtra {
				w.open("nomina12:HorasExtra")
				w.attr("Dias", h.Dias)
				w.attr("TipoHoras", h.TipoHoras)
				w.attr("HorasExtra", h.HorasExtra)
				w.attr("ImportePagado", h.ImportePagado)
				w.endEmpty()
			}
			w.close("nomina12:Percepcion")
		}
		if j := p.JubilacionPensionRetiro; j != nil {
			w.open("nomina12:JubilacionPensionRetiro")
			w.opt("TotalUnaExhibicion", j.TotalUnaExhibicion)
			w.opt("TotalParcialidad", j.TotalParcialidad)
			w.opt("MontoDiario", j.MontoDiario)
			w.attr("IngresoAcumulable", j.IngresoAcumulable)
			w.attr("IngresoNoAcumulable", j.IngresoNoAcumulable)
			w.endEmpty()
		}
		if s := p.SeparacionIndemnizacion; s != nil {
			w.open("nomina12:SeparacionIndemnizacion")
			w.attr("TotalPagado", s.TotalPagado)
			w.attr("NumAñosServicio", s.NumAñosServicio)
			w.attr("UltimoSueldoMensOrd", s.UltimoSueldoMensOrd)
			w.attr("IngresoAcumulable", s.IngresoAcumulable)
			w.attr("IngresoNoAcumulable", s.IngresoNoAcumulable)
			w.endEmpty()
		}
		w.close("nomina12:Percepciones")
	}
	if d := n.Deducciones; d != nil {
		w.open("nomina12:Deducciones")
		w.opt("TotalOtrasDeducciones", d.TotalOtrasDeducciones)
		w.opt("TotalImpuestosRetenidos", d.TotalImpuestosRetenidos)
		w.endStart()
		for _, x := range d.Deduccion {
			w.open("nomina12:Deduccion")
			w.attr("TipoDeduccion", x.TipoDeduccion)
			w.attr("Clave", x.Clave)
			w.attr("Concepto", x.Concepto)
			w.attr("Importe", x.Importe)
			w.endEmpty()
		}
		w.close("nomina12:Deducciones")
	}
	if len(n.OtrosPagos) > 0 {
		w.raw("<nomina12:OtrosPagos>")
		for i := range n.OtrosPagos {
			x := &n.OtrosPagos[i]
			w.open("nomina12:OtroPago")
			w.attr("TipoOtroPago", x.TipoOtroPago)
			w.attr("Clave", x.Clave)
			w.attr("Concepto", x.Concepto)
			w.attr("Importe", x.Importe)
			if x.SubsidioAlEmpleo == nil && x.CompensacionSaldosAFavor == nil {
				w.endEmpty()
				continue
			}
			w.endStart()
			if s := x.SubsidioAlEmpleo; s != nil {
				w.open("nomina12:SubsidioAlEmpleo")
				w.attr("SubsidioCausado", s.SubsidioCausado)
				w.endEmpty()
			}
			if c := x.CompensacionSaldosAFavor; c != nil {
				w.open("nomina12:CompensacionSaldosAFavor")
				w.attr("SaldoAFavor", c.SaldoAFavor)
				w.attr("Año", c.Año)
				w.attr("RemanenteSalFav", c.RemanenteSalFav)
				w.endEmpty()
			}
			w.close("nomina12:OtroPago")
		}
		w.close("nomina12:OtrosPagos")
	}
	if len(n.Incapacidades) > 0 {
		w.raw("<nomina12:Incapacidades>")
		for _, x := range n.Incapacidades {
			w.open("nomina12:Incapacidad")
			w.attr("DiasIncapacidad", x.DiasIncapacidad)
			w.attr("TipoIncapacidad", x.TipoIncapacidad)
			w.opt("ImporteMonetario", x.ImporteMonetario)
			w.endEmpty()
		}
		w.close("nomina12:Incapacidades")
	}
	w.close("nomina12:Nomina")
}

// cadena follows nomina12.xslt.
func (n *Nomina) cadena(c *cadenaBuilder) error {
	c.req(n.Version)
	c.req(n.TipoNomina)
	c.req(n.FechaPago)
	c.req(n.FechaInicialPago)
	c.req(n.FechaFinalPago)
	c.req(n.NumDiasPagados)
	c.opt(n.TotalPercepciones)
	c.opt(n.TotalDeducciones)
	c.opt(n.TotalOtrosPagos)
	if e := n.Emisor; e != nil {
		c.opt(e.Curp)
		c.opt(e.RegistroPatronal)
		c.opt(e.RfcPatronOrigen)
		if s := e.EntidadSNCF; s != nil {
			c.req(s.OrigenRecurso)
			c.opt(s.MontoRecursoPropio)
		}
	}
	r := &n.Receptor
	c.req(r.Curp)
	c.opt(r.NumSeguridadSocial)
	c.opt(r.FechaInicioRelLaboral)
	c.opt(r.Antigüedad)
	c.req(r.TipoContrato)
	c.opt(r.Sindicalizado)
	c.opt(r.TipoJornada)
	c.req(r.TipoRegimen)
	c.req(r.NumEmpleado)
	c.opt(r.Departamento)
	c.opt(r.Puesto)
	c.opt(r.RiesgoPuesto)
	c.req(r.PeriodicidadPago)
	c.opt(r.Banco)
	c.opt(r.CuentaBancaria)
	c.opt(r.SalarioBaseCotApor)
	c.opt(r.SalarioDiarioIntegrado)
	c.req(r.ClaveEntFed)
	for _, s := range r.SubContratacion {
		c.req(s.RfcLabora)
		c.req(s.PorcentajeTiempo)
	}
	if p := n.Percepciones; p != nil {
		c.opt(p.TotalSueldos)
		c.opt(p.TotalSeparacionIndemnizacion)
		c.opt(p.TotalJubilacionPensionRetiro)
		c.req(p.TotalGravado)
		c.req(p.TotalExento)
		for i := range p.Percepcion {
			x := &p.Percepcion[i]
			c.req(x.TipoPercepcion)
			c.req(x.Clave)
			c.req(x.Concepto)
			c.req(x.ImporteGravado)
			c.req(x.ImporteExento)
			if a := x.AccionesOTitulos; a != nil {
				c.req(a.ValorMercado)
				c.req(a.PrecioAlOtorgarse)
			}
			for _, h := range x.HorasExtra {
				c.req(h.Dias)
				c.req(h.TipoHoras)
				c.req(h.HorasExtra)
				c.req(h.ImportePagado)
			}
		}
		if j := p.JubilacionPensionRetiro; j != nil {
			c.opt(j.TotalUnaExhibicion)
			c.opt(j.TotalParcialidad)
			c.opt(j.MontoDiario)
			c.req(j.IngresoAcumulable)
			c.req(j.IngresoNoAcumulable)
		}
		if s := p.SeparacionIndemnizacion; s != nil {
			c.req(s.TotalPagado)
			c.req(s.NumAñosServicio)
			c.req(s.UltimoSueldoMensOrd)
			c.req(s.IngresoAcumulable)
			c.req(s.IngresoNoAcumulable)
		}
	}
	if d := n.Deducciones; d != nil {
		c.opt(d.TotalOtrasDeducciones)
		c.opt(d.TotalImpuestosRetenidos)
		for _, x := range d.Deduccion {
			c.req(x.TipoDeduccion)
			c.req(x.Clave)
			c.req(x.Concepto)
			c.req(x.Importe)
		}
	}
	for i := range n.OtrosPagos {
		x := &n.OtrosPagos[i]
		c.req(x.TipoOtroPago)
		c.req(x.Clave)
		c.req(x.Concepto)
		c.req(x.Importe)
		if s := x.SubsidioAlEmpleo; s != nil {
			c.req(s.SubsidioCausado)
		}
		if k := x.CompensacionSaldosAFavor; k != nil {
			c.req(k.SaldoAFavor)
			c.req(k.Año)
			c.req(k.RemanenteSalFav)
		}
	}
	for _, x := range n.Incapacidades {
		c.req(x.DiasIncapacidad)
		c.req(x.TipoIncapacidad)
		c.opt(x.ImporteMonetario)
	}
	return nil
}

func parseNomina(n *node) (Complement, error) {
	const ns = NSNomina12
	out := &Nomina{
		Version: n.attr("Version"), TipoNomina: n.attr("TipoNomina"), FechaPago: n.attr("FechaPago"),
		FechaInicialPago: n.attr("FechaInicialPago"), FechaFinalPago: n.attr("FechaFinalPago"),
		NumDiasPagados: n.attr("NumDiasPagados"), TotalPercepciones: n.attr("TotalPercepciones"),
		TotalDeducciones: n.attr("TotalDeducciones"), TotalOtrosPagos: n.attr("TotalOtrosPagos"),
	}
	if e := n.child(ns, "Emisor"); e != nil {
		out.Emisor = &NominaEmisor{Curp: e.attr("Curp"), RegistroPatronal: e.attr("RegistroPatronal"), RfcPatronOrigen: e.attr("RfcPatronOrigen")}
		if s := e.child(ns, "EntidadSNCF"); s != nil {
			out.Emisor.EntidadSNCF = &EntidadSNCF{s.attr("OrigenRecurso"), s.attr("MontoRecursoPropio")}
		}
	}
	if r := n.child(ns, "Receptor"); r != nil {
		out.Receptor = NominaReceptor{
			Curp: r.attr("Curp"), NumSeguridadSocial: r.attr("NumSeguridadSocial"), FechaInicioRelLaboral: r.attr("FechaInicioRelLaboral"),
			Antigüedad: r.attr("Antigüedad"), TipoContrato: r.attr("TipoContrato"), Sindicalizado: r.attr("Sindicalizado"),
			TipoJornada: r.attr("TipoJornada"), TipoRegimen: r.attr("TipoRegimen"), NumEmpleado: r.attr("NumEmpleado"),
			Departamento: r.attr("Departamento"), Puesto: r.attr("Puesto"), RiesgoPuesto: r.attr("RiesgoPuesto"),
			PeriodicidadPago: r.attr("PeriodicidadPago"), Banco: r.attr("Banco"), CuentaBancaria: r.attr("CuentaBancaria"),
			SalarioBaseCotApor: r.attr("SalarioBaseCotApor"), SalarioDiarioIntegrado: r.attr("SalarioDiarioIntegrado"),
			ClaveEntFed: r.attr("ClaveEntFed"),
		}
		for _, s := range r.children(ns, "SubContratacion") {
			out.Receptor.SubContratacion = append(out.Receptor.SubContratacion, SubContratacion{s.attr("RfcLabora"), s.attr("PorcentajeTiempo")})
		}
	}
	if p := n.child(ns, "Percepciones"); p != nil {
		ps := &Percepciones{TotalSueldos: p.attr("TotalSueldos"), TotalSeparacionIndemnizacion: p.attr("TotalSeparacionIndemnizacion"),
			TotalJubilacionPensionRetiro: p.attr("TotalJubilacionPensionRetiro"), TotalGravado: p.attr("TotalGravado"), TotalExento: p.attr("TotalExento")}
		for _, x := range p.children(ns, "Percepcion") {
			pc := Percepcion{TipoPercepcion: x.attr("TipoPercepcion"), Clave: x.attr("Clave"), Concepto: x.attr("Concepto"),
				ImporteGravado: x.attr("ImporteGravado"), ImporteExento: x.attr("ImporteExento")}
			if a := x.child(ns, "AccionesOTitulos"); a != nil {
				pc.AccionesOTitulos = &AccionesOTitulos{a.attr("ValorMercado"), a.attr("PrecioAlOtorgarse")}
			}
			for _, h := range x.children(ns, "HorasExtra") {
				pc.HorasExtra = append(pc.HorasExtra, HorasExtra{h.attr("Dias"), h.attr("TipoHoras"), h.attr("HorasExtra"), h.attr("ImportePagado")})
			}
			ps.Percepcion = append(ps.Percepcion, pc)
		}
		if j := p.child(ns, "JubilacionPensionRetiro"); j != nil {
			ps.JubilacionPensionRetiro = &JubilacionPensionRetiro{j.attr("TotalUnaExhibicion"), j.attr("TotalParcialidad"),
				j.attr("MontoDiario"), j.attr("IngresoAcumulable"), j.attr("IngresoNoAcumulable")}
		}
		if s := p.child(ns, "SeparacionIndemnizacion"); s != nil {
			ps.SeparacionIndemnizacion = &SeparacionIndemnizacion{s.attr("TotalPagado"), s.attr("NumAñosServicio"),
				s.attr("UltimoSueldoMensOrd"), s.attr("IngresoAcumulable"), s.attr("IngresoNoAcumulable")}
		}
		out.Percepciones = ps
	}
	if d := n.child(ns, "Deducciones"); d != nil {
		ds := &Deducciones{TotalOtrasDeducciones: d.attr("TotalOtrasDeducciones"), TotalImpuestosRetenidos: d.attr("TotalImpuestosRetenidos")}
		for _, x := range d.children(ns, "Deduccion") {
			ds.Deduccion = append(ds.Deduccion, Deduccion{x.attr("TipoDeduccion"), x.attr("Clave"), x.attr("Concepto"), x.attr("Importe")})
		}
		out.Deducciones = ds
	}
	for _, op := range n.children(ns, "OtrosPagos") {
		for _, x := range op.children(ns, "OtroPago") {
			o := OtroPago{TipoOtroPago: x.attr("TipoOtroPago"), Clave: x.attr("Clave"), Concepto: x.attr("Concepto"), Importe: x.attr("Importe")}
			if s := x.child(ns, "SubsidioAlEmpleo"); s != nil {
				o.SubsidioAlEmpleo = &SubsidioAlEmpleo{s.attr("SubsidioCausado")}
			}
			if k := x.child(ns, "CompensacionSaldosAFavor"); k != nil {
				o.CompensacionSaldosAFavor = &CompensacionSaldosAFavor{k.attr("SaldoAFavor"), k.attr("Año"), k.attr("RemanenteSalFav")}
			}
			out.OtrosPagos = append(out.OtrosPagos, o)
		}
	}
	for _, in := range n.children(ns, "Incapacidades") {
		for _, x := range in.children(ns, "Incapacidad") {
			out.Incapacidades = append(out.Incapacidades, Incapacidad{x.attr("DiasIncapacidad"), x.attr("TipoIncapacidad"), x.attr("ImporteMonetario")})
		}
	}
	return out, nil
}

func init() {
	complementParsers[NSNomina12+" Nomina"] = parseNomina
}
