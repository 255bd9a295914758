// Package employment holds the employer data and the employee data of people (spec 2 §2.2,
// §2.3, §4.4, §4.5): one of each per person, their validation, catalog checks and texts. The
// owner rule (only the owner modifies the owner's data, spec 1 §5) is auth.ModifyPerson.
//
// Choices where the spec is silent:
//   - The path names the person: the employer person for employer data, the employee person for
//     employee data (the official client builds the path from personId and employeePersonId).
//     The body's personId / employeePersonId is required and must be the path's ("IDs
//     mismatches"), as with the ids of API keys and webhooks.
//   - GET, PUT and DELETE of data a person does not have answer 404 (MsgNoEmployer,
//     MsgNoEmployee); PUT never creates. POST on data that exists answers the spec's 400.
//   - Answers: employer data with id, audit fields and the expanded satFundSource; employee
//     data, on create as on get and update, with the fields of §2.3, the expanded records and no
//     id. An expanded record is null when its id is absent, or, on reads, when the catalogs are
//     not imported or no longer hold the id; writes that name a catalog value answer
//     catalogs.ErrNotImported (503) on a server without catalogs.
//   - laborRelationStartDate takes a date (yyyy-MM-dd) or a date-time (its date is kept) and is
//     answered as yyyy-MM-dd. seniority follows SAT's pattern of Nómina 1.2 Antigüedad.
//   - Amounts are read exactly (no float) and answered as sent; timePercentage has no range in
//     the spec and none is applied.
package employment

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

// Catalogs finds catalog records; *catalogs.Service is one. err is catalogs.ErrNotImported when
// the catalog needs an import that has not happened.
type Catalogs interface {
	Lookup(ctx context.Context, name, id string) (api.CatalogRecord, bool, error)
}

// Service is the employer and employee data area.
type Service struct {
	Store    storage.Store
	Catalogs Catalogs
	Now      func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// person reads a person of the caller's tenant: 404 when absent.
func person(tx storage.Tx, c auth.Caller, personID string) (storage.Person, error) {
	p, err := tx.People(c.TenantID).Get(personID)
	if errors.Is(err, storage.ErrNotFound) {
		return p, apierr.NotFound(personID)
	}
	return p, err
}

// modifiable checks, before any validation, that the person exists (404) and that the caller may
// modify its data (403).
func (s *Service) modifiable(ctx context.Context, c auth.Caller, personID string, has func(storage.Tx) (bool, error), absent error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error {
		p, err := person(tx, c, personID)
		if err != nil {
			return err
		}
		if err := auth.ModifyPerson(c, personID, p.IsOwner); err != nil {
			return err
		}
		if has == nil {
			return nil
		}
		ok, err := has(tx)
		if err == nil && !ok {
			return absent
		}
		return err
	})
}

// checker gathers the failures of one body.
type checker struct {
	ctx      context.Context
	catalogs Catalogs
	fs       []api.Failure
}

func (k *checker) add(f api.Failure) { k.fs = append(k.fs, f) }

// required checks a required string: absent, empty or blank fails. It returns the value.
func (k *checker) required(prop string, v *string) string {
	if v == nil || strings.TrimSpace(*v) == "" {
		var attempted any
		if v != nil {
			attempted = *v
		}
		k.add(apierr.Empty(prop, attempted))
		return ""
	}
	return *v
}

// samePerson checks the body's person id against the path's.
func (k *checker) samePerson(prop string, v *string, pathID string) {
	if id := k.required(prop, v); id != "" && id != pathID {
		k.add(apierr.Field(prop, MsgIDsMismatch, id, "", nil))
	}
}

// catalog checks a catalog value; an empty one is absent. ErrNotImported ends the check.
func (k *checker) catalog(prop, catalog, msg, id string) error {
	if id == "" {
		return nil
	}
	_, ok, err := k.catalogs.Lookup(k.ctx, catalog, id)
	if err != nil {
		return err
	}
	if !ok {
		k.add(apierr.Field(prop, fmt.Sprintf(msg, id), id, "", apierr.Placeholders(prop, id)))
	}
	return nil
}

// rfc checks an optional RFC (originEmployerTin, subcontractorRfc) by cfdi.CheckRFC, in upper
// case as the payroll complement writes it; empty is absent.
func (k *checker) rfc(prop string, v *string) {
	if v == nil || *v == "" {
		return
	}
	if err := cfdi.CheckRFC(strings.ToUpper(*v)); err != nil {
		k.add(apierr.Field(prop, err.Error(), *v, CodeInvalidFormat, apierr.Placeholders(prop, *v)))
	}
}

