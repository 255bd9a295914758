package people

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// The write side of the people resource. Where the spec shows no update or delete, timbra
// answers as the service's existing clients call it (the fiscalapi client's person service):
//
//   - PUT /api/v4/people/<id> with the person as body; `id` in the body is optional and, when
//     sent, must be the id of the path. Fields not sent (or null) keep their saved value, so a
//     client may send only what changes or the whole person it read; an empty string clears an
//     optional field and the private key password; an empty sign-in password changes nothing.
//     The answer has the expanded catalog records null, as a create answer.
//   - DELETE /api/v4/people/<id>, no body, answers `data` true; the person's API keys are
//     revoked in the same transaction, so they stop authenticating at once.
//
// RFC: tin is checked by cfdi.CheckRFC (its shape and a date that is a day of the calendar; not
// the check digit, which real RFCs do not all follow), in upper case as invoices and download
// rules read it, on create and on update when it differs from the saved one (as countryId: a
// person saved before the rule can still change another field; an invoice refuses the RFC).
// foreignTin must have the format c_Pais gives its country (catalogs.TaxIDPatterns: USA and CAN
// nine digits), where it gives one, the country being countryId as sent or as saved; checked on
// create and when either changes; needing the catalogs, such a write without them is a 503.
//
// Catalog checks: satTaxRegimeId and satCfdiUseId are checked whenever they are sent with a
// value; countryId on create, and on update only when it differs from the saved one (the spec
// rejects it "on create"; an unchanged country is not checked again, a new one is). Without SAT
// catalogs on the server, a write that needs one of these checks answers catalogs.ErrNotImported
// (503), never a blind accept or reject.
//
// The tenant creator's userTypeId stays `T`: `T` is accepted only for a person that is already
// `T`, and C or U sent for that person are ignored (the field is informational).

// catalogCheck is the outcome of one catalog lookup, made before the write transaction (a
// catalog is read from the database on first use, which must not happen inside a write).
type catalogCheck struct {
	found bool
	err   error
}

// lookedUp is what the catalogs answered before the write: the ids in carries, and c_Pais's
// formats of tax numbers when a foreignTin or a countryId is sent (the other may be the saved
// one, known only in the transaction).
type lookedUp struct {
	ids      map[string]catalogCheck
	taxIDs   map[string]catalogs.TaxIDFormat
	taxIDErr error
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) hash(password string) string {
	if s.HashPassword != nil {
		return s.HashPassword(password)
	}
	return secrets.HashPassword(password)
}

// lookups checks the SAT catalog ids that in carries.
func (s *Service) lookups(ctx context.Context, in api.PersonInput) lookedUp {
	out := lookedUp{ids: map[string]catalogCheck{}}
	if api.Deref(in.ForeignTin) != "" || api.Deref(in.CountryID) != "" {
		if s.Catalogs == nil {
			out.taxIDErr = catalogs.ErrNotImported
		} else {
			out.taxIDs, out.taxIDErr = s.Catalogs.TaxIDPatterns(ctx)
		}
	}
	for name, id := range map[string]*string{
		CatalogTaxRegimes: in.SatTaxRegimeID, CatalogCfdiUses: in.SatCfdiUseID, CatalogCountries: in.CountryID,
	} {
		if id == nil || *id == "" {
			continue
		}
		if s.Catalogs == nil {
			out.ids[name] = catalogCheck{err: catalogs.ErrNotImported}
			continue
		}
		_, found, err := s.Catalogs.Lookup(ctx, name, *id)
		out.ids[name] = catalogCheck{found: found, err: err}
	}
	return out
}

