package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Ticket statuses (spec 3 §3): pending waits for a customer's invoice or a global invoice;
// invoicing and globalizing are being stamped (both "in progress" in the usage report).
const (
	TicketPending     = "pending"
	TicketInvoicing   = "invoicing"
	TicketInvoiced    = "invoiced"
	TicketGlobalizing = "globalizing"
	TicketGlobalized  = "globalized"
	TicketCancelled   = "cancelled"
)

// TicketInput is the body of POST /api/v4/auto-invoice/tickets: a sale receipt of an issuer.
// Items are invoice items (by value, or {id, quantity, discount} of a product).
type TicketInput struct {
	IssuerID        string             `json:"issuerId"`
	Number          string             `json:"number"`
	PaidAt          string             `json:"paidAt"`
	PaymentFormCode string             `json:"paymentFormCode"`
	Items           []InvoiceItemInput `json:"items"`
}

// TicketPerson is a person a ticket names: its issuer or who recorded it.
type TicketPerson struct {
	ID        string `json:"id"`
	Tin       string `json:"tin"`
	LegalName string `json:"legalName"`
}

// Ticket is a recorded sale receipt and its state.
type Ticket struct {
	ID     string       `json:"id"`
	Number string       `json:"number"`
	Status string       `json:"status"`
	Issuer TicketPerson `json:"issuer"`
	// RecordedBy recorded the ticket and paid its ticket credit.
	RecordedBy      TicketPerson       `json:"recordedBy"`
	PaidAt          string             `json:"paidAt"` // Mexico City local date-time
	PaymentFormCode string             `json:"paymentFormCode"`
	CurrencyCode    string             `json:"currencyCode"`
	Items           []InvoiceItemInput `json:"items"`
	Subtotal        Decimal            `json:"subtotal"`
	Discount        Decimal            `json:"discount"`
	Transfers       Decimal            `json:"transfers"`
	Withheld        Decimal            `json:"withheld"`
	Total           Decimal            `json:"total"`
	// InvoiceableUntil is the last Mexico City day a customer can invoice the ticket under the
	// tenant's settings; null when there is no limit or the ticket is no longer pending.
	InvoiceableUntil  *string `json:"invoiceableUntil"`
	InvoiceID         *string `json:"invoiceId"`
	InvoiceUUID       *string `json:"invoiceUuid"`
	GlobalInvoiceID   *string `json:"globalInvoiceId"`
	GlobalInvoiceUUID *string `json:"globalInvoiceUuid"`
	CancelledAt       *string `json:"cancelledAt"`
	CreatedAt         string  `json:"createdAt"`
	UpdatedAt         string  `json:"updatedAt"`
}

// TicketFilter selects tickets in a list; empty fields do not filter. From and To are Mexico
// calendar days of the payment, inclusive.
type TicketFilter struct {
	Status   string
	IssuerID string
	From, To string
	Page     int
	Size     int
}

// TicketInvoiceInput is the customer's fiscal data to invoice a ticket with (the recipient of
// an invoice by value).
type TicketInvoiceInput struct {
	Recipient *InvoiceRecipientInput `json:"recipient"`
}

// PortalInvoiceInput is what a customer sends to the portal: the ticket's number and total as
// printed (proof of holding the receipt) and their fiscal data.
type PortalInvoiceInput struct {
	Number    string                 `json:"number"`
	Total     Amount                 `json:"total"`
	Recipient *InvoiceRecipientInput `json:"recipient"`
}

// PortalInvoice is the portal's answer: the CFDI made of the ticket, as files.
type PortalInvoice struct {
	UUID   string      `json:"uuid"`
	Number string      `json:"number"`
	Total  Decimal     `json:"total"`
	XML    InvoiceFile `json:"xml"`
	PDF    InvoiceFile `json:"pdf"`
	// EmailedTo is the address the new CFDI was e-mailed to; null when it was not (no e-mail
	// given, the server sends no mail, the mail server refused, or the CFDI was made before).
	EmailedTo *string `json:"emailedTo"`
}

// Portal is what a tenant's customer portal shows before invoicing.
type Portal struct {
	Name string `json:"name"`
	// Offered says whether the portal invoices tickets; Message says why not.
	Offered          bool    `json:"offered"`
	Message          *string `json:"message"`
	PrivacyNoticeURL *string `json:"privacyNoticeUrl"`
}

// GlobalInvoiceInput is the body of POST /api/v4/auto-invoice/global-invoices: the issuer's
// pending tickets paid in the period (or only TicketIDs) go into one global CFDI.
type GlobalInvoiceInput struct {
	IssuerID        string   `json:"issuerId"`
	PeriodicityCode string   `json:"periodicityCode"`
	MonthCode       string   `json:"monthCode"`
	Year            Amount   `json:"year"`
	TicketIDs       []string `json:"ticketIds"`
}

// GlobalInvoice is the answer of a global invoice: the stamped invoice and the tickets in it.
type GlobalInvoice struct {
	Invoice   Invoice  `json:"invoice"`
	TicketIDs []string `json:"ticketIds"`
}

