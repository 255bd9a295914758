package cfdi

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nominaCorpusSize is the number of generated payroll CFDIs the xsltproc cross-check runs over.
const nominaCorpusSize = 60

func (g gen) amount2(maxUnits int) string {
	if g.r.IntN(5) == 0 {
		return "0.00"
	}
	return g.dec(maxUnits, 2).Fixed(2)
}

// nomina makes a random Nómina 1.2 complement (every optional part in turn) and computes its
// totals.
func (g gen) nomina(i int) *Nomina {
	n := &Nomina{Version: "1.2", TipoNomina: g.pick("O", "E"), FechaPago: "2025-08-30", FechaInicialPago: "2025-08-16",
		FechaFinalPago: "2025-08-30", NumDiasPagados: g.pick("15", "15.000", "7.500", "1", "0.001")}
	if g.r.IntN(4) != 0 {
		n.Emisor = &NominaEmisor{Curp: g.maybe("VADA800927HSRSRL05"), RegistroPatronal: g.maybe(g.pick("B5510768108", "Z0000001234", "  reg  patronal ")),
			RfcPatronOrigen: g.maybe("URE180429TM6")}
		if g.r.IntN(5) == 0 {
			n.Emisor.EntidadSNCF = &EntidadSNCF{OrigenRecurso: g.pick("IP", "IF", "IM"), MontoRecursoPropio: g.maybe(g.amount2(10000))}
		}
	}
	n.Receptor = NominaReceptor{
		Curp: g.pick("XEXX010101MNEXXXA8", "FUNK671228MDFNLR09"), NumSeguridadSocial: g.maybe("04078873454"),
		FechaInicioRelLaboral: g.maybe("2024-08-18"), Antigüedad: g.maybe(g.pick("P54W", "P1Y2M15D")), TipoContrato: g.pick("01", "09", "99"),
		Sindicalizado: g.maybe(g.pick("Sí", "No")), TipoJornada: g.maybe("01"), TipoRegimen: g.pick("02", "09"),
		NumEmpleado: g.pick("123456789", "00002", g.text()), Departamento: g.maybe(g.text()), Puesto: g.maybe(g.text()),
		RiesgoPuesto: g.maybe(g.pick("1", "4")), PeriodicidadPago: g.pick("04", "05", "99"), Banco: g.maybe("012"),
		CuentaBancaria: g.maybe("1111111111"), SalarioBaseCotApor: g.maybe(g.amount2(3000)), SalarioDiarioIntegrado: g.maybe(g.amount2(3000)),
		ClaveEntFed: g.pick("JAL", "CMX", "GUA"),
	}
	for range g.r.IntN(3) {
		n.Receptor.SubContratacion = append(n.Receptor.SubContratacion, SubContratacion{RfcLabora: "EKU9003173C9", PorcentajeTiempo: g.pick("50", "33.333", "100")})
	}
	if i%7 != 6 { // some have only other payments
		p := &Percepciones{}
		types := []string{"001", "005", "010", "019", "029", "038", "045", "022", "023", "025", "039", "044"}
		for range 1 + g.r.IntN(5) {
			x := Percepcion{TipoPercepcion: types[g.r.IntN(len(types))], Clave: g.pick("1003", "SP01", "010046"), Concepto: g.text(),
				ImporteGravado: g.amount2(50000), ImporteExento: g.amount2(5000)}
			if x.TipoPercepcion == "019" {
				x.HorasExtra = []HorasExtra{{Dias: "1", TipoHoras: g.pick("01", "02"), HorasExtra: "2", ImportePagado: "100.00"}}
			}
			if x.TipoPercepcion == "045" {
				x.AccionesOTitulos = &AccionesOTitulos{ValorMercado: "150.123456", PrecioAlOtorgarse: "100.5"}
			}
			p.Percepcion = append(p.Percepcion, x)
		}
		for _, x := range p.Percepcion {
			switch x.TipoPercepcion {
			case "039", "044":
				p.JubilacionPensionRetiro = &JubilacionPensionRetiro{TotalUnaExhibicion: g.maybe("1000.00"), TotalParcialidad: g.maybe("50.00"),
					MontoDiario: g.maybe("10.00"), IngresoAcumulable: "800.00", IngresoNoAcumulable: "200.00"}
			case "022", "023", "025":
				p.SeparacionIndemnizacion = &SeparacionIndemnizacion{TotalPagado: "1000.00", NumAñosServicio: g.pick("0", "7", "99"),
					UltimoSueldoMensOrd: "30000.00", IngresoAcumulable: "800.00", IngresoNoAcumulable: "200.00"}
			}
		}
		n.Percepciones = p
	}
	if g.r.IntN(4) != 0 {
		d := &Deducciones{}
		for range 1 + g.r.IntN(4) {
			d.Deduccion = append(d.Deduccion, Deduccion{TipoDeduccion: g.pick("001", "002", "004", "018"), Clave: g.pick("5003", "ISR", "IMSS"),
				Concepto: g.text(), Importe: g.dec(300, 2).Fixed(2)})
		}
		n.Deducciones = d
	}
	if n.Percepciones == nil || g.r.IntN(3) == 0 {
		for range 1 + g.r.IntN(2) {
			o := OtroPago{TipoOtroPago: g.pick("002", "004", "999"), Clave: g.pick("5050", "ISRSUB"), Concepto: g.text(), Importe: g.amount2(500)}
			switch o.TipoOtroPago {
			case "002":
				o.SubsidioAlEmpleo = &SubsidioAlEmpleo{SubsidioCausado: g.amount2(500)}
			case "004":
				o.CompensacionSaldosAFavor = &CompensacionSaldosAFavor{SaldoAFavor: "100.00", Año: "2024", RemanenteSalFav: "0.00"}
			}
			n.OtrosPagos = append(n.OtrosPagos, o)
		}
	}
	if g.r.IntN(5) == 0 {
		n.Incapacidades = []Incapacidad{{DiasIncapacidad: "3", TipoIncapacidad: g.pick("01", "02"), ImporteMonetario: g.maybe("450.00")}}
	}
	return n
}