// apply checks in and writes what it carries into p: the saved person on update, a new one on
// create. The sign-in password is checked, not hashed (the caller hashes it once all checks
// pass).
func (s *Service) apply(tx storage.Tx, p *storage.Person, in api.PersonInput, create bool, checks lookedUp) error {
	var fs []api.Failure
	fail := func(f api.Failure) { fs = append(fs, f) }

	if in.LegalName != nil || create {
		if v := strings.TrimSpace(api.Deref(in.LegalName)); v == "" {
			fail(notEmpty("LegalName", MsgLegalNameEmpty, apierr.Attempted(in.LegalName)))
		} else {
			p.LegalName = v
		}
	}
	if in.Email != nil || create {
		v := strings.TrimSpace(api.Deref(in.Email))
		if v == "" {
			fail(notEmpty("Email", MsgEmailEmpty, apierr.Attempted(in.Email)))
		} else if f := CheckEmail("Email", v); f != nil {
			fail(*f)
		} else {
			// reported with the other failures; Put checks again in the write
			tenantID, personID, err := tx.PersonByEmail(storage.NormalizeEmail(v))
			if err == nil && (tenantID != p.TenantID || personID != p.ID) {
				fail(emailTakenFailure(v))
			} else if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			p.Email = v
		}
	}
	if create && api.Deref(in.Password) == "" {
		fail(notEmpty("Password", MsgPasswordEmpty, apierr.Masked(in.Password)))
	} else if in.Password != nil && *in.Password != "" {
		if f := CheckPassword(*in.Password); f != nil {
			fail(*f)
		}
	}

	catalog := func(property, name, format string, id *string, check bool) error {
		if id == nil || *id == "" || !check {
			return nil
		}
		ch := checks.ids[name]
		if ch.err != nil {
			return ch.err
		}
		if !ch.found {
			fail(apierr.Field(property, fmt.Sprintf(format, *id), *id, "", nil))
		}
		return nil
	}
	if err := catalog("SatTaxRegimeId", CatalogTaxRegimes, MsgTaxRegimeNotFound, in.SatTaxRegimeID, true); err != nil {
		return err
	}
	if err := catalog("SatCfdiUseId", CatalogCfdiUses, MsgCfdiUseNotFound, in.SatCfdiUseID, true); err != nil {
		return err
	}
	countryChanged := create || in.CountryID == nil || api.Deref(p.CountryID) != *in.CountryID
	if err := catalog("CountryId", CatalogCountries, MsgCountryNotFound, in.CountryID, countryChanged); err != nil {
		return err
	}

	switch v := api.Deref(in.UserTypeID); {
	case v == "" && create:
		p.UserTypeID = UserTypeCustomer
	case v == "":
	case p.UserTypeID == UserTypeTenant && (v == UserTypeTenant || v == UserTypeCustomer || v == UserTypeUser):
		// the tenant creator stays T
	case v == UserTypeCustomer || v == UserTypeUser:
		p.UserTypeID = v
	default:
		fail(apierr.Field("UserTypeId", MsgUserTypeInvalid, v, "", nil))
	}

	if f := checkTin(in.Tin, p.Tin, create); f != nil {
		fail(*f)
	}
	if in.ForeignTin != nil {
		if f, long := apierr.TooLong("ForeignTin", *in.ForeignTin, MaxForeignTin, *in.ForeignTin); long {
			fail(f)
		}
	}
	// foreignTin in the format c_Pais gives the country, when it gives one, as SAT checks
	// NumRegIdTrib against ResidenciaFiscal: checked when either changes
	tin, country := sentOr(in.ForeignTin, p.ForeignTin), sentOr(in.CountryID, p.CountryID)
	if tin != "" && country != "" && (create || changed(in.ForeignTin, p.ForeignTin) || changed(in.CountryID, p.CountryID)) {
		if checks.taxIDErr != nil {
			return checks.taxIDErr
		}
		if f, ok := checks.taxIDs[country]; ok && !f.Match(tin) {
			fail(apierr.Field("ForeignTin", fmt.Sprintf(catalogs.MsgTaxIDFormat, tin, country, f.Pattern), tin,
				CodeInvalidFormat, apierr.Placeholders("ForeignTin", tin)))
		}
	}
	if in.TaxPassword != nil {
		if f, long := apierr.TooLong("TaxPassword", *in.TaxPassword, MaxTaxPassword, apierr.Masked(in.TaxPassword)); long {
			fail(f)
		}
	}
	if len(fs) > 0 {
		return apierr.Invalid(fs...)
	}

	for _, f := range []struct {
		dst **string
		in  *string
	}{
		{&p.PhoneNumber, in.PhoneNumber}, {&p.SatTaxRegimeID, in.SatTaxRegimeID}, {&p.SatCfdiUseID, in.SatCfdiUseID},
		{&p.Tin, in.Tin}, {&p.Curp, in.Curp}, {&p.ZipCode, in.ZipCode}, {&p.CountryID, in.CountryID},
		{&p.ForeignTin, in.ForeignTin}, {&p.Base64Photo, in.Base64Photo},
	} {
		if f.in == nil {
			continue
		}
		if *f.in == "" {
			*f.dst = nil
		} else {
			v := *f.in
			*f.dst = &v
		}
	}
	if in.TaxPassword != nil {
		p.TaxPassword = nil
		if *in.TaxPassword != "" {
			p.TaxPassword = s.Keys.Seal([]byte(*in.TaxPassword), TaxPasswordContext(p.TenantID, p.ID))
		}
	}
	return nil
}

// savedTaxPassword opens the saved private key password of p ("" when none).
func (s *Service) savedTaxPassword(p storage.Person) (string, error) {
	if len(p.TaxPassword) == 0 {
		return "", nil
	}
	plain, err := s.Keys.Open(p.TaxPassword, TaxPasswordContext(p.TenantID, p.ID))
	if err != nil {
		return "", fmt.Errorf("person %s: tax password: %w", p.ID, err)
	}
	return string(plain), nil
}

