package server

import (
	"fmt"
	"testing"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
)

// paymentByValue is a payment receipt by value as the official client's examples send it: the
// issuer's CSD (SAT's EKU9003173C9), the fixed concept, complement.payment of one MXN payment of
// two invoices (one paid in full with IVA 16 % and IVA and ISR withheld, one in part).
func paymentByValue(t *testing.T) map[string]any {
	body := byValue(t)
	for _, k := range []string{"paymentFormCode", "paymentMethodCode", "paymentConditions"} {
		delete(body, k)
	}
	body["typeCode"], body["currencyCode"], body["exchangeRate"], body["series"] = "P", "XXX", 1, "CP"
	body["recipient"].(map[string]any)["cfdiUseCode"] = "CP01"
	body["items"] = []any{map[string]any{"itemCode": "84111506", "quantity": 1, "unitOfMeasurementCode": "ACT", "description": "Pago",
		"unitPrice": 0, "taxObjectCode": "01"}}
	body["complement"] = map[string]any{"payment": map[string]any{
		"paymentDate": "2026-01-05T14:44:56", "paymentFormCode": "03", "currencyCode": "MXN", "exchangeRate": 1,
		"operationNumber": "OP-1", "sourceBankTin": "BSM970519DU8", "sourceBankAccount": "1234567891012131",
		"targetBankTin": "BBA830831LJ2", "targetBankAccount": "1234567890",
		"paidInvoices": []any{
			map[string]any{"uuid": "5c7b0622-01b4-4eb8-96d0-e0debd89ff0f", "series": "F", "number": "1501", "currencyCode": "MXN",
				"partialityNumber": 1, "subTotal": 1000, "previousBalance": "953.33", "paymentAmount": 953.33, "remainingBalance": 0,
				"taxObjectCode": "02", "paidInvoiceTaxes": []any{
					map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T"},
					map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.106667", "taxFlagCode": "R"},
					map[string]any{"taxCode": "001", "taxTypeCode": "Tasa", "taxRate": "0.100000", "taxFlagCode": "R"},
				}},
			map[string]any{"uuid": "4A5D025B-813A-4ACF-9F32-8FB61F4918AC", "number": 2, "partialityNumber": 2,
				"previousBalance": 1160, "paymentAmount": "500", "taxObjectCode": "02", "paidInvoiceTaxes": []any{
					map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": 0.16, "taxFlagCode": "T"},
				}},
		},
	}}
	return body
}

func pagosOf(t *testing.T, doc *cfdi.Comprobante) *cfdi.Pagos {
	t.Helper()
	for _, c := range doc.Complemento {
		if p, ok := c.(*cfdi.Pagos); ok {
			return p
		}
	}
	t.Fatalf("no Pagos complement in %+v", doc.Complemento)
	return nil
}

