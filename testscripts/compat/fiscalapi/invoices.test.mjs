// The official fiscalapi client creates invoices (invoices.create, POST /api/v4/invoices) against
// a running timbra server: an income invoice by value with SAT's test CSD EKU9003173C9 in
// taxCredentials, and one by reference (issuer and recipient people, a product), in a tenant of
// their own that the Go test in testscripts/compat/ makes. The test checks the fields the client's
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
  const total = inv.currencyCode === 'XXX' ? inv.total.toFixed(0) : inv.total.toFixed(2); // XXX has no decimals
  assert.ok(xml.includes(`Total="${total}"`), `Total ${inv.total} in the XML`);
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

test('invoices: payment (P) with complement.payment, issuer by reference', { skip }, async () => {
  const before = await stamps();
  // the client's PaymentComplement: one MXN payment of an invoice paid in full (IVA 16 %, IVA
  // and ISR withheld); no items, currencyCode or cfdiUseCode: the P defaults (the fixed concept,
  // XXX, CP01)
  const invoice = {
    versionCode: '4.0',
    series: 'CP',
    typeCode: 'P',
    expeditionZipCode: '42501',
    exportCode: '01',
    issuer: { id: env.TIMBRA_INV_ISSUER_ID },
    recipient: { tin: 'EKU9003173C9', legalName: 'ESCUELA KEMPER URGATE', zipCode: '42501', taxRegimeCode: '601' },
    complement: {
      payment: {
        paymentDate: '2026-01-05T14:44:56',
        paymentFormCode: '03',
        currencyCode: 'MXN',
        exchangeRate: 1,
        amount: 953.33,
        sourceBankTin: 'BSM970519DU8',
        sourceBankAccount: '1234567891012131',
        targetBankTin: 'BBA830831LJ2',
        targetBankAccount: '1234567890',
        paidInvoices: [
          {
            uuid: '5C7B0622-01B4-4EB8-96D0-E0DEBD89FF0F',
            series: 'F',
            number: '1501',
            currencyCode: 'MXN',
            partialityNumber: 1,
            subTotal: 1000,
            previousBalance: 953.33,
            paymentAmount: 953.33,
            remainingBalance: 0,
            taxObjectCode: '02',
            paidInvoiceTaxes: [
              { taxCode: '002', taxTypeCode: 'Tasa', taxRate: '0.160000', taxFlagCode: 'T' },
              { taxCode: '002', taxTypeCode: 'Tasa', taxRate: '0.106667', taxFlagCode: 'R' },
              { taxCode: '001', taxTypeCode: 'Tasa', taxRate: '0.100000', taxFlagCode: 'R' },
            ],
          },
        ],
      },
    },
  };
  const inv = checkStamped(await client.invoices.create(invoice), 'payment');
  assert.equal(inv.typeCode, 'P');
  assert.equal(inv.currencyCode, 'XXX');
  assert.equal(inv.total, 0);
  assert.equal(inv.recipient.cfdiUseCode, 'CP01');
  const xml = Buffer.from(inv.responses[0].invoiceBase64, 'base64').toString('utf8');
  // 953.33 / (1 + 0.16 − 0.106667 − 0.10) → base 1000.00
  for (const s of ['<pago20:Totales TotalRetencionesIVA="106.67" TotalRetencionesISR="100.00" TotalTrasladosBaseIVA16="1000.00" TotalTrasladosImpuestoIVA16="160.00" MontoTotalPagos="953.33"/>',
    'ClaveProdServ="84111506"', 'ImpSaldoInsoluto="0.00"']) {
    assert.ok(xml.includes(s), s);
  }
  assert.equal(await stamps(), before - 1);

  // a payment larger than the balance: a 400 naming the field, no stamp used
  invoice.complement.payment.paidInvoices[0].paymentAmount = 1000;
  const res = await client.invoices.create(invoice);
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  const failures = JSON.parse(res.details);
  assert.ok(failures.some((x) => x.propertyName === 'Complement.Payment.PaidInvoices[0].PaymentAmount'), res.details);
  assert.equal(await stamps(), before - 1);
});

// the official client's "nómina ordinaria" example (its examples/ejemplos-factura-nomina-*.ts)
const payroll = () => ({
  version: '1.2',
  payrollTypeCode: 'O',
  paymentDate: '2025-08-30',
  initialPaymentDate: '2025-07-31',
  finalPaymentDate: '2025-08-30',
  daysPaid: 30,
  earnings: {
    earnings: [
      { earningTypeCode: '001', code: '1003', concept: 'Sueldo Nominal', taxedAmount: 95030.0, exemptAmount: 0.0 },
      { earningTypeCode: '005', code: '5913', concept: 'Fondo de Ahorro Aportación Patrón', taxedAmount: 0.0, exemptAmount: 4412.46 },
      { earningTypeCode: '038', code: '1885', concept: 'Bono Ingles', taxedAmount: 14254.5, exemptAmount: 0.0 },
      { earningTypeCode: '029', code: '1941', concept: 'Vales Despensa', taxedAmount: 0.0, exemptAmount: 3439.0 },
    ],
    otherPayments: [{ otherPaymentTypeCode: '002', code: '5050', concept: 'Exceso de subsidio al empleo', amount: 0.0, subsidyCaused: 0.0 }],
  },
  deductions: [
    { deductionTypeCode: '002', code: '5003', concept: 'ISR Causado', amount: 27645.52 },
    { deductionTypeCode: '004', code: '5910', concept: 'Fondo de ahorro Empleado Inversión', amount: 4412.46 },
    { deductionTypeCode: '001', code: '1895', concept: 'IMSS', amount: 2391.13 },
  ],
});
// 95030 + 4412.46 + 14254.50 + 3439 = 117135.96 paid; 34449.11 deducted
const payrollTotals = (inv) => {
  assert.equal(inv.typeCode, 'N');
  assert.equal(inv.subtotal, 117135.96);
  assert.equal(inv.discount, 34449.11);
  assert.equal(inv.total, 82686.85);
  assert.equal(inv.items.length, 1);
  assert.equal(inv.items[0].itemCode, '84111505');
  assert.equal(inv.recipient.cfdiUseCode, 'CN01');
  const xml = Buffer.from(inv.responses[0].invoiceBase64, 'base64').toString('utf8');
  assert.ok(xml.includes('xmlns:nomina12="http://www.sat.gob.mx/nomina12"'), 'the Nómina namespace');
  assert.ok(xml.includes('TotalSueldos="117135.96"') && xml.includes('TotalImpuestosRetenidos="27645.52"'), xml);
  return xml;
};