// nominaDoc makes a payroll CFDI around a generated complement, with the rules of type N.
func (g gen) nominaDoc(i int) (*Comprobante, *Nomina, error) {
	n := g.nomina(i)
	t, err := n.Compute()
	if err != nil {
		return nil, nil, err
	}
	// Deductions never exceed what is paid in a valid payroll: trim them if the draw did.
	if paid, _ := t.Percepciones.Add(t.OtrosPagos); t.Deducciones.Cmp(paid) > 0 {
		n.Deducciones = nil
		if t, err = n.Compute(); err != nil {
			return nil, nil, err
		}
	}
	item, err := NominaConcepto(t)
	if err != nil {
		return nil, nil, err
	}
	c := &Comprobante{
		Version: "4.0", Serie: g.maybe("N"), Folio: g.maybe(fmt.Sprint(i)),
		Fecha:  time.Date(2025, 9, 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), 0, 0, time.UTC).Format(DateLayout),
		Moneda: NominaMoneda, TipoDeComprobante: TipoNomina, Exportacion: NominaExportacion, MetodoPago: NominaMetodoPago,
		LugarExpedicion: "20000",
		Emisor:          Emisor{Rfc: "EKU9003173C9", Nombre: g.text(), RegimenFiscal: "601"},
		Receptor: Receptor{Rfc: "FUNK671228PH6", Nombre: g.text(), DomicilioFiscalReceptor: "01160",
			RegimenFiscalReceptor: NominaRegimen, UsoCFDI: NominaUsoCFDI},
	}
	if _, err := Compute(c, []Item{item}, Options{CurrencyDecimals: 2}); err != nil {
		return nil, nil, err
	}
	c.Complemento = append(c.Complemento, n)
	return c, n, nil
}