// amount checks an amount against 0 and MaxAmount; it returns the text to store.
func (k *checker) amount(prop string, v api.Decimal, msgMin, msgMax string) string {
	d, ok := parseDecimal(string(v))
	if !ok { // the decoder only lets numbers through; say so rather than store garbage
		k.add(apierr.Field(prop, fmt.Sprintf("'%s' no es un número.", apierr.Words(prop)), string(v), "", nil))
		return ""
	}
	switch amountRange(d) {
	case -1:
		p := apierr.Placeholders(prop, v)
		p["ComparisonValue"], p["ComparisonProperty"] = 0, ""
		k.add(apierr.Field(prop, msgMin, v, "GreaterThanOrEqualValidator", p))
		return ""
	case 1:
		p := apierr.Placeholders(prop, v)
		p["ComparisonValue"], p["ComparisonProperty"] = api.Decimal(MaxAmount), ""
		k.add(apierr.Field(prop, msgMax, v, "LessThanOrEqualValidator", p))
		return ""
	}
	return d.text(string(v))
}

// number is a number without range (timePercentage).
func number(v *api.Decimal) *string {
	if v == nil {
		return nil
	}
	d, ok := parseDecimal(string(*v))
	if !ok {
		return nil
	}
	t := d.text(string(*v))
	return &t
}

// optional is an optional text: empty is absent.
func optional(v *string) *string {
	if v == nil || *v == "" {
		return nil
	}
	s := *v
	return &s
}

// expand is the catalog record of an id for an answer; null when absent or not found, and when
// the catalogs cannot be read (reads never fail for the expansion).
func (s *Service) expand(ctx context.Context, catalog string, id *string) *api.CatalogRecord {
	if id == nil || *id == "" {
		return nil
	}
	rec, ok, err := s.Catalogs.Lookup(ctx, catalog, *id)
	if err != nil || !ok {
		return nil
	}
	return &rec
}

// seniorityPattern is SAT's pattern of Nómina 1.2 Antigüedad: weeks, or years, months and days
// with years and months optional and days required.
var seniorityPattern = regexp.MustCompile(`^(?:P(?:[1-9][0-9]{0,3}|0)W|P(?:[1-9][0-9]?Y)?(?:(?:[1-9]|1[012])M)?(?:0|[1-9]|[12][0-9]|3[01])D)$`)

// startDate reads a date (yyyy-MM-dd) or a date-time and returns its date.
func startDate(v string) (string, bool) {
	if len(v) < 10 {
		return "", false
	}
	if _, err := time.Parse(time.DateOnly, v[:10]); err != nil {
		return "", false
	}
	if len(v) > 10 {
		if _, err := api.ParseTime(v); err != nil {
			return "", false
		}
	}
	return v[:10], true
}

// ---- employer data

// GetEmployer is GET /api/v4/people/<personId>/employer.
func (s *Service) GetEmployer(ctx context.Context, c auth.Caller, personID string) (api.Employer, error) {
	var e storage.Employer
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		if _, err := person(tx, c, personID); err != nil {
			return err
		}
		var err error
		e, err = tx.Employers(c.TenantID).Get(personID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFoundText(fmt.Sprintf(MsgNoEmployer, personID))
		}
		return err
	})
	if err != nil {
		return api.Employer{}, err
	}
	return s.employerToAPI(ctx, e), nil
}

func (s *Service) employerToAPI(ctx context.Context, e storage.Employer) api.Employer {
	out := api.Employer{
		ID: e.ID, PersonID: e.PersonID, EmployerRegistration: e.EmployerRegistration,
		OriginEmployerTin: e.OriginEmployerTin, SatFundSourceID: e.SatFundSourceID,
		SatFundSource: s.expand(ctx, catalogFundSources, e.SatFundSourceID),
		CreatedAt:     api.FormatAudit(e.CreatedAt), UpdatedAt: api.FormatAudit(e.UpdatedAt),
	}
	if e.OwnResourceAmount != nil {
		v := api.Decimal(*e.OwnResourceAmount)
		out.OwnResourceAmount = &v
	}
	return out
}

