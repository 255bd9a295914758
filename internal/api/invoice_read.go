package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// InvoiceFile is a file answer (GET /api/v4/invoices/<id>/xml, POST /api/v4/invoices/pdf): the
// official clients' FileResponse (base64File, fileName, fileExtension) with the names
// (base64Content, contentType) too, the same content under both.
//
// fileName is the whole name, extension included (<UUID>.xml), and fileExtension repeats the
// extension without its dot: the official samples save and offer the file under fileName alone
// and never join the two, so a name without its extension would be saved without one.
type InvoiceFile struct {
	Base64File    string `json:"base64File"`
	Base64Content string `json:"base64Content"`
	FileName      string `json:"fileName"`
	FileExtension string `json:"fileExtension"`
	ContentType   string `json:"contentType"`
}

// LocalName is the name under which a client saves the file in its working folder: fileName,
// with fileExtension added only when fileName does not already end in it (a server that sends
// the bare name), never twice. A name the server sends is not trusted as a path: one that is
// empty, holds a folder separator, starts with a dot or a dash, or is not printable is refused.
func (f InvoiceFile) LocalName() (string, error) { return localName(f.FileName, f.FileExtension) }

// LocalName is InvoiceFile.LocalName for a FileResponse.
func (f FileResponse) LocalName() (string, error) { return localName(f.FileName, f.FileExtension) }

func localName(fileName, extension string) (string, error) {
	name, ext := fileName, strings.TrimPrefix(extension, ".")
	if ext != "" && !strings.HasSuffix(strings.ToLower(name), "."+strings.ToLower(ext)) {
		name += "." + ext
	}
	if name == "" || strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "-") ||
		strings.IndexFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return "", fmt.Errorf("the server named the file %q, which is not a plain file name; give --out", fileName)
	}
	return name, nil
}

// InvoiceCancel is the body of DELETE /api/v4/invoices as the official clients send it: the
// invoice by id, or by invoiceUuid with the issuer's tin and CSD (taxCredentials).
type InvoiceCancel struct {
	ID                     string                 `json:"id"`
	InvoiceUUID            string                 `json:"invoiceUuid"`
	Tin                    string                 `json:"tin"`
	CancellationReasonCode string                 `json:"cancellationReasonCode"`
	ReplacementUUID        string                 `json:"replacementUuid"`
	TaxCredentials         []InvoiceTaxCredential `json:"taxCredentials"`
}

// InvoiceCancelled is the acknowledgement of a cancellation (the clients' CancelInvoiceResponse):
// the acuse (XML, base64) and, per UUID, SAT's code (201 received, 202 previously cancelled).
type InvoiceCancelled struct {
	Base64CancellationAcknowledgement string            `json:"base64CancellationAcknowledgement"`
	InvoiceUUIDs                      map[string]string `json:"invoiceUuids"`
	// Status is the invoice's status after the request (Cancelado or EnProcesoDeCancelacion).
	Status string `json:"status"`
}

// InvoiceCancellationAnswer is the recipient's answer to a cancellation that needs acceptance.
type InvoiceCancellationAnswer struct {
	Accept *bool `json:"accept"`
}

// InvoiceStatusQuery is the body of POST /api/v4/invoices/status (the clients'
// InvoiceStatusRequest): by id, or by SAT's expression (UUID, RFCs, total, last 8 of the seal).
type InvoiceStatusQuery struct {
	ID                         string `json:"id"`
	IssuerTin                  string `json:"issuerTin"`
	RecipientTin               string `json:"recipientTin"`
	InvoiceTotal               Amount `json:"invoiceTotal"`
	InvoiceUUID                string `json:"invoiceUuid"`
	Last8DigitsIssuerSignature string `json:"last8DigitsIssuerSignature"`
}

// InvoiceStatus is SAT's answer to a status query (the clients' InvoiceStatusResponse).
type InvoiceStatus struct {
	StatusCode         string `json:"statusCode"`
	Status             string `json:"status"`
	CancelableStatus   string `json:"cancelableStatus"`
	CancellationStatus string `json:"cancellationStatus"`
	EfosValidation     string `json:"efosValidation"`
}

// ListInvoices is GET /api/v4/invoices with its filters (page, size and the others as query
// parameters, empty ones left out).
func (c *Client) ListInvoices(ctx context.Context, q url.Values) (PagedList[Invoice], error) {
	var out PagedList[Invoice]
	err := c.Do(ctx, http.MethodGet, "/api/v4/invoices", q, nil, &out)
	return out, err
}

// GetInvoice is GET /api/v4/invoices/<id>.
func (c *Client) GetInvoice(ctx context.Context, id string) (Invoice, error) {
	var out Invoice
	err := c.Do(ctx, http.MethodGet, "/api/v4/invoices/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// InvoiceXML is GET /api/v4/invoices/<id>/xml.
func (c *Client) InvoiceXML(ctx context.Context, id string) (InvoiceFile, error) {
	var out InvoiceFile
	err := c.Do(ctx, http.MethodGet, "/api/v4/invoices/"+url.PathEscape(id)+"/xml", nil, nil, &out)
	return out, err
}

// CancelInvoice is DELETE /api/v4/invoices.
func (c *Client) CancelInvoice(ctx context.Context, in InvoiceCancel) (InvoiceCancelled, error) {
	var out InvoiceCancelled
	err := c.Do(ctx, http.MethodDelete, "/api/v4/invoices", nil, in, &out)
	return out, err
}

// InvoiceStatusOf is POST /api/v4/invoices/status.
func (c *Client) InvoiceStatusOf(ctx context.Context, in InvoiceStatusQuery) (InvoiceStatus, error) {
	var out InvoiceStatus
	err := c.Do(ctx, http.MethodPost, "/api/v4/invoices/status", nil, in, &out)
	return out, err
}
