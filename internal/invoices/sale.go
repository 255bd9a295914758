package invoices

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

// Sale is the lines of a sale (an Auto CFDI ticket) checked by the rules of an income invoice's
// items and resolved to values, with its amounts in pesos as an invoice of them would show
// them. Products named by id are copied: a later change of the product does not change a sale
// already made.
type Sale struct {
	Items     []api.InvoiceItemInput
	Subtotal  string
	Discount  string
	Transfers string // traslados
	Withheld  string // retenciones
	Total     string
}

// SaleCurrency is the currency of sales: tickets are retail receipts in pesos.
const SaleCurrency = "MXN"

// Fields checks the fields of a request that rests on invoices (an Auto CFDI ticket, a global
// invoice of tickets) with the invoice's rules and texts, collecting every failure for one 400.
type Fields struct{ k *checker }

// Fields starts a check of a tenant's request.
func (s *Service) Fields(ctx context.Context, tenantID string) *Fields {
	return &Fields{&checker{ctx: ctx, s: s, c: callerRef{tenantID: tenantID}}}
}

// Add records a failure.
func (f *Fields) Add(prop, msg string, value any, code string) { f.k.add(prop, msg, value, code) }

// Code checks a required key of a catalog (the invoices' catalog names, CatalogPaymentForms…).
func (f *Fields) Code(prop, catalog, id string) bool { return f.k.requiredCode(prop, catalog, id) }

// Recipient checks a recipient as an invoice's (by value or a person of the tenant), with the
// invoice's rules and texts under Recipient.…; ok is false when a failure was recorded.
func (f *Fields) Recipient(in *api.InvoiceRecipientInput) bool {
	n := len(f.k.fs)
	f.k.recipientOf(in)
	return f.k.err == nil && len(f.k.fs) == n
}

// Required checks a required text.
func (f *Fields) Required(prop, v string) bool { return f.k.required(prop, v) }

// Issuer checks that id is a person of the tenant who can issue a CFDI: with an RFC and a tax
// regime (its tax files are checked when a CFDI is stamped).
func (f *Fields) Issuer(prop, id string) (storage.Person, bool) {
	p, ok := f.k.person(prop, id)
	if !ok {
		return p, false
	}
	n := len(f.k.fs)
	if tin := strings.ToUpper(api.Deref(p.Tin)); tin == "" {
		f.k.add(prop, fmt.Sprintf(MsgPersonNoTin, id), id, CodeRule)
	} else if err := cfdi.CheckRFC(tin); err != nil {
		f.k.add(prop, err.Error(), id, CodeFormat)
	}
	if api.Deref(p.SatTaxRegimeID) == "" {
		f.k.add(prop, fmt.Sprintf(MsgPersonNoRegime, id), id, CodeRule)
	}
	if api.Deref(p.ZipCode) == "" {
		f.k.add(prop, fmt.Sprintf(MsgPersonNoZip, id), id, CodeRule)
	}
	return p, len(f.k.fs) == n
}

// Err is the answer of the check: a lookup failure (catalogs missing, storage), the 400 of
// every failure, or nil.
func (f *Fields) Err() error {
	if f.k.err != nil {
		return f.k.err
	}
	if len(f.k.fs) > 0 {
		return apierr.Invalid(f.k.fs...)
	}
	return nil
}

// Sale checks the items of a sale as the items of an income invoice in pesos (the same
// catalogs, products, tax and amount rules and texts, properties Items[i]…) and computes its
// amounts; ok is false when a failure was recorded.
func (f *Fields) Sale(items []api.InvoiceItemInput) (Sale, bool) {
	k := f.k
	n := len(k.fs)
	cd := decimalsOf(SaleCurrency)
	lines := k.lines(items, cfdi.TipoIngreso, cd)
	if k.err != nil || len(k.fs) > n {
		return Sale{}, false
	}
	doc := cfdi.Comprobante{Version: "4.0", TipoDeComprobante: cfdi.TipoIngreso, Moneda: SaleCurrency}
	ci := make([]cfdi.Item, len(lines))
	for i, l := range lines {
		ci[i] = l.item
	}
	totals, err := cfdi.Compute(&doc, ci, cfdi.Options{CurrencyDecimals: cd})
	if err != nil || totals.Total.Sign() < 0 {
		msg := MsgAmountsOutOfRange
		if err == nil || strings.Contains(err.Error(), "negative") {
			msg = MsgTotalNegative
		}
		k.add("Items", msg, nil, CodeRule)
		return Sale{}, false
	}
	out := Sale{Subtotal: totals.SubTotal.Fixed(cd), Discount: totals.Descuento.Fixed(cd), Transfers: totals.Traslados.Fixed(cd),
		Withheld: totals.Retenciones.Fixed(cd), Total: totals.Total.Fixed(cd)}
	for _, l := range lines {
		it := l.item
		v := api.InvoiceItemInput{ItemCode: it.ClaveProdServ, Quantity: api.Amount(it.Cantidad.String()),
			UnitOfMeasurementCode: it.ClaveUnidad, UnitOfMeasurement: it.Unidad, Description: it.Descripcion,
			UnitPrice: api.Amount(it.ValorUnitario.String()), TaxObjectCode: it.ObjetoImp, ItemSku: it.NoIdentificacion}
		if !it.Descuento.IsZero() {
			v.Discount = api.Amount(it.Descuento.String())
		}
		for _, t := range l.taxes {
			v.ItemTaxes = append(v.ItemTaxes, api.InvoiceItemTax{TaxCode: t.TaxCode, TaxTypeCode: t.TaxTypeCode, TaxRate: api.Amount(t.TaxRate), TaxFlagCode: t.TaxFlagCode})
		}
		out.Items = append(out.Items, v)
	}
	if len(out.Items) != len(items) { // lines reports a failure for every line it drops
		k.fail(errors.New("invoices: a sale line was lost"))
		return Sale{}, false
	}
	return out, true
}
