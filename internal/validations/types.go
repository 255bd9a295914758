// Package validations is the SAT validations of spec 3 §2.6 and §4.7: the catalog of validation
// types (catalogs.SatValidationTypes is its one source), the statuses each type accepts (data,
// below), the rules of a validate request and its credits, and the checkers behind one interface:
// Random for the test environment (fictitious results, spec 3 §4.7 rule 4) and Production (real
// checks: the CFDI 4.0 structure written in Go, the issuer certificate against the issue date,
// the CFDI seal, the stamp's seal against a trust store, the CFDI status at a configurable
// source, and the 69-B and 69-B Bis lists read from SAT's CSV).
package validations

import (
	"sort"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs"
)

// The validation types, in catalog order.
const (
	TypeStructure   = "sat.xml.structure"
	TypeCertificate = "sat.certificate.validity"
	TypeCfdiSello   = "sat.cfdi.sello"
	TypeTfdSello    = "sat.tfd.sello"
	TypeCfdiStatus  = "sat.cfdi.status"
	Type69B         = "sat.blacklist.69b"
	Type69BBis      = "sat.blacklist.69bbis"
)

// CatalogName is the catalog the types come from.
const CatalogName = "SatValidationTypes"

// Status ids (spec 3 §2.6 and the official client's SatValidationStatusIds).
const (
	Valido             = "Valido"
	Invalido           = "Invalido"
	Vigente            = "Vigente"
	Expirado           = "Expirado"
	NoVigenteAun       = "NoVigenteAun"
	Cancelado          = "Cancelado"
	NoEncontrado       = "NoEncontrado"
	NoListado          = "NoListado"
	Presunto           = "Presunto"
	Desvirtuado        = "Desvirtuado"
	Definitivo         = "Definitivo"
	SentenciaFavorable = "SentenciaFavorable"
	NoDisponible       = "NoDisponible"
	Omitido            = "Omitido"
)

// StatusDef is a status a type accepts: its description for that type and whether it passes.
type StatusDef struct {
	ID          string
	Description string
	Passed      bool
}

const (
	descRetry      = "El verificador no respondió; intenta de nuevo."
	descNotCFDI    = "No se evaluó: el XML no es un CFDI 4.0 legible."
	descNotStamped = "No se evaluó: el XML no es un CFDI 4.0 timbrado legible."
)

// listStatuses are the statuses of a list check (69-B, 69-B Bis): SAT's situations of a listed
// taxpayer. Desvirtuado (the taxpayer proved its operations) and SentenciaFavorable (a court
// ruled for it) pass: the presumption fell. Presunto and Definitivo fail.
func listStatuses(article string) []StatusDef {
	return []StatusDef{
		{NoListado, "El RFC no aparece en la lista del artículo " + article + ".", true},
		{Desvirtuado, "El RFC aparece en la lista del artículo " + article + " como desvirtuado: desvirtuó la presunción.", true},
		{SentenciaFavorable, "El RFC aparece en la lista del artículo " + article + " con sentencia favorable.", true},
		{Presunto, "El RFC aparece en la lista del artículo " + article + " como presunto.", false},
		{Definitivo, "El RFC aparece en la lista del artículo " + article + " como definitivo.", false},
		{NoDisponible, "La lista del artículo " + article + " no está disponible; intenta de nuevo.", false},
		{Omitido, descNotCFDI, false},
	}
}

// statuses is what each type accepts (spec 3 §2.6: each type a subset). NoDisponible belongs to
// the types whose answer depends on a source that may not answer; Omitido to every type (spec 3
// §4.7's table of malformed and unstamped input).
var statuses = map[string][]StatusDef{
	TypeStructure: {
		{Valido, "El XML es un CFDI 4.0 con la estructura del Anexo 20 y del Timbre Fiscal Digital 1.1.", true},
		{Invalido, "El XML no está bien formado, su raíz no es un CFDI 4.0 o no cumple su estructura.", false},
		{NoDisponible, descRetry, false},
		{Omitido, "No se evaluó: el CFDI no tiene el complemento Timbre Fiscal Digital.", false},
	},
	TypeCertificate: {
		{Vigente, "El certificado del emisor era vigente en la fecha de emisión.", true},
		{Expirado, "El certificado del emisor había expirado en la fecha de emisión.", false},
		{NoVigenteAun, "El certificado del emisor aún no era vigente en la fecha de emisión.", false},
		{Invalido, "El certificado del emisor no se puede leer, no tiene el número de NoCertificado o no es del RFC del emisor.", false},
		{Omitido, descNotCFDI, false},
	},
	TypeCfdiSello: {
		{Valido, "El sello del CFDI corresponde a su cadena original y al certificado del emisor.", true},
		{Invalido, "El sello del CFDI no corresponde a su cadena original o al certificado del emisor.", false},
		{Omitido, descNotStamped, false},
	},
	TypeTfdSello: {
		{Valido, "El sello del timbre corresponde a su cadena original y a un certificado de timbrado reconocido.", true},
		{Invalido, "El sello del timbre no corresponde a su cadena original, al certificado de timbrado o al sello del CFDI.", false},
		{NoEncontrado, "El certificado de timbrado del timbre (NoCertificadoSAT) no está entre los reconocidos.", false},
		{Omitido, descNotStamped, false},
	},
	TypeCfdiStatus: {
		{Vigente, "El CFDI está vigente en el SAT.", true},
		{Cancelado, "El CFDI está cancelado en el SAT.", false},
		{NoEncontrado, "El SAT no encuentra el CFDI.", false},
		{NoDisponible, "El servicio de consulta del SAT no respondió; intenta de nuevo.", false},
		{Omitido, descNotStamped, false},
	},
	Type69B:    listStatuses("69-B"),
	Type69BBis: listStatuses("69-B Bis"),
}

// typeOrder is the catalog's order of every type (active or not).
var typeOrder = func() []api.SatValidationType {
	c, ok := catalogs.Lookup(CatalogName)
	if !ok {
		panic("validations: catalog " + CatalogName + " is not registered")
	}
	out := make([]api.SatValidationType, len(c.Records))
	for i, r := range c.Records {
		if _, ok := statuses[r.ID]; !ok {
			panic("validations: type " + r.ID + " has no statuses")
		}
		out[i] = api.SatValidationType{ID: r.ID, Description: r.Description}
	}
	return out
}()

// rank is the position of a type in the catalog.
var rank = func() map[string]int {
	m := make(map[string]int, len(typeOrder))
	for i, t := range typeOrder {
		m[t.ID] = i
	}
	return m
}()

// AllTypes is every type of the catalog, in its order.
func AllTypes() []api.SatValidationType { return append([]api.SatValidationType(nil), typeOrder...) }

// Statuses returns the statuses type accepts, passing first and then by id (spec 3 §4.7).
func Statuses(typeID string) []StatusDef {
	out := append([]StatusDef(nil), statuses[typeID]...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Passed != out[j].Passed {
			return out[i].Passed
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// status finds a status of a type.
func status(typeID, id string) (StatusDef, bool) {
	for _, s := range statuses[typeID] {
		if s.ID == id {
			return s, true
		}
	}
	return StatusDef{}, false
}

// ListTypes are the types a request with tin may ask for.
var ListTypes = []string{Type69B, Type69BBis}

func isListType(id string) bool { return id == Type69B || id == Type69BBis }
