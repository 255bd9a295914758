package taxfiles

import (
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/storage"
)

// HasCurrentEFirma tells whether a person has a current e.firma in tx: a current e.firma
// certificate (type 2) valid at now and a current e.firma private key (type 3) of the same pair.
// Bulk-download rules need one (spec 2 §2.6).
func HasCurrentEFirma(tx storage.Tx, tenantID, personID string, now time.Time) (bool, error) {
	all, err := tx.TaxFiles(tenantID).AllByPerson(personID)
	if err != nil {
		return false, err
	}
	certs, keys := map[string]bool{}, map[string]bool{}
	for _, f := range all {
		if f.Deleted() {
			continue
		}
		switch {
		case f.FileType == api.TaxFilePrivateKeyFIEL:
			keys[f.PublicKeyID] = true
		case f.FileType == api.TaxFileCertificateFIEL && f.ValidFrom != nil && f.ValidTo != nil &&
			!now.Before(*f.ValidFrom) && !now.After(*f.ValidTo):
			certs[f.PublicKeyID] = true
		}
	}
	for k := range certs {
		if keys[k] {
			return true, nil
		}
	}
	return false, nil
}
