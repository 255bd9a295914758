// Package invoices stamps CFDI 4.0 invoices (POST /api/v4/invoices, spec 3 §4.1): it checks a
// request in either mode (by value, or by reference to people and products), builds the CFDI
// with the cfdi engine, seals it with the issuer's CSD, stamps it as the certification provider
// of the server's environment, and stores it while debiting one stamp credit of the caller.
//
// What the spec leaves open, decided here:
//
//   - Types I, E, T, P (with complement.payment, Pagos 2.0: payment.go) and N (with
//     complement.payroll, Nómina 1.2: payroll.go) are stamped; the Carta Porte and Comercio
//     Exterior complements answer a 400 failure saying they are not supported yet;
//     complement.localTaxes (Impuestos Locales 1.0) is. A complement sent where it was
//     before 2026 (invoice.payments, .payroll, .localTaxes) fails naming its new place.
//   - Modes are per object: issuer or recipient with a non-empty id are people of the tenant (the
//     rest of that object is ignored, except recipient.cfdiUseCode, which overrides the person's
//     satCfdiUseId); an item with an id is a product of the tenant (quantity, discount, itemSku
//     and unitOfMeasurement come from the request).
//   - Defaults: versionCode 4.0, currencyCode MXN, exportCode 01, date now (Mexico City time).
//     The date has no offset and is Mexico City time; it may not be later than now (5 minutes of
//     clock skew tolerated) nor older than 72 hours (SAT's stamping window). A date-time with an
//     offset is taken as that instant.
//   - The certificate of a by-value issuer must be a CSD of the issuer's RFC, valid at the
//     invoice date and matching the key; the key is opened with the key file's password (or the
//     certificate's, the clients send both). By reference, the issuer's default pair (tax files)
//     is used, and must be valid at the invoice date too.
//   - Rates follow c_TasaOCuota through products.CheckTax (one rule, one place); c_ObjetoImp 02
//     needs a tax, 01/03/04 take none; a T invoice has unit prices 0, no taxes and no payment
//     fields; PPD goes with payment form 99, PUE never with 99. Currency decimals are c_Moneda's.
//   - Order: every validation failure first (one 400), then the caller's stamp balance (403 when
//     empty), then build, seal and stamp, then one transaction saves the invoice and debits one
//     stamp credit (type 1) of the caller, checking the balance again. A failure uses no credit.
//   - The `invoice.stamped` event (and its deliveries) is written in that same transaction: an
//     invoice is never stamped without its event, nor an event without its invoice.
//   - The answer is the invoice with its amounts as the CFDI writes them and responses[0]: UUID,
//     the issuer's certificate number and Sello, the QR code of SAT's verification URL
//     (PNG, base64), the stamped XML
//     (base64), SelloSAT, the TFD's cadena original (base64: what SelloSAT signs) and the
//     stamping certificate's number. invoiceSignatureDate is FechaTimbrado (seal and stamp are
//     made at the same instant).
package invoices

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

// Catalogs finds catalog records, and c_Pais's formats of foreign tax numbers; *catalogs.Service
// is one.
type Catalogs interface {
	Lookup(ctx context.Context, name, id string) (api.CatalogRecord, bool, error)
	TaxIDPatterns(ctx context.Context) (map[string]catalogs.TaxIDFormat, error)
}

// DefaultPairs gives a person's default CSD, and opens a key sent by value; *taxfiles.Service
// is one.
type DefaultPairs interface {
	DefaultPair(ctx context.Context, tenantID, personID string) (*csd.Certificate, *csd.PrivateKey, taxfiles.Release, error)
	OpenKey(tenantID string, der []byte, password string) (*csd.PrivateKey, taxfiles.Release, error)
}

// Emitter records events in the transaction of the change they tell of; *webhooks.Service is
// one.
type Emitter interface {
	EmitIn(tx storage.Tx, tenant, typ, relatedID string, personID *string) (string, error)
	WakeEngine(tenant string)
}

// EventStamped is the event of a stamped invoice (docs/events.md).
const EventStamped = "invoice.stamped"

// StatusValid is the status of a stamped invoice (catalog InvoiceStatuses).
const StatusValid = "Vigente"

// CreditStamps is the credit type one stamp uses.
const CreditStamps = api.CreditStamps