// A payment receipt stamped by value: the XML is re-verified (SAT's XSLT cadenas, Sello and
// SelloSAT) and carries the computed Pagos 2.0 amounts; one stamp is used per receipt.
func TestInvoicePaymentByValue(t *testing.T) {
	f, m := invoiceFixture(t, 3)
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(paymentByValue(t)), m.headers()...))
	doc := verifyAnswer(t, f, inv)
	k := doc.Conceptos
	if doc.TipoDeComprobante != "P" || doc.Moneda != "XXX" || doc.SubTotal != "0" || doc.Total != "0" || doc.FormaPago != "" ||
		doc.MetodoPago != "" || doc.TipoCambio != "" || doc.Exportacion != "01" || doc.Receptor.UsoCFDI != "CP01" || doc.Impuestos != nil ||
		len(k) != 1 || k[0].ClaveProdServ != "84111506" || k[0].ValorUnitario != "0" || k[0].ObjetoImp != "01" {
		t.Fatalf("payment receipt: %+v", doc)
	}
	p := pagosOf(t, doc)
	pg := p.Pagos[0]
	// 953.33 / (1 + 0.16 − 0.106667 − 0.10) → base 1000.00; 500 / 1.16 = 431.03, IVA 68.96.
	d0, d1 := pg.DoctoRelacionado[0], pg.DoctoRelacionado[1]
	if pg.Monto != "1453.33" || pg.TipoCambioP != "1" || pg.FechaPago != "2026-01-05T14:44:56" || pg.RfcEmisorCtaOrd != "BSM970519DU8" ||
		d0.IdDocumento != "5C7B0622-01B4-4EB8-96D0-E0DEBD89FF0F" || d0.ImpSaldoInsoluto != "0.00" || d0.TrasladosDR[0].BaseDR != "1000.00" ||
		d0.RetencionesDR[0].ImporteDR != "106.67" || d1.Folio != "2" || d1.NumParcialidad != "2" || d1.ImpSaldoInsoluto != "660.00" ||
		d1.TrasladosDR[0].ImporteDR != "68.96" || d1.EquivalenciaDR != "1" {
		t.Fatalf("pago: %+v", pg)
	}
	tot := p.Totales
	if tot.TotalTrasladosBaseIVA16 != "1431.03" || tot.TotalTrasladosImpuestoIVA16 != "228.96" || tot.TotalRetencionesIVA != "106.67" ||
		tot.TotalRetencionesISR != "100.00" || tot.MontoTotalPagos != "1453.33" || tot.TotalTrasladosBaseIVAExento != "" {
		t.Fatalf("totales: %+v", tot)
	}
	if inv.TypeCode != "P" || inv.CurrencyCode != "XXX" || inv.PaymentFormCode != nil || inv.PaymentMethodCode != nil || string(inv.Total) != "0" {
		t.Fatalf("answer: %+v", inv)
	}

	// A USD payment of an MXN invoice, sent as a list, with the defaults of P: no items, no
	// currencyCode, no cfdiUseCode, no amount (it is the paid invoices' payments in USD).
	body := paymentByValue(t)
	for _, k := range []string{"items", "currencyCode", "exchangeRate"} {
		delete(body, k)
	}
	delete(body["recipient"].(map[string]any), "cfdiUseCode")
	body["complement"] = map[string]any{"payment": []any{map[string]any{
		"paymentDate": "2026-01-05T10:00:00", "paymentFormCode": "03", "currencyCode": "USD", "exchangeRate": "20.64",
		"paidInvoices": []any{map[string]any{"uuid": "4a5d025b-813a-4acf-9f32-8fb61f4918ac", "currencyCode": "MXN", "equivalence": 20.64,
			"partialityNumber": 1, "previousBalance": 116, "paymentAmount": 116, "taxObjectCode": "02",
			"paidInvoiceTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.16", "taxFlagCode": "T"}}}},
	}}}
	inv = invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	doc = verifyAnswer(t, f, inv)
	p = pagosOf(t, doc)
	pg = p.Pagos[0]
	// 116 / 20.64 = 5.6201… → 5.62; BaseP 100 / 20.64 → 4.84, ImporteP 16 / 20.64 → 0.78;
	// totals 4.84 × 20.64 → 99.90, 0.78 × 20.64 → 16.10, 5.62 × 20.64 → 116.00.
	if doc.Receptor.UsoCFDI != "CP01" || doc.Moneda != "XXX" || pg.Monto != "5.62" || pg.TipoCambioP != "20.64" ||
		pg.DoctoRelacionado[0].EquivalenciaDR != "20.64" || pg.TrasladosP[0].BaseP != "4.84" || pg.TrasladosP[0].ImporteP != "0.78" ||
		p.Totales.TotalTrasladosBaseIVA16 != "99.90" || p.Totales.TotalTrasladosImpuestoIVA16 != "16.10" || p.Totales.MontoTotalPagos != "116.00" {
		t.Fatalf("USD payment: %+v %+v", pg, p.Totales)
	}
	if got := stampsOf(t, f, m.person); got != 1 {
		t.Fatalf("stamps = %v, want 1", got)
	}
}

