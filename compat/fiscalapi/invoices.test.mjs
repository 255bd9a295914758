// The official fiscalapi client creates invoices (invoices.create, POST /api/v4/invoices) against
// a running timbra server: an income invoice by value with SAT's test CSD EKU9003173C9 in
// taxCredentials, and one by reference (issuer and recipient people, a product), in a tenant of
// their own that the Go test in compat/ makes. The test checks the fields the client's
// InvoiceResponse model reads and writes each stamped XML it got to TIMBRA_INV_OUT, where the Go
// test re-verifies it (cadenas against SAT's XSLT, Sello and SelloSAT).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FiscalapiClient } from 'fiscalapi';

const env = process.env;
const skip = env.TIMBRA_INV_SKIP || false;
const client = FiscalapiClient.create({ apiUrl: env.TIMBRA_BASE_URL, tenant: env.TIMBRA_INV_TENANT_KEY, apiKey: env.TIMBRA_INV_API_KEY });

const stamps = async () => {
  const res = await client.persons.getById(env.TIMBRA_INV_OWNER_ID);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  return res.data.availableBalance;
};

// the checks of a stamped answer; the XML goes to the Go side
const checkStamped = (res, name) => {
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  const inv = res.data;
  assert.match(inv.id, /^[0-9a-f-]{36}$/);
  assert.match(inv.uuid, /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/);
  assert.equal(inv.responses.length, 1);
  const r = inv.responses[0];
  assert.equal(r.invoiceId, inv.id);
  assert.equal(r.invoiceUuid, inv.uuid);
  assert.equal(r.invoiceCertificateNumber, '30001000000500003416');
  assert.match(r.satCertificateNumber, /^\d{20}$/);
  assert.match(r.invoiceBase64Sello, /^[A-Za-z0-9+/]+=*$/);
  assert.match(r.satBase64Sello, /^[A-Za-z0-9+/]+=*$/);
  const xml = Buffer.from(r.invoiceBase64, 'base64').toString('utf8');
  assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
  assert.ok(xml.includes(`UUID="${inv.uuid}"`), 'the XML carries the UUID');
  assert.ok(xml.includes(`Sello="${r.invoiceBase64Sello}"`), 'the XML carries the Sello');
  assert.ok(xml.includes(`SelloSAT="${r.satBase64Sello}"`), 'the XML carries the SelloSAT');
  const cadena = Buffer.from(r.satBase64OriginalString, 'base64').toString('utf8');
  assert.ok(cadena.startsWith(`||1.1|${inv.uuid}|`), cadena);
  assert.ok(xml.includes(`Total="${inv.total.toFixed(2)}"`), `Total ${inv.total} in the XML`);
  writeFileSync(join(env.TIMBRA_INV_OUT, name + '.xml'), xml);
  return inv;
};

test('invoices: income by value with taxCredentials', { skip }, async () => {
  const before = await stamps();
  const invoice = {
    versionCode: '4.0',
    series: 'F',
    currencyCode: 'MXN',
    typeCode: 'I',
    expeditionZipCode: '42501',
    paymentFormCode: '01',
    paymentMethodCode: 'PUE',
    exportCode: '01',
    issuer: {
      tin: 'EKU9003173C9',
      legalName: 'ESCUELA KEMPER URGATE',
      taxRegimeCode: '601',
      taxCredentials: [
        { base64File: env.TIMBRA_INV_CER, fileType: 0, password: env.TIMBRA_INV_PASSWORD },
        { base64File: env.TIMBRA_INV_KEY, fileType: 1, password: env.TIMBRA_INV_PASSWORD },
      ],
    },
    recipient: { tin: 'EKU9003173C9', legalName: 'ESCUELA KEMPER URGATE', zipCode: '42501', taxRegimeCode: '601', cfdiUseCode: 'G01', email: 'someone@example.com' },
    items: [
      {
        itemCode: '44121706',
        quantity: 2,
        unitOfMeasurementCode: 'H87',
        description: 'Lápiz de madera HB',
        unitPrice: 12.5,
        taxObjectCode: '02',
        itemSku: 'LAP-HB',
        discount: 1,
        itemTaxes: [{ taxCode: '002', taxTypeCode: 'Tasa', taxRate: '0.160000', taxFlagCode: 'T' }],
      },
    ],
  };
  const inv = checkStamped(await client.invoices.create(invoice), 'by-value');
  // 2 × 12.50 = 25.00 − 1.00 = 24.00; IVA 3.84
  assert.equal(inv.subtotal, 25);
  assert.equal(inv.discount, 1);
  assert.equal(inv.total, 27.84);
  assert.equal(inv.typeCode, 'I');
  assert.equal(inv.issuer.tin, 'EKU9003173C9');
  assert.equal(inv.issuer.taxCredentials, undefined);
  assert.equal(await stamps(), before - 1);

  // a wrong key password: 400, the failure's attemptedValue null, nothing echoed, no stamp used
  invoice.issuer.taxCredentials[1].password = 'not-the-password';
  const res = await client.invoices.create(invoice);
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  const failures = JSON.parse(res.details);
  const f = failures.find((x) => x.propertyName === 'Issuer.TaxCredentials[1].Password');
  assert.ok(f, JSON.stringify(failures));
  assert.equal(f.attemptedValue, null);
  assert.equal(f.errorCode, 'PrivateKeyPassword');
  assert.ok(!res.details.includes('not-the-password'));
  assert.equal(await stamps(), before - 1);
});

test('invoices: income by reference (people with tax files, a product)', { skip }, async () => {
  let res = await client.products.create({
    description: 'Cuaderno profesional',
    unitPrice: 45.5,
    satUnitMeasurementId: 'H87',
    satTaxObjectId: '02',
    satProductCodeId: '44121706',
    productTaxes: [{ rate: 0.16, taxId: '002', taxFlagId: 'T', taxTypeId: 'Tasa' }],
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const productId = res.data.id;
  res = await client.invoices.create({
    versionCode: '4.0',
    currencyCode: 'MXN',
    typeCode: 'I',
    expeditionZipCode: '42501',
    paymentFormCode: '03',
    paymentMethodCode: 'PUE',
    exportCode: '01',
    issuer: { id: env.TIMBRA_INV_ISSUER_ID },
    recipient: { id: env.TIMBRA_INV_RECIPIENT_ID },
    globalInformation: { periodicityCode: '01', monthCode: '11', year: 2026 },
    items: [{ id: productId, quantity: 3 }],
  });
  const inv = checkStamped(res, 'by-reference');
  // 3 × 45.50 = 136.50; IVA 21.84
  assert.equal(inv.total, 158.34);
  assert.equal(inv.issuer.id, env.TIMBRA_INV_ISSUER_ID);
  assert.equal(inv.recipient.tin, 'XAXX010101000');
  assert.equal(inv.items[0].id, productId);
  assert.equal(inv.items[0].description, 'Cuaderno profesional');
});
