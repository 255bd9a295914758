package satlocal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
)

// RetencionesPath is where a local SAT serves SAT's second service, the withholding CFDIs
// (Retenciones 2.0): the same four paths under it (/retenciones/SolicitaDescargaService.svc…),
// as SAT serves them at its retendescargamasiva… addresses. A token, a request and a package
// belong to the service that gave them.
const RetencionesPath = "/retenciones"

// readRetenciones reads one withholding CFDI file into the local SAT's record: ok is false
// (and nothing read past the root) when the file is another document, a CFDI 4.0 say.
// Retenciones have no TipoDeComprobante and no ACuentaTerceros; the total is
// MontoTotOperacion, the receiver the national one's RFC (empty for a foreign receiver), the
// complements their Complemento codes (complementCode). A metadata package writes them with the
// CFDI's columns and EfectoComprobante empty (SAT's columns for them are unconfirmed).
func readRetenciones(path string) (CFDI, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return CFDI{}, false, err
	}
	defer f.Close()
	r, err := cfdi.ReadRetenciones(bufio.NewReader(f))
	if errors.Is(err, cfdi.ErrNotRetenciones) {
		return CFDI{}, false, nil
	}
	if err != nil {
		return CFDI{}, true, fmt.Errorf("%s: %w", path, err)
	}
	c := CFDI{Path: path, Retenciones: true, UUID: r.UUID, IssuerRFC: r.RfcE, IssuerName: r.NomDenRazSocE, ReceiverRFC: r.RfcR,
		ReceiverName: r.NomDenRazSocR, PacRFC: r.RfcProvCertif, Total: r.MontoTotOperacion}
	c.Date, _ = time.Parse(wallClock, r.FechaExp)
	c.Certified, _ = time.Parse(wallClock, r.FechaTimbrado)
	for _, n := range r.Complements {
		c.Complements = append(c.Complements, complementCode(n.Space, n.Local, ""))
	}
	if c.IssuerRFC == "" || c.Date.IsZero() {
		return CFDI{}, true, fmt.Errorf("%s: not a stamped CFDI de Retenciones (no issuer or date)", path)
	}
	return c, true, nil
}

// service tells whether an HTTP request is to the withholding CFDIs' service, and its path
// within the service.
func service(path string) (retenciones bool, rest string) {
	if rest, ok := strings.CutPrefix(path, RetencionesPath); ok && (rest == "" || rest[0] == '/') {
		return true, rest
	}
	return false, path
}
