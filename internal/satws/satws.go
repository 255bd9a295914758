// Package satws is a client of SAT's bulk download web service ("Descarga Masiva de CFDI y
// Retenciones", SOAP 1.1, version 1.5) and the protocol pieces it shares with the local SAT
// (satws/satlocal): the messages, their XML signatures, the answers and SAT's codes.
//
// The flow: Authenticate (a WS-Security message signed with the taxpayer's e.firma) gives a
// token; Query asks for the CFDIs or the metadata issued, received or of one UUID (an enveloped
// signature over the operation element) and gives a request id; Verify tells the request's state
// and, when finished, its package ids; Download streams one package (a ZIP, base64 in the SOAP
// body) to a writer. Every call but Authenticate carries the token (Authorization: WRAP
// access_token="…").
//
// Signatures are those the SAT accepts from every client in production (phpcfdi, nodecfdi,
// python-cfdiclient, FiscalAPI's): exclusive C14N for SignedInfo and the single transform, RSA
// with SHA-1, SHA-1 digests; built with goxmldsig's signing context and canonicalizer and checked
// with xmlsec1 and against phpcfdi's test vectors (sign_test.go).
package satws

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Namespaces of the messages.
const (
	NSSoap    = "http://schemas.xmlsoap.org/soap/envelope/"
	NSUtility = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
	NSSecExt  = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
	NSDsig    = "http://www.w3.org/2000/09/xmldsig#"
	// NSAuth is the authentication body's namespace (no ".sat").
	NSAuth = "http://DescargaMasivaTerceros.gob.mx"
	// NSDes is every other body's namespace.
	NSDes = "http://DescargaMasivaTerceros.sat.gob.mx"

	valueTypeX509   = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3"
	encodingBase64  = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
	algExcC14N      = "http://www.w3.org/2001/10/xml-exc-c14n#"
	algC14N         = "http://www.w3.org/TR/2001/REC-xml-c14n-20010315"
	algEnveloped    = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
	algRSASHA1      = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
	algSHA1         = "http://www.w3.org/2000/09/xmldsig#sha1"
	algRSASHA256    = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
	algSHA256       = "http://www.w3.org/2001/04/xmlenc#sha256"
	timestampFormat = "2006-01-02T15:04:05.000Z"
)

// SOAPAction values.
const (
	ActionAuthenticate = "http://DescargaMasivaTerceros.gob.mx/IAutenticacion/Autentica"
	ActionIssued       = "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaEmitidos"
	ActionReceived     = "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaRecibidos"
	ActionFolio        = "http://DescargaMasivaTerceros.sat.gob.mx/ISolicitaDescargaService/SolicitaDescargaFolio"
	ActionVerify       = "http://DescargaMasivaTerceros.sat.gob.mx/IVerificaSolicitudDescargaService/VerificaSolicitudDescarga"
	ActionDownload     = "http://DescargaMasivaTerceros.sat.gob.mx/IDescargaMasivaTercerosService/Descargar"
)

// Endpoints are the four service addresses.
type Endpoints struct {
	Authenticate, Query, Verify, Download string
}

// SATEndpoints are the real SAT's addresses for CFDIs.
var SATEndpoints = Endpoints{
	Authenticate: "https://cfdidescargamasivasolicitud.clouda.sat.gob.mx/Autenticacion/Autenticacion.svc",
	Query:        "https://cfdidescargamasivasolicitud.clouda.sat.gob.mx/SolicitaDescargaService.svc",
	Verify:       "https://cfdidescargamasivasolicitud.clouda.sat.gob.mx/VerificaSolicitudDescargaService.svc",
	Download:     "https://cfdidescargamasiva.clouda.sat.gob.mx/DescargaMasivaService.svc",
}

// SATRetencionesEndpoints are the real SAT's addresses for withholding CFDIs (CFDI de
// Retenciones e información de pagos): the same protocol and messages at other hosts
// (TipoSolicitud is CFDI for their XML since v1.5).
var SATRetencionesEndpoints = Endpoints{
	Authenticate: "https://retendescargamasivasolicitud.clouda.sat.gob.mx/Autenticacion/Autenticacion.svc",
	Query:        "https://retendescargamasivasolicitud.clouda.sat.gob.mx/SolicitaDescargaService.svc",
	Verify:       "https://retendescargamasivasolicitud.clouda.sat.gob.mx/VerificaSolicitudDescargaService.svc",
	Download:     "https://retendescargamasiva.clouda.sat.gob.mx/DescargaMasivaService.svc",
}

// Paths of the four services, as SAT names them; a local SAT serves them under one address.
const (
	PathAuthenticate = "/Autenticacion/Autenticacion.svc"
	PathQuery        = "/SolicitaDescargaService.svc"
	PathVerify       = "/VerificaSolicitudDescargaService.svc"
	PathDownload     = "/DescargaMasivaService.svc"
)

// EndpointsAt are the four services under one base address (a local SAT, or a proxy that keeps
// SAT's paths), e.g. http://127.0.0.1:8089.
func EndpointsAt(base string) Endpoints {
	base = strings.TrimRight(base, "/")
	return Endpoints{base + PathAuthenticate, base + PathQuery, base + PathVerify, base + PathDownload}
}

// Operation is the kind of query: issued, received, or one CFDI by its UUID.
type Operation string

// The operations of SolicitaDescargaService.
const (
	Issued   Operation = "Emitidos"
	Received Operation = "Recibidos"
	ByUUID   Operation = "Folio"
)

// Element is the body element of the operation (SolicitaDescargaEmitidos...).
func (o Operation) Element() string { return "SolicitaDescarga" + string(o) }

// Action is the SOAPAction of the operation.
func (o Operation) Action() string {
	switch o {
	case Received:
		return ActionReceived
	case ByUUID:
		return ActionFolio
	}
	return ActionIssued
}

