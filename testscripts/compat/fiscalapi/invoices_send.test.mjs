// The official fiscalapi client sends invoices by e-mail (invoices.send, POST
// /api/v4/invoices/send) against a timbra server whose mail goes to an SMTP sink in the Go test
// (testscripts/compat/send_test.go), which then checks the messages the sink received.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const env = process.env;
const skip = env.TIMBRA_INV_SKIP || !env.TIMBRA_SEND_SINK;
const client = FiscalapiClient.create({ apiUrl: env.TIMBRA_BASE_URL, tenant: env.TIMBRA_INV_TENANT_KEY, apiKey: env.TIMBRA_INV_API_KEY });

test('invoices.send: by value to toEmail, by reference to the recipient person', { skip }, async () => {
  let res = await client.invoices.create({
    versionCode: '4.0', series: 'S', currencyCode: 'MXN', typeCode: 'I', expeditionZipCode: '42501',
    paymentFormCode: '01', paymentMethodCode: 'PUE', exportCode: '01',
    issuer: {
      tin: 'EKU9003173C9', legalName: 'ESCUELA KEMPER URGATE', taxRegimeCode: '601',
      taxCredentials: [
        { base64File: env.TIMBRA_INV_CER, fileType: 0, password: env.TIMBRA_INV_PASSWORD },
        { base64File: env.TIMBRA_INV_KEY, fileType: 1, password: env.TIMBRA_INV_PASSWORD },
      ],
    },
    recipient: { tin: 'EKU9003173C9', legalName: 'ESCUELA KEMPER URGATE', zipCode: '42501', taxRegimeCode: '601', cfdiUseCode: 'G01' },
    items: [{ itemCode: '44121706', quantity: 1, unitOfMeasurementCode: 'H87', description: 'Lápiz', unitPrice: 10, taxObjectCode: '01' }],
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const byValue = res.data;

  res = await client.invoices.send({ invoiceId: byValue.id, toEmail: 'cliente@example.com', bandColor: '#1F4E79', fontColor: '#FFFFFF' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  assert.equal(res.data, true);

  // no toEmail and no recipient e-mail stored: 400 on ToEmail
  res = await client.invoices.send({ invoiceId: byValue.id });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(JSON.parse(res.details)[0].propertyName, 'ToEmail');

  // not an address
  res = await client.invoices.send({ invoiceId: byValue.id, toEmail: 'no es un correo' });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  const f = JSON.parse(res.details)[0];
  assert.equal(f.propertyName, 'ToEmail');
  assert.equal(f.errorCode, 'EmailValidator');

  // an unknown invoice
  res = await client.invoices.send({ invoiceId: '0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77', toEmail: 'cliente@example.com' });
  assert.equal(res.httpStatusCode, 404, JSON.stringify(res));

  // by reference: the recipient person's e-mail
  res = await client.invoices.create({
    versionCode: '4.0', currencyCode: 'MXN', typeCode: 'I', expeditionZipCode: '42501', paymentFormCode: '03', paymentMethodCode: 'PUE', exportCode: '01',
    issuer: { id: env.TIMBRA_INV_ISSUER_ID }, recipient: { id: env.TIMBRA_INV_RECIPIENT_ID },
    globalInformation: { periodicityCode: '01', monthCode: '11', year: 2026 },
    items: [{ itemCode: '44121706', quantity: 1, unitOfMeasurementCode: 'H87', description: 'Cuaderno', unitPrice: 20, taxObjectCode: '01' }],
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  res = await client.invoices.send({ invoiceId: res.data.id });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
});
