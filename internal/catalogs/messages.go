package catalogs

import (
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"

	"github.com/timbra-mx/timbra/internal/apierr"
)

// MsgNoSuchCatalog is the 404 of a catalog name that does not exist (spec 3 §4.2, §4.3); names
// are case-sensitive, so a name in the wrong case is absent too.
func MsgNoSuchCatalog(name string) string { return "No existe el catálogo '" + name + "'." }

// ImportHint is how an operator imports catalogs, for the server's log and the status.
const ImportHint = "restart as timbra server --catalogs ./folder (a folder or .zip of the SAT catalogs' SQL, or an https:// address; imported before it serves), or stop it and run timbra catalogs import ./folder"

// MsgNotImported is the details of a request that needs the SAT catalogs on a server that has
// none imported: in the API's language, naming the same commands as ImportHint.
const MsgNotImported = "Los catálogos del SAT no están importados en este servidor, así que no se puede consultar ni validar contra ellos. Impórtelos con: timbra catalogs import <carpeta|archivo.zip|https://...> (con el servidor detenido), o timbra server --catalogs <fuente>."

// MsgTaxIDFormat is the failure of a foreign tax registration number (foreignTin, NumRegIdTrib)
// that does not have the format c_Pais gives its country (TaxIDPatterns): the number, the
// country and SAT's pattern as the catalog writes it.
const MsgTaxIDFormat = "El número de registro de identidad tributaria '%s' no tiene el formato que el catálogo c_Pais del SAT da para el país %s: %s."

// MaxSearchTerm bounds a search term, in characters: every word of a term costs a pass over
// the index, and no catalog description is longer.
const MaxSearchTerm = 100

// MsgSearchTermTooLong is the failure of a longer term (timbra's; the spec shows no limit).
const MsgSearchTermTooLong = "El término de búsqueda debe tener %d caracteres o menos. Ingresó %d caracteres."

// ErrNotImported is the answer of every check that needs an imported catalog when there is
// none: never a blind accept or reject.
var ErrNotImported = &apierr.Error{Status: http.StatusServiceUnavailable, Details: MsgNotImported}

func termTooLong(term string) (api.Failure, bool) {
	n := utf8.RuneCountInString(term)
	if n <= MaxSearchTerm {
		return api.Failure{}, false
	}
	return apierr.Field("SearchTerm", fmt.Sprintf(MsgSearchTermTooLong, MaxSearchTerm, n), term, "MaximumLengthValidator",
		map[string]any{"PropertyName": "Search Term", "MaxLength": MaxSearchTerm, "TotalLength": n}), true
}
