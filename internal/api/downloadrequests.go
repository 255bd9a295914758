package api

import (
	"context"
	"net/http"
	"net/url"
)

// DownloadRequest is a bulk download request as the official client's model has it. Each
// catalog id but downloadRuleId has its expanded record (null when the id is empty).
type DownloadRequest struct {
	ID                      string         `json:"id"`
	Consecutive             int64          `json:"consecutive"`
	SatRequestID            *string        `json:"satRequestId"`
	DownloadRuleID          *string        `json:"downloadRuleId"`
	DownloadTypeID          string         `json:"downloadTypeId"`
	DownloadType            *CatalogRecord `json:"downloadType"`
	DownloadRequestTypeID   string         `json:"downloadRequestTypeId"`
	DownloadRequestType     *CatalogRecord `json:"downloadRequestType"`
	RecipientTin            *string        `json:"recipientTin"`
	IssuerTin               *string        `json:"issuerTin"`
	RequesterTin            string         `json:"requesterTin"`
	StartDate               string         `json:"startDate"`
	EndDate                 string         `json:"endDate"`
	SatQueryTypeID          string         `json:"satQueryTypeId"`
	SatQueryType            *CatalogRecord `json:"satQueryType"`
	SatInvoiceTypeID        string         `json:"satInvoiceTypeId"`
	SatInvoiceType          *CatalogRecord `json:"satInvoiceType"`
	SatInvoiceStatusID      string         `json:"satInvoiceStatusId"`
	SatInvoiceStatus        *CatalogRecord `json:"satInvoiceStatus"`
	SatInvoiceComplementID  string         `json:"satInvoiceComplementId"`
	SatInvoiceComplement    *CatalogRecord `json:"satInvoiceComplement"`
	SatRequestStatusID      string         `json:"satRequestStatusId"`
	SatRequestStatus        *CatalogRecord `json:"satRequestStatus"`
	DownloadRequestStatusID string         `json:"downloadRequestStatusId"`
	DownloadRequestStatus   *CatalogRecord `json:"downloadRequestStatus"`
	// SatStatusCode and SatMessage are the SAT's last answer (CodEstatus or
	// CodigoEstadoSolicitud, and Mensaje): timbra's extension.
	SatStatusCode *string `json:"satStatusCode" doc:"timbra's extension: the SAT's last code (CodEstatus or CodigoEstadoSolicitud)"`
	SatMessage    *string `json:"satMessage" doc:"timbra's extension: the SAT's last message (Mensaje)"`
	// UUID and OnBehalfTin are timbra's extensions of the official client's model.
	UUID              *string  `json:"uuid" doc:"timbra's extension: the CFDI of a download by UUID (downloadTypeId Uuid; SAT's Folio); null for the others"`
	OnBehalfTin       *string  `json:"onBehalfTin" doc:"timbra's extension: only CFDIs with a concept on behalf of this RFC (SAT's RfcACuentaTerceros)"`
	LastAttemptDate   *string  `json:"lastAttemptDate"`
	NextAttemptDate   *string  `json:"nextAttemptDate"`
	InvoiceCount      int      `json:"invoiceCount"`
	PackageIDs        []string `json:"packageIds"`
	IsReadyToDownload bool     `json:"isReadyToDownload"`
	RetriesCount      int      `json:"retriesCount"`
	CreatedAt         string   `json:"createdAt"`
	UpdatedAt         string   `json:"updatedAt"`
}

// DownloadRequestInput is the body of a create: from a rule (downloadRuleId and the dates), or
// from explicit parameters. Dates are ISO 8601, with or without an offset.
type DownloadRequestInput struct {
	DownloadRuleID         *string `json:"downloadRuleId,omitempty"`
	DownloadRequestTypeID  *string `json:"downloadRequestTypeId,omitempty"`
	DownloadTypeID         *string `json:"downloadTypeId,omitempty"`
	SatQueryTypeID         *string `json:"satQueryTypeId,omitempty"`
	SatInvoiceTypeID       *string `json:"satInvoiceTypeId,omitempty"`
	SatInvoiceStatusID     *string `json:"satInvoiceStatusId,omitempty"`
	SatInvoiceComplementID *string `json:"satInvoiceComplementId,omitempty"`
	RequesterTin           *string `json:"requesterTin,omitempty"`
	IssuerTin              *string `json:"issuerTin,omitempty"`
	RecipientTin           *string `json:"recipientTin,omitempty"`
	StartDate              *string `json:"startDate,omitempty"`
	EndDate                *string `json:"endDate,omitempty"`
	// UUID and OnBehalfTin are timbra's extensions of the official client's model.
	UUID        *string `json:"uuid,omitempty" doc:"timbra's extension: the CFDI to download, with downloadTypeId Uuid (SAT's SolicitaDescargaFolio; no dates, no filters)"`
	OnBehalfTin *string `json:"onBehalfTin,omitempty" doc:"timbra's extension: only CFDIs with a concept on behalf of this RFC (SAT's RfcACuentaTerceros)"`
}

