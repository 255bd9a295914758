package cfdi

import (
	"strings"
	"testing"
)

// pagosSummary writes a computed complement compactly: per payment "Monto@TipoCambioP", each
// document "eq Ant-Pagado=Insoluto T:Base/Impuesto/TipoFactor/Tasa/Importe R:...", the payment's
// "PT:" and "PR:" groups; then the totals that are present.
func pagosSummary(p *Pagos) string {
	var b strings.Builder
	for _, x := range p.Pagos {
		b.WriteString(x.Monto + "@" + x.TipoCambioP + " ")
		for _, dr := range x.DoctoRelacionado {
			b.WriteString("[" + dr.EquivalenciaDR + " " + dr.ImpSaldoAnt + "-" + dr.ImpPagado + "=" + dr.ImpSaldoInsoluto + " #" + dr.NumParcialidad)
			for _, t := range dr.TrasladosDR {
				b.WriteString(" T:" + t.BaseDR + "/" + t.ImpuestoDR + "/" + t.TipoFactorDR + "/" + t.TasaOCuotaDR + "/" + t.ImporteDR)
			}
			for _, t := range dr.RetencionesDR {
				b.WriteString(" R:" + t.BaseDR + "/" + t.ImpuestoDR + "/" + t.TipoFactorDR + "/" + t.TasaOCuotaDR + "/" + t.ImporteDR)
			}
			b.WriteString("] ")
		}
		for _, t := range x.TrasladosP {
			b.WriteString("PT:" + t.BaseP + "/" + t.ImpuestoP + "/" + t.TipoFactorP + "/" + t.TasaOCuotaP + "/" + t.ImporteP + " ")
		}
		for _, r := range x.RetencionesP {
			b.WriteString("PR:" + r.ImpuestoP + "/" + r.ImporteP + " ")
		}
		b.WriteString("| ")
	}
	t := p.Totales
	for _, f := range []struct{ name, v string }{
		{"RetIVA", t.TotalRetencionesIVA}, {"RetISR", t.TotalRetencionesISR}, {"RetIEPS", t.TotalRetencionesIEPS},
		{"B16", t.TotalTrasladosBaseIVA16}, {"I16", t.TotalTrasladosImpuestoIVA16},
		{"B8", t.TotalTrasladosBaseIVA8}, {"I8", t.TotalTrasladosImpuestoIVA8},
		{"B0", t.TotalTrasladosBaseIVA0}, {"I0", t.TotalTrasladosImpuestoIVA0},
		{"BEx", t.TotalTrasladosBaseIVAExento}, {"Monto", t.MontoTotalPagos},
	} {
		if f.v != "" {
			b.WriteString(f.name + "=" + f.v + " ")
		}
	}
	return strings.TrimSpace(b.String())
}

func doc(ant, paid string, taxes ...Tax) DocumentoInput {
	return DocumentoInput{IdDocumento: "5C7B0622-01B4-4EB8-96D0-E0DEBD89FF0F", MonedaDR: "MXN", MonedaDRDecimals: 2,
		NumParcialidad: 1, ImpSaldoAnt: d(ant), ImpPagado: d(paid), ObjetoImpDR: "02", Taxes: taxes}
}

func pagoMXN(docs ...DocumentoInput) PagoInput {
	return PagoInput{FechaPago: "2026-01-10T12:00:00", FormaDePagoP: "03", MonedaP: "MXN", MonedaPDecimals: 2, Documentos: docs}
}

func withheld(imp, rate string) Tax {
	return Tax{Impuesto: imp, TipoFactor: Tasa, TasaOCuota: d(rate), Retencion: true}
}

