// Package downloadrules is the bulk-download rules of a tenant (spec 2 §2.6, §4.6): templates
// for requests that download CFDIs, metadata or withholding CFDIs from the SAT.
//
// A rule names a person, who needs a valid RFC and a current e.firma (taxfiles.HasCurrentEFirma),
// a query type (CFDI, Metadata, Retenciones), a download type (Emitidos, Recibidos) and an
// invoice status (Vigente, or Cancelado with Metadata only). Only the owner creates, updates or
// deletes the owner's rules (auth.ModifyPerson); on create that 403 comes before the seats and
// the e.firma checks. Order of a create: the body's failures (one 400), the person (400 when
// absent), the owner rule (403), the RFC (400), the seats (403), the e.firma (400).
//
// Seats: the tenant's subscription (accounts.SubscriptionOf) gives how many distinct
// (RFC, download type) pairs its rules may cover. A rule whose pair another rule already covers
// takes no seat; rejected rules (-1) hold none. The check and the write are one transaction.
//
// New rules are Pendiente (1); the operator approves (2) or rejects (-1) them
// (PUT /admin/v1/tenants/<tenantKey>/download-rules/<id>/status). An update changes only the
// description (body `id` and `description`, both required) and keeps the status. Rules of a
// deleted person stay, with `person` null. Any person of the tenant sees every rule.
package downloadrules

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/cfdi"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/catalogs"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/people"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

// Service is the download-rules area.
type Service struct {
	Store       storage.Store
	People      *people.Service
	Environment string
	Now         func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now().UTC()
	}
	return s.Now().UTC()
}

// expand is a record of a download catalog (internal/catalogs/builtin.go); nil when absent.
func expand(catalog, id string) *api.CatalogRecord { return catalogs.DownloadRecord(catalog, id) }

func inCatalog(catalog, id string) bool { return expand(catalog, id) != nil }

// bare is a rule as create and update answer it: expanded records null.
func bare(r storage.DownloadRule) api.DownloadRule {
	out := api.DownloadRule{
		ID: r.ID, PersonID: r.PersonID, Tin: r.Tin, Description: r.Description,
		DownloadRuleStatusID: r.DownloadRuleStatusID, SatQueryTypeID: r.SatQueryTypeID,
		DownloadTypeID: r.DownloadTypeID, SatInvoiceStatusID: r.SatInvoiceStatusID, IsTest: r.IsTest,
		CreatedAt: api.FormatAudit(r.CreatedAt), UpdatedAt: api.FormatAudit(r.UpdatedAt),
	}
	if r.PausedSince != nil && r.DownloadRuleStatusID == StatusApproved {
		since, reason := api.FormatAudit(*r.PausedSince), r.PausedReason
		out.PausedSince, out.PausedReason = &since, &reason
	}
	return out
}

// full is a rule as list and get answer it: the person and the catalog records expanded.
func (s *Service) full(tx storage.Tx, c auth.Caller, r storage.DownloadRule) api.DownloadRule {
	out := bare(r)
	if p, err := tx.People(c.TenantID).Get(r.PersonID); err == nil && s.People != nil {
		v := s.People.ToAPI(p, c)
		out.Person = &v
	}
	out.DownloadRuleStatus = expand(CatalogRuleStatuses, r.DownloadRuleStatusID)
	out.SatQueryType = expand(CatalogQueryTypes, r.SatQueryTypeID)
	out.DownloadType = expand(CatalogDownloadTypes, r.DownloadTypeID)
	out.SatInvoiceStatus = expand(CatalogInvoiceStatuses, r.SatInvoiceStatusID)
	return out
}

// List answers a page of the tenant's rules in creation order.
func (s *Service) List(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.DownloadRule], error) {
	var out []api.DownloadRule
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		rs, n, err := tx.DownloadRules(c.TenantID).List((page-1)*size, size)
		if err != nil {
			return err
		}
		total = n
		for _, r := range rs {
			out = append(out, s.full(tx, c, r))
		}
		return nil
	})
	if err != nil {
		return api.PagedList[api.DownloadRule]{}, err
	}
	return api.NewPage(out, page, size, total), nil
}

// Get answers one rule of the tenant; 404 outside it.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.DownloadRule, error) {
	var out api.DownloadRule
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		r, err := tx.DownloadRules(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		out = s.full(tx, c, r)
		return nil
	})
	return out, err
}

func text(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(*p)
}

