// Package people holds the rules of the people resource (spec 2 §2.1, §4.3): how a stored
// person is shown to a caller, email and password rules, the read side (list, get, with the
// expanded catalog records) and the write side (create, update, delete; write.go).
package people

import (
	"context"
	"errors"
	"sort"
	"strconv"
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

// Page size limits of the people list (spec 1 §8).
const (
	MaxPageSize     = 50
	DefaultPageSize = 50
)

// Messages of this area.
const (
	MsgEmailTaken = "The email is already registered."
	// AllowedEmailChars are the characters an email may hold (spec 2 §2.1).
	AllowedEmailChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._@+"
	// ManifestNotInvited is the manifest status of a new person.
	ManifestNotInvited = "NotInvited"
	// UserTypeTenant is the user type of the tenant creator.
	UserTypeTenant = "T"
)

// Service is the people area.
type Service struct {
	Store storage.Store
	Keys  *secrets.Keys
	// Catalogs checks and expands the catalog ids of a person; nil acts as a server without
	// SAT catalogs.
	Catalogs *catalogs.Service
	// Now is the clock (time.Now when nil); HashPassword hashes sign-in passwords
	// (secrets.HashPassword when nil; tests may make it cheaper).
	Now          func() time.Time
	HashPassword func(string) string
}

// CheckEmail returns the failure, on property, of an email longer than MaxEmail or with
// characters outside the allowed set (naming each rejected character once), or nil.
func CheckEmail(property, email string) *api.Failure {
	if f, long := apierr.TooLong(property, email, MaxEmail, email); long {
		return &f
	}
	var bad []string
	seen := map[rune]bool{}
	for _, r := range email {
		if !strings.ContainsRune(AllowedEmailChars, r) && !seen[r] {
			seen[r] = true
			bad = append(bad, "'"+string(r)+"'")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	f := apierr.Field(property, "The email contains characters that are not allowed: "+strings.Join(bad, ", ")+
		". Allowed characters: "+AllowedEmailChars, email, "InvalidUserName", nil)
	return &f
}

// TaxPasswordContext is the sealing context of a person's private key password.
func TaxPasswordContext(tenantID, personID string) string {
	return "person.taxPassword/" + tenantID + "/" + personID
}

// ToAPI shows a stored person to a caller: the private key password only to the person and the
// owner, never the sign-in password.
func (s *Service) ToAPI(p storage.Person, c auth.Caller) api.Person {
	out := api.Person{
		ID: p.ID, LegalName: p.LegalName, Email: p.Email, PhoneNumber: p.PhoneNumber,
		SatTaxRegimeID: p.SatTaxRegimeID, SatCfdiUseID: p.SatCfdiUseID, UserTypeID: p.UserTypeID,
		Tin: p.Tin, Curp: p.Curp, ZipCode: p.ZipCode, CountryID: p.CountryID, ForeignTin: p.ForeignTin,
		Base64Photo: p.Base64Photo, TenantID: p.TenantID, IsOwner: p.IsOwner,
		ManifestStatusID: p.ManifestStatusID, Balances: []api.Balance{},
		CreatedAt: api.FormatAudit(p.CreatedAt), UpdatedAt: api.FormatAudit(p.UpdatedAt),
	}
	if p.ValidTo != nil {
		v := api.FormatAudit(*p.ValidTo)
		out.ValidTo = &v
	}
	for _, b := range p.Balances {
		out.Balances = append(out.Balances, api.Balance{CreditType: b.CreditType, Available: float64(b.Available)})
		switch b.CreditType {
		case api.CreditStamps:
			out.AvailableBalance = float64(b.Available)
		case api.CreditValidation:
			out.AvailableValidationBalance = float64(b.Available)
		}
	}
	if len(p.TaxPassword) > 0 && auth.SeesCredentialsOf(c, p.ID) {
		if plain, err := s.Keys.Open(p.TaxPassword, TaxPasswordContext(p.TenantID, p.ID)); err == nil {
			v := string(plain)
			out.TaxPassword = &v
		}
	}
	return out
}

// List answers a page of the caller's tenant's people, in creation order.
func (s *Service) List(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.Person], error) {
	var items []storage.Person
	var total int
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		items, total, err = tx.People(c.TenantID).List((page-1)*size, size)
		return err
	})
	if err != nil {
		return api.PagedList[api.Person]{}, err
	}
	out := make([]api.Person, len(items))
	for i, p := range items {
		out[i] = s.ToAPI(p, c)
		if err := s.expand(ctx, &out[i]); err != nil {
			return api.PagedList[api.Person]{}, err
		}
	}
	return api.NewPage(out, page, size, total), nil
}

// Get answers one person of the caller's tenant.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.Person, error) {
	var p storage.Person
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		p, err = tx.People(c.TenantID).Get(id)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return api.Person{}, apierr.NotFound(id)
	}
	if err != nil {
		return api.Person{}, err
	}
	out := s.ToAPI(p, c)
	if err := s.expand(ctx, &out); err != nil {
		return api.Person{}, err
	}
	return out, nil
}

// Available is a person's balance of one credit type (0 when the person never had it).
func Available(p storage.Person, creditType int) int64 {
	for _, b := range p.Balances {
		if b.CreditType == creditType {
			return b.Available
		}
	}
	return 0
}

// AddCredits adds amount (negative to withdraw) of one credit type to a person's balances,
// keeping them sorted by credit type. It refuses to go below zero.
func AddCredits(p *storage.Person, creditType int, amount int64, now time.Time) error {
	i := sort.Search(len(p.Balances), func(i int) bool { return p.Balances[i].CreditType >= creditType })
	if i == len(p.Balances) || p.Balances[i].CreditType != creditType {
		p.Balances = append(p.Balances, storage.Balance{})
		copy(p.Balances[i+1:], p.Balances[i:])
		p.Balances[i] = storage.Balance{CreditType: creditType}
	}
	if p.Balances[i].Available+amount < 0 {
		return apierr.Invalid(apierr.Field("Amount", "El saldo no puede quedar negativo: disponible "+
			strconv.FormatInt(p.Balances[i].Available, 10)+".", amount, "", nil))
	}
	p.Balances[i].Available += amount
	p.UpdatedAt = now
	return nil
}

// Types and the status of a credit movement (the official client's StampTransactionType and
// StampTransactionStatus).
const (
	TxPurchase    = 1 // a grant: the operator's, or the test environment's allotment
	TxTransfer    = 2
	TxConsumption = 3 // a stamp, or validations
	TxAutoInvoice = 4 // a ticket of the self-invoicing portal
	TxRollback    = 5 // credits given back (validations not made)
	TxCompleted   = 1
)

// RecordCredits stores a credit movement of the tenant in tx (its transaction), numbered after
// the tenant's last, with the balances of its credit type of from and to (nil: none) after it.
func RecordCredits(tx storage.Tx, tenantID string, t storage.StampTransaction, from, to *storage.Person, now time.Time) error {
	txs := tx.StampTransactions(tenantID)
	_, total, err := txs.List(0, 0)
	if err != nil {
		return err
	}
	t.ID, t.Consecutive, t.TransactionStatus, t.CreatedAt = ids.New(now), int64(total)+1, TxCompleted, now
	if from != nil {
		b := Available(*from, t.CreditType)
		t.FromPersonID, t.FromBalance = from.ID, &b
	}
	if to != nil {
		b := Available(*to, t.CreditType)
		t.ToPersonID, t.ToBalance = to.ID, &b
	}
	return txs.Add(t)
}
