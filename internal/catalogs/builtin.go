package catalogs

// The catalogs defined by the project (spec 3 §4.2 names them; their records are the service's
// own) and the SAT catalogs that no SAT table carries: the values SAT fixes in its schemas
// (XSD enumerations) and in the cancellation rules. docs/catalogs.md lists them all.

func project(name, note string, pairs ...string) Catalog {
	c := Catalog{Name: name, Note: note}
	for i := 0; i+1 < len(pairs); i += 2 {
		c.Records = append(c.Records, Record{ID: pairs[i], Description: pairs[i+1]})
	}
	return c
}

func unlisted(c Catalog) Catalog {
	c.Unlisted = true
	return c
}

// xsdEnum is a SAT catalog whose values are an enumeration of a SAT schema: the id and the
// description are the value.
func xsdEnum(name, satName, where string, values ...string) Catalog {
	c := Catalog{Name: name, SAT: satName, Note: "the values SAT's schema allows (" + where + ")"}
	for _, v := range values {
		c.Records = append(c.Records, Record{ID: v, Description: v})
	}
	return c
}

var (
	productTypes = project("ProductTypes", "UNSPSC kinds of c_ClaveProdServ: segments 10 to 60 are products, 70 to 95 services",
		"1", "Productos", "2", "Servicios")
	userTypes = project("UserTypes", "spec 2 §2.1 `userTypeId`",
		"C", "Cliente", "T", "Tenant", "U", "Usuario")
	reportRuleTypes = project("ReportRuleTypes", "spec 1 §1: a report rule applies by the issuer's RFC",
		"Rfc", "Por RFC del emisor")
	taxes = project("Taxes", "the taxes of c_Impuesto, by their SAT key",
		"001", "ISR", "002", "IVA", "003", "IEPS")
	taxFlags = project("TaxFlags", "the nature of a tax line",
		"R", "Retención", "T", "Traslado")
	taxTypes = project("TaxTypes", "the factor types of c_TipoFactor",
		"Cuota", "Cuota", "Exento", "Exento", "Tasa", "Tasa")
	personTypes = project("PersonTypes", "the kinds of taxpayer of c_RegimenFiscal (aplica física / moral)",
		"F", "Persona física", "M", "Persona moral")
	invoiceStatuses = project("InvoiceStatuses", "the states of an invoice at SAT",
		"Cancelado", "Cancelado", "EnProcesoDeCancelacion", "En proceso de cancelación", "Vigente", "Vigente")
	validationTypes = unlisted(project("SatValidationTypes", "spec 3 §2.6, in catalog order; served, not in the list of §4.2",
		"sat.xml.structure", "Estructura del XML",
		"sat.certificate.validity", "Vigencia del certificado del emisor en la fecha de emisión",
		"sat.cfdi.sello", "Sello del CFDI",
		"sat.tfd.sello", "Sello del SAT en el timbre",
		"sat.cfdi.status", "Estado actual del CFDI en el SAT",
		"sat.blacklist.69b", "RFC en la lista de operaciones presuntamente inexistentes (artículo 69-B)",
		"sat.blacklist.69bbis", "RFC en la lista de transmisión indebida de pérdidas fiscales (artículo 69-B Bis)"))
	motivosCancelacion = Catalog{Name: "SatMotivosCancelacion", SAT: "c_MotivosCancelacion",
		Note: "the cancellation reasons SAT publishes (keys 01 to 04)",
		Records: []Record{
			{"01", "Comprobante emitido con errores con relación"},
			{"02", "Comprobante emitido con errores sin relación"},
			{"03", "No se llevó a cabo la operación"},
			{"04", "Operación nominativa relacionada en una factura global"},
		}}
)

