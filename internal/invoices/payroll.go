package invoices

// Payroll CFDIs (typeCode N) with the Nómina 1.2 complement (complement.payroll).
//
// What the spec leaves open, decided here:
//
//   - The request is the official client's model: complement.payroll {version, payrollTypeCode,
//     paymentDate, initialPaymentDate, finalPaymentDate, daysPaid, earnings {earnings[],
//     otherPayments[], retirement, severance}, deductions[], disabilities[]}; by value the employer
//     and employee travel inline as issuer.employerData and recipient.employeeData (the fields of
//     spec 2 §2.2–2.3 plus curp); by reference they are the people's employer and employee data
//     and their CURPs (spec 2: the employer needs employer data and, if an individual (RFC of 13
//     characters), a CURP; the employee needs employee data and a CURP). The employee data must
//     name the issuer as its employer.
//   - The CFDI follows SAT's guide for payroll: no items are sent (the one Concepto 84111505 "Pago
//     de nómina" is built from the complement), no paymentFormCode, paymentMethodCode PUE (the
//     default), currency MXN, exportCode 01, recipient regime 605 and cfdiUseCode CN01 (the
//     default; a by-reference recipient's stored use is replaced by it).
//   - With contract types 01 to 08 the employer registration is required and written with the
//     employee's social security number, start date, seniority, job risk and integrated daily
//     salary; with 09, 10 and 99 (no employment relationship) SAT forbids all of them, so they are
//     left out even when the stored data has them.
//   - Amounts have at most 2 decimals (t_ImporteMXN); the stored salaries of an employee are
//     rounded to 2. Dates may be sent as dates or date-times; their date is used.
//   - Ordinary payroll (O) takes a payment periodicity other than 99, extraordinary (E) only 99.
//     Deductions may not exceed earnings plus other payments (the Total would be negative).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/employment"
	"github.com/timbra-mx/timbra/storage"
)

// Texts of payroll invoices.
const (
	MsgPayrollNeeded        = "Un comprobante de nómina (N) requiere el complemento de nómina en complement.payroll."
	MsgPayrollOnlyN         = "El complemento de nómina y los datos de empleador y empleado solo aplican a comprobantes de nómina (typeCode N)."
	MsgPayrollJSON          = "El complemento de nómina no tiene la forma esperada: %s."
	MsgPayrollVersion       = "La versión del complemento de nómina '%s' no se admite: usa 1.2."
	MsgPayrollNoItems       = "Un comprobante de nómina (N) no lleva items: su concepto (84111505, Pago de nómina) se forma con el complemento."
	MsgPayrollField         = "Un comprobante de nómina (N) no lleva '%s'."
	MsgPayrollValue         = "En un comprobante de nómina (N) '%s' debe ser '%s'."
	MsgPayrollDate          = "La fecha '%s' no es válida: usa AAAA-MM-DD."
	MsgPayrollDates         = "La fecha inicial de pago %s no puede ser posterior a la fecha final de pago %s."
	MsgPayrollStartDate     = "La fecha de inicio de la relación laboral %s no puede ser posterior a la fecha final de pago %s."
	MsgPayrollDays          = "Los días pagados deben ser un número mayor a 0 y hasta 36160, con hasta 3 decimales; se recibió '%s'."
	MsgPayrollAmount        = "'%s' debe ser un importe mayor o igual a 0 con hasta 2 decimales (t_ImporteMXN); se recibió '%s'."
	MsgPayrollEmpty         = "El complemento de nómina requiere al menos una percepción (earnings.earnings) u otro pago (earnings.otherPayments)."
	MsgPayrollEarningZero   = "La suma del importe gravado y el exento de una percepción debe ser mayor a 0."
	MsgPayrollDeductionZero = "El importe de una deducción debe ser mayor a 0."
	MsgPayrollCode          = "La clave '%s' debe tener de 3 a 15 caracteres y no llevar '|'."
	MsgPayrollConcept       = "El concepto debe tener de 1 a 100 caracteres y no llevar '|'."
	MsgPayrollDeductions    = "Las deducciones (%s) no pueden ser mayores a las percepciones más otros pagos (%s): el total del comprobante sería negativo."
	MsgPayrollPeriodicityO  = "En una nómina ordinaria (O) la periodicidad de pago no puede ser 99 (Otra periodicidad)."
	MsgPayrollPeriodicityE  = "En una nómina extraordinaria (E) la periodicidad de pago debe ser 99 (Otra periodicidad); la del empleado es '%s'."
	MsgPayrollSubsidy       = "El otro pago de tipo 002 (subsidio para el empleo) requiere subsidyCaused, mayor o igual a su importe."
	MsgPayrollCompensation  = "El otro pago de tipo 004 (compensación de saldos a favor) requiere balanceCompensation."
	MsgPayrollNotForType    = "'%s' solo aplica al tipo %s."
	MsgPayrollRetirement    = "Las percepciones de tipo 039 o 044 (jubilaciones, pensiones o haberes de retiro) requieren earnings.retirement, y solo ellas lo llevan."
	MsgPayrollSeverance     = "Las percepciones de tipo 022, 023 o 025 (separación o indemnización) requieren earnings.severance, y solo ellas lo llevan."
	MsgPayrollOvertime      = "Las percepciones de tipo 019 (horas extra) requieren overtime."
	MsgPayrollStock         = "Las percepciones de tipo 045 (ingresos en acciones) requieren stockOptions."
	MsgPayrollInteger       = "'%s' debe ser un número entero de %d a %d; se recibió '%s'."
	MsgCurp                 = "La CURP '%s' no tiene un formato válido."
	MsgCurpMoral            = "El emisor '%s' es persona moral: su CURP no va en el complemento de nómina."
	MsgIssuerNoEmployer     = "La persona '%s' no tiene datos de empleador: regístralos con POST /api/v4/people/%s/employer antes de timbrar nómina."
	MsgIssuerNoCurp         = "La persona '%s' es persona física y no tiene CURP (curp), que la nómina requiere del empleador."
	MsgRecipientNoEmployee  = "La persona '%s' no tiene datos de empleado: regístralos con POST /api/v4/people/%s/employee antes de timbrar nómina."
	MsgRecipientNoCurp      = "La persona '%s' no tiene CURP (curp), que la nómina requiere del empleado."
	MsgOtherEmployer        = "Los datos de empleado de la persona '%s' son del empleador '%s', no del emisor '%s'."
	MsgRegistrationNeeded   = "Con el tipo de contrato '%s' el registro patronal del empleador (employerRegistration) es requerido."
)

