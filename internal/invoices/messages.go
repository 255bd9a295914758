package invoices

import (
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
)

// Texts of the invoices area. The spec shows none ("messages: not shown", spec 3 §4.1); these
// follow its style: Spanish, the value sent between quotes, the SAT catalog or CFDI 4.0
// attribute named where it helps. Required fields use the validator text of the other areas.
const (
	MsgVersion      = "La versión de CFDI '%s' no se admite: usa 4.0."
	MsgDate         = "La fecha '%s' no es válida: usa AAAA-MM-DDThh:mm:ss, sin zona horaria (hora del lugar de expedición)."
	MsgDateFuture   = "La fecha del comprobante '%s' es posterior a la fecha actual (%s, hora del centro de México)."
	MsgDateTooOld   = "La fecha del comprobante '%s' tiene más de 72 horas: el SAT no admite timbrar comprobantes emitidos hace más de 72 horas."
	MsgNotInCatalog = "El valor '%s' no existe en el catálogo %s del SAT."
	MsgZipCode      = "El código postal '%s' no es válido: debe tener 5 dígitos."
	ZipPattern      = `^[0-9]{5}$`      // a postal code (MsgZipCode)
	MsgRFC          = cfdi.MsgRFCFormat // and cfdi.MsgRFCDate: cfdi.CheckRFC's texts
	MsgSeriesLength = "La serie admite de 1 a 25 caracteres (atributo Serie del CFDI). Ingresó %d caracteres."
	MsgTooLong      = "'%s' admite hasta %d caracteres. Ingresó %d caracteres."

	MsgComplementNotYet = "El complemento '%s' aún no se admite en este servicio: por ahora complement.localTaxes (Impuestos Locales 1.0), complement.payment (Pagos 2.0) y complement.payroll (Nómina 1.2)."
	// MsgComplementMoved: a complement sent where it was before 2026 (spec 1 §9).
	MsgComplementMoved = "Desde el 1 de enero de 2026 el complemento '%s' va en '%s'."

	MsgPPDForm            = "Con el método de pago PPD (pago en parcialidades o diferido) la forma de pago debe ser 99 (Por definir)."
	MsgPUEForm            = "Con el método de pago PUE (pago en una sola exhibición) la forma de pago no puede ser 99 (Por definir)."
	MsgNoPaymentFields    = "Un comprobante de tipo %s no lleva '%s'."
	MsgExchangeRateMXN    = "Con la moneda %s el tipo de cambio debe ser 1 o no enviarse."
	MsgExchangeRateNeeded = "Con la moneda %s el tipo de cambio es requerido y debe ser mayor a 0."
	MsgAmount             = "'%s' debe ser un número con hasta 6 decimales; se recibió '%s'."
	MsgAmountNegative     = "'%s' debe ser mayor o igual a 0."
	MsgQuantity           = "La cantidad debe ser mayor a 0."
	MsgDiscount           = "El descuento %s no puede ser mayor al importe %s (cantidad × valor unitario)."
	MsgNoItems            = "El comprobante debe tener al menos un concepto (items)."
	MsgTrasladoPrice      = "En un comprobante de traslado (T) el valor unitario debe ser 0: su total es cero."
	MsgTrasladoTaxes      = "Un comprobante de traslado (T) no lleva impuestos: deja itemTaxes vacío."
	MsgTaxObjectNoTaxes   = "El objeto de impuesto '%s' no lleva impuestos: deja itemTaxes vacío o usa el objeto de impuesto 02."
	MsgTaxObjectNeedsTax  = "El objeto de impuesto '02' (sí objeto de impuesto) requiere al menos un impuesto en itemTaxes."
	MsgTotalNegative      = "Los descuentos y las retenciones exceden los importes: el total del comprobante sería negativo."
	MsgAmountsOutOfRange  = "Los importes del comprobante exceden el máximo que admite el CFDI."
	MsgUUID               = "El UUID '%s' no es válido."
	MsgYear               = "El año '%s' no es válido: usa 4 dígitos."
	MsgGlobalRecipient    = "La información global solo aplica a comprobantes al público en general (RFC XAXX010101000)."
	MsgLocalRate          = "La tasa del impuesto local admite hasta 2 decimales (atributo TasadeTraslado o TasadeRetencion)."
	MsgLocalFlag          = "La naturaleza del impuesto local '%s' no es válida: usa T (traslado) o R (retención)."
	MsgXMLChar            = "El comprobante contiene un carácter que el XML no admite: %s"

	// Issuer and recipient by reference.
	MsgPersonAbsent     = "La persona '%s' no existe."
	MsgPersonNoTin      = "La persona '%s' no tiene RFC (tin)."
	MsgPersonNoRegime   = "La persona '%s' no tiene régimen fiscal (satTaxRegimeId)."
	MsgPersonNoZip      = "La persona '%s' no tiene código postal (zipCode)."
	MsgPersonNoCfdiUse  = "La persona '%s' no tiene uso de CFDI (satCfdiUseId): envíalo en recipient.cfdiUseCode."
	MsgIssuerNoFiles    = "La persona '%s' no tiene un certificado de sello digital (CSD) vigente con su llave privada: súbelos en /api/v4/tax-files."
	MsgIssuerDefaultBad = "El certificado por defecto de la persona '%s' no está vigente en la fecha del comprobante %s (válido del %s al %s)."
	MsgProductAbsent    = "El producto '%s' no existe."

	// Issuer by value: taxCredentials.
	MsgCredentialsNeeded  = "Se requieren el certificado (fileType 0) y la llave privada (fileType 1) del CSD del emisor en taxCredentials."
	MsgCredentialFileType = "En taxCredentials el fileType debe ser 0 (certificado .cer) o 1 (llave privada .key); se recibió '%s'."
	MsgCredentialRepeated = "taxCredentials lleva más de un archivo con fileType %d."
	MsgNotBase64          = "'Base64 File' no es base64 válido."
	MsgNotCertificate     = "El archivo no es un certificado (.cer) válido: se espera un certificado X.509 en DER, codificado en base64."
	MsgCertificateFIEL    = "El certificado es de e.firma (FIEL): los comprobantes se sellan con el certificado de sello digital (CSD)."
	MsgCertificateNotCSD  = "El certificado no es un certificado de sello digital (CSD) del SAT."
	MsgCertificateRFC     = "El RFC del certificado '%s' no coincide con el RFC del emisor '%s'."
	MsgCertificateDate    = "El certificado no está vigente en la fecha del comprobante %s: es válido del %s al %s."
	MsgKeyMismatch        = "La llave privada no corresponde al certificado."

	// MsgNoCredits is the 403 of a caller without stamps.
	MsgNoCredits = "No tienes timbres disponibles: tu saldo de timbres (créditos tipo 1) es 0. Pide al dueño de la cuenta que te transfiera timbres."

	// MsgDeprecated is the 410 of the per-type endpoints discontinued on 2026-01-01 (spec 1 §9);
	// %s is the path called. MsgDeprecatedComplement adds where the complement moved.
	MsgDeprecated           = "El endpoint POST %s se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices (el tipo de comprobante va en typeCode)."
	MsgDeprecatedComplement = "El endpoint POST %s se descontinuó el 1 de enero de 2026: usa POST /api/v4/invoices; el complemento pasó de invoice.%s a invoice.complement.%s."
)