// The bulk-download catalogs (spec 3 §4.3): the values of SAT's bulk-download service and of the
// service's download rules and requests.
var (
	downloadInvoiceTypes = project("SatInvoiceTypes", "c_TipoDeComprobante as a bulk-download filter; the empty id means every type",
		"", "Todos", "E", "Egreso", "I", "Ingreso", "N", "Nómina", "P", "Pago", "T", "Traslado")
	downloadComplements = project("SatInvoiceComplements", "the complement filter of SAT's bulk-download service",
		"", "Todos",
		"acreditamientoieps10", "Acreditamiento de IEPS 1.0",
		"aerolineas", "Aerolíneas 1.0",
		"cartaporte20", "Carta Porte 2.0",
		"cartaporte30", "Carta Porte 3.0",
		"cartaporte31", "Carta Porte 3.1",
		"certificadodedestruccion", "Certificado de destrucción 1.0",
		"comercioexterior11", "Comercio Exterior 1.1",
		"comercioexterior20", "Comercio Exterior 2.0",
		"consumodecombustibles11", "Consumo de combustibles 1.1",
		"detallista", "Detallista",
		"divisas", "Divisas 1.0",
		"donat11", "Donatarias 1.1",
		"ecc12", "Estado de cuenta de combustibles 1.2",
		"gastoshidrocarburos10", "Gastos hidrocarburos 1.0",
		"iedu", "Instituciones educativas privadas 1.0",
		"implocal", "Impuestos locales 1.0",
		"ine11", "INE 1.1",
		"ingresoshidrocarburos", "Ingresos hidrocarburos 1.0",
		"leyendasfisc", "Leyendas fiscales 1.0",
		"nomina12", "Nómina 1.2",
		"notariospublicos", "Notarios públicos 1.0",
		"obrasarteantiguedades", "Obras de arte y antigüedades 1.0",
		"pagoenespecie", "Pago en especie 1.0",
		"pagos20", "Pagos 2.0",
		"pfic", "Persona física integrante de coordinado 1.0",
		"renovacionysustitucionvehiculos", "Renovación y sustitución de vehículos 1.0",
		"servicioparcialconstruccion", "Servicios parciales de construcción 1.0",
		"spei", "SPEI",
		"terceros11", "Concepto por cuenta de terceros 1.1",
		"turistapasajeroextranjero", "Turista pasajero extranjero 1.0",
		"valesdedespensa", "Vales de despensa 1.0",
		"vehiculousado", "Vehículo usado 1.0",
		"ventavehiculos11", "Venta de vehículos 1.1")
	downloadInvoiceStatuses = project("SatInvoiceStatuses", "spec 2 §5 `satInvoiceStatusId`",
		"Cancelado", "Cancelado", "Vigente", "Vigente")
	downloadQueryTypes = project("SatQueryTypes", "spec 2 §5 `satQueryTypeId`",
		"CFDI", "CFDI", "Metadata", "Metadata", "Retenciones", "Retenciones")
	downloadRequestStatuses = project("SatRequestStatuses", "the states of a request at SAT's bulk-download service",
		"1", "Aceptada", "2", "En proceso", "3", "Terminada", "4", "Error", "5", "Rechazada", "6", "Vencida")
	downloadStatuses = project("SatStatuses", "the answer codes of SAT's bulk-download service",
		"300", "Usuario no válido", "301", "XML mal formado", "302", "Sello mal formado",
		"303", "Sello no corresponde con RfcSolicitante", "304", "Certificado revocado o caduco",
		"305", "Certificado inválido", "5000", "Solicitud recibida con éxito",
		"5002", "Se agotó las solicitudes de por vida", "5003", "Tope máximo",
		"5004", "No se encontró la información", "5005", "Solicitud duplicada",
		"5011", "Límite de descargas por folio por día",
		"5012", "No se permite la descarga de xml cancelados",
		"404", "Error no controlado")
	downloadTypes = project("DownloadTypes", "spec 2 §5 `downloadTypeId`; Uuid: one CFDI by its UUID (SAT's SolicitaDescargaFolio), for download requests only",
		"Emitidos", "Emitidos", "Recibidos", "Recibidos", "Uuid", "Uuid")
	downloadRequestTypes = project("DownloadRequestTypes", "spec 3 §4.3",
		"Automatic", "Automatic", "Manual", "Manual")
	downloadRequestStatusesOwn = project("DownloadRequestStatuses", "the states of a download request of the service",
		"Pending", "Pendiente", "InProgress", "En proceso", "Completed", "Terminada", "Failed", "Fallida")
	downloadRuleStatuses = project("DownloadRuleStatuses", "spec 2 §5 `downloadRuleStatusId`",
		"-1", "Rechazada", "1", "Pendiente", "2", "Aprobada")
)