// Payroll catalogs (spec 3 §4.2 names).
const (
	CatalogPayrollTypes       = "SatPayrollTypes"
	CatalogEarningTypes       = "SatEarningTypes"
	CatalogDeductionTypes     = "SatDeductionTypes"
	CatalogOtherPaymentTypes  = "SatOtherPaymentTypes"
	CatalogOvertimeTypes      = "SatOvertimeTypes"
	CatalogDisabilityTypes    = "SatDisabilityTypes"
	CatalogFundSources        = "SatFundSources"
	CatalogContractTypes      = "SatContractTypes"
	CatalogTaxRegimeTypes     = "SatTaxRegimeTypes"
	CatalogWorkdayTypes       = "SatWorkdayTypes"
	CatalogJobRisks           = "SatJobRisks"
	CatalogPaymentPeriodicity = "SatPaymentPeriodicities"
	CatalogPayrollStates      = "SatPayrollStates"
	CatalogBanks              = "SatBanks"
	CatalogUnionizedStatuses  = "SatUnionizedStatuses"
)

func init() {
	for k, v := range map[string]string{
		CatalogPayrollTypes: "c_TipoNomina", CatalogEarningTypes: "c_TipoPercepcion", CatalogDeductionTypes: "c_TipoDeduccion",
		CatalogOtherPaymentTypes: "c_TipoOtroPago", CatalogOvertimeTypes: "c_TipoHoras", CatalogDisabilityTypes: "c_TipoIncapacidad",
		CatalogFundSources: "c_OrigenRecurso", CatalogContractTypes: "c_TipoContrato", CatalogTaxRegimeTypes: "c_TipoRegimen",
		CatalogWorkdayTypes: "c_TipoJornada", CatalogJobRisks: "c_RiesgoPuesto", CatalogPaymentPeriodicity: "c_PeriodicidadPago",
		CatalogPayrollStates: "c_Estado", CatalogBanks: "c_Banco", CatalogUnionizedStatuses: "c_Sindicalizado",
	} {
		satName[k] = v
	}
}

// curpPattern is t_CURP of SAT's schema.
var curpPattern = regexp.MustCompile(`^[A-Z][AEIOUX][A-Z]{2}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[MHX]([ABCMTZ]S|[BCJMOT]C|[CNPST]L|[GNQ]T|[GQS]R|C[MH]|[MY]N|[DH]G|NE|VZ|DF|SP)[BCDFGHJ-NP-TV-Z]{3}[0-9A-Z][0-9]$`)

// ---- the request, as the official client's model sends it

type payrollInput struct {
	Version            string              `json:"version"`
	PayrollTypeCode    string              `json:"payrollTypeCode"`
	PaymentDate        string              `json:"paymentDate"`
	InitialPaymentDate string              `json:"initialPaymentDate"`
	FinalPaymentDate   string              `json:"finalPaymentDate"`
	DaysPaid           api.Amount          `json:"daysPaid"`
	Earnings           *payrollEarnings    `json:"earnings"`
	Deductions         []payrollDeduction  `json:"deductions"`
	Disabilities       []payrollDisability `json:"disabilities"`
}

type payrollEarnings struct {
	Earnings      []payrollEarning      `json:"earnings"`
	OtherPayments []payrollOtherPayment `json:"otherPayments"`
	Retirement    *payrollRetirement    `json:"retirement"`
	Severance     *payrollSeverance     `json:"severance"`
}

type payrollEarning struct {
	EarningTypeCode string               `json:"earningTypeCode"`
	Code            string               `json:"code"`
	Concept         string               `json:"concept"`
	TaxedAmount     api.Amount           `json:"taxedAmount"`
	ExemptAmount    api.Amount           `json:"exemptAmount"`
	Overtime        []payrollOvertime    `json:"overtime"`
	StockOptions    *payrollStockOptions `json:"stockOptions"`
}

type payrollStockOptions struct {
	MarketPrice api.Amount `json:"marketPrice"`
	GrantPrice  api.Amount `json:"grantPrice"`
}

type payrollOvertime struct {
	Days          api.Amount `json:"days"`
	HoursTypeCode string     `json:"hoursTypeCode"`
	ExtraHours    api.Amount `json:"extraHours"`
	AmountPaid    api.Amount `json:"amountPaid"`
}

type payrollOtherPayment struct {
	OtherPaymentTypeCode string                      `json:"otherPaymentTypeCode"`
	Code                 string                      `json:"code"`
	Concept              string                      `json:"concept"`
	Amount               api.Amount                  `json:"amount"`
	SubsidyCaused        api.Amount                  `json:"subsidyCaused"`
	BalanceCompensation  *payrollBalanceCompensation `json:"balanceCompensation"`
}

type payrollBalanceCompensation struct {
	FavorableBalance          api.Amount `json:"favorableBalance"`
	Year                      api.Amount `json:"year"`
	RemainingFavorableBalance api.Amount `json:"remainingFavorableBalance"`
}

type payrollRetirement struct {
	TotalOneTime         api.Amount `json:"totalOneTime"`
	TotalInstallments    api.Amount `json:"totalInstallments"`
	DailyAmount          api.Amount `json:"dailyAmount"`
	AccumulableIncome    api.Amount `json:"accumulableIncome"`
	NonAccumulableIncome api.Amount `json:"nonAccumulableIncome"`
}

type payrollSeverance struct {
	TotalPaid            api.Amount `json:"totalPaid"`
	YearsOfService       api.Amount `json:"yearsOfService"`
	LastMonthlySalary    api.Amount `json:"lastMonthlySalary"`
	AccumulableIncome    api.Amount `json:"accumulableIncome"`
	NonAccumulableIncome api.Amount `json:"nonAccumulableIncome"`
}

type payrollDeduction struct {
	DeductionTypeCode string     `json:"deductionTypeCode"`
	Code              string     `json:"code"`
	Concept           string     `json:"concept"`
	Amount            api.Amount `json:"amount"`
}

