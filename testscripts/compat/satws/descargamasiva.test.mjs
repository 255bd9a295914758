// @nodecfdi/sat-ws-descarga-masiva against timbra's local SAT: the package builds and signs every
// request with SAT's test e.firma, and reads the answers and the packages with its own readers.
// The Go test (TestNodecfdiAgainstLocalSAT) starts the local SAT and gives, in SATWS_CFDIS, the
// CFDIs it put in its folder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  CResponse, CfdiPackageReader, ComplementoCfdi, ComplementoRetenciones, DocumentType, RfcMatch, DateTimePeriod, DocumentStatus, DownloadType, Fiel, FielRequestBuilder,
  MetadataPackageReader, QueryParameters, RequestType, RfcOnBehalf, Service, ServiceEndpoints, ServiceType,
  SoapFaultError, Uuid, AuthenticateTranslator, DateTime, ServiceConsumer, Token,
} from '@nodecfdi/sat-ws-descarga-masiva';

const base = process.env.SATWS_BASE_URL;
const cfdis = JSON.parse(process.env.SATWS_CFDIS);
const packageSize = Number(process.env.SATWS_PACKAGE_SIZE);
const RFC = 'EKU9003173C9';

// fetchClient is the package's webClient over Node's fetch (its HttpsWebClient speaks only https).
const fetchClient = {
  requests: [],
  fireRequest(req) { this.requests.push(req); },
  fireResponse() {},
  async call(req) {
    const res = await fetch(req.getUri(), { method: req.getMethod(), headers: req.getHeaders(), body: req.getBody() });
    return new CResponse(res.status, await res.text(), Object.fromEntries(res.headers));
  },
};

function builderOf(prefix) {
  const read = (name) => readFileSync(process.env[`${prefix}_${name}`], 'latin1');
  const fiel = Fiel.create(read('CER'), read('KEY'), read('PASSWORD_FILE').trim());
  return new FielRequestBuilder(fiel);
}

function endpoints(kind) {
  const at = kind === 'retenciones' ? base + process.env.SATWS_RETENCIONES_PATH : base;
  return new ServiceEndpoints(`${at}/Autenticacion/Autenticacion.svc`, `${at}/SolicitaDescargaService.svc`,
    `${at}/VerificaSolicitudDescargaService.svc`, `${at}/DescargaMasivaService.svc`, new ServiceType(kind));
}

const efirma = builderOf('TIMBRA_EFIRMA');
const cfdiService = new Service(efirma, fetchClient, null, endpoints('cfdi'));
const retService = new Service(efirma, fetchClient, null, endpoints('retenciones'));

const january = () => DateTimePeriod.createFromValues('2024-01-01 00:00:00', '2024-01-31 23:59:59');

