package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
)

// Amount is a number of an invoice request as the official clients send it: a JSON number or a
// string holding one (their model types quantity, unitPrice, taxRate... as `number | string`).
// The text is kept, so amounts are read exactly. A string that holds no number is a value of the
// wrong type, a parsing error at the field's path (spec 1 §7.5), as a boolean would be; an empty
// one is left to the field's checks.
type Amount string

// UnmarshalJSON keeps a number's text or the content of a string holding one; null is empty;
// anything else is a type error at the field's path.
func (a *Amount) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if !NumberText(s) {
			return &json.UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[float64]()}
		}
		*a = Amount(s)
		return nil
	case len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9')):
		*a = Amount(b)
		return nil
	}
	return &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeFor[float64]()}
}

// NumberText tells whether a string may stand for an Amount: empty (left to the field's checks)
// or a number as JSON writes one, spaces around it aside.
func NumberText(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return true
	}
	if s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// InvoiceInput is the body of POST /api/v4/invoices (spec 3 §4.1), in the two modes of the
// official clients' Invoice model: by value (issuer, recipient and items in full, the seal from
// issuer.taxCredentials) or by reference (issuer and recipient {id} of people, items {id,
// quantity} of products, the seal from the issuer's default tax files).
type InvoiceInput struct {
	VersionCode       string                    `json:"versionCode"`
	Series            string                    `json:"series"`
	Date              string                    `json:"date"`
	PaymentFormCode   string                    `json:"paymentFormCode"`
	PaymentConditions string                    `json:"paymentConditions"`
	CurrencyCode      string                    `json:"currencyCode"`
	TypeCode          string                    `json:"typeCode"`
	ExpeditionZipCode string                    `json:"expeditionZipCode"`
	PaymentMethodCode string                    `json:"paymentMethodCode"`
	ExchangeRate      Amount                    `json:"exchangeRate"`
	ExportCode        string                    `json:"exportCode"`
	Issuer            *InvoiceIssuerInput       `json:"issuer"`
	Recipient         *InvoiceRecipientInput    `json:"recipient"`
	Items             []InvoiceItemInput        `json:"items"`
	GlobalInformation *InvoiceGlobalInformation `json:"globalInformation"`
	RelatedInvoices   []InvoiceRelated          `json:"relatedInvoices"`
	Complement        *InvoiceComplementInput   `json:"complement"`
	// Payments is the location of the payment complement before 2026 (spec 1 §9): refused with
	// a failure naming the new one.
	Payments json.RawMessage `json:"payments"`
	// Payroll and LocalTaxes are the old locations of those complements, refused alike.
	Payroll    json.RawMessage `json:"payroll"`
	LocalTaxes json.RawMessage `json:"localTaxes"`
}

// InvoiceIssuerInput is the issuer: {id} by reference, the rest by value.
type InvoiceIssuerInput struct {
	ID             string                 `json:"id"`
	Tin            string                 `json:"tin"`
	LegalName      string                 `json:"legalName"`
	TaxRegimeCode  string                 `json:"taxRegimeCode"`
	TaxCredentials []InvoiceTaxCredential `json:"taxCredentials"`
	EmployerData   json.RawMessage        `json:"employerData"`
}

// InvoiceTaxCredential is one file of the issuer's CSD sent by value: the certificate (fileType
// 0) or the private key (fileType 1) with its password. Never echoed.
type InvoiceTaxCredential struct {
	Base64File *string         `json:"base64File"`
	FileType   json.RawMessage `json:"fileType"`
	Password   *string         `json:"password"`
}

// InvoiceRecipientInput is the recipient: {id} by reference (cfdiUseCode may then override the
// person's), the rest by value.
type InvoiceRecipientInput struct {
	ID            string          `json:"id"`
	Tin           string          `json:"tin"`
	LegalName     string          `json:"legalName"`
	ZipCode       string          `json:"zipCode"`
	TaxRegimeCode string          `json:"taxRegimeCode"`
	CfdiUseCode   string          `json:"cfdiUseCode"`
	Email         string          `json:"email"`
	CountryID     string          `json:"countryId"`
	ForeignTin    string          `json:"foreignTin"`
	EmployeeData  json.RawMessage `json:"employeeData"`
}