// checkEmployer validates a body against the person of the path.
func (s *Service) checkEmployer(ctx context.Context, personID string, in api.EmployerInput) (storage.Employer, []api.Failure, error) {
	k := &checker{ctx: ctx, catalogs: s.Catalogs}
	k.samePerson("PersonId", in.PersonID, personID)
	e := storage.Employer{
		PersonID:             personID,
		EmployerRegistration: k.required("EmployerRegistration", in.EmployerRegistration),
		OriginEmployerTin:    optional(in.OriginEmployerTin),
		SatFundSourceID:      optional(in.SatFundSourceID),
	}
	k.rfc("OriginEmployerTin", in.OriginEmployerTin)
	if err := k.catalog("SatFundSourceId", catalogFundSources, MsgNoFundSource, api.Deref(e.SatFundSourceID)); err != nil {
		return e, nil, err
	}
	if in.OwnResourceAmount != nil { // null is not validated
		if e.SatFundSourceID == nil {
			k.add(apierr.Field("SatFundSourceId", MsgFundSourceRequired, api.Deref(in.SatFundSourceID), "NotEmptyValidator", apierr.Placeholders("SatFundSourceId", api.Deref(in.SatFundSourceID))))
		}
		if t := k.amount("OwnResourceAmount", *in.OwnResourceAmount, MsgOwnAmountMin, MsgOwnAmountMax); t != "" {
			e.OwnResourceAmount = &t
		}
	}
	return e, k.fs, nil
}

var employerKind = kind[storage.Employer]{
	get: func(tx storage.Tx, t, p string) (storage.Employer, error) { return tx.Employers(t).Get(p) },
	put: func(tx storage.Tx, t string, v storage.Employer) error { return tx.Employers(t).Put(v) },
	del: func(tx storage.Tx, t, p string) error { return tx.Employers(t).Delete(p) },
	audit: func(v *storage.Employer) (*string, *string, *time.Time, *time.Time) {
		return &v.ID, &v.TenantID, &v.CreatedAt, &v.UpdatedAt
	},
	exists: func(personID string) api.Failure {
		return apierr.Field("PersonId", MsgEmployerExists, personID, "", nil)
	},
}

func noEmployer(personID string) error {
	return apierr.NotFoundText(fmt.Sprintf(MsgNoEmployer, personID))
}

// CreateEmployer is POST /api/v4/people/<personId>/employer.
func (s *Service) CreateEmployer(ctx context.Context, c auth.Caller, personID string, in api.EmployerInput) (api.Employer, error) {
	return s.writeEmployer(ctx, c, personID, in, true)
}

// ReplaceEmployer is PUT /api/v4/people/<personId>/employer: the body replaces the data.
func (s *Service) ReplaceEmployer(ctx context.Context, c auth.Caller, personID string, in api.EmployerInput) (api.Employer, error) {
	return s.writeEmployer(ctx, c, personID, in, false)
}

func (s *Service) writeEmployer(ctx context.Context, c auth.Caller, personID string, in api.EmployerInput, create bool) (api.Employer, error) {
	e, err := write(s, ctx, c, personID, employerKind, noEmployer(personID), create, func() (storage.Employer, []api.Failure, error) {
		return s.checkEmployer(ctx, personID, in)
	})
	if err != nil {
		return api.Employer{}, err
	}
	return s.employerToAPI(ctx, e), nil
}

// DeleteEmployer is DELETE /api/v4/people/<personId>/employer.
func (s *Service) DeleteEmployer(ctx context.Context, c auth.Caller, personID string) error {
	return remove(s, ctx, c, personID, employerKind, noEmployer(personID))
}

// ---- employee data

// GetEmployee is GET /api/v4/people/<personId>/employee.
func (s *Service) GetEmployee(ctx context.Context, c auth.Caller, personID string) (api.Employee, error) {
	var e storage.Employee
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		if _, err := person(tx, c, personID); err != nil {
			return err
		}
		var err error
		e, err = tx.Employees(c.TenantID).Get(personID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFoundText(fmt.Sprintf(MsgNoEmployee, personID))
		}
		return err
	})
	if err != nil {
		return api.Employee{}, err
	}
	return s.employeeToAPI(ctx, e), nil
}

