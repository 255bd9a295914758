// The official fiscalapi client against a running timbra server. The Go test in compat/ starts
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
