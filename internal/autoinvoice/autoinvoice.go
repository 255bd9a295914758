// Package autoinvoice is the Auto CFDI configuration of a tenant (spec 3 §2.5, §4.6): its
// settings and its portal name. Tickets and the usage report are not here yet.
//
// Choices where the spec is silent: the owner rule is checked first, then the body, then the
// subscription; a missing or empty `name` in an availability query is the validator's
// NotEmpty failure on Name (an invalid name is not an error there) and in a PUT the format
// failure; an empty
// privacyNoticeUrl means none; the date in the 30-day message is the Mexico City day as
// YYYY-MM-DD; a concurrent change is a second change of the same tenant's portal name while
// one is in progress in this server.
package autoinvoice

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/accounts"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/storage"
)

// Texts of spec 3 §4.6.
const (
	MsgYearNeedsMonth   = "Para permitir facturar fuera del año también debes permitir facturar fuera del mes."
	MsgPrivacyURL       = "La URL del aviso de privacidad debe ser una URL https válida."
	MsgPrivacyURLLength = "La URL del aviso de privacidad no puede exceder 2048 caracteres."
	MsgNeedsAutoCfdi    = "Para administrar la configuración de Auto CFDI tu suscripción debe incluir: Auto CFDI."
	MsgNameFormat       = "El nombre debe tener de 3 a 40 caracteres (minúsculas, números y guiones), empezar con letra y no llevar \"--\" ni terminar en guion."
	MsgNameReserved     = "Ese nombre está reservado. Elige otro."
	MsgNameTooSoon      = "Solo puedes cambiar el nombre una vez cada 30 días. Próximo cambio disponible: %s."
	MsgNameTaken        = "Ese nombre ya está en uso. Elige otro."
	MsgNameBusy         = "Hay otro cambio del nombre del portal en curso. Intenta de nuevo en unos segundos."
)

// Availability reasons.
const (
	ReasonInvalidFormat = "invalidFormat"
	ReasonReserved      = "reserved"
	ReasonTaken         = "taken"
)

// MaxPrivacyURL is the longest privacy notice URL.
const MaxPrivacyURL = 2048

// ChangeInterval is how long a portal name stays before it can change again.
const ChangeInterval = 30 * 24 * time.Hour

// Reserved is the names no tenant may take: the service's own hosts and words a customer could
// mistake for it.
var Reserved = map[string]bool{
	"www": true, "api": true, "admin": true, "portal": true, "timbra": true, "sat": true, "soporte": true,
	"ayuda": true, "app": true, "mail": true, "correo": true, "static": true, "cdn": true, "status": true,
	"factura": true, "facturacion": true, "facturas": true, "login": true, "cuenta": true, "test": true,
}

// Service is the Auto CFDI configuration over a store.
type Service struct {
	Store       storage.Store
	Environment string
	Now         func() time.Time

	mu       sync.Mutex
	changing map[string]bool // tenants whose portal name is changing
}

// Normalize is the portal name as compared and stored: trimmed, lower case.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// ValidName is the format rule: 3 to 40 lower-case letters, digits and hyphens, starting with a
// letter, without "--", not ending with a hyphen.
func ValidName(n string) bool {
	if len(n) < 3 || len(n) > 40 || n[0] < 'a' || n[0] > 'z' || n[len(n)-1] == '-' || strings.Contains(n, "--") {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Subscribed answers 403 with msg unless the tenant's subscription includes Auto CFDI.
func Subscribed(tx storage.Tx, tenantID, env, msg string) error {
	sub, err := accounts.TenantSubscription(tx, tenantID, env)
	if err != nil {
		return err
	}
	if !sub.AutoCfdi {
		return apierr.Forbidden(msg)
	}
	return nil
}

func needsAutoCfdi(tx storage.Tx, tenantID, env string) error {
	return Subscribed(tx, tenantID, env, MsgNeedsAutoCfdi)
}

// Record is a tenant's Auto CFDI record (settings and portal name), the defaults when it never
// saved one.
func Record(tx storage.Tx, tenantID string) (storage.AutoInvoice, error) {
	a, err := tx.AutoInvoices().Get(tenantID)
	if errors.Is(err, storage.ErrNotFound) {
		return storage.AutoInvoice{TenantID: tenantID}, nil
	}
	return a, err
}

func settingsOf(a storage.AutoInvoice) api.AutoInvoiceSettings {
	return api.AutoInvoiceSettings{AllowBillingOutsideMonth: a.AllowBillingOutsideMonth,
		AllowBillingOutsideYear: a.AllowBillingOutsideYear, PrivacyNoticeURL: a.PrivacyNoticeURL}
}

// Settings returns the tenant's settings, the defaults when never saved.
func (s *Service) Settings(ctx context.Context, c auth.Caller) (api.AutoInvoiceSettings, error) {
	var a storage.AutoInvoice
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		a, err = Record(tx, c.TenantID)
		return err
	})
	return settingsOf(a), err
}

