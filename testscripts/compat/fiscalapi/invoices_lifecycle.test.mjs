// The official fiscalapi client lists (invoices.getList), gets (getById), downloads the XML of
// (getXml), asks the status of (getStatus) and cancels (cancel) invoices that the Go test
// (testscripts/compat/lifecycle_test.go) stamped 30 hours earlier: a small one (total ≤ 1,000 MXN), cancelled
// at once, and one over 1,000 MXN, which needs the recipient's acceptance; the recipient then
// rejects it through timbra's cancellation-answer endpoint (not in the client).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { FiscalapiClient } from 'fiscalapi';

const env = process.env;
const skip = env.TIMBRA_INV_SKIP || false;
const client = FiscalapiClient.create({ apiUrl: env.TIMBRA_BASE_URL, tenant: env.TIMBRA_INV_TENANT_KEY, apiKey: env.TIMBRA_INV_API_KEY });
const ok = (res) => {
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.httpStatusCode, 200);
  return res.data;
};

test('invoices: list, get and XML', { skip }, async () => {
  const page = ok(await client.invoices.getList(1, 10));
  const ids = page.items.map((i) => i.id);
  assert.ok(ids.includes(env.TIMBRA_LC_SMALL) && ids.includes(env.TIMBRA_LC_BIG), JSON.stringify(ids));
  assert.equal(page.pageNumber, 1);

  const inv = ok(await client.invoices.getById(env.TIMBRA_LC_SMALL));
  assert.equal(inv.uuid, env.TIMBRA_LC_SMALL_UUID);
  assert.equal(inv.status, 'Vigente');
  assert.equal(inv.responses.length, 1);
  assert.equal(inv.total, 116);

  const file = ok(await client.invoices.getXml(env.TIMBRA_LC_SMALL));
  // fileName is the whole name: the client's own samples save the file under fileName alone.
  assert.equal(file.fileName, `${env.TIMBRA_LC_SMALL_UUID}.xml`);
  assert.equal(file.fileExtension, 'xml');
  assert.equal(path.extname(file.fileName), `.${file.fileExtension}`);
  assert.equal(Buffer.from(file.base64File, 'base64').toString('base64'), file.base64File);
  assert.equal(file.base64File, inv.responses[0].invoiceBase64);
  assert.ok(Buffer.from(file.base64File, 'base64').toString('utf8').includes(`UUID="${inv.uuid}"`));

  const missing = await client.invoices.getById('00000000-0000-0000-0000-000000000000');
  assert.equal(missing.httpStatusCode, 404, JSON.stringify(missing));
});

test('invoices: status and cancel (immediate, needs acceptance, rejected)', { skip }, async () => {
  let st = ok(await client.invoices.getStatus({ id: env.TIMBRA_LC_SMALL }));
  assert.equal(st.status, 'Vigente');
  assert.equal(st.cancelableStatus, 'Cancelable sin aceptación');
  st = ok(await client.invoices.getStatus({ id: env.TIMBRA_LC_BIG }));
  assert.equal(st.cancelableStatus, 'Cancelable con aceptación');

  // a reason outside c_MotivosCancelacion, and 01 without the replacement
  let bad = await client.invoices.cancel({ id: env.TIMBRA_LC_SMALL, cancellationReasonCode: '09' });
  assert.equal(bad.httpStatusCode, 400, JSON.stringify(bad));
  assert.ok(JSON.parse(bad.details).some((f) => f.propertyName === 'CancellationReasonCode'), bad.details);
  bad = await client.invoices.cancel({ id: env.TIMBRA_LC_SMALL, cancellationReasonCode: '01' });
  assert.equal(bad.httpStatusCode, 400, JSON.stringify(bad));
  assert.ok(JSON.parse(bad.details).some((f) => f.propertyName === 'ReplacementUuid'), bad.details);

  // small: cancelled at once; again: 202
  let ack = ok(await client.invoices.cancel({ id: env.TIMBRA_LC_SMALL, cancellationReasonCode: '02' }));
  assert.equal(ack.invoiceUuids[env.TIMBRA_LC_SMALL_UUID], '201');
  const acuse = Buffer.from(ack.base64CancellationAcknowledgement, 'base64').toString('utf8');
  assert.ok(acuse.includes(`<UUID>${env.TIMBRA_LC_SMALL_UUID}</UUID>`), acuse);
  ack = ok(await client.invoices.cancel({ id: env.TIMBRA_LC_SMALL, cancellationReasonCode: '02' }));
  assert.equal(ack.invoiceUuids[env.TIMBRA_LC_SMALL_UUID], '202');
  st = ok(await client.invoices.getStatus({ id: env.TIMBRA_LC_SMALL }));
  assert.equal(st.status, 'Cancelado');
  assert.equal(st.cancellationStatus, 'Cancelado sin aceptación');
  assert.equal(ok(await client.invoices.getById(env.TIMBRA_LC_SMALL)).status, 'Cancelado');

  // big, by UUID with the issuer's CSD: waits for the recipient
  const taxCredentials = [
    { base64File: env.TIMBRA_INV_CER, fileType: 0, password: env.TIMBRA_INV_PASSWORD },
    { base64File: env.TIMBRA_INV_KEY, fileType: 1, password: env.TIMBRA_INV_PASSWORD },
  ];
  ack = ok(await client.invoices.cancel({ invoiceUuid: env.TIMBRA_LC_BIG_UUID, tin: 'EKU9003173C9', cancellationReasonCode: '03', taxCredentials }));
  assert.equal(ack.invoiceUuids[env.TIMBRA_LC_BIG_UUID], '201');
  st = ok(await client.invoices.getStatus({ id: env.TIMBRA_LC_BIG }));
  assert.equal(st.status, 'Vigente');
  assert.equal(st.cancellationStatus, 'En proceso');
  assert.equal(ok(await client.invoices.getById(env.TIMBRA_LC_BIG)).status, 'EnProcesoDeCancelacion');

  // the recipient rejects (timbra's endpoint, outside the client)
  const res = await fetch(`${env.TIMBRA_BASE_URL}/api/v4/invoices/${env.TIMBRA_LC_BIG}/cancellation-answer`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-TENANT-KEY': env.TIMBRA_INV_TENANT_KEY, 'X-API-KEY': env.TIMBRA_INV_API_KEY },
    body: JSON.stringify({ accept: false }),
  });
  assert.equal(res.status, 200);
  st = ok(await client.invoices.getStatus({ id: env.TIMBRA_LC_BIG }));
  assert.equal(st.status, 'Vigente');
  assert.equal(st.cancellationStatus, 'Solicitud rechazada');
});
