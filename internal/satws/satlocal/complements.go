package satlocal

import "strings"

// nsRetenciones1 is the namespace under which the withholding CFDIs' complements live.
const nsRetenciones1 = "http://www.sat.gob.mx/esquemas/retencionpago/1/"

// complementCodes are the codes of the query's Complemento filter (SAT's list, descarga-masiva.md
// §3, and timbra's SatInvoiceComplements catalog) by the complement's namespace. Where two
// versions share a namespace (donat, ine) the code is the one SAT lists, of the version CFDI 4.0
// allows. A concept's complements (terceros11, iedu, ventavehiculos11) count as the CFDI's.
var complementCodes = map[string]string{
	"http://www.sat.gob.mx/acreditamiento":                  "acreditamientoieps10",
	"http://www.sat.gob.mx/aerolineas":                      "aerolineas",
	"http://www.sat.gob.mx/CartaPorte":                      "cartaporte10",
	"http://www.sat.gob.mx/CartaPorte20":                    "cartaporte20",
	"http://www.sat.gob.mx/CartaPorte30":                    "cartaporte30",
	"http://www.sat.gob.mx/CartaPorte31":                    "cartaporte31",
	"http://www.sat.gob.mx/certificadodestruccion":          "certificadodedestruccion",
	"http://www.sat.gob.mx/registrofiscal":                  "cfdiregistrofiscal",
	"http://www.sat.gob.mx/ComercioExterior":                "comercioexterior10",
	"http://www.sat.gob.mx/ComercioExterior11":              "comercioexterior11",
	"http://www.sat.gob.mx/ComercioExterior20":              "comercioexterior20",
	"http://www.sat.gob.mx/consumodecombustibles":           "consumodecombustibles",
	"http://www.sat.gob.mx/ConsumoDeCombustibles11":         "consumodecombustibles11",
	"http://www.sat.gob.mx/detallista":                      "detallista",
	"http://www.sat.gob.mx/divisas":                         "divisas",
	"http://www.sat.gob.mx/donat":                           "donat11",
	"http://www.sat.gob.mx/EstadoDeCuentaCombustible":       "ecc11",
	"http://www.sat.gob.mx/EstadoDeCuentaCombustible12":     "ecc12",
	"http://www.sat.gob.mx/GastosHidrocarburos10":           "gastoshidrocarburos10",
	"http://www.sat.gob.mx/implocal":                        "implocal",
	"http://www.sat.gob.mx/ine":                             "ine11",
	"http://www.sat.gob.mx/IngresosHidrocarburos10":         "ingresoshidrocarburos",
	"http://www.sat.gob.mx/leyendasFiscales":                "leyendasfisc",
	"http://www.sat.gob.mx/nomina":                          "nomina11",
	"http://www.sat.gob.mx/nomina12":                        "nomina12",
	"http://www.sat.gob.mx/notariospublicos":                "notariospublicos",
	"http://www.sat.gob.mx/arteantiguedades":                "obrasarteantiguedades",
	"http://www.sat.gob.mx/pagoenespecie":                   "pagoenespecie",
	"http://www.sat.gob.mx/Pagos":                           "pagos10",
	"http://www.sat.gob.mx/Pagos20":                         "pagos20",
	"http://www.sat.gob.mx/pfic":                            "pfic",
	"http://www.sat.gob.mx/renovacionysustitucionvehiculos": "renovacionysustitucionvehiculos",
	"http://www.sat.gob.mx/servicioparcialconstruccion":     "servicioparcialconstruccion",
	"http://www.sat.gob.mx/spei":                            "spei",
	"http://www.sat.gob.mx/terceros":                        "terceros11",
	"http://www.sat.gob.mx/iedu":                            "iedu",
	"http://www.sat.gob.mx/ventavehiculos":                  "ventavehiculos11",
	"http://www.sat.gob.mx/TuristaPasajeroExtranjero":       "turistapasajeroextranjero",
	"http://www.sat.gob.mx/valesdedespensa":                 "valesdedespensa",
	"http://www.sat.gob.mx/vehiculousado":                   "vehiculousado",
	// withholding CFDIs
	nsRetenciones1 + "arrendamientoenfideicomiso": "arrendamientoenfideicomiso",
	nsRetenciones1 + "dividendos":                 "dividendos",
	nsRetenciones1 + "enajenaciondeacciones":      "enajenaciondeacciones",
	nsRetenciones1 + "fideicomisonoempresarial":   "fideicomisonoempresarial",
	nsRetenciones1 + "intereses":                  "intereses",
	nsRetenciones1 + "intereseshipotecarios":      "intereseshipotecarios",
	nsRetenciones1 + "operacionesconderivados":    "operacionesconderivados",
	nsRetenciones1 + "pagosaextranjeros":          "pagosaextranjeros",
	nsRetenciones1 + "planesderetiro":             "planesderetiro",
	nsRetenciones1 + "planesderetiro11":           "planesderetiro11",
	nsRetenciones1 + "premios":                    "premios",
	nsRetenciones1 + "sectorfinanciero":           "sectorfinanciero",
	nsRetenciones1 + "PlataformasTecnologicas10":  "serviciosplataformastecnologicas10",
}

// complementCode is the Complemento code of a complement: SAT's, by its namespace; for one SAT
// lists no code of, its element's name in lower case and its version without dots.
func complementCode(space, local, version string) string {
	if code, ok := complementCodes[space]; ok {
		return code
	}
	return strings.ToLower(local) + strings.ReplaceAll(version, ".", "")
}
