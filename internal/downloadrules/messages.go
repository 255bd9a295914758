package downloadrules

// Texts of the download-rules area. The spec gives the 403 of the owner's rules
// (auth.MsgOnlyOwnerModifyOwner) and the 404 (apierr.NotFound); the others are timbra's, in the
// style of the people and products areas.
const (
	MsgIDsMismatch = "IDs mismatches"

	MsgBadQueryType     = "El tipo de consulta '%s' no existe en el catálogo SatQueryTypes: usa CFDI, Metadata o Retenciones."
	MsgBadDownloadType  = "El tipo de descarga '%s' no existe en el catálogo DownloadTypes: usa Emitidos o Recibidos."
	MsgRuleByUUID       = "Una regla descarga un periodo: el tipo de descarga 'Uuid' se pide en una solicitud de descarga, no en una regla; usa Emitidos o Recibidos."
	MsgBadInvoiceStatus = "El estado de factura '%s' no existe en el catálogo SatInvoiceStatuses: usa Vigente o Cancelado."
	MsgCanceledOnlyMeta = "El estado de factura 'Cancelado' solo se admite con el tipo de consulta 'Metadata': el SAT descarga los CFDI cancelados solo como metadatos."

	MsgPersonAbsent = "La persona '%s' no existe."
	MsgPersonNoRFC  = "La persona '%s' no tiene un RFC válido: la descarga masiva se solicita al SAT con el RFC de la persona."
	MsgPersonNoFiel = "La persona '%s' no tiene una e.firma vigente: sube su certificado (tipo 2) y su llave privada (tipo 3) de e.firma."
	// MsgSeatsExceeded: in use, then the subscription's seats (403; a seat is one RFC and one
	// download type of the tenant's rules that are not rejected).
	MsgSeatsExceeded = "Lugares de descarga masiva ocupados: %d de %d (cada lugar es un RFC y un tipo de descarga); elimina una regla o amplía la suscripción."

	MsgBadStatus = "El estado de regla '%s' no existe en el catálogo DownloadRuleStatuses: usa -1 (Rechazada), 1 (Pendiente) o 2 (Aprobada)."
)

// Ids of the download catalogs (internal/catalogs/builtin.go) a rule takes.
const (
	QueryCFDI        = "CFDI"
	QueryMetadata    = "Metadata"
	QueryRetenciones = "Retenciones"

	StatusRejected = "-1"
	StatusPending  = "1"
	StatusApproved = "2"

	InvoiceCanceled = "Cancelado"

	// DownloadByUUID is the download type of one CFDI by its UUID: a download request's, never a
	// rule's (spec 2 §5: a rule is Emitidos or Recibidos).
	DownloadByUUID = "Uuid"

	CatalogRuleStatuses    = "DownloadRuleStatuses"
	CatalogQueryTypes      = "SatQueryTypes"
	CatalogDownloadTypes   = "DownloadTypes"
	CatalogInvoiceStatuses = "SatInvoiceStatuses"
)

// Page size limits of the list (spec 2 §4.6).
const (
	DefaultPageSize = 10
	MaxPageSize     = 50
	// MaxDescription is the longest description (spec 2 §2.6).
	MaxDescription = 100
)
