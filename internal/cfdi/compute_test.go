package cfdi

import (
	"fmt"
	"strings"
	"testing"
)

func d(s string) Decimal { return MustDecimal(s) }
func dp(s string) *Decimal {
	x := MustDecimal(s)
	return &x
}

func iva(rate string) Tax { return Tax{Impuesto: IVA, TipoFactor: Tasa, TasaOCuota: d(rate)} }

func line(q, v string, taxes ...Tax) Item {
	return Item{ClaveProdServ: "01010101", ClaveUnidad: "H87", Descripcion: "x", ObjetoImp: "02",
		Cantidad: d(q), ValorUnitario: d(v), Taxes: taxes}
}

// summary writes the computed amounts compactly: per line "Importe[-Descuento] T:Base/Impuesto/
// TipoFactor/Tasa/Importe R:...", then the totals.
func summary(doc *Comprobante) string {
	var b strings.Builder
	for _, k := range doc.Conceptos {
		b.WriteString(k.Cantidad + "x" + k.ValorUnitario + "=" + k.Importe)
		if k.Descuento != "" {
			b.WriteString("-" + k.Descuento)
		}
		for _, t := range k.Traslados {
			b.WriteString(" T:" + t.Base + "/" + t.Impuesto + "/" + t.TipoFactor + "/" + t.TasaOCuota + "/" + t.Importe)
		}
		for _, t := range k.Retenciones {
			b.WriteString(" R:" + t.Base + "/" + t.Impuesto + "/" + t.TipoFactor + "/" + t.TasaOCuota + "/" + t.Importe)
		}
		b.WriteString("; ")
	}
	if i := doc.Impuestos; i != nil {
		for _, t := range i.Traslados {
			b.WriteString("GT:" + t.Base + "/" + t.Impuesto + "/" + t.TipoFactor + "/" + t.TasaOCuota + "/" + t.Importe + " ")
		}
		for _, r := range i.Retenciones {
			b.WriteString("GR:" + r.Impuesto + "/" + r.Importe + " ")
		}
		b.WriteString("TT=" + i.TotalImpuestosTrasladados + " TR=" + i.TotalImpuestosRetenidos + " ")
	}
	b.WriteString("Sub=" + doc.SubTotal + " Desc=" + doc.Descuento + " Total=" + doc.Total)
	return b.String()
}