type payrollDisability struct {
	DisabilityDays     api.Amount `json:"disabilityDays"`
	DisabilityTypeCode string     `json:"disabilityTypeCode"`
	MonetaryAmount     api.Amount `json:"monetaryAmount"`
}

// employerDataInput is issuer.employerData (by value).
type employerDataInput struct {
	Curp                 string     `json:"curp"`
	EmployerRegistration string     `json:"employerRegistration"`
	OriginEmployerTin    string     `json:"originEmployerTin"`
	SatFundSourceID      string     `json:"satFundSourceId"`
	OwnResourceAmount    api.Amount `json:"ownResourceAmount"`
}

// employeeDataInput is recipient.employeeData (by value).
type employeeDataInput struct {
	Curp                       string     `json:"curp"`
	SocialSecurityNumber       string     `json:"socialSecurityNumber"`
	LaborRelationStartDate     string     `json:"laborRelationStartDate"`
	Seniority                  string     `json:"seniority"`
	SatContractTypeID          string     `json:"satContractTypeId"`
	SatUnionizedStatusID       string     `json:"satUnionizedStatusId"`
	SatWorkdayTypeID           string     `json:"satWorkdayTypeId"`
	SatTaxRegimeTypeID         string     `json:"satTaxRegimeTypeId"`
	EmployeeNumber             string     `json:"employeeNumber"`
	Department                 string     `json:"department"`
	Position                   string     `json:"position"`
	SatJobRiskID               string     `json:"satJobRiskId"`
	SatPaymentPeriodicityID    string     `json:"satPaymentPeriodicityId"`
	SatBankID                  string     `json:"satBankId"`
	BankAccount                string     `json:"bankAccount"`
	BaseSalaryForContributions api.Amount `json:"baseSalaryForContributions"`
	IntegratedDailySalary      api.Amount `json:"integratedDailySalary"`
	SatPayrollStateID          string     `json:"satPayrollStateId"`
	SubcontractorRfc           string     `json:"subcontractorRfc"`
	TimePercentage             api.Amount `json:"timePercentage"`
}

func sentJSON(r []byte) bool { return len(r) > 0 && string(bytes.TrimSpace(r)) != "null" }

// decodeStrict reads a raw part of the request; unknown fields and wrong types are reported.
func (k *checker) decodeStrict(prop string, raw []byte, v any) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		msg := err.Error()
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			msg = fmt.Sprintf("el campo '%s' no es del tipo esperado", te.Field)
		}
		msg = strings.Replace(msg, "json: unknown field", "campo desconocido", 1)
		k.add(prop, fmt.Sprintf(MsgPayrollJSON, msg), nil, CodeFormat)
		return false
	}
	return true
}

// notForPayroll reports payroll data sent with another type of invoice.
func (k *checker) notForPayroll(in *api.InvoiceInput) {
	if in.Issuer != nil && sentJSON(in.Issuer.EmployerData) {
		k.add("Issuer.EmployerData", MsgPayrollOnlyN, nil, CodeRule)
	}
	if in.Recipient != nil && sentJSON(in.Recipient.EmployeeData) {
		k.add("Recipient.EmployeeData", MsgPayrollOnlyN, nil, CodeRule)
	}
	if in.Complement != nil && sentJSON(in.Complement.Payroll) {
		k.add("Complement.Payroll", MsgPayrollOnlyN, nil, CodeRule)
	}
}

// payrollDefaults fills what a payroll request may omit before the common checks run: the
// payment method PUE and the recipient's use CN01 (a by-reference recipient's stored use is
// replaced).
func payrollDefaults(in *api.InvoiceInput) {
	if in.TypeCode != cfdi.TipoNomina {
		return
	}
	if in.PaymentMethodCode == "" {
		in.PaymentMethodCode = cfdi.NominaMetodoPago
	}
	if in.Recipient != nil && in.Recipient.CfdiUseCode == "" {
		r := *in.Recipient
		r.CfdiUseCode = cfdi.NominaUsoCFDI
		in.Recipient = &r
	}
}

// payrollHeader checks the CFDI fields a payroll invoice fixes.
func (k *checker) payrollHeader(in *api.InvoiceInput, doc *cfdi.Comprobante) {
	if in.PaymentFormCode != "" {
		k.add("PaymentFormCode", fmt.Sprintf(MsgPayrollField, "paymentFormCode"), in.PaymentFormCode, CodeRule)
	}
	if in.PaymentMethodCode != cfdi.NominaMetodoPago {
		k.add("PaymentMethodCode", fmt.Sprintf(MsgPayrollValue, "paymentMethodCode", cfdi.NominaMetodoPago), attempted(in.PaymentMethodCode), CodeRule)
	}
	if in.PaymentConditions != "" {
		k.add("PaymentConditions", fmt.Sprintf(MsgPayrollField, "paymentConditions"), in.PaymentConditions, CodeRule)
	}
	if doc.Moneda != cfdi.NominaMoneda {
		k.add("CurrencyCode", fmt.Sprintf(MsgPayrollValue, "currencyCode", cfdi.NominaMoneda), doc.Moneda, CodeRule)
	}
	if doc.Exportacion != cfdi.NominaExportacion {
		k.add("ExportCode", fmt.Sprintf(MsgPayrollValue, "exportCode", cfdi.NominaExportacion), doc.Exportacion, CodeRule)
	}
	doc.MetodoPago = cfdi.NominaMetodoPago
}

