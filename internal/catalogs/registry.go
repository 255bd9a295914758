package catalogs

import "github.com/timbra-mx/timbra/internal/api"

// A Catalog is one catalog of the API: its name (case-sensitive, spec 3 §2.1) and where its
// records come from. A SAT catalog reads a table of the imported source: the record id is the
// value of the ID columns (joined by "-" when a table's key has several, as c_Municipio's
// state and municipality: "AGU-001"), the description the Desc column (the id itself when the
// table has none). A project catalog has its records in the program (builtin.go).
type Catalog struct {
	Name  string   // API name
	SAT   string   // the SAT catalog it serves ("c_RegimenFiscal"); "" for project catalogs
	Table string   // source table
	ID    []string // columns making the record id
	Desc  string   // column of the description; "" means the id
	// Keep, when set, selects the table's records that belong to the catalog.
	Keep func(id string) bool
	// Records are the records of a project catalog.
	Records []Record
	// Note says, for the documentation, where the records come from.
	Note string
	// Unlisted catalogs are served but not named by GET /api/v4/catalogs, whose list spec 3
	// §4.2 gives exactly.
	Unlisted bool
	// TaxIDPattern names the column holding, for a country, the pattern of its residents' tax
	// registration numbers (c_Pais's "Formato de registro de identidad tributaria"), kept for
	// TaxIDPatterns and never shown by the API. Optional: a source without it gives none.
	TaxIDPattern string
	// Applies names the columns saying to whom a record applies, kept for Applicability and
	// never shown by the API: c_RegimenFiscal's and c_UsoCFDI's aplica_fisica and aplica_moral,
	// and c_UsoCFDI's regimenes_fiscales_receptores. Optional: a source without them gives none.
	Applies *AppliesColumns
}

// AppliesColumns are the columns of Catalog.Applies ("" when the catalog has no such column).
type AppliesColumns struct {
	Physical, Moral, Regimes string
}

// Record is a catalog record as the API shows it.
type Record struct {
	ID          string
	Description string
}

// sat is a SAT catalog over a table with an "id" key and a "texto" description.
func sat(name, satName, table string) Catalog {
	return Catalog{Name: name, SAT: satName, Table: table, ID: []string{"id"}, Desc: "texto"}
}