// Error codes of the failures.
const (
	CodeNotEmpty        = apierr.CodeNotEmpty
	CodeNotInCatalog    = "NotInCatalog"
	CodeFormat          = "InvalidFormat"
	CodeNotSupported    = "NotSupported"
	CodeMoved           = "ComplementMoved"
	CodeWrongPassword   = "PrivateKeyPassword"
	CodeCertificate     = "InvalidCertificate"
	CodeCertificateRFC  = "CertificateRfcMismatch"
	CodeCertificateDate = "CertificateNotValidAtDate"
	CodeKeyMismatch     = "PrivateKeyMismatch"
	CodeRule            = "CfdiRule"
)

// Catalogs an invoice is checked against (catalogs registry names).
const (
	CatalogPaymentForms      = "SatPaymentForms"
	CatalogPaymentMethods    = "SatPaymentMethods"
	CatalogCurrencies        = "SatCurrencies"
	CatalogInvoiceTypes      = "SatInvoiceTypes"
	CatalogExportCodes       = "SatExportCodes"
	CatalogTaxRegimes        = "SatTaxRegimes"
	CatalogCfdiUses          = "SatCfdiUses"
	CatalogProductCodes      = "SatProductCodes"
	CatalogUnitMeasurements  = "SatUnitMeasurements"
	CatalogTaxObjects        = "SatTaxObjects"
	CatalogRelationshipTypes = "SatRelationshipTypes"
	CatalogPeriodicities     = "SatPeriodicities"
	CatalogMonths            = "SatMonths"
	CatalogCountries         = "SatCountries"
	CatalogTaxes             = "Taxes"
	CatalogTaxTypes          = "TaxTypes"
	CatalogTaxFlags          = "TaxFlags"
)

// satName is the SAT catalog a failure names.
var satName = map[string]string{
	CatalogPaymentForms: "c_FormaPago", CatalogPaymentMethods: "c_MetodoPago", CatalogCurrencies: "c_Moneda",
	CatalogInvoiceTypes: "c_TipoDeComprobante", CatalogExportCodes: "c_Exportacion", CatalogTaxRegimes: "c_RegimenFiscal",
	CatalogCfdiUses: "c_UsoCFDI", CatalogProductCodes: "c_ClaveProdServ", CatalogUnitMeasurements: "c_ClaveUnidad",
	CatalogTaxObjects: "c_ObjetoImp", CatalogRelationshipTypes: "c_TipoRelacion", CatalogPeriodicities: "c_Periodicidad",
	CatalogMonths: "c_Meses", CatalogCountries: "c_Pais", CatalogTaxes: "c_Impuesto", CatalogTaxTypes: "c_TipoFactor",
	CatalogTaxFlags: "de naturaleza de impuestos (T, R)",
}

// currencyDecimals are the decimals of c_Moneda's currencies other than 2 (its "decimales"
// column, 2026 edition); every other currency has 2.
var currencyDecimals = map[string]int{
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3, "CLF": 4,
	"BIF": 0, "BYR": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XAG": 0, "XAU": 0, "XBA": 0, "XBB": 0,
	"XBC": 0, "XBD": 0, "XDR": 0, "XOF": 0, "XPD": 0, "XPF": 0, "XPT": 0, "XSU": 0, "XTS": 0, "XUA": 0, "XXX": 0,
}

func decimalsOf(currency string) int {
	if d, ok := currencyDecimals[currency]; ok {
		return d
	}
	return 2
}
