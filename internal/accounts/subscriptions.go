package accounts

import (
	"context"
	"errors"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/storage"
)

// MaxDownloadSeats is the most seats an operator may give a tenant.
const MaxDownloadSeats = 10000

// Subscription texts (operator API).
const (
	MsgSeatsRange = "'Download Seats' debe estar entre 0 y 10000."
)

// SubscriptionOf is a tenant's subscription: what the operator set, or the environment's default
// while nothing was set. In test every tenant has Auto CFDI and one bulk-download seat, so the
// whole API can be tried; in production a tenant has nothing until the operator sets it.
func SubscriptionOf(t storage.Tenant, environment string) storage.Subscription {
	if t.Subscription != nil {
		return *t.Subscription
	}
	if environment == EnvTest {
		return storage.Subscription{AutoCfdi: true, DownloadSeats: 1}
	}
	return storage.Subscription{}
}

// TenantSubscription reads the subscription of a tenant in tx (other areas check their feature
// with it, in their own transaction).
func TenantSubscription(tx storage.Tx, tenantID, environment string) (storage.Subscription, error) {
	t, err := tx.Tenants().Get(tenantID)
	if err != nil {
		return storage.Subscription{}, err
	}
	return SubscriptionOf(t, environment), nil
}

func subscriptionToAPI(tenantID string, s storage.Subscription) api.Subscription {
	out := api.Subscription{TenantKey: tenantID, AutoCfdi: s.AutoCfdi, DownloadSeats: s.DownloadSeats}
	if !s.UpdatedAt.IsZero() {
		out.UpdatedAt = api.FormatAudit(s.UpdatedAt)
	}
	return out
}

// GetSubscription is GET /admin/v1/tenants/<tenantKey>/subscription.
func (s *Service) GetSubscription(ctx context.Context, tenantKey string) (api.Subscription, error) {
	var out api.Subscription
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		t, err := tx.Tenants().Get(tenantKey)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(tenantKey)
		}
		if err != nil {
			return err
		}
		out = subscriptionToAPI(t.ID, SubscriptionOf(t, s.Environment))
		return nil
	})
	return out, err
}

// SetSubscription is PUT /admin/v1/tenants/<tenantKey>/subscription: the fields sent replace
// the current (or default) ones. Fewer seats than the rules in use take no rule away; they only
// stop new pairs from being added.
func (s *Service) SetSubscription(ctx context.Context, tenantKey string, in api.SubscriptionUpdate) (api.Subscription, error) {
	if in.DownloadSeats != nil && (*in.DownloadSeats < 0 || *in.DownloadSeats > MaxDownloadSeats) {
		return api.Subscription{}, apierr.Invalid(apierr.Field("DownloadSeats", MsgSeatsRange, *in.DownloadSeats, "InclusiveBetweenValidator",
			map[string]any{"From": 0, "To": MaxDownloadSeats, "PropertyName": "Download Seats", "PropertyValue": *in.DownloadSeats}))
	}
	var out api.Subscription
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		t, err := tx.Tenants().Get(tenantKey)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound(tenantKey)
		}
		if err != nil {
			return err
		}
		sub := SubscriptionOf(t, s.Environment)
		if in.AutoCfdi != nil {
			sub.AutoCfdi = *in.AutoCfdi
		}
		if in.DownloadSeats != nil {
			sub.DownloadSeats = *in.DownloadSeats
		}
		sub.UpdatedAt = s.Now().UTC()
		t.Subscription = &sub
		if err := tx.Tenants().Put(t); err != nil {
			return err
		}
		out = subscriptionToAPI(t.ID, sub)
		return nil
	})
	return out, err
}