// InvoiceItemInput is one line: {id, quantity, discount} of a product by reference, the rest by
// value.
type InvoiceItemInput struct {
	ID                    string           `json:"id"`
	ItemCode              string           `json:"itemCode"`
	Quantity              Amount           `json:"quantity"`
	Discount              Amount           `json:"discount"`
	UnitOfMeasurementCode string           `json:"unitOfMeasurementCode"`
	UnitOfMeasurement     string           `json:"unitOfMeasurement"`
	Description           string           `json:"description"`
	UnitPrice             Amount           `json:"unitPrice"`
	TaxObjectCode         string           `json:"taxObjectCode"`
	ItemSku               string           `json:"itemSku"`
	ItemTaxes             []InvoiceItemTax `json:"itemTaxes"`
}

// InvoiceItemTax is one tax of a line: c_Impuesto, c_TipoFactor, the rate and T (transferred)
// or R (withheld).
type InvoiceItemTax struct {
	TaxCode     string `json:"taxCode"`
	TaxTypeCode string `json:"taxTypeCode"`
	TaxRate     Amount `json:"taxRate"`
	TaxFlagCode string `json:"taxFlagCode"`
}

// InvoiceGlobalInformation is the InformacionGlobal of a global invoice.
type InvoiceGlobalInformation struct {
	PeriodicityCode string `json:"periodicityCode"`
	MonthCode       string `json:"monthCode"`
	Year            Amount `json:"year"`
}

// InvoiceRelated is one related CFDI.
type InvoiceRelated struct {
	RelationshipTypeCode string `json:"relationshipTypeCode"`
	UUID                 string `json:"uuid"`
}

// InvoiceComplementInput is the container of complements (spec 1 §9).
type InvoiceComplementInput struct {
	LocalTaxes       *InvoiceLocalTaxes `json:"localTaxes"`
	Payment          json.RawMessage    `json:"payment"`
	Payroll          json.RawMessage    `json:"payroll"`
	CartaPorte       json.RawMessage    `json:"cartaPorte"`
	ComercioExterior json.RawMessage    `json:"comercioExterior"`
}

// InvoiceLocalTaxes is the Impuestos Locales 1.0 complement as the clients send it.
type InvoiceLocalTaxes struct {
	Taxes []InvoiceLocalTax `json:"taxes"`
}

// InvoiceLocalTax is one local tax: its name, rate (percent, 2 decimals), amount and T or R.
type InvoiceLocalTax struct {
	TaxName     string `json:"taxName"`
	TaxRate     Amount `json:"taxRate"`
	TaxAmount   Amount `json:"taxAmount"`
	TaxFlagCode string `json:"taxFlagCode"`
}

// Invoice is a stamped invoice as answered: the fields of the official clients' Invoice model,
// amounts as SAT wrote them (numbers), and the stamp in responses.
type Invoice struct {
	ID                string                    `json:"id"`
	VersionCode       string                    `json:"versionCode"`
	Series            *string                   `json:"series"`
	Date              string                    `json:"date"`
	Subtotal          Decimal                   `json:"subtotal"`
	Discount          Decimal                   `json:"discount"`
	Total             Decimal                   `json:"total"`
	UUID              string                    `json:"uuid"`
	Status            string                    `json:"status"`
	PaymentFormCode   *string                   `json:"paymentFormCode"`
	PaymentConditions *string                   `json:"paymentConditions"`
	CurrencyCode      string                    `json:"currencyCode"`
	ExchangeRate      Decimal                   `json:"exchangeRate"`
	TypeCode          string                    `json:"typeCode"`
	ExpeditionZipCode string                    `json:"expeditionZipCode"`
	ExportCode        string                    `json:"exportCode"`
	PaymentMethodCode *string                   `json:"paymentMethodCode"`
	Issuer            InvoiceIssuer             `json:"issuer"`
	Recipient         InvoiceRecipient          `json:"recipient"`
	Items             []InvoiceItem             `json:"items"`
	GlobalInformation *InvoiceGlobalInformation `json:"globalInformation"`
	RelatedInvoices   []InvoiceRelated          `json:"relatedInvoices"`
	Complement        *InvoiceComplement        `json:"complement"`
	Responses         []InvoiceResponse         `json:"responses"`
	CreatedAt         string                    `json:"createdAt"`
	UpdatedAt         string                    `json:"updatedAt"`
}

// InvoiceIssuer is the issuer of an answer (never its tax credentials).
type InvoiceIssuer struct {
	ID            *string `json:"id"`
	Tin           string  `json:"tin"`
	LegalName     string  `json:"legalName"`
	TaxRegimeCode string  `json:"taxRegimeCode"`
}