// Hand-computed cases, including the rounding edges a float or banker's rounding gets wrong.
func TestCompute(t *testing.T) {
	disc := line("2", "150.00", iva("0.16"))
	disc.Descuento = d("30")
	cases := []struct {
		name  string
		cd    int
		items []Item
		local [2]string
		want  string
	}{
		{"simple IVA 16%", 2, []Item{line("1", "100", iva("0.16"))},
			[2]string{}, "1x100.00=100.00 T:100.00/002/Tasa/0.160000/16.00; GT:100.00/002/Tasa/0.160000/16.00 TT=16.00 TR= Sub=100.00 Desc= Total=116.00"},
		// 3 × 0.835 = 2.505 exactly: half away from zero gives 2.51 (a float product is
		// 2.5049999… and banker's rounding gives 2.50). IVA 2.51 × 0.16 = 0.4016 → 0.40.
		{"importe x.xx5", 2, []Item{line("3", "0.835", iva("0.16"))},
			[2]string{}, "3x0.835=2.51 T:2.51/002/Tasa/0.160000/0.40; GT:2.51/002/Tasa/0.160000/0.40 TT=0.40 TR= Sub=2.51 Desc= Total=2.91"},
		// ISR 10% of 12.35 = 1.235 → 1.24.
		{"withholding x.xx5", 2, []Item{line("1", "12.35", Tax{Impuesto: ISR, TipoFactor: Tasa, TasaOCuota: d("0.10"), Retencion: true})},
			[2]string{}, "1x12.35=12.35 R:12.35/001/Tasa/0.100000/1.24; GR:001/1.24 TT= TR=1.24 Sub=12.35 Desc= Total=11.11"},
		{"discount", 2, []Item{disc},
			[2]string{}, "2x150.00=300.00-30.00 T:270.00/002/Tasa/0.160000/43.20; GT:270.00/002/Tasa/0.160000/43.20 TT=43.20 TR= Sub=300.00 Desc=30.00 Total=313.20"},
		// Professional fees: IVA 16%, ISR 10% withheld, two thirds of IVA withheld (0.106667).
		{"honorarios", 2, []Item{line("1", "10000", iva("0.16"),
			Tax{Impuesto: ISR, TipoFactor: Tasa, TasaOCuota: d("0.10"), Retencion: true},
			Tax{Impuesto: IVA, TipoFactor: Tasa, TasaOCuota: d("0.106667"), Retencion: true})},
			[2]string{}, "1x10000.00=10000.00 T:10000.00/002/Tasa/0.160000/1600.00 R:10000.00/001/Tasa/0.100000/1000.00 R:10000.00/002/Tasa/0.106667/1066.67; " +
				"GT:10000.00/002/Tasa/0.160000/1600.00 GR:001/1000.00 GR:002/1066.67 TT=1600.00 TR=2066.67 Sub=10000.00 Desc= Total=9533.33"},
		// IEPS by quota: 100 litres at 6.4555 per litre; the IVA base includes the IEPS.
		{"IEPS Cuota", 2, []Item{line("100", "20", Tax{Impuesto: IEPS, TipoFactor: Cuota, TasaOCuota: d("6.4555")},
			Tax{Impuesto: IVA, TipoFactor: Tasa, TasaOCuota: d("0.16"), Base: dp("2645.55")})},
			[2]string{}, "100x20.00=2000.00 T:100.00/003/Cuota/6.455500/645.55 T:2645.55/002/Tasa/0.160000/423.29; " +
				"GT:100.00/003/Cuota/6.455500/645.55 GT:2645.55/002/Tasa/0.160000/423.29 TT=1068.84 TR= Sub=2000.00 Desc= Total=3068.84"},
		{"Exento only", 2, []Item{line("1", "500", Tax{Impuesto: IVA, TipoFactor: Exento})},
			[2]string{}, "1x500.00=500.00 T:500.00/002/Exento//; GT:500.00/002/Exento// TT= TR= Sub=500.00 Desc= Total=500.00"},
		// Per-line rounding: three lines of 0.10 at 16% are 0.016 each → 0.02 × 3 = 0.06, and the
		// totals are the sums of the rounded lines (what SAT recomputes).
		{"sum of rounded lines", 2, []Item{line("1", "0.10", iva("0.16")), line("1", "0.10", iva("0.16")), line("1", "0.10", iva("0.16"))},
			[2]string{}, "1x0.10=0.10 T:0.10/002/Tasa/0.160000/0.02; 1x0.10=0.10 T:0.10/002/Tasa/0.160000/0.02; 1x0.10=0.10 T:0.10/002/Tasa/0.160000/0.02; " +
				"GT:0.30/002/Tasa/0.160000/0.06 TT=0.06 TR= Sub=0.30 Desc= Total=0.36"},
		{"grouping by rate", 2, []Item{line("1", "100", iva("0.16")), line("2", "25", iva("0.16")), line("1", "200", iva("0.08")),
			line("1", "30", iva("0")), line("1", "40", Tax{Impuesto: IVA, TipoFactor: Exento})},
			[2]string{}, "1x100.00=100.00 T:100.00/002/Tasa/0.160000/16.00; 2x25.00=50.00 T:50.00/002/Tasa/0.160000/8.00; " +
				"1x200.00=200.00 T:200.00/002/Tasa/0.080000/16.00; 1x30.00=30.00 T:30.00/002/Tasa/0.000000/0.00; 1x40.00=40.00 T:40.00/002/Exento//; " +
				"GT:150.00/002/Tasa/0.160000/24.00 GT:200.00/002/Tasa/0.080000/16.00 GT:30.00/002/Tasa/0.000000/0.00 GT:40.00/002/Exento// TT=40.00 TR= Sub=420.00 Desc= Total=460.00"},
		// A six-decimal unit value: 1.5 × 8.62069 = 12.931035 → 12.93.
		{"six-decimal unit value", 2, []Item{line("1.5", "8.62069", iva("0.16"))},
			[2]string{}, "1.5x8.62069=12.93 T:12.93/002/Tasa/0.160000/2.07; GT:12.93/002/Tasa/0.160000/2.07 TT=2.07 TR= Sub=12.93 Desc= Total=15.00"},
		// A currency without decimals: 3 × 333.5 = 1000.5 → 1001; 16% = 160.16 → 160.
		{"zero decimals", 0, []Item{line("3", "333.5", iva("0.16"))},
			[2]string{}, "3x333.5=1001 T:1001/002/Tasa/0.160000/160; GT:1001/002/Tasa/0.160000/160 TT=160 TR= Sub=1001 Desc= Total=1161"},
		// Payment (P): one line of 0 in XXX (0 decimals).
		{"payment", 0, []Item{{ClaveProdServ: "84111506", ClaveUnidad: "ACT", Descripcion: "Pago", ObjetoImp: "01", Cantidad: d("1")}},
			[2]string{}, "1x0=0; Sub=0 Desc= Total=0"},
		{"no taxes, local taxes", 2, []Item{{Cantidad: d("1"), ValorUnitario: d("1000"), ObjetoImp: "01"}},
			[2]string{"30.005", "10"}, "1x1000.00=1000.00; Sub=1000.00 Desc= Total=1020.01"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := &Comprobante{}
			o := Options{CurrencyDecimals: c.cd}
			if c.local[0] != "" {
				o.LocalTraslados, o.LocalRetenciones = d(c.local[0]), d(c.local[1])
			}
			if _, err := Compute(doc, c.items, o); err != nil {
				t.Fatal(err)
			}
			if got := summary(doc); got != c.want {
				t.Fatalf("\n got: %s\nwant: %s", got, c.want)
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	over := line("1", "10", iva("0.16"))
	over.Descuento = d("10.01")
	cases := map[string]struct {
		items []Item
		cd    int
		want  string
	}{
		"zero quantity":      {[]Item{line("0", "10")}, 2, "Cantidad must be greater than 0"},
		"negative price":     {[]Item{line("1", "-1")}, 2, "ValorUnitario must not be negative"},
		"discount too large": {[]Item{over}, 2, "Descuento 10.01 must be between 0 and the Importe 10.00"},
		"bad decimals":       {[]Item{line("1", "1")}, 7, "currency decimals 7"},
		"bad factor":         {[]Item{line("1", "1", Tax{Impuesto: IVA, TipoFactor: "tasa"})}, 2, `TipoFactor "tasa"`},
		"exempt withholding": {[]Item{line("1", "1", Tax{Impuesto: IVA, TipoFactor: Exento, Retencion: true})}, 2, "cannot be Exento"},
		"zero base":          {[]Item{line("1", "0", iva("0.16"))}, 2, "Base must be greater than 0"},
		"negative total": {[]Item{line("1", "1", Tax{Impuesto: ISR, TipoFactor: Tasa, TasaOCuota: d("2"), Retencion: true})}, 2,
			"Total -1.00 is negative"},
		"overflow": {[]Item{line("9000000000", "9000000000")}, 2, "out of range"},
	}
	for name, c := range cases {
		_, err := Compute(&Comprobante{}, c.items, Options{CurrencyDecimals: c.cd})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, c := range []struct{ in, fixed2, str string }{
		{"0", "0.00", "0"}, {"12.5", "12.50", "12.5"}, {"-0.005", "-0.01", "-0.005"}, {"0.004999", "0.00", "0.004999"},
		{"1234567.123456", "1234567.12", "1234567.123456"}, {"+3", "3.00", "3"}, {"2.675", "2.68", "2.675"},
	} {
		x, err := ParseDecimal(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if x.Fixed(2) != c.fixed2 || x.String() != c.str {
			t.Errorf("%s: Fixed(2)=%s String=%s, want %s %s", c.in, x.Fixed(2), x.String(), c.fixed2, c.str)
		}
	}
	for _, bad := range []string{"", ".", "1.", "1.2345678", "1e3", "1,000", " 1", "--1", "99999999999999999999", "9223372036854.775808"} {
		if _, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", bad)
		}
	}
	if x, err := ParseDecimal("9223372036854.775807"); err != nil || x.Millionths() != 1<<63-1 {
		t.Errorf("max: %v %v", x, err)
	}
	// MulRound rounds the exact product once: 0.004999999… never becomes 0.01 by double rounding.
	if got, _ := d("0.999999").MulRound(d("0.005"), 2); got.Fixed(2) != "0.00" {
		t.Errorf("MulRound double rounding: %s", got.Fixed(2))
	}
	if got, _ := d("-3").MulRound(d("0.835"), 2); got.Fixed(2) != "-2.51" {
		t.Errorf("negative half away: %s", got.Fixed(2))
	}
	if got, _ := d("10000").MulRound(d("0.106667"), 6); got.String() != "1066.67" {
		t.Errorf("MulRound 6: %s", got)
	}
}

func TestImpuestosLocales(t *testing.T) {
	loc, ret, tras, err := NewImpuestosLocales(
		[]LocalTax{{Nombre: "Cedular", Tasa: d("2"), Base: d("1000")}},
		[]LocalTax{{Nombre: "ISH", Tasa: d("3"), Base: d("333.33")}, {Nombre: "Otro", Tasa: d("2.5"), Base: d("100.10")}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// 333.33 × 3 % = 9.9999 → 10.00; 100.10 × 2.5 % = 2.5025 → 2.50.
	got := fmt.Sprint(loc.TotaldeRetenciones, " ", loc.TotaldeTraslados, " ", loc.Retenciones, loc.Traslados)
	if want := "20.00 12.50 [{Cedular 2.00 20.00}] [{ISH 3.00 10.00} {Otro 2.50 2.50}]"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	doc := &Comprobante{}
	if _, err := Compute(doc, []Item{line("1", "1000", iva("0.16"))}, Options{CurrencyDecimals: 2, LocalRetenciones: ret, LocalTraslados: tras}); err != nil {
		t.Fatal(err)
	}
	if doc.Total != "1152.50" { // 1000 + 160 + 12.50 − 20
		t.Fatalf("Total %s", doc.Total)
	}
}
