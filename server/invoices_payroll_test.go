package server

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/storage"
)

// payrollComplement is the official client's "nómina ordinaria" example.
func payrollComplement() map[string]any {
	return map[string]any{
		"version": "1.2", "payrollTypeCode": "O", "paymentDate": "2025-08-30", "initialPaymentDate": "2025-07-31",
		"finalPaymentDate": "2025-08-30T00:00:00", "daysPaid": 30,
		"earnings": map[string]any{
			"earnings": []any{
				map[string]any{"earningTypeCode": "001", "code": "1003", "concept": "Sueldo Nominal", "taxedAmount": 95030.00, "exemptAmount": 0.00},
				map[string]any{"earningTypeCode": "005", "code": "5913", "concept": "Fondo de Ahorro Aportación Patrón", "taxedAmount": 0.00, "exemptAmount": 4412.46},
				map[string]any{"earningTypeCode": "038", "code": "1885", "concept": "Bono Ingles", "taxedAmount": 14254.50, "exemptAmount": 0.00},
				map[string]any{"earningTypeCode": "029", "code": "1941", "concept": "Vales Despensa", "taxedAmount": 0.00, "exemptAmount": 3439.00},
				map[string]any{"earningTypeCode": "038", "code": "1824", "concept": "Herramientas Teletrabajo", "taxedAmount": 273.00, "exemptAmount": 0.00},
			},
			"otherPayments": []any{
				map[string]any{"otherPaymentTypeCode": "002", "code": "5050", "concept": "Exceso de subsidio al empleo", "amount": 0.00, "subsidyCaused": 0.00},
			},
		},
		"deductions": []any{
			map[string]any{"deductionTypeCode": "002", "code": "5003", "concept": "ISR Causado", "amount": 27645.52},
			map[string]any{"deductionTypeCode": "004", "code": "5910", "concept": "Fondo de ahorro Empleado Inversión", "amount": 4412.46},
			map[string]any{"deductionTypeCode": "004", "code": "5914", "concept": "Fondo de Ahorro Patrón Inversión", "amount": 4412.46},
			map[string]any{"deductionTypeCode": "004", "code": "1966", "concept": "Contribución póliza exceso GMM", "amount": 519.91},
			map[string]any{"deductionTypeCode": "004", "code": "1934", "concept": "Descuento Vales Despensa", "amount": 1.00},
			map[string]any{"deductionTypeCode": "004", "code": "1942", "concept": "Vales Despensa Electrónico", "amount": 3439.00},
			map[string]any{"deductionTypeCode": "001", "code": "1895", "concept": "IMSS", "amount": 2391.13},
		},
	}
}

func nominaOf(t *testing.T, doc *cfdi.Comprobante) *cfdi.Nomina {
	t.Helper()
	for _, c := range doc.Complemento {
		if n, ok := c.(*cfdi.Nomina); ok {
			return n
		}
	}
	t.Fatalf("no Nómina complement in %+v", doc.Complemento)
	return nil
}

