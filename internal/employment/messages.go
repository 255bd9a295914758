package employment

// Texts of spec 2 §4.4 and §4.5, exactly. `{personId}` is printed literally: the spec writes
// the placeholders it substitutes as `<personId>` and `<valor>`, and `{personId}` is the route
// template the text points to (as `{base_url}` in spec 1), so the text names the route, not the
// person (the person is in the failure's attemptedValue).
const (
	MsgEmployerExists     = "La persona ya tiene datos de empleador: modifícalos con PUT /api/v4/people/{personId}/employer."
	MsgEmployeeExists     = "La persona ya tiene datos de empleado: modifícalos con PUT /api/v4/people/{personId}/employee."
	MsgFundSourceRequired = "OrigenRecurso es requerido cuando se especifica MontoRecursoPropio."
	MsgOwnAmountMin       = "MontoRecursoPropio debe ser mayor o igual a 0."
	MsgOwnAmountMax       = "MontoRecursoPropio no puede ser mayor a 999999999999.999999."
	MsgBaseSalaryMin      = "SalarioBaseCotApor debe ser mayor o igual a 0."
	MsgBaseSalaryMax      = "SalarioBaseCotApor no puede ser mayor a 999999999999.999999."
	MsgDailySalaryMin     = "SalarioDiarioIntegrado debe ser mayor o igual a 0."
	MsgDailySalaryMax     = "SalarioDiarioIntegrado no puede ser mayor a 999999999999.999999."
)

// Texts of timbra's where the spec shows none.
const (
	// MsgNoEmployer and MsgNoEmployee are the 404 details of GET, PUT and DELETE on a person of
	// the tenant that has no such data (a person absent from the tenant answers the generic
	// `No such resource for the given Id: <personId>`).
	MsgNoEmployer = "La persona '%s' no tiene datos de empleador."
	MsgNoEmployee = "La persona '%s' no tiene datos de empleado."
	// MsgIDsMismatch: the body's personId (employeePersonId) is not the person of the path;
	// the same text the API keys and webhooks give for an id that differs from the path.
	MsgIDsMismatch = "IDs mismatches"
	// MsgEmployerNotValid: employerPersonId is not a person of the tenant (the text of the API
	// keys' personId).
	MsgEmployerNotValid = "La persona especificada no es válida o no pertenece a tu organización."
	MsgSeniority        = "La antigüedad '%s' no es válida: usa una duración ISO 8601 en semanas, P<n>W (por ejemplo P52W), o en años, meses y días, P<a>Y<m>M<d>D (por ejemplo P1Y2M15D); omite los años o los meses en cero, los días siempre van (P0D como mínimo)."
	MsgStartDate        = "La fecha de inicio de la relación laboral '%s' no es válida: usa el formato AAAA-MM-DD, por ejemplo 2024-01-15."
	// An RFC (originEmployerTin, subcontractorRfc) that cfdi.CheckRFC refuses has its text
	// (cfdi.MsgRFCFormat, cfdi.MsgRFCDate) and the errorCode people and invoices give it.
	CodeInvalidFormat = "InvalidFormat"
	// apierr.MsgNotEmpty and apierr.MsgNotNull are the required-field texts of the validator the reference
	// service uses (NotEmptyValidator for strings, NotNullValidator for numbers), with the
	// property's name in words ('Employee Number').
)

// Catalog failures, in the style of spec 2 §4.3 (`El régimen fiscal '<valor>' no existe en el
// catálogo c_RegimenFiscal del SAT.`).
const (
	MsgNoFundSource          = "El origen de recurso '%s' no existe en el catálogo c_OrigenRecurso del SAT."
	MsgNoContractType        = "El tipo de contrato '%s' no existe en el catálogo c_TipoContrato del SAT."
	MsgNoTaxRegimeType       = "El tipo de régimen '%s' no existe en el catálogo c_TipoRegimen del SAT."
	MsgNoWorkdayType         = "El tipo de jornada '%s' no existe en el catálogo c_TipoJornada del SAT."
	MsgNoJobRisk             = "El riesgo de puesto '%s' no existe en el catálogo c_RiesgoPuesto del SAT."
	MsgNoPaymentPeriodicity  = "La periodicidad de pago '%s' no existe en el catálogo c_PeriodicidadPago del SAT."
	MsgNoPayrollState        = "El estado '%s' no existe en el catálogo c_Estado del SAT."
	MsgNoBank                = "El banco '%s' no existe en el catálogo c_Banco del SAT."
	MsgNoUnionizedStatus     = "El valor de sindicalizado '%s' no existe en el catálogo c_Sindicalizado del SAT: usa Sí o No."
	catalogFundSources       = "SatFundSources"
	catalogContractTypes     = "SatContractTypes"
	catalogTaxRegimeTypes    = "SatTaxRegimeTypes"
	catalogWorkdayTypes      = "SatWorkdayTypes"
	catalogJobRisks          = "SatJobRisks"
	catalogPaymentPeriods    = "SatPaymentPeriodicities"
	catalogPayrollStates     = "SatPayrollStates"
	catalogBanks             = "SatBanks"
	catalogUnionizedStatuses = "SatUnionizedStatuses"
)