// All is every catalog of GET /api/v4/catalogs, in the order of spec 3 §4.2's list. Where SAT
// publishes a catalog for several versions of a standard, the current one is served: CFDI 4.0,
// Carta Porte 3.1, Comercio Exterior 2.0.
var All = []Catalog{
	{Name: "SatCfdiUses", SAT: "c_UsoCFDI", Table: "cfdi_40_usos_cfdi", ID: []string{"id"}, Desc: "texto",
		Applies: &AppliesColumns{Physical: "aplica_fisica", Moral: "aplica_moral", Regimes: "regimenes_fiscales_receptores"}},
	{Name: "SatCountries", SAT: "c_Pais", Table: "cfdi_40_paises", ID: []string{"id"}, Desc: "texto", TaxIDPattern: "patron_identidad_tributaria"},
	sat("SatCurrencies", "c_Moneda", "cfdi_40_monedas"),
	sat("SatExportCodes", "c_Exportacion", "cfdi_40_exportaciones"),
	sat("SatInvoiceTypes", "c_TipoDeComprobante", "cfdi_40_tipos_comprobantes"),
	sat("SatMonths", "c_Meses", "cfdi_40_meses"),
	sat("SatTaxObjects", "c_ObjetoImp", "cfdi_40_objetos_impuestos"),
	sat("SatPaymentForms", "c_FormaPago", "cfdi_40_formas_pago"),
	sat("SatPaymentMethods", "c_MetodoPago", "cfdi_40_metodos_pago"),
	sat("SatPeriodicities", "c_Periodicidad", "cfdi_40_periodicidades"),
	sat("SatProductCodes", "c_ClaveProdServ", "cfdi_40_productos_servicios"),
	sat("SatRelationshipTypes", "c_TipoRelacion", "cfdi_40_tipos_relaciones"),
	sat("SatTaxes", "c_Impuesto", "cfdi_40_impuestos"),
	{Name: "SatStates", SAT: "c_Estado", Table: "cfdi_40_estados", ID: []string{"estado"}, Desc: "texto"},
	{Name: "SatTaxRegimes", SAT: "c_RegimenFiscal", Table: "cfdi_40_regimenes_fiscales", ID: []string{"id"}, Desc: "texto",
		Applies: &AppliesColumns{Physical: "aplica_fisica", Moral: "aplica_moral"}},
	{Name: "SatTaxTypes", SAT: "c_TipoFactor", Table: "cfdi_40_tipos_factores", ID: []string{"id"}},
	sat("SatUnitMeasurements", "c_ClaveUnidad", "cfdi_40_claves_unidades"),
	productTypes,
	{Name: "ProductDivisions", Table: "cfdi_40_productos_servicios", ID: []string{"id"}, Desc: "texto",
		Keep: func(id string) bool { return len(id) == 8 && id[2:] == "000000" },
		Note: "c_ClaveProdServ records of the division level (UNSPSC segment: `NN000000`)"},
	{Name: "ProductGroups", Table: "cfdi_40_productos_servicios", ID: []string{"id"}, Desc: "texto",
		Keep: func(id string) bool { return len(id) == 8 && id[4:] == "0000" && id[2:4] != "00" },
		Note: "c_ClaveProdServ records of the group level (UNSPSC family: `NNNN0000`)"},
	{Name: "ProductClasses", Table: "cfdi_40_productos_servicios", ID: []string{"id"}, Desc: "texto",
		Keep: func(id string) bool { return len(id) == 8 && id[6:] == "00" && id[4:6] != "00" },
		Note: "c_ClaveProdServ records of the class level (UNSPSC class: `NNNNNN00`)"},
	userTypes,
	reportRuleTypes,
	taxes,
	taxFlags,
	taxTypes,
	{Name: "TaxRules", Table: "cfdi_40_reglas_tasa_cuota", ID: []string{"impuesto", "factor", "tipo", "minimo", "valor"},
		Note: "c_TasaOCuota: one record per rule, id `<impuesto>-<factor>-<tipo>-<mínimo>-<valor>`"},
	personTypes,
	invoiceStatuses,
	validationTypes,
	{Name: "SatBanks", SAT: "c_Banco", Table: "nomina_bancos", ID: []string{"id"}, Desc: "texto"},
	sat("SatFundSources", "c_OrigenRecurso", "nomina_origenes_recursos"),
	sat("SatPaymentPeriodicities", "c_PeriodicidadPago", "nomina_periodicidades_pagos"),
	sat("SatContractTypes", "c_TipoContrato", "nomina_tipos_contratos"),
	sat("SatDeductionTypes", "c_TipoDeduccion", "nomina_tipos_deducciones"),
	sat("SatOvertimeTypes", "c_TipoHoras", "nomina_tipos_horas"),
	sat("SatDisabilityTypes", "c_TipoIncapacidad", "nomina_tipos_incapacidades"),
	sat("SatWorkdayTypes", "c_TipoJornada", "nomina_tipos_jornadas"),
	sat("SatPayrollTypes", "c_TipoNomina", "nomina_tipos_nominas"),
	sat("SatOtherPaymentTypes", "c_TipoOtroPago", "nomina_tipos_otros_pagos"),
	sat("SatEarningTypes", "c_TipoPercepcion", "nomina_tipos_percepciones"),
	sat("SatTaxRegimeTypes", "c_TipoRegimen", "nomina_tipos_regimenes"),
	sat("SatJobRisks", "c_RiesgoPuesto", "nomina_riesgos_puestos"),
	{Name: "SatPayrollStates", SAT: "c_Estado (Nómina)", Table: "nomina_estados", ID: []string{"estado"}, Desc: "texto"},
	xsdEnum("SatUnionizedStatuses", "c_Sindicalizado", "Nómina 1.2, atributo Sindicalizado", "Sí", "No"),
	sat("SatRegimenAduanero", "c_RegimenAduanero", "ccp_31_regimenes_aduaneros"),
	sat("SatCveTransporte", "c_CveTransporte", "ccp_31_transportes"),
	sat("SatTipoEstacion", "c_TipoEstacion", "ccp_31_tipos_estacion"),
	sat("SatEstaciones", "c_Estaciones", "ccp_31_estaciones"),
	sat("SatClaveUnidadPeso", "c_ClaveUnidadPeso", "ccp_31_claves_unidades"),
	sat("SatMaterialPeligroso", "c_MaterialPeligroso", "ccp_31_materiales_peligrosos"),
	sat("SatTipoEmbalaje", "c_TipoEmbalaje", "ccp_31_tipos_embalaje"),
	sat("SatTipoPermiso", "c_TipoPermiso", "ccp_31_tipos_permiso"),
	{Name: "SatColonia", SAT: "c_Colonia", Table: "cfdi_40_colonias", ID: []string{"codigo_postal", "colonia"}, Desc: "texto"},
	{Name: "SatLocalidad", SAT: "c_Localidad", Table: "cfdi_40_localidades", ID: []string{"estado", "localidad"}, Desc: "texto"},
	{Name: "SatMunicipio", SAT: "c_Municipio", Table: "cfdi_40_municipios", ID: []string{"estado", "municipio"}, Desc: "texto"},
	sat("SatSectorCOFEPRIS", "c_SectorCOFEPRIS", "ccp_31_sectores_cofepris"),
	sat("SatFormaFarmaceutica", "c_FormaFarmaceutica", "ccp_31_formas_farmaceuticas"),
	sat("SatCondicionesEspeciales", "c_CondicionesEspeciales", "ccp_31_condiciones_especiales"),
	sat("SatTipoMateria", "c_TipoMateria", "ccp_31_tipos_materia"),
	sat("SatDocumentoAduanero", "c_DocumentoAduanero", "ccp_31_documentos_aduaneros"),
	sat("SatParteTransporte", "c_ParteTransporte", "ccp_31_partes_transporte"),
	sat("SatFiguraTransporte", "c_FiguraTransporte", "ccp_31_figuras_transporte"),
	sat("SatConfigAutotransporte", "c_ConfigAutotransporte", "ccp_31_configuraciones_autotransporte"),
	sat("SatSubTipoRem", "c_SubTipoRem", "ccp_31_tipos_remolque"),
	sat("SatRegistroISTMO", "c_RegistroISTMO", "ccp_31_registros_istmo"),
	sat("SatConfigMaritima", "c_ConfigMaritima", "ccp_31_configuraciones_maritimas"),
	sat("SatClaveTipoCarga", "c_ClaveTipoCarga", "ccp_31_tipos_carga"),
	sat("SatContenedorMaritimo", "c_ContenedorMaritimo", "ccp_31_contenedores_maritimos"),
	{Name: "SatNumAutorizacionNaviero", SAT: "c_NumAutorizacionNaviero", Table: "ccp_31_autorizaciones_naviero", ID: []string{"id"}},
	sat("SatCodigoTransporteAereo", "c_CodigoTransporteAereo", "ccp_31_codigos_transporte_aereo"),
	sat("SatTipoDeServicio", "c_TipoDeServicio", "ccp_31_tipos_servicio"),
	sat("SatDerechosDePaso", "c_DerechosDePaso", "ccp_31_derechos_de_paso"),
	sat("SatTipoCarro", "c_TipoCarro", "ccp_31_tipos_carro"),
	sat("SatContenedor", "c_Contenedor", "ccp_31_contenedores"),
	sat("SatTipoDeTrafico", "c_TipoDeTrafico", "ccp_31_tipos_trafico"),
	xsdEnum("SatFlagTipoUbicacion", "", "Carta Porte 3.1, atributo TipoUbicacion", "Origen", "Destino"),
	xsdEnum("SatFlagNavegacionTrafico", "", "Carta Porte 3.1, atributo NavegacionTrafico", "Altura", "Cabotaje"),
	xsdEnum("SatFlagMaterialPeligroso", "", "Carta Porte 3.1, atributo MaterialPeligroso", "Sí", "No"),
	xsdEnum("SatFlagLogisticaInversaRecoleccionDevolucion", "", "Carta Porte 3.1, atributo LogisticaInversaRecoleccionDevolucion", "Sí"),
	xsdEnum("SatFlagTranspInternac", "", "Carta Porte 3.1, atributo TranspInternac", "Sí", "No"),
	xsdEnum("SatFlagEntradaSalidaMerc", "", "Carta Porte 3.1, atributo EntradaSalidaMerc", "Entrada", "Salida"),
	xsdEnum("SatFlagRegistroISTMO", "", "Carta Porte 3.1, atributo RegistroISTMO", "Sí"),
	motivosCancelacion,
	sat("SatClavePedimento", "c_ClavePedimento", "cce_20_claves_pedimentos"),
	{Name: "SatFraccionArancelaria", SAT: "c_FraccionArancelaria", Table: "cce_20_fracciones_arancelarias", ID: []string{"fraccion"}, Desc: "texto"},
	sat("SatINCOTERM", "c_INCOTERM", "cce_20_incoterms"),
	sat("SatMotivoTraslado", "c_MotivoTraslado", "cce_20_motivos_traslado"),
	sat("SatTipoOperacion", "c_TipoOperacion", "cce_20_tipos_operacion"),
	sat("SatUnidadAduana", "c_UnidadAduana", "cce_20_unidades_medida"),
}