// checkPayrollCFDI checks the rules of type N on a stamped payroll of payrollComplement.
func checkPayrollCFDI(t *testing.T, doc *cfdi.Comprobante) *cfdi.Nomina {
	t.Helper()
	k := doc.Conceptos[0]
	if doc.TipoDeComprobante != "N" || doc.FormaPago != "" || doc.MetodoPago != "PUE" || doc.Moneda != "MXN" || doc.Exportacion != "01" ||
		doc.Receptor.UsoCFDI != "CN01" || doc.Receptor.RegimenFiscalReceptor != "605" || doc.Impuestos != nil || len(doc.Conceptos) != 1 ||
		k.ClaveProdServ != "84111505" || k.Cantidad != "1" || k.ClaveUnidad != "ACT" || k.Descripcion != "Pago de nómina" || k.ObjetoImp != "01" ||
		k.ValorUnitario != "117408.96" || k.Importe != "117408.96" || k.Descuento != "42821.48" ||
		doc.SubTotal != "117408.96" || doc.Descuento != "42821.48" || doc.Total != "74587.48" {
		t.Fatalf("payroll CFDI: %+v\nconcepto %+v", doc, k)
	}
	n := nominaOf(t, doc)
	p, d := n.Percepciones, n.Deducciones
	if n.Version != "1.2" || n.TipoNomina != "O" || n.FechaFinalPago != "2025-08-30" || n.NumDiasPagados != "30" ||
		n.TotalPercepciones != "117408.96" || n.TotalDeducciones != "42821.48" || n.TotalOtrosPagos != "0.00" ||
		p.TotalSueldos != "117408.96" || p.TotalGravado != "109557.50" || p.TotalExento != "7851.46" ||
		d.TotalImpuestosRetenidos != "27645.52" || d.TotalOtrasDeducciones != "15175.96" ||
		n.OtrosPagos[0].SubsidioAlEmpleo == nil || n.OtrosPagos[0].SubsidioAlEmpleo.SubsidioCausado != "0.00" {
		t.Fatalf("Nómina: %+v", n)
	}
	return n
}