// Every failure of a payment receipt in one 400, in the API's naming; none uses a stamp.
func TestInvoicePaymentValidation(t *testing.T) {
	f, m := invoiceFixture(t, 2)
	body := paymentByValue(t)
	body["paymentFormCode"], body["currencyCode"], body["exportCode"] = "01", "MXN", "02"
	body["recipient"].(map[string]any)["cfdiUseCode"] = "G03"
	body["items"] = []any{map[string]any{"itemCode": "01010101", "quantity": 2, "unitOfMeasurementCode": "H87", "description": "x", "unitPrice": 5, "taxObjectCode": "02"}}
	pay := body["complement"].(map[string]any)["payment"].(map[string]any)
	pay["paymentFormCode"], pay["currencyCode"], pay["sourceBankAccount"] = "99", "USD", "12"
	pay["targetBankTin"] = "bba830230lj2" // 30 February
	delete(pay, "exchangeRate")
	pay["paidInvoices"] = []any{
		map[string]any{"uuid": "nope", "partialityNumber": 0, "previousBalance": 100, "paymentAmount": 150, "taxObjectCode": "02", "currencyCode": "USD"},
		map[string]any{"uuid": "4A5D025B-813A-4ACF-9F32-8FB61F4918AC", "partialityNumber": 1, "previousBalance": 100, "paymentAmount": "10.005",
			"taxObjectCode": "02", "paidInvoiceTaxes": []any{map[string]any{"taxCode": "003", "taxTypeCode": "Cuota", "taxRate": "1.5", "taxFlagCode": "T"}}},
		map[string]any{"uuid": "4A5D025B-813A-4ACF-9F32-8FB61F4918AC", "partialityNumber": 1, "previousBalance": 100, "paymentAmount": 40,
			"remainingBalance": 70, "equivalence": 17, "currencyCode": "MXN", "taxObjectCode": "01"},
	}
	r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	p := "Complement.Payment"
	for _, c := range [][2]string{
		{"PaymentFormCode", fmt.Sprintf(invoices.MsgNoPaymentFields, "P", "paymentFormCode")},
		{"CurrencyCode", fmt.Sprintf(invoices.MsgPaymentCurrency, "MXN")},
		{"ExportCode", fmt.Sprintf(invoices.MsgPaymentExport, "02")},
		{"Recipient.CfdiUseCode", fmt.Sprintf(invoices.MsgPaymentCfdiUse, "G03")},
		{"Items", invoices.MsgPaymentItems},
		{p + ".PaymentFormCode", invoices.MsgPaymentForm99},
		{p + ".ExchangeRate", "Con la moneda USD el tipo de cambio del pago (MXN por unidad) es requerido y debe ser mayor a 0."},
		{p + ".SourceBankAccount", "La cuenta '12' no es válida: de 10 a 50 letras mayúsculas, dígitos o guion bajo."},
		{p + ".TargetBankTin", "El RFC 'BBA830230LJ2' no es válido: su fecha 830230 (AAMMDD) no existe en el calendario."},
		{p + ".PaidInvoices[0].Uuid", "El UUID 'nope' no es válido."},
		{p + ".PaidInvoices[0].PartialityNumber", "El número de parcialidad debe ser un entero de 1 a 999; se recibió '0'."},
		{p + ".PaidInvoices[0].PaymentAmount", "El monto pagado 150.00 no puede ser mayor al saldo anterior 100.00."},
		{p + ".PaidInvoices[0].PaidInvoiceTaxes", "El objeto de impuesto '02' (sí objeto de impuesto) requiere al menos un impuesto en paidInvoiceTaxes."},
		{p + ".PaidInvoices[1].Equivalence", "Con la moneda de la factura MXN distinta a la del pago USD la equivalencia (unidades de MXN por unidad de USD) es requerida y debe ser mayor a 0."},
		{p + ".PaidInvoices[1].PaymentAmount", "'Payment Amount' admite hasta 2 decimales (moneda MXN); se recibió '10.005'."},
		{p + ".PaidInvoices[1].PaidInvoiceTaxes[0].TaxTypeCode", invoices.MsgPaidTaxCuota},
		{p + ".PaidInvoices[2].RemainingBalance", "El saldo restante 70 no es el saldo anterior menos el monto pagado: 60.00."},
	} {
		expectFailure(t, r, c[0], c[1])
	}

	// an amount short of what the invoices are paid; no complement for P; payment on an I
	body = paymentByValue(t)
	body["complement"].(map[string]any)["payment"].(map[string]any)["amount"] = "1000.00"
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...), p+".Amount",
		"El monto del pago 1000.00 es menor que lo pagado a las facturas convertido a MXN con sus equivalencias: 1453.33.")
	body = paymentByValue(t)
	delete(body, "complement")
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...), p, invoices.MsgPaymentNeeded)
	income := byValue(t)
	income["complement"] = map[string]any{"payment": paymentByValue(t)["complement"].(map[string]any)["payment"]}
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(income), m.headers()...), p, fmt.Sprintf(invoices.MsgPaymentOnlyP, "I"))
	if got := stampsOf(t, f, m.person); got != 2 {
		t.Fatalf("stamps after failures = %v, want 2", got)
	}
}