// DownloadMetadataItem is one metadata line of a finished request (the client's MetadataItem).
// Dates are as the SAT wrote them, without offset.
type DownloadMetadataItem struct {
	InvoiceUUID          string  `json:"invoiceUuid"`
	IssuerTin            string  `json:"issuerTin"`
	IssuerName           string  `json:"issuerName"`
	RecipientTin         string  `json:"recipientTin"`
	RecipientName        string  `json:"recipientName"`
	PacTin               string  `json:"pacTin"`
	InvoiceDate          string  `json:"invoiceDate"`
	SatCertificationDate string  `json:"satCertificationDate"`
	Amount               float64 `json:"amount"`
	InvoiceType          string  `json:"invoiceType"`
	Status               int     `json:"status"`
	CancellationDate     *string `json:"cancellationDate"`
	DownloadPackageID    string  `json:"downloadPackageId"`
	DownloadRequestID    string  `json:"downloadRequestId"`
}

// DownloadXML is one CFDI of a finished request (the client's Xml), read from the CFDI as
// the package holds it: the comprobante's attributes, issuer and recipient, global
// information, taxes, related CFDIs, items, complements, and the XML itself. ID is the entry's
// own (the same on every read); the lists' XMLID is it, the item lists' XMLItemID their item's.
type DownloadXML struct {
	ID                    string                  `json:"id"`
	DownloadRequestID     string                  `json:"downloadRequestId"`
	DownloadPackageID     string                  `json:"downloadPackageId"`
	InvoiceUUID           string                  `json:"invoiceUuid"`
	Version               string                  `json:"version"`
	Series                *string                 `json:"series"`
	Number                *string                 `json:"number"`
	Date                  string                  `json:"date"`
	PaymentForm           *string                 `json:"paymentForm"`
	PaymentMethod         *string                 `json:"paymentMethod"`
	CertificateNumber     string                  `json:"certificateNumber"`
	PaymentConditions     *string                 `json:"paymentConditions"`
	SubTotal              float64                 `json:"subTotal"`
	Discount              *float64                `json:"discount"`
	Currency              string                  `json:"currency"`
	ExchangeRate          *float64                `json:"exchangeRate"`
	Total                 float64                 `json:"total"`
	InvoiceType           string                  `json:"invoiceType"`
	Export                string                  `json:"export"`
	ExpeditionZipCode     string                  `json:"expeditionZipCode"`
	Confirmation          *string                 `json:"confirmation"`
	TotalWithheldTaxes    *float64                `json:"totalWithheldTaxes"`
	TotalTransferredTaxes *float64                `json:"totalTransferredTaxes"`
	Base64Content         string                  `json:"base64Content"`
	XMLIssuer             DownloadXMLIssuer       `json:"xmlIssuer"`
	XMLRecipient          DownloadXMLPerson       `json:"xmlRecipient"`
	Taxes                 []DownloadXMLTax        `json:"taxes"`
	XMLRelated            []DownloadXMLRelated    `json:"xmlRelated"`
	XMLItems              []DownloadXMLItem       `json:"xmlItems"`
	XMLComplements        []DownloadXMLComplement `json:"xmlComplements"`
	XMLGlobalInformation  *DownloadXMLGlobal      `json:"xmlGlobalInformation"`
}

// DownloadXMLIssuer is the Emisor of a downloaded CFDI.
type DownloadXMLIssuer struct {
	Tin       string `json:"tin"`
	LegalName string `json:"legalName"`
	TaxRegime string `json:"taxRegime"`
}

// DownloadXMLPerson is the Receptor of a downloaded CFDI.
type DownloadXMLPerson struct {
	Tin             string  `json:"tin"`
	LegalName       string  `json:"legalName"`
	ZipCode         string  `json:"zipCode"`
	TaxRegime       string  `json:"taxRegime"`
	CfdiUse         string  `json:"cfdiUse"`
	ForeignTaxID    *string `json:"foreignTaxId"`
	FiscalResidence *string `json:"fiscalResidence"`
}

// DownloadXMLGlobal is the InformacionGlobal of a downloaded global invoice.
type DownloadXMLGlobal struct {
	Periodicity string `json:"periodicity"`
	Month       string `json:"month"`
	Year        int    `json:"year"`
}

// DownloadXMLTax is one tax line of a downloaded CFDI's Impuestos (Traslado: taxFlag T,
// Retencion: R; a total withholding has no base, type or rate, an exempt transfer no rate or
// amount).
type DownloadXMLTax struct {
	Base    *float64 `json:"base"`
	Tax     string   `json:"tax"`     // Impuesto: 001 ISR, 002 IVA, 003 IEPS
	TaxType *string  `json:"taxType"` // TipoFactor: Tasa, Cuota, Exento
	Rate    *float64 `json:"rate"`    // TasaOCuota
	Amount  *float64 `json:"amount"`
	TaxFlag string   `json:"taxFlag"`
	XMLID   string   `json:"xmlId"`
}