// The Go cadena of payroll CFDIs (Nómina 1.2 with every optional part: EntidadSNCF,
// SubContratacion, HorasExtra, AccionesOTitulos, JubilacionPensionRetiro, SeparacionIndemnizacion,
// SubsidioAlEmpleo, CompensacionSaldosAFavor, Incapacidades, and texts that need escaping) equals
// xsltproc's with SAT's cadenaoriginal_4_0.xslt, which includes nomina12.xslt; each survives Parse
// → XML → Parse; the amounts obey the rules of type N.
func TestNominaCorpus(t *testing.T) {
	needTool(t, "xsltproc")
	satDir(t)
	issuer, pac := pairs(t)
	g := gen{rand.New(rand.NewPCG(12, 1))}
	dir := t.TempDir()
	var files, want []string
	for i := range nominaCorpusSize {
		c, n, err := g.nominaDoc(i)
		if err != nil {
			t.Fatalf("payroll %d: %v", i, err)
		}
		if _, err := Seal(c, issuer.Cert, keyOf(issuer)); err != nil {
			t.Fatalf("payroll %d: seal: %v", i, err)
		}
		if i%2 == 0 {
			if _, err := Stamp(c, pac.Cert, keyOf(pac), g.uuid(), time.Date(2025, 9, 30, 8, 0, 0, 0, time.UTC), "SPR190613I52"); err != nil {
				t.Fatal(err)
			}
		}
		checkNominaAmounts(t, i, c, n)
		x, err := c.XML()
		if err != nil {
			t.Fatalf("payroll %d: %v", i, err)
		}
		if !bytes.Contains(x, []byte(`xmlns:nomina12="`+NSNomina12+`"`)) || !bytes.Contains(x, []byte(NSNomina12+" "+Nomina12SchemaLocation)) {
			t.Fatalf("payroll %d: namespace or schema location missing:\n%s", i, x)
		}
		cad, err := c.Cadena()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(x)
		if err != nil {
			t.Fatalf("payroll %d: parse: %v\n%s", i, err, x)
		}
		if _, ok := back.Complemento[0].(*Nomina); !ok {
			t.Fatalf("payroll %d: parsed complement is %T", i, back.Complemento[0])
		}
		if again, err := back.Cadena(); err != nil || again != cad {
			t.Fatalf("payroll %d: the parsed XML's cadena differs (%v)\n got: %s\nwant: %s", i, err, again, cad)
		}
		if x2, _ := back.XML(); !bytes.Equal(x2, x) {
			t.Fatalf("payroll %d: Parse → XML is not the same XML\n got: %s\nwant: %s", i, x2, x)
		}
		f := filepath.Join(dir, fmt.Sprintf("nomina%03d.xml", i))
		if err := os.WriteFile(f, x, 0o600); err != nil {
			t.Fatal(err)
		}
		files, want = append(files, f), append(want, cad)
	}
	got := parallelXSLT(t, xslt40, files)
	for i := range files {
		if string(got[i]) != want[i] {
			x, _ := os.ReadFile(files[i])
			t.Fatalf("%s: Go cadena differs from xsltproc\n  go: %q\nxslt: %q\n%s", filepath.Base(files[i]), want[i], got[i], x)
		}
	}
	t.Logf("%d payroll CFDIs: Go cadena = xsltproc", len(files))
}

// checkNominaAmounts recomputes the rules of type N from the written text.
func checkNominaAmounts(t *testing.T, i int, c *Comprobante, n *Nomina) {
	t.Helper()
	d := func(s string) Decimal {
		if s == "" {
			return Zero
		}
		return MustDecimal(s)
	}
	add := func(a, b Decimal) Decimal { s, _ := a.Add(b); return s }
	var perc, sueldos, sep, jub, grav, exen, isr, otras, otros Decimal
	if p := n.Percepciones; p != nil {
		for _, x := range p.Percepcion {
			line := add(d(x.ImporteGravado), d(x.ImporteExento))
			grav, exen = add(grav, d(x.ImporteGravado)), add(exen, d(x.ImporteExento))
			switch x.TipoPercepcion {
			case "022", "023", "025":
				sep = add(sep, line)
			case "039", "044":
				jub = add(jub, line)
			default:
				sueldos = add(sueldos, line)
			}
		}
		perc = add(add(sueldos, sep), jub)
		if d(p.TotalSueldos).Cmp(sueldos) != 0 || d(p.TotalSeparacionIndemnizacion).Cmp(sep) != 0 || d(p.TotalJubilacionPensionRetiro).Cmp(jub) != 0 ||
			d(p.TotalGravado).Cmp(grav) != 0 || d(p.TotalExento).Cmp(exen) != 0 || d(n.TotalPercepciones).Cmp(perc) != 0 {
			t.Fatalf("payroll %d: earnings totals wrong: %+v", i, *p)
		}
		if add(grav, exen).Cmp(perc) != 0 {
			t.Fatalf("payroll %d: TotalGravado + TotalExento ≠ TotalPercepciones", i)
		}
	}
	if dd := n.Deducciones; dd != nil {
		for _, x := range dd.Deduccion {
			if x.TipoDeduccion == "002" {
				isr = add(isr, d(x.Importe))
			} else {
				otras = add(otras, d(x.Importe))
			}
		}
		if d(dd.TotalImpuestosRetenidos).Cmp(isr) != 0 || d(dd.TotalOtrasDeducciones).Cmp(otras) != 0 || d(n.TotalDeducciones).Cmp(add(isr, otras)) != 0 {
			t.Fatalf("payroll %d: deduction totals wrong: %+v", i, *dd)
		}
	}
	for _, o := range n.OtrosPagos {
		otros = add(otros, d(o.Importe))
	}
	if d(n.TotalOtrosPagos).Cmp(otros) != 0 {
		t.Fatalf("payroll %d: TotalOtrosPagos %s ≠ %s", i, n.TotalOtrosPagos, otros)
	}
	k := c.Conceptos[0]
	paid := add(perc, otros)
	ded := add(isr, otras)
	total, _ := paid.Sub(ded)
	if len(c.Conceptos) != 1 || k.ClaveProdServ != "84111505" || k.Cantidad != "1" || k.ClaveUnidad != "ACT" || k.Descripcion != "Pago de nómina" ||
		k.ObjetoImp != "01" || len(k.Traslados)+len(k.Retenciones) != 0 || c.Impuestos != nil {
		t.Fatalf("payroll %d: concepto %+v", i, k)
	}
	if d(k.ValorUnitario).Cmp(paid) != 0 || d(k.Importe).Cmp(paid) != 0 || d(k.Descuento).Cmp(ded) != 0 ||
		d(c.SubTotal).Cmp(paid) != 0 || d(c.Descuento).Cmp(ded) != 0 || d(c.Total).Cmp(total) != 0 {
		t.Fatalf("payroll %d: amounts: concepto %+v, SubTotal %s Descuento %s Total %s", i, k, c.SubTotal, c.Descuento, c.Total)
	}
	if c.FormaPago != "" || c.MetodoPago != "PUE" || c.Receptor.UsoCFDI != "CN01" || c.Moneda != "MXN" {
		t.Fatalf("payroll %d: header %+v", i, c)
	}
}

func TestNominaComputeErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    Nomina
		want string
	}{
		{"three decimals", Nomina{Percepciones: &Percepciones{Percepcion: []Percepcion{{TipoPercepcion: "001", ImporteGravado: "1.001", ImporteExento: "0"}}}}, "more than 2 decimals"},
		{"negative", Nomina{Deducciones: &Deducciones{Deduccion: []Deduccion{{TipoDeduccion: "002", Importe: "-1"}}}}, "negative"},
		{"not a number", Nomina{OtrosPagos: []OtroPago{{TipoOtroPago: "002", Importe: "x"}}}, "Importe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.n.Compute(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := NominaConcepto(NominaTotals{Percepciones: FromInt(10), Deducciones: FromInt(11)}); err == nil {
		t.Fatal("deductions above earnings accepted")
	}
}

// The totals of a known payroll (the official client's "nómina ordinaria" example).
func TestNominaComputeKnown(t *testing.T) {
	n := &Nomina{
		Percepciones: &Percepciones{Percepcion: []Percepcion{
			{TipoPercepcion: "001", ImporteGravado: "95030.00", ImporteExento: "0.00"},
			{TipoPercepcion: "005", ImporteGravado: "0.00", ImporteExento: "4412.46"},
			{TipoPercepcion: "038", ImporteGravado: "14254.50", ImporteExento: "0.00"},
			{TipoPercepcion: "029", ImporteGravado: "0.00", ImporteExento: "3439.00"},
			{TipoPercepcion: "038", ImporteGravado: "273.00", ImporteExento: "0.00"},
		}},
		Deducciones: &Deducciones{Deduccion: []Deduccion{
			{TipoDeduccion: "002", Importe: "27645.52"}, {TipoDeduccion: "004", Importe: "4412.46"}, {TipoDeduccion: "004", Importe: "4412.46"},
			{TipoDeduccion: "004", Importe: "519.91"}, {TipoDeduccion: "004", Importe: "1.00"}, {TipoDeduccion: "004", Importe: "3439.00"},
			{TipoDeduccion: "001", Importe: "2391.13"},
		}},
		OtrosPagos: []OtroPago{{TipoOtroPago: "002", Importe: "0.00", SubsidioAlEmpleo: &SubsidioAlEmpleo{"0.00"}}},
	}
	tot, err := n.Compute()
	if err != nil {
		t.Fatal(err)
	}
	p, d := n.Percepciones, n.Deducciones
	got := []string{n.TotalPercepciones, n.TotalDeducciones, n.TotalOtrosPagos, p.TotalSueldos, p.TotalGravado, p.TotalExento,
		p.TotalSeparacionIndemnizacion, p.TotalJubilacionPensionRetiro, d.TotalImpuestosRetenidos, d.TotalOtrasDeducciones}
	want := []string{"117408.96", "42821.48", "0.00", "117408.96", "109557.50", "7851.46", "", "", "27645.52", "15175.96"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("totals %q, want %q", got, want)
	}
	item, err := NominaConcepto(tot)
	if err != nil || item.ValorUnitario.Fixed(2) != "117408.96" || item.Descuento.Fixed(2) != "42821.48" {
		t.Fatalf("concepto %+v, %v", item, err)
	}
}