test('invoices: payroll (N) by value with employerData and employeeData', { skip }, async () => {
  const res = await client.invoices.create({
    versionCode: '4.0', series: 'N', paymentMethodCode: 'PUE', currencyCode: 'MXN', typeCode: 'N',
    expeditionZipCode: '20000', exportCode: '01',
    issuer: {
      tin: 'EKU9003173C9', legalName: 'ESCUELA KEMPER URGATE', taxRegimeCode: '601',
      employerData: { employerRegistration: 'B5510768108' },
      taxCredentials: [
        { base64File: env.TIMBRA_INV_CER, fileType: 0, password: env.TIMBRA_INV_PASSWORD },
        { base64File: env.TIMBRA_INV_KEY, fileType: 1, password: env.TIMBRA_INV_PASSWORD },
      ],
    },
    recipient: {
      tin: 'FUNK671228PH6', legalName: 'KARLA FUENTE NOLASCO', zipCode: '01160', taxRegimeCode: '605', cfdiUseCode: 'CN01',
      employeeData: {
        curp: 'XEXX010101MNEXXXA8', socialSecurityNumber: '04078873454', laborRelationStartDate: '2024-08-18', seniority: 'P54W',
        satContractTypeId: '01', satTaxRegimeTypeId: '02', employeeNumber: '123456789', department: 'GenAI',
        position: 'Sr Software Engineer', satJobRiskId: '1', satPaymentPeriodicityId: '04', satBankId: '012',
        baseSalaryForContributions: 2828.5, integratedDailySalary: 0.0, satPayrollStateId: 'JAL',
      },
    },
    complement: { payroll: payroll() },
  });
  const xml = payrollTotals(checkStamped(res, 'payroll-by-value'));
  assert.ok(xml.includes('RegistroPatronal="B5510768108"') && xml.includes('Curp="XEXX010101MNEXXXA8"'), xml);
});

test('invoices: payroll (N) by reference (employer and employee data through the client)', { skip }, async () => {
  let res = await client.persons.create({
    legalName: 'KARLA FUENTE NOLASCO', email: 'karla.payroll@example.com', password: 'Clave#123', tin: 'FUNK671228PH6',
    curp: 'FUNK671228MDFNLR09', satTaxRegimeId: '605', satCfdiUseId: 'CN01', zipCode: '01160',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const employeeId = res.data.id;
  const body = {
    versionCode: '4.0', series: 'N', paymentMethodCode: 'PUE', currencyCode: 'MXN', typeCode: 'N', expeditionZipCode: '20000',
    exportCode: '01', issuer: { id: env.TIMBRA_INV_ISSUER_ID }, recipient: { id: employeeId }, complement: { payroll: payroll() },
  };
  // without employer data: a 400 naming it, no stamp used
  const before = await stamps();
  res = await client.invoices.create(body);
  assert.equal(res.httpStatusCode, 400, JSON.stringify(res));
  const failures = JSON.parse(res.details);
  assert.ok(failures.some((f) => f.propertyName === 'Issuer.Id' && f.errorMessage.includes('no tiene datos de empleador')), res.details);
  assert.equal(await stamps(), before);

  res = await client.persons.employer.create({ personId: env.TIMBRA_INV_ISSUER_ID, employerRegistration: 'B5510768108' });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  res = await client.persons.employee.create({
    employerPersonId: env.TIMBRA_INV_ISSUER_ID, employeePersonId: employeeId, socialSecurityNumber: '04078873454',
    laborRelationStartDate: '2024-08-18', seniority: 'P54W', satContractTypeId: '01', satTaxRegimeTypeId: '02',
    satWorkdayTypeId: '01', employeeNumber: '123456789', satJobRiskId: '1', satPaymentPeriodicityId: '04',
    baseSalaryForContributions: 2828.5, integratedDailySalary: 180.96, satPayrollStateId: 'JAL',
  });
  assert.equal(res.succeeded, true, JSON.stringify(res));
  const xml = payrollTotals(checkStamped(await client.invoices.create(body), 'payroll-by-reference'));
  assert.ok(xml.includes('Curp="FUNK671228MDFNLR09"') && xml.includes('SalarioDiarioIntegrado="180.96"'), xml);
  assert.equal(await stamps(), before - 1);
});