// InvoiceRecipient is the recipient of an answer.
type InvoiceRecipient struct {
	ID            *string `json:"id"`
	Tin           string  `json:"tin"`
	LegalName     string  `json:"legalName"`
	ZipCode       string  `json:"zipCode"`
	TaxRegimeCode string  `json:"taxRegimeCode"`
	CfdiUseCode   string  `json:"cfdiUseCode"`
	Email         *string `json:"email"`
	CountryID     *string `json:"countryId"`
	ForeignTin    *string `json:"foreignTin"`
}

// InvoiceItem is a line of an answer, its amounts as the CFDI carries them.
type InvoiceItem struct {
	ID                    *string               `json:"id"`
	ItemCode              string                `json:"itemCode"`
	Quantity              Decimal               `json:"quantity"`
	Discount              Decimal               `json:"discount"`
	UnitOfMeasurementCode string                `json:"unitOfMeasurementCode"`
	UnitOfMeasurement     *string               `json:"unitOfMeasurement"`
	Description           string                `json:"description"`
	UnitPrice             Decimal               `json:"unitPrice"`
	Amount                Decimal               `json:"amount"`
	TaxObjectCode         string                `json:"taxObjectCode"`
	ItemSku               *string               `json:"itemSku"`
	ItemTaxes             []InvoiceItemTaxShown `json:"itemTaxes"`
}

// InvoiceItemTaxShown is a tax of a line in an answer, with its base and amount.
type InvoiceItemTaxShown struct {
	TaxCode     string  `json:"taxCode"`
	TaxTypeCode string  `json:"taxTypeCode"`
	TaxRate     Decimal `json:"taxRate"`
	TaxFlagCode string  `json:"taxFlagCode"`
	Base        Decimal `json:"base"`
	TaxAmount   Decimal `json:"taxAmount"`
}

// InvoiceComplement is the complements of an answer.
type InvoiceComplement struct {
	LocalTaxes *InvoiceLocalTaxesShown `json:"localTaxes,omitempty"`
}

// InvoiceLocalTaxesShown is the Impuestos Locales of an answer.
type InvoiceLocalTaxesShown struct {
	Taxes []InvoiceLocalTaxShown `json:"taxes"`
}

// InvoiceLocalTaxShown is one local tax of an answer.
type InvoiceLocalTaxShown struct {
	TaxName     string  `json:"taxName"`
	TaxRate     Decimal `json:"taxRate"`
	TaxAmount   Decimal `json:"taxAmount"`
	TaxFlagCode string  `json:"taxFlagCode"`
}

// InvoiceResponse is the stamp of an invoice as the clients read it (their InvoiceResponse).
type InvoiceResponse struct {
	ID                       string `json:"id"`
	InvoiceID                string `json:"invoiceId"`
	InvoiceUUID              string `json:"invoiceUuid"`
	InvoiceCertificateNumber string `json:"invoiceCertificateNumber"`
	InvoiceBase64Sello       string `json:"invoiceBase64Sello"`
	InvoiceSignatureDate     string `json:"invoiceSignatureDate"`
	InvoiceBase64QrCode      string `json:"invoiceBase64QrCode"`
	InvoiceBase64            string `json:"invoiceBase64"`
	SatBase64Sello           string `json:"satBase64Sello"`
	SatBase64OriginalString  string `json:"satBase64OriginalString"`
	SatCertificateNumber     string `json:"satCertificateNumber"`
	CreatedAt                string `json:"createdAt"`
	UpdatedAt                string `json:"updatedAt"`
}

// MarshalJSON writes a numeric Amount as a number, anything else as a string, empty as null.
func (a Amount) MarshalJSON() ([]byte, error) {
	if a == "" {
		return []byte("null"), nil
	}
	var n json.Number
	if err := json.Unmarshal([]byte(a), &n); err == nil && (a[0] == '-' || (a[0] >= '0' && a[0] <= '9')) {
		return []byte(a), nil
	}
	return json.Marshal(string(a))
}

// CreateInvoice stamps an invoice (POST /api/v4/invoices); body is the request as JSON, sent as
// it is.
func (c *Client) CreateInvoice(ctx context.Context, body json.RawMessage) (Invoice, error) {
	var out Invoice
	err := c.Do(ctx, http.MethodPost, "/api/v4/invoices", nil, body, &out)
	return out, err
}
