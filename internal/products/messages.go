package products

// Texts of the products area. The spec shows no product messages; these follow its style:
// catalog failures as spec 2 §4.3 writes them (`El régimen fiscal '<valor>' no existe en el
// catálogo c_RegimenFiscal del SAT.`), required fields with the validator texts the people and
// employment areas use, each naming the CFDI 4.0 attribute the field becomes where it helps.
const (
	// apierr.MsgNotEmpty and apierr.MsgNotNull are the required-field texts (NotEmptyValidator for texts,
	// NotNullValidator for numbers), with the property's name in words ('Unit Price').
	// MsgIDsMismatch: the body's id is not the product of the path (the text of API keys,
	// webhooks and people for the same case).
	MsgIDsMismatch = "IDs mismatches"

	MsgDescriptionLength = "La descripción debe tener de 1 a 1000 caracteres (atributo Descripcion del concepto del CFDI). Ingresó %d caracteres."
	MsgDescriptionPipe   = "La descripción no puede contener el carácter '|' (el SAT lo reserva para la cadena original)."

	MsgUnitPriceNegative = "El precio unitario debe ser mayor o igual a 0."
	MsgUnitPriceDecimals = "El precio unitario admite hasta 6 decimales (atributo ValorUnitario del CFDI)."
	MsgUnitPriceMax      = "El precio unitario no puede ser mayor a 999999999999999999.999999."

	MsgNoProductCode = "La clave de producto o servicio '%s' no existe en el catálogo c_ClaveProdServ del SAT."
	MsgNoUnit        = "La clave de unidad '%s' no existe en el catálogo c_ClaveUnidad del SAT."
	MsgNoTaxObject   = "El objeto de impuesto '%s' no existe en el catálogo c_ObjetoImp del SAT."
	MsgNoTax         = "El impuesto '%s' no existe en el catálogo c_Impuesto del SAT: usa 001 (ISR), 002 (IVA) o 003 (IEPS)."
	MsgNoTaxType     = "El tipo factor '%s' no existe en el catálogo c_TipoFactor del SAT: usa Tasa, Cuota o Exento."
	MsgNoTaxFlag     = "La naturaleza del impuesto '%s' no es válida: usa T (traslado) o R (retención)."

	// MsgTaxObjectNoTaxes: c_ObjetoImp 01, 03 and 04 say the item carries no taxes (the CFDI
	// then has no Impuestos node in the concept); MsgTaxObjectNeedsTaxes: 02 says it does.
	MsgTaxObjectNoTaxes    = "El objeto de impuesto '%s' no lleva impuestos: deja productTaxes vacío o usa el objeto de impuesto 02."
	MsgTaxObjectNeedsTaxes = "El objeto de impuesto '02' (sí objeto de impuesto) requiere al menos un impuesto en productTaxes."
	MsgTaxRepeated         = "El impuesto '%s' %s ya está en productTaxes[%d]: un producto lleva un solo traslado y una sola retención de cada impuesto."

	MsgRateRequired    = "La tasa o cuota es requerida cuando el tipo factor es Tasa o Cuota."
	MsgRateNegative    = "La tasa o cuota debe ser mayor o igual a 0."
	MsgRateMax         = "La tasa o cuota no puede ser mayor a 72.160500, el valor más alto del catálogo c_TasaOCuota del SAT."
	MsgRateDecimals    = "La tasa o cuota admite hasta 6 decimales (catálogo c_TasaOCuota del SAT)."
	MsgRateNotFixed    = "La tasa o cuota '%s' no existe en el catálogo c_TasaOCuota del SAT para %s %s %s: usa %s."
	MsgRateNotInRange  = "La tasa o cuota '%s' no existe en el catálogo c_TasaOCuota del SAT para %s %s %s: usa un valor de %s a %s."
	MsgNoRateRule      = "El catálogo c_TasaOCuota del SAT no tiene %s con tipo factor %s %s."
	MsgExentoRate      = "Un impuesto Exento no lleva tasa o cuota: envía rate nulo o 0 (se envió %s)."
	MsgExentoWithheld  = "El tipo factor Exento no aplica a retenciones: una retención lleva Tasa o Cuota."
	MsgISRWithheldOnly = "El ISR (001) solo se retiene: usa taxFlagId R con tipo factor Tasa."
)

// Names of the catalogs behind a product's ids (catalogs registry). Taxes, TaxTypes and
// TaxFlags are the service's own catalogs, always present; the SAT ones need an import.
const (
	CatalogProductCodes     = "SatProductCodes"
	CatalogUnitMeasurements = "SatUnitMeasurements"
	CatalogTaxObjects       = "SatTaxObjects"
	CatalogTaxes            = "Taxes"
	CatalogTaxTypes         = "TaxTypes"
	CatalogTaxFlags         = "TaxFlags"
)

// Defaults of a created product for the fields not sent: the ones the official clients document
// (their Product model: unit H87, tax object 02, product code 01010101, taxes IVA 16%).
const (
	DefaultUnitMeasurement = "H87"
	DefaultTaxObject       = "02"
	DefaultProductCode     = "01010101"
)

// Limits of a product: Descripcion and ValorUnitario of CFDI 4.0 (t_Importe: 18 integer digits,
// 6 decimals); page sizes as for people (spec 1 §8 shows none for products).
const (
	MaxDescription  = 1000
	MaxPageSize     = 50
	DefaultPageSize = 50
)