// payrollLines checks and builds the payroll complement of a type N invoice and returns it with
// the invoice's one line. is and rc are the resolved issuer and recipient.
func (k *checker) payrollLines(in *api.InvoiceInput, is *issuer, rc *recipient) (*cfdi.Nomina, []line) {
	if len(in.Items) > 0 {
		k.add("Items", MsgPayrollNoItems, nil, CodeRule)
	}
	if rc.regime != "" && rc.regime != cfdi.NominaRegimen {
		prop := "Recipient.TaxRegimeCode"
		if rc.byReference {
			prop = "Recipient.Id"
		}
		k.add(prop, fmt.Sprintf(MsgPayrollValue, "taxRegimeCode", cfdi.NominaRegimen), rc.regime, CodeRule)
	}
	if rc.use != "" && rc.use != cfdi.NominaUsoCFDI {
		k.add("Recipient.CfdiUseCode", fmt.Sprintf(MsgPayrollValue, "cfdiUseCode", cfdi.NominaUsoCFDI), rc.use, CodeRule)
	}
	n := &cfdi.Nomina{Version: "1.2"}
	emp := k.payrollEmployer(in.Issuer, is)
	ee := k.payrollEmployee(in.Recipient, rc, is)

	var p payrollInput
	if in.Complement == nil || !sentJSON(in.Complement.Payroll) {
		k.add("Complement.Payroll", MsgPayrollNeeded, nil, CodeNotEmpty)
		return nil, nil
	}
	if !k.decodeStrict("Complement.Payroll", in.Complement.Payroll, &p) {
		return nil, nil
	}
	const pp = "Complement.Payroll"
	if p.Version != "" && p.Version != "1.2" {
		k.add(pp+".Version", fmt.Sprintf(MsgPayrollVersion, p.Version), p.Version, CodeNotSupported)
	}
	if k.requiredCode(pp+".PayrollTypeCode", CatalogPayrollTypes, p.PayrollTypeCode) && ee != nil {
		switch per := ee.PeriodicidadPago; {
		case per == "":
		case p.PayrollTypeCode == "O" && per == "99":
			k.add(pp+".PayrollTypeCode", MsgPayrollPeriodicityO, p.PayrollTypeCode, CodeRule)
		case p.PayrollTypeCode == "E" && per != "99":
			k.add(pp+".PayrollTypeCode", fmt.Sprintf(MsgPayrollPeriodicityE, per), p.PayrollTypeCode, CodeRule)
		}
	}
	n.TipoNomina = p.PayrollTypeCode
	n.FechaPago = k.payrollDate(pp+".PaymentDate", p.PaymentDate)
	n.FechaInicialPago = k.payrollDate(pp+".InitialPaymentDate", p.InitialPaymentDate)
	n.FechaFinalPago = k.payrollDate(pp+".FinalPaymentDate", p.FinalPaymentDate)
	if n.FechaInicialPago != "" && n.FechaFinalPago != "" && n.FechaInicialPago > n.FechaFinalPago {
		k.add(pp+".InitialPaymentDate", fmt.Sprintf(MsgPayrollDates, n.FechaInicialPago, n.FechaFinalPago), p.InitialPaymentDate, CodeRule)
	}
	if ee != nil && ee.FechaInicioRelLaboral != "" && n.FechaFinalPago != "" && ee.FechaInicioRelLaboral > n.FechaFinalPago {
		k.add(pp+".FinalPaymentDate", fmt.Sprintf(MsgPayrollStartDate, ee.FechaInicioRelLaboral, n.FechaFinalPago), p.FinalPaymentDate, CodeRule)
	}
	n.NumDiasPagados = k.daysPaid(pp+".DaysPaid", p.DaysPaid)

	var retirementLines, severanceLines bool
	if e := p.Earnings; e != nil && len(e.Earnings) > 0 {
		ps := &cfdi.Percepciones{}
		for i, x := range e.Earnings {
			ep := fmt.Sprintf("%s.Earnings.Earnings[%d]", pp, i)
			k.requiredCode(ep+".EarningTypeCode", CatalogEarningTypes, x.EarningTypeCode)
			k.lineTexts(ep, x.Code, x.Concept)
			g, okG := k.mxn(ep+".TaxedAmount", x.TaxedAmount, true)
			ex, okE := k.mxn(ep+".ExemptAmount", x.ExemptAmount, true)
			if okG && okE && g.IsZero() && ex.IsZero() {
				k.add(ep+".TaxedAmount", MsgPayrollEarningZero, string(x.TaxedAmount), CodeRule)
			}
			pc := cfdi.Percepcion{TipoPercepcion: x.EarningTypeCode, Clave: x.Code, Concepto: x.Concept, ImporteGravado: g.Fixed(2), ImporteExento: ex.Fixed(2)}
			switch x.EarningTypeCode {
			case cfdi.PercepcionJubilacionUnaExhib, cfdi.PercepcionJubilacionParcial:
				retirementLines = true
			case cfdi.PercepcionPrimaAntiguedad, cfdi.PercepcionPagosSeparacion, cfdi.PercepcionIndemnizaciones:
				severanceLines = true
			}
			if x.EarningTypeCode == "019" && len(x.Overtime) == 0 {
				k.add(ep+".Overtime", MsgPayrollOvertime, nil, CodeRule)
			}
			if x.EarningTypeCode != "019" && len(x.Overtime) > 0 {
				k.add(ep+".Overtime", fmt.Sprintf(MsgPayrollNotForType, "overtime", "de percepción 019"), nil, CodeRule)
			}
			for j, o := range x.Overtime {
				op := fmt.Sprintf("%s.Overtime[%d]", ep, j)
				h := cfdi.HorasExtra{Dias: k.integer(op+".Days", o.Days, 1, 999999), TipoHoras: o.HoursTypeCode,
					HorasExtra: k.integer(op+".ExtraHours", o.ExtraHours, 1, 999999)}
				k.requiredCode(op+".HoursTypeCode", CatalogOvertimeTypes, o.HoursTypeCode)
				v, _ := k.mxn(op+".AmountPaid", o.AmountPaid, true)
				h.ImportePagado = v.Fixed(2)
				pc.HorasExtra = append(pc.HorasExtra, h)
			}
			if x.EarningTypeCode == "045" && x.StockOptions == nil {
				k.add(ep+".StockOptions", MsgPayrollStock, nil, CodeRule)
			}
			if x.EarningTypeCode != "045" && x.StockOptions != nil {
				k.add(ep+".StockOptions", fmt.Sprintf(MsgPayrollNotForType, "stockOptions", "de percepción 045"), nil, CodeRule)
			}
			if s := x.StockOptions; s != nil {
				a := &cfdi.AccionesOTitulos{}
				if v, ok := k.amount(ep+".StockOptions.MarketPrice", s.MarketPrice); ok {
					a.ValorMercado = v.String()
				}
				if v, ok := k.amount(ep+".StockOptions.GrantPrice", s.GrantPrice); ok {
					a.PrecioAlOtorgarse = v.String()
				}
				pc.AccionesOTitulos = a
			}
			ps.Percepcion = append(ps.Percepcion, pc)
		}
		if r := e.Retirement; r != nil {
			rp := pp + ".Earnings.Retirement"
			j := &cfdi.JubilacionPensionRetiro{}
			j.TotalUnaExhibicion = k.optMoney(rp+".TotalOneTime", r.TotalOneTime)
			j.TotalParcialidad = k.optMoney(rp+".TotalInstallments", r.TotalInstallments)
			j.MontoDiario = k.optMoney(rp+".DailyAmount", r.DailyAmount)
			a, _ := k.mxn(rp+".AccumulableIncome", r.AccumulableIncome, true)
			na, _ := k.mxn(rp+".NonAccumulableIncome", r.NonAccumulableIncome, true)
			j.IngresoAcumulable, j.IngresoNoAcumulable = a.Fixed(2), na.Fixed(2)
			ps.JubilacionPensionRetiro = j
		}
		if s := e.Severance; s != nil {
			sp := pp + ".Earnings.Severance"
			si := &cfdi.SeparacionIndemnizacion{NumAñosServicio: k.integer(sp+".YearsOfService", s.YearsOfService, 0, 99)}
			t, _ := k.mxn(sp+".TotalPaid", s.TotalPaid, true)
			u, _ := k.mxn(sp+".LastMonthlySalary", s.LastMonthlySalary, true)
			a, _ := k.mxn(sp+".AccumulableIncome", s.AccumulableIncome, true)
			na, _ := k.mxn(sp+".NonAccumulableIncome", s.NonAccumulableIncome, true)
			si.TotalPagado, si.UltimoSueldoMensOrd, si.IngresoAcumulable, si.IngresoNoAcumulable = t.Fixed(2), u.Fixed(2), a.Fixed(2), na.Fixed(2)
			ps.SeparacionIndemnizacion = si
		}
		n.Percepciones = ps
	}
	if retirementLines != (p.Earnings != nil && p.Earnings.Retirement != nil) {
		k.add(pp+".Earnings.Retirement", MsgPayrollRetirement, nil, CodeRule)
	}
	if severanceLines != (p.Earnings != nil && p.Earnings.Severance != nil) {
		k.add(pp+".Earnings.Severance", MsgPayrollSeverance, nil, CodeRule)
	}
	if p.Earnings != nil {
		for i, x := range p.Earnings.OtherPayments {
			op := fmt.Sprintf("%s.Earnings.OtherPayments[%d]", pp, i)
			k.requiredCode(op+".OtherPaymentTypeCode", CatalogOtherPaymentTypes, x.OtherPaymentTypeCode)
			k.lineTexts(op, x.Code, x.Concept)
			v, okV := k.mxn(op+".Amount", x.Amount, true)
			o := cfdi.OtroPago{TipoOtroPago: x.OtherPaymentTypeCode, Clave: x.Code, Concepto: x.Concept, Importe: v.Fixed(2)}
			if x.OtherPaymentTypeCode == cfdi.OtroPagoSubsidioEmpleo {
				if x.SubsidyCaused == "" {
					k.add(op+".SubsidyCaused", MsgPayrollSubsidy, nil, CodeRule)
				} else if s, ok := k.mxn(op+".SubsidyCaused", x.SubsidyCaused, true); ok {
					if okV && s.Cmp(v) < 0 {
						k.add(op+".SubsidyCaused", MsgPayrollSubsidy, string(x.SubsidyCaused), CodeRule)
					}
					o.SubsidioAlEmpleo = &cfdi.SubsidioAlEmpleo{SubsidioCausado: s.Fixed(2)}
				}
			} else if x.SubsidyCaused != "" {
				k.add(op+".SubsidyCaused", fmt.Sprintf(MsgPayrollNotForType, "subsidyCaused", "de otro pago 002"), string(x.SubsidyCaused), CodeRule)
			}
			if c := x.BalanceCompensation; c != nil {
				if x.OtherPaymentTypeCode != cfdi.OtroPagoCompensacionSaldosFav {
					k.add(op+".BalanceCompensation", fmt.Sprintf(MsgPayrollNotForType, "balanceCompensation", "de otro pago 004"), nil, CodeRule)
				}
				cp := op + ".BalanceCompensation"
				fav, _ := k.mxn(cp+".FavorableBalance", c.FavorableBalance, true)
				rem, _ := k.mxn(cp+".RemainingFavorableBalance", c.RemainingFavorableBalance, true)
				o.CompensacionSaldosAFavor = &cfdi.CompensacionSaldosAFavor{SaldoAFavor: fav.Fixed(2),
					Año: k.integer(cp+".Year", c.Year, 2016, 9999), RemanenteSalFav: rem.Fixed(2)}
			} else if x.OtherPaymentTypeCode == cfdi.OtroPagoCompensacionSaldosFav {
				k.add(op+".BalanceCompensation", MsgPayrollCompensation, nil, CodeRule)
			}
			n.OtrosPagos = append(n.OtrosPagos, o)
		}
	}
	if n.Percepciones == nil && len(n.OtrosPagos) == 0 {
		k.add(pp+".Earnings", MsgPayrollEmpty, nil, CodeNotEmpty)
	}
	if len(p.Deductions) > 0 {
		ds := &cfdi.Deducciones{}
		for i, x := range p.Deductions {
			dp := fmt.Sprintf("%s.Deductions[%d]", pp, i)
			k.requiredCode(dp+".DeductionTypeCode", CatalogDeductionTypes, x.DeductionTypeCode)
			k.lineTexts(dp, x.Code, x.Concept)
			v, ok := k.mxn(dp+".Amount", x.Amount, true)
			if ok && v.IsZero() {
				k.add(dp+".Amount", MsgPayrollDeductionZero, string(x.Amount), CodeRule)
			}
			ds.Deduccion = append(ds.Deduccion, cfdi.Deduccion{TipoDeduccion: x.DeductionTypeCode, Clave: x.Code, Concepto: x.Concept, Importe: v.Fixed(2)})
		}
		n.Deducciones = ds
	}
	for i, x := range p.Disabilities {
		dp := fmt.Sprintf("%s.Disabilities[%d]", pp, i)
		k.requiredCode(dp+".DisabilityTypeCode", CatalogDisabilityTypes, x.DisabilityTypeCode)
		n.Incapacidades = append(n.Incapacidades, cfdi.Incapacidad{DiasIncapacidad: k.integer(dp+".DisabilityDays", x.DisabilityDays, 1, 99999),
			TipoIncapacidad: x.DisabilityTypeCode, ImporteMonetario: k.optMoney(dp+".MonetaryAmount", x.MonetaryAmount)})
	}
	if emp != nil {
		n.Emisor = emp
	}
	if ee != nil {
		n.Receptor = *ee
		if contractWithRegistration(ee.TipoContrato) {
			if n.Emisor == nil || n.Emisor.RegistroPatronal == "" {
				prop := "Issuer.EmployerData.EmployerRegistration"
				if is.byReference {
					prop = "Issuer.Id"
				}
				k.add(prop, fmt.Sprintf(MsgRegistrationNeeded, ee.TipoContrato), nil, CodeRule)
			}
		} else {
			// No employment relationship: SAT forbids the registration and the social security data.
			if n.Emisor != nil {
				n.Emisor.RegistroPatronal = ""
			}
			r := &n.Receptor
			r.NumSeguridadSocial, r.FechaInicioRelLaboral, r.Antigüedad, r.RiesgoPuesto, r.SalarioDiarioIntegrado = "", "", "", "", ""
		}
	}
	if n.Emisor != nil && *n.Emisor == (cfdi.NominaEmisor{}) {
		n.Emisor = nil
	}
	if len(k.fs) > 0 || k.err != nil {
		return n, nil
	}
	totals, err := n.Compute()
	if err != nil {
		k.add(pp, MsgAmountsOutOfRange, nil, CodeRule)
		return n, nil
	}
	item, err := cfdi.NominaConcepto(totals)
	if err != nil {
		paid, _ := totals.Percepciones.Add(totals.OtrosPagos)
		k.add(pp+".Deductions", fmt.Sprintf(MsgPayrollDeductions, totals.Deducciones.Fixed(2), paid.Fixed(2)), nil, CodeRule)
		return n, nil
	}
	return n, []line{{item: item}}
}

