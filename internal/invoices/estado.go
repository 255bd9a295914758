package invoices

import (
	"context"
	"errors"
	"slices"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/storage"
)

// OwnEstado is the status of a CFDI this server stamped, as SAT's ConsultaCFDI would answer it:
// this server is the certification provider (and SAT) of its environment, so it knows. ok is
// false when the CFDI's stamp is not this server's: its NoCertificadoSAT and RfcProvCertif are
// not those of one of the server's stamping certificates (the current one or one it replaced).
// The CFDI is looked for by UUID in every tenant (SAT answers anybody who has the CFDI) and must
// be the same document (issuer, recipient, total and seal); otherwise, or when absent, it is "No
// Encontrado". A cancellation waiting for the recipient is still "Vigente", as in SAT.
func (s *Service) OwnEstado(ctx context.Context, doc *cfdi.Comprobante) (estado string, ok bool, err error) {
	tfd := doc.TFD()
	if tfd == nil {
		return "", false, nil
	}
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		certs, err := stampingCertificates(tx)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(certs, func(c *csd.Certificate) bool {
			return c.Number == tfd.NoCertificadoSAT && ProviderRFC(c) == tfd.RfcProvCertif
		}) {
			return nil // another provider's stamp, or no stamp made yet
		}
		ok, estado = true, StatusNotFound
		tenants, err := tx.Tenants().List()
		if err != nil {
			return err
		}
		for _, t := range tenants {
			rec, err := tx.Invoices(t.ID).ByUUID(tfd.UUID)
			if errors.Is(err, storage.ErrNotFound) {
				continue
			} else if err != nil {
				return err
			}
			stored, err := cfdi.Parse(rec.XML)
			if err != nil {
				return err
			}
			if stored.Sello != doc.Sello || stored.Emisor.Rfc != doc.Emisor.Rfc || stored.Receptor.Rfc != doc.Receptor.Rfc || stored.Total != doc.Total {
				return nil
			}
			estado = StatusValid
			if rec.Status == StatusCanceled {
				estado = StatusCanceled
			}
			return nil
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return estado, ok, nil
}
