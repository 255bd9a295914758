// API keys and the stamps transfer through the official fiscalapi client, in a tenant of their
// own (an owner and a second person), which the Go test in testscripts/compat/ makes and passes in the
// environment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient, CreditType } from 'fiscalapi';

const apiUrl = process.env.TIMBRA_BASE_URL;
const tenant = process.env.TIMBRA_CREDS_TENANT_KEY;
const ownerKey = process.env.TIMBRA_CREDS_API_KEY;
const ownerId = process.env.TIMBRA_CREDS_OWNER_ID;
const memberId = process.env.TIMBRA_CREDS_MEMBER_ID;
const memberKey = process.env.TIMBRA_CREDS_MEMBER_KEY;

const owner = FiscalapiClient.create({ apiUrl, tenant, apiKey: ownerKey });
const member = FiscalapiClient.create({ apiUrl, tenant, apiKey: memberKey });
const as = (apiKey) => FiscalapiClient.create({ apiUrl, tenant, apiKey });
const onlyOwnerCredentials =
  'Solo el propietario de la cuenta puede gestionar las credenciales de otra persona: correo, contraseña, API keys y certificados.';
const onlyOwnerCredits =
  'Solo el propietario de la cuenta puede transferir timbres y créditos entre las personas de la cuenta.';