function params({ download = 'issued', request = 'xml', status, onBehalf, uuid, complement, type, match, period = january(), service = 'cfdi' } = {}) {
  let p = QueryParameters.create(period, new DownloadType(download), new RequestType(request), new ServiceType(service));
  if (type) p = p.withDocumentType(new DocumentType(type));
  if (match) p = p.withRfcMatch(RfcMatch.create(match));
  if (complement) p = p.withComplement(complement);
  if (status) p = p.withDocumentStatus(new DocumentStatus(status));
  if (onBehalf) p = p.withRfcOnBehalf(RfcOnBehalf.create(onBehalf));
  if (uuid) p = p.withUuid(Uuid.create(uuid));
  return p;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// finish verifies the request until it is no longer accepted (1) or in progress (2); it answers
// the last verification and the states seen.
async function finish(service, id) {
  let v;
  const seen = new Set();
  for (let i = 0; i < 100; i++) {
    v = await service.verify(id);
    assert.equal(v.getStatus().getCode(), 5000, `verify: ${v.getStatus().getMessage()}`);
    seen.add(v.getStatusRequest().getValue());
    if (!v.getStatusRequest().isTypeOf('Accepted') && !v.getStatusRequest().isTypeOf('InProgress')) return { v, seen };
    await sleep(50);
  }
  assert.fail(`request ${id} never finished: ${JSON.stringify(v)}`);
}

// run queries, verifies until the request is finished and downloads every package: the ZIPs as
// latin1 strings, as the package's readers take them (getPackageContent is the base64 text).
async function run(service, p) {
  const q = await service.query(p);
  assert.equal(q.getStatus().getCode(), 5000, `query: ${q.getStatus().getMessage()}`);
  assert.ok(q.getStatus().isAccepted());
  const id = q.getRequestId();
  assert.match(id, /^[0-9a-f-]{36}$/i);
  const { v, seen } = await finish(service, id);
  assert.ok(v.getStatusRequest().isTypeOf('Finished'), `request ${id} ended as ${JSON.stringify(v)}`);
  assert.ok(v.getCodeRequest().isTypeOf('Accepted'));
  assert.ok([...seen].every((state) => [1, 2, 3].includes(state)), `states seen: ${[...seen]}`);
  assert.equal(v.getPackageIds().length, Math.ceil(v.getNumberCfdis() / packageSize), 'packages of at most SATWS_PACKAGE_SIZE');
  assert.deepEqual((await service.verify(id.toUpperCase())).getPackageIds(), v.getPackageIds(), 'verified by the upper-case id');
  const zips = [];
  for (const packageId of v.getPackageIds()) {
    assert.ok(packageId.toLowerCase().startsWith(`${id.toLowerCase()}_`), packageId);
    const d = await service.download(packageId);
    assert.equal(d.getStatus().getCode(), 5000, `download: ${d.getStatus().getMessage()}`);
    zips.push(Buffer.from(d.getPackageContent(), 'base64').toString('latin1'));
  }
  return { id, verify: v, zips };
}

async function readCfdis(zips) {
  const out = new Map();
  for (const zip of zips) {
    const reader = await CfdiPackageReader.createFromContents(zip);
    for (const { uuid, content } of await reader.cfdisToArray()) {
      assert.ok(!out.has(uuid), `${uuid} twice`);
      out.set(uuid, content);
    }
  }
  return out;
}

async function readMetadata(zips) {
  const out = [];
  for (const zip of zips) {
    const reader = await MetadataPackageReader.createFromContents(zip);
    for (const item of await reader.metadataToArray()) out.push(item.all());
  }
  return out;
}

const uuids = (list) => list.map((c) => c.uuid.toLowerCase()).sort();

// the CFDIs the Go side wrote, by service and who issued or received them
const cfdiOf = (pick) => cfdis.filter((c) => !c.retenciones && pick(c));
const issued = cfdiOf((c) => c.issuer === RFC);
const received = cfdiOf((c) => c.receiver === RFC);
const active = (list) => list.filter((c) => !c.cancelled);

function assertXmls(read, want, what) {
  assert.deepEqual([...read.keys()].sort(), uuids(want), `${what}: the UUIDs read`);
  for (const c of want) {
    const xml = read.get(c.uuid.toLowerCase());
    const [issuerAttr, receiverAttr] = c.retenciones ? ['RfcE', 'RfcR'] : ['Rfc', 'Rfc'];
    assert.match(xml, new RegExp(`:Emisor ${issuerAttr}="${c.issuer}"`), `${what}: ${c.uuid}'s issuer`);
    assert.match(xml, new RegExp(`${receiverAttr}="${c.receiver}"`), `${what}: ${c.uuid}'s receiver`);
  }
}

function assertMetadata(items, want, what) {
  assert.deepEqual(items.map((m) => m.uuid.toLowerCase()).sort(), uuids(want), `${what}: the UUIDs read`);
  for (const c of want) {
    const m = items.find((i) => i.uuid.toLowerCase() === c.uuid.toLowerCase());
    assert.equal(m.rfcEmisor, c.issuer, `${what}: ${c.uuid}'s RfcEmisor`);
    assert.equal(m.rfcReceptor, c.receiver, `${what}: ${c.uuid}'s RfcReceptor`);
    assert.equal(m.fechaEmision, c.date.replace('T', ' '), `${what}: ${c.uuid}'s FechaEmision`);
    assert.equal(m.estatus, c.cancelled ? '0' : '1', `${what}: ${c.uuid}'s Estatus`);
    assert.equal(m.fechaCancelacion, c.cancelled ?? '', `${what}: ${c.uuid}'s FechaCancelacion`);
    assert.equal(m.rfcACuentaTerceros, c.onBehalf ?? '', `${what}: ${c.uuid}'s RfcACuentaTerceros (_tercero.txt)`);
    assert.equal(m.rfcPac, 'SAT970701NN3', `${what}: ${c.uuid}'s RfcPac`);
    assert.equal(m.fechaCertificacionSat, c.date.replace('T', ' '), `${what}: ${c.uuid}'s FechaCertificacionSat`);
    if (!c.retenciones) {
      assert.equal(m.nombreEmisor, 'EMISOR', `${what}: ${c.uuid}'s NombreEmisor`);
      assert.equal(m.nombreReceptor, 'RECEPTOR', `${what}: ${c.uuid}'s NombreReceptor`);
      assert.equal(m.monto, '116.00', `${what}: ${c.uuid}'s Monto`);
      assert.equal(m.efectoComprobante, 'I', `${what}: ${c.uuid}'s EfectoComprobante`);
    }
  }
}

test('the folder has what the tests below expect', () => {
  assert.ok(issued.length >= 3 && received.length >= 1 && cfdis.some((c) => c.retenciones));
  assert.ok(issued.some((c) => c.cancelled) && issued.some((c) => c.onBehalf));
});

test('Autentica: a token from the e.firma, valid for minutes', async () => {
  const token = await cfdiService.authenticate();
  assert.ok(token.getValue().length > 20);
  assert.ok(token.isValid());
  const life = token.getExpires().formatSat() > token.getCreated().formatSat();
  assert.ok(life, 'expires after it was created');
});

test('issued CFDIs of January 2024 (Todos: cancelled ones too)', async () => {
  const { verify, zips } = await run(cfdiService, params());
  assert.equal(verify.getNumberCfdis(), issued.length);
  assertXmls(await readCfdis(zips), issued, 'issued');
});

test('received CFDIs (Vigente)', async () => {
  const { verify, zips } = await run(cfdiService, params({ download: 'received', status: 'active' }));
  assert.equal(verify.getNumberCfdis(), active(received).length);
  assertXmls(await readCfdis(zips), active(received), 'received');
});

test('issued metadata, active and cancelled, with the third party of _tercero.txt', async () => {
  const all = await readMetadata((await run(cfdiService, params({ request: 'metadata' }))).zips);
  assertMetadata(all, issued, 'issued metadata');
  const gone = await readMetadata((await run(cfdiService, params({ request: 'metadata', status: 'cancelled' }))).zips);
  assertMetadata(gone, issued.filter((c) => c.cancelled), 'cancelled metadata');
});

test('received metadata', async () => {
  const items = await readMetadata((await run(cfdiService, params({ download: 'received', request: 'metadata' }))).zips);
  assertMetadata(items, received, 'received metadata');
});

test('by UUID (SolicitaDescargaFolio): a received CFDI and an issued one', async () => {
  for (const c of [active(received)[0], active(issued)[0]]) {
    const { zips } = await run(cfdiService, params({ uuid: c.uuid }));
    assertXmls(await readCfdis(zips), [c], `UUID ${c.uuid}`);
  }
});

test('on behalf of a third party (RfcACuentaTerceros)', async () => {
  const want = issued.filter((c) => c.onBehalf === 'CACX7605101P8');
  const { zips } = await run(cfdiService, params({ onBehalf: 'CACX7605101P8' }));
  assertXmls(await readCfdis(zips), want, 'on behalf');
});

test('by counterpart (RfcMatch: RfcReceptores of issued, RfcEmisor of received) and by type', async () => {
  for (const [download, status, match, pick] of [
    ['issued', undefined, 'AAA010101AAA', (c) => c.issuer === RFC && c.receiver === 'AAA010101AAA'],
    ['issued', undefined, 'XAXX010101000', (c) => c.issuer === RFC && c.receiver === 'XAXX010101000'],
    ['received', 'active', 'AAA010101AAA', (c) => c.receiver === RFC && c.issuer === 'AAA010101AAA' && !c.cancelled],
  ]) {
    const p = params({ download, status, match });
    assert.deepEqual(p.validate(), []);
    const { zips } = await run(cfdiService, p);
    assertXmls(await readCfdis(zips), cfdiOf(pick), `${download} matching ${match}`);
  }
  const { zips } = await run(cfdiService, params({ type: 'ingreso' }));
  assertXmls(await readCfdis(zips), issued, 'issued ingresos (I)');
  const q = await cfdiService.query(params({ type: 'egreso' }));
  assert.equal(q.getStatus().getCode(), 5000);
  const { v } = await finish(cfdiService, q.getRequestId());
  assert.ok(v.getStatusRequest().isTypeOf('Rejected') && v.getCodeRequest().isTypeOf('EmptyResult'), `no egresos: ${JSON.stringify(v)}`);
});

// complementOf is the package's complement whose SAT code is code (its own table of codes).
function complementOf(Kind, code) {
  const id = Object.entries(new Kind('undefined').Map).find(([, v]) => v.satCode === code)?.[0];
  assert.ok(id, `the package has no complement of code ${code}`);
  const c = new Kind(id);
  assert.equal(c.value(), code);
  return c;
}

test('by complement (Complemento): each code the CFDIs carry, with the package\'s names', async () => {
  for (const [service, Kind, kind] of [[cfdiService, ComplementoCfdi, 'cfdi'], [retService, ComplementoRetenciones, 'retenciones']]) {
    const mine = cfdis.filter((c) => (kind === 'retenciones') === Boolean(c.retenciones) && c.issuer === RFC);
    const codes = [...new Set(mine.flatMap((c) => c.complements))].sort();
    assert.ok(codes.length >= 2, `${kind}: complements to filter by: ${codes}`);
    for (const code of codes) {
      const p = params({ service: kind, complement: complementOf(Kind, code) });
      assert.deepEqual(p.validate(), [], `${kind} ${code}: the package's own validator`);
      const { zips } = await run(service, p);
      assertXmls(await readCfdis(zips), mine.filter((c) => c.complements.includes(code)), `${kind} complement ${code}`);
    }
  }
});

test('withholding CFDIs at the retenciones addresses', async () => {
  const want = cfdis.filter((c) => c.retenciones);
  const { zips } = await run(retService, params({ service: 'retenciones' }));
  assertXmls(await readCfdis(zips), want, 'retenciones');
  const items = await readMetadata((await run(retService, params({ service: 'retenciones', request: 'metadata' }))).zips);
  assert.deepEqual(items.map((m) => m.uuid.toLowerCase()).sort(), uuids(want), 'retenciones metadata: the UUIDs read');
  for (const c of want) {
    const m = items.find((i) => i.uuid.toLowerCase() === c.uuid.toLowerCase());
    assert.equal(m.rfcEmisor, c.issuer);
    assert.equal(m.rfcReceptor, c.receiver);
  }
  // a CFDI's UUID is not one of the withholding service: rejected (5) with 5004
  const q = await retService.query(params({ service: 'retenciones', uuid: active(issued)[0].uuid }));
  assert.equal(q.getStatus().getCode(), 5000, q.getStatus().getMessage());
  const { v } = await finish(retService, q.getRequestId());
  assert.ok(v.getStatusRequest().isTypeOf('Rejected'), JSON.stringify(v));
  assert.ok(v.getCodeRequest().isTypeOf('EmptyResult'), JSON.stringify(v));
  assert.equal(v.getNumberCfdis(), 0);
  assert.deepEqual(v.getPackageIds(), []);
});

test('a CSD instead of an e.firma: 305', async () => {
  const csd = new Service(builderOf('TIMBRA_CSD'), fetchClient, null, endpoints('cfdi'));
  assert.equal(csd._requestBuilder.getFiel().isValid(), false, 'the package itself tells a CSD is no FIEL');
  const q = await csd.query(params({ period: DateTimePeriod.createFromValues('2024-02-01 00:00:00', '2024-02-29 23:59:59') }));
  assert.equal(q.getStatus().getCode(), 305, q.getStatus().getMessage());
  assert.equal(q.getRequestId(), undefined);
});

test('bad periods: 301', async () => {
  const today = new Date();
  const old = `${today.getFullYear() - 7}-01-01 00:00:00`;
  for (const [what, p] of [
    ['start = end', params({ period: DateTimePeriod.createFromValues('2024-03-01 00:00:00', '2024-03-01 00:00:00') })],
    ['seven years back', params({ period: DateTimePeriod.createFromValues(old, `${today.getFullYear() - 7}-02-01 00:00:00`) })],
    ['received XML with cancelled ones', params({ download: 'received', period: DateTimePeriod.createFromValues('2024-03-01 00:00:00', '2024-03-31 23:59:59') })],
  ]) {
    assert.ok(p.validate().length > 0, `${what}: the package's own validator refuses it too`);
    const q = await cfdiService.query(p);
    assert.equal(q.getStatus().getCode(), 301, `${what}: ${q.getStatus().getMessage()}`);
    assert.equal(q.getRequestId(), undefined);
  }
});

test('the same request: 5005 while the first is active, 5002 after two', async () => {
  const p = () => params({ period: DateTimePeriod.createFromValues('2024-01-01 00:00:00', '2024-01-15 23:59:59') });
  const first = await cfdiService.query(p());
  assert.equal(first.getStatus().getCode(), 5000);
  const dup = await cfdiService.query(p());
  assert.equal(dup.getStatus().getCode(), 5005, dup.getStatus().getMessage());
  assert.equal(dup.getRequestId(), undefined);
  assert.ok((await finish(cfdiService, first.getRequestId())).v.getStatusRequest().isTypeOf('Finished'));
  await run(cfdiService, p()); // the second, once the first finished
  const third = await cfdiService.query(p());
  assert.equal(third.getStatus().getCode(), 5002, third.getStatus().getMessage());
});

test('a cancelled CFDI by UUID: 5012', async () => {
  const c = issued.find((i) => i.cancelled);
  const q = await cfdiService.query(params({ uuid: c.uuid }));
  assert.equal(q.getStatus().getCode(), 5012, q.getStatus().getMessage());
});

test('an unknown request: 5004; a package a third time: 5008; an unknown package: 5004', async () => {
  const v = await cfdiService.verify('00000000-0000-4000-8000-000000000000');
  assert.equal(v.getStatus().getCode(), 5004, v.getStatus().getMessage());
  const p = params({ download: 'received', status: 'active', period: DateTimePeriod.createFromValues('2024-01-21 00:00:00', '2024-01-21 23:59:59') });
  const { verify } = await run(cfdiService, p);
  const packageId = verify.getPackageIds()[0];
  assert.equal((await cfdiService.download(packageId)).getStatus().getCode(), 5000, 'the second download');
  const third = await cfdiService.download(packageId);
  assert.equal(third.getStatus().getCode(), 5008, third.getStatus().getMessage());
  assert.equal(third.getPackageContent(), '');
  const none = await cfdiService.download('00000000-0000-4000-8000-000000000000_01');
  assert.equal(none.getStatus().getCode(), 5004, none.getStatus().getMessage());
});

test('a token the local SAT did not give: 300 at query, verify and download', async () => {
  const stranger = new Service(efirma, fetchClient, new Token(DateTime.now(), DateTime.now().modify({ minutes: 5 }), 'not-a-token'), endpoints('cfdi'));
  const q = await stranger.query(params({ period: DateTimePeriod.createFromValues('2024-04-01 00:00:00', '2024-04-30 23:59:59') }));
  assert.equal(q.getStatus().getCode(), 300, q.getStatus().getMessage());
  assert.equal((await stranger.verify('00000000-0000-4000-8000-000000000000')).getStatus().getCode(), 300);
  assert.equal((await stranger.download('00000000-0000-4000-8000-000000000000_01')).getStatus().getCode(), 300);
});

test('an authentication that expired: the SOAP fault, as the package reads it', async () => {
  const body = new AuthenticateTranslator().createSoapRequestWithData(efirma,
    DateTime.create('2024-01-01T00:00:00Z'), DateTime.create('2024-01-01T00:05:00Z'));
  await assert.rejects(
    ServiceConsumer.consume(fetchClient, 'http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica', endpoints('cfdi').getAuthenticate(), body),
    (e) => e instanceof SoapFaultError && /InvalidSecurity/.test(e.getFault().getCode()),
  );
});
