// The official fiscalapi client's manifests.sign against a running timbra server
// (compat_test.go starts it; downloadrequests_setup_test.go makes the tenant, whose owner is
// EKU9003173C9): the carta manifiesto signed with SAT's test e.firma, and the person Signed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { FiscalapiClient } from 'fiscalapi';

const client = FiscalapiClient.create({
  apiUrl: process.env.TIMBRA_BASE_URL, tenant: process.env.TIMBRA_DL_TENANT_KEY, apiKey: process.env.TIMBRA_DL_API_KEY,
});
const base64Cer = readFileSync(process.env.TIMBRA_EFIRMA_CER).toString('base64');
const base64Key = readFileSync(process.env.TIMBRA_EFIRMA_KEY).toString('base64');
const password = readFileSync(process.env.TIMBRA_EFIRMA_PASSWORD_FILE, 'utf8').trim();

test('manifests.sign: the carta manifiesto signed with the e.firma', async () => {
  let res = await client.manifests.sign({ base64Cer, base64Key, password: 'not-the-password' });
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  assert.equal(JSON.parse(res.details)[0].propertyName, 'Password');

  res = await client.manifests.sign({ base64Cer, base64Key, password });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.fileExtension, 'xml');
  assert.equal(res.data.fileName, 'carta-manifiesto-EKU9003173C9.xml');
  const letter = Buffer.from(res.data.base64File, 'base64').toString();
  assert.match(letter, /<CartaManifiesto [^>]*Rfc="EKU9003173C9"/);
  assert.match(letter, /<Signature xmlns="http:\/\/www.w3.org\/2000\/09\/xmldsig#">/);

  res = await client.persons.getList(1, 10);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const owner = res.data.items.find((p) => p.tin === 'EKU9003173C9');
  assert.equal(owner.manifestStatusId, 'Signed');
});