func emailTakenFailure(email string) api.Failure {
	return apierr.Field("Email", MsgEmailTaken, email, CodeDuplicateEmail, nil)
}

// Create adds a person to the caller's tenant. Anybody of the tenant may; the new person is
// never the owner. The answer's expanded catalog records are null.
func (s *Service) Create(ctx context.Context, c auth.Caller, in api.PersonInput) (api.Person, error) {
	now := s.now()
	p := storage.Person{
		ID: ids.New(now), TenantID: c.TenantID, ManifestStatusID: ManifestNotInvited, CreatedAt: now, UpdatedAt: now,
	}
	checks := s.lookups(ctx, in)
	if err := s.Store.View(ctx, func(tx storage.Tx) error { return s.apply(tx, &p, in, true, checks) }); err != nil {
		return api.Person{}, err
	}
	p.PasswordHash = s.hash(*in.Password)
	err := s.Store.Update(ctx, func(tx storage.Tx) error { return tx.People(c.TenantID).Put(p) })
	if errors.Is(err, storage.ErrEmailTaken) {
		return api.Person{}, apierr.Invalid(emailTakenFailure(p.Email))
	}
	if err != nil {
		return api.Person{}, err
	}
	return s.ToAPI(p, c), nil
}

// Update changes the fields in carries of a person of the caller's tenant: 404 outside it; only
// the owner modifies the owner; only the owner and the person change the person's credentials
// (spec 1 §5.5, §5.6). The answer's expanded catalog records are null.
func (s *Service) Update(ctx context.Context, c auth.Caller, id string, in api.PersonInput) (api.Person, error) {
	if in.ID != nil && *in.ID != "" && *in.ID != id {
		return api.Person{}, apierr.Invalid(apierr.Field("id", MsgIDsMismatch, *in.ID, "", nil))
	}
	checks := s.lookups(ctx, in)
	now := s.now()
	prepare := func(tx storage.Tx) (storage.Person, error) {
		p, err := tx.People(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return p, apierr.NotFound(id)
		}
		if err != nil {
			return p, err
		}
		if err := auth.ModifyPerson(c, p.ID, p.IsOwner); err != nil {
			return p, err
		}
		savedTax, err := s.savedTaxPassword(p)
		if err != nil {
			return p, err
		}
		if err := auth.ChangeCredentialsOf(c, p.ID, auth.CredentialsChange(in.Password, in.Email, in.TaxPassword, p.Email, savedTax)); err != nil {
			return p, err
		}
		if err := s.apply(tx, &p, in, false, checks); err != nil {
			return p, err
		}
		p.UpdatedAt = now
		return p, nil
	}
	// Every check first, in a read: the password is hashed (slow on purpose) only for a request
	// that passes them, and outside the write, which then checks again on what it reads.
	if err := s.Store.View(ctx, func(tx storage.Tx) error { _, err := prepare(tx); return err }); err != nil {
		return api.Person{}, err
	}
	var hashed string
	if in.Password != nil && *in.Password != "" {
		hashed = s.hash(*in.Password)
	}
	var p storage.Person
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		var err error
		if p, err = prepare(tx); err != nil {
			return err
		}
		if hashed != "" {
			p.PasswordHash = hashed
		}
		return tx.People(c.TenantID).Put(p)
	})
	if errors.Is(err, storage.ErrEmailTaken) {
		return api.Person{}, apierr.Invalid(emailTakenFailure(p.Email))
	}
	if err != nil {
		return api.Person{}, err
	}
	return s.ToAPI(p, c), nil
}

// Delete removes a non-owner person of the caller's tenant and, in the same transaction, revokes
// its API keys, removes its employer and employee data and soft-deletes its tax files (kept for
// audit, content and password erased). Nobody deletes the owner (403); a person outside the
// tenant is a 404.
func (s *Service) Delete(ctx context.Context, c auth.Caller, id string) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		p, err := tx.People(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		if err := auth.DeletePerson(c, p.IsOwner); err != nil {
			return err
		}
		keys := tx.APIKeys(c.TenantID)
		for {
			batch, _, err := keys.ListByPerson(p.ID, 0, 100)
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				break
			}
			for _, k := range batch {
				if err := keys.Delete(k.ID); err != nil {
					return err
				}
			}
		}
		if err := storage.DeletePersonEmployment(tx, c.TenantID, p.ID); err != nil {
			return err
		}
		if err := storage.DeletePersonTaxFiles(tx, c.TenantID, p.ID, c.PersonID, s.now()); err != nil {
			return err
		}
		return tx.People(c.TenantID).Delete(p.ID)
	})
}