// A payroll CFDI by reference: the issuer's employer data and tax files, the recipient's employee
// data and CURP; failures for what is missing and for codes outside SAT's catalogs; one stamp
// used, none by the failures.
func TestInvoicePayrollByReference(t *testing.T) {
	f, m := invoiceFixture(t, 2)
	cer, key, password := realPair(t)
	issuer := taxPerson(t, f, "kemper@example.com", "EKU9003173C9")
	employee := taxPerson(t, f, "karla@example.com", "FUNK671228PH6")
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		for _, c := range []struct {
			id, name, regime, zip string
		}{{issuer.person, "ESCUELA KEMPER URGATE", "601", "42501"}, {employee.person, "KARLA FUENTE NOLASCO", "605", "01160"}} {
			p, err := tx.People(f.creds.TenantKey).Get(c.id)
			if err != nil {
				return err
			}
			p.LegalName, p.SatTaxRegimeID, p.ZipCode = c.name, &c.regime, &c.zip
			if err := tx.People(f.creds.TenantKey).Put(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 0, cer, "", "")))
	taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 1, key, password, "")))
	body := map[string]any{"versionCode": "4.0", "series": "N", "paymentMethodCode": "PUE", "currencyCode": "MXN", "typeCode": "N",
		"expeditionZipCode": "20000", "exportCode": "01",
		"issuer": map[string]any{"id": issuer.person}, "recipient": map[string]any{"id": employee.person},
		"complement": map[string]any{"payroll": payrollComplement()}}

	// no employer or employee data
	r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.Id", "La persona '"+issuer.person+"' no tiene datos de empleador: regístralos con POST /api/v4/people/"+issuer.person+"/employer antes de timbrar nómina.")
	expectFailure(t, r, "Recipient.Id", "La persona '"+employee.person+"' no tiene datos de empleado: regístralos con POST /api/v4/people/"+employee.person+"/employee antes de timbrar nómina.")

	if r := f.do("POST", "/api/v4/people/"+issuer.person+"/employer", empBody(map[string]any{"personId": issuer.person, "employerRegistration": "B5510768108"})); r.status != 200 {
		t.Fatalf("employer data: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/people/"+employee.person+"/employee", empBody(employeeBase(employee.person, issuer.person), "subcontractorRfc", nil, "timePercentage", nil)); r.status != 200 {
		t.Fatalf("employee data: %s", r.raw)
	}
	// RFCs of the employment data saved before employment checked them: no such days
	stale := func(origin, subcontractor *string) {
		t.Helper()
		err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
			er, err := tx.Employers(f.creds.TenantKey).Get(issuer.person)
			if err != nil {
				return err
			}
			ee, err := tx.Employees(f.creds.TenantKey).Get(employee.person)
			if err != nil {
				return err
			}
			er.OriginEmployerTin, ee.SubcontractorRfc = origin, subcontractor
			if err := tx.Employers(f.creds.TenantKey).Put(er); err != nil {
				return err
			}
			return tx.Employees(f.creds.TenantKey).Put(ee)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	origin, subcontractor := "URE180229TM6", "FUNK670931PH6"
	stale(&origin, &subcontractor)
	r = f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.Id", "El RFC 'URE180229TM6' no es válido: su fecha 180229 (AAMMDD) no existe en el calendario.")
	expectFailure(t, r, "Recipient.Id", "El RFC 'FUNK670931PH6' no es válido: su fecha 670931 (AAMMDD) no existe en el calendario.")
	stale(nil, nil)

	// the employee has no CURP; bad codes; a regime other than 605 for the recipient is refused too
	bad := payrollComplement()
	bad["payrollTypeCode"] = "X"
	bad["earnings"].(map[string]any)["earnings"].([]any)[0].(map[string]any)["earningTypeCode"] = "999"
	bad["earnings"].(map[string]any)["otherPayments"].([]any)[0].(map[string]any)["otherPaymentTypeCode"] = "123"
	bad["deductions"].([]any)[1].(map[string]any)["deductionTypeCode"] = "777"
	bad["deductions"].([]any)[2].(map[string]any)["amount"] = 1.234
	r = f.do("POST", "/api/v4/invoices", empBody(body, "complement", map[string]any{"payroll": bad}, "paymentFormCode", "01", "items",
		[]any{map[string]any{"id": "x", "quantity": 1}}), m.headers()...)
	expectFailure(t, r, "Recipient.Id", "La persona '"+employee.person+"' no tiene CURP (curp), que la nómina requiere del empleado.")
	expectFailure(t, r, "Complement.Payroll.PayrollTypeCode", "El valor 'X' no existe en el catálogo c_TipoNomina del SAT.")
	expectFailure(t, r, "Complement.Payroll.Earnings.Earnings[0].EarningTypeCode", "El valor '999' no existe en el catálogo c_TipoPercepcion del SAT.")
	expectFailure(t, r, "Complement.Payroll.Earnings.OtherPayments[0].OtherPaymentTypeCode", "El valor '123' no existe en el catálogo c_TipoOtroPago del SAT.")
	expectFailure(t, r, "Complement.Payroll.Earnings.OtherPayments[0].SubsidyCaused", "'subsidyCaused' solo aplica al tipo de otro pago 002.")
	expectFailure(t, r, "Complement.Payroll.Deductions[1].DeductionTypeCode", "El valor '777' no existe en el catálogo c_TipoDeduccion del SAT.")
	expectFailure(t, r, "Complement.Payroll.Deductions[2].Amount", "'Amount' debe ser un importe mayor o igual a 0 con hasta 2 decimales (t_ImporteMXN); se recibió '1.234'.")
	expectFailure(t, r, "PaymentFormCode", "Un comprobante de nómina (N) no lleva 'paymentFormCode'.")
	expectFailure(t, r, "Items", invoices.MsgPayrollNoItems)

	curp := "FUNK671228MDFNLR09"
	err = f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(f.creds.TenantKey).Get(employee.person)
		if err != nil {
			return err
		}
		p.Curp = &curp
		return tx.People(f.creds.TenantKey).Put(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	// deductions above what is paid
	over := payrollComplement()
	over["deductions"] = []any{map[string]any{"deductionTypeCode": "002", "code": "5003", "concept": "ISR", "amount": 200000}}
	expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(body, "complement", map[string]any{"payroll": over}), m.headers()...),
		"Complement.Payroll.Deductions", "Las deducciones (200000.00) no pueden ser mayores a las percepciones más otros pagos (117408.96): el total del comprobante sería negativo.")
	if got := stampsOf(t, f, m.person); got != 2 {
		t.Fatalf("failures used stamps: %v left", got)
	}

	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	doc := verifyAnswer(t, f, inv)
	n := checkPayrollCFDI(t, doc)
	e, rc := n.Emisor, n.Receptor
	// EKU9003173C9 is a legal entity: no CURP of the employer
	if e == nil || e.RegistroPatronal != "B5510768108" || e.Curp != "" || rc.Curp != curp || rc.NumSeguridadSocial != "04078873454" ||
		rc.FechaInicioRelLaboral != "2024-08-18" || rc.Antigüedad != "P54W" || rc.TipoContrato != "01" || rc.TipoRegimen != "02" ||
		rc.NumEmpleado != "120" || rc.PeriodicidadPago != "04" || rc.ClaveEntFed != "JAL" || rc.SalarioBaseCotApor != "2828.50" ||
		rc.SalarioDiarioIntegrado != "0.00" || rc.Banco != "002" || rc.Sindicalizado != "No" || rc.RiesgoPuesto != "1" || len(rc.SubContratacion) != 0 {
		t.Fatalf("Nómina Emisor %+v Receptor %+v", e, rc)
	}
	if got := stampsOf(t, f, m.person); got != 1 {
		t.Fatalf("stamps = %v, want 1", got)
	}
	if inv.TypeCode != "N" || inv.Recipient.CfdiUseCode != "CN01" || inv.PaymentFormCode != nil || len(inv.Items) != 1 || inv.Items[0].ItemCode != "84111505" {
		t.Fatalf("answer: %+v", inv)
	}
}