func (s *Service) employeeToAPI(ctx context.Context, e storage.Employee) api.Employee {
	out := api.Employee{
		EmployerPersonID: e.EmployerPersonID, EmployeePersonID: e.EmployeePersonID,
		EmployeeNumber: e.EmployeeNumber, SocialSecurityNumber: e.SocialSecurityNumber,
		LaborRelationStartDate: e.LaborRelationStartDate,
		SatContractTypeID:      e.SatContractTypeID, SatTaxRegimeTypeID: e.SatTaxRegimeTypeID,
		SatWorkdayTypeID: e.SatWorkdayTypeID, SatJobRiskID: e.SatJobRiskID,
		SatPaymentPeriodicityID: e.SatPaymentPeriodicityID, SatPayrollStateID: e.SatPayrollStateID,
		Seniority:                  e.Seniority,
		BaseSalaryForContributions: api.Decimal(e.BaseSalaryForContributions),
		IntegratedDailySalary:      api.Decimal(e.IntegratedDailySalary),
		SatBankID:                  e.SatBankID, SatUnionizedStatusID: e.SatUnionizedStatusID,
		Position: e.Position, Department: e.Department, BankAccount: e.BankAccount,
		SubcontractorRfc:      e.SubcontractorRfc,
		SatContractType:       s.expand(ctx, catalogContractTypes, &e.SatContractTypeID),
		SatTaxRegimeType:      s.expand(ctx, catalogTaxRegimeTypes, &e.SatTaxRegimeTypeID),
		SatWorkdayType:        s.expand(ctx, catalogWorkdayTypes, &e.SatWorkdayTypeID),
		SatJobRisk:            s.expand(ctx, catalogJobRisks, &e.SatJobRiskID),
		SatPaymentPeriodicity: s.expand(ctx, catalogPaymentPeriods, &e.SatPaymentPeriodicityID),
		SatBank:               s.expand(ctx, catalogBanks, e.SatBankID),
		SatPayrollState:       s.expand(ctx, catalogPayrollStates, &e.SatPayrollStateID),
		SatUnionizedStatus:    s.expand(ctx, catalogUnionizedStatuses, e.SatUnionizedStatusID),
	}
	if e.TimePercentage != nil {
		v := api.Decimal(*e.TimePercentage)
		out.TimePercentage = &v
	}
	return out
}

// checkEmployee validates a body against the employee person of the path. Whether the employer
// person exists is checked in the write's transaction.
func (s *Service) checkEmployee(ctx context.Context, personID string, in api.EmployeeInput) (storage.Employee, []api.Failure, error) {
	k := &checker{ctx: ctx, catalogs: s.Catalogs}
	k.samePerson("EmployeePersonId", in.EmployeePersonID, personID)
	e := storage.Employee{
		EmployeePersonID:     personID,
		EmployerPersonID:     k.required("EmployerPersonId", in.EmployerPersonID),
		EmployeeNumber:       k.required("EmployeeNumber", in.EmployeeNumber),
		SocialSecurityNumber: k.required("SocialSecurityNumber", in.SocialSecurityNumber),
		SatBankID:            optional(in.SatBankID),
		SatUnionizedStatusID: optional(in.SatUnionizedStatusID),
		Position:             optional(in.Position),
		Department:           optional(in.Department),
		BankAccount:          optional(in.BankAccount),
		SubcontractorRfc:     optional(in.SubcontractorRfc),
		TimePercentage:       number(in.TimePercentage),
	}
	k.rfc("SubcontractorRfc", in.SubcontractorRfc)
	if v := k.required("LaborRelationStartDate", in.LaborRelationStartDate); v != "" {
		if d, ok := startDate(v); ok {
			e.LaborRelationStartDate = d
		} else {
			k.add(apierr.Field("LaborRelationStartDate", fmt.Sprintf(MsgStartDate, v), v, "", apierr.Placeholders("LaborRelationStartDate", v)))
		}
	}
	for _, x := range []struct {
		prop, catalog, msg string
		in                 *string
		out                *string
	}{
		{"SatContractTypeId", catalogContractTypes, MsgNoContractType, in.SatContractTypeID, &e.SatContractTypeID},
		{"SatTaxRegimeTypeId", catalogTaxRegimeTypes, MsgNoTaxRegimeType, in.SatTaxRegimeTypeID, &e.SatTaxRegimeTypeID},
		{"SatWorkdayTypeId", catalogWorkdayTypes, MsgNoWorkdayType, in.SatWorkdayTypeID, &e.SatWorkdayTypeID},
		{"SatJobRiskId", catalogJobRisks, MsgNoJobRisk, in.SatJobRiskID, &e.SatJobRiskID},
		{"SatPaymentPeriodicityId", catalogPaymentPeriods, MsgNoPaymentPeriodicity, in.SatPaymentPeriodicityID, &e.SatPaymentPeriodicityID},
		{"SatPayrollStateId", catalogPayrollStates, MsgNoPayrollState, in.SatPayrollStateID, &e.SatPayrollStateID},
	} {
		*x.out = k.required(x.prop, x.in)
		if err := k.catalog(x.prop, x.catalog, x.msg, *x.out); err != nil {
			return e, nil, err
		}
	}
	if v := k.required("Seniority", in.Seniority); v != "" {
		if seniorityPattern.MatchString(v) {
			e.Seniority = v
		} else {
			k.add(apierr.Field("Seniority", fmt.Sprintf(MsgSeniority, v), v, "", apierr.Placeholders("Seniority", v)))
		}
	}
	for _, x := range []struct {
		prop, min, max string
		in             *api.Decimal
		out            *string
	}{
		{"BaseSalaryForContributions", MsgBaseSalaryMin, MsgBaseSalaryMax, in.BaseSalaryForContributions, &e.BaseSalaryForContributions},
		{"IntegratedDailySalary", MsgDailySalaryMin, MsgDailySalaryMax, in.IntegratedDailySalary, &e.IntegratedDailySalary},
	} {
		if x.in == nil {
			k.add(apierr.Field(x.prop, fmt.Sprintf(apierr.MsgNotNull, apierr.Words(x.prop)), nil, "NotNullValidator", apierr.Placeholders(x.prop, nil)))
			continue
		}
		*x.out = k.amount(x.prop, *x.in, x.min, x.max)
	}
	if err := k.catalog("SatBankId", catalogBanks, MsgNoBank, api.Deref(e.SatBankID)); err != nil {
		return e, nil, err
	}
	if err := k.catalog("SatUnionizedStatusId", catalogUnionizedStatuses, MsgNoUnionizedStatus, api.Deref(e.SatUnionizedStatusID)); err != nil {
		return e, nil, err
	}
	return e, k.fs, nil
}

