// The official fiscalapi client's catalog calls against a running timbra server that imported
// the small catalog source of the catalogs package's tests (compat_test.go does).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const settings = {
  apiUrl: process.env.TIMBRA_BASE_URL,
  tenant: process.env.TIMBRA_TENANT_KEY,
  apiKey: process.env.TIMBRA_API_KEY,
};

test('catalogs.getRecordById reads a SAT record', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.catalogs.getRecordById('SatTaxRegimes', '626');
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, '626');
  assert.equal(res.data.description, 'Régimen Simplificado de Confianza');
});

test('catalogs.getRecordById of an absent id and of a wrong-case name answer 404', async () => {
  const client = FiscalapiClient.create(settings);
  let res = await client.catalogs.getRecordById('SatTaxRegimes', '999');
  assert.equal(res.httpStatusCode, 404);
  // on an error the client keeps the whole answer in details
  assert.match(res.details, /"details":"No such resource for the given Id: 999"/);
  res = await client.catalogs.getRecordById('satTaxRegimes', '626');
  assert.equal(res.httpStatusCode, 404);
  assert.match(res.details, /"details":"No existe el catálogo 'satTaxRegimes'\."/);
});

test('catalogs.searchCatalog pages the matches, best first', async () => {
  const client = FiscalapiClient.create(settings);
  const res = await client.catalogs.searchCatalog('SatProductCodes', 'lápiz', 1, 2);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalItems, 3);
  assert.equal(res.data.pageSize, 2);
  assert.equal(res.data.hasNextPage, true);
  assert.deepEqual(res.data.items.map((r) => r.id), ['27112309', '44121706']);
});

test('downloadCatalogs.getList and listCatalog', async () => {
  const client = FiscalapiClient.create(settings);
  const names = await client.downloadCatalogs.getList();
  assert.equal(names.succeeded, true, JSON.stringify(names));
  assert.ok(names.data.includes('DownloadRuleStatuses'));
  const types = await client.downloadCatalogs.listCatalog('SatInvoiceTypes');
  assert.deepEqual(types.data.map((r) => r.id), ['', 'E', 'I', 'N', 'P', 'T']);
});
