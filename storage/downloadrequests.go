package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"time"
)

var (
	bucketDownloadRequests       = []byte("download_requests")
	bucketDownloadRequestsActive = []byte("download_requests_active")
	bucketDownloadPackages       = []byte("download_packages")
	bucketDownloadItems          = []byte("download_items")
	// bucketDownloadRequestsSummary holds what a search filters by, per request; and
	// bucketDownloadRequestsBy the requests by each field a search filters on, counted.
	bucketDownloadRequestsSummary = []byte("download_requests_summary")
	bucketDownloadRequestsBy      = []byte("download_requests_by")
	bucketDownloadRequestsQuery   = []byte("download_requests_by_query")
	// bucketDownloadRequestsPairs counts the requests by every pair of the fields a search
	// filters on (schema 29; pairs.go).
	bucketDownloadRequestsPairs = []byte("download_requests_pairs")
)

// DownloadRequestField is a field a search of download requests filters on, each kept as an
// index (download_requests_by) whose values are counted.
type DownloadRequestField byte

// The indexed fields of a download request.
const (
	RequestsByDay          DownloadRequestField = 'd' // the creation day in UTC, YYYY-MM-DD
	RequestsByStatus       DownloadRequestField = 's' // DownloadRequestStatusID
	RequestsByDownloadType DownloadRequestField = 't' // DownloadTypeID
	RequestsByQueryType    DownloadRequestField = 'q' // SatQueryTypeID
	RequestsByRequestType  DownloadRequestField = 'k' // DownloadRequestTypeID
	RequestsByRule         DownloadRequestField = 'r' // DownloadRuleID
	RequestsByRequester    DownloadRequestField = 'n' // RequesterTin
)

// DownloadRequestFields is every indexed field.
var DownloadRequestFields = []DownloadRequestField{RequestsByDay, RequestsByStatus, RequestsByDownloadType,
	RequestsByQueryType, RequestsByRequestType, RequestsByRule, RequestsByRequester}

// DownloadRequestSummary is what a search of download requests filters by, as stored (not
// folded), rewritten by every Put.
type DownloadRequestSummary struct {
	ID, Day, Status, DownloadType, QueryType, RequestType, Rule, Requester string
}

// SummaryOf is the summary of a request.
func SummaryOf(r DownloadRequest) DownloadRequestSummary {
	return DownloadRequestSummary{ID: r.ID, Day: r.CreatedAt.UTC().Format(time.DateOnly), Status: r.DownloadRequestStatusID,
		DownloadType: r.DownloadTypeID, QueryType: r.SatQueryTypeID, RequestType: r.DownloadRequestTypeID, Rule: r.DownloadRuleID,
		Requester: r.RequesterTin}
}

// Field is the value of one indexed field.
func (s DownloadRequestSummary) Field(f DownloadRequestField) string {
	switch f {
	case RequestsByDay:
		return s.Day
	case RequestsByStatus:
		return s.Status
	case RequestsByDownloadType:
		return s.DownloadType
	case RequestsByQueryType:
		return s.QueryType
	case RequestsByRequestType:
		return s.RequestType
	case RequestsByRule:
		return s.Rule
	case RequestsByRequester:
		return s.Requester
	}
	return ""
}

// DownloadRequest is a bulk download request of a tenant (the official client's
// DownloadRequest) and what the worker knows of it at the SAT.
type DownloadRequest struct {
	ID                    string `json:"id"`
	TenantID              string `json:"tenantId"`
	PersonID              string `json:"personId"` // whose e.firma signs
	Consecutive           int64  `json:"consecutive"`
	DownloadRuleID        string `json:"downloadRuleId,omitempty"`
	DownloadTypeID        string `json:"downloadTypeId"`        // Emitidos, Recibidos, Uuid
	DownloadRequestTypeID string `json:"downloadRequestTypeId"` // Manual, Automatic
	SatQueryTypeID        string `json:"satQueryTypeId"`        // CFDI, Metadata, Retenciones
	SatInvoiceTypeID      string `json:"satInvoiceTypeId,omitempty"`
	SatInvoiceStatusID    string `json:"satInvoiceStatusId,omitempty"`
	SatInvoiceComplement  string `json:"satInvoiceComplementId,omitempty"`
	RequesterTin          string `json:"requesterTin"`
	IssuerTin             string `json:"issuerTin,omitempty"`
	RecipientTin          string `json:"recipientTin,omitempty"`
	UUID                  string `json:"uuid,omitempty"`        // a download by UUID (Folio)
	OnBehalfTin           string `json:"onBehalfTin,omitempty"` // RfcACuentaTerceros
	// StartDate and EndDate are wall-clock times (Mexico City), kept as UTC values; zero for a
	// download by UUID.
	StartDate time.Time `json:"startDate"`
	EndDate   time.Time `json:"endDate"`

	DownloadRequestStatusID string `json:"downloadRequestStatusId"` // Pending, InProgress, Completed, Failed
	// Active: the worker has work on it (kept in download_requests_active).
	Active             bool       `json:"active"`
	SatRequestID       string     `json:"satRequestId,omitempty"`
	SatRequestStatusID string     `json:"satRequestStatusId,omitempty"` // EstadoSolicitud
	SatStatusCode      string     `json:"satStatusCode,omitempty"`      // the last CodEstatus or CodigoEstadoSolicitud
	SatMessage         string     `json:"satMessage,omitempty"`
	InvoiceCount       int        `json:"invoiceCount"`
	PackageIDs         []string   `json:"packageIds,omitempty"`
	Downloaded         []string   `json:"downloaded,omitempty"` // package ids stored and indexed
	RetriesCount       int        `json:"retriesCount"`
	LastAttemptDate    *time.Time `json:"lastAttemptDate,omitempty"`
	NextAttemptDate    *time.Time `json:"nextAttemptDate,omitempty"`
	// Storing is the package being stored, set in the first of its transactions and cleared in
	// the last: a store cut short is cleared from it before the package is stored again.
	Storing     *PackageStore `json:"storing,omitempty"`
	RawRequest  []byte        `json:"rawRequest,omitempty"` // the query as sent
	RawResponse []byte        `json:"rawResponse,omitempty"`
	CreatedAt   time.Time     `json:"createdAt"`
	UpdatedAt   time.Time     `json:"updatedAt"`
}

