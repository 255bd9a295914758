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
	n.attrs(w)
	w.endStart()
	if e := n.Emisor; e != nil {
		w.open("nomina12:Emisor")
		e.attrs(w)
		if s := e.EntidadSNCF; s != nil {
			w.endStart()
			w.empty("nomina12:EntidadSNCF", s)
			w.close("nomina12:Emisor")
		} else {
			w.endEmpty()
		}
	}
	r := &n.Receptor
	w.open("nomina12:Receptor")
	r.attrs(w)
	if len(r.SubContratacion) == 0 {
		w.endEmpty()
	} else {
		w.endStart()
		for i := range r.SubContratacion {
			w.empty("nomina12:SubContratacion", &r.SubContratacion[i])
		}
		w.close("nomina12:Receptor")
	}
	if p := n.Percepciones; p != nil {
		w.open("nomina12:Percepciones")
		p.attrs(w)
		w.endStart()
		for i := range p.Percepcion {
			x := &p.Percepcion[i]
			w.open("nomina12:Percepcion")
			x.attrs(w)
			if x.AccionesOTitulos == nil && len(x.HorasExtra) == 0 {
				w.endEmpty()
				continue
			}
			w.endStart()
			if a := x.AccionesOTitulos; a != nil {
				w.empty("nomina12:AccionesOTitulos", a)
			}
			for i := range x.HorasExtra {
				w.empty("nomina12:HorasExtra", &x.HorasExtra[i])
			}
			w.close("nomina12:Percepcion")
		}
		if j := p.JubilacionPensionRetiro; j != nil {
			w.empty("nomina12:JubilacionPensionRetiro", j)
		}
		if s := p.SeparacionIndemnizacion; s != nil {
			w.empty("nomina12:SeparacionIndemnizacion", s)
		}
		w.close("nomina12:Percepciones")
	}
	if d := n.Deducciones; d != nil {
		w.open("nomina12:Deducciones")
		d.attrs(w)
		w.endStart()
		for i := range d.Deduccion {
			w.empty("nomina12:Deduccion", &d.Deduccion[i])
		}
		w.close("nomina12:Deducciones")
	}
	if len(n.OtrosPagos) > 0 {
		w.raw("<nomina12:OtrosPagos>")
		for i := range n.OtrosPagos {
			x := &n.OtrosPagos[i]
			w.open("nomina12:OtroPago")
			x.attrs(w)
			if x.SubsidioAlEmpleo == nil && x.CompensacionSaldosAFavor == nil {
				w.endEmpty()
				continue
			}
			w.endStart()
			if s := x.SubsidioAlEmpleo; s != nil {
				w.empty("nomina12:SubsidioAlEmpleo", s)
			}
			if c := x.CompensacionSaldosAFavor; c != nil {
				w.empty("nomina12:CompensacionSaldosAFavor", c)
			}
			w.close("nomina12:OtroPago")
		}
		w.close("nomina12:OtrosPagos")
	}
	if len(n.Incapacidades) > 0 {
		w.raw("<nomina12:Incapacidades>")
		for i := range n.Incapacidades {
			w.empty("nomina12:Incapacidad", &n.Incapacidades[i])
		}
		w.close("nomina12:Incapacidades")
	}
	w.close("nomina12:Nomina")
}

// cadena follows nomina12.xslt.
func (n *Nomina) cadena(c *cadenaBuilder) error {
	as := cadenaAttrs{c}
	n.attrs(as)
	if e := n.Emisor; e != nil {
		e.attrs(as)
		if s := e.EntidadSNCF; s != nil {
			s.attrs(as)
		}
	}
	r := &n.Receptor
	r.attrs(as)
	for _, s := range r.SubContratacion {
		s.attrs(as)
	}
	if p := n.Percepciones; p != nil {
		p.attrs(as)
		for i := range p.Percepcion {
			x := &p.Percepcion[i]
			x.attrs(as)
			if a := x.AccionesOTitulos; a != nil {
				a.attrs(as)
			}
			for _, h := range x.HorasExtra {
				h.attrs(as)
			}
		}
		if j := p.JubilacionPensionRetiro; j != nil {
			j.attrs(as)
		}
		if s := p.SeparacionIndemnizacion; s != nil {
			s.attrs(as)
		}
	}
	if d := n.Deducciones; d != nil {
		d.attrs(as)
		for _, x := range d.Deduccion {
			x.attrs(as)
		}
	}
	for i := range n.OtrosPagos {
		x := &n.OtrosPagos[i]
		x.attrs(as)
		if s := x.SubsidioAlEmpleo; s != nil {
			s.attrs(as)
		}
		if k := x.CompensacionSaldosAFavor; k != nil {
			k.attrs(as)
		}
	}
	for _, x := range n.Incapacidades {
		x.attrs(as)
	}
	return nil
}

// The attributes of each element of the complement, in the schema's order: its XML and its
// cadena (nomina12.xslt) walk the same lists.

func (v *Nomina) attrs(s attrSink) {
	s.req("Version", v.Version)
	s.req("TipoNomina", v.TipoNomina)
	s.req("FechaPago", v.FechaPago)
	s.req("FechaInicialPago", v.FechaInicialPago)
	s.req("FechaFinalPago", v.FechaFinalPago)
	s.req("NumDiasPagados", v.NumDiasPagados)
	s.opt("TotalPercepciones", v.TotalPercepciones)
	s.opt("TotalDeducciones", v.TotalDeducciones)
	s.opt("TotalOtrosPagos", v.TotalOtrosPagos)
}