// Service is the invoices area.
type Service struct {
	Store    storage.Store
	Keys     *secrets.Keys
	Catalogs Catalogs
	TaxFiles DefaultPairs
	Events   Emitter
	// Environment decides the stamping identity (pac.go): in production only the operator's.
	Environment string
	Now         func() time.Time
	Log         *slog.Logger

	pac pacStore
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Create checks, builds, seals, stamps and stores an invoice, debiting one stamp of the caller.
func (s *Service) Create(ctx context.Context, c auth.Caller, in api.InvoiceInput) (api.Invoice, error) {
	return s.CreateWith(ctx, c, in, nil)
}

// Also is work done in the transaction that stores a new invoice (and debits its stamp), so
// that it commits with the invoice or not at all. It may run more than once (storage Batch):
// it reads and writes only through tx.
type Also func(tx storage.Tx, invoice storage.Invoice) error

// CreateWith is Create with also run inside the invoice's transaction (nil: nothing).
func (s *Service) CreateWith(ctx context.Context, c auth.Caller, in api.InvoiceInput, also Also) (api.Invoice, error) {
	now := s.now()
	paymentDefaults(&in)
	payrollDefaults(&in)
	k := &checker{ctx: ctx, s: s, c: callerRef{tenantID: c.TenantID}}
	defer k.done()
	doc, date, cd := k.header(&in, now)
	is := k.issuerOf(in.Issuer)
	k.certificateAt(&is, date)
	rc := k.recipientOf(in.Recipient)
	if in.GlobalInformation != nil && rc.tin != "" && rc.tin != RFCPublic {
		k.add("GlobalInformation", MsgGlobalRecipient, nil, CodeRule)
	}
	var lines []line
	var pagos *cfdi.Pagos
	var nomina *cfdi.Nomina
	if doc.TipoDeComprobante == cfdi.TipoNomina {
		nomina, lines = k.payrollLines(&in, &is, &rc)
	} else {
		lines, pagos = k.linesOrPayment(&in, &doc, rc, cd)
		k.notForPayroll(&in)
	}
	local, localRet, localTras, localShown := k.complements(&in, cd)
	if k.err != nil {
		return api.Invoice{}, k.err
	}
	if len(k.fs) > 0 {
		return api.Invoice{}, apierr.Invalid(k.fs...)
	}
	if is.cert == nil || is.key == nil { // every way to get here without them has reported a failure
		return api.Invoice{}, errors.New("invoices: issuer without a seal")
	}

	// The balance before the expensive part; the transaction checks it again.
	if err := s.Store.View(ctx, func(tx storage.Tx) error {
		p, err := tx.People(c.TenantID).Get(c.PersonID)
		if err != nil {
			return err
		}
		return hasStamps(p)
	}); err != nil {
		return api.Invoice{}, err
	}

	doc.Emisor = cfdi.Emisor{Rfc: is.tin, Nombre: is.name, RegimenFiscal: is.regime}
	doc.Receptor = cfdi.Receptor{Rfc: rc.tin, Nombre: rc.name, DomicilioFiscalReceptor: rc.zip, ResidenciaFiscal: rc.residenciaFiscal,
		NumRegIdTrib: rc.numRegIdTrib, RegimenFiscalReceptor: rc.regime, UsoCFDI: rc.use}
	items := make([]cfdi.Item, len(lines))
	for i, l := range lines {
		items[i] = l.item
	}
	totals, err := cfdi.Compute(&doc, items, cfdi.Options{CurrencyDecimals: cd, LocalTraslados: localTras, LocalRetenciones: localRet})
	if err != nil {
		msg := MsgAmountsOutOfRange
		if strings.Contains(err.Error(), "negative") {
			msg = MsgTotalNegative
		}
		return api.Invoice{}, apierr.Invalid(apierr.Field("Items", msg, nil, CodeRule, apierr.Placeholders("Items", nil)))
	}
	if local != nil {
		doc.Complemento = append(doc.Complemento, local)
	}
	if nomina != nil {
		doc.Complemento = append(doc.Complemento, nomina)
	}
	if pagos != nil {
		if err := cfdi.SetPagos(&doc, pagos); err != nil {
			return api.Invoice{}, err
		}
	}
	if _, err := cfdi.Seal(&doc, is.cert, is.key); err != nil {
		return api.Invoice{}, xmlFailure(err)
	}
	pac, err := s.stampingPAC(ctx, now)
	if err != nil {
		return api.Invoice{}, err
	}
	id := ids.New(now)
	tfd, err := cfdi.Stamp(&doc, pac.Cert, pac.Key, uuid.New().String(), now, pac.RFC)
	if err != nil {
		return api.Invoice{}, err
	}
	xml, err := doc.XML()
	if err != nil {
		return api.Invoice{}, xmlFailure(err)
	}

	created := now.UTC()
	view := api.Invoice{
		ID: id, VersionCode: doc.Version, Series: optional(doc.Serie), Date: doc.Fecha,
		Subtotal: api.Decimal(doc.SubTotal), Discount: api.Decimal(totals.Descuento.Fixed(cd)), Total: api.Decimal(doc.Total),
		UUID: tfd.UUID, Status: StatusValid, PaymentFormCode: optional(doc.FormaPago), PaymentConditions: optional(doc.CondicionesDePago),
		CurrencyCode: doc.Moneda, ExchangeRate: "1", TypeCode: doc.TipoDeComprobante, ExpeditionZipCode: doc.LugarExpedicion,
		ExportCode: doc.Exportacion, PaymentMethodCode: optional(doc.MetodoPago),
		Issuer:            api.InvoiceIssuer{ID: is.personID, Tin: is.tin, LegalName: is.name, TaxRegimeCode: is.regime},
		Recipient:         api.InvoiceRecipient{ID: rc.personID, Tin: rc.tin, LegalName: rc.name, ZipCode: rc.zip, TaxRegimeCode: rc.regime, CfdiUseCode: rc.use, Email: optional(rc.email), CountryID: optional(rc.countryID), ForeignTin: optional(rc.foreignTin)},
		GlobalInformation: in.GlobalInformation, RelatedInvoices: in.RelatedInvoices,
		CreatedAt: api.FormatAudit(created), UpdatedAt: api.FormatAudit(created),
	}
	if doc.TipoCambio != "" {
		view.ExchangeRate = api.Decimal(doc.TipoCambio)
	}
	if view.RelatedInvoices == nil {
		view.RelatedInvoices = []api.InvoiceRelated{}
	}
	if localShown != nil {
		view.Complement = &api.InvoiceComplement{LocalTaxes: localShown}
	}
	for i, k := range doc.Conceptos {
		l := lines[i]
		it := api.InvoiceItem{ID: l.productID, ItemCode: k.ClaveProdServ, Quantity: api.Decimal(k.Cantidad), Discount: api.Decimal(k.Descuento),
			UnitOfMeasurementCode: k.ClaveUnidad, UnitOfMeasurement: optional(k.Unidad), Description: k.Descripcion,
			UnitPrice: api.Decimal(k.ValorUnitario), Amount: api.Decimal(k.Importe), TaxObjectCode: k.ObjetoImp, ItemSku: optional(k.NoIdentificacion),
			ItemTaxes: []api.InvoiceItemTaxShown{}}
		tr, rt := 0, 0
		for _, t := range l.taxes {
			if t.TaxFlagCode == "R" {
				t.Base, t.TaxAmount = api.Decimal(k.Retenciones[rt].Base), api.Decimal(k.Retenciones[rt].Importe)
				rt++
			} else {
				t.Base, t.TaxAmount = api.Decimal(k.Traslados[tr].Base), api.Decimal(k.Traslados[tr].Importe)
				tr++
			}
			it.ItemTaxes = append(it.ItemTaxes, t)
		}
		view.Items = append(view.Items, it)
	}
	viewJSON, err := json.Marshal(view)
	if err != nil {
		return api.Invoice{}, err
	}
	rec := storage.Invoice{
		ID: id, ResponseID: ids.New(now), PersonID: c.PersonID, IssuerPersonID: is.personID, RecipientPersonID: rc.personID,
		UUID: tfd.UUID, TypeCode: doc.TipoDeComprobante, IssuerTin: is.tin, RecipientTin: rc.tin, Total: doc.Total,
		Status: StatusValid, Date: doc.Fecha, Series: doc.Serie, View: viewJSON, XML: xml, CreatedAt: created, UpdatedAt: created,
	}
	err = s.Store.Batch(ctx, func(tx storage.Tx) error {
		p, err := tx.People(c.TenantID).Get(c.PersonID)
		if err != nil {
			return err
		}
		if err := hasStamps(p); err != nil {
			return err
		}
		if err := people.AddCredits(&p, CreditStamps, -1, created); err != nil {
			return apierr.Forbidden(MsgNoCredits)
		}
		if err := tx.People(c.TenantID).Put(p); err != nil {
			return err
		}
		used := storage.StampTransaction{Amount: 1, TransactionType: people.TxConsumption, CreditType: CreditStamps, ReferenceID: id}
		if err := people.RecordCredits(tx, c.TenantID, used, &p, nil, created); err != nil {
			return err
		}
		if err := tx.Invoices(c.TenantID).Put(rec); err != nil {
			return err
		}
		if also != nil {
			if err := also(tx, rec); err != nil {
				return err
			}
		}
		return s.emitIn(tx, c, EventStamped, id)
	})
	if err != nil {
		return api.Invoice{}, err
	}
	s.wake(c.TenantID)
	view.Responses = []api.InvoiceResponse{responseOf(rec, &doc, tfd)}
	return view, nil
}

// hasStamps is the 403 of a person without stamp credits.
func hasStamps(p storage.Person) error {
	if people.Available(p, CreditStamps) > 0 {
		return nil
	}
	return apierr.Forbidden(MsgNoCredits)
}

// Response is the stamp response of a stored invoice, rebuilt from its XML.
func Response(rec storage.Invoice) (api.InvoiceResponse, error) {
	doc, err := cfdi.Parse(rec.XML)
	if err != nil {
		return api.InvoiceResponse{}, fmt.Errorf("invoice %s: %w", rec.ID, err)
	}
	tfd := doc.TFD()
	if tfd == nil {
		return api.InvoiceResponse{}, fmt.Errorf("invoice %s: not stamped", rec.ID)
	}
	return responseOf(rec, doc, tfd), nil
}

// responseOf is the stamp response of an invoice from its document and stamp: parsed from the
// stored XML, or, when just stamped, the ones its XML was written from.
func responseOf(rec storage.Invoice, doc *cfdi.Comprobante, tfd *cfdi.TimbreFiscalDigital) api.InvoiceResponse {
	qr := ""
	if u, err := cfdi.QRURL(doc); err == nil {
		if png, err := QRPNG(u); err == nil {
			qr = base64.StdEncoding.EncodeToString(png)
		}
	}
	return api.InvoiceResponse{
		ID: rec.ResponseID, InvoiceID: rec.ID, InvoiceUUID: tfd.UUID, InvoiceCertificateNumber: doc.NoCertificado,
		InvoiceBase64Sello: doc.Sello, InvoiceSignatureDate: tfd.FechaTimbrado, InvoiceBase64QrCode: qr,
		InvoiceBase64: base64.StdEncoding.EncodeToString(rec.XML), SatBase64Sello: tfd.SelloSAT,
		SatBase64OriginalString: base64.StdEncoding.EncodeToString([]byte(tfd.Cadena())), SatCertificateNumber: tfd.NoCertificadoSAT,
		CreatedAt: api.FormatAudit(rec.CreatedAt), UpdatedAt: api.FormatAudit(rec.UpdatedAt),
	}
}

// xmlFailure is the 400 of a text the XML cannot carry (a control character, say).
func xmlFailure(err error) error {
	return apierr.Invalid(apierr.Parse("$", fmt.Sprintf(MsgXMLChar, err), nil))
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Deprecated answers the per-type endpoints discontinued on 2026-01-01 (spec 1 §9): 410 Gone
// naming POST /api/v4/invoices and, for a complement, where it moved.
func Deprecated(path string) error {
	complement := map[string]string{"payment": "payment", "payroll": "payroll", "local-taxes": "localTaxes"}
	name := path[strings.LastIndexByte(path, '/')+1:]
	details := fmt.Sprintf(MsgDeprecated, path)
	if c, ok := complement[name]; ok {
		details = fmt.Sprintf(MsgDeprecatedComplement, path, c, c)
	}
	return &apierr.Error{Status: http.StatusGone, Details: details}
}
