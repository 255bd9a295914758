package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/employment"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// empMember puts a non-owner person in the fixture's tenant and makes an API key for it; it
// returns the person's id and the headers that act for it.
func empMember(t *testing.T, f *fixture, email string) (string, []string) {
	t.Helper()
	now := time.Now().UTC()
	p := storage.Person{ID: ids.New(now), TenantID: f.creds.TenantKey, LegalName: "Persona " + email, Email: email,
		UserTypeID: "C", ManifestStatusID: "NotInvited", CreatedAt: now, UpdatedAt: now}
	err := f.srv.accounts.Store.Update(context.Background(), func(tx storage.Tx) error { return tx.People(p.TenantID).Put(p) })
	if err != nil {
		t.Fatal(err)
	}
	r := f.do("POST", "/api/v4/apikeys", `{"personId":"`+p.ID+`"}`)
	var k api.APIKey
	if r.status != 200 || json.Unmarshal(r.env.Data, &k) != nil {
		t.Fatalf("api key: %s", r.raw)
	}
	return p.ID, []string{"X-API-KEY", k.APIKeyValue}
}

// empBody is a JSON body: base with the changes applied (a nil value removes the field).
// Numbers are json.Number so that they travel exactly as written.
func empBody(base map[string]any, changes ...any) string {
	m := map[string]any{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(changes); i += 2 {
		if changes[i+1] == nil {
			delete(m, changes[i].(string))
		} else {
			m[changes[i].(string)] = changes[i+1]
		}
	}
	raw, _ := json.Marshal(m)
	return string(raw)
}

type n = json.Number

func employerBase(personID string) map[string]any {
	return map[string]any{"personId": personID, "employerRegistration": "B5510768108", "originEmployerTin": "URE180429TM6",
		"satFundSourceId": "IP", "ownResourceAmount": n("999999999999.999999")}
}

func employeeBase(employeeID, employerID string) map[string]any {
	return map[string]any{
		"employerPersonId": employerID, "employeePersonId": employeeID, "employeeNumber": "120",
		"socialSecurityNumber": "04078873454", "laborRelationStartDate": "2024-08-18T00:00:00",
		"satContractTypeId": "01", "satTaxRegimeTypeId": "02", "satWorkdayTypeId": "01", "satJobRiskId": "1",
		"satPaymentPeriodicityId": "04", "satPayrollStateId": "JAL", "seniority": "P54W",
		"baseSalaryForContributions": n("2828.50"), "integratedDailySalary": n("0"),
		"satBankId": "002", "satUnionizedStatusId": "No", "position": "Programador", "department": "Desarrollo",
		"bankAccount": "1234567890", "timePercentage": n("50.5"),
	}
}

func empWant(t *testing.T, r result, status int, details string) {
	t.Helper()
	if r.status != status || r.env.Succeeded || r.env.Details != details {
		t.Fatalf("want %d %q, got %d %s", status, details, r.status, r.raw)
	}
}

func TestEmployerData(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	owner := f.creds.PersonID
	ana, asAna := empMember(t, f, "ana@example.com")
	beto, _ := empMember(t, f, "beto@example.com")
	path := func(id string) string { return "/api/v4/people/" + id + "/employer" }

	empWant(t, f.do("GET", path("nope"), ""), 404, "No such resource for the given Id: nope")
	empWant(t, f.do("POST", path("nope"), empBody(employerBase("nope"))), 404, "No such resource for the given Id: nope")
	empWant(t, f.do("GET", path(owner), ""), 404, "La persona '"+owner+"' no tiene datos de empleador.")
	empWant(t, f.do("PUT", path(owner), empBody(employerBase(owner))), 404, "La persona '"+owner+"' no tiene datos de empleador.")
	empWant(t, f.do("DELETE", path(owner), ""), 404, "La persona '"+owner+"' no tiene datos de empleador.")

	// owner rules: nobody else creates, updates or deletes the owner's data; anybody reads it
	empWant(t, f.do("POST", path(owner), empBody(employerBase(owner)), asAna...), 403, auth.MsgOnlyOwnerModifyOwner)
	r := f.do("POST", path(owner), empBody(employerBase(owner)))
	if r.status != 200 || !r.env.Succeeded {
		t.Fatalf("create: %s", r.raw)
	}
	if !strings.Contains(string(r.env.Data), `"ownResourceAmount":999999999999.999999`) {
		t.Fatalf("the amount was not kept exactly: %s", r.env.Data)
	}
	var made api.Employer
	json.Unmarshal(r.env.Data, &made)
	if made.ID == "" || made.PersonID != owner || made.EmployerRegistration != "B5510768108" || *made.OriginEmployerTin != "URE180429TM6" ||
		made.SatFundSource == nil || made.SatFundSource.ID != "IP" || made.SatFundSource.Description != "Ingresos propios." || made.CreatedAt == "" {
		t.Fatalf("create answer: %s", r.env.Data)
	}
	empWant(t, f.do("PUT", path(owner), empBody(employerBase(owner)), asAna...), 403, auth.MsgOnlyOwnerModifyOwner)
	empWant(t, f.do("DELETE", path(owner), "", asAna...), 403, auth.MsgOnlyOwnerModifyOwner)
	if r := f.do("GET", path(owner), "", asAna...); r.status != 200 || !strings.Contains(r.raw, made.ID) {
		t.Fatalf("another person reads the owner's employer data: %s", r.raw)
	}
	// a non-owner's data: any person of the tenant
	if r := f.do("POST", path(beto), empBody(employerBase(beto)), asAna...); r.status != 200 {
		t.Fatalf("ana creates beto's employer data: %s", r.raw)
	}
	if r := f.do("PUT", path(beto), empBody(employerBase(beto), "employerRegistration", "Y1234567891"), asAna...); r.status != 200 {
		t.Fatalf("ana updates beto's employer data: %s", r.raw)
	}
	if r := f.do("POST", path(ana), empBody(employerBase(ana))); r.status != 200 {
		t.Fatalf("the owner creates ana's employer data: %s", r.raw)
	}

	// update replaces the body and keeps id and createdAt; null amount is not validated
	r = f.do("PUT", path(owner), empBody(employerBase(owner), "satFundSourceId", nil, "ownResourceAmount", nil, "originEmployerTin", nil, "employerRegistration", "Z0000000001"))
	var upd api.Employer
	json.Unmarshal(r.env.Data, &upd)
	if r.status != 200 || upd.ID != made.ID || upd.CreatedAt != made.CreatedAt || upd.EmployerRegistration != "Z0000000001" ||
		upd.SatFundSource != nil || upd.SatFundSourceID != nil || upd.OwnResourceAmount != nil || upd.OriginEmployerTin != nil {
		t.Fatalf("update: %s", r.raw)
	}
	if r := f.do("PUT", path(owner), `{"personId":"`+owner+`","employerRegistration":"Z1","ownResourceAmount":null}`); r.status != 200 {
		t.Fatalf("a null amount without fund source: %s", r.raw)
	}
	r = f.do("GET", path(owner), "")
	if r.status != 200 || !strings.Contains(r.raw, `"employerRegistration":"Z1"`) || !strings.Contains(r.raw, `"satFundSource":null`) {
		t.Fatalf("get after update: %s", r.raw)
	}

	// every failure of §4.4, on POST (a person without data) and on PUT
	cases := []struct {
		name, body, prop, msg string
	}{
		{"amount without fund source", empBody(employerBase(beto), "satFundSourceId", nil, "ownResourceAmount", n("10")), "SatFundSourceId", employment.MsgFundSourceRequired},
		{"amount with empty fund source", empBody(employerBase(beto), "satFundSourceId", "", "ownResourceAmount", n("0")), "SatFundSourceId", employment.MsgFundSourceRequired},
		{"amount below 0", empBody(employerBase(beto), "ownResourceAmount", n("-0.000001")), "OwnResourceAmount", employment.MsgOwnAmountMin},
		{"amount above the maximum by 1e-7", empBody(employerBase(beto), "ownResourceAmount", n("999999999999.9999991")), "OwnResourceAmount", employment.MsgOwnAmountMax},
		{"amount above with an exponent", empBody(employerBase(beto), "ownResourceAmount", n("1e12")), "OwnResourceAmount", employment.MsgOwnAmountMax},
		{"registration missing", empBody(employerBase(beto), "employerRegistration", nil), "EmployerRegistration", "'Employer Registration' no debería estar vacío."},
		{"registration blank", empBody(employerBase(beto), "employerRegistration", "  "), "EmployerRegistration", "'Employer Registration' no debería estar vacío."},
		{"person id missing", empBody(employerBase(beto), "personId", nil), "PersonId", "'Person Id' no debería estar vacío."},
		{"person id of another", empBody(employerBase(beto), "personId", ana), "PersonId", employment.MsgIDsMismatch},
		{"fund source outside the catalog", empBody(employerBase(beto), "satFundSourceId", "XX"), "SatFundSourceId", "El origen de recurso 'XX' no existe en el catálogo c_OrigenRecurso del SAT."},
		{"origin employer RFC of 29 February of a common year", empBody(employerBase(beto), "originEmployerTin", "ure180229tm6"), "OriginEmployerTin",
			"El RFC 'URE180229TM6' no es válido: su fecha 180229 (AAMMDD) no existe en el calendario."},
		{"origin employer RFC that is no RFC", empBody(employerBase(beto), "originEmployerTin", "URE18"), "OriginEmployerTin", "El RFC 'URE18' no tiene un formato válido."},
		{"amount of another type", empBody(employerBase(beto), "ownResourceAmount", "10"), "$.ownResourceAmount",
			"The JSON value could not be converted to a number. Path: $.ownResourceAmount | LineNumber: 0 | BytePositionInLine: 101."},
	}
	cperson, _ := empMember(t, f, "carla@example.com")
	for _, c := range cases {
		for _, method := range []string{"POST", "PUT"} {
			target, body := cperson, strings.ReplaceAll(c.body, beto, cperson)
			if method == "PUT" {
				target, body = beto, c.body
			}
			r := f.do(method, path(target), body)
			if c.prop[0] == '$' {
				if r.status != 400 || len(failures(t, r)) != 1 || failures(t, r)[0].PropertyName != c.prop {
					t.Errorf("%s %s: %s", method, c.name, r.raw)
				}
				continue
			}
			expectFailure(t, r, c.prop, c.msg)
		}
	}
	if r := f.do("GET", path(cperson), ""); r.status != 404 {
		t.Fatalf("a refused create saved something: %s", r.raw)
	}
	// the exact boundary and the masking-free echo of the amount tried
	r = f.do("POST", path(cperson), empBody(employerBase(cperson), "ownResourceAmount", n("999999999999.9999991")))
	if fs := failures(t, r); len(fs) != 1 || !strings.Contains(r.raw, `"attemptedValue":999999999999.9999991`) || *fs[0].ErrorCode != "LessThanOrEqualValidator" {
		t.Fatalf("above the maximum: %s", r.raw)
	}

	// POST on data that exists: the spec's text, literally, with the other failures
	r = f.do("POST", path(owner), empBody(employerBase(owner), "ownResourceAmount", n("-1")))
	expectFailure(t, r, "PersonId", "La persona ya tiene datos de empleador: modifícalos con PUT /api/v4/people/{personId}/employer.")
	expectFailure(t, r, "OwnResourceAmount", "MontoRecursoPropio debe ser mayor o igual a 0.")

	// delete
	if r := f.do("DELETE", path(owner), ""); r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	empWant(t, f.do("GET", path(owner), ""), 404, "La persona '"+owner+"' no tiene datos de empleador.")
	empWant(t, f.do("DELETE", path(owner), ""), 404, "La persona '"+owner+"' no tiene datos de empleador.")
	if r := f.do("DELETE", path(beto), "", asAna...); r.status != 200 {
		t.Fatalf("ana deletes beto's employer data: %s", r.raw)
	}
	if r := f.do("PATCH", path(owner), ""); r.status != http.StatusMethodNotAllowed {
		t.Fatalf("PATCH: %s", r.raw)
	}
}

func TestEmployeeData(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	owner := f.creds.PersonID
	ana, asAna := empMember(t, f, "ana@example.com")
	beto, _ := empMember(t, f, "beto@example.com")
	path := func(id string) string { return "/api/v4/people/" + id + "/employee" }

	empWant(t, f.do("GET", path("nope"), ""), 404, "No such resource for the given Id: nope")
	empWant(t, f.do("GET", path(ana), ""), 404, "La persona '"+ana+"' no tiene datos de empleado.")
	empWant(t, f.do("PUT", path(ana), empBody(employeeBase(ana, owner))), 404, "La persona '"+ana+"' no tiene datos de empleado.")

	r := f.do("POST", path(ana), empBody(employeeBase(ana, owner)))
	if r.status != 200 {
		t.Fatalf("create: %s", r.raw)
	}
	var e api.Employee
	json.Unmarshal(r.env.Data, &e)
	var keys map[string]json.RawMessage
	json.Unmarshal(r.env.Data, &keys)
	if _, ok := keys["id"]; ok {
		t.Errorf("employee data answers an id: %s", r.env.Data)
	}
	if e.EmployeePersonID != ana || e.EmployerPersonID != owner || e.LaborRelationStartDate != "2024-08-18" || e.Seniority != "P54W" ||
		e.SatContractType == nil || e.SatContractType.Description != "Contrato de trabajo por tiempo indeterminado" ||
		e.SatTaxRegimeType == nil || e.SatTaxRegimeType.ID != "02" || e.SatWorkdayType == nil || e.SatWorkdayType.Description != "Diurna" ||
		e.SatJobRisk == nil || e.SatJobRisk.Description != "Clase I" || e.SatPaymentPeriodicity == nil || e.SatPaymentPeriodicity.Description != "Quincenal" ||
		e.SatPayrollState == nil || e.SatPayrollState.Description != "Jalisco" || e.SatBank == nil || e.SatBank.Description != "BANAMEX" ||
		e.SatUnionizedStatus == nil || e.SatUnionizedStatus.ID != "No" || *e.Position != "Programador" || *e.BankAccount != "1234567890" {
		t.Fatalf("create answer: %s", r.env.Data)
	}
	for _, want := range []string{`"baseSalaryForContributions":2828.50`, `"integratedDailySalary":0`, `"timePercentage":50.5`} {
		if !strings.Contains(string(r.env.Data), want) {
			t.Errorf("answer lacks %s: %s", want, r.env.Data)
		}
	}
	if r := f.do("GET", path(ana), "", asAna...); r.status != 200 || !strings.Contains(r.raw, `"satPayrollState":{"id":"JAL"`) {
		t.Fatalf("get: %s", r.raw)
	}

	// owner rules
	empWant(t, f.do("POST", path(owner), empBody(employeeBase(owner, owner)), asAna...), 403, auth.MsgOnlyOwnerModifyOwner)
	if r := f.do("POST", path(owner), empBody(employeeBase(owner, ana))); r.status != 200 {
		t.Fatalf("the owner's own employee data: %s", r.raw)
	}
	empWant(t, f.do("PUT", path(owner), empBody(employeeBase(owner, ana)), asAna...), 403, auth.MsgOnlyOwnerModifyOwner)
	empWant(t, f.do("DELETE", path(owner), "", asAna...), 403, auth.MsgOnlyOwnerModifyOwner)
	if r := f.do("POST", path(beto), empBody(employeeBase(beto, owner)), asAna...); r.status != 200 {
		t.Fatalf("ana creates beto's employee data: %s", r.raw)
	}

	// every failure of §4.5 and of the fields of §2.3, on POST and on PUT
	cases := []struct {
		name, field, prop, msg string
		value                  any
	}{
		{"salary below 0", "baseSalaryForContributions", "BaseSalaryForContributions", employment.MsgBaseSalaryMin, n("-0.01")},
		{"salary above", "baseSalaryForContributions", "BaseSalaryForContributions", employment.MsgBaseSalaryMax, n("999999999999.9999991")},
		{"daily below 0", "integratedDailySalary", "IntegratedDailySalary", employment.MsgDailySalaryMin, n("-1e-30")},
		{"daily above", "integratedDailySalary", "IntegratedDailySalary", employment.MsgDailySalaryMax, n("1000000000000")},
		{"salary missing", "baseSalaryForContributions", "BaseSalaryForContributions", "'Base Salary For Contributions' no debe estar vacío.", nil},
		{"daily missing", "integratedDailySalary", "IntegratedDailySalary", "'Integrated Daily Salary' no debe estar vacío.", nil},
		{"employee id missing", "employeePersonId", "EmployeePersonId", "'Employee Person Id' no debería estar vacío.", nil},
		{"employee id of another", "employeePersonId", "EmployeePersonId", employment.MsgIDsMismatch, "someone-else"},
		{"employer missing", "employerPersonId", "EmployerPersonId", "'Employer Person Id' no debería estar vacío.", nil},
		{"employer unknown", "employerPersonId", "EmployerPersonId", employment.MsgEmployerNotValid, "nope"},
		{"number missing", "employeeNumber", "EmployeeNumber", "'Employee Number' no debería estar vacío.", nil},
		{"nss empty", "socialSecurityNumber", "SocialSecurityNumber", "'Social Security Number' no debería estar vacío.", ""},
		{"start missing", "laborRelationStartDate", "LaborRelationStartDate", "'Labor Relation Start Date' no debería estar vacío.", nil},
		{"start not a date", "laborRelationStartDate", "LaborRelationStartDate", "La fecha de inicio de la relación laboral '2024-13-01' no es válida: usa el formato AAAA-MM-DD, por ejemplo 2024-01-15.", "2024-13-01"},
		{"seniority missing", "seniority", "Seniority", "'Seniority' no debería estar vacío.", nil},
		{"seniority with zero months", "seniority", "Seniority", strings.Replace(employment.MsgSeniority, "%s", "P1Y0M3D", 1), "P1Y0M3D"},
		{"seniority without P", "seniority", "Seniority", strings.Replace(employment.MsgSeniority, "%s", "52W", 1), "52W"},
		{"seniority in hours", "seniority", "Seniority", strings.Replace(employment.MsgSeniority, "%s", "PT8H", 1), "PT8H"},
		{"contract missing", "satContractTypeId", "SatContractTypeId", "'Sat Contract Type Id' no debería estar vacío.", nil},
		{"contract", "satContractTypeId", "SatContractTypeId", "El tipo de contrato '77' no existe en el catálogo c_TipoContrato del SAT.", "77"},
		{"regime type", "satTaxRegimeTypeId", "SatTaxRegimeTypeId", "El tipo de régimen '77' no existe en el catálogo c_TipoRegimen del SAT.", "77"},
		{"workday", "satWorkdayTypeId", "SatWorkdayTypeId", "El tipo de jornada '77' no existe en el catálogo c_TipoJornada del SAT.", "77"},
		{"job risk", "satJobRiskId", "SatJobRiskId", "El riesgo de puesto '77' no existe en el catálogo c_RiesgoPuesto del SAT.", "77"},
		{"periodicity", "satPaymentPeriodicityId", "SatPaymentPeriodicityId", "La periodicidad de pago '77' no existe en el catálogo c_PeriodicidadPago del SAT.", "77"},
		{"state", "satPayrollStateId", "SatPayrollStateId", "El estado 'XYZ' no existe en el catálogo c_Estado del SAT.", "XYZ"},
		{"bank", "satBankId", "SatBankId", "El banco '777' no existe en el catálogo c_Banco del SAT.", "777"},
		{"subcontractor RFC of 31 June", "subcontractorRfc", "SubcontractorRfc", "El RFC 'FUNK670631PH6' no es válido: su fecha 670631 (AAMMDD) no existe en el calendario.", "FUNK670631PH6"},
		{"subcontractor RFC of month 13", "subcontractorRfc", "SubcontractorRfc", "El RFC 'FUNK671328PH6' no tiene un formato válido.", "FUNK671328PH6"},
		{"unionized without accent", "satUnionizedStatusId", "SatUnionizedStatusId", "El valor de sindicalizado 'Si' no existe en el catálogo c_Sindicalizado del SAT: usa Sí o No.", "Si"},
	}
	for _, x := range cases {
		for _, method := range []string{"POST", "PUT"} {
			target := beto // has employee data: PUT
			if method == "POST" {
				target = ana
				f.do("DELETE", path(ana), "")
			}
			r := f.do(method, path(target), empBody(employeeBase(target, owner), x.field, x.value))
			expectFailure(t, r, x.prop, x.msg)
			if method == "POST" && len(failures(t, r)) != 1 {
				t.Errorf("%s: more than the one failure: %s", x.name, r.raw)
			}
		}
	}
	// accepted forms
	for _, ok := range [][2]any{{"seniority", "P0D"}, {"seniority", "P1Y2M15D"}, {"seniority", "P12M31D"}, {"seniority", "P0W"},
		{"laborRelationStartDate", "2024-08-18"}, {"laborRelationStartDate", "2024-08-18T10:00:00-06:00"},
		{"satUnionizedStatusId", "Sí"}, {"satBankId", nil}, {"timePercentage", nil},
		{"baseSalaryForContributions", n("999999999999.999999")}, {"integratedDailySalary", n("-0")}} {
		r := f.do("PUT", path(beto), empBody(employeeBase(beto, owner), ok[0], ok[1]))
		if r.status != 200 {
			t.Errorf("%v refused: %s", ok, r.raw)
		}
	}
	r = f.do("GET", path(beto), "")
	if !strings.Contains(r.raw, `"integratedDailySalary":0,`) || !strings.Contains(r.raw, `"satBank":{"id":"002"`) {
		t.Fatalf("after the updates: %s", r.raw)
	}

	// POST on data that exists: the spec's text, literally, with the other failures
	r = f.do("POST", path(beto), empBody(employeeBase(beto, owner), "integratedDailySalary", n("-5")))
	expectFailure(t, r, "EmployeePersonId", "La persona ya tiene datos de empleado: modifícalos con PUT /api/v4/people/{personId}/employee.")
	expectFailure(t, r, "IntegratedDailySalary", "SalarioDiarioIntegrado debe ser mayor o igual a 0.")

	if r := f.do("DELETE", path(beto), "", asAna...); r.status != 200 || string(r.env.Data) != "true" {
		t.Fatalf("delete: %s", r.raw)
	}
	empWant(t, f.do("GET", path(beto), ""), 404, "La persona '"+beto+"' no tiene datos de empleado.")
}

// TestEmploymentWithoutCatalogs: a write that names a catalog value answers 503 (never a blind
// accept or reject); one that names none works; reads show null expanded records.
func TestEmploymentWithoutCatalogs(t *testing.T) {
	f := newFixture(t)
	owner := f.creds.PersonID
	r := f.do("POST", "/api/v4/people/"+owner+"/employer", empBody(employerBase(owner)))
	if r.status != http.StatusServiceUnavailable || r.env.Succeeded {
		t.Fatalf("fund source without catalogs: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/people/"+owner+"/employee", empBody(employeeBase(owner, owner))); r.status != http.StatusServiceUnavailable {
		t.Fatalf("employee without catalogs: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/people/"+owner+"/employer", empBody(employerBase(owner), "satFundSourceId", nil, "ownResourceAmount", nil)); r.status != 200 {
		t.Fatalf("employer data without catalog values: %s", r.raw)
	}
	now := time.Now().UTC()
	err := f.srv.accounts.Store.Update(context.Background(), func(tx storage.Tx) error {
		return tx.Employees(f.creds.TenantKey).Put(storage.Employee{ID: ids.New(now), EmployeePersonID: owner, EmployerPersonID: owner,
			SatContractTypeID: "01", SatPayrollStateID: "JAL", BaseSalaryForContributions: "1", IntegratedDailySalary: "2", CreatedAt: now, UpdatedAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	r = f.do("GET", "/api/v4/people/"+owner+"/employee", "")
	if r.status != 200 || !strings.Contains(r.raw, `"satContractTypeId":"01","satTaxRegimeTypeId"`) || !strings.Contains(r.raw, `"satContractType":null`) {
		t.Fatalf("get without catalogs: %s", r.raw)
	}
}

// TestDeletePersonEmployment: deleting a person through the API removes its employer and
// employee data in the same transaction.
func TestDeletePersonEmployment(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	ana, _ := empMember(t, f, "ana@example.com")
	f.do("POST", "/api/v4/people/"+ana+"/employer", empBody(employerBase(ana)))
	f.do("POST", "/api/v4/people/"+ana+"/employee", empBody(employeeBase(ana, ana)))
	if r := f.do("DELETE", "/api/v4/people/"+ana, ""); r.status != 200 {
		t.Fatalf("delete: %s", r.raw)
	}
	err := f.srv.accounts.Store.View(context.Background(), func(tx storage.Tx) error {
		if _, err := tx.Employers(f.creds.TenantKey).Get(ana); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("employer data outlived the person: %v", err)
		}
		if _, err := tx.Employees(f.creds.TenantKey).Get(ana); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("employee data outlived the person: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