// QueryKey names the request's query to the SAT: two requests with the same key ask the SAT
// the same thing (what SAT's 5005 and 5002 compare). Every parameter the worker sends is in it;
// a parameter added to the query is added here, with a migration that indexes the requests
// again.
func (r DownloadRequest) QueryKey() string {
	b, _ := json.Marshal([]string{r.DownloadTypeID, r.SatQueryTypeID, r.SatInvoiceTypeID, r.SatInvoiceStatusID, r.SatInvoiceComplement,
		r.RequesterTin, r.IssuerTin, r.RecipientTin, r.UUID, r.OnBehalfTin, r.StartDate.UTC().Format(time.RFC3339Nano), r.EndDate.UTC().Format(time.RFC3339Nano)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// queryState is a request's value in download_requests_by_query: active, sent to the SAT (it
// took it: a SAT request id), or neither.
func (r DownloadRequest) queryState() []byte {
	switch {
	case r.Active:
		return []byte{'a'}
	case r.SatRequestID != "":
		return []byte{'s'}
	}
	return []byte{'-'}
}

// PackageStore is a package being stored in several transactions: its id, the kind of its
// index entries and how many entries of that kind the request had before it.
type PackageStore struct {
	Package     string `json:"package"`
	Kind        string `json:"kind"`
	ItemsBefore int    `json:"itemsBefore"`
}

// PackageChunkSize is the size of a stored package's chunks: PutPackageChunk's chunks are of
// this size, but the last.
const PackageChunkSize = 1 << 20

// Item kinds of a download request's index.
const (
	ItemXML      = "x" // one CFDI of an XML package
	ItemMetadata = "m" // one line of a metadata package
)

// DownloadRequests is the bulk download requests of one tenant, their packages and the index
// of what the packages hold.
type DownloadRequests interface {
	// Get returns a request, ErrNotFound when the tenant has none with that id.
	Get(id string) (DownloadRequest, error)
	// Put saves a request, its summary and its search index entries, keeps it in the worker's
	// index while Active, and in the index of its query (QueryKey; a request's parameters never
	// change once stored).
	Put(r DownloadRequest) error
	// SameQuery counts the other requests with r's query (QueryKey): those active, and those
	// no longer active that the SAT took.
	SameQuery(r DownloadRequest) (active, taken int, err error)
	// Delete removes a request, its packages and its items; absent is not an error.
	Delete(id string) error
	// List returns requests in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]DownloadRequest, int, error)
	// CountBy is how many of the tenant's requests have the field equal to value (compared
	// folded, Fold), from the index's counter.
	CountBy(f DownloadRequestField, value string) (int, error)
	// EachBy calls fn with the id of each request whose field equals value (folded), in
	// creation order, without reading the requests; fn returning ErrStop ends the walk.
	EachBy(f DownloadRequestField, value string, fn func(id string) error) error
	// CountBoth is how many of the tenant's requests have field f equal to a and field g equal
	// to b (folded), from the pair's counter (0 when a value is empty or f is g).
	CountBoth(f DownloadRequestField, a string, g DownloadRequestField, b string) (int, error)
	// Summary returns what a search filters by of a request, without decoding it; ErrNotFound
	// when absent.
	Summary(id string) (DownloadRequestSummary, error)
	// PutPackage stores a package read from r (in chunks of 1 MiB) and answers its size.
	PutPackage(requestID, packageID string, r io.Reader) (int64, error)
	// PutPackageChunk stores the i-th chunk of a package (chunks are read back in order).
	PutPackageChunk(requestID, packageID string, i int, b []byte) error
	// DeletePackage removes a package's chunks; absent is not an error.
	DeletePackage(requestID, packageID string) error
	// Package writes a stored package to w; ErrNotFound when absent.
	Package(requestID, packageID string, w io.Writer) error
	// ReadPackageAt fills p with a stored package's bytes from offset off: ErrNotFound when the
	// package is absent, io.ErrUnexpectedEOF when it ends before p is full. It reads only the
	// chunks p covers.
	ReadPackageAt(requestID, packageID string, p []byte, off int64) error
	// AddItem appends an item of a kind to the request's index.
	AddItem(requestID, kind string, v []byte) error
	// TruncateItems keeps a kind's first keep items and removes the rest; it answers how many
	// it removed.
	TruncateItems(requestID, kind string, keep int) (int, error)
	// Items returns a kind's items in the order added, from offset, at most limit, and the total.
	Items(requestID, kind string, offset, limit int) ([][]byte, int, error)
}

// ActiveDownload names an active download request of any tenant, and when its next attempt
// is due (zero: now).
type ActiveDownload struct {
	TenantID, RequestID string
	Next                time.Time
}
