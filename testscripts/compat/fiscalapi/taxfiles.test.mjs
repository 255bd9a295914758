// The official fiscalapi client's tax file calls (taxFiles: create, getList, getById,
// getDefaultValues, getDefaultReferences, delete) against a running timbra server, with SAT's
// test CSD EKU9003173C9, in a tenant of their own that the Go test in testscripts/compat/ makes and passes
// in the environment (with the pair as base64).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FiscalapiClient } from 'fiscalapi';

const env = process.env;
const skip = env.TIMBRA_TAX_SKIP || false;
const apiUrl = env.TIMBRA_BASE_URL;
const tenant = env.TIMBRA_TAX_TENANT_KEY;
const personId = env.TIMBRA_TAX_PERSON_ID;
const cer = env.TIMBRA_TAX_CER;
const key = env.TIMBRA_TAX_KEY;
const password = env.TIMBRA_TAX_PASSWORD;
const owner = FiscalapiClient.create({ apiUrl, tenant, apiKey: env.TIMBRA_TAX_API_KEY });
const member = FiscalapiClient.create({ apiUrl, tenant, apiKey: env.TIMBRA_TAX_MEMBER_KEY });
const onlyOwnerCredentials =
  'Solo el propietario de la cuenta puede gestionar las credenciales de otra persona: correo, contraseña, API keys y certificados.';

// details of an error that is not a validation failure: the client puts the whole envelope there
const envelope = (res) => JSON.parse(res.details);

test('taxFiles: upload the CSD pair, list, get, default values and references, delete', { skip }, async () => {
  let res = await owner.taxFiles.getDefaultValues(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.deepEqual(res.data, []);
  res = await owner.taxFiles.getDefaultReferences(personId);
  assert.equal(res.httpStatusCode, 404);
  assert.equal(envelope(res).details, `No se encontró tal recurso. Verifica los archivos fiscales de la persona: ${personId}`);

  // as the client's README uploads them: the names of the file types, the password with both
  res = await owner.taxFiles.create({ personId, base64File: cer, fileType: 'CertificateCsd', password, tin: 'EKU9003173C9' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const cert = res.data;
  assert.equal(cert.fileType, 0);
  assert.equal(cert.tin, 'EKU9003173C9');
  assert.equal(cert.base64File, '');
  assert.equal(cert.password, '');
  assert.equal(cert.sequence, 1);
  assert.equal(cert.certificateNumber, '30001000000500003416');
  assert.match(cert.validFrom, /^2023-05-18T/);
  assert.match(cert.validTo, /^2027-05-18T/);

  res = await owner.taxFiles.getDefaultValues(personId);
  assert.equal(res.httpStatusCode, 404);
  assert.equal(envelope(res).details, `No se encontró la llave privada de la persona: ${personId}`);

  // the wrong password: the spec's failure on Password, attemptedValue null
  res = await owner.taxFiles.create({ personId, base64File: key, fileType: 1, password: 'wrong', tin: '' });
  assert.equal(res.httpStatusCode, 400);
  assert.equal(res.message, 'La contraseña de la llave privada (.key) es incorrecta o el archivo no es una llave privada.');
  const [failure] = JSON.parse(res.details);
  assert.equal(failure.propertyName, 'Password');
  assert.equal(failure.attemptedValue, null);
  assert.ok(!res.details.includes('wrong'));
  // fileType 4 and out of range
  res = await owner.taxFiles.create({ personId, base64File: key, fileType: 4, password });
  assert.equal(res.message, "'File Type' 4 (Pfx) no se admite: el certificado (.cer) y la llave privada (.key) se cargan por separado (fileType 0 y 1 para el CSD, 2 y 3 para la FIEL).");
  res = await owner.taxFiles.create({ personId, base64File: key, fileType: 9, password });
  assert.equal(res.message, "'File Type' tiene un rango de valores que no incluye '9'.");
  // a non-owner uploading another person's files
  res = await member.taxFiles.create({ personId, base64File: key, fileType: 1, password });
  assert.equal(res.httpStatusCode, 403);
  assert.equal(envelope(res).details, onlyOwnerCredentials);

  res = await owner.taxFiles.create({ personId, base64File: key, fileType: 'PrivateKeyCsd', password });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const pk = res.data;
  assert.equal(pk.fileType, 1);
  assert.equal(pk.sequence, 1);
  assert.equal(pk.password, '');
  assert.equal(pk.certificateNumber, null);
  assert.equal(pk.validTo, cert.validTo);

  res = await owner.taxFiles.getDefaultValues(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.deepEqual(res.data.map((f) => [f.id, f.fileType]), [[cert.id, 0], [pk.id, 1]]);
  assert.equal(res.data[0].base64File, cer);
  assert.equal(res.data[1].base64File, key);
  assert.equal(res.data[1].password, password);

  res = await owner.taxFiles.getDefaultReferences(personId);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.deepEqual(res.data.map((f) => [f.id, f.fileType, f.tin, f.base64File, f.password]),
    [[cert.id, 0, 'EKU9003173C9', '', ''], [pk.id, 1, 'EKU9003173C9', '', '']]);

  res = await owner.taxFiles.getList(1, 10);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 2);
  assert.deepEqual(res.data.items.map((f) => [f.id, f.base64File, f.password]), [[cert.id, '', ''], [pk.id, '', '']]);
  res = await owner.taxFiles.getList(1, 51);
  assert.equal(res.httpStatusCode, 400);

  res = await owner.taxFiles.getById(cert.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.certificateNumber, '30001000000500003416');

  // another person: list omits, get 404, delete as missing, defaults 403
  res = await member.taxFiles.getList(1, 10);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data.totalCount, 0);
  res = await member.taxFiles.getById(cert.id);
  assert.equal(res.httpStatusCode, 404);
  res = await member.taxFiles.delete(cert.id);
  assert.equal(res.httpStatusCode, 400);
  assert.equal(envelope(res).data, false);
  res = await member.taxFiles.getDefaultReferences(personId);
  assert.equal(res.httpStatusCode, 403);
  assert.equal(envelope(res).details, onlyOwnerCredentials);

  // delete: true once, then as missing; the pair is no longer the default
  res = await owner.taxFiles.delete(pk.id);
  assert.equal(res.succeeded, true, JSON.stringify(res));
  assert.equal(res.data, true);
  res = await owner.taxFiles.delete(pk.id);
  assert.equal(res.httpStatusCode, 400);
  assert.equal(envelope(res).succeeded, false);
  assert.equal(envelope(res).data, false);
  res = await owner.taxFiles.getDefaultReferences(personId);
  assert.equal(res.httpStatusCode, 404);
  assert.equal(envelope(res).details, `No se encontró la llave privada de la persona: ${personId}`);
  res = await owner.taxFiles.getList(1, 10);
  assert.deepEqual(res.data.items.map((f) => f.id), [cert.id]);
});