func (v *NominaEmisor) attrs(s attrSink) {
	s.opt("Curp", v.Curp)
	s.opt("RegistroPatronal", v.RegistroPatronal)
	s.opt("RfcPatronOrigen", v.RfcPatronOrigen)
}

func (v *EntidadSNCF) attrs(s attrSink) {
	s.req("OrigenRecurso", v.OrigenRecurso)
	s.opt("MontoRecursoPropio", v.MontoRecursoPropio)
}

func (v *NominaReceptor) attrs(s attrSink) {
	s.req("Curp", v.Curp)
	s.opt("NumSeguridadSocial", v.NumSeguridadSocial)
	s.opt("FechaInicioRelLaboral", v.FechaInicioRelLaboral)
	s.opt("Antigüedad", v.Antigüedad)
	s.req("TipoContrato", v.TipoContrato)
	s.opt("Sindicalizado", v.Sindicalizado)
	s.opt("TipoJornada", v.TipoJornada)
	s.req("TipoRegimen", v.TipoRegimen)
	s.req("NumEmpleado", v.NumEmpleado)
	s.opt("Departamento", v.Departamento)
	s.opt("Puesto", v.Puesto)
	s.opt("RiesgoPuesto", v.RiesgoPuesto)
	s.req("PeriodicidadPago", v.PeriodicidadPago)
	s.opt("Banco", v.Banco)
	s.opt("CuentaBancaria", v.CuentaBancaria)
	s.opt("SalarioBaseCotApor", v.SalarioBaseCotApor)
	s.opt("SalarioDiarioIntegrado", v.SalarioDiarioIntegrado)
	s.req("ClaveEntFed", v.ClaveEntFed)
}

func (v *SubContratacion) attrs(s attrSink) {
	s.req("RfcLabora", v.RfcLabora)
	s.req("PorcentajeTiempo", v.PorcentajeTiempo)
}

func (v *Percepciones) attrs(s attrSink) {
	s.opt("TotalSueldos", v.TotalSueldos)
	s.opt("TotalSeparacionIndemnizacion", v.TotalSeparacionIndemnizacion)
	s.opt("TotalJubilacionPensionRetiro", v.TotalJubilacionPensionRetiro)
	s.req("TotalGravado", v.TotalGravado)
	s.req("TotalExento", v.TotalExento)
}

func (v *Percepcion) attrs(s attrSink) {
	s.req("TipoPercepcion", v.TipoPercepcion)
	s.req("Clave", v.Clave)
	s.req("Concepto", v.Concepto)
	s.req("ImporteGravado", v.ImporteGravado)
	s.req("ImporteExento", v.ImporteExento)
}

func (v *AccionesOTitulos) attrs(s attrSink) {
	s.req("ValorMercado", v.ValorMercado)
	s.req("PrecioAlOtorgarse", v.PrecioAlOtorgarse)
}

func (v *HorasExtra) attrs(s attrSink) {
	s.req("Dias", v.Dias)
	s.req("TipoHoras", v.TipoHoras)
	s.req("HorasExtra", v.HorasExtra)
	s.req("ImportePagado", v.ImportePagado)
}

func (v *JubilacionPensionRetiro) attrs(s attrSink) {
	s.opt("TotalUnaExhibicion", v.TotalUnaExhibicion)
	s.opt("TotalParcialidad", v.TotalParcialidad)
	s.opt("MontoDiario", v.MontoDiario)
	s.req("IngresoAcumulable", v.IngresoAcumulable)
	s.req("IngresoNoAcumulable", v.IngresoNoAcumulable)
}

func (v *SeparacionIndemnizacion) attrs(s attrSink) {
	s.req("TotalPagado", v.TotalPagado)
	s.req("NumAñosServicio", v.NumAñosServicio)
	s.req("UltimoSueldoMensOrd", v.UltimoSueldoMensOrd)
	s.req("IngresoAcumulable", v.IngresoAcumulable)
	s.req("IngresoNoAcumulable", v.IngresoNoAcumulable)
}

func (v *Deducciones) attrs(s attrSink) {
	s.opt("TotalOtrasDeducciones", v.TotalOtrasDeducciones)
	s.opt("TotalImpuestosRetenidos", v.TotalImpuestosRetenidos)
}

func (v *Deduccion) attrs(s attrSink) {
	s.req("TipoDeduccion", v.TipoDeduccion)
	s.req("Clave", v.Clave)
	s.req("Concepto", v.Concepto)
	s.req("Importe", v.Importe)
}

func (v *OtroPago) attrs(s attrSink) {
	s.req("TipoOtroPago", v.TipoOtroPago)
	s.req("Clave", v.Clave)
	s.req("Concepto", v.Concepto)
	s.req("Importe", v.Importe)
}

func (v *SubsidioAlEmpleo) attrs(s attrSink) {
	s.req("SubsidioCausado", v.SubsidioCausado)
}

func (v *CompensacionSaldosAFavor) attrs(s attrSink) {
	s.req("SaldoAFavor", v.SaldoAFavor)
	s.req("Año", v.Año)
	s.req("RemanenteSalFav", v.RemanenteSalFav)
}

func (v *Incapacidad) attrs(s attrSink) {
	s.req("DiasIncapacidad", v.DiasIncapacidad)
	s.req("TipoIncapacidad", v.TipoIncapacidad)
	s.opt("ImporteMonetario", v.ImporteMonetario)
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
