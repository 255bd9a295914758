package invoices

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/products"
)

// Payment invoices (typeCode P) with the Pagos 2.0 complement in complement.payment.
//
// What the spec leaves open, decided here:
//
//   - complement.payment is the official client's PaymentComplement: one object, one payment;
//     an array of them makes one receipt of several payments. It is only for typeCode P, and a P
//     invoice needs it.
//   - The receipt's own fields follow the Pagos 2.0 guide: currencyCode XXX (the default for P;
//     anything else fails), exchangeRate 1 or absent, no paymentFormCode, paymentMethodCode or
//     paymentConditions, exportCode 01, the recipient's cfdiUseCode CP01 (the default for P, also
//     over a by-reference recipient's own satCfdiUseId). items may be omitted; when sent (the
//     clients' by-value examples do) they must be the one fixed concept: 84111506, quantity 1,
//     ACT, "Pago", unit price 0, tax object 01, no taxes, no discount.
//   - Amounts of a paid invoice are in its currency and may have at most its decimals; previous
//     balance and payment amount above 0, the payment at most the balance; remainingBalance,
//     when sent, must equal their difference. The payment's amount, when absent, is the paid
//     invoices' payments converted with their equivalences; when sent it must cover them.
//   - The taxes of a paid invoice are its codes and rates (Tasa or Exento; Cuota has no base a
//     payment can prorate and is refused); their base and amount are computed by cfdi.NewPagos
//     (see its rules). subTotal is accepted and not used.
//   - equivalence is read with up to 6 decimals (Decimal's scale; SAT's schema allows 10).
//   - The answer's complement does not echo the payment: the stamped XML carries it.

// Texts of payment invoices.
const (
	MsgPaymentNeeded        = "Un comprobante de pago (P) requiere el complemento de pagos en complement.payment."
	MsgPaymentOnlyP         = "El complemento de pagos (complement.payment) solo va en un comprobante de tipo P; typeCode es '%s'."
	MsgPaymentCurrency      = "Un comprobante de pago (P) usa la moneda XXX; se recibió '%s'."
	MsgPaymentExport        = "Un comprobante de pago (P) lleva la clave de exportación 01 (No aplica); se recibió '%s'."
	MsgPaymentCfdiUse       = "Un comprobante de pago (P) lleva el uso de CFDI CP01 (Pagos); se recibió '%s'."
	MsgPaymentItems         = "Un comprobante de pago (P) lleva un solo concepto, fijo: 84111506, cantidad 1, unidad ACT, descripción 'Pago', valor unitario 0, objeto de impuesto 01, sin impuestos ni descuento; puedes omitir items."
	MsgPaymentComplementP   = "Un comprobante de pago (P) no lleva otros complementos: solo complement.payment."
	MsgPaymentForm99        = "La forma de pago de un pago recibido no puede ser 99 (Por definir)."
	MsgPaymentCurrencyXXX   = "La moneda de un pago no puede ser XXX."
	MsgPaymentExchangeMXN   = "Con la moneda MXN el tipo de cambio del pago debe ser 1 o no enviarse."
	MsgPaymentExchange      = "Con la moneda %s el tipo de cambio del pago (MXN por unidad) es requerido y debe ser mayor a 0."
	MsgPaymentAmountShort   = "El monto del pago %s es menor que lo pagado a las facturas convertido a %s con sus equivalencias: %s."
	MsgPaymentNoInvoices    = "El pago debe tener al menos una factura pagada (paidInvoices)."
	MsgAmountPositive       = "'%s' debe ser mayor a 0."
	MsgAmountDecimals       = "'%s' admite hasta %d decimales (moneda %s); se recibió '%s'."
	MsgPaidOverBalance      = "El monto pagado %s no puede ser mayor al saldo anterior %s."
	MsgRemainingBalance     = "El saldo restante %s no es el saldo anterior menos el monto pagado: %s."
	MsgEquivalenceSame      = "Con la misma moneda en la factura y en el pago la equivalencia debe ser 1 o no enviarse."
	MsgEquivalenceNeeded    = "Con la moneda de la factura %s distinta a la del pago %s la equivalencia (unidades de %s por unidad de %s) es requerida y debe ser mayor a 0."
	MsgPartiality           = "El número de parcialidad debe ser un entero de 1 a 999; se recibió '%s'."
	MsgPaidTaxCuota         = "Un impuesto de tipo Cuota no se puede prorratear en un pago: usa Tasa o Exento."
	MsgBankAccount          = "La cuenta '%s' no es válida: de 10 a 50 letras mayúsculas, dígitos o guion bajo."
	MsgPaymentAmountsTooBig = "Los importes del pago exceden el máximo que admite el CFDI."
)