// CheckSettings is every failure of a settings body.
func CheckSettings(in api.AutoInvoiceSettingsInput) []api.Failure {
	var fs []api.Failure
	if in.AllowBillingOutsideYear != nil && *in.AllowBillingOutsideYear && (in.AllowBillingOutsideMonth == nil || !*in.AllowBillingOutsideMonth) {
		fs = append(fs, apierr.Field("AllowBillingOutsideYear", MsgYearNeedsMonth, *in.AllowBillingOutsideYear, "", nil))
	}
	if in.PrivacyNoticeURL != nil && *in.PrivacyNoticeURL != "" {
		u := *in.PrivacyNoticeURL
		if len(u) > MaxPrivacyURL {
			fs = append(fs, apierr.Field("PrivacyNoticeUrl", MsgPrivacyURLLength, u, "", nil))
		} else if p, err := url.Parse(u); err != nil || p.Scheme != "https" || p.Host == "" || strings.ContainsAny(u, " \t\r\n") {
			fs = append(fs, apierr.Field("PrivacyNoticeUrl", MsgPrivacyURL, u, "", nil))
		}
	}
	return fs
}

// SetSettings replaces the tenant's settings; unsent fields take their defaults.
func (s *Service) SetSettings(ctx context.Context, c auth.Caller, in api.AutoInvoiceSettingsInput) (api.AutoInvoiceSettings, error) {
	if err := auth.ManageAutoInvoice(c); err != nil {
		return api.AutoInvoiceSettings{}, err
	}
	if fs := CheckSettings(in); len(fs) > 0 {
		return api.AutoInvoiceSettings{}, apierr.Invalid(fs...)
	}
	var a storage.AutoInvoice
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if err := needsAutoCfdi(tx, c.TenantID, s.Environment); err != nil {
			return err
		}
		var err error
		if a, err = Record(tx, c.TenantID); err != nil {
			return err
		}
		a.SettingsSaved = true
		a.AllowBillingOutsideMonth = in.AllowBillingOutsideMonth != nil && *in.AllowBillingOutsideMonth
		a.AllowBillingOutsideYear = in.AllowBillingOutsideYear != nil && *in.AllowBillingOutsideYear
		a.PrivacyNoticeURL = nil
		if in.PrivacyNoticeURL != nil && *in.PrivacyNoticeURL != "" {
			u := *in.PrivacyNoticeURL
			a.PrivacyNoticeURL = &u
		}
		a.UpdatedAt = s.Now()
		return tx.AutoInvoices().Put(a)
	})
	if err != nil {
		return api.AutoInvoiceSettings{}, err
	}
	return settingsOf(a), nil
}

func nameOf(a storage.AutoInvoice) api.PortalName {
	if a.PortalName == "" || a.PortalNameAssignedAt == nil {
		return api.PortalName{}
	}
	n := a.PortalName
	at := api.FormatAudit(*a.PortalNameAssignedAt)
	next := api.FormatAudit(a.PortalNameAssignedAt.Add(ChangeInterval))
	return api.PortalName{Name: &n, AssignedAt: &at, NextChangeAllowedAt: &next}
}

// PortalName returns the tenant's portal name record, fields null when none.
func (s *Service) PortalName(ctx context.Context, c auth.Caller) (api.PortalName, error) {
	var a storage.AutoInvoice
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		a, err = Record(tx, c.TenantID)
		return err
	})
	return nameOf(a), err
}

