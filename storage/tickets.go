package storage

import (
	"encoding/json"
	"time"
)

var (
	bucketTickets           = []byte("tickets")
	bucketTicketsByNumber   = []byte("tickets_by_number")
	bucketTicketsByPaid     = []byte("tickets_by_paid")
	bucketTicketsByRecorded = []byte("tickets_by_recorded")
	// bucketTicketsBy indexes each tenant's tickets by payment day under each person who sees
	// them (issuer and recorder), under their issuer and under their status (schema 17), each
	// counted in counts.
	bucketTicketsBy = []byte("tickets_by")
	// bucketTicketsInStatus counts each tenant's tickets of a person (issued or recorded) and of
	// an issuer by status (schema 28): "<tenant>/<p|i>/<person>/<status>" → the count, so that a
	// list of one status and one person or issuer knows its total without walking.
	bucketTicketsInStatus = []byte("tickets_in_status")
)

// TicketIndex is a way tickets are indexed besides the payment day: by a person who sees them
// (their issuer or recorder), by issuer, or by status.
type TicketIndex byte

// The ticket indexes (the byte is the index's key part).
const (
	TicketsOfPerson TicketIndex = 'p'
	TicketsOfIssuer TicketIndex = 'i'
	TicketsInStatus TicketIndex = 's'
)

// Ticket is a sale receipt of a tenant recorded for Auto CFDI (spec 3 §4.6) as stored: who
// issues it, who recorded it (and paid its ticket credit), the sale and its state. The names
// and RFCs are as they were when the ticket was recorded (the usage report shows a deleted
// person's tickets with them).
type Ticket struct {
	ID       string `json:"id"`
	TenantID string `json:"tenantId"`
	// Number is the receipt's number as printed (upper case); unique in the tenant.
	Number         string `json:"number"`
	IssuerPersonID string `json:"issuerPersonId"`
	IssuerTin      string `json:"issuerTin"`
	IssuerName     string `json:"issuerName"`
	// RecordedByPersonID is the person who recorded the ticket and paid its credit.
	RecordedByPersonID string    `json:"recordedByPersonId"`
	RecordedByTin      string    `json:"recordedByTin"`
	RecordedByName     string    `json:"recordedByName"`
	PaidAt             time.Time `json:"paidAt"`
	// PaidDay and RecordedDay are the Mexico City calendar days (YYYY-MM-DD) of the payment and
	// of the recording, the keys of the usage report's indexes. They never change.
	PaidDay         string `json:"paidDay"`
	RecordedDay     string `json:"recordedDay"`
	PaymentFormCode string `json:"paymentFormCode"`
	// Items is the sale's lines resolved to values, as the tickets package encodes them.
	Items     json.RawMessage `json:"items"`
	Subtotal  string          `json:"subtotal"`
	Discount  string          `json:"discount"`
	Transfers string          `json:"transfers"`
	Withheld  string          `json:"withheld"`
	Total     string          `json:"total"`
	Status    string          `json:"status"`
	// InvoiceID and InvoiceUUID are the CFDI a customer made of the ticket; GlobalInvoiceID and
	// GlobalInvoiceUUID the global invoice that includes it.
	InvoiceID         string     `json:"invoiceId,omitempty"`
	InvoiceUUID       string     `json:"invoiceUuid,omitempty"`
	GlobalInvoiceID   string     `json:"globalInvoiceId,omitempty"`
	GlobalInvoiceUUID string     `json:"globalInvoiceUuid,omitempty"`
	CancelledAt       *time.Time `json:"cancelledAt,omitempty"`
	CreatedAt         time.Time  `json:"createdAt"`
	UpdatedAt         time.Time  `json:"updatedAt"`
}

// Tickets is the tickets of one tenant.
type Tickets interface {
	// Get returns a ticket, ErrNotFound when the tenant has none with that id.
	Get(id string) (Ticket, error)
	// GetMany returns the tickets of ids in their order (a page: read at once where the backend
	// can); ErrNotFound when one is missing.
	GetMany(ids []string) ([]Ticket, error)
	// ByNumber finds a ticket by its number (upper case); ErrNotFound when absent.
	ByNumber(number string) (Ticket, error)
	// Put saves a ticket with its number index (a ticket's number never changes).
	Put(t Ticket) error
	// List returns tickets in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]Ticket, int, error)
	// EachPaid calls fn with the issuer, recorder and status of every ticket paid from day from
	// to day to (YYYY-MM-DD, both included; "" leaves a side open), by payment day and then
	// recording order, newest first when reverse; without decoding the tickets. fn returning
	// ErrStop ends the walk without an error.
	EachPaid(from, to string, reverse bool, fn func(id, issuerID, recordedByID, status string) error) error
	// EachRecorded calls fn with the recorder of every ticket recorded from day from to day to.
	EachRecorded(from, to string, fn func(id, recordedByID string) error) error
	// CountBy is the number of tickets of a person (issued or recorded), of an issuer or in a
	// status, kept.
	CountBy(ix TicketIndex, value string) (int, error)
	// CountIn is the number of tickets of a person (issued or recorded) or of an issuer (ix
	// TicketsOfPerson or TicketsOfIssuer) in one status, kept.
	CountIn(ix TicketIndex, value, status string) (int, error)
	// EachPaidBy is EachPaid over the tickets of one index value: it walks only those.
	EachPaidBy(ix TicketIndex, value, from, to string, reverse bool, fn func(id, issuerID, recordedByID, status string) error) error
}