var bankAccountPattern = regexp.MustCompile(`^[A-Z0-9_]{10,50}$`)

// The fixed concept of a payment receipt.
var paymentItem = cfdi.Item{ClaveProdServ: "84111506", ClaveUnidad: "ACT", Descripcion: "Pago", ObjetoImp: "01", Cantidad: cfdi.FromInt(1)}

// paymentDefaults fills what a P request may omit (before any check): currency XXX and the
// recipient's use CP01.
func paymentDefaults(in *api.InvoiceInput) {
	if in.TypeCode != cfdi.TipoPago {
		return
	}
	if in.CurrencyCode == "" {
		in.CurrencyCode = "XXX"
	}
	if in.Recipient != nil && in.Recipient.CfdiUseCode == "" {
		r := *in.Recipient
		r.CfdiUseCode = "CP01"
		in.Recipient = &r
	}
}

// linesOrPayment resolves the items of an invoice, or for a payment invoice its fixed concept and
// the Pagos 2.0 complement.
func (k *checker) linesOrPayment(in *api.InvoiceInput, doc *cfdi.Comprobante, rc recipient, cd int) ([]line, *cfdi.Pagos) {
	raw := []byte(nil)
	if in.Complement != nil {
		raw = in.Complement.Payment
	}
	sent := len(raw) > 0 && string(raw) != "null"
	if in.TypeCode != cfdi.TipoPago {
		if sent {
			k.add("Complement.Payment", fmt.Sprintf(MsgPaymentOnlyP, in.TypeCode), nil, CodeRule)
		}
		return k.lines(in.Items, doc.TipoDeComprobante, cd), nil
	}
	if doc.Moneda != "XXX" {
		k.add("CurrencyCode", fmt.Sprintf(MsgPaymentCurrency, doc.Moneda), doc.Moneda, CodeRule)
	}
	if doc.Exportacion != "01" {
		k.add("ExportCode", fmt.Sprintf(MsgPaymentExport, doc.Exportacion), doc.Exportacion, CodeRule)
	}
	if rc.use != "" && rc.use != "CP01" {
		k.add("Recipient.CfdiUseCode", fmt.Sprintf(MsgPaymentCfdiUse, rc.use), rc.use, CodeRule)
	}
	k.paymentItems(in.Items)
	if c := in.Complement; c != nil && (c.LocalTaxes != nil && len(c.LocalTaxes.Taxes) > 0) {
		k.add("Complement.LocalTaxes", MsgPaymentComplementP, nil, CodeRule)
	}
	if in.GlobalInformation != nil {
		k.add("GlobalInformation", fmt.Sprintf(MsgNoPaymentFields, cfdi.TipoPago, "globalInformation"), nil, CodeRule)
	}
	it := paymentItem
	lines := []line{{item: it}}
	if !sent {
		k.add("Complement.Payment", MsgPaymentNeeded, nil, CodeNotEmpty)
		return lines, nil
	}
	var list []api.InvoicePaymentInput
	prefix := func(i int) string { return fmt.Sprintf("Complement.Payment[%d]", i) }
	if strings.HasPrefix(strings.TrimSpace(string(raw)), "[") {
		if err := json.Unmarshal(raw, &list); err != nil {
			k.fs = append(k.fs, apierr.Parse("$.complement.payment", fmt.Sprintf(MsgPaymentJSON, err), nil))
			return lines, nil
		}
	} else {
		var one api.InvoicePaymentInput
		if err := json.Unmarshal(raw, &one); err != nil {
			k.fs = append(k.fs, apierr.Parse("$.complement.payment", fmt.Sprintf(MsgPaymentJSON, err), nil))
			return lines, nil
		}
		list = []api.InvoicePaymentInput{one}
		prefix = func(int) string { return "Complement.Payment" }
	}
	if len(list) == 0 {
		k.add("Complement.Payment", MsgPaymentNeeded, nil, CodeNotEmpty)
		return lines, nil
	}
	inputs := make([]cfdi.PagoInput, 0, len(list))
	ok := true
	for i, p := range list {
		pi, good := k.pago(prefix(i), p)
		ok = ok && good
		inputs = append(inputs, pi)
	}
	if !ok {
		return lines, nil
	}
	pagos, err := cfdi.NewPagos(inputs)
	var short *cfdi.MontoError
	switch {
	case errors.As(err, &short):
		k.add(prefix(short.Pago)+".Amount", fmt.Sprintf(MsgPaymentAmountShort, short.Monto, short.MonedaP, short.Pagado), string(list[short.Pago].Amount), CodeRule)
		return lines, nil
	case err != nil:
		k.add("Complement.Payment", MsgPaymentAmountsTooBig, nil, CodeRule)
		return lines, nil
	}
	return lines, pagos
}