// ConsumptionReport is the Auto CFDI usage report (spec 3 §4.6).
type ConsumptionReport struct {
	From    string              `json:"from"`
	To      string              `json:"to"`
	Issuers []ConsumptionIssuer `json:"issuers"`
	Payers  []ConsumptionPayer  `json:"payers"`
	Totals  ConsumptionTotals   `json:"totals"`
}

// ConsumptionIssuer counts the tickets paid in the period of one issuing person; the five
// status counters add up to Ingested.
type ConsumptionIssuer struct {
	PersonID   string `json:"personId"`
	Tin        string `json:"tin"`
	LegalName  string `json:"legalName"`
	Ingested   int    `json:"ingested"`
	Pending    int    `json:"pending"`
	InProgress int    `json:"inProgress"`
	Invoiced   int    `json:"invoiced"`
	Globalized int    `json:"globalized"`
	Cancelled  int    `json:"cancelled"`
}

// ConsumptionPayer counts the ticket credits one person used recording tickets in the period.
type ConsumptionPayer struct {
	PersonID              string `json:"personId"`
	Tin                   string `json:"tin"`
	LegalName             string `json:"legalName"`
	TicketCreditsConsumed int    `json:"ticketCreditsConsumed"`
}

// ConsumptionTotals is the sums of the issuer counters and of the credits.
type ConsumptionTotals struct {
	Ingested              int `json:"ingested"`
	Pending               int `json:"pending"`
	InProgress            int `json:"inProgress"`
	Invoiced              int `json:"invoiced"`
	Globalized            int `json:"globalized"`
	Cancelled             int `json:"cancelled"`
	TicketCreditsConsumed int `json:"ticketCreditsConsumed"`
}

// RecordTicket records a sale receipt (one ticket credit of the caller).
func (c *Client) RecordTicket(ctx context.Context, in TicketInput) (Ticket, error) {
	var out Ticket
	err := c.Do(ctx, http.MethodPost, "/api/v4/auto-invoice/tickets", nil, in, &out)
	return out, err
}

// ListTickets lists the tickets the caller sees.
func (c *Client) ListTickets(ctx context.Context, f TicketFilter) (PagedList[Ticket], error) {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "issuerId": f.IssuerID, "from": f.From, "to": f.To} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Page > 0 {
		q.Set("pageNumber", strconv.Itoa(f.Page))
	}
	if f.Size > 0 {
		q.Set("pageSize", strconv.Itoa(f.Size))
	}
	var out PagedList[Ticket]
	err := c.Do(ctx, http.MethodGet, "/api/v4/auto-invoice/tickets", q, nil, &out)
	return out, err
}

// GetTicket reads one ticket.
func (c *Client) GetTicket(ctx context.Context, id string) (Ticket, error) {
	var out Ticket
	err := c.Do(ctx, http.MethodGet, "/api/v4/auto-invoice/tickets/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// CancelTicket cancels a pending ticket.
func (c *Client) CancelTicket(ctx context.Context, id string) (Ticket, error) {
	var out Ticket
	err := c.Do(ctx, http.MethodPost, "/api/v4/auto-invoice/tickets/"+url.PathEscape(id)+"/cancel", nil, nil, &out)
	return out, err
}

// InvoiceTicket turns a pending ticket into a CFDI for a customer.
func (c *Client) InvoiceTicket(ctx context.Context, id string, in TicketInvoiceInput) (Invoice, error) {
	var out Invoice
	err := c.Do(ctx, http.MethodPost, "/api/v4/auto-invoice/tickets/"+url.PathEscape(id)+"/invoice", nil, in, &out)
	return out, err
}

// GlobalizeTickets makes a global invoice of an issuer's pending tickets.
func (c *Client) GlobalizeTickets(ctx context.Context, in GlobalInvoiceInput) (GlobalInvoice, error) {
	var out GlobalInvoice
	err := c.Do(ctx, http.MethodPost, "/api/v4/auto-invoice/global-invoices", nil, in, &out)
	return out, err
}

// ConsumptionReport reads the Auto CFDI usage report; personID may be empty.
func (c *Client) ConsumptionReport(ctx context.Context, from, to, personID string) (ConsumptionReport, error) {
	q := url.Values{"from": {from}, "to": {to}}
	if personID != "" {
		q.Set("personId", personID)
	}
	var out ConsumptionReport
	err := c.Do(ctx, http.MethodGet, "/api/v4/auto-invoice/reports/consumption", q, nil, &out)
	return out, err
}

// GetPortal reads what a customer portal shows.
func (c *Client) GetPortal(ctx context.Context, name string) (Portal, error) {
	var out Portal
	err := c.Do(ctx, http.MethodGet, "/portal/v1/"+url.PathEscape(name), nil, nil, &out)
	return out, err
}

// PortalInvoice asks a customer portal for the CFDI of a ticket.
func (c *Client) PortalInvoice(ctx context.Context, name string, in PortalInvoiceInput) (PortalInvoice, error) {
	var out PortalInvoice
	err := c.Do(ctx, http.MethodPost, "/portal/v1/"+url.PathEscape(name)+"/invoices", nil, in, &out)
	return out, err
}