// contractWithRegistration tells whether a contract type is an employment relationship (01 to
// 08), which needs the employer registration.
func contractWithRegistration(c string) bool {
	return len(c) == 2 && c >= "01" && c <= "08"
}

// payrollEmployer is the complement's Emisor: the issuer person's employer data and CURP (by
// reference) or issuer.employerData (by value).
func (k *checker) payrollEmployer(in *api.InvoiceIssuerInput, is *issuer) *cfdi.NominaEmisor {
	if in == nil {
		return nil
	}
	individual := len(is.tin) == 13
	if is.byReference {
		if is.personID == nil {
			return nil
		}
		id := *is.personID
		var e storage.Employer
		var p storage.Person
		err := k.s.Store.View(k.ctx, func(tx storage.Tx) error {
			var err error
			if p, err = tx.People(k.c.tenantID).Get(id); err != nil {
				return err
			}
			e, err = tx.Employers(k.c.tenantID).Get(id)
			return err
		})
		if errors.Is(err, storage.ErrNotFound) {
			if p.ID != "" {
				k.add("Issuer.Id", fmt.Sprintf(MsgIssuerNoEmployer, id, id), id, CodeRule)
			}
			return nil
		} else if err != nil {
			k.fail(err)
			return nil
		}
		out := &cfdi.NominaEmisor{RegistroPatronal: e.EmployerRegistration}
		if t := strings.ToUpper(strings.TrimSpace(api.Deref(e.OriginEmployerTin))); t != "" {
			if err := cfdi.CheckRFC(t); err != nil { // saved before employment checked it
				k.add("Issuer.Id", err.Error(), id, CodeFormat)
			}
			out.RfcPatronOrigen = t
		}
		if individual {
			curp := strings.ToUpper(strings.TrimSpace(api.Deref(p.Curp)))
			switch {
			case curp == "":
				k.add("Issuer.Id", fmt.Sprintf(MsgIssuerNoCurp, id), id, CodeRule)
			case !curpPattern.MatchString(curp):
				k.add("Issuer.Id", fmt.Sprintf(MsgCurp, curp), id, CodeFormat)
			}
			out.Curp = curp
		}
		if e.SatFundSourceID != nil {
			out.EntidadSNCF = &cfdi.EntidadSNCF{OrigenRecurso: *e.SatFundSourceID}
			if e.OwnResourceAmount != nil {
				if d, err := cfdi.ParseDecimal(*e.OwnResourceAmount); err == nil {
					out.EntidadSNCF.MontoRecursoPropio = d.Round(2).Fixed(2)
				}
			}
		}
		return out
	}
	const prop = "Issuer.EmployerData"
	if !sentJSON(in.EmployerData) {
		k.add(prop, fmt.Sprintf(apierr.MsgNotEmpty, "Employer Data"), nil, CodeNotEmpty)
		return nil
	}
	var d employerDataInput
	if !k.decodeStrict(prop, in.EmployerData, &d) {
		return nil
	}
	out := &cfdi.NominaEmisor{RegistroPatronal: strings.TrimSpace(d.EmployerRegistration)}
	if n := utf8.RuneCountInString(out.RegistroPatronal); n > 20 || strings.Contains(out.RegistroPatronal, "|") {
		k.add(prop+".EmployerRegistration", fmt.Sprintf(MsgTooLong, "Employer Registration", 20, n), d.EmployerRegistration, CodeFormat)
	}
	curp := strings.ToUpper(strings.TrimSpace(d.Curp))
	switch {
	case curp != "" && !individual:
		k.add(prop+".Curp", fmt.Sprintf(MsgCurpMoral, is.tin), d.Curp, CodeRule)
	case curp == "" && individual:
		k.add(prop+".Curp", fmt.Sprintf(apierr.MsgNotEmpty, "Curp"), nil, CodeNotEmpty)
	case curp != "" && !curpPattern.MatchString(curp):
		k.add(prop+".Curp", fmt.Sprintf(MsgCurp, d.Curp), d.Curp, CodeFormat)
	default:
		out.Curp = curp
	}
	if t := strings.ToUpper(strings.TrimSpace(d.OriginEmployerTin)); t != "" {
		if k.rfc(prop+".OriginEmployerTin", t) {
			out.RfcPatronOrigen = t
		}
	}
	if d.SatFundSourceID != "" {
		k.catalog(prop+".SatFundSourceId", CatalogFundSources, d.SatFundSourceID)
		out.EntidadSNCF = &cfdi.EntidadSNCF{OrigenRecurso: d.SatFundSourceID, MontoRecursoPropio: k.optMoney(prop+".OwnResourceAmount", d.OwnResourceAmount)}
	} else if d.OwnResourceAmount != "" {
		k.add(prop+".SatFundSourceId", employment.MsgFundSourceRequired, nil, CodeRule)
	}
	return out
}