// MsgPaymentJSON: complement.payment is not the shape of a payment.
const MsgPaymentJSON = "complement.payment no tiene la forma de un pago: %v"

// paymentItems checks the items a P request sent, if any.
func (k *checker) paymentItems(items []api.InvoiceItemInput) {
	if len(items) == 0 {
		return
	}
	bad := len(items) > 1
	for _, it := range items {
		q, errQ := cfdi.ParseDecimal(strings.TrimSpace(string(it.Quantity)))
		v, errV := cfdi.ParseDecimal(strings.TrimSpace(string(it.UnitPrice)))
		if it.ID != "" || it.ItemCode != "84111506" || errQ != nil || q.Cmp(cfdi.FromInt(1)) != 0 || it.UnitOfMeasurementCode != "ACT" ||
			it.Description != "Pago" || (it.UnitPrice != "" && (errV != nil || !v.IsZero())) || it.TaxObjectCode != "01" ||
			len(it.ItemTaxes) > 0 || (it.Discount != "" && strings.Trim(string(it.Discount), "0.") != "") {
			bad = true
		}
	}
	if bad {
		k.add("Items", MsgPaymentItems, nil, CodeRule)
	}
}

// pago checks one payment; ok is false when it reported something.
func (k *checker) pago(p string, in api.InvoicePaymentInput) (cfdi.PagoInput, bool) {
	n := len(k.fs)
	var out cfdi.PagoInput
	if k.required(p+".PaymentDate", in.PaymentDate) {
		if d, ok := ParseDate(in.PaymentDate); ok {
			out.FechaPago = d.Format(cfdi.DateLayout)
		} else {
			k.add(p+".PaymentDate", fmt.Sprintf(MsgDate, in.PaymentDate), in.PaymentDate, CodeFormat)
		}
	}
	if k.requiredCode(p+".PaymentFormCode", CatalogPaymentForms, in.PaymentFormCode) && in.PaymentFormCode == "99" {
		k.add(p+".PaymentFormCode", MsgPaymentForm99, in.PaymentFormCode, CodeRule)
	}
	out.FormaDePagoP = in.PaymentFormCode
	cur := in.CurrencyCode
	if cur == "" {
		cur = "MXN"
	}
	if k.catalog(p+".CurrencyCode", CatalogCurrencies, cur) && cur == "XXX" {
		k.add(p+".CurrencyCode", MsgPaymentCurrencyXXX, cur, CodeRule)
	}
	out.MonedaP, out.MonedaPDecimals = cur, decimalsOf(cur)
	if cur == "MXN" {
		if in.ExchangeRate != "" {
			if r, ok := k.amount(p+".ExchangeRate", in.ExchangeRate); ok && r.Cmp(cfdi.FromInt(1)) != 0 {
				k.add(p+".ExchangeRate", MsgPaymentExchangeMXN, string(in.ExchangeRate), CodeRule)
			}
		}
	} else if in.ExchangeRate == "" {
		k.add(p+".ExchangeRate", fmt.Sprintf(MsgPaymentExchange, cur), nil, CodeRule)
	} else if r, ok := k.amount(p+".ExchangeRate", in.ExchangeRate); ok {
		if r.Sign() <= 0 {
			k.add(p+".ExchangeRate", fmt.Sprintf(MsgPaymentExchange, cur), string(in.ExchangeRate), CodeRule)
		}
		out.TipoCambioP = r
	}
	if in.Amount != "" {
		if m, ok := k.money(p+".Amount", in.Amount, cur); ok {
			out.Monto = &m
		}
	}
	if in.OperationNumber != "" {
		k.maxLen(p+".OperationNumber", in.OperationNumber, 100)
		out.NumOperacion = in.OperationNumber
	}
	for _, b := range []struct {
		prop, v string
		dst     *string
		rfc     bool
	}{{".SourceBankTin", in.SourceBankTin, &out.RfcEmisorCtaOrd, true}, {".SourceBankAccount", in.SourceBankAccount, &out.CtaOrdenante, false},
		{".TargetBankTin", in.TargetBankTin, &out.RfcEmisorCtaBen, true}, {".TargetBankAccount", in.TargetBankAccount, &out.CtaBeneficiario, false}} {
		v := strings.TrimSpace(b.v)
		if v == "" {
			continue
		}
		if b.rfc {
			if err := cfdi.CheckRFC(strings.ToUpper(v)); err != nil {
				k.add(p+b.prop, err.Error(), v, CodeFormat)
			}
		} else if !bankAccountPattern.MatchString(v) {
			k.add(p+b.prop, fmt.Sprintf(MsgBankAccount, v), v, CodeFormat)
		}
		if b.rfc {
			v = strings.ToUpper(v)
		}
		*b.dst = v
	}
	if len(in.PaidInvoices) == 0 {
		k.add(p+".PaidInvoices", MsgPaymentNoInvoices, nil, CodeNotEmpty)
	}
	for j, d := range in.PaidInvoices {
		out.Documentos = append(out.Documentos, k.paidInvoice(fmt.Sprintf("%s.PaidInvoices[%d]", p, j), d, cur))
	}
	return out, len(k.fs) == n
}

