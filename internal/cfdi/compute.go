package cfdi

import (
	"fmt"
)

// Item is one line to compute: its codes and texts as they go to the XML, and its numbers.
type Item struct {
	ClaveProdServ    string
	NoIdentificacion string
	ClaveUnidad      string
	Unidad           string
	Descripcion      string
	ObjetoImp        string

	Cantidad      Decimal // > 0
	ValorUnitario Decimal // ≥ 0
	Descuento     Decimal // ≥ 0, ≤ Importe; rounded to the currency's decimals

	Taxes []Tax

	ACuentaTerceros     *ACuentaTerceros
	InformacionAduanera []string
	CuentaPredial       []string
}

// Tax is one tax of a line.
type Tax struct {
	Impuesto   string  // ISR, IVA, IEPS
	TipoFactor string  // Tasa, Cuota or Exento
	TasaOCuota Decimal // a rate for Tasa (0.160000), an amount per unit for Cuota; unused for Exento
	Retencion  bool    // withheld (cfdi:Retencion) instead of transferred (cfdi:Traslado)
	// Base overrides the default base: the line's Importe − Descuento for Tasa and Exento, its
	// Cantidad (the units the cuota applies to) for Cuota. An IVA whose base includes a
	// transferred IEPS, for example, gives it here.
	Base *Decimal
}

// Options of Compute.
type Options struct {
	// CurrencyDecimals are the decimals of the currency (c_Moneda: MXN and USD 2, XXX 0...), 0–6.
	CurrencyDecimals int
	// LocalTraslados and LocalRetenciones are the totals of the Impuestos Locales complement,
	// added to and subtracted from Total.
	LocalTraslados, LocalRetenciones Decimal
}

// Totals are the invoice's amounts as numbers.
type Totals struct {
	SubTotal, Descuento, Traslados, Retenciones, Total Decimal
}

