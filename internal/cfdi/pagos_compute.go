package cfdi

import (
	"errors"
	"fmt"
	"math/big"
)

// PagoInput is one payment to compute with NewPagos.
type PagoInput struct {
	FechaPago    string // 2006-01-02T15:04:05
	FormaDePagoP string // c_FormaPago (not 99)
	MonedaP      string // c_Moneda (not XXX)
	// MonedaPDecimals are MonedaP's decimals (c_Moneda), 0–6.
	MonedaPDecimals int
	// TipoCambioP is MXN per unit of MonedaP; Zero means 1, which MXN must have.
	TipoCambioP Decimal
	// Monto is the amount received in MonedaP; nil means the documents' payments converted to
	// MonedaP, rounded to its decimals.
	Monto *Decimal

	NumOperacion, RfcEmisorCtaOrd, NomBancoOrdExt, CtaOrdenante, RfcEmisorCtaBen, CtaBeneficiario string

	Documentos []DocumentoInput
}

// DocumentoInput is an invoice (part of) paid by a payment.
type DocumentoInput struct {
	IdDocumento, Serie, Folio string
	MonedaDR                  string
	// MonedaDRDecimals are MonedaDR's decimals (c_Moneda), 0–6.
	MonedaDRDecimals int
	// EquivalenciaDR is units of MonedaDR per unit of MonedaP; Zero means 1, which it must be
	// when MonedaDR is MonedaP.
	EquivalenciaDR Decimal
	NumParcialidad int // 1–999
	ImpSaldoAnt    Decimal
	ImpPagado      Decimal
	ObjetoImpDR    string
	// Taxes of the document (Tasa or Exento; Cuota only with Base). Their base is the paid part
	// of the document's base unless Tax.Base gives it.
	Taxes []Tax
}