// money reads an amount > 0 with at most the currency's decimals.
func (k *checker) money(prop string, v api.Amount, currency string) (cfdi.Decimal, bool) {
	d, ok := k.amount(prop, v)
	if !ok {
		return d, false
	}
	if d.Sign() <= 0 {
		k.add(prop, fmt.Sprintf(MsgAmountPositive, apierr.Words(prop)), string(v), CodeRule)
		return d, false
	}
	if cd := decimalsOf(currency); d.Places() > cd {
		k.add(prop, fmt.Sprintf(MsgAmountDecimals, apierr.Words(prop), cd, currency, string(v)), string(v), CodeFormat)
		return d, false
	}
	return d, true
}

// paidInvoice checks one paid invoice (a DoctoRelacionado) of a payment in currency payCur.
func (k *checker) paidInvoice(p string, in api.InvoicePaidInvoiceInput, payCur string) cfdi.DocumentoInput {
	out := cfdi.DocumentoInput{Serie: in.Series, Folio: strings.TrimSpace(string(in.Number)), ObjetoImpDR: in.TaxObjectCode}
	if k.required(p+".Uuid", in.UUID) && !uuidPattern.MatchString(in.UUID) {
		k.add(p+".Uuid", fmt.Sprintf(MsgUUID, in.UUID), in.UUID, CodeFormat)
	}
	out.IdDocumento = strings.ToUpper(in.UUID)
	k.maxLen(p+".Series", in.Series, 25)
	k.maxLen(p+".Number", out.Folio, 40)
	cur := in.CurrencyCode
	if cur == "" {
		cur = "MXN"
	}
	if k.catalog(p+".CurrencyCode", CatalogCurrencies, cur) && cur == "XXX" {
		k.add(p+".CurrencyCode", MsgPaymentCurrencyXXX, cur, CodeRule)
	}
	out.MonedaDR, out.MonedaDRDecimals = cur, decimalsOf(cur)
	if cur == payCur {
		if in.Equivalence != "" {
			if e, ok := k.amount(p+".Equivalence", in.Equivalence); ok && e.Cmp(cfdi.FromInt(1)) != 0 {
				k.add(p+".Equivalence", MsgEquivalenceSame, string(in.Equivalence), CodeRule)
			}
		}
	} else if in.Equivalence == "" {
		k.add(p+".Equivalence", fmt.Sprintf(MsgEquivalenceNeeded, cur, payCur, cur, payCur), nil, CodeRule)
	} else if e, ok := k.amount(p+".Equivalence", in.Equivalence); ok {
		if e.Sign() <= 0 {
			k.add(p+".Equivalence", fmt.Sprintf(MsgEquivalenceNeeded, cur, payCur, cur, payCur), string(in.Equivalence), CodeRule)
		}
		out.EquivalenciaDR = e
	}
	part := strings.TrimSpace(string(in.PartialityNumber))
	if n, err := strconv.Atoi(part); err != nil || n < 1 || n > 999 {
		k.add(p+".PartialityNumber", fmt.Sprintf(MsgPartiality, part), attempted(part), CodeFormat)
	} else {
		out.NumParcialidad = n
	}
	var okAnt, okPaid bool
	if in.PreviousBalance == "" {
		k.add(p+".PreviousBalance", fmt.Sprintf(apierr.MsgNotEmpty, "Previous Balance"), nil, CodeNotEmpty)
	} else {
		out.ImpSaldoAnt, okAnt = k.money(p+".PreviousBalance", in.PreviousBalance, cur)
	}
	if in.PaymentAmount == "" {
		k.add(p+".PaymentAmount", fmt.Sprintf(apierr.MsgNotEmpty, "Payment Amount"), nil, CodeNotEmpty)
	} else {
		out.ImpPagado, okPaid = k.money(p+".PaymentAmount", in.PaymentAmount, cur)
	}
	if okAnt && okPaid {
		cd := out.MonedaDRDecimals
		rest, _ := out.ImpSaldoAnt.Sub(out.ImpPagado)
		if rest.Sign() < 0 {
			k.add(p+".PaymentAmount", fmt.Sprintf(MsgPaidOverBalance, out.ImpPagado.Fixed(cd), out.ImpSaldoAnt.Fixed(cd)), string(in.PaymentAmount), CodeRule)
		} else if in.RemainingBalance != "" {
			if r, ok := k.amount(p+".RemainingBalance", in.RemainingBalance); ok && r.Cmp(rest) != 0 {
				k.add(p+".RemainingBalance", fmt.Sprintf(MsgRemainingBalance, string(in.RemainingBalance), rest.Fixed(cd)), string(in.RemainingBalance), CodeRule)
			}
		}
	}
	if in.SubTotal != "" {
		k.amount(p+".SubTotal", in.SubTotal)
	}

	object := in.TaxObjectCode
	if k.requiredCode(p+".TaxObjectCode", CatalogTaxObjects, object) {
		switch {
		case object == "02" && len(in.PaidInvoiceTaxes) == 0:
			k.add(p+".PaidInvoiceTaxes", strings.Replace(MsgTaxObjectNeedsTax, "itemTaxes", "paidInvoiceTaxes", 1), nil, CodeRule)
		case (object == "01" || object == "03" || object == "04") && len(in.PaidInvoiceTaxes) > 0:
			k.add(p+".PaidInvoiceTaxes", strings.Replace(fmt.Sprintf(MsgTaxObjectNoTaxes, object), "itemTaxes", "paidInvoiceTaxes", 1), nil, CodeRule)
		}
	}
	for j, t := range in.PaidInvoiceTaxes {
		tp := fmt.Sprintf("%s.PaidInvoiceTaxes[%d]", p, j)
		rate, rateDec, ok := k.taxLine(tp, t)
		if !ok {
			continue
		}
		if t.TaxTypeCode == cfdi.Cuota {
			k.add(tp+".TaxTypeCode", MsgPaidTaxCuota, t.TaxTypeCode, CodeRule)
			continue
		}
		if _, ok := k.taxCombination(tp, t, rate, "paidInvoiceTaxes"); !ok {
			continue
		}
		out.Taxes = append(out.Taxes, cfdi.Tax{Impuesto: t.TaxCode, TipoFactor: t.TaxTypeCode, TasaOCuota: rateDec, Retencion: t.TaxFlagCode == products.FlagWithheld})
	}
	return out
}
