// The official fiscalapi client against a running timbra server. The Go test in testscripts/compat/ starts
// the server and passes its address and credentials in the environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const settings = {
  apiUrl: process.env.TIMBRA_BASE_URL,
  tenant: process.env.TIMBRA_TENANT_KEY,
  apiKey: process.env.TIMBRA_API_KEY,
};
const personId = process.env.TIMBRA_PERSON_ID;

test('persons.getList reads the owner through the envelope and paged list', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.getList(1, 50);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  assert.equal(res.data.pageNumber, 1);
  assert.equal(res.data.totalItems, 1);
  assert.equal(res.data.hasNextPage, false);
  assert.equal(res.data.items[0].id, personId);
  assert.equal(res.data.items[0].isOwner, true);
  assert.equal(res.data.items[0].availableBalance, 1000);
});

test('persons.getById with details=true', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.getById(personId, true);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, personId);
  assert.equal(res.data.tenantId, settings.tenant);
});

test('a missing person answers the 404 envelope the client understands', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.getById('no-such-person');
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 404);
  assert.match(res.details, /No such resource for the given Id: no-such-person/);
});

test('a wrong API key is a 401', async () => {
  const client = FiscalapiClient.create({ ...settings, apiKey: 'sk_test_wrong' });
  const res = await client.persons.getList(1, 10);
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 401);
});

test('apiKeys.create and getList round-trip', async () => {
  const client = FiscalapiClient.create(settings);
  const made = await client.apiKeys.create({ personId, description: 'from fiscalapi' });
  assert.equal(made.succeeded, true, JSON.stringify(made));
  assert.match(made.data.apiKeyValue, /^sk_test_/);
  const list = await client.apiKeys.getList(1, 10);
  assert.equal(list.succeeded, true);
  assert.ok(list.data.items.some((k) => k.id === made.data.id));
  const other = FiscalapiClient.create({ ...settings, apiKey: made.data.apiKeyValue });
  const again = await other.persons.getList(1, 1);
  assert.equal(again.succeeded, true, 'the key made through the client authenticates');
});

test('a validation failure reaches the client as its first failure message', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.getList('abc', 10);
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 400);
  assert.equal(res.message, "El valor 'abc' no es válido para PageNumber.");
});

// The write side of persons. These run after the tests above (one file runs its tests in order),
// which count the owner alone; the person made here is deleted at the end.
let madeId;

test('persons.create: defaults, ignored read-only fields, null expanded records', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.create({
    legalName: 'Escuela Kemper Urgate', email: ' Kemper@Example.com ', password: 'Clave#123',
    satTaxRegimeId: '601', satCfdiUseId: 'G01', tin: 'EKU9003173C9', zipCode: '42501', countryId: 'MEX',
    taxPassword: '12345678a', capitalRegime: 'SA de CV', availableBalance: 99, tenantId: 'other',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  const p = res.data;
  madeId = p.id;
  assert.match(p.id, /^[0-9a-f-]{36}$/);
  assert.equal(p.email, 'Kemper@Example.com');
  assert.equal(p.userTypeId, 'C');
  assert.equal(p.manifestStatusId, 'NotInvited');
  assert.equal(p.isOwner, false);
  assert.equal(p.tenantId, settings.tenant);
  assert.equal(p.availableBalance, 0);
  assert.deepEqual(p.balances, []);
  assert.equal(p.password, null);
  assert.equal(p.taxPassword, '12345678a', 'the owner sees the private key password');
  for (const k of ['satTaxRegime', 'satCfdiUse', 'userType', 'manifestStatus', 'country']) {
    assert.equal(p[k], null, k);
  }
});

test('persons.getById and getList carry the expanded catalog records', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.getById(madeId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.satTaxRegime.id, '601');
  assert.equal(res.data.satTaxRegime.description, 'General de Ley Personas Morales');
  assert.equal(res.data.satCfdiUse.description, 'Adquisición de mercancías.');
  assert.equal(res.data.userType.id, 'C');
  assert.equal(res.data.country.description, 'México');
  assert.equal(res.data.manifestStatus.id, 'NotInvited');
  const list = await client.persons.getList(1, 50);
  assert.equal(list.succeeded, true);
  const item = list.data.items.find((x) => x.id === madeId);
  assert.ok(item, 'the new person is listed');
  assert.equal(item.satTaxRegime.id, '601');
});

test('persons.create failures reach the client: first message, failures in details', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.create({ legalName: 'X', email: 'kemper@example.com', password: 'clave#123', taxPassword: 'no-debe-verse' });
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 400);
  const failures = JSON.parse(res.details);
  const byProp = Object.fromEntries(failures.map((f) => [f.propertyName, f]));
  assert.equal(byProp.Email.errorMessage, 'The email is already registered.');
  assert.equal(byProp.Password.errorCode, 'PasswordRequiresUpper');
  assert.equal(byProp.Password.attemptedValue, null);
  assert.ok(!res.details.includes('clave#123') && !res.details.includes('no-debe-verse'), 'no secret echoed');
  const bad = await client.persons.create({ legalName: 'X', email: 'x@example.com', password: 'Clave#123', satTaxRegimeId: '999' });
  assert.equal(bad.httpStatusCode, 400);
  assert.equal(bad.message, "El régimen fiscal '999' no existe en el catálogo c_RegimenFiscal del SAT.");
});

test('persons.update sends PUT people/<id> with the id in the body; unsent fields keep their value', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.persons.update({ id: madeId, legalName: 'Escuela Kemper Urgate Nueva', satTaxRegimeId: '626' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, madeId);
  assert.equal(res.data.legalName, 'Escuela Kemper Urgate Nueva');
  assert.equal(res.data.satTaxRegimeId, '626');
  assert.equal(res.data.tin, 'EKU9003173C9');
  assert.equal(res.data.zipCode, '42501');
  // the whole person read back, as a client that reads then writes sends it
  const got = await client.persons.getById(madeId);
  const again = await client.persons.update({ ...got.data, phoneNumber: '5512345678' });
  assert.equal(again.succeeded, true, JSON.stringify(again));
  assert.equal(again.data.phoneNumber, '5512345678');
  assert.equal(again.data.satTaxRegimeId, '626');
});

test('persons.update of the owner by another person is refused; the owner cannot be deleted', async () => {
  const client = FiscalapiClient.create(settings);
  const key = await client.apiKeys.create({ personId: madeId, description: 'of the new person' });
  assert.equal(key.succeeded, true, JSON.stringify(key));
  const other = FiscalapiClient.create({ ...settings, apiKey: key.data.apiKeyValue });
  const res = await other.persons.update({ id: personId, legalName: 'Not the owner' });
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 403);
  assert.match(res.details, /Solo el propietario de la cuenta puede modificar al propietario de la cuenta\./);
  const del = await client.persons.delete(personId);
  assert.equal(del.httpStatusCode, 403);
});

test('persons.delete answers true, revokes the keys, and the person is gone', async () => {
  const client = FiscalapiClient.create(settings);
  const key = await client.apiKeys.create({ personId: madeId });
  const res = await client.persons.delete(madeId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  const gone = await client.persons.getById(madeId);
  assert.equal(gone.httpStatusCode, 404);
  const revoked = FiscalapiClient.create({ ...settings, apiKey: key.data.apiKeyValue });
  const denied = await revoked.persons.getList(1, 1);
  assert.equal(denied.httpStatusCode, 401);
  const again = await client.persons.delete(madeId);
  assert.equal(again.httpStatusCode, 404);
});