// payrollEmployee is the complement's Receptor: the recipient person's employee data and CURP
// (by reference) or recipient.employeeData (by value).
func (k *checker) payrollEmployee(in *api.InvoiceRecipientInput, rc *recipient, is *issuer) *cfdi.NominaReceptor {
	if in == nil {
		return nil
	}
	if rc.byReference {
		if rc.personID == nil {
			return nil
		}
		id := *rc.personID
		var e storage.Employee
		var p storage.Person
		err := k.s.Store.View(k.ctx, func(tx storage.Tx) error {
			var err error
			if p, err = tx.People(k.c.tenantID).Get(id); err != nil {
				return err
			}
			e, err = tx.Employees(k.c.tenantID).Get(id)
			return err
		})
		if errors.Is(err, storage.ErrNotFound) {
			if p.ID != "" {
				k.add("Recipient.Id", fmt.Sprintf(MsgRecipientNoEmployee, id, id), id, CodeRule)
			}
			return nil
		} else if err != nil {
			k.fail(err)
			return nil
		}
		curp := strings.ToUpper(strings.TrimSpace(api.Deref(p.Curp)))
		switch {
		case curp == "":
			k.add("Recipient.Id", fmt.Sprintf(MsgRecipientNoCurp, id), id, CodeRule)
		case !curpPattern.MatchString(curp):
			k.add("Recipient.Id", fmt.Sprintf(MsgCurp, curp), id, CodeFormat)
		}
		if is.byReference && is.personID != nil && e.EmployerPersonID != *is.personID {
			k.add("Recipient.Id", fmt.Sprintf(MsgOtherEmployer, id, e.EmployerPersonID, *is.personID), id, CodeRule)
		}
		out := &cfdi.NominaReceptor{
			Curp: curp, NumSeguridadSocial: e.SocialSecurityNumber, FechaInicioRelLaboral: e.LaborRelationStartDate,
			Antigüedad: e.Seniority, TipoContrato: e.SatContractTypeID, Sindicalizado: api.Deref(e.SatUnionizedStatusID),
			TipoJornada: e.SatWorkdayTypeID, TipoRegimen: e.SatTaxRegimeTypeID, NumEmpleado: e.EmployeeNumber,
			Departamento: api.Deref(e.Department), Puesto: api.Deref(e.Position), RiesgoPuesto: e.SatJobRiskID,
			PeriodicidadPago: e.SatPaymentPeriodicityID, Banco: api.Deref(e.SatBankID), CuentaBancaria: api.Deref(e.BankAccount),
			SalarioBaseCotApor: salary(e.BaseSalaryForContributions), SalarioDiarioIntegrado: salary(e.IntegratedDailySalary),
			ClaveEntFed: e.SatPayrollStateID,
		}
		if r := strings.ToUpper(strings.TrimSpace(api.Deref(e.SubcontractorRfc))); r != "" {
			if err := cfdi.CheckRFC(r); err != nil { // saved before employment checked it
				k.add("Recipient.Id", err.Error(), id, CodeFormat)
			}
			out.SubContratacion = []cfdi.SubContratacion{{RfcLabora: r, PorcentajeTiempo: api.Deref(e.TimePercentage)}}
		}
		return out
	}
	const prop = "Recipient.EmployeeData"
	if !sentJSON(in.EmployeeData) {
		k.add(prop, fmt.Sprintf(apierr.MsgNotEmpty, "Employee Data"), nil, CodeNotEmpty)
		return nil
	}
	var d employeeDataInput
	if !k.decodeStrict(prop, in.EmployeeData, &d) {
		return nil
	}
	out := &cfdi.NominaReceptor{
		Curp: strings.ToUpper(strings.TrimSpace(d.Curp)), NumSeguridadSocial: d.SocialSecurityNumber, Antigüedad: d.Seniority,
		TipoContrato: d.SatContractTypeID, Sindicalizado: d.SatUnionizedStatusID, TipoJornada: d.SatWorkdayTypeID,
		TipoRegimen: d.SatTaxRegimeTypeID, NumEmpleado: d.EmployeeNumber, Departamento: d.Department, Puesto: d.Position,
		RiesgoPuesto: d.SatJobRiskID, PeriodicidadPago: d.SatPaymentPeriodicityID, Banco: d.SatBankID, CuentaBancaria: d.BankAccount,
		ClaveEntFed: d.SatPayrollStateID,
	}
	if k.required(prop+".Curp", d.Curp) && !curpPattern.MatchString(out.Curp) {
		k.add(prop+".Curp", fmt.Sprintf(MsgCurp, d.Curp), d.Curp, CodeFormat)
	}
	if k.required(prop+".EmployeeNumber", d.EmployeeNumber) {
		k.maxLen(prop+".EmployeeNumber", d.EmployeeNumber, 15)
	}
	k.requiredCode(prop+".SatContractTypeId", CatalogContractTypes, d.SatContractTypeID)
	k.requiredCode(prop+".SatTaxRegimeTypeId", CatalogTaxRegimeTypes, d.SatTaxRegimeTypeID)
	k.requiredCode(prop+".SatPaymentPeriodicityId", CatalogPaymentPeriodicity, d.SatPaymentPeriodicityID)
	k.requiredCode(prop+".SatPayrollStateId", CatalogPayrollStates, d.SatPayrollStateID)
	k.optionalCode(prop+".SatWorkdayTypeId", CatalogWorkdayTypes, d.SatWorkdayTypeID)
	k.optionalCode(prop+".SatJobRiskId", CatalogJobRisks, d.SatJobRiskID)
	k.optionalCode(prop+".SatBankId", CatalogBanks, d.SatBankID)
	k.optionalCode(prop+".SatUnionizedStatusId", CatalogUnionizedStatuses, d.SatUnionizedStatusID)
	k.maxLen(prop+".Department", d.Department, 100)
	k.maxLen(prop+".Position", d.Position, 100)
	if d.LaborRelationStartDate != "" {
		if s, ok := employment.StartDate(d.LaborRelationStartDate); ok {
			out.FechaInicioRelLaboral = s
		} else {
			k.add(prop+".LaborRelationStartDate", fmt.Sprintf(employment.MsgStartDate, d.LaborRelationStartDate), d.LaborRelationStartDate, CodeFormat)
		}
	}
	if d.Seniority != "" && !employment.ValidSeniority(d.Seniority) {
		k.add(prop+".Seniority", fmt.Sprintf(employment.MsgSeniority, d.Seniority), d.Seniority, CodeFormat)
	}
	out.SalarioBaseCotApor = k.optMoney(prop+".BaseSalaryForContributions", d.BaseSalaryForContributions)
	out.SalarioDiarioIntegrado = k.optMoney(prop+".IntegratedDailySalary", d.IntegratedDailySalary)
	if contractWithRegistration(d.SatContractTypeID) {
		// the social security data an employment relationship carries (Nómina 1.2 rules)
		k.required(prop+".SocialSecurityNumber", d.SocialSecurityNumber)
		k.required(prop+".LaborRelationStartDate", d.LaborRelationStartDate)
		k.required(prop+".Seniority", d.Seniority)
		k.required(prop+".SatJobRiskId", d.SatJobRiskID)
		if d.IntegratedDailySalary == "" {
			k.add(prop+".IntegratedDailySalary", fmt.Sprintf(apierr.MsgNotNull, "Integrated Daily Salary"), nil, CodeNotEmpty)
		}
	}
	if r := strings.ToUpper(strings.TrimSpace(d.SubcontractorRfc)); r != "" && k.rfc(prop+".SubcontractorRfc", r) {
		sc := cfdi.SubContratacion{RfcLabora: r}
		if v, ok := k.amount(prop+".TimePercentage", d.TimePercentage); ok {
			sc.PorcentajeTiempo = v.String()
		}
		out.SubContratacion = []cfdi.SubContratacion{sc}
	}
	return out
}

