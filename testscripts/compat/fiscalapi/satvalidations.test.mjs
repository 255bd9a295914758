// The official fiscalapi client's satValidations calls (getTypes, getTypeById, getStatuses,
// validate) against a running timbra server in the test environment (compat_test.go starts it):
// the paths the client builds (ids with periods, unencoded), the bodies it sends, the fields its
// models read, and the validation credits of spec 3 §4.7.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient, SatValidationTypeIds } from 'fiscalapi';

const settings = {
  apiUrl: process.env.TIMBRA_BASE_URL,
  tenant: process.env.TIMBRA_TENANT_KEY,
  apiKey: process.env.TIMBRA_API_KEY,
};
const personId = process.env.TIMBRA_PERSON_ID;

const order = [
  SatValidationTypeIds.XmlStructure, SatValidationTypeIds.CertificateValidity, SatValidationTypeIds.CfdiSello,
  SatValidationTypeIds.TfdSello, SatValidationTypeIds.CfdiStatus, SatValidationTypeIds.Blacklist69B,
  SatValidationTypeIds.Blacklist69BBis,
];

const validationBalance = async (client) => {
  const res = await client.persons.getById(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  return res.data.availableValidationBalance;
};

test('satValidations: types, one type, statuses', async () => {
  const client = FiscalapiClient.create(settings);
  let res = await client.satValidations.getTypes();
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.deepEqual(res.data.map((t) => t.id), order);
  assert.ok(res.data.every((t) => typeof t.description === 'string' && t.description.length > 0));

  res = await client.satValidations.getTypeById(SatValidationTypeIds.CfdiStatus);
  assert.equal(res.httpStatusCode, 200, JSON.stringify(res));
  assert.deepEqual(res.data, { id: 'sat.cfdi.status', description: 'Estado actual del CFDI en el SAT' });
  res = await client.satValidations.getTypeById('sat.nope');
  assert.equal(res.httpStatusCode, 404);

  res = await client.satValidations.getStatuses(SatValidationTypeIds.CfdiStatus);
  assert.equal(res.httpStatusCode, 200, JSON.stringify(res));
  assert.deepEqual(res.data.map((s) => s.id), ['Vigente', 'Cancelado', 'NoDisponible', 'NoEncontrado', 'Omitido']);
  assert.ok(res.data.every((s) => !('passed' in s)));
});

test('satValidations.validate: xml and tin, catalog order, one credit per type', async () => {
  const client = FiscalapiClient.create(settings);
  const before = await validationBalance(client);
  const xml = Buffer.from('<cfdi:Comprobante/>').toString('base64'); // not read in the test environment
  let res = await client.satValidations.validate({ xml, validationTypes: [...order].reverse() });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  assert.deepEqual(res.data.map((r) => r.type.id), order);
  for (const r of res.data) {
    assert.equal(typeof r.passed, 'boolean');
    assert.equal(r.status.details, null);
    assert.ok(!['NoDisponible', 'Omitido'].includes(r.status.id), r.status.id);
    assert.ok(r.status.description.length > 0);
  }
  assert.equal(await validationBalance(client), before - 7);

  res = await client.satValidations.validate({
    tin: 'EKU9003173C9',
    validationTypes: [SatValidationTypeIds.Blacklist69BBis, SatValidationTypeIds.Blacklist69B],
  });
  assert.equal(res.httpStatusCode, 200, JSON.stringify(res));
  assert.deepEqual(res.data.map((r) => r.type.id), ['sat.blacklist.69b', 'sat.blacklist.69bbis']);
  assert.equal(await validationBalance(client), before - 9);

  // a malformed request: 400 with the failures, no credit
  res = await client.satValidations.validate({ tin: 'EKU9003173C9', validationTypes: [SatValidationTypeIds.CfdiStatus, ''] });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(res.succeeded, false);
  const failures = JSON.parse(res.details);
  assert.deepEqual(failures.map((f) => f.propertyName), ['ValidationTypes[0]', 'ValidationTypes[1]']);
  res = await client.satValidations.validate({ xml, tin: 'EKU9003173C9', validationTypes: order });
  assert.equal(res.httpStatusCode, 400);
  assert.equal(await validationBalance(client), before - 9);
});
