// Package cfdi is the CFDI 4.0 engine: the document model (Anexo 20), its XML, a parser, the
// amounts SAT validates (Compute), the cadena original (equal byte for byte to SAT's
// cadenaoriginal_4_0.xslt), the seal (Seal) and the Timbre Fiscal Digital 1.1 stamp (Stamp).
//
// The model holds every attribute as the exact text the XML carries, so that a parsed document
// gives back the same cadena original; an empty string is an absent attribute (SAT's schema gives
// no attribute an empty value). Amounts are computed with Decimal (fixed point, 6 decimals),
// never with floating point, and written into the model as text by Compute.
//
// Nothing here touches the network, storage or the clock.
package cfdi

// Namespaces and schema locations SAT requires.
const (
	NS                = "http://www.sat.gob.mx/cfd/4"
	SchemaLocation    = "http://www.sat.gob.mx/sitio_internet/cfd/4/cfdv40.xsd"
	NSXSI             = "http://www.w3.org/2001/XMLSchema-instance"
	NSTFD             = "http://www.sat.gob.mx/TimbreFiscalDigital"
	TFDSchemaLocation = "http://www.sat.gob.mx/sitio_internet/cfd/TimbreFiscalDigital/TimbreFiscalDigitalv11.xsd"
)

// Invoice types (c_TipoDeComprobante).
const (
	TipoIngreso  = "I"
	TipoEgreso   = "E"
	TipoTraslado = "T"
	TipoNomina   = "N"
	TipoPago     = "P"
)

// Tax codes (c_Impuesto) and factor types (c_TipoFactor).
const (
	ISR  = "001"
	IVA  = "002"
	IEPS = "003"

	Tasa   = "Tasa"
	Cuota  = "Cuota"
	Exento = "Exento"
)

// Comprobante is a CFDI 4.0 (cfdi:Comprobante). Fields are in the schema's order.
type Comprobante struct {
	Version           string // "4.0"
	Serie             string
	Folio             string
	Fecha             string // 2006-01-02T15:04:05, local time of LugarExpedicion, no offset
	Sello             string
	FormaPago         string
	NoCertificado     string
	Certificado       string
	CondicionesDePago string
	SubTotal          string
	Descuento         string
	Moneda            string
	TipoCambio        string
	Total             string
	TipoDeComprobante string
	Exportacion       string
	MetodoPago        string
	LugarExpedicion   string
	Confirmacion      string

	InformacionGlobal *InformacionGlobal
	CfdiRelacionados  []CfdiRelacionados
	Emisor            Emisor
	Receptor          Receptor
	Conceptos         []Concepto
	Impuestos         *Impuestos
	Complemento       []Complement
	// Addenda is kept as raw XML (it is outside the seal); nil when absent.
	Addenda []byte

	// extraNS are namespace declarations of the root that parsed raw complements may use.
	extraNS []nsDecl
}

type nsDecl struct{ prefix, uri string }

// InformacionGlobal (global invoices to the general public).
type InformacionGlobal struct {
	Periodicidad string
	Meses        string
	Año          string
}

// CfdiRelacionados is one group of related CFDIs sharing a TipoRelacion.
type CfdiRelacionados struct {
	TipoRelacion string
	UUIDs        []string
}

// Emisor is the issuer.
type Emisor struct {
	Rfc              string
	Nombre           string
	RegimenFiscal    string
	FacAtrAdquirente string
}

// Receptor is the recipient.
type Receptor struct {
	Rfc                     string
	Nombre                  string
	DomicilioFiscalReceptor string
	ResidenciaFiscal        string
	NumRegIdTrib            string
	RegimenFiscalReceptor   string
	UsoCFDI                 string
}

// Concepto is one line.
type Concepto struct {
	ClaveProdServ    string
	NoIdentificacion string
	Cantidad         string
	ClaveUnidad      string
	Unidad           string
	Descripcion      string
	ValorUnitario    string
	Importe          string
	Descuento        string
	ObjetoImp        string

	// Impuestos of the line; both nil or empty means no cfdi:Impuestos element.
	Traslados   []Traslado
	Retenciones []Retencion

	ACuentaTerceros     *ACuentaTerceros
	InformacionAduanera []string // NumeroPedimento of each
	CuentaPredial       []string // Numero of each
	Partes              []Parte
}

// Traslado is a transferred tax of a line (and, with an empty TasaOCuota and Importe, an exempt
// one: TipoFactor Exento).
type Traslado struct {
	Base       string
	Impuesto   string
	TipoFactor string
	TasaOCuota string
	Importe    string
}

// Retencion is a withheld tax of a line.
type Retencion struct {
	Base       string
	Impuesto   string
	TipoFactor string
	TasaOCuota string
	Importe    string
}

// ACuentaTerceros: the line is issued on behalf of a third party.
type ACuentaTerceros struct {
	RfcACuentaTerceros             string
	NombreACuentaTerceros          string
	RegimenFiscalACuentaTerceros   string
	DomicilioFiscalACuentaTerceros string
}

// Parte is a part of a line's good.
type Parte struct {
	ClaveProdServ       string
	NoIdentificacion    string
	Cantidad            string
	Unidad              string
	Descripcion         string
	ValorUnitario       string
	Importe             string
	InformacionAduanera []string
}

// Impuestos are the invoice's tax totals.
type Impuestos struct {
	TotalImpuestosRetenidos   string
	TotalImpuestosTrasladados string
	Retenciones               []RetencionTotal
	Traslados                 []TrasladoTotal
}

// RetencionTotal is the withheld amount of one tax over all lines.
type RetencionTotal struct {
	Impuesto string
	Importe  string
}

// TrasladoTotal is the transferred amount of one Impuesto+TipoFactor+TasaOCuota over all lines.
type TrasladoTotal struct {
	Base       string
	Impuesto   string
	TipoFactor string
	TasaOCuota string
	Importe    string
}

// Complement is one element of cfdi:Complemento: *TimbreFiscalDigital, a complement this
// package models, or *RawComplement (anything else a parsed document carried).
type Complement interface {
	// writeXML appends the element (its prefix declared on the root by namespace, or on itself).
	writeXML(w *xmlWriter)
	// cadena appends the complement's part of the CFDI cadena original.
	cadena(c *cadenaBuilder) error
	// namespace is the prefix, URI and schema location to declare on the root ("" when the
	// element declares its own, as the TFD does).
	namespace() (prefix, uri, schema string)
}

// TFD is the document's Timbre Fiscal Digital, nil when not stamped.
func (c *Comprobante) TFD() *TimbreFiscalDigital {
	for _, x := range c.Complemento {
		if t, ok := x.(*TimbreFiscalDigital); ok {
			return t
		}
	}
	return nil
}