// Downloads is every catalog of GET /api/v4/download-catalogs (spec 3 §4.3), all defined by
// the project.
var Downloads = []Catalog{
	downloadInvoiceTypes,
	downloadComplements,
	downloadInvoiceStatuses,
	downloadQueryTypes,
	downloadRequestStatuses,
	downloadStatuses,
	downloadTypes,
	downloadRequestTypes,
	downloadRequestStatusesOwn,
	downloadRuleStatuses,
}

var byName = func() map[string]*Catalog {
	m := make(map[string]*Catalog, len(All))
	for i := range All {
		m[All[i].Name] = &All[i]
	}
	return m
}()

var downloadByName = func() map[string]*Catalog {
	m := make(map[string]*Catalog, len(Downloads))
	for i := range Downloads {
		m[Downloads[i].Name] = &Downloads[i]
	}
	return m
}()

// Lookup finds a catalog of GET /api/v4/catalogs by its exact name.
func Lookup(name string) (*Catalog, bool) {
	c, ok := byName[name]
	return c, ok
}

// LookupDownload finds a bulk-download catalog by its exact name.
func LookupDownload(name string) (*Catalog, bool) {
	c, ok := downloadByName[name]
	return c, ok
}

// DownloadRecord is the record id of a bulk-download catalog as answers expand it; nil when the
// catalog or the record is absent.
func DownloadRecord(catalog, id string) *api.CatalogRecord {
	c, ok := LookupDownload(catalog)
	if !ok {
		return nil
	}
	for _, r := range c.Records {
		if r.ID == id {
			return &api.CatalogRecord{ID: r.ID, Description: r.Description}
		}
	}
	return nil
}

// Names returns the names of GET /api/v4/catalogs.
func Names() []string {
	out := make([]string, 0, len(All))
	for _, c := range All {
		if !c.Unlisted {
			out = append(out, c.Name)
		}
	}
	return out
}

// DownloadNames returns the names of GET /api/v4/download-catalogs.
func DownloadNames() []string {
	out := make([]string, len(Downloads))
	for i, c := range Downloads {
		out[i] = c.Name
	}
	return out
}

// Imported reports whether the catalog's records come from an imported source.
func (c *Catalog) Imported() bool { return c.Table != "" }