var employeeKind = kind[storage.Employee]{
	get: func(tx storage.Tx, t, p string) (storage.Employee, error) { return tx.Employees(t).Get(p) },
	put: func(tx storage.Tx, t string, v storage.Employee) error { return tx.Employees(t).Put(v) },
	del: func(tx storage.Tx, t, p string) error { return tx.Employees(t).Delete(p) },
	audit: func(v *storage.Employee) (*string, *string, *time.Time, *time.Time) {
		return &v.ID, &v.TenantID, &v.CreatedAt, &v.UpdatedAt
	},
	exists: func(personID string) api.Failure {
		return apierr.Field("EmployeePersonId", MsgEmployeeExists, personID, "", nil)
	},
	// the employer the data names must be a person of the tenant
	refs: func(tx storage.Tx, c auth.Caller, e storage.Employee) ([]api.Failure, error) {
		if e.EmployerPersonID == "" {
			return nil, nil
		}
		_, err := tx.People(c.TenantID).Get(e.EmployerPersonID)
		if errors.Is(err, storage.ErrNotFound) {
			return []api.Failure{apierr.Field("EmployerPersonId", MsgEmployerNotValid, e.EmployerPersonID, "", nil)}, nil
		}
		return nil, err
	},
}

func noEmployee(personID string) error {
	return apierr.NotFoundText(fmt.Sprintf(MsgNoEmployee, personID))
}

// CreateEmployee is POST /api/v4/people/<personId>/employee.
func (s *Service) CreateEmployee(ctx context.Context, c auth.Caller, personID string, in api.EmployeeInput) (api.Employee, error) {
	return s.writeEmployee(ctx, c, personID, in, true)
}

// ReplaceEmployee is PUT /api/v4/people/<personId>/employee: the body replaces the data.
func (s *Service) ReplaceEmployee(ctx context.Context, c auth.Caller, personID string, in api.EmployeeInput) (api.Employee, error) {
	return s.writeEmployee(ctx, c, personID, in, false)
}

func (s *Service) writeEmployee(ctx context.Context, c auth.Caller, personID string, in api.EmployeeInput, create bool) (api.Employee, error) {
	e, err := write(s, ctx, c, personID, employeeKind, noEmployee(personID), create, func() (storage.Employee, []api.Failure, error) {
		return s.checkEmployee(ctx, personID, in)
	})
	if err != nil {
		return api.Employee{}, err
	}
	return s.employeeToAPI(ctx, e), nil
}

// DeleteEmployee is DELETE /api/v4/people/<personId>/employee.
func (s *Service) DeleteEmployee(ctx context.Context, c auth.Caller, personID string) error {
	return remove(s, ctx, c, personID, employeeKind, noEmployee(personID))
}
