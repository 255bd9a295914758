package downloadrequests

import (
	"fmt"
	"time"

	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/storage"
)

// Texts of the SAT's limits refused at create, before anything is sent (descarga-masiva §5).
const (
	MsgTooOld    = "La fecha inicial '%s' es anterior a la que el SAT permite, %s: el SAT descarga cinco ejercicios atrás más el actual (seis años desde hoy, a las 00:00)."
	MsgDuplicate = "Ya hay una solicitud idéntica en curso: el SAT rechaza otra igual mientras la primera está activa (código %d). Espera a que termine, o cambia el periodo u otro parámetro."
	MsgExhausted = "El SAT ya recibió dos solicitudes idénticas de CFDI para este periodo y no acepta una tercera (código %d). Cambia el periodo (basta un segundo) u otro parámetro."
)

// IdenticalCFDI is how many identical CFDI requests of one period the SAT takes (then 5002).
const IdenticalCFDI = 2

// oldestStart is the earliest start the SAT takes at now: today in Mexico City six years back,
// at 00:00 (a wall-clock time kept as UTC, as the requests' dates).
func oldestStart(now time.Time) time.Time {
	m := now.In(mexico)
	return time.Date(m.Year()-6, m.Month(), m.Day(), 0, 0, 0, 0, time.UTC)
}

// checkRepeat refuses a request the SAT would refuse as a repeat of the tenant's others: one
// identical to an active request (5005), or a third identical CFDI request of a period (5002).
// It reads only the requests of the same query (storage's query index).
func checkRepeat(tx storage.Tx, r storage.DownloadRequest) error {
	active, taken, err := tx.DownloadRequests(r.TenantID).SameQuery(r)
	if err != nil {
		return err
	}
	if active > 0 {
		return apierr.BadRequest(fmt.Sprintf(MsgDuplicate, satws.CodeDuplicate))
	}
	if r.SatQueryTypeID == satws.RequestCFDI && active+taken >= IdenticalCFDI {
		return apierr.BadRequest(fmt.Sprintf(MsgExhausted, satws.CodeExhausted))
	}
	return nil
}