// Compute writes the lines and every amount of the document the way SAT validates them (Anexo
// 20, CFDI 4.0), so that no amount is ever off by a cent:
//
//   - Importe = Cantidad × ValorUnitario, computed exactly and rounded once to the currency's
//     decimals, half away from zero. SAT accepts any Importe within [lower, upper] where the bounds
//     are Cantidad × ValorUnitario with each factor moved by half a unit of its last written
//     decimal, the lower truncated and the upper rounded up to the Importe's decimals: the exact
//     product is inside, and so is its rounding to any number of decimals.
//   - Descuento of a line: as given, rounded to the currency's decimals; at most the Importe.
//   - A tax's Base: Importe − Descuento (Tasa, Exento) or Cantidad (Cuota), or Tax.Base.
//   - A tax's Importe = Base × TasaOCuota, exact, rounded once per line to the currency's decimals
//     (half away from zero); within SAT's bounds for the same reason. Exento has none.
//   - TasaOCuota is written with 6 decimals (0.160000, 0.106667 for two thirds of IVA).
//   - The invoice's Traslados are grouped by Impuesto+TipoFactor+TasaOCuota (in the order first
//     seen), Retenciones by Impuesto; each Base and Importe is the sum of the lines' rounded values,
//     so the totals are exactly the sums SAT recomputes. Exento groups carry Base only;
//     TotalImpuestosTrasladados is present when some transferred tax is not Exento,
//     TotalImpuestosRetenidos when something is withheld.
//   - SubTotal = Σ Importe; Descuento = Σ line Descuento (written when not zero); Total =
//     SubTotal − Descuento + TotalImpuestosTrasladados − TotalImpuestosRetenidos (+ local
//     transferred − local withheld taxes). Every comprobante-level amount has exactly the
//     currency's decimals.
//   - Cantidad is written with the decimals it needs; ValorUnitario with at least the currency's
//     decimals and up to 6.
//
// Compute replaces doc.Conceptos, doc.Impuestos, SubTotal, Descuento and Total. It checks the
// numbers (positive quantity, discount within the importe, no overflow), not the catalogs.
func Compute(doc *Comprobante, items []Item, o Options) (Totals, error) {
	cd := o.CurrencyDecimals
	if cd < 0 || cd > Scale {
		return Totals{}, fmt.Errorf("cfdi: currency decimals %d: must be 0 to 6", cd)
	}
	var tot Totals
	type group struct {
		t          TrasladoTotal
		base, amnt Decimal
		exento     bool
	}
	var groups []*group
	index := map[string]*group{}
	var rets []*RetencionTotal
	retAmt := map[string]*Decimal{}
	anyTraslado, anyRetencion, anyDescuento := false, false, false
	add := func(a *Decimal, b Decimal) bool {
		s, ok := a.Add(b)
		*a = s
		return ok
	}
	conceptos := make([]Concepto, 0, len(items))
	for i, it := range items {
		fail := func(format string, a ...any) (Totals, error) {
			return Totals{}, fmt.Errorf("cfdi: item %d: "+format, append([]any{i}, a...)...)
		}
		if it.Cantidad.Sign() <= 0 {
			return fail("Cantidad must be greater than 0")
		}
		if it.ValorUnitario.Sign() < 0 {
			return fail("ValorUnitario must not be negative")
		}
		importe, ok := it.Cantidad.MulRound(it.ValorUnitario, cd)
		if !ok {
			return fail("Cantidad × ValorUnitario out of range")
		}
		desc := it.Descuento.Round(cd)
		if desc.Sign() < 0 || desc.Cmp(importe) > 0 {
			return fail("Descuento %s must be between 0 and the Importe %s", desc.Fixed(cd), importe.Fixed(cd))
		}
		net, _ := importe.Sub(desc)
		k := Concepto{
			ClaveProdServ:       it.ClaveProdServ,
			NoIdentificacion:    it.NoIdentificacion,
			Cantidad:            it.Cantidad.String(),
			ClaveUnidad:         it.ClaveUnidad,
			Unidad:              it.Unidad,
			Descripcion:         it.Descripcion,
			ValorUnitario:       it.ValorUnitario.AtLeast(cd),
			Importe:             importe.Fixed(cd),
			ObjetoImp:           it.ObjetoImp,
			ACuentaTerceros:     it.ACuentaTerceros,
			InformacionAduanera: it.InformacionAduanera,
			CuentaPredial:       it.CuentaPredial,
		}
		if !desc.IsZero() {
			k.Descuento = desc.Fixed(cd)
			anyDescuento = true
		}
		if !add(&tot.SubTotal, importe) || !add(&tot.Descuento, desc) {
			return fail("amounts out of range")
		}
		for j, tx := range it.Taxes {
			base := net
			if tx.TipoFactor == Cuota {
				base = it.Cantidad
			}
			if tx.Base != nil {
				base = *tx.Base
			}
			if base.Sign() <= 0 {
				return fail("tax %d: Base must be greater than 0", j)
			}
			var baseText string
			if tx.TipoFactor == Cuota || tx.Base != nil {
				baseText = base.AtLeast(cd)
			} else {
				baseText = base.Fixed(cd)
			}
			switch tx.TipoFactor {
			case Tasa, Cuota:
			case Exento:
				if tx.Retencion {
					return fail("tax %d: a withholding cannot be Exento", j)
				}
			default:
				return fail("tax %d: TipoFactor %q: must be Tasa, Cuota or Exento", j, tx.TipoFactor)
			}
			if tx.TasaOCuota.Sign() < 0 {
				return fail("tax %d: TasaOCuota must not be negative", j)
			}
			var amount Decimal
			rate := ""
			if tx.TipoFactor != Exento {
				if amount, ok = base.MulRound(tx.TasaOCuota, cd); !ok {
					return fail("tax %d: amount out of range", j)
				}
				rate = tx.TasaOCuota.Fixed(Scale)
			}
			if tx.Retencion {
				k.Retenciones = append(k.Retenciones, Retencion{baseText, tx.Impuesto, tx.TipoFactor, rate, amount.Fixed(cd)})
				anyRetencion = true
				p := retAmt[tx.Impuesto]
				if p == nil {
					p = new(Decimal)
					retAmt[tx.Impuesto] = p
					rets = append(rets, &RetencionTotal{Impuesto: tx.Impuesto})
				}
				if !add(p, amount) || !add(&tot.Retenciones, amount) {
					return fail("amounts out of range")
				}
				continue
			}
			t := Traslado{Base: baseText, Impuesto: tx.Impuesto, TipoFactor: tx.TipoFactor}
			if tx.TipoFactor != Exento {
				t.TasaOCuota, t.Importe = rate, amount.Fixed(cd)
				anyTraslado = true
			}
			k.Traslados = append(k.Traslados, t)
			key := tx.Impuesto + "|" + tx.TipoFactor + "|" + rate
			g := index[key]
			if g == nil {
				g = &group{t: TrasladoTotal{Impuesto: tx.Impuesto, TipoFactor: tx.TipoFactor, TasaOCuota: rate}, exento: tx.TipoFactor == Exento}
				index[key] = g
				groups = append(groups, g)
			}
			if !add(&g.base, base) || !add(&g.amnt, amount) || !add(&tot.Traslados, amount) {
				return fail("amounts out of range")
			}
		}
		conceptos = append(conceptos, k)
	}
	doc.Conceptos = conceptos
	doc.Impuestos = nil
	if len(groups) > 0 || len(rets) > 0 {
		imp := &Impuestos{}
		for _, r := range rets {
			r.Importe = retAmt[r.Impuesto].Fixed(cd)
			imp.Retenciones = append(imp.Retenciones, *r)
		}
		for _, g := range groups {
			g.t.Base = g.base.Fixed(cd)
			if !g.exento {
				g.t.Importe = g.amnt.Fixed(cd)
			}
			imp.Traslados = append(imp.Traslados, g.t)
		}
		if anyRetencion {
			imp.TotalImpuestosRetenidos = tot.Retenciones.Fixed(cd)
		}
		if anyTraslado {
			imp.TotalImpuestosTrasladados = tot.Traslados.Fixed(cd)
		}
		doc.Impuestos = imp
	}
	total, ok1 := tot.SubTotal.Sub(tot.Descuento)
	total, ok2 := total.Add(tot.Traslados)
	total, ok3 := total.Sub(tot.Retenciones)
	total, ok4 := total.Add(o.LocalTraslados.Round(cd))
	total, ok5 := total.Sub(o.LocalRetenciones.Round(cd))
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return Totals{}, fmt.Errorf("cfdi: Total: %w", ErrOverflow)
	}
	if total.Sign() < 0 {
		return Totals{}, fmt.Errorf("cfdi: Total %s is negative: withholdings and discounts exceed the amounts", total.Fixed(cd))
	}
	tot.Total = total
	doc.SubTotal = tot.SubTotal.Fixed(cd)
	doc.Descuento = ""
	if anyDescuento {
		doc.Descuento = tot.Descuento.Fixed(cd)
	}
	doc.Total = total.Fixed(cd)
	return tot, nil
}
