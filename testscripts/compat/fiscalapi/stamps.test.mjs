// The official fiscalapi client's stamps calls (transferStamps, getList, getById) against a
// running timbra server (stamps_setup_test.go starts it and makes the tenant): the credit
// movements with the people and the balances after each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const client = FiscalapiClient.create({
  apiUrl: process.env.TIMBRA_BASE_URL, tenant: process.env.TIMBRA_STAMPS_TENANT_KEY, apiKey: process.env.TIMBRA_STAMPS_API_KEY,
});
const ownerId = process.env.TIMBRA_STAMPS_OWNER_ID;
const branchId = process.env.TIMBRA_STAMPS_BRANCH_ID;

test('stamps: the allotment, a transfer, getList and getById', async () => {
  let res = await client.stamps.getList(1, 10);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 3);
  assert.deepEqual(res.data.items.map((t) => [t.consecutive, t.transactionType, t.creditType, t.amount]),
    [[1, 1, 1, 1000], [2, 1, 2, 1000], [3, 1, 3, 1000]]);
  assert.equal(res.data.items[0].fromPerson, null);
  assert.equal(res.data.items[0].toPerson.id, ownerId);

  res = await client.stamps.transferStamps({ fromPersonId: ownerId, toPersonId: branchId, amount: 25, comments: 'Sucursal norte' });
  assert.equal(res.succeeded, true, JSON.stringify(res));

  res = await client.stamps.getList(1, 10);
  assert.equal(res.data.totalCount, 4);
  const moved = res.data.items[3];
  assert.equal(moved.consecutive, 4);
  assert.equal(moved.transactionType, 2);
  assert.equal(moved.transactionStatus, 1);
  assert.equal(moved.creditType, 1);
  assert.equal(moved.amount, 25);
  assert.equal(moved.comments, 'Sucursal norte');
  assert.equal(moved.fromPerson.id, ownerId);
  assert.deepEqual({ ...moved.toPerson }, { id: branchId, tin: 'BRA010101AAA', legalName: 'Sucursal' });
  assert.equal(moved.fromBalance, 975);
  assert.equal(moved.toBalance, 25);

  res = await client.stamps.getById(moved.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, moved.id);
  assert.equal(res.data.amount, 25);

  res = await client.stamps.getById('nope');
  assert.equal(res.httpStatusCode, 404, JSON.stringify(res));
});