// salary is a stored salary as t_ImporteMXN (2 decimals, rounded half away from zero).
func salary(v string) string {
	if v == "" {
		return ""
	}
	d, err := cfdi.ParseDecimal(v)
	if err != nil {
		return ""
	}
	return d.Round(2).Fixed(2)
}

// money reads a t_ImporteMXN amount: ≥ 0, at most 2 decimals. required reports an absent one.
func (k *checker) mxn(prop string, v api.Amount, required bool) (cfdi.Decimal, bool) {
	if v == "" {
		if required {
			k.add(prop, fmt.Sprintf(apierr.MsgNotEmpty, apierr.Words(prop)), nil, CodeNotEmpty)
		}
		return cfdi.Zero, false
	}
	d, err := cfdi.ParseDecimal(strings.TrimSpace(string(v)))
	if err != nil || d.Sign() < 0 || d.Round(2).Cmp(d) != 0 {
		k.add(prop, fmt.Sprintf(MsgPayrollAmount, apierr.Words(prop), string(v)), string(v), CodeFormat)
		return cfdi.Zero, false
	}
	return d, true
}

// optMoney is an optional amount as written ("" when absent).
func (k *checker) optMoney(prop string, v api.Amount) string {
	if v == "" {
		return ""
	}
	if d, ok := k.mxn(prop, v, false); ok {
		return d.Fixed(2)
	}
	return ""
}