// checkDescription is the description rule of create and update.
func checkDescription(in *string) []api.Failure {
	d := text(in)
	if d == "" {
		return []api.Failure{apierr.Field("Description", fmt.Sprintf(apierr.MsgNotEmpty, "Description"), in, people.CodeNotEmpty,
			map[string]any{"PropertyName": "Description", "PropertyValue": in})}
	}
	if n := utf8.RuneCountInString(d); n > MaxDescription {
		return []api.Failure{apierr.Field("Description", fmt.Sprintf(apierr.MsgMaxLength, "Description", MaxDescription, n), d, apierr.CodeMaxLength,
			map[string]any{"MaxLength": MaxDescription, "TotalLength": n, "PropertyName": "Description", "PropertyValue": d})}
	}
	return nil
}

func required(prop string, v *string) (api.Failure, bool) {
	if text(v) != "" {
		return api.Failure{}, false
	}
	words := map[string]string{"PersonId": "Person Id", "SatQueryTypeId": "Sat Query Type Id", "DownloadTypeId": "Download Type Id",
		"SatInvoiceStatusId": "Sat Invoice Status Id", "Id": "Id"}[prop]
	return apierr.Field(prop, fmt.Sprintf(apierr.MsgNotEmpty, words), v, people.CodeNotEmpty,
		map[string]any{"PropertyName": words, "PropertyValue": v}), true
}

// checkCreate is every failure of a create body, in one list.
func checkCreate(in api.DownloadRuleInput) []api.Failure {
	var fs []api.Failure
	if f, ok := required("PersonId", in.PersonID); ok {
		fs = append(fs, f)
	}
	fs = append(fs, checkDescription(in.Description)...)
	q, d, st := text(in.SatQueryTypeID), text(in.DownloadTypeID), text(in.SatInvoiceStatusID)
	if f, ok := required("SatQueryTypeId", in.SatQueryTypeID); ok {
		fs = append(fs, f)
	} else if !inCatalog(CatalogQueryTypes, q) {
		fs = append(fs, apierr.Field("SatQueryTypeId", fmt.Sprintf(MsgBadQueryType, q), q, "", nil))
	}
	if f, ok := required("DownloadTypeId", in.DownloadTypeID); ok {
		fs = append(fs, f)
	} else if !inCatalog(CatalogDownloadTypes, d) {
		fs = append(fs, apierr.Field("DownloadTypeId", fmt.Sprintf(MsgBadDownloadType, d), d, "", nil))
	} else if d == DownloadByUUID {
		fs = append(fs, apierr.Field("DownloadTypeId", MsgRuleByUUID, d, "", nil))
	}
	if f, ok := required("SatInvoiceStatusId", in.SatInvoiceStatusID); ok {
		fs = append(fs, f)
	} else if !inCatalog(CatalogInvoiceStatuses, st) {
		fs = append(fs, apierr.Field("SatInvoiceStatusId", fmt.Sprintf(MsgBadInvoiceStatus, st), st, "", nil))
	} else if st == InvoiceCanceled && q != QueryMetadata {
		fs = append(fs, apierr.Field("SatInvoiceStatusId", MsgCanceledOnlyMeta, st, "", nil))
	}
	return fs
}

// seatKey is the seat a rule occupies: one RFC and one download type.
func seatKey(tin, downloadType string) string { return strings.ToUpper(tin) + "\x00" + downloadType }