// A payroll CFDI by value: issuer.employerData and recipient.employeeData as the official client
// sends them; an asimilados employee (contract 09) carries no registration nor social security
// data.
func TestInvoicePayrollByValue(t *testing.T) {
	f, m := invoiceFixture(t, 3)
	cer, key, password := realPair(t)
	creds := []any{
		map[string]any{"base64File": base64.StdEncoding.EncodeToString(cer), "fileType": 0, "password": password},
		map[string]any{"base64File": base64.StdEncoding.EncodeToString(key), "fileType": 1, "password": password},
	}
	body := map[string]any{"versionCode": "4.0", "series": "F", "paymentMethodCode": "PUE", "currencyCode": "MXN", "typeCode": "N",
		"expeditionZipCode": "20000", "exportCode": "01",
		"issuer": map[string]any{"tin": "EKU9003173C9", "legalName": "ESCUELA KEMPER URGATE", "taxRegimeCode": "601",
			"employerData": map[string]any{"employerRegistration": "B5510768108"}, "taxCredentials": creds},
		"recipient": map[string]any{"tin": "FUNK671228PH6", "legalName": "KARLA FUENTE NOLASCO", "zipCode": "01160", "taxRegimeCode": "605",
			"cfdiUseCode": "CN01", "employeeData": map[string]any{
				"curp": "XEXX010101MNEXXXA8", "socialSecurityNumber": "04078873454", "laborRelationStartDate": "2024-08-18",
				"seniority": "P54W", "satContractTypeId": "01", "satTaxRegimeTypeId": "02", "employeeNumber": "123456789",
				"department": "GenAI", "position": "Sr Software Engineer", "satJobRiskId": "1", "satPaymentPeriodicityId": "05",
				"satBankId": "012", "baseSalaryForContributions": 2828.50, "integratedDailySalary": 0.00, "satPayrollStateId": "JAL"}},
		"complement": map[string]any{"payroll": payrollComplement()},
	}
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	n := checkPayrollCFDI(t, verifyAnswer(t, f, inv))
	if n.Emisor.RegistroPatronal != "B5510768108" || n.Receptor.Curp != "XEXX010101MNEXXXA8" || n.Receptor.PeriodicidadPago != "05" {
		t.Fatalf("Nómina by value: %+v %+v", n.Emisor, n.Receptor)
	}

	// asimilados: extraordinary payroll, contract 09, periodicity 99
	asim := map[string]any{"version": "1.2", "payrollTypeCode": "E", "paymentDate": "2023-06-02T00:00:00",
		"initialPaymentDate": "2023-06-01T00:00:00", "finalPaymentDate": "2023-06-02T00:00:00", "daysPaid": 1,
		"earnings": map[string]any{"earnings": []any{map[string]any{"earningTypeCode": "046", "code": "010046",
			"concept": "INGRESOS ASIMILADOS A SALARIOS", "taxedAmount": 111197.73, "exemptAmount": 0.00}}, "otherPayments": []any{}},
		"deductions": []any{map[string]any{"deductionTypeCode": "002", "code": "020002", "concept": "ISR", "amount": 36197.73}}}
	body["complement"] = map[string]any{"payroll": asim}
	body["issuer"].(map[string]any)["employerData"] = map[string]any{"originEmployerTin": "EKU9003173C9"}
	body["recipient"].(map[string]any)["employeeData"] = map[string]any{"curp": "XEXX010101HNEXXXA4", "satContractTypeId": "09",
		"satUnionizedStatusId": "No", "satTaxRegimeTypeId": "09", "employeeNumber": "00002", "department": "ADMINISTRACION",
		"position": "DIRECTOR DE ADMINISTRACION", "satPaymentPeriodicityId": "99", "satBankId": "012", "bankAccount": "1111111111",
		"satPayrollStateId": "CMX"}
	inv = invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...))
	doc := verifyAnswer(t, f, inv)
	n = nominaOf(t, doc)
	if doc.Total != "75000.00" || n.TipoNomina != "E" || n.FechaPago != "2023-06-02" || n.Emisor.RegistroPatronal != "" ||
		n.Emisor.RfcPatronOrigen != "EKU9003173C9" || n.Receptor.NumSeguridadSocial != "" || n.Receptor.TipoContrato != "09" ||
		n.TotalOtrosPagos != "" || n.Deducciones.TotalImpuestosRetenidos != "36197.73" || n.Deducciones.TotalOtrasDeducciones != "" {
		t.Fatalf("asimilados: total %s, %+v %+v %+v", doc.Total, n, n.Emisor, n.Receptor)
	}

	// by value without employer or employee data, a CURP of a legal entity, a wrong periodicity
	body["issuer"].(map[string]any)["employerData"] = map[string]any{"curp": "XEXX010101HNEXXXA4"}
	delete(body["recipient"].(map[string]any), "employeeData")
	r := f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.EmployerData.Curp", "El emisor 'EKU9003173C9' es persona moral: su CURP no va en el complemento de nómina.")
	expectFailure(t, r, "Recipient.EmployeeData", "'Employee Data' no debería estar vacío.")
	body["recipient"].(map[string]any)["employeeData"] = map[string]any{"curp": "NOPE", "satContractTypeId": "01", "satTaxRegimeTypeId": "02",
		"employeeNumber": "1", "satPaymentPeriodicityId": "04", "satPayrollStateId": "JAL"}
	delete(body["issuer"].(map[string]any), "employerData")
	body["recipient"].(map[string]any)["taxRegimeCode"] = "601"
	r = f.do("POST", "/api/v4/invoices", empBody(body), m.headers()...)
	expectFailure(t, r, "Issuer.EmployerData", "'Employer Data' no debería estar vacío.")
	expectFailure(t, r, "Recipient.EmployeeData.Curp", "La CURP 'NOPE' no tiene un formato válido.")
	expectFailure(t, r, "Recipient.EmployeeData.SocialSecurityNumber", "'Social Security Number' no debería estar vacío.")
	expectFailure(t, r, "Complement.Payroll.PayrollTypeCode", "En una nómina extraordinaria (E) la periodicidad de pago debe ser 99 (Otra periodicidad); la del empleado es '04'.")
	expectFailure(t, r, "Recipient.TaxRegimeCode", "En un comprobante de nómina (N) 'taxRegimeCode' debe ser '605'.")
	if got := stampsOf(t, f, m.person); got != 1 {
		t.Fatalf("stamps = %v, want 1", got)
	}
}
