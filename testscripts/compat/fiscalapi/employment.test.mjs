// The official fiscalapi client's employer and employee calls (persons.employer, persons.employee)
// against a running timbra server with the small catalog source (compat_test.go starts it). The
// owner is employer and employee of itself: these calls never touch another person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const settings = {
  apiUrl: process.env.TIMBRA_BASE_URL,
  tenant: process.env.TIMBRA_TENANT_KEY,
  apiKey: process.env.TIMBRA_API_KEY,
};
const personId = process.env.TIMBRA_PERSON_ID;

test('persons.employer: create, get, update, delete', async () => {
  const client = FiscalapiClient.create(settings);
  let res = await client.persons.employer.getById(personId);
  assert.equal(res.httpStatusCode, 404, JSON.stringify(res));
  assert.match(res.details, /no tiene datos de empleador/);

  res = await client.persons.employer.create({
    personId, employerRegistration: 'B5510768108', originEmployerTin: 'URE180429TM6',
    satFundSourceId: 'IP', ownResourceAmount: 1500.5,
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  const made = res.data;
  assert.ok(made.id);
  assert.equal(made.personId, personId);
  assert.equal(made.employerRegistration, 'B5510768108');
  assert.equal(made.originEmployerTin, 'URE180429TM6');
  assert.equal(made.ownResourceAmount, 1500.5);
  assert.deepEqual({ id: made.satFundSource.id, description: made.satFundSource.description }, { id: 'IP', description: 'Ingresos propios.' });
  assert.match(made.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

  // a second create answers the spec's failure on PersonId; the client surfaces its text
  res = await client.persons.employer.create({ personId, employerRegistration: 'X' });
  assert.equal(res.httpStatusCode, 400);
  assert.equal(res.message, 'La persona ya tiene datos de empleador: modifícalos con PUT /api/v4/people/{personId}/employer.');
  assert.equal(JSON.parse(res.details)[0].propertyName, 'PersonId');

  res = await client.persons.employer.getById(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, made.id);
  assert.equal(res.data.satFundSource.id, 'IP');

  res = await client.persons.employer.update({ personId, employerRegistration: 'Y1234567891', satFundSourceId: 'IF', ownResourceAmount: 0 });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, made.id);
  assert.equal(res.data.employerRegistration, 'Y1234567891');
  assert.equal(res.data.ownResourceAmount, 0);
  assert.equal(res.data.satFundSource.description, 'Ingreso federales.');
  assert.equal(res.data.originEmployerTin, null);

  // the rules of §4.4 through the client: a JS number cannot hold 999999999999.999999 (it becomes 1e12)
  for (const [body, prop, message] of [
    [{ personId, employerRegistration: 'Y', ownResourceAmount: 10 }, 'SatFundSourceId', 'OrigenRecurso es requerido cuando se especifica MontoRecursoPropio.'],
    [{ personId, employerRegistration: 'Y', satFundSourceId: 'IP', ownResourceAmount: -1 }, 'OwnResourceAmount', 'MontoRecursoPropio debe ser mayor o igual a 0.'],
    [{ personId, employerRegistration: 'Y', satFundSourceId: 'IP', ownResourceAmount: 999999999999.999999 }, 'OwnResourceAmount', 'MontoRecursoPropio no puede ser mayor a 999999999999.999999.'],
  ]) {
    res = await client.persons.employer.update(body);
    assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
    const failures = JSON.parse(res.details);
    assert.ok(failures.some((f) => f.propertyName === prop && f.errorMessage === message), res.details);
  }

  res = await client.persons.employer.delete(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  res = await client.persons.employer.getById(personId);
  assert.equal(res.httpStatusCode, 404);
});

const employee = {
  employerPersonId: personId, employeePersonId: personId, employeeNumber: '120',
  socialSecurityNumber: '04078873454', laborRelationStartDate: '2024-08-18T00:00:00',
  satContractTypeId: '01', satTaxRegimeTypeId: '02', satWorkdayTypeId: '01', satJobRiskId: '1',
  satPaymentPeriodicityId: '04', satPayrollStateId: 'JAL', seniority: 'P54W',
  baseSalaryForContributions: 2828.5, integratedDailySalary: 0, satBankId: '002',
  satUnionizedStatusId: 'No', position: 'Programador', department: 'Desarrollo',
};

test('persons.employee: create, get, update, delete', async () => {
  const client = FiscalapiClient.create(settings);
  let res = await client.persons.employee.create(employee);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.employeePersonId, personId);
  assert.equal(res.data.employerPersonId, personId);
  assert.equal(res.data.laborRelationStartDate, '2024-08-18');
  assert.equal(res.data.baseSalaryForContributions, 2828.5);
  assert.equal(res.data.satContractType.description, 'Contrato de trabajo por tiempo indeterminado');
  assert.equal(res.data.satPayrollState.description, 'Jalisco');
  assert.equal(res.data.satBank.description, 'BANAMEX');
  assert.equal(res.data.satUnionizedStatus.id, 'No');
  assert.equal('id' in res.data, false, 'employee data answers no id');

  res = await client.persons.employee.create(employee);
  assert.equal(res.httpStatusCode, 400);
  assert.equal(res.message, 'La persona ya tiene datos de empleado: modifícalos con PUT /api/v4/people/{personId}/employee.');

  res = await client.persons.employee.getById(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.seniority, 'P54W');
  assert.equal(res.data.satJobRisk.description, 'Clase I');

  res = await client.persons.employee.update({ ...employee, integratedDailySalary: 512.4, seniority: 'P1Y2M15D', satBankId: null });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.integratedDailySalary, 512.4);
  assert.equal(res.data.seniority, 'P1Y2M15D');
  assert.equal(res.data.satBank, null);
  assert.equal(res.data.satPaymentPeriodicity.description, 'Quincenal');

  for (const [change, prop, message] of [
    [{ baseSalaryForContributions: -1 }, 'BaseSalaryForContributions', 'SalarioBaseCotApor debe ser mayor o igual a 0.'],
    [{ baseSalaryForContributions: 1e12 }, 'BaseSalaryForContributions', 'SalarioBaseCotApor no puede ser mayor a 999999999999.999999.'],
    [{ integratedDailySalary: -0.5 }, 'IntegratedDailySalary', 'SalarioDiarioIntegrado debe ser mayor o igual a 0.'],
    [{ integratedDailySalary: 2e12 }, 'IntegratedDailySalary', 'SalarioDiarioIntegrado no puede ser mayor a 999999999999.999999.'],
    [{ satContractTypeId: '77' }, 'SatContractTypeId', "El tipo de contrato '77' no existe en el catálogo c_TipoContrato del SAT."],
  ]) {
    res = await client.persons.employee.update({ ...employee, ...change });
    assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
    const failures = JSON.parse(res.details);
    assert.ok(failures.some((f) => f.propertyName === prop && f.errorMessage === message), res.details);
  }

  res = await client.persons.employee.delete(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  res = await client.persons.employee.getById(personId);
  assert.equal(res.httpStatusCode, 404);
  assert.match(res.details, /no tiene datos de empleado/);
});
