package storage

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

var (
	bucketInvoices        = []byte("invoices")
	bucketInvoicesByUUID  = []byte("invoices_by_uuid")
	bucketInvoicesSummary = []byte("invoices_summary")
	// bucketInvoicesCanceling holds the invoices of every tenant waiting for the recipient's
	// answer to a cancellation, by tenant and id, with the request's time.
	bucketInvoicesCanceling = []byte("invoices_canceling")
	// bucketInvoicesBy indexes each tenant's invoices by every field a list filters on (schema
	// 16): "<tenant>/<field>/" and the folded value, length-prefixed, then the invoice's id (so
	// creation order); counted in counts under "invoices_by/" and the same prefix.
	bucketInvoicesBy = []byte("invoices_by")
	// bucketInvoicesPairs counts each tenant's invoices by every pair of indexed fields (schema
	// 27): the first field's byPrefix, then the second field, the length of its folded value and
	// the value (the two in InvoiceFields order) → the count, so that a list filtered on two
	// fields knows its total without walking either index.
	bucketInvoicesPairs = []byte("invoices_pairs")
	// bucketInvoicesDays counts each tenant's invoices by the day of their date (the CFDI's
	// Fecha, YYYY-MM-DD as written), of all and of each value of each indexed field (schema 31):
	// the field's byPrefix (AllInvoices and "" for all), then the day → the count, so that a
	// list between two dates knows its total from one counter a day.
	bucketInvoicesDays = []byte("invoices_days")
)

// AllInvoices names, where a field is asked for, every invoice of the tenant (CountDays).
const AllInvoices InvoiceField = '*'

// InvoiceField is a field of InvoiceSummary that lists filter on, each kept as an index.
type InvoiceField byte

// The indexed fields (the byte is the index's key part).
const (
	ByIssuerTin         InvoiceField = 'i'
	ByRecipientTin      InvoiceField = 'r'
	ByIssuerPersonID    InvoiceField = 'I'
	ByRecipientPersonID InvoiceField = 'R'
	ByTypeCode          InvoiceField = 't'
	ByStatus            InvoiceField = 's'
	BySeries            InvoiceField = 'e'
)

// InvoiceFields is every indexed field.
var InvoiceFields = []InvoiceField{ByIssuerTin, ByRecipientTin, ByIssuerPersonID, ByRecipientPersonID, ByTypeCode, ByStatus, BySeries}

// Fold is the form in which a filter and a field are compared: case folded, so that "aaa" finds
// "AAA" (and the Kelvin sign finds k, as strings.EqualFold would).
//
// An ASCII value (an RFC, a type, a status, an id) is its upper case, which costs nothing when it
// already is; only other text goes through the lower case first.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.ToUpper(strings.ToLower(s))
		}
	}
	return strings.ToUpper(s)
}

// StatusCanceling is the status of an invoice whose cancellation waits for the recipient
// (catalog InvoiceStatuses); Invoices.Put keeps such invoices in PendingCancellations.
const StatusCanceling = "EnProcesoDeCancelacion"

// Meta keys of the server's stamping identity (the certification provider of its environment):
// the certificate (DER) and its private key (PKCS#8 DER sealed under the master key), where they
// came from ("generated" by the server on the first stamp of a test database, or "operator":
// given to `timbra server`; absent on identities stored before it was kept, all generated), and
// the certificates an operator's identity replaced (a JSON array of DER, base64), so the stamps
// they made are still the server's.
const (
	MetaPACCertificate = "pac_certificate"
	MetaPACKey         = "pac_key"
	MetaPACOrigin      = "pac_origin"
	MetaPACPrevious    = "pac_previous"
)

// Invoice is a stamped CFDI of a tenant as stored: the stamped XML as SAT would receive it, what
// the invoice answer showed at creation (View, the JSON of its invoice fields, without the
// stamp responses, which are rebuilt from the XML), and the fields lists and lookups need.
type Invoice struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	// ResponseID is the id of the stamp response (the answer's responses[0].id).
	ResponseID string `json:"responseId"`
	// PersonID is the caller who stamped it (and whose stamp credit paid for it).
	PersonID string `json:"personId"`
	// IssuerPersonID and RecipientPersonID are the people named by reference; nil by value.
	IssuerPersonID    *string `json:"issuerPersonId,omitempty"`
	RecipientPersonID *string `json:"recipientPersonId,omitempty"`
	UUID              string  `json:"uuid"` // upper case, as in the TFD
	TypeCode          string  `json:"typeCode"`
	IssuerTin         string  `json:"issuerTin"`
	RecipientTin      string  `json:"recipientTin"`
	Total             string  `json:"total"`
	Status            string  `json:"status"` // "Vigente" when stamped
	// Date is the CFDI's Fecha (Mexico City time, as written) and Series its Serie.
	Date   string `json:"date,omitempty"`
	Series string `json:"series,omitempty"`
	// Cancellation is the last cancellation request, nil when none was made.
	Cancellation *InvoiceCancellation `json:"cancellation,omitempty"`
	View         json.RawMessage      `json:"view"`
	XML          []byte               `json:"xml"`
	CreatedAt    time.Time            `json:"createdAt"`
	UpdatedAt    time.Time            `json:"updatedAt"`
}

