// The official fiscalapi client downloads the PDF of a stamped invoice (invoices.getPdf, POST
// /api/v4/invoices/pdf) from a timbra server; testscripts/compat/pdf_test.go starts the server and then reads
// the PDF this test writes to TIMBRA_PDF_OUT with pdftotext.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { FiscalapiClient } from 'fiscalapi';

const env = process.env;
const skip = env.TIMBRA_INV_SKIP || !env.TIMBRA_PDF_OUT;
const client = FiscalapiClient.create({ apiUrl: env.TIMBRA_BASE_URL, tenant: env.TIMBRA_INV_TENANT_KEY, apiKey: env.TIMBRA_INV_API_KEY });

// A 1×1 PNG.
const logo = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

test('invoices.getPdf: the PDF of a stamped invoice, with band, font colour and logo', { skip }, async () => {
  let res = await client.invoices.create({
    versionCode: '4.0', series: 'PDF', currencyCode: 'MXN', typeCode: 'I', expeditionZipCode: '42501',
    paymentFormCode: '01', paymentMethodCode: 'PUE', exportCode: '01',
    issuer: { id: env.TIMBRA_INV_ISSUER_ID }, recipient: { id: env.TIMBRA_INV_RECIPIENT_ID },
    globalInformation: { periodicityCode: '01', monthCode: '11', year: 2026 },
    items: [{ itemCode: '44121706', quantity: 2, unitOfMeasurementCode: 'H87', description: 'Cuaderno profesional', unitPrice: 500, taxObjectCode: '02',
      itemTaxes: [{ taxCode: '002', taxTypeCode: 'Tasa', taxRate: '0.160000', taxFlagCode: 'T' }] }],
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const inv = res.data;

  res = await client.invoices.getPdf({ invoiceId: inv.id, bandColor: '#8B0000', fontColor: '#FFFFFF', base64Logo: logo });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  const file = res.data;
  assert.equal(file.fileName, `${inv.uuid}.pdf`);
  assert.equal(file.fileExtension, 'pdf');
  const pdf = Buffer.from(file.base64File, 'base64');
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.equal(file.base64Content, file.base64File);
  writeFileSync(env.TIMBRA_PDF_OUT, pdf);
  console.log(`uuid ${inv.uuid}`);

  // a bad colour: one 400 naming BandColor
  res = await client.invoices.getPdf({ invoiceId: inv.id, bandColor: 'azul' });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(JSON.parse(res.details)[0].propertyName, 'BandColor');

  // an unknown invoice
  res = await client.invoices.getPdf({ invoiceId: '0193a4c2-7d1e-7c3a-9f10-2b6e8d4c1a77' });
  assert.equal(res.httpStatusCode, 404, JSON.stringify(res));
});
