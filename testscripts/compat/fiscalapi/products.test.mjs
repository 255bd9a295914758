// The official fiscalapi client's product calls (products.create, getById, getList, update,
// delete) against a running timbra server with the small catalog source (compat_test.go starts
// it): the paths, methods and bodies the client sends, and the fields it reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const settings = {
  apiUrl: process.env.TIMBRA_BASE_URL,
  tenant: process.env.TIMBRA_TENANT_KEY,
  apiKey: process.env.TIMBRA_API_KEY,
};
// a second tenant (made for the credentials tests), which must see none of this tenant's products
const otherTenant = {
  apiUrl: process.env.TIMBRA_BASE_URL,
  tenant: process.env.TIMBRA_CREDS_TENANT_KEY,
  apiKey: process.env.TIMBRA_CREDS_API_KEY,
};

const catalog = (rec) => rec && { id: rec.id, description: rec.description };

test('products: create, get, list, update, delete', async () => {
  const client = FiscalapiClient.create(settings);

  // the product as the client's model writes it
  let res = await client.products.create({
    description: 'Lápiz de madera HB',
    unitPrice: 12.5,
    satUnitMeasurementId: 'H87',
    satTaxObjectId: '02',
    satProductCodeId: '44121706',
    productTaxes: [
      { rate: 0.16, taxId: '002', taxFlagId: 'T', taxTypeId: 'Tasa' },
      { rate: 0.1, taxId: '001', taxFlagId: 'R', taxTypeId: 'Tasa' },
    ],
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  const made = res.data;
  assert.match(made.id, /^[0-9a-f-]{36}$/);
  assert.equal(made.description, 'Lápiz de madera HB');
  assert.equal(made.unitPrice, 12.5);
  assert.deepEqual(catalog(made.satUnitMeasurement), { id: 'H87', description: 'Pieza' });
  assert.deepEqual(catalog(made.satTaxObject), { id: '02', description: 'Sí objeto de impuesto.' });
  assert.deepEqual(catalog(made.satProductCode), { id: '44121706', description: 'Lápices de madera' });
  assert.equal(made.productTaxes.length, 2);
  const [iva, isr] = made.productTaxes;
  assert.equal(iva.productId, made.id);
  assert.equal(iva.rate, 0.16);
  assert.deepEqual(catalog(iva.tax), { id: '002', description: 'IVA' });
  assert.deepEqual(catalog(iva.taxType), { id: 'Tasa', description: 'Tasa' });
  assert.deepEqual(catalog(iva.taxFlag), { id: 'T', description: 'Traslado' });
  assert.equal(isr.rate, 0.1);
  assert.deepEqual(catalog(isr.taxFlag), { id: 'R', description: 'Retención' });
  assert.match(made.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
  assert.equal(made.updatedAt, made.createdAt);

  // the defaults the client's model documents: H87, 02, 01010101, IVA 16%
  res = await client.products.create({ description: 'Servicio', unitPrice: 100 });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const defaults = res.data;
  assert.equal(defaults.satUnitMeasurementId, 'H87');
  assert.equal(defaults.satTaxObjectId, '02');
  assert.equal(defaults.satProductCodeId, '01010101');
  assert.deepEqual(defaults.productTaxes.map((t) => [t.taxId, t.taxTypeId, t.rate, t.taxFlagId]), [['002', 'Tasa', 0.16, 'T']]);

  res = await client.products.getById(made.id, true);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, made.id);
  assert.equal(res.data.unitPrice, 12.5);
  assert.deepEqual(catalog(res.data.satProductCode), { id: '44121706', description: 'Lápices de madera' });
  assert.equal(res.data.productTaxes.length, 2);

  res = await client.products.getList(1, 1);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 2);
  assert.equal(res.data.totalPages, 2);
  assert.equal(res.data.hasNextPage, true);
  assert.deepEqual(res.data.items.map((p) => p.id), [made.id]);
  res = await client.products.getList(2, 1);
  assert.deepEqual(res.data.items.map((p) => p.id), [defaults.id]);
  assert.equal(res.data.items[0].satUnitMeasurement.description, 'Pieza');

  // update sends the whole model with its id in the path
  res = await client.products.update({
    ...made,
    description: 'Lápiz de colores',
    unitPrice: 15.75,
    satProductCodeId: '44121707',
    productTaxes: [{ rate: 0, taxId: '002', taxFlagId: 'T', taxTypeId: 'Exento' }],
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, made.id);
  assert.equal(res.data.description, 'Lápiz de colores');
  assert.equal(res.data.unitPrice, 15.75);
  assert.deepEqual(catalog(res.data.satProductCode), { id: '44121707', description: 'Lápices de colores' });
  assert.deepEqual(res.data.productTaxes.map((t) => [t.taxId, t.taxTypeId, t.rate, t.taxFlagId]), [['002', 'Exento', null, 'T']]);
  assert.equal(res.data.createdAt, made.createdAt);

  // the rules through the client: the failures per field in the API's naming, all in one 400
  res = await client.products.create({
    description: '',
    unitPrice: -1,
    satUnitMeasurementId: 'ZZZ',
    productTaxes: [{ rate: 0.15, taxId: '002', taxFlagId: 'T', taxTypeId: 'Tasa' }],
  });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  const failures = JSON.parse(res.details);
  const byProp = Object.fromEntries(failures.map((f) => [f.propertyName, f.errorMessage]));
  assert.equal(byProp.Description, "'Description' no debería estar vacío.");
  assert.equal(byProp.UnitPrice, 'El precio unitario debe ser mayor o igual a 0.');
  assert.equal(byProp.SatUnitMeasurementId, "La clave de unidad 'ZZZ' no existe en el catálogo c_ClaveUnidad del SAT.");
  assert.equal(byProp['ProductTaxes[0].Rate'],
    "La tasa o cuota '0.150000' no existe en el catálogo c_TasaOCuota del SAT para IVA Tasa trasladado: usa 0.000000, 0.080000 o 0.160000.");
  assert.equal(res.message, failures[0].errorMessage);

  // another tenant sees none of it
  const other = FiscalapiClient.create(otherTenant);
  res = await other.products.getById(made.id);
  assert.equal(res.httpStatusCode, 404, JSON.stringify(res));
  assert.equal(JSON.parse(res.details).details, `No such resource for the given Id: ${made.id}`);
  res = await other.products.delete(made.id);
  assert.equal(res.httpStatusCode, 404);
  res = await other.products.getList(1, 50);
  assert.equal(res.data.totalCount, 0);

  res = await client.products.delete(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  res = await client.products.getById(made.id);
  assert.equal(res.httpStatusCode, 404);
  assert.equal(JSON.parse(res.details).details, `No such resource for the given Id: ${made.id}`);
  res = await client.products.getList(1, 50);
  assert.deepEqual(res.data.items.map((p) => p.id), [defaults.id]);
});