// Invoices is the stamped invoices of one tenant.
type Invoices interface {
	// Get returns an invoice, ErrNotFound when the tenant has none with that id.
	Get(id string) (Invoice, error)
	// GetMany returns the invoices of ids in their order (a page: read at once where the backend
	// can); ErrNotFound when one is missing.
	GetMany(ids []string) ([]Invoice, error)
	// ByUUID finds an invoice by its fiscal folio (UUID, any case); ErrNotFound when absent.
	ByUUID(uuid string) (Invoice, error)
	// Put saves an invoice with its UUID index.
	Put(v Invoice) error
	// List returns invoices in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]Invoice, int, error)
	// EachSummary calls fn with the summary of every invoice made in [from, to) (a zero time
	// leaves that side open), in creation order, without decoding the invoices; fn returning
	// ErrStop ends the walk without an error.
	EachSummary(from, to time.Time, fn func(s InvoiceSummary) error) error
	// CountBy is the number of the tenant's invoices whose field folds as value does, kept.
	CountBy(f InvoiceField, value string) (int, error)
	// EachBy is EachSummary over the invoices whose field folds as value does: it walks only
	// those (an empty value matches nothing).
	EachBy(f InvoiceField, value string, from, to time.Time, fn func(s InvoiceSummary) error) error
	// CountBoth is the number of the tenant's invoices whose field f folds as a does and whose
	// field g folds as b does, kept for every pair of indexed fields (0 when a value is empty or
	// f is g).
	CountBoth(f InvoiceField, a string, g InvoiceField, b string) (int, error)
	// CountDays is the number of the tenant's invoices whose field f folds as value does (f
	// AllInvoices: every invoice) dated from day from to day to (YYYY-MM-DD, both included; ""
	// leaves a side open), from one kept counter a day.
	CountDays(f InvoiceField, value, from, to string) (int, error)
}

// PendingCancellation is an invoice waiting for the recipient's answer to its cancellation.
type PendingCancellation struct {
	TenantID, InvoiceID string
	RequestedAt         time.Time
}

// InvoiceSummary is what lists filter an invoice by, kept beside it by Invoices.Put.
type InvoiceSummary struct {
	ID, IssuerTin, RecipientTin, IssuerPersonID, RecipientPersonID, TypeCode, Status string
	// Date is the CFDI's Fecha, Series its Serie.
	Date, Series string
}

// Field is the value of an indexed field.
func (r InvoiceSummary) Field(f InvoiceField) string {
	switch f {
	case ByIssuerTin:
		return r.IssuerTin
	case ByRecipientTin:
		return r.RecipientTin
	case ByIssuerPersonID:
		return r.IssuerPersonID
	case ByRecipientPersonID:
		return r.RecipientPersonID
	case ByTypeCode:
		return r.TypeCode
	case ByStatus:
		return r.Status
	case BySeries:
		return r.Series
	}
	return ""
}

// invoiceDates fills an invoice's Date and Series from its answer when they are empty (invoices
// stored before they were fields).
func invoiceDates(v *Invoice) error {
	if v.Date != "" || len(v.View) == 0 {
		return nil
	}
	var shown struct {
		Date   string  `json:"date"`
		Series *string `json:"series"`
	}
	if err := json.Unmarshal(v.View, &shown); err != nil {
		return fmt.Errorf("storage: invoice %s: %w", v.ID, err)
	}
	v.Date = shown.Date
	if shown.Series != nil {
		v.Series = *shown.Series
	}
	return nil
}

// InvoiceCancellation is a cancellation request of an invoice and how it ended.
type InvoiceCancellation struct {
	ReasonCode      string `json:"reasonCode"`
	ReplacementUUID string `json:"replacementUuid,omitempty"`
	// Status is SAT's EstatusCancelacion: "En proceso", "Cancelado sin aceptación",
	// "Cancelado con aceptación", "Solicitud rechazada".
	Status          string     `json:"status"`
	RequestedAt     time.Time  `json:"requestedAt"`
	AnsweredAt      *time.Time `json:"answeredAt,omitempty"`
	Acknowledgement []byte     `json:"acknowledgement"`
}