async function balances(id) {
  const res = await owner.persons.getById(id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  return res.data;
}

test('apiKeys: create, getById, update (suspend and reactivate), delete, getList', async () => {
  // personId omitted: the caller's own key
  const made = await owner.apiKeys.create({ description: 'from fiscalapi' });
  assert.equal(made.succeeded, true, JSON.stringify(made));
  assert.equal(made.data.personId, ownerId);
  assert.equal(made.data.tenantId, tenant);
  assert.equal(made.data.apiKeyStatus, 1);
  assert.match(made.data.apiKeyValue, /^sk_test_/);
  const id = made.data.id;

  const got = await owner.apiKeys.getById(id);
  assert.equal(got.succeeded, true);
  assert.equal(got.data.apiKeyValue, made.data.apiKeyValue);
  assert.equal(got.data.description, 'from fiscalapi');

  // update sends the model back (PUT /apikeys/<id>): suspend, then the key authenticates nothing
  const suspended = await owner.apiKeys.update({ ...got.data, apiKeyStatus: 0 });
  assert.equal(suspended.succeeded, true, JSON.stringify(suspended));
  assert.equal(suspended.data.apiKeyStatus, 0);
  assert.equal(suspended.data.description, 'from fiscalapi');
  assert.equal((await as(made.data.apiKeyValue).persons.getList(1, 1)).httpStatusCode, 401);
  const active = await owner.apiKeys.update({ id, description: 'renamed', apiKeyStatus: 1 });
  assert.equal(active.data.apiKeyStatus, 1);
  assert.equal(active.data.description, 'renamed');
  assert.equal((await as(made.data.apiKeyValue).persons.getList(1, 1)).succeeded, true);

  const bad = await owner.apiKeys.update({ id, apiKeyStatus: 5 });
  assert.equal(bad.httpStatusCode, 400);
  assert.equal(bad.message, "'Api Key Status' tiene un rango de valores que no incluye '5'.");
  assert.equal(JSON.parse(bad.details)[0].propertyName, 'ApiKeyStatus');

  const deleted = await owner.apiKeys.delete(id);
  assert.equal(deleted.succeeded, true, JSON.stringify(deleted));
  assert.equal(deleted.data, true);
  const gone = await owner.apiKeys.getById(id);
  assert.equal(gone.httpStatusCode, 404);
  assert.match(gone.details, new RegExp(`No such resource for the given Id: ${id}`));
  assert.equal((await as(made.data.apiKeyValue).persons.getList(1, 1)).httpStatusCode, 401);
  const list = await owner.apiKeys.getList(1, 10);
  assert.equal(list.succeeded, true);
  assert.ok(!list.data.items.some((k) => k.id === id), 'a deleted key is listed');
});

test('apiKeys: the owner sees every key, another person only their own', async () => {
  const forMember = await owner.apiKeys.create({ personId: memberId, description: 'made by the owner' });
  assert.equal(forMember.succeeded, true, JSON.stringify(forMember));
  assert.equal(forMember.data.personId, memberId);

  const all = await owner.apiKeys.getList(1, 10);
  assert.ok(all.data.items.some((k) => k.personId === ownerId));
  assert.ok(all.data.items.some((k) => k.personId === memberId));
  const own = await member.apiKeys.getList(1, 10);
  assert.equal(own.succeeded, true, JSON.stringify(own));
  assert.ok(own.data.items.length >= 2);
  assert.ok(own.data.items.every((k) => k.personId === memberId));

  const ownerKeyId = all.data.items.find((k) => k.personId === ownerId).id;
  const hidden = await member.apiKeys.getById(ownerKeyId);
  assert.equal(hidden.httpStatusCode, 404);
  const notDeleted = await member.apiKeys.delete(ownerKeyId);
  assert.equal(notDeleted.httpStatusCode, 404);
  assert.equal((await owner.apiKeys.getById(ownerKeyId)).succeeded, true, 'delete did not delete');

  const forbidden = await member.apiKeys.create({ personId: ownerId });
  assert.equal(forbidden.httpStatusCode, 403);
  assert.ok(forbidden.details.includes(onlyOwnerCredentials), forbidden.details);

  const tooBig = await owner.apiKeys.getList(1, 11);
  assert.equal(tooBig.httpStatusCode, 400);
  assert.equal(tooBig.message, "'pageSize' debe estar entre 1 y 10.");
});

test('stamps.transferStamps and withdrawStamps move credits between two people', async () => {
  const before = await balances(ownerId);
  const res = await owner.stamps.transferStamps({
    fromPersonId: ownerId, toPersonId: memberId, amount: 10, comments: 'compat',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  let o = await balances(ownerId);
  let m = await balances(memberId);
  assert.equal(o.availableBalance, before.availableBalance - 10);
  assert.equal(m.availableBalance, 10);
  assert.deepEqual(m.balances, [{ creditType: 1, available: 10 }]);

  const validation = await owner.stamps.transferStamps({
    fromPersonId: ownerId, toPersonId: memberId, amount: 3, creditType: CreditType.Validation,
  });
  assert.equal(validation.succeeded, true, JSON.stringify(validation));
  m = await balances(memberId);
  assert.equal(m.availableBalance, 10);
  assert.equal(m.availableValidationBalance, 3);

  // a withdrawal is a transfer with the people swapped
  const back = await owner.stamps.withdrawStamps({ fromPersonId: memberId, toPersonId: ownerId, amount: 4 });
  assert.equal(back.succeeded, true, JSON.stringify(back));
  o = await balances(ownerId);
  m = await balances(memberId);
  assert.equal(m.availableBalance, 6);
  assert.equal(o.availableBalance, before.availableBalance - 6);
  assert.equal(o.availableValidationBalance, before.availableValidationBalance - 3);
});

test('stamps.transferStamps: the rules reach the client', async () => {
  const notOwner = await member.stamps.transferStamps({ fromPersonId: memberId, toPersonId: ownerId, amount: 1 });
  assert.equal(notOwner.httpStatusCode, 403);
  assert.ok(notOwner.details.includes(onlyOwnerCredits), notOwner.details);

  const fraction = await owner.stamps.transferStamps({ fromPersonId: ownerId, toPersonId: memberId, amount: 2.5 });
  assert.equal(fraction.httpStatusCode, 400);
  assert.equal(fraction.message, "'Amount' debe ser un número entero: los créditos no se dividen.");

  const negative = await owner.stamps.transferStamps({ fromPersonId: ownerId, toPersonId: memberId, amount: -1 });
  assert.equal(negative.message, "'Amount' debe ser mayor que 0.");

  const tooMuch = await owner.stamps.transferStamps({ fromPersonId: memberId, toPersonId: ownerId, amount: 1000000 });
  assert.equal(tooMuch.httpStatusCode, 400);
  assert.match(tooMuch.message, /^La persona origen no tiene créditos suficientes de tipo 1: disponible \d+, solicitado 1000000\.$/);

  const absent = await owner.stamps.transferStamps({ fromPersonId: ownerId, toPersonId: 'nobody', amount: 1 });
  assert.equal(absent.httpStatusCode, 404);
  assert.match(absent.details, /No such resource for the given Id: nobody/);
});
