// The official fiscalapi client's downloadRequests calls against a running timbra server whose
// download worker talks to a local SAT (compat_test.go starts both; downloadrequests_setup_test.go
// makes the tenant, whose owner has SAT's test e.firma): create, getById until the request is
// finished, getList, getXmls, getMetadataItems, downloadPackage, downloadSatRequest,
// downloadSatResponse, delete, update (nothing changes), search and searchByDate; a request by
// UUID (timbra's uuid field) and one of withholding CFDIs (Retenciones).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { FiscalapiClient } from 'fiscalapi';
import { DateTime } from 'luxon';

const client = FiscalapiClient.create({
  apiUrl: process.env.TIMBRA_BASE_URL, tenant: process.env.TIMBRA_DL_TENANT_KEY, apiKey: process.env.TIMBRA_DL_API_KEY,
});
const mx = { zone: 'America/Mexico_City' };

async function finished(id) {
  const deadline = Date.now() + 20000;
  const seen = [];
  for (;;) {
    const res = await client.downloadRequests.getById(id, true);
    assert.equal(res.succeeded, true, JSON.stringify(res));
    if (seen.at(-1) !== res.data.downloadRequestStatusId) seen.push(res.data.downloadRequestStatusId);
    if (['Completed', 'Failed'].includes(res.data.downloadRequestStatusId)) return { request: res.data, seen };
    assert.ok(Date.now() < deadline, `request ${id} not finished: ${JSON.stringify(res.data)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('downloadRequests: the CFDIs issued in January, from create to the package', async () => {
  let res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Emitidos', satQueryTypeId: 'CFDI',
    satInvoiceStatusId: 'Vigente',
    startDate: DateTime.fromISO('2024-01-01T00:00:00', mx), endDate: DateTime.fromISO('2024-01-31T23:59:59', mx),
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const made = res.data;
  assert.match(made.id, /^[0-9a-f-]{36}$/);
  assert.equal(made.downloadRequestStatusId, 'Pending');
  assert.equal(made.issuerTin, 'EKU9003173C9');
  assert.equal(made.startDate, '2024-01-01T00:00:00');
  assert.equal(made.endDate, '2024-01-31T23:59:59');

  // before it finishes there are no packages
  res = await client.downloadRequests.downloadPackage(made.id);
  if (res.succeeded === false) assert.equal(res.httpStatusCode, 400, JSON.stringify(res));

  const { request, seen } = await finished(made.id);
  assert.equal(request.downloadRequestStatusId, 'Completed', JSON.stringify(request));
  assert.ok(seen.includes('InProgress'), `statuses seen: ${seen}`);
  assert.equal(request.invoiceCount, 2);
  assert.equal(request.isReadyToDownload, true);
  assert.equal(request.packageIds.length, 1);
  assert.equal(request.satRequestStatusId, '3');
  assert.equal(request.satRequestStatus.description, 'Terminada');
  assert.equal(request.downloadRequestStatus.id, 'Completed');
  assert.match(request.satRequestId, /^[0-9a-f-]{36}$/i);

  res = await client.downloadRequests.getList(1, 10);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  assert.equal(res.data.items[0].id, made.id);

  res = await client.downloadRequests.getXmls(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 2);
  const xml = res.data.items.find((x) => x.invoiceUuid === '11111111-1111-4111-8111-111111111111');
  assert.ok(xml, JSON.stringify(res.data.items.map((x) => x.invoiceUuid)));
  assert.equal(xml.downloadRequestId, made.id);
  assert.equal(xml.downloadPackageId, request.packageIds[0]);
  assert.equal(xml.xmlIssuer.tin, 'EKU9003173C9');
  assert.equal(xml.xmlRecipient.tin, 'AAA010101AAA');
  assert.equal(xml.total, 116);
  // the whole Xml: its item with the item's tax, the total tax, the stamp as a complement, ids that agree
  assert.equal(xml.xmlItems.length, 1, JSON.stringify(xml.xmlItems));
  const [item] = xml.xmlItems;
  assert.equal(item.xmlId, xml.id);
  assert.equal(item.itemCode, '84111506');
  assert.equal(item.unitPrice, 100);
  assert.deepEqual(item.taxes.map((t) => [t.tax, t.taxType, t.rate, t.amount, t.taxFlag, t.xmlItemId]), [['002', 'Tasa', 0.16, 16, 'T', item.id]]);
  assert.deepEqual(xml.taxes.map((t) => [t.base, t.amount, t.taxFlag, t.xmlId]), [[100, 16, 'T', xml.id]]);
  assert.deepEqual(xml.xmlComplements.map((c) => c.complementName), ['TimbreFiscalDigital']);
  assert.match(Buffer.from(xml.xmlComplements[0].base64ComplementValue, 'base64').toString(), /^<tfd:TimbreFiscalDigital .*\/>$/);
  assert.match(Buffer.from(xml.base64Content, 'base64').toString(), /UUID="11111111-1111-4111-8111-111111111111"/);

  res = await client.downloadRequests.downloadPackage(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.length, 1);
  assert.equal(res.data[0].fileExtension, 'zip');
  assert.equal(res.data[0].fileName, `${request.packageIds[0]}.zip`);
  const zip = Buffer.from(res.data[0].base64File, 'base64');
  assert.equal(zip.subarray(0, 2).toString(), 'PK');

  res = await client.downloadRequests.downloadSatRequest(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.match(Buffer.from(res.data.base64File, 'base64').toString(), /SolicitaDescargaEmitidos/);
  res = await client.downloadRequests.downloadSatResponse(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.fileExtension, 'xml');
});

test('downloadRequests: the metadata received in January, then a delete', async () => {
  let res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Recibidos', satQueryTypeId: 'Metadata',
    startDate: DateTime.fromISO('2024-01-01T00:00:00', mx), endDate: DateTime.fromISO('2024-02-01T00:00:00', mx),
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const made = res.data;
  assert.equal(made.recipientTin, 'EKU9003173C9');
  const { request } = await finished(made.id);
  assert.equal(request.downloadRequestStatusId, 'Completed', JSON.stringify(request));
  assert.equal(request.invoiceCount, 1);

  res = await client.downloadRequests.getMetadataItems(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  const m = res.data.items[0];
  assert.equal(m.invoiceUuid, '33333333-3333-4333-8333-333333333333');
  assert.equal(m.issuerTin, 'AAA010101AAA');
  assert.equal(m.recipientTin, 'EKU9003173C9');
  assert.equal(m.amount, 116);
  assert.equal(m.status, 1);
  assert.equal(m.invoiceDate, '2024-01-21T00:00:00');
  assert.equal(m.downloadRequestId, made.id);

  res = await client.downloadRequests.downloadPackage(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.length, 1);

  res = await client.downloadRequests.delete(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  res = await client.downloadRequests.getById(made.id);
  assert.equal(res.httpStatusCode, 404, JSON.stringify(res));
});

test('downloadRequests: what a create refuses', async () => {
  const res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Recibidos', satQueryTypeId: 'CFDI',
    startDate: DateTime.fromISO('2024-01-01T00:00:00', mx), endDate: DateTime.fromISO('2024-02-01T00:00:00', mx),
  });
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(JSON.parse(res.details)[0].propertyName, 'SatInvoiceStatusId');
});

test('downloadRequests: update changes nothing, search and searchByDate find by day and fields', async () => {
  let res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Emitidos', satQueryTypeId: 'Metadata',
    startDate: DateTime.fromISO('2024-01-01T00:00:00', mx), endDate: DateTime.fromISO('2024-02-01T00:00:00', mx),
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const made = res.data;

  // the request as read is accepted and answered unchanged; a changed SAT parameter is refused by name
  res = await client.downloadRequests.update(made);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.id, made.id);
  assert.equal(res.data.satQueryTypeId, 'Metadata');
  assert.equal(res.data.startDate, '2024-01-01T00:00:00');
  res = await client.downloadRequests.update({ ...made, satQueryTypeId: 'CFDI' });
  assert.equal(res.succeeded, false);
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(JSON.parse(res.details)[0].propertyName, 'SatQueryTypeId');

  // searchByDate: every request created today (the first test's and this one), paged
  res = await client.downloadRequests.searchByDate(new Date());
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 2, JSON.stringify(res.data));
  assert.equal(res.data.items.at(-1).id, made.id);
  res = await client.downloadRequests.searchByDate(new Date('2001-01-01T12:00:00Z'));
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 0);

  // search: the same path with field filters and the page
  const today = new Date().toISOString().split('T')[0];
  res = await client.downloadRequests.search({ createdAt: today, satQueryTypeId: 'Metadata', PageNumber: '1', PageSize: '1' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  assert.equal(res.data.items[0].id, made.id);
  res = await client.downloadRequests.search({ downloadRequestStatusId: 'Completed' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  assert.notEqual(res.data.items[0].id, made.id);
  res = await client.downloadRequests.search({ createdAt: 'yesterday' });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(JSON.parse(res.details)[0].propertyName, 'CreatedAt');
});

// after the search test, whose counts of today's requests it would change
test('downloadRequests: one CFDI by its UUID (downloadTypeId Uuid and timbra\'s uuid field)', async () => {
  let res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Uuid', satQueryTypeId: 'CFDI',
    uuid: '33333333-3333-4333-8333-333333333333',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const made = res.data;
  assert.equal(made.uuid, '33333333-3333-4333-8333-333333333333');
  assert.equal(made.downloadType.id, 'Uuid');
  assert.equal(made.startDate, '');

  // the model as read goes back through update unchanged
  res = await client.downloadRequests.update(made);
  assert.equal(res.succeeded, true, JSON.stringify(res));

  const { request } = await finished(made.id);
  assert.equal(request.downloadRequestStatusId, 'Completed', JSON.stringify(request));
  assert.equal(request.invoiceCount, 1);
  res = await client.downloadRequests.getXmls(made.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  assert.equal(res.data.items[0].invoiceUuid, '33333333-3333-4333-8333-333333333333');
  res = await client.downloadRequests.downloadSatRequest(made.id);
  assert.match(Buffer.from(res.data.base64File, 'base64').toString(), /SolicitaDescargaFolio/);

  // a malformed UUID, and dates with one, are refused by name
  res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Uuid', satQueryTypeId: 'CFDI', uuid: '3333',
    startDate: DateTime.fromISO('2024-01-01T00:00:00', mx),
  });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  const props = JSON.parse(res.details).map((f) => f.propertyName).sort();
  assert.deepEqual(props, ['StartDate', 'Uuid']);
});

test('downloadRequests: the withholding CFDIs issued in January (satQueryTypeId Retenciones)', async () => {
  let res = await client.downloadRequests.create({
    downloadRequestTypeId: 'Manual', requesterTin: 'EKU9003173C9', downloadTypeId: 'Emitidos', satQueryTypeId: 'Retenciones',
    startDate: DateTime.fromISO('2024-01-01T00:00:00', mx), endDate: DateTime.fromISO('2024-02-01T00:00:00', mx),
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const { request } = await finished(res.data.id);
  assert.equal(request.downloadRequestStatusId, 'Completed', JSON.stringify(request));
  assert.equal(request.invoiceCount, 1);
  res = await client.downloadRequests.getXmls(request.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 1);
  const x = res.data.items[0];
  assert.equal(x.invoiceUuid, 'AAAAAAAA-1111-4111-8111-111111111111');
  assert.equal(x.version, '2.0');
  assert.equal(x.date, '2024-01-10T12:00:00');
  assert.equal(x.xmlIssuer.tin, 'EKU9003173C9');
  assert.equal(x.xmlRecipient.tin, 'AAA010101AAA');
  assert.equal(x.total, 1000);
  assert.equal(x.totalWithheldTaxes, 100);
  assert.match(Buffer.from(x.base64Content, 'base64').toString(), /retenciones:Retenciones/);
});
