package people

import (
	"context"
	"errors"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs"
)

// Names of the catalogs behind a person's ids (catalogs registry).
const (
	CatalogTaxRegimes = "SatTaxRegimes"
	CatalogCfdiUses   = "SatCfdiUses"
	CatalogCountries  = "SatCountries"
	CatalogUserTypes  = "UserTypes"
)

// Manifest statuses of a person (spec 2 §3). The spec lists no catalog of them, so these records
// are the project's own, used for the expanded manifestStatus.
const (
	ManifestUnsigned = "Unsigned"
	ManifestSigned   = "Signed"
)

var manifestStatuses = map[string]string{
	ManifestNotInvited: "Sin invitación a firmar la carta manifiesto",
	ManifestUnsigned:   "Carta manifiesto sin firmar",
	ManifestSigned:     "Carta manifiesto firmada",
}

// expand fills the expanded catalog records of a person for list and get answers. Without SAT
// catalogs on the server the SAT records stay null and the answer is still given; an id the
// catalog does not hold (any more) is null too.
func (s *Service) expand(ctx context.Context, p *api.Person) error {
	lookup := func(name string, id *string) (*api.CatalogRecord, error) {
		if id == nil || *id == "" || s.Catalogs == nil {
			return nil, nil
		}
		rec, found, err := s.Catalogs.Lookup(ctx, name, *id)
		if errors.Is(err, catalogs.ErrNotImported) || (err == nil && !found) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &rec, nil
	}
	var err error
	if p.SatTaxRegime, err = lookup(CatalogTaxRegimes, p.SatTaxRegimeID); err != nil {
		return err
	}
	if p.SatCfdiUse, err = lookup(CatalogCfdiUses, p.SatCfdiUseID); err != nil {
		return err
	}
	if p.Country, err = lookup(CatalogCountries, p.CountryID); err != nil {
		return err
	}
	if p.UserType, err = lookup(CatalogUserTypes, &p.UserTypeID); err != nil {
		return err
	}
	if d, ok := manifestStatuses[p.ManifestStatusID]; ok {
		p.ManifestStatus = &api.CatalogRecord{ID: p.ManifestStatusID, Description: d}
	}
	return nil
}
