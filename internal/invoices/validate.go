package invoices

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/products"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

var (
	zipPattern  = regexp.MustCompile(ZipPattern)
	uuidPattern = regexp.MustCompile(`^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$`)
)

// Generic RFCs of SAT: the general public and foreign residents.
const (
	RFCPublic  = cfdi.RFCGeneric
	RFCForeign = cfdi.RFCForeign
)

// masked is the attemptedValue of an object or list that holds a secret (spec 1 §7.4).
const masked = "[masked]"

func attempted(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// checker gathers every failure of one request and what the checks resolved.
type checker struct {
	ctx context.Context
	s   *Service
	c   callerRef
	fs  []api.Failure
	err error // a lookup error (catalogs not imported, storage): the answer instead of the failures
	// lent are the releases of the keys opened for the request (taxfiles.Release): run by done
	// when the request has signed, so that a key the cache dropped meanwhile is zeroed.
	lent []taxfiles.Release
}

// done gives back the keys the request was lent.
func (k *checker) done() {
	for _, release := range k.lent {
		release()
	}
	k.lent = nil
}

type callerRef struct{ tenantID string }

func (k *checker) add(prop, msg string, value any, code string) {
	k.fs = append(k.fs, apierr.Field(prop, msg, value, code, apierr.Placeholders(prop, value)))
}

func (k *checker) fail(err error) {
	if k.err == nil {
		k.err = err
	}
}

// required reports an empty required text; it tells whether the value is there.
func (k *checker) required(prop, v string) bool {
	if strings.TrimSpace(v) == "" {
		k.add(prop, fmt.Sprintf(apierr.MsgNotEmpty, apierr.Words(prop)), attempted(v), CodeNotEmpty)
		return false
	}
	return true
}

// catalog checks a key against a catalog; it tells whether the key exists.
func (k *checker) catalog(prop, catalog, id string) bool {
	if k.s.Catalogs == nil {
		k.fail(errors.New("invoices: no catalog service"))
		return false
	}
	_, found, err := k.s.Catalogs.Lookup(k.ctx, catalog, id)
	if err != nil {
		k.fail(err)
		return false
	}
	if !found {
		k.add(prop, fmt.Sprintf(MsgNotInCatalog, id, satName[catalog]), id, CodeNotInCatalog)
	}
	return found
}

// requiredCode checks a required catalog key.
func (k *checker) requiredCode(prop, catalog, id string) bool {
	return k.required(prop, id) && k.catalog(prop, catalog, id)
}

// optionalCode checks a catalog key when sent.
func (k *checker) optionalCode(prop, catalog, id string) bool {
	return id == "" || k.catalog(prop, catalog, id)
}

// rfc checks a required RFC by cfdi.CheckRFC (shape and date; see there why not the check
// digit); the text says which.
func (k *checker) rfc(prop, v string) bool {
	if !k.required(prop, v) {
		return false
	}
	if err := cfdi.CheckRFC(v); err != nil {
		k.add(prop, err.Error(), v, CodeFormat)
		return false
	}
	return true
}

func (k *checker) zip(prop, v string) bool {
	if !k.required(prop, v) {
		return false
	}
	if !zipPattern.MatchString(v) {
		k.add(prop, fmt.Sprintf(MsgZipCode, v), v, CodeFormat)
		return false
	}
	return true
}

func (k *checker) maxLen(prop, v string, max int) {
	if n := utf8.RuneCountInString(v); n > max {
		k.add(prop, fmt.Sprintf(MsgTooLong, apierr.Words(prop), max, n), v, CodeFormat)
	}
}

// amount reads a number sent as a number or a string; ok false when it was reported.
func (k *checker) amount(prop string, v api.Amount) (cfdi.Decimal, bool) {
	d, err := cfdi.ParseDecimal(strings.TrimSpace(string(v)))
	if err != nil {
		k.add(prop, fmt.Sprintf(MsgAmount, apierr.Words(prop), string(v)), string(v), CodeFormat)
		return d, false
	}
	return d, true
}

// taxLine checks the catalog codes of a tax line (an item's or a paid invoice's) and reads its
// rate when sent (nil when not); ok is false when any of it was reported.
func (k *checker) taxLine(tp string, t api.InvoiceItemTax) (rate *big.Rat, rateDec cfdi.Decimal, ok bool) {
	ok = k.requiredCode(tp+".TaxCode", CatalogTaxes, t.TaxCode)
	ok = k.requiredCode(tp+".TaxTypeCode", CatalogTaxTypes, t.TaxTypeCode) && ok
	ok = k.requiredCode(tp+".TaxFlagCode", CatalogTaxFlags, t.TaxFlagCode) && ok
	if t.TaxRate != "" {
		d, read := k.amount(tp+".TaxRate", api.Amount(products.RoundRate(string(t.TaxRate))))
		if !read {
			return nil, rateDec, false
		}
		rateDec = d
		rate, _ = new(big.Rat).SetString(d.String())
	}
	return rate, rateDec, ok
}

// taxCombination checks that a tax line's tax, factor, withholding and rate go together (the
// products' rule, products.CheckTax), reported under tp with the messages' names of the invoice
// (group: "itemTaxes" or "paidInvoiceTaxes"); text is the rule's name of the combination.
func (k *checker) taxCombination(tp string, t api.InvoiceItemTax, rate *big.Rat, group string) (text string, ok bool) {
	prop, msg, text := products.CheckTax(t.TaxCode, t.TaxTypeCode, t.TaxFlagCode, rate)
	if prop == "" {
		return text, true
	}
	field := map[string]string{"Rate": "TaxRate", "TaxTypeId": "TaxTypeCode", "TaxFlagId": "TaxFlagCode"}[prop]
	msg = strings.NewReplacer("taxFlagId", "taxFlagCode", "productTaxes", group, "rate nulo", "taxRate nulo").Replace(msg)
	var shown any = string(t.TaxRate)
	switch field {
	case "TaxTypeCode":
		shown = t.TaxTypeCode
	case "TaxFlagCode":
		shown = t.TaxFlagCode
	}
	k.add(tp+"."+field, msg, shown, CodeRule)
	return text, false
}

// ---- the pieces a request resolves to

// issuer is the resolved issuer and its seal.
type issuer struct {
	personID          *string
	tin, name, regime string
	cert              *csd.Certificate
	key               *csd.PrivateKey
	certFailureProp   string // where a certificate failure found later is reported
	certAttempted     any
	byReference       bool
}

type recipient struct {
	personID                       *string
	tin, name, zip, regime, use    string
	email, countryID, foreignTin   string
	byReference                    bool
	residenciaFiscal, numRegIdTrib string
}

type line struct {
	productID *string
	item      cfdi.Item
	unitName  string
	sku       string
	taxes     []api.InvoiceItemTaxShown // codes and rates as sent (amounts added after Compute)
}

// header checks the invoice's own fields; it returns the invoice date (Mexico City local time,
// as an instant) and the Comprobante with them.
func (k *checker) header(in *api.InvoiceInput, now time.Time) (cfdi.Comprobante, time.Time, int) {
	doc := cfdi.Comprobante{Version: "4.0"}
	if in.VersionCode != "" && in.VersionCode != "4.0" {
		k.add("VersionCode", fmt.Sprintf(MsgVersion, in.VersionCode), in.VersionCode, CodeNotSupported)
	}
	if in.Series != "" {
		if n := utf8.RuneCountInString(in.Series); n > 25 {
			k.add("Series", fmt.Sprintf(MsgSeriesLength, n), in.Series, CodeFormat)
		}
		doc.Serie = in.Series
	}
	local := now.In(cfdi.Mexico)
	date := local.Truncate(time.Second)
	if in.Date != "" {
		d, ok := ParseDate(in.Date)
		switch {
		case !ok:
			k.add("Date", fmt.Sprintf(MsgDate, in.Date), in.Date, CodeFormat)
		case d.After(date): // SAT refuses a Fecha later than the stamp's FechaTimbrado, which is now
			k.add("Date", fmt.Sprintf(MsgDateFuture, in.Date, date.Format(cfdi.DateLayout)), in.Date, CodeRule)
		case d.Before(local.Add(-72 * time.Hour)):
			k.add("Date", fmt.Sprintf(MsgDateTooOld, in.Date), in.Date, CodeRule)
		default:
			date = d
		}
	}
	doc.Fecha = date.Format(cfdi.DateLayout)

	typ := in.TypeCode
	k.requiredCode("TypeCode", CatalogInvoiceTypes, typ)
	doc.TipoDeComprobante = typ

	currency := in.CurrencyCode
	if currency == "" {
		currency = "MXN"
	}
	k.catalog("CurrencyCode", CatalogCurrencies, currency)
	doc.Moneda = currency
	cd := decimalsOf(currency)
	if currency == "MXN" || currency == "XXX" {
		if in.ExchangeRate != "" {
			if r, ok := k.amount("ExchangeRate", in.ExchangeRate); ok && r.Cmp(cfdi.FromInt(1)) != 0 {
				k.add("ExchangeRate", fmt.Sprintf(MsgExchangeRateMXN, currency), string(in.ExchangeRate), CodeRule)
			}
		}
	} else {
		if in.ExchangeRate == "" {
			k.add("ExchangeRate", fmt.Sprintf(MsgExchangeRateNeeded, currency), nil, CodeRule)
		} else if r, ok := k.amount("ExchangeRate", in.ExchangeRate); ok {
			if r.Sign() <= 0 {
				k.add("ExchangeRate", fmt.Sprintf(MsgExchangeRateNeeded, currency), string(in.ExchangeRate), CodeRule)
			} else {
				doc.TipoCambio = r.String()
			}
		}
	}

	export := in.ExportCode
	if export == "" {
		export = "01"
	}
	k.catalog("ExportCode", CatalogExportCodes, export)
	doc.Exportacion = export
	if k.zip("ExpeditionZipCode", in.ExpeditionZipCode) {
		doc.LugarExpedicion = in.ExpeditionZipCode
	}

	if typ == cfdi.TipoNomina {
		k.payrollHeader(in, &doc)
	} else if typ == cfdi.TipoTraslado || typ == cfdi.TipoPago {
		for _, f := range []struct{ prop, v string }{{"PaymentFormCode", in.PaymentFormCode}, {"PaymentMethodCode", in.PaymentMethodCode}, {"PaymentConditions", in.PaymentConditions}} {
			if f.v != "" {
				k.add(f.prop, fmt.Sprintf(MsgNoPaymentFields, typ, lowerFirst(f.prop)), f.v, CodeRule)
			}
		}
	} else {
		form := k.requiredCode("PaymentFormCode", CatalogPaymentForms, in.PaymentFormCode)
		method := k.requiredCode("PaymentMethodCode", CatalogPaymentMethods, in.PaymentMethodCode)
		if form && method {
			if in.PaymentMethodCode == "PPD" && in.PaymentFormCode != "99" {
				k.add("PaymentFormCode", MsgPPDForm, in.PaymentFormCode, CodeRule)
			}
			if in.PaymentMethodCode == "PUE" && in.PaymentFormCode == "99" {
				k.add("PaymentFormCode", MsgPUEForm, in.PaymentFormCode, CodeRule)
			}
		}
		doc.FormaPago, doc.MetodoPago = in.PaymentFormCode, in.PaymentMethodCode
		if in.PaymentConditions != "" {
			k.maxLen("PaymentConditions", in.PaymentConditions, 1000)
			doc.CondicionesDePago = in.PaymentConditions
		}
	}

	for i, r := range in.RelatedInvoices {
		p := fmt.Sprintf("RelatedInvoices[%d]", i)
		k.requiredCode(p+".RelationshipTypeCode", CatalogRelationshipTypes, r.RelationshipTypeCode)
		if k.required(p+".Uuid", r.UUID) && !uuidPattern.MatchString(r.UUID) {
			k.add(p+".Uuid", fmt.Sprintf(MsgUUID, r.UUID), r.UUID, CodeFormat)
		}
		u := strings.ToUpper(r.UUID)
		if n := len(doc.CfdiRelacionados); n > 0 && doc.CfdiRelacionados[n-1].TipoRelacion == r.RelationshipTypeCode {
			doc.CfdiRelacionados[n-1].UUIDs = append(doc.CfdiRelacionados[n-1].UUIDs, u)
		} else {
			doc.CfdiRelacionados = append(doc.CfdiRelacionados, cfdi.CfdiRelacionados{TipoRelacion: r.RelationshipTypeCode, UUIDs: []string{u}})
		}
	}

	if g := in.GlobalInformation; g != nil {
		k.requiredCode("GlobalInformation.PeriodicityCode", CatalogPeriodicities, g.PeriodicityCode)
		k.requiredCode("GlobalInformation.MonthCode", CatalogMonths, g.MonthCode)
		year := strings.TrimSpace(string(g.Year))
		if n, err := strconv.Atoi(year); err != nil || len(year) != 4 || n < 2021 {
			k.add("GlobalInformation.Year", fmt.Sprintf(MsgYear, year), attempted(year), CodeFormat)
		}
		doc.InformacionGlobal = &cfdi.InformacionGlobal{Periodicidad: g.PeriodicityCode, Meses: g.MonthCode, Año: year}
	}
	return doc, date, cd
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// ParseDate reads a date-time as the API takes it (the invoice date, a ticket's payment): SAT's
// form without offset (fractions of a second are dropped), Mexico City time. A date with an
// offset (a client serializing a date-time object) is taken as that instant, in Mexico City time.
func ParseDate(s string) (time.Time, bool) {
	if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, cfdi.Mexico); err == nil {
		return t.Truncate(time.Second), true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.In(cfdi.Mexico).Truncate(time.Second), true
	}
	return time.Time{}, false
}

// issuerOf resolves the issuer: a person of the tenant with its default CSD (by reference), or
// the request's data and taxCredentials (by value). The certificate's date is checked later.
func (k *checker) issuerOf(in *api.InvoiceIssuerInput) issuer {
	var out issuer
	if in == nil {
		k.add("Issuer", fmt.Sprintf(apierr.MsgNotEmpty, "Issuer"), nil, CodeNotEmpty)
		return out
	}
	if id := strings.TrimSpace(in.ID); id != "" {
		out.byReference, out.personID = true, &id
		p, ok := k.person("Issuer.Id", id)
		if !ok {
			return out
		}
		out.tin, out.name, out.regime = strings.ToUpper(api.Deref(p.Tin)), p.LegalName, api.Deref(p.SatTaxRegimeID)
		if out.tin == "" {
			k.add("Issuer.Id", fmt.Sprintf(MsgPersonNoTin, id), id, CodeRule)
		} else if err := cfdi.CheckRFC(out.tin); err != nil {
			k.add("Issuer.Id", err.Error(), id, CodeFormat)
		}
		if out.regime == "" {
			k.add("Issuer.Id", fmt.Sprintf(MsgPersonNoRegime, id), id, CodeRule)
		} else {
			k.catalog("Issuer.Id", CatalogTaxRegimes, out.regime)
		}
		if k.s.TaxFiles == nil {
			k.fail(errors.New("invoices: no tax files service"))
			return out
		}
		cert, key, release, err := k.s.TaxFiles.DefaultPair(k.ctx, k.c.tenantID, id)
		if err == nil {
			k.lent = append(k.lent, release)
		}
		if e, isAPI := apierr.As(err); isAPI && e.Status == 404 {
			k.add("Issuer.Id", fmt.Sprintf(MsgIssuerNoFiles, id), id, CodeRule)
			return out
		} else if err != nil {
			k.fail(err)
			return out
		}
		out.cert, out.key, out.certFailureProp, out.certAttempted = cert, key, "Issuer.Id", id
		return out
	}

	out.tin, out.name, out.regime = strings.ToUpper(strings.TrimSpace(in.Tin)), in.LegalName, in.TaxRegimeCode
	k.rfc("Issuer.Tin", out.tin)
	if k.required("Issuer.LegalName", in.LegalName) {
		k.maxLen("Issuer.LegalName", in.LegalName, 254)
	}
	k.requiredCode("Issuer.TaxRegimeCode", CatalogTaxRegimes, in.TaxRegimeCode)
	k.credentials(in.TaxCredentials, &out)
	return out
}

// credentials opens the certificate and key sent by value. Their content and password are
// secrets: never echoed (`[masked: n]`, `[masked]` for the list, null for a wrong password).
func (k *checker) credentials(creds []api.InvoiceTaxCredential, out *issuer) {
	const prop = "Issuer.TaxCredentials"
	var certAt, keyAt = -1, -1
	for i, c := range creds {
		ft, f := taxfiles.ParseFileType(c.FileType)
		p := fmt.Sprintf("%s[%d]", prop, i)
		if f != nil || (ft != 0 && ft != 1) {
			shown := strings.Trim(strings.TrimSpace(string(c.FileType)), `"`)
			k.add(p+".FileType", fmt.Sprintf(MsgCredentialFileType, shown), attempted(shown), CodeFormat)
			continue
		}
		at := &certAt
		if ft == 1 {
			at = &keyAt
		}
		if *at >= 0 {
			k.add(prop, fmt.Sprintf(MsgCredentialRepeated, ft), masked, CodeRule)
			continue
		}
		*at = i
	}
	if certAt < 0 || keyAt < 0 {
		var shown any = masked
		if creds == nil {
			shown = nil
		}
		k.add(prop, MsgCredentialsNeeded, shown, CodeNotEmpty)
		return
	}
	content := func(i int) []byte {
		p := fmt.Sprintf("%s[%d].Base64File", prop, i)
		b := creds[i].Base64File
		m := apierr.Masked(b)
		if b == nil || strings.TrimSpace(*b) == "" {
			k.add(p, fmt.Sprintf(apierr.MsgNotEmpty, "Base64 File"), m, CodeNotEmpty)
			return nil
		}
		der, err := taxfiles.DecodeBase64(*b)
		if err != nil {
			k.add(p, MsgNotBase64, m, CodeFormat)
			return nil
		}
		return der
	}
	certDER, keyDER := content(certAt), content(keyAt)
	if certDER != nil {
		p := fmt.Sprintf("%s[%d].Base64File", prop, certAt)
		cert, err := csd.ParseCertificateCached(certDER)
		switch {
		case err != nil:
			k.add(p, MsgNotCertificate, apierr.Masked(creds[certAt].Base64File), CodeCertificate)
		case cert.Kind == csd.KindFIEL:
			k.add(p, MsgCertificateFIEL, apierr.Masked(creds[certAt].Base64File), CodeCertificate)
		case cert.Kind != csd.KindCSD:
			k.add(p, MsgCertificateNotCSD, apierr.Masked(creds[certAt].Base64File), CodeCertificate)
		default:
			if out.tin != "" && !strings.EqualFold(cert.RFC, out.tin) {
				k.add(p, fmt.Sprintf(MsgCertificateRFC, cert.RFC, out.tin), apierr.Masked(creds[certAt].Base64File), CodeCertificateRFC)
			}
			out.cert, out.certFailureProp, out.certAttempted = cert, p, apierr.Masked(creds[certAt].Base64File)
		}
	}
	if keyDER != nil {
		// The password is the key's; the clients send it on both files (their model says so).
		pw := api.Deref(creds[keyAt].Password)
		if pw == "" {
			pw = api.Deref(creds[certAt].Password)
		}
		var key *csd.PrivateKey
		var err error
		var release taxfiles.Release
		if k.s.TaxFiles != nil { // the same key and password of the tenant: opened once, kept a while
			key, release, err = k.s.TaxFiles.OpenKey(k.c.tenantID, keyDER, pw)
		} else if key, err = csd.ParsePrivateKey(keyDER, []byte(pw)); err == nil {
			release = key.Zero
		}
		if err == nil {
			k.lent = append(k.lent, release)
		}
		if err != nil {
			// spec 1 §7.4: a password that does not open the key gives attemptedValue null
			k.add(fmt.Sprintf("%s[%d].Password", prop, keyAt), taxfiles.MsgWrongPassword, nil, CodeWrongPassword)
			return
		}
		out.key = key
		if out.cert != nil && !out.cert.Matches(key) {
			k.add(fmt.Sprintf("%s[%d].Base64File", prop, keyAt), MsgKeyMismatch, apierr.Masked(creds[keyAt].Base64File), CodeKeyMismatch)
			out.key = nil
		}
	}
}

// certificateAt checks that the issuer's certificate is valid at the invoice's date.
func (k *checker) certificateAt(is *issuer, date time.Time) {
	if is.cert == nil || is.cert.ValidAt(date) {
		return
	}
	from, to := api.FormatAudit(is.cert.ValidFrom), api.FormatAudit(is.cert.ValidTo)
	msg := fmt.Sprintf(MsgCertificateDate, date.Format(cfdi.DateLayout), from, to)
	if is.byReference {
		msg = fmt.Sprintf(MsgIssuerDefaultBad, api.Deref(is.personID), date.Format(cfdi.DateLayout), from, to)
	}
	k.add(is.certFailureProp, msg, is.certAttempted, CodeCertificateDate)
}

// person reads a person of the tenant for a by-reference issuer or recipient.
func (k *checker) person(prop, id string) (storage.Person, bool) {
	var p storage.Person
	err := k.s.Store.View(k.ctx, func(tx storage.Tx) error {
		var err error
		p, err = tx.People(k.c.tenantID).Get(id)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		k.add(prop, fmt.Sprintf(MsgPersonAbsent, id), id, CodeRule)
		return p, false
	}
	if err != nil {
		k.fail(err)
		return p, false
	}
	return p, true
}

// recipientOf resolves the recipient: a person of the tenant (its cfdiUseCode may be sent to
// override the person's) or the request's data.
func (k *checker) recipientOf(in *api.InvoiceRecipientInput) recipient {
	var out recipient
	if in == nil {
		k.add("Recipient", fmt.Sprintf(apierr.MsgNotEmpty, "Recipient"), nil, CodeNotEmpty)
		return out
	}
	if id := strings.TrimSpace(in.ID); id != "" {
		out.byReference, out.personID = true, &id
		p, ok := k.person("Recipient.Id", id)
		if !ok {
			return out
		}
		out.tin, out.name, out.zip = strings.ToUpper(api.Deref(p.Tin)), p.LegalName, api.Deref(p.ZipCode)
		out.regime, out.use, out.email = api.Deref(p.SatTaxRegimeID), api.Deref(p.SatCfdiUseID), p.Email
		out.countryID, out.foreignTin = api.Deref(p.CountryID), api.Deref(p.ForeignTin)
		if in.CfdiUseCode != "" {
			out.use = in.CfdiUseCode
			k.catalog("Recipient.CfdiUseCode", CatalogCfdiUses, in.CfdiUseCode)
		}
		if out.tin == "" {
			k.add("Recipient.Id", fmt.Sprintf(MsgPersonNoTin, id), id, CodeRule)
		} else if err := cfdi.CheckRFC(out.tin); err != nil {
			k.add("Recipient.Id", err.Error(), id, CodeFormat)
		}
		if out.zip == "" {
			k.add("Recipient.Id", fmt.Sprintf(MsgPersonNoZip, id), id, CodeRule)
		}
		if out.regime == "" {
			k.add("Recipient.Id", fmt.Sprintf(MsgPersonNoRegime, id), id, CodeRule)
		}
		if out.use == "" {
			k.add("Recipient.Id", fmt.Sprintf(MsgPersonNoCfdiUse, id), id, CodeRule)
		}
	} else {
		out.tin, out.name, out.zip = strings.ToUpper(strings.TrimSpace(in.Tin)), in.LegalName, in.ZipCode
		out.regime, out.use, out.email = in.TaxRegimeCode, in.CfdiUseCode, in.Email
		out.countryID, out.foreignTin = in.CountryID, in.ForeignTin
		k.rfc("Recipient.Tin", out.tin)
		if k.required("Recipient.LegalName", in.LegalName) {
			k.maxLen("Recipient.LegalName", in.LegalName, 254)
		}
		k.zip("Recipient.ZipCode", in.ZipCode)
		k.requiredCode("Recipient.TaxRegimeCode", CatalogTaxRegimes, in.TaxRegimeCode)
		k.requiredCode("Recipient.CfdiUseCode", CatalogCfdiUses, in.CfdiUseCode)
		k.optionalCode("Recipient.CountryId", CatalogCountries, in.CountryID)
	}
	if out.tin == RFCForeign {
		out.residenciaFiscal, out.numRegIdTrib = out.countryID, out.foreignTin
		if out.byReference {
			k.foreignTin("Recipient.Id", out.countryID, out.foreignTin, *out.personID)
		} else {
			k.foreignTin("Recipient.ForeignTin", out.countryID, out.foreignTin, out.foreignTin)
		}
	}
	return out
}

// foreignTin checks the number a foreign recipient's CFDI carries (NumRegIdTrib) against the
// format c_Pais gives its country (ResidenciaFiscal), when it gives one, as SAT does.
func (k *checker) foreignTin(prop, country, tin string, attempted any) {
	if country == "" || tin == "" || k.s.Catalogs == nil {
		return
	}
	formats, err := k.s.Catalogs.TaxIDPatterns(k.ctx)
	if err != nil {
		k.fail(err)
		return
	}
	if f, ok := formats[country]; ok && !f.Match(tin) {
		k.add(prop, fmt.Sprintf(catalogs.MsgTaxIDFormat, tin, country, f.Pattern), attempted, CodeFormat)
	}
}

// lines resolves the items: products of the tenant by reference, the request's data by value.
func (k *checker) lines(items []api.InvoiceItemInput, typ string, cd int) []line {
	if len(items) == 0 {
		k.add("Items", MsgNoItems, nil, CodeNotEmpty)
		return nil
	}
	out := make([]line, 0, len(items))
	for i, in := range items {
		p := fmt.Sprintf("Items[%d]", i)
		var l line
		var code, unit, object, price string
		var taxes []api.InvoiceItemTax
		if id := strings.TrimSpace(in.ID); id != "" {
			l.productID = &id
			var pr storage.Product
			err := k.s.Store.View(k.ctx, func(tx storage.Tx) error {
				var err error
				pr, err = tx.Products(k.c.tenantID).Get(id)
				return err
			})
			if errors.Is(err, storage.ErrNotFound) {
				k.add(p+".Id", fmt.Sprintf(MsgProductAbsent, id), id, CodeRule)
				continue
			} else if err != nil {
				k.fail(err)
				continue
			}
			code, unit, object, price = pr.SatProductCodeID, pr.SatUnitMeasurementID, pr.SatTaxObjectID, pr.UnitPrice
			l.item.Descripcion = pr.Description
			for _, t := range pr.Taxes {
				taxes = append(taxes, api.InvoiceItemTax{TaxCode: t.TaxID, TaxTypeCode: t.TaxTypeID, TaxRate: api.Amount(t.Rate), TaxFlagCode: t.TaxFlagID})
			}
			l.unitName, l.sku = in.UnitOfMeasurement, in.ItemSku
		} else {
			code, unit, object, price, taxes = in.ItemCode, in.UnitOfMeasurementCode, in.TaxObjectCode, string(in.UnitPrice), in.ItemTaxes
			l.item.Descripcion, l.unitName, l.sku = in.Description, in.UnitOfMeasurement, in.ItemSku
			k.requiredCode(p+".ItemCode", CatalogProductCodes, code)
			k.requiredCode(p+".UnitOfMeasurementCode", CatalogUnitMeasurements, unit)
			if k.required(p+".Description", in.Description) {
				k.maxLen(p+".Description", in.Description, 1000)
			}
			k.requiredCode(p+".TaxObjectCode", CatalogTaxObjects, object)
			k.maxLen(p+".UnitOfMeasurement", in.UnitOfMeasurement, 20)
		}
		k.maxLen(p+".ItemSku", l.sku, 100)
		l.item.ClaveProdServ, l.item.ClaveUnidad, l.item.ObjetoImp = code, unit, object
		l.item.Unidad, l.item.NoIdentificacion = l.unitName, l.sku

		okNumbers := true
		if in.Quantity == "" {
			k.add(p+".Quantity", fmt.Sprintf(apierr.MsgNotEmpty, "Quantity"), nil, CodeNotEmpty)
			okNumbers = false
		} else if q, ok := k.amount(p+".Quantity", in.Quantity); !ok {
			okNumbers = false
		} else if q.Sign() <= 0 {
			k.add(p+".Quantity", MsgQuantity, string(in.Quantity), CodeRule)
			okNumbers = false
		} else {
			l.item.Cantidad = q
		}
		if l.productID == nil && in.UnitPrice == "" {
			k.add(p+".UnitPrice", fmt.Sprintf(apierr.MsgNotEmpty, "Unit Price"), nil, CodeNotEmpty)
			okNumbers = false
		} else if v, ok := k.amount(p+".UnitPrice", api.Amount(price)); !ok {
			okNumbers = false
		} else if v.Sign() < 0 {
			k.add(p+".UnitPrice", fmt.Sprintf(MsgAmountNegative, "Unit Price"), price, CodeRule)
			okNumbers = false
		} else {
			l.item.ValorUnitario = v
			if typ == cfdi.TipoTraslado && v.Sign() != 0 {
				k.add(p+".UnitPrice", MsgTrasladoPrice, price, CodeRule)
			}
		}
		if in.Discount != "" {
			if d, ok := k.amount(p+".Discount", in.Discount); !ok {
				okNumbers = false
			} else if d.Sign() < 0 {
				k.add(p+".Discount", fmt.Sprintf(MsgAmountNegative, "Discount"), string(in.Discount), CodeRule)
			} else {
				l.item.Descuento = d
				if okNumbers {
					importe, _ := l.item.Cantidad.MulRound(l.item.ValorUnitario, cd)
					if d.Round(cd).Cmp(importe) > 0 {
						k.add(p+".Discount", fmt.Sprintf(MsgDiscount, d.Round(cd).Fixed(cd), importe.Fixed(cd)), string(in.Discount), CodeRule)
					}
				}
			}
		}

		if typ == cfdi.TipoTraslado && len(taxes) > 0 {
			k.add(p+".ItemTaxes", MsgTrasladoTaxes, nil, CodeRule)
		} else if object != "" {
			switch {
			case object == "02" && len(taxes) == 0:
				k.add(p+".ItemTaxes", MsgTaxObjectNeedsTax, nil, CodeRule)
			case (object == "01" || object == "03" || object == "04") && len(taxes) > 0:
				k.add(p+".ItemTaxes", fmt.Sprintf(MsgTaxObjectNoTaxes, object), nil, CodeRule)
			}
		}
		for j, t := range taxes {
			tp := fmt.Sprintf("%s.ItemTaxes[%d]", p, j)
			rate, rateDec, ok := k.taxLine(tp, t)
			if !ok {
				continue
			}
			text, ok := k.taxCombination(tp, t, rate, "itemTaxes")
			if !ok {
				continue
			}
			l.item.Taxes = append(l.item.Taxes, cfdi.Tax{Impuesto: t.TaxCode, TipoFactor: t.TaxTypeCode, TasaOCuota: rateDec,
				Retencion: t.TaxFlagCode == products.FlagWithheld})
			shownRate := api.Decimal(text)
			l.taxes = append(l.taxes, api.InvoiceItemTaxShown{TaxCode: t.TaxCode, TaxTypeCode: t.TaxTypeCode, TaxRate: shownRate, TaxFlagCode: t.TaxFlagCode})
		}
		out = append(out, l)
	}
	return out
}

// complements refuses what is not stamped yet and what moved (spec 1 §9), and reads the local
// taxes.
func (k *checker) complements(in *api.InvoiceInput, cd int) (*cfdi.ImpuestosLocales, cfdi.Decimal, cfdi.Decimal, *api.InvoiceLocalTaxesShown) {
	sent := func(r []byte) bool { return len(r) > 0 && string(r) != "null" }
	if sent(in.Payments) {
		k.add("Payments", fmt.Sprintf(MsgComplementMoved, "payments", "complement.payment"), nil, CodeMoved)
	}
	if sent(in.Payroll) {
		k.add("Payroll", fmt.Sprintf(MsgComplementMoved, "payroll", "complement.payroll"), nil, CodeMoved)
	}
	if sent(in.LocalTaxes) {
		k.add("LocalTaxes", fmt.Sprintf(MsgComplementMoved, "localTaxes", "complement.localTaxes"), nil, CodeMoved)
	}
	c := in.Complement
	if c == nil {
		return nil, cfdi.Zero, cfdi.Zero, nil
	}
	for _, x := range []struct {
		prop, name string
		raw        []byte
	}{{"Complement.CartaPorte", "cartaPorte", c.CartaPorte}, {"Complement.ComercioExterior", "comercioExterior", c.ComercioExterior}} {
		if sent(x.raw) {
			k.add(x.prop, fmt.Sprintf(MsgComplementNotYet, x.name), nil, CodeNotSupported)
		}
	}
	if c.LocalTaxes == nil || len(c.LocalTaxes.Taxes) == 0 {
		return nil, cfdi.Zero, cfdi.Zero, nil
	}
	loc := &cfdi.ImpuestosLocales{Version: "1.0"}
	shown := &api.InvoiceLocalTaxesShown{}
	var ret, tras cfdi.Decimal
	for i, t := range c.LocalTaxes.Taxes {
		p := fmt.Sprintf("Complement.LocalTaxes.Taxes[%d]", i)
		k.required(p+".TaxName", t.TaxName)
		rate, okR := k.amount(p+".TaxRate", t.TaxRate)
		amt, okA := k.amount(p+".TaxAmount", t.TaxAmount)
		if okR && (rate.Sign() < 0 || rate.Places() > 2) {
			k.add(p+".TaxRate", MsgLocalRate, string(t.TaxRate), CodeFormat)
			okR = false
		}
		if okA && amt.Sign() < 0 {
			k.add(p+".TaxAmount", fmt.Sprintf(MsgAmountNegative, "Tax Amount"), string(t.TaxAmount), CodeRule)
			okA = false
		}
		if t.TaxFlagCode != products.FlagTransferred && t.TaxFlagCode != products.FlagWithheld {
			k.add(p+".TaxFlagCode", fmt.Sprintf(MsgLocalFlag, t.TaxFlagCode), attempted(t.TaxFlagCode), CodeFormat)
			continue
		}
		if !okR || !okA {
			continue
		}
		il := cfdi.ImpuestoLocal{Nombre: t.TaxName, Tasa: rate.Fixed(2), Importe: amt.Round(cd).Fixed(cd)}
		shown.Taxes = append(shown.Taxes, api.InvoiceLocalTaxShown{TaxName: t.TaxName, TaxRate: api.Decimal(il.Tasa), TaxAmount: api.Decimal(il.Importe), TaxFlagCode: t.TaxFlagCode})
		if t.TaxFlagCode == products.FlagWithheld {
			loc.Retenciones = append(loc.Retenciones, il)
			ret, _ = ret.Add(amt.Round(cd))
		} else {
			loc.Traslados = append(loc.Traslados, il)
			tras, _ = tras.Add(amt.Round(cd))
		}
	}
	loc.TotaldeRetenciones, loc.TotaldeTraslados = ret.Fixed(cd), tras.Fixed(cd)
	return loc, ret, tras, shown
}