// Create adds a rule (Pendiente) for a person of the tenant.
func (s *Service) Create(ctx context.Context, c auth.Caller, in api.DownloadRuleInput) (api.DownloadRule, error) {
	if fs := checkCreate(in); len(fs) > 0 {
		return api.DownloadRule{}, apierr.Invalid(fs...)
	}
	now := s.now()
	r := storage.DownloadRule{
		ID: ids.New(now), TenantID: c.TenantID, PersonID: text(in.PersonID), Description: text(in.Description),
		DownloadRuleStatusID: StatusPending, SatQueryTypeID: text(in.SatQueryTypeID), DownloadTypeID: text(in.DownloadTypeID),
		SatInvoiceStatusID: text(in.SatInvoiceStatusID), IsTest: s.Environment != accounts.EnvProduction,
		CreatedAt: now, UpdatedAt: now,
	}
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		p, err := tx.People(c.TenantID).Get(r.PersonID)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.Invalid(apierr.Field("PersonId", fmt.Sprintf(MsgPersonAbsent, r.PersonID), r.PersonID, "", nil))
		}
		if err != nil {
			return err
		}
		if err := auth.ModifyPerson(c, p.ID, p.IsOwner); err != nil {
			return err
		}
		tin := ""
		if p.Tin != nil {
			tin = strings.ToUpper(strings.TrimSpace(*p.Tin))
		}
		if cfdi.CheckRFC(tin) != nil { // spec 2: the person needs a valid RFC
			return apierr.BadRequest(fmt.Sprintf(MsgPersonNoRFC, p.ID))
		}
		r.Tin = tin
		sub, err := accounts.TenantSubscription(tx, c.TenantID, s.Environment)
		if err != nil {
			return err
		}
		all, _, err := tx.DownloadRules(c.TenantID).List(0, math.MaxInt)
		if err != nil {
			return err
		}
		seats := map[string]bool{}
		for _, o := range all {
			if o.DownloadRuleStatusID != StatusRejected {
				seats[seatKey(o.Tin, o.DownloadTypeID)] = true
			}
		}
		if !seats[seatKey(r.Tin, r.DownloadTypeID)] && len(seats) >= sub.DownloadSeats {
			return apierr.Forbidden(fmt.Sprintf(MsgSeatsExceeded, len(seats), sub.DownloadSeats))
		}
		ok, err := taxfiles.HasCurrentEFirma(tx, c.TenantID, p.ID, now)
		if err != nil {
			return err
		}
		if !ok {
			return apierr.BadRequest(fmt.Sprintf(MsgPersonNoFiel, p.ID))
		}
		return tx.DownloadRules(c.TenantID).Put(r)
	})
	if err != nil {
		return api.DownloadRule{}, err
	}
	return bare(r), nil
}

// ownerRule checks the owner rule for a stored rule: only the owner changes the owner's rules.
func ownerRule(tx storage.Tx, c auth.Caller, r storage.DownloadRule) error {
	p, err := tx.People(c.TenantID).Get(r.PersonID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil // the person was deleted: not the owner, who cannot be
	}
	if err != nil {
		return err
	}
	return auth.ModifyPerson(c, p.ID, p.IsOwner)
}

// Update changes the description of a rule (body `id` and `description`, both required).
func (s *Service) Update(ctx context.Context, c auth.Caller, id string, in api.DownloadRuleInput) (api.DownloadRule, error) {
	var fs []api.Failure
	if f, ok := required("Id", in.ID); ok {
		fs = append(fs, f)
	} else if text(in.ID) != id {
		fs = append(fs, apierr.Field("Id", MsgIDsMismatch, text(in.ID), "", nil))
	}
	fs = append(fs, checkDescription(in.Description)...)
	if len(fs) > 0 {
		return api.DownloadRule{}, apierr.Invalid(fs...)
	}
	var r storage.DownloadRule
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		var err error
		r, err = tx.DownloadRules(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		if err := ownerRule(tx, c, r); err != nil {
			return err
		}
		r.Description = text(in.Description)
		r.UpdatedAt = s.now()
		return tx.DownloadRules(c.TenantID).Put(r)
	})
	if err != nil {
		return api.DownloadRule{}, err
	}
	return bare(r), nil
}

// Delete removes a rule of the tenant.
func (s *Service) Delete(ctx context.Context, c auth.Caller, id string) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		r, err := tx.DownloadRules(c.TenantID).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		if err := ownerRule(tx, c, r); err != nil {
			return err
		}
		return tx.DownloadRules(c.TenantID).Delete(id)
	})
}

// SetStatus is the operator's approval (2), rejection (-1) or return to Pendiente (1) of a rule.
func (s *Service) SetStatus(ctx context.Context, tenantKey, id string, in api.DownloadRuleStatusUpdate) (api.DownloadRule, error) {
	st := strings.TrimSpace(in.DownloadRuleStatusID)
	if !inCatalog(CatalogRuleStatuses, st) {
		return api.DownloadRule{}, apierr.Invalid(apierr.Field("DownloadRuleStatusId", fmt.Sprintf(MsgBadStatus, st), st, "", nil))
	}
	var r storage.DownloadRule
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Tenants().Get(tenantKey); errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(tenantKey)
		} else if err != nil {
			return err
		}
		var err error
		r, err = tx.DownloadRules(tenantKey).Get(id)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(id)
		}
		if err != nil {
			return err
		}
		r.DownloadRuleStatusID = st
		r.UpdatedAt = s.now()
		return tx.DownloadRules(tenantKey).Put(r)
	})
	if err != nil {
		return api.DownloadRule{}, err
	}
	return bare(r), nil
}