// Request types (TipoSolicitud).
const (
	RequestCFDI     = "CFDI"
	RequestMetadata = "Metadata"
)

// Invoice statuses (EstadoComprobante).
const (
	StatusAll       = "Todos"
	StatusActive    = "Vigente"
	StatusCancelled = "Cancelado"
)

// DateFormat is the format of FechaInicial and FechaFinal: no zone, no fraction.
const DateFormat = "2006-01-02T15:04:05"

// Query is one request for CFDIs or metadata. Empty fields are left out of the message.
type Query struct {
	Operation Operation
	// Requester is RfcSolicitante: the signer's RFC.
	Requester string
	// Start and End (FechaInicial, FechaFinal) are wall-clock times, written without a zone;
	// not sent by UUID.
	Start, End time.Time
	// RequestType is TipoSolicitud: RequestCFDI or RequestMetadata; not sent by UUID.
	RequestType string
	// Issuer is RfcEmisor: the requester for issued queries, a counterpart filter for received.
	Issuer string
	// Receivers (issued only, at most 5) are RfcReceptores/RfcReceptor.
	Receivers []string
	// Receiver is RfcReceptor of a received query: the requester.
	Receiver string
	// InvoiceType is TipoComprobante (I, E, T, N, P); empty is every type.
	InvoiceType string
	// Status is EstadoComprobante; empty is Todos.
	Status     string
	OnBehalf   string // RfcACuentaTerceros
	Complement string // Complemento
	UUID       string // Folio (by UUID only)
}

// attributes are the query's attributes of des:solicitud, sorted by name.
func (q Query) attributes() [][2]string {
	var a [][2]string
	add := func(k, v string) {
		if v != "" {
			a = append(a, [2]string{k, v})
		}
	}
	add("RfcSolicitante", strings.ToUpper(q.Requester))
	switch q.Operation {
	case ByUUID:
		add("Folio", q.UUID)
	default:
		add("FechaInicial", q.Start.Format(DateFormat))
		add("FechaFinal", q.End.Format(DateFormat))
		add("TipoSolicitud", q.RequestType)
		add("TipoComprobante", q.InvoiceType)
		st := q.Status
		if st == "" {
			st = StatusAll
		}
		add("EstadoComprobante", st)
		add("RfcACuentaTerceros", strings.ToUpper(q.OnBehalf))
		add("Complemento", q.Complement)
		add("RfcEmisor", strings.ToUpper(q.Issuer))
		if q.Operation == Received {
			add("RfcReceptor", strings.ToUpper(q.Receiver))
		}
	}
	slices.SortFunc(a, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
	return a
}

// Check is what the query must have before it is sent.
func (q Query) Check() error {
	switch q.Operation {
	case Issued, Received:
		if q.Start.IsZero() || q.End.IsZero() || !q.Start.Before(q.End) {
			return errors.New("satws: the start must be before the end")
		}
		if q.RequestType != RequestCFDI && q.RequestType != RequestMetadata {
			return fmt.Errorf("satws: request type %q: CFDI or Metadata", q.RequestType)
		}
		if q.Operation == Issued && len(q.Receivers) > 5 {
			return errors.New("satws: at most 5 receivers")
		}
	case ByUUID:
		if q.UUID == "" {
			return errors.New("satws: a query by UUID needs the UUID")
		}
	default:
		return fmt.Errorf("satws: operation %q", q.Operation)
	}
	if q.Requester == "" {
		return errors.New("satws: the requester's RFC is required")
	}
	return nil
}

// SAT's answer codes (CodEstatus, CodigoEstadoSolicitud).
const (
	CodeInvalidUser        = 300
	CodeMalformedXML       = 301
	CodeBadSignature       = 302
	CodeSignatureRFC       = 303
	CodeCertificateExpired = 304
	CodeInvalidCertificate = 305
	CodeUncontrolled       = 404
	CodeAccepted           = 5000
	CodeThirdParty         = 5001
	CodeExhausted          = 5002
	CodeTooMany            = 5003
	CodeNotFound           = 5004
	CodeDuplicate          = 5005
	CodePackageGone        = 5007
	CodeDownloadsExceeded  = 5008
	CodeFolioDaily         = 5011
	CodeCancelledXML       = 5012
)

// Messages are the texts of SAT's codes (SAT-1.5's tables).
var Messages = map[int]string{
	CodeInvalidUser:        "Usuario No Válido",
	CodeMalformedXML:       "XML Mal Formado",
	CodeBadSignature:       "Sello Mal Formado",
	CodeSignatureRFC:       "Sello no corresponde con RfcSolicitante",
	CodeCertificateExpired: "Certificado Revocado o Caduco",
	CodeInvalidCertificate: "Certificado Inválido",
	CodeUncontrolled:       "Error no Controlado",
	CodeAccepted:           "Solicitud Aceptada",
	CodeThirdParty:         "Tercero no autorizado",
	CodeExhausted:          "Se han agotado las solicitudes de por vida",
	CodeTooMany:            "Tope máximo de elementos de la consulta",
	CodeNotFound:           "No se encontró la información",
	CodeDuplicate:          "Ya se tiene una solicitud registrada",
	CodePackageGone:        "No existe el paquete solicitado",
	CodeDownloadsExceeded:  "Máximo de descargas permitidas",
	CodeFolioDaily:         "Límite de descargas por folio por día",
	CodeCancelledXML:       "No se permite la descarga de xml que se encuentren cancelados",
}

// Request states (EstadoSolicitud).
const (
	StateUnknown    = 0
	StateAccepted   = 1
	StateInProgress = 2
	StateFinished   = 3
	StateError      = 4
	StateRejected   = 5
	StateExpired    = 6
)
