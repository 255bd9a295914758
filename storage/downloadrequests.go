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
	bucketDownloadRequestsQuery  = []byte("download_requests_by_query")
)

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
	SatQueryTypeID        string `json:"satQueryTypeId"`        // CFDI, Metadata
	SatInvoiceTypeID      string `json:"satInvoiceTypeId,omitempty"`
	SatInvoiceStatusID    string `json:"satInvoiceStatusId,omitempty"`
	SatInvoiceComplement  string `json:"satInvoiceComplementId,omitempty"`
	RequesterTin          string `json:"requesterTin"`
	IssuerTin             string `json:"issuerTin,omitempty"`
	RecipientTin          string `json:"recipientTin,omitempty"`
	UUID                  string `json:"uuid,omitempty"` // a download by UUID
	// StartDate and EndDate are wall-clock times (Mexico City), kept as UTC values.
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
		r.RequesterTin, r.IssuerTin, r.RecipientTin, r.UUID, r.StartDate.UTC().Format(time.RFC3339Nano), r.EndDate.UTC().Format(time.RFC3339Nano)})
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
	// Put saves a request and keeps it in the worker's index while Active, and in the index of
	// its query (QueryKey; a request's parameters never change once stored).
	Put(r DownloadRequest) error
	// SameQuery counts the other requests with r's query (QueryKey): those active, and those
	// no longer active that the SAT took.
	SameQuery(r DownloadRequest) (active, taken int, err error)
	// Delete removes a request, its packages and its items; absent is not an error.
	Delete(id string) error
	// List returns requests in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]DownloadRequest, int, error)
	// PutPackage stores a package read from r (in chunks of 1 MiB) and answers its size.
	PutPackage(requestID, packageID string, r io.Reader) (int64, error)
	// PutPackageChunk stores the i-th chunk of a package (chunks are read back in order).
	PutPackageChunk(requestID, packageID string, i int, b []byte) error
	// DeletePackage removes a package's chunks; absent is not an error.
	DeletePackage(requestID, packageID string) error
	// Package writes a stored package to w; ErrNotFound when absent.
	Package(requestID, packageID string, w io.Writer) error
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