// integer reads a whole number within [min, max].
func (k *checker) integer(prop string, v api.Amount, min, max int) string {
	s := strings.TrimSpace(string(v))
	d, err := cfdi.ParseDecimal(s)
	n, _ := strconv.Atoi(d.String())
	if v == "" || err != nil || d.Places() > 0 || n < min || n > max {
		k.add(prop, fmt.Sprintf(MsgPayrollInteger, apierr.Words(prop), min, max, s), attempted(s), CodeFormat)
		return ""
	}
	return strconv.Itoa(n)
}

// daysPaid is NumDiasPagados: above 0, at most 36160, an integer or 3 decimals as the schema's
// pattern writes them.
func (k *checker) daysPaid(prop string, v api.Amount) string {
	s := strings.TrimSpace(string(v))
	d, err := cfdi.ParseDecimal(s)
	if v == "" || err != nil || d.Sign() <= 0 || d.Places() > 3 || d.Cmp(cfdi.FromInt(36160)) > 0 {
		k.add(prop, fmt.Sprintf(MsgPayrollDays, s), attempted(s), CodeFormat)
		return ""
	}
	if d.Places() == 0 {
		return d.String()
	}
	return d.Fixed(3)
}

// payrollDate reads a date (or a date-time, whose date is kept) as yyyy-MM-dd.
func (k *checker) payrollDate(prop, v string) string {
	if !k.required(prop, v) {
		return ""
	}
	s := strings.TrimSpace(v)
	if len(s) >= 10 {
		if _, err := time.Parse(time.DateOnly, s[:10]); err == nil {
			if len(s) == 10 {
				return s
			}
			if _, ok := ParseDate(s); ok {
				return s[:10]
			}
		}
	}
	k.add(prop, fmt.Sprintf(MsgPayrollDate, v), v, CodeFormat)
	return ""
}

// lineTexts checks the Clave and Concepto of an earning, deduction or other payment.
func (k *checker) lineTexts(prop, code, concept string) {
	if k.required(prop+".Code", code) {
		if n := utf8.RuneCountInString(code); n < 3 || n > 15 || strings.Contains(code, "|") {
			k.add(prop+".Code", fmt.Sprintf(MsgPayrollCode, code), code, CodeFormat)
		}
	}
	if k.required(prop+".Concept", concept) {
		if n := utf8.RuneCountInString(concept); n > 100 || strings.Contains(concept, "|") {
			k.add(prop+".Concept", MsgPayrollConcept, concept, CodeFormat)
		}
	}
}
