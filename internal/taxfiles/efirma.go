package taxfiles

import (
	"context"
	"errors"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"

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

// EFirma opens a person's e.firma for the bulk download service: the newest current e.firma
// certificate (type 2) valid now whose key (type 3) is current, and that key. It is not kept in
// memory (the key cache is for sealing); the caller zeroes the key when done.
func (s *Service) EFirma(ctx context.Context, tenantID, personID string) (*csd.Certificate, *csd.PrivateKey, error) {
	var certFile, keyFile storage.TaxFile
	now := s.now()
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		all, err := tx.TaxFiles(tenantID).AllByPerson(personID)
		if err != nil {
			return err
		}
		keys := map[string]storage.TaxFile{}
		var certs []storage.TaxFile
		for _, f := range all { // creation order
			if f.Deleted() {
				continue
			}
			switch {
			case f.FileType == api.TaxFilePrivateKeyFIEL:
				keys[f.PublicKeyID] = f
			case f.FileType == api.TaxFileCertificateFIEL && f.ValidFrom != nil && f.ValidTo != nil &&
				!now.Before(*f.ValidFrom) && !now.After(*f.ValidTo):
				certs = append(certs, f)
			}
		}
		for i := len(certs) - 1; i >= 0; i-- {
			if k, ok := keys[certs[i].PublicKeyID]; ok {
				certFile, keyFile = certs[i], k
				return nil
			}
		}
		return ErrNoEFirma
	})
	if err != nil {
		return nil, nil, err
	}
	return s.openPair(tenantID, certFile, keyFile)
}

// ErrNoEFirma: the person has no current e.firma (certificate and key of one pair).
var ErrNoEFirma = errors.New("taxfiles: no current e.firma")
