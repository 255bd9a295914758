// The official fiscalapi client's downloadRules calls (create, getById, getList, update, delete)
// against a running timbra server (compat_test.go starts it; downloadrules_setup_test.go makes
// the tenant): the paths, methods and bodies the client sends, and the fields it reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const base = { apiUrl: process.env.TIMBRA_BASE_URL, tenant: process.env.TIMBRA_RULES_TENANT_KEY };
const owner = FiscalapiClient.create({ ...base, apiKey: process.env.TIMBRA_RULES_OWNER_KEY });
const ana = FiscalapiClient.create({ ...base, apiKey: process.env.TIMBRA_RULES_PERSON_KEY });
const personId = process.env.TIMBRA_RULES_PERSON_ID;
const ownerId = process.env.TIMBRA_RULES_OWNER_ID;
const catalog = (rec) => rec && { id: rec.id, description: rec.description };

test('downloadRules: create, get, list, update, delete', async () => {
  let res = await ana.downloadRules.create({
    personId, description: 'Emitidos de Ana', satQueryTypeId: 'CFDI', downloadTypeId: 'Emitidos', satInvoiceStatusId: 'Vigente',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const made = res.data;
  assert.match(made.id, /^[0-9a-f-]{36}$/);
  assert.equal(made.tin, 'ANA010101AAA');
  assert.equal(made.downloadRuleStatusId, '1');
  assert.equal(made.isTest, true);
  assert.equal(made.person, null);
  assert.equal(made.downloadRuleStatus, null);
  assert.equal(made.satQueryType, null);

  res = await owner.downloadRules.getById(made.id, true);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.person.id, personId);
  assert.deepEqual(catalog(res.data.downloadRuleStatus), { id: '1', description: 'Pendiente' });
  assert.deepEqual(catalog(res.data.satQueryType), { id: 'CFDI', description: 'CFDI' });
  assert.deepEqual(catalog(res.data.downloadType), { id: 'Emitidos', description: 'Emitidos' });
  assert.deepEqual(catalog(res.data.satInvoiceStatus), { id: 'Vigente', description: 'Vigente' });

  res = await ana.downloadRules.getList(1, 10);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  assert.deepEqual(res.data.items.map((r) => r.id), [made.id]);
  assert.equal(res.data.items[0].person.id, personId);

  // the client's update sends the whole model it holds; only the description changes
  res = await ana.downloadRules.update({ ...made, description: 'Emitidos 2026', satQueryTypeId: 'Metadata' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.description, 'Emitidos 2026');
  assert.equal(res.data.satQueryTypeId, 'CFDI');
  assert.equal(res.data.person, null);

  // Cancelado only with Metadata
  res = await ana.downloadRules.create({
    personId, description: 'x', satQueryTypeId: 'CFDI', downloadTypeId: 'Recibidos', satInvoiceStatusId: 'Cancelado',
  });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(res.message, "El estado de factura 'Cancelado' solo se admite con el tipo de consulta 'Metadata': el SAT descarga los CFDI cancelados solo como metadatos.");
  assert.equal(JSON.parse(res.details)[0].propertyName, 'SatInvoiceStatusId');

  // the owner's rules only by the owner
  res = await ana.downloadRules.create({
    personId: ownerId, description: 'x', satQueryTypeId: 'CFDI', downloadTypeId: 'Emitidos', satInvoiceStatusId: 'Vigente',
  });
  assert.equal(res.httpStatusCode, 403, JSON.stringify(res));
  assert.equal(JSON.parse(res.details).details, 'Solo el propietario de la cuenta puede modificar al propietario de la cuenta.');
  res = await owner.downloadRules.create({
    personId: ownerId, description: 'Del dueño', satQueryTypeId: 'Metadata', downloadTypeId: 'Recibidos', satInvoiceStatusId: 'Cancelado',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const ownerRule = res.data;
  res = await ana.downloadRules.delete(ownerRule.id);
  assert.equal(res.httpStatusCode, 403, JSON.stringify(res));

  res = await ana.downloadRules.delete(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  res = await ana.downloadRules.getById(made.id);
  assert.equal(res.httpStatusCode, 404);
  assert.equal(JSON.parse(res.details).details, `No such resource for the given Id: ${made.id}`);
});
