package downloadrequests

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/storage"
)

// The request kinds beyond a period's issued or received CFDIs: one CFDI by its UUID (SAT's
// SolicitaDescargaFolio), and the withholding CFDIs (Retenciones 2.0), which SAT serves at a
// second set of addresses with the same messages.
const (
	DownloadByUUID   = "Uuid"        // downloadTypeId
	QueryRetenciones = "Retenciones" // satQueryTypeId
)

// checkByUUID checks a download by UUID: the UUID (8-4-4-4-12 hex), CFDI or Retenciones, and
// none of a period's filters (SAT's Folio query takes only Folio and RfcSolicitante). The
// dates are refused where they are read (Create).
func checkByUUID(r *storage.DownloadRequest) []api.Failure {
	var fs []api.Failure
	switch {
	case r.UUID == "":
		fs = append(fs, field("Uuid", MsgUUIDRequired, nil))
	case !validUUID(r.UUID):
		fs = append(fs, field("Uuid", fmt.Sprintf(MsgBadUUID, r.UUID), r.UUID))
	}
	switch r.SatQueryTypeID {
	case "CFDI", QueryRetenciones:
	case "Metadata":
		fs = append(fs, field("SatQueryTypeId", fmt.Sprintf(MsgUUIDQueryType, r.SatQueryTypeID), r.SatQueryTypeID))
	default:
		fs = append(fs, field("SatQueryTypeId", fmt.Sprintf(MsgBadQueryType, r.SatQueryTypeID), r.SatQueryTypeID))
	}
	for _, f := range []struct{ prop, v string }{
		{"SatInvoiceTypeId", r.SatInvoiceTypeID}, {"SatInvoiceStatusId", r.SatInvoiceStatusID},
		{"SatInvoiceComplementId", r.SatInvoiceComplement}, {"IssuerTin", r.IssuerTin}, {"RecipientTin", r.RecipientTin},
		{"OnBehalfTin", r.OnBehalfTin},
	} {
		if f.v != "" {
			fs = append(fs, field(f.prop, fmt.Sprintf(MsgUUIDNoFilter, lowerFirst(f.prop)), f.v))
		}
	}
	return fs
}

// validUUID: the 36 characters of a folio fiscal (any version, either case).
func validUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// checkRetenciones refuses what a withholding CFDI does not have: a TipoDeComprobante and the
// CFDI complements of SatInvoiceComplements.
func checkRetenciones(r *storage.DownloadRequest) []api.Failure {
	var fs []api.Failure
	if r.SatInvoiceTypeID != "" {
		fs = append(fs, field("SatInvoiceTypeId", fmt.Sprintf(MsgRetencionesNo, "satInvoiceTypeId"), r.SatInvoiceTypeID))
	}
	if r.SatInvoiceComplement != "" {
		fs = append(fs, field("SatInvoiceComplementId", fmt.Sprintf(MsgRetencionesNo, "satInvoiceComplementId"), r.SatInvoiceComplement))
	}
	return fs
}

// checkOnBehalf checks the RFC of onBehalfTin (RfcACuentaTerceros) as every RFC of the API.
func checkOnBehalf(r *storage.DownloadRequest) []api.Failure {
	if r.OnBehalfTin == "" {
		return nil
	}
	if err := cfdi.CheckRFC(r.OnBehalfTin); err != nil {
		return []api.Failure{field("OnBehalfTin", err.Error(), r.OnBehalfTin)}
	}
	return nil
}

// lowerFirst is a property's JSON name (StartDate → startDate).
func lowerFirst(s string) string {
	c, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(c)) + s[n:]
}

// wallDate is a stored date as the API writes it; "" for none (a download by UUID).
func wallDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(wallLayout)
}

// queryOf is the SAT query of a request: by UUID (Folio), or issued or received in the period
// with its filters; the requester is the issuer of Emitidos and the receiver of Recibidos.
// Withholding CFDIs ask for TipoSolicitud CFDI (SAT v1.5).
func queryOf(r storage.DownloadRequest) satws.Query {
	if r.DownloadTypeID == DownloadByUUID {
		return satws.Query{Operation: satws.ByUUID, Requester: r.RequesterTin, UUID: r.UUID}
	}
	q := satws.Query{Operation: satws.Issued, Requester: r.RequesterTin, Start: r.StartDate, End: r.EndDate, RequestType: r.SatQueryTypeID,
		InvoiceType: r.SatInvoiceTypeID, Status: r.SatInvoiceStatusID, Complement: r.SatInvoiceComplement, Issuer: r.IssuerTin,
		OnBehalf: r.OnBehalfTin}
	if r.SatQueryTypeID == QueryRetenciones {
		q.RequestType = satws.RequestCFDI
	}
	if r.DownloadTypeID == "Recibidos" {
		q.Operation, q.Receiver = satws.Received, r.RecipientTin
		if r.IssuerTin == r.RequesterTin {
			q.Issuer = ""
		}
	} else if r.RecipientTin != "" {
		q.Receivers = []string{r.RecipientTin}
	}
	return q
}

// endpointsOf are the SAT addresses of a request: the withholding CFDIs' service for
// Retenciones, else the CFDIs'.
func (w *Worker) endpointsOf(r storage.DownloadRequest) satws.Endpoints {
	if r.SatQueryTypeID == QueryRetenciones {
		return w.Retenciones
	}
	return w.Endpoints
}

// retencionesXML is one withholding CFDI of an XML package in the client's Xml shape: the
// version, FolioInt as the number, FechaExp as the date, the certificate, LugarExpRetenc as the
// expedition zip code, MontoTotOperacion as subtotal and total (amounts in MXN: the schema's
// t_ImporteMXN), MontoTotRet as the withheld taxes, the issuer, and the receiver (the national
// one's RFC and fiscal address, or the foreign one's tax number). It has no TipoDeComprobante.
func retencionesXML(raw []byte, requestID, packageID string) (api.DownloadXML, error) {
	r, err := cfdi.ReadRetenciones(bytes.NewReader(raw))
	if err != nil {
		return api.DownloadXML{}, fmt.Errorf("package %s: %w", packageID, err)
	}
	withheld := num(r.MontoTotRet)
	return api.DownloadXML{DownloadRequestID: requestID, DownloadPackageID: packageID, InvoiceUUID: r.UUID, Version: r.Version,
		Number: opt(r.FolioInt), Date: r.FechaExp, CertificateNumber: r.NoCertificado, SubTotal: num(r.MontoTotOperacion),
		Currency: "MXN", Total: num(r.MontoTotOperacion), ExpeditionZipCode: r.LugarExpRetenc, TotalWithheldTaxes: &withheld,
		Base64Content: base64.StdEncoding.EncodeToString(raw),
		XMLIssuer:     api.DownloadXMLIssuer{Tin: r.RfcE, LegalName: r.NomDenRazSocE, TaxRegime: r.RegimenFiscalE},
		XMLRecipient:  api.DownloadXMLPerson{Tin: r.RfcR, LegalName: r.NomDenRazSocR, ZipCode: r.DomicilioFiscalR, ForeignTaxID: opt(r.NumRegIdTribR)},
		Taxes:         []api.DownloadXMLTax{}, XMLRelated: []api.DownloadXMLRelated{}, XMLItems: []api.DownloadXMLItem{},
		XMLComplements: []api.DownloadXMLComplement{}}, nil
}