// Hand-computed payments. Each amount below was worked out by hand from the rules of NewPagos:
// BaseDR = ImpPagado / (1 + transferred − withheld rates), ImporteDR = BaseDR × rate, both
// rounded once to the document currency; the P groups and MXN totals from the written values.
func TestNewPagos(t *testing.T) {
	usd := pagoMXN(doc("116.00", "116.00", iva("0.16")))
	usd.MonedaP, usd.TipoCambioP, usd.Monto = "USD", d("20.64"), dp("5.62")
	usd.Documentos[0].EquivalenciaDR = d("20.64")

	partial2 := doc("580.00", "300.00", iva("0.16"))
	partial2.NumParcialidad = 2

	usdInvoice := pagoMXN(DocumentoInput{IdDocumento: "4A5D025B-813A-4ACF-9F32-8FB61F4918AC", MonedaDR: "USD", MonedaDRDecimals: 2,
		EquivalenciaDR: d("0.045331"), NumParcialidad: 1, ImpSaldoAnt: d("41.76"), ImpPagado: d("41.76"), ObjetoImpDR: "02",
		Taxes: []Tax{iva("0.16"), withheld(IVA, "0.106667"), withheld(ISR, "0.10")}})
	usdInvoice.Monto = dp("921.23")

	noTax := doc("1000.00", "250.00")
	noTax.ObjetoImpDR = "01"

	cases := []struct {
		name string
		in   []PagoInput
		want string
	}{
		{"one invoice paid in full, IVA 16 %", []PagoInput{pagoMXN(doc("1160.00", "1160.00", iva("0.16")))},
			"1160.00@1 [1 1160.00-1160.00=0.00 #1 T:1000.00/002/Tasa/0.160000/160.00] PT:1000.00/002/Tasa/0.160000/160.00 | B16=1000.00 I16=160.00 Monto=1160.00"},
		// 500 / 1.16 = 431.0344… → 431.03; 431.03 × 0.16 = 68.9648 → 68.96.
		{"a partial payment", []PagoInput{pagoMXN(doc("1160.00", "500", iva("0.16")))},
			"500.00@1 [1 1160.00-500.00=660.00 #1 T:431.03/002/Tasa/0.160000/68.96] PT:431.03/002/Tasa/0.160000/68.96 | B16=431.03 I16=68.96 Monto=500.00"},
		// 300 / 1.16 = 258.6206… → 258.62; × 0.16 = 41.3792 → 41.38; P: 1000 + 258.62, 160 + 41.38.
		{"two invoices", []PagoInput{pagoMXN(doc("1160.00", "1160.00", iva("0.16")), partial2)},
			"1460.00@1 [1 1160.00-1160.00=0.00 #1 T:1000.00/002/Tasa/0.160000/160.00] [1 580.00-300.00=280.00 #2 T:258.62/002/Tasa/0.160000/41.38] PT:1258.62/002/Tasa/0.160000/201.38 | B16=1258.62 I16=201.38 Monto=1460.00"},
		// USD 5.62 paying MXN 116.00 at 20.64: BaseP 100 / 20.64 = 4.8449… → 4.84, ImporteP
		// 16 / 20.64 = 0.7751… → 0.78; paid 116 / 20.64 = 5.6201… → 5.62 ≤ Monto. Totals in MXN:
		// 4.84 × 20.64 = 99.8976 → 99.90, 0.78 × 20.64 = 16.0992 → 16.10, 5.62 × 20.64 = 115.9968 → 116.00.
		{"a USD payment of an MXN invoice", []PagoInput{usd},
			"5.62@20.64 [20.64 116.00-116.00=0.00 #1 T:100.00/002/Tasa/0.160000/16.00] PT:4.84/002/Tasa/0.160000/0.78 | B16=99.90 I16=16.10 Monto=116.00"},
		// 953.33 / (1 + 0.16 − 0.106667 − 0.10) = 999.9968… → 1000.00; withheld IVA 106.667 → 106.67.
		{"IVA and ISR withheld", []PagoInput{pagoMXN(doc("953.33", "953.33", iva("0.16"), withheld(IVA, "0.106667"), withheld(ISR, "0.10")))},
			"953.33@1 [1 953.33-953.33=0.00 #1 T:1000.00/002/Tasa/0.160000/160.00 R:1000.00/002/Tasa/0.106667/106.67 R:1000.00/001/Tasa/0.100000/100.00] PT:1000.00/002/Tasa/0.160000/160.00 PR:002/106.67 PR:001/100.00 | RetIVA=106.67 RetISR=100.00 B16=1000.00 I16=160.00 Monto=953.33"},
		// MXN 921.23 paying USD 41.76 at 0.045331 USD per MXN: BaseDR 41.76 / 0.953333 = 43.8042… →
		// 43.80; IVA 7.008 → 7.01, IVA withheld 4.6720… → 4.67, ISR 4.38. P: 43.80 / 0.045331 =
		// 966.2262… → 966.23, 7.01 / 0.045331 = 154.6403… → 154.64, 4.67 / … = 103.0200… → 103.02,
		// 4.38 / … = 96.6226… → 96.62; paid 41.76 / 0.045331 = 921.2238… → 921.22 ≤ 921.23.
		{"an MXN payment of a USD invoice, withholdings", []PagoInput{usdInvoice},
			"921.23@1 [0.045331 41.76-41.76=0.00 #1 T:43.80/002/Tasa/0.160000/7.01 R:43.80/002/Tasa/0.106667/4.67 R:43.80/001/Tasa/0.100000/4.38] PT:966.23/002/Tasa/0.160000/154.64 PR:002/103.02 PR:001/96.62 | RetIVA=103.02 RetISR=96.62 B16=966.23 I16=154.64 Monto=921.23"},
		{"IVA exempt", []PagoInput{pagoMXN(doc("500.00", "200.00", Tax{Impuesto: IVA, TipoFactor: Exento}))},
			"200.00@1 [1 500.00-200.00=300.00 #1 T:200.00/002/Exento//] PT:200.00/002/Exento// | BEx=200.00 Monto=200.00"},
		// Two payments: IVA 8 % (1080 / 1.08 = 1000) and IVA 0 %, and an invoice with no taxes.
		{"IVA 8 % and 0 %, two payments, no tax", []PagoInput{pagoMXN(doc("1080.00", "1080.00", iva("0.08"))), pagoMXN(doc("500.00", "500.00", iva("0")), noTax)},
			"1080.00@1 [1 1080.00-1080.00=0.00 #1 T:1000.00/002/Tasa/0.080000/80.00] PT:1000.00/002/Tasa/0.080000/80.00 | 750.00@1 [1 500.00-500.00=0.00 #1 T:500.00/002/Tasa/0.000000/0.00] [1 1000.00-250.00=750.00 #1] PT:500.00/002/Tasa/0.000000/0.00 | B8=1000.00 I8=80.00 B0=500.00 I0=0.00 Monto=1830.00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPagos(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := pagosSummary(p); got != c.want {
				t.Errorf("\n got: %s\nwant: %s", got, c.want)
			}
		})
	}
}