// reason is why name cannot be the tenant's, "" when it can.
func reason(tx storage.Tx, tenantID, name string) (string, error) {
	if !ValidName(name) {
		return ReasonInvalidFormat, nil
	}
	owner, err := tx.AutoInvoices().PortalNameOwner(name)
	if err == nil && owner == tenantID {
		return "", nil // already the tenant's, current or previous
	}
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return "", err
	}
	if Reserved[name] {
		return ReasonReserved, nil
	}
	if err == nil {
		return ReasonTaken, nil
	}
	return "", nil
}

// Availability answers whether name can be the tenant's portal name.
func (s *Service) Availability(ctx context.Context, c auth.Caller, name string) (api.PortalNameAvailability, error) {
	if err := auth.ManageAutoInvoice(c); err != nil {
		return api.PortalNameAvailability{}, err
	}
	if strings.TrimSpace(name) == "" { // `name` is required (spec 3 §4.6)
		return api.PortalNameAvailability{}, apierr.Invalid(apierr.Empty("Name", name))
	}
	out := api.PortalNameAvailability{Name: Normalize(name)}
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		if err := needsAutoCfdi(tx, c.TenantID, s.Environment); err != nil {
			return err
		}
		r, err := reason(tx, c.TenantID, out.Name)
		if err != nil {
			return err
		}
		out.Available = r == ""
		if r != "" {
			out.Reason = &r
		}
		return nil
	})
	if err != nil {
		return api.PortalNameAvailability{}, err
	}
	return out, nil
}

// SetPortalName gives the tenant a portal name; its previous name stays reserved for it.
func (s *Service) SetPortalName(ctx context.Context, c auth.Caller, in api.PortalNameInput) (api.PortalName, error) {
	if err := auth.ManageAutoInvoice(c); err != nil {
		return api.PortalName{}, err
	}
	raw := ""
	if in.Name != nil {
		raw = *in.Name
	}
	name := Normalize(raw)
	if !ValidName(name) {
		return api.PortalName{}, apierr.Invalid(apierr.Field("Name", MsgNameFormat, in.Name, "", nil))
	}
	if !s.begin(c.TenantID) {
		return api.PortalName{}, apierr.Conflict(MsgNameBusy)
	}
	defer s.end(c.TenantID)
	var a storage.AutoInvoice
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		if err := needsAutoCfdi(tx, c.TenantID, s.Environment); err != nil {
			return err
		}
		var err error
		if a, err = Record(tx, c.TenantID); err != nil {
			return err
		}
		if a.PortalName == name {
			return nil // unchanged: not a change
		}
		switch r, err := reason(tx, c.TenantID, name); {
		case err != nil:
			return err
		case r == ReasonReserved:
			return apierr.Invalid(apierr.Field("Name", MsgNameReserved, name, "", nil))
		case r == ReasonTaken:
			return apierr.Conflict(MsgNameTaken)
		}
		now := s.Now()
		if a.PortalNameAssignedAt != nil {
			if next := a.PortalNameAssignedAt.Add(ChangeInterval); now.Before(next) {
				return apierr.BadRequest(fmt.Sprintf(MsgNameTooSoon, next.In(cfdi.Mexico).Format(time.DateOnly)))
			}
		}
		names := tx.AutoInvoices()
		if a.PreviousPortalName != "" && a.PreviousPortalName != name {
			if err := names.ReleasePortalName(a.PreviousPortalName); err != nil {
				return err
			}
		}
		if a.PortalName != "" {
			a.PreviousPortalName = a.PortalName
		} else {
			a.PreviousPortalName = ""
		}
		if a.PreviousPortalName == name {
			a.PreviousPortalName = ""
		}
		if err := names.HoldPortalName(name, c.TenantID); err != nil {
			return err
		}
		a.PortalName, a.PortalNameAssignedAt, a.UpdatedAt = name, &now, now
		return names.Put(a)
	})
	if err != nil {
		return api.PortalName{}, err
	}
	return nameOf(a), nil
}

func (s *Service) begin(tenantID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changing == nil {
		s.changing = map[string]bool{}
	}
	if s.changing[tenantID] {
		return false
	}
	s.changing[tenantID] = true
	return true
}

func (s *Service) end(tenantID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.changing, tenantID)
}

// HoldChange marks a portal-name change of tenantID as in progress until the returned function
// is called (tests of the concurrent-change answer).
func HoldChange(s *Service, tenantID string) func() {
	if !s.begin(tenantID) {
		return func() {}
	}
	return func() { s.end(tenantID) }
}