// NewPagos computes the Pagos 2.0 complement: each document's balance and taxes, each
// payment's taxes (ImpuestosP) and amount, and the MXN totals. The rules, written so that what
// SAT recomputes from the XML is what we wrote:
//
//   - Document amounts (ImpSaldoAnt, ImpPagado, ImpSaldoInsoluto, BaseDR, ImporteDR) have the
//     decimals of MonedaDR. ImpSaldoAnt and ImpPagado must already have at most those decimals
//     (they are the invoice's balance, never silently changed); 0 < ImpPagado ≤ ImpSaldoAnt;
//     ImpSaldoInsoluto = ImpSaldoAnt − ImpPagado, exact.
//   - BaseDR is the paid part of the document's base: ImpPagado / (1 + Σ transferred Tasa rates −
//     Σ withheld Tasa rates), computed exactly and rounded once to MonedaDR's decimals (the guide
//     asks for the tax "en proporción al pago"; an invoice whose taxes all apply to its whole
//     subtotal gives that exact ratio). Tax.Base overrides it (needed for Cuota).
//   - ImporteDR = BaseDR × TasaOCuotaDR, exact, rounded once to MonedaDR's decimals. Exento has
//     BaseDR only.
//   - ImpuestosP group the documents' taxes by Impuesto+TipoFactor+TasaOCuota (transferred, in
//     the order first seen) and by Impuesto (withheld): BaseP and ImporteP are Σ (BaseDR or
//     ImporteDR as written) / EquivalenciaDR, summed exactly and rounded once to MonedaP's
//     decimals.
//   - Monto, when given, must have at most MonedaP's decimals and be at least Σ ImpPagado /
//     EquivalenciaDR rounded to MonedaP's decimals (the sum SAT checks against Monto); when not
//     given it is that rounded sum.
//   - Totales are in MXN with 2 decimals (t_ImporteMXN): each is Σ over the payments of the
//     written BaseP, ImporteP or Monto × TipoCambioP, summed exactly and rounded once. The IVA
//     ones (16 %, 8 %, 0 %, Exento) come from the transferred IVA groups with those rates, the
//     withholding ones from RetencionesP; each is written only when some payment has that tax;
//     MontoTotalPagos always.
//
// Every rounding is half away from zero, once, from the exact value: never truncation and never
// a rounded intermediate, so each written amount is within half a unit of its last decimal of
// the exact amount SAT recomputes from the other written values.
func NewPagos(pagos []PagoInput) (*Pagos, error) {
	if len(pagos) == 0 {
		return nil, errors.New("cfdi: Pagos: no payment")
	}
	out := &Pagos{Version: "2.0"}
	var tot struct {
		retIVA, retISR, retIEPS, base16, imp16, base8, imp8, base0, imp0, exento, monto big.Rat
		has                                                                             [10]bool
	}
	for i, in := range pagos {
		fail := func(format string, a ...any) (*Pagos, error) {
			return nil, fmt.Errorf("cfdi: Pago %d: "+format, append([]any{i}, a...)...)
		}
		cdp := in.MonedaPDecimals
		if cdp < 0 || cdp > Scale {
			return fail("currency decimals %d: must be 0 to 6", cdp)
		}
		if len(in.Documentos) == 0 {
			return fail("no DoctoRelacionado")
		}
		tc := in.TipoCambioP
		if tc.IsZero() {
			tc = FromInt(1)
		}
		if tc.Sign() < 0 || in.MonedaP == "MXN" && tc.Cmp(FromInt(1)) != 0 {
			return fail("TipoCambioP %s: must be greater than 0, and 1 for MXN", tc.String())
		}
		p := Pago{
			FechaPago: in.FechaPago, FormaDePagoP: in.FormaDePagoP, MonedaP: in.MonedaP, TipoCambioP: tc.String(),
			NumOperacion: in.NumOperacion, RfcEmisorCtaOrd: in.RfcEmisorCtaOrd, NomBancoOrdExt: in.NomBancoOrdExt,
			CtaOrdenante: in.CtaOrdenante, RfcEmisorCtaBen: in.RfcEmisorCtaBen, CtaBeneficiario: in.CtaBeneficiario,
		}
		type groupP struct {
			t          TrasladoP
			base, amnt big.Rat
			exento     bool
		}
		var groups []*groupP
		index := map[string]*groupP{}
		var rets []string
		retAmt := map[string]*big.Rat{}
		var paid big.Rat // Σ ImpPagado / EquivalenciaDR
		for j, d := range in.Documentos {
			dfail := func(format string, a ...any) (*Pagos, error) {
				return fail("DoctoRelacionado %d: "+format, append([]any{j}, a...)...)
			}
			cdr := d.MonedaDRDecimals
			if cdr < 0 || cdr > Scale {
				return dfail("currency decimals %d: must be 0 to 6", cdr)
			}
			eq := d.EquivalenciaDR
			if eq.IsZero() {
				eq = FromInt(1)
			}
			if eq.Sign() < 0 || d.MonedaDR == in.MonedaP && eq.Cmp(FromInt(1)) != 0 {
				return dfail("EquivalenciaDR %s: must be greater than 0, and 1 when MonedaDR is MonedaP", eq.String())
			}
			if d.ImpSaldoAnt.Sign() <= 0 || d.ImpPagado.Sign() <= 0 {
				return dfail("ImpSaldoAnt and ImpPagado must be greater than 0")
			}
			if d.ImpSaldoAnt.Places() > cdr || d.ImpPagado.Places() > cdr {
				return dfail("ImpSaldoAnt and ImpPagado may have at most %d decimals", cdr)
			}
			if d.ImpPagado.Cmp(d.ImpSaldoAnt) > 0 {
				return dfail("ImpPagado %s exceeds ImpSaldoAnt %s", d.ImpPagado.Fixed(cdr), d.ImpSaldoAnt.Fixed(cdr))
			}
			if d.NumParcialidad < 1 || d.NumParcialidad > 999 {
				return dfail("NumParcialidad %d: must be 1 to 999", d.NumParcialidad)
			}
			insoluto, _ := d.ImpSaldoAnt.Sub(d.ImpPagado)
			dr := DoctoRelacionado{
				IdDocumento: d.IdDocumento, Serie: d.Serie, Folio: d.Folio, MonedaDR: d.MonedaDR, EquivalenciaDR: eq.String(),
				NumParcialidad: fmt.Sprint(d.NumParcialidad), ImpSaldoAnt: d.ImpSaldoAnt.Fixed(cdr), ImpPagado: d.ImpPagado.Fixed(cdr),
				ImpSaldoInsoluto: insoluto.Fixed(cdr), ObjetoImpDR: d.ObjetoImpDR,
			}
			eqR := ratOf(eq)
			paid.Add(&paid, new(big.Rat).Quo(ratOf(d.ImpPagado), eqR))

			// The paid part of the document's base.
			factor := big.NewRat(1, 1)
			for k, t := range d.Taxes {
				switch t.TipoFactor {
				case Tasa:
					if t.Retencion {
						factor.Sub(factor, ratOf(t.TasaOCuota))
					} else {
						factor.Add(factor, ratOf(t.TasaOCuota))
					}
				case Exento:
					if t.Retencion {
						return dfail("tax %d: a withholding cannot be Exento", k)
					}
				case Cuota:
					if t.Base == nil {
						return dfail("tax %d: a Cuota tax needs its Base", k)
					}
				default:
					return dfail("tax %d: TipoFactor %q: must be Tasa, Cuota or Exento", k, t.TipoFactor)
				}
				if t.TasaOCuota.Sign() < 0 {
					return dfail("tax %d: TasaOCuota must not be negative", k)
				}
			}
			if factor.Sign() <= 0 {
				return dfail("the withheld rates leave nothing to pay")
			}
			prorated, ok := roundRat(new(big.Rat).Quo(ratOf(d.ImpPagado), factor), cdr)
			if !ok {
				return dfail("%v", ErrOverflow)
			}
			for k, t := range d.Taxes {
				base := prorated
				if t.Base != nil {
					base = t.Base.Round(cdr)
				}
				if base.Sign() <= 0 {
					return dfail("tax %d: BaseDR must be greater than 0 with %d decimals", k, cdr)
				}
				x := ImpuestoDR{BaseDR: base.Fixed(cdr), ImpuestoDR: t.Impuesto, TipoFactorDR: t.TipoFactor}
				var amount Decimal
				rate := ""
				if t.TipoFactor != Exento {
					if amount, ok = base.MulRound(t.TasaOCuota, cdr); !ok {
						return dfail("tax %d: %v", k, ErrOverflow)
					}
					rate = t.TasaOCuota.Fixed(Scale)
					x.TasaOCuotaDR, x.ImporteDR = rate, amount.Fixed(cdr)
				}
				// What SAT adds up is the written value: base and amount rounded to cdr.
				baseP := new(big.Rat).Quo(ratOf(base), eqR)
				amntP := new(big.Rat).Quo(ratOf(amount), eqR)
				if t.Retencion {
					dr.RetencionesDR = append(dr.RetencionesDR, x)
					r := retAmt[t.Impuesto]
					if r == nil {
						r = new(big.Rat)
						retAmt[t.Impuesto] = r
						rets = append(rets, t.Impuesto)
					}
					r.Add(r, amntP)
					continue
				}
				dr.TrasladosDR = append(dr.TrasladosDR, x)
				key := t.Impuesto + "|" + t.TipoFactor + "|" + rate
				g := index[key]
				if g == nil {
					g = &groupP{t: TrasladoP{ImpuestoP: t.Impuesto, TipoFactorP: t.TipoFactor, TasaOCuotaP: rate}, exento: t.TipoFactor == Exento}
					index[key] = g
					groups = append(groups, g)
				}
				g.base.Add(&g.base, baseP)
				g.amnt.Add(&g.amnt, amntP)
			}
			p.DoctoRelacionado = append(p.DoctoRelacionado, dr)
		}

		paidP, ok := roundRat(&paid, cdp)
		if !ok {
			return fail("%v", ErrOverflow)
		}
		monto := paidP
		if in.Monto != nil {
			monto = *in.Monto
			if monto.Places() > cdp {
				return fail("Monto %s may have at most %d decimals", monto.String(), cdp)
			}
			if monto.Cmp(paidP) < 0 {
				return nil, &MontoError{Pago: i, MonedaP: in.MonedaP, Monto: monto.Fixed(cdp), Pagado: paidP.Fixed(cdp)}
			}
		}
		if monto.Sign() <= 0 {
			return fail("Monto must be greater than 0")
		}
		p.Monto = monto.Fixed(cdp)
		tcR := ratOf(tc)
		addMXN := func(sum *big.Rat, has *bool, written Decimal) {
			sum.Add(sum, new(big.Rat).Mul(ratOf(written), tcR))
			*has = true
		}
		addMXN(&tot.monto, &tot.has[9], monto)

		for _, imp := range rets {
			amt, ok := roundRat(retAmt[imp], cdp)
			if !ok {
				return fail("%v", ErrOverflow)
			}
			p.RetencionesP = append(p.RetencionesP, RetencionP{ImpuestoP: imp, ImporteP: amt.Fixed(cdp)})
			switch imp {
			case IVA:
				addMXN(&tot.retIVA, &tot.has[0], amt)
			case ISR:
				addMXN(&tot.retISR, &tot.has[1], amt)
			case IEPS:
				addMXN(&tot.retIEPS, &tot.has[2], amt)
			}
		}
		for _, g := range groups {
			base, ok1 := roundRat(&g.base, cdp)
			amt, ok2 := roundRat(&g.amnt, cdp)
			if !ok1 || !ok2 {
				return fail("%v", ErrOverflow)
			}
			g.t.BaseP = base.Fixed(cdp)
			if !g.exento {
				g.t.ImporteP = amt.Fixed(cdp)
			}
			p.TrasladosP = append(p.TrasladosP, g.t)
			if g.t.ImpuestoP != IVA {
				continue
			}
			switch {
			case g.exento:
				addMXN(&tot.exento, &tot.has[8], base)
			case g.t.TipoFactorP != Tasa:
			case g.t.TasaOCuotaP == "0.160000":
				addMXN(&tot.base16, &tot.has[3], base)
				addMXN(&tot.imp16, &tot.has[3], amt)
			case g.t.TasaOCuotaP == "0.080000":
				addMXN(&tot.base8, &tot.has[4], base)
				addMXN(&tot.imp8, &tot.has[4], amt)
			case g.t.TasaOCuotaP == "0.000000":
				addMXN(&tot.base0, &tot.has[5], base)
				addMXN(&tot.imp0, &tot.has[5], amt)
			}
		}
		out.Pagos = append(out.Pagos, p)
	}

	var err error
	mxn := func(r *big.Rat, has bool) string {
		if !has {
			return ""
		}
		d, ok := roundRat(r, 2)
		if !ok {
			err = fmt.Errorf("cfdi: Pagos totals: %w", ErrOverflow)
		}
		return d.Fixed(2)
	}
	h := tot.has
	out.Totales = PagosTotales{
		TotalRetencionesIVA: mxn(&tot.retIVA, h[0]), TotalRetencionesISR: mxn(&tot.retISR, h[1]), TotalRetencionesIEPS: mxn(&tot.retIEPS, h[2]),
		TotalTrasladosBaseIVA16: mxn(&tot.base16, h[3]), TotalTrasladosImpuestoIVA16: mxn(&tot.imp16, h[3]),
		TotalTrasladosBaseIVA8: mxn(&tot.base8, h[4]), TotalTrasladosImpuestoIVA8: mxn(&tot.imp8, h[4]),
		TotalTrasladosBaseIVA0: mxn(&tot.base0, h[5]), TotalTrasladosImpuestoIVA0: mxn(&tot.imp0, h[5]),
		TotalTrasladosBaseIVAExento: mxn(&tot.exento, h[8]), MontoTotalPagos: mxn(&tot.monto, true),
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MontoError is NewPagos' error for a Monto short of what the payment's documents add up to in
// MonedaP (Σ ImpPagado / EquivalenciaDR, rounded to MonedaP's decimals).
type MontoError struct {
	Pago                   int
	MonedaP, Monto, Pagado string
}

func (e *MontoError) Error() string {
	return fmt.Sprintf("cfdi: Pago %d: Monto %s is less than the documents' payments in %s, %s", e.Pago, e.Monto, e.MonedaP, e.Pagado)
}

// SetPagos makes doc a payment receipt (TipoDeComprobante P) carrying p, with the CFDI rules of
// the Pagos 2.0 guide: one Concepto 84111506, Cantidad 1, ClaveUnidad ACT, Descripcion "Pago",
// ValorUnitario 0, Importe 0, ObjetoImp 01; Moneda XXX, SubTotal 0, Total 0; no FormaPago,
// MetodoPago, CondicionesDePago, Descuento, TipoCambio nor Impuestos; Exportacion 01; the
// recipient's UsoCFDI CP01. Any other complement doc carries is kept after the Pagos one.
func SetPagos(doc *Comprobante, p *Pagos) error {
	doc.TipoDeComprobante = TipoPago
	doc.Moneda, doc.TipoCambio = "XXX", ""
	doc.FormaPago, doc.MetodoPago, doc.CondicionesDePago = "", "", ""
	doc.Exportacion = "01"
	doc.Receptor.UsoCFDI = "CP01"
	items := []Item{{ClaveProdServ: "84111506", ClaveUnidad: "ACT", Descripcion: "Pago", ObjetoImp: "01", Cantidad: FromInt(1)}}
	if _, err := Compute(doc, items, Options{CurrencyDecimals: 0}); err != nil {
		return err
	}
	doc.Complemento = append([]Complement{p}, doc.Complemento...)
	return nil
}

// ratOf is d as an exact rational.
func ratOf(d Decimal) *big.Rat { return big.NewRat(d.u, unit) }

// roundRat is r rounded to places decimals (0–6), half away from zero; ok is false when the
// result leaves Decimal's range.
func roundRat(r *big.Rat, places int) (Decimal, bool) {
	scale := big.NewInt(pow10[places])
	num := new(big.Int).Mul(r.Num(), scale)
	den := r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int)) // truncated toward zero
	m.Abs(m).Lsh(m, 1)
	if m.Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	q.Mul(q, big.NewInt(pow10[Scale-places]))
	if !q.IsInt64() {
		return Zero, false
	}
	return Decimal{q.Int64()}, true
}