func TestNewPagosErrors(t *testing.T) {
	over := doc("100.00", "100.01", iva("0.16"))
	decimals := doc("100.00", "10.005", iva("0.16"))
	cuota := doc("100.00", "100.00", Tax{Impuesto: IEPS, TipoFactor: Cuota, TasaOCuota: d("1.5")})
	sameEq := doc("100.00", "100.00")
	sameEq.EquivalenciaDR = d("2")
	mxnTC := pagoMXN(doc("100.00", "100.00"))
	mxnTC.TipoCambioP = d("17")
	short := pagoMXN(usdPaidDoc())
	short.MonedaP, short.TipoCambioP, short.Monto = "USD", d("20.64"), dp("5.61")
	zero := doc("100.00", "0")
	cases := []struct {
		name string
		in   []PagoInput
		want string
	}{
		{"no payment", nil, "no payment"},
		{"no document", []PagoInput{pagoMXN()}, "no DoctoRelacionado"},
		{"paid more than the balance", []PagoInput{pagoMXN(over)}, "exceeds ImpSaldoAnt"},
		{"more decimals than the currency", []PagoInput{pagoMXN(decimals)}, "at most 2 decimals"},
		{"cuota without base", []PagoInput{pagoMXN(cuota)}, "needs its Base"},
		{"equivalence of the same currency", []PagoInput{pagoMXN(sameEq)}, "EquivalenciaDR 2"},
		{"MXN exchange rate", []PagoInput{mxnTC}, "TipoCambioP 17"},
		{"Monto short of the documents", []PagoInput{short}, "Monto 5.61 is less than the documents' payments in USD, 5.62"},
		{"nothing paid", []PagoInput{pagoMXN(zero)}, "must be greater than 0"},
		{"withholding exempt", []PagoInput{pagoMXN(doc("1.00", "1.00", Tax{Impuesto: IVA, TipoFactor: Exento, Retencion: true}))}, "cannot be Exento"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewPagos(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func usdPaidDoc() DocumentoInput {
	x := doc("116.00", "116.00", iva("0.16"))
	x.EquivalenciaDR = d("20.64")
	return x
}

// SetPagos writes the fixed parts of a payment receipt.
func TestSetPagos(t *testing.T) {
	p, err := NewPagos([]PagoInput{pagoMXN(doc("1160.00", "1160.00", iva("0.16")))})
	if err != nil {
		t.Fatal(err)
	}
	c := &Comprobante{Version: "4.0", Moneda: "MXN", TipoCambio: "1", FormaPago: "03", MetodoPago: "PUE", CondicionesDePago: "x",
		Exportacion: "02", Receptor: Receptor{UsoCFDI: "G03"}}
	if err := SetPagos(c, p); err != nil {
		t.Fatal(err)
	}
	k := c.Conceptos
	if len(k) != 1 || k[0].ClaveProdServ != "84111506" || k[0].Cantidad != "1" || k[0].ClaveUnidad != "ACT" || k[0].Descripcion != "Pago" ||
		k[0].ValorUnitario != "0" || k[0].Importe != "0" || k[0].ObjetoImp != "01" {
		t.Fatalf("concepto: %+v", k)
	}
	if c.TipoDeComprobante != "P" || c.Moneda != "XXX" || c.SubTotal != "0" || c.Total != "0" || c.TipoCambio != "" || c.FormaPago != "" ||
		c.MetodoPago != "" || c.CondicionesDePago != "" || c.Descuento != "" || c.Impuestos != nil || c.Exportacion != "01" || c.Receptor.UsoCFDI != "CP01" {
		t.Fatalf("comprobante: %+v", c)
	}
	if len(c.Complemento) != 1 || c.Complemento[0] != p {
		t.Fatalf("complemento: %v", c.Complemento)
	}
}