// DownloadXMLRelated is one related CFDI (CfdiRelacionado) with its group's TipoRelacion.
type DownloadXMLRelated struct {
	XMLID            string `json:"xmlId"`
	RelationshipType string `json:"relationshipType"`
	CfdiUUID         string `json:"cfdiUuid"`
}

// DownloadXMLItem is one Concepto of a downloaded CFDI.
type DownloadXMLItem struct {
	ID                        string                    `json:"id"`
	XMLID                     string                    `json:"xmlId"`
	ItemCode                  string                    `json:"itemCode"` // ClaveProdServ
	SKU                       *string                   `json:"sku"`      // NoIdentificacion
	Quantity                  float64                   `json:"quantity"`
	UnitMeasurement           string                    `json:"unitMeasurement"` // ClaveUnidad
	Description               string                    `json:"description"`
	UnitPrice                 float64                   `json:"unitPrice"`
	Amount                    float64                   `json:"amount"`
	Discount                  *float64                  `json:"discount"`
	TaxObject                 *string                   `json:"taxObject"`         // ObjetoImp (none in CFDI 3.3)
	ThirdPartyAccount         *string                   `json:"thirdPartyAccount"` // RfcACuentaTerceros
	XMLItemCustomsInformation []DownloadXMLItemCustoms  `json:"xmlItemCustomsInformation"`
	XMLItemPropertyAccounts   []DownloadXMLItemProperty `json:"xmlItemPropertyAccounts"`
	Taxes                     []DownloadXMLItemTax      `json:"taxes"`
}

// DownloadXMLItemCustoms is an item's InformacionAduanera.
type DownloadXMLItemCustoms struct {
	XMLItemID             string `json:"xmlItemId"`
	CustomsDocumentNumber string `json:"customsDocumentNumber"` // NumeroPedimento
}

// DownloadXMLItemProperty is an item's CuentaPredial.
type DownloadXMLItemProperty struct {
	XMLItemID             string `json:"xmlItemId"`
	PropertyAccountNumber string `json:"propertyAccountNumber"`
}

// DownloadXMLItemTax is one tax line of an item (as DownloadXMLTax, with its item's id).
type DownloadXMLItemTax struct {
	Base      *float64 `json:"base"`
	Tax       string   `json:"tax"`
	TaxType   *string  `json:"taxType"`
	Rate      *float64 `json:"rate"`
	Amount    *float64 `json:"amount"`
	TaxFlag   string   `json:"taxFlag"`
	XMLItemID string   `json:"xmlItemId"`
}

// DownloadXMLComplement is one complement of a downloaded CFDI: its element's local name and
// its XML as written in the CFDI, in base64.
type DownloadXMLComplement struct {
	ComplementName        string `json:"complementName"`
	Base64ComplementValue string `json:"base64ComplementValue"`
	XMLID                 string `json:"xmlId"`
}

// FileResponse is the official client's file answer.
type FileResponse struct {
	Base64File    string `json:"base64File"`
	FileName      string `json:"fileName"`
	FileExtension string `json:"fileExtension"`
}

// ListDownloadRequests reads one page of the tenant's bulk download requests.
func (c *Client) ListDownloadRequests(ctx context.Context, page, size int) (PagedList[DownloadRequest], error) {
	var out PagedList[DownloadRequest]
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-requests", pageQuery(page, size), nil, &out)
	return out, err
}

// GetDownloadRequest reads one bulk download request.
func (c *Client) GetDownloadRequest(ctx context.Context, id string) (DownloadRequest, error) {
	var out DownloadRequest
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-requests/"+url.PathEscape(id), nil, nil, &out)
	return out, err
}

// CreateDownloadRequest creates a bulk download request (the server's worker carries it out).
func (c *Client) CreateDownloadRequest(ctx context.Context, in DownloadRequestInput) (DownloadRequest, error) {
	var out DownloadRequest
	err := c.Do(ctx, http.MethodPost, "/api/v4/download-requests", nil, in, &out)
	return out, err
}

// DownloadRequestXMLs reads one page of the CFDIs of a finished request.
func (c *Client) DownloadRequestXMLs(ctx context.Context, id string, page, size int) (PagedList[DownloadXML], error) {
	var out PagedList[DownloadXML]
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-requests/"+url.PathEscape(id)+"/xmls", pageQuery(page, size), nil, &out)
	return out, err
}

// DownloadRequestMetadata reads one page of the metadata lines of a finished request.
func (c *Client) DownloadRequestMetadata(ctx context.Context, id string, page, size int) (PagedList[DownloadMetadataItem], error) {
	var out PagedList[DownloadMetadataItem]
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-requests/"+url.PathEscape(id)+"/meta-items", pageQuery(page, size), nil, &out)
	return out, err
}

// DownloadRequestPackages reads the packages (ZIP files, base64) of a finished request.
func (c *Client) DownloadRequestPackages(ctx context.Context, id string) ([]FileResponse, error) {
	var out []FileResponse
	err := c.Do(ctx, http.MethodGet, "/api/v4/download-requests/"+url.PathEscape(id)+"/package", nil, nil, &out)
	return out, err
}
