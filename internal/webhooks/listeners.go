package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
)

// Listeners is the hub of open `timbra listen` sessions (listener.Hub).
type Listeners interface {
	Connected(tenant, person string) ([]string, bool)
	Deliver(ctx context.Context, tenant, person string, ev listener.Event) (listener.Ack, error)
}

// findListener reads a person's listener, if it has one.
func findListener(tx storage.Tx, tenant, person string) (storage.Webhook, bool, error) {
	all, err := tx.Webhooks(tenant).All()
	if err != nil {
		return storage.Webhook{}, false, err
	}
	for _, w := range all {
		if w.Kind == KindListener && w.ListenerPersonID != nil && *w.ListenerPersonID == person {
			return w, true, nil
		}
	}
	return storage.Webhook{}, false, nil
}

// connected tells whether a listener webhook has an open session, and the types it asked for.
func (s *Service) connected(w storage.Webhook) ([]string, bool) {
	if s.Listeners == nil || w.Kind != KindListener || w.ListenerPersonID == nil {
		return nil, false
	}
	return s.Listeners.Connected(w.TenantID, *w.ListenerPersonID)
}

// OpenListener creates or renews the caller's listener for a session that receives the given
// event types (all when none), and answers what the session's Ready carries. The listener's
// secret is made once per person and changes only by rotate-secret.
func (s *Service) OpenListener(ctx context.Context, c auth.Caller, events []string) (listener.Ready, error) {
	if err := requireManage(c); err != nil {
		return listener.Ready{}, err
	}
	if len(events) == 0 {
		events = []string{"*"}
	}
	var fs []api.Failure
	if len(events) > 1 && containsString(events, "*") {
		fs = append(fs, apierr.Field("events", MsgWildcardAlone, events, "", nil))
	}
	for _, e := range events {
		if _, ok := Lookup(e); !ok && e != "*" {
			fs = append(fs, apierr.Field("events", fmt.Sprintf(MsgUnknownEventType, e), e, "", nil))
		}
	}
	if len(fs) > 0 {
		return listener.Ready{}, apierr.Invalid(fs...)
	}
	unlock, err := s.lock(ctx, c.TenantID)
	if err != nil {
		return listener.Ready{}, err
	}
	defer unlock()
	var ready listener.Ready
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		w, ok, err := findListener(tx, c.TenantID, c.PersonID)
		if err != nil {
			return err
		}
		now := s.Now().UTC()
		var secret string
		if !ok {
			person := c.PersonID
			w = storage.Webhook{ID: ids.New(now), TenantID: c.TenantID, Kind: KindListener, ListenerPersonID: &person,
				Status: StatusEnabled, CreatedAt: now}
			secret = s.NewSecret()
			w.Secret = s.Keys.Seal([]byte(secret), secretContext(w.TenantID, w.ID))
		} else {
			plain, err := s.Keys.Open(w.Secret, secretContext(w.TenantID, w.ID))
			if err != nil {
				return err
			}
			secret = string(plain)
		}
		expires := now.Add(listener.SessionLifetime)
		w.EnabledEvents, w.SessionExpiresAt, w.UpdatedAt = events, &expires, now
		ready = listener.Ready{WebhookID: w.ID, Secret: secret, Events: events, SessionExpiresAt: api.FormatZoned(expires, c.Zone)}
		return tx.Webhooks(c.TenantID).Put(w)
	})
	return ready, err
}

// RenewListener keeps an open session's listener from expiring; it writes at most once a minute.
func (s *Service) RenewListener(ctx context.Context, tenant, webhookID string) error {
	return s.Store.Update(ctx, func(tx storage.Tx) error {
		w, err := tx.Webhooks(tenant).Get(webhookID)
		if err != nil {
			return err
		}
		now := s.Now().UTC()
		if w.SessionExpiresAt != nil && w.SessionExpiresAt.Sub(now) > listener.SessionLifetime-time.Minute {
			return nil
		}
		expires := now.Add(listener.SessionLifetime)
		w.SessionExpiresAt = &expires
		return tx.Webhooks(tenant).Put(w)
	})
}
