package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
)

// Listeners is the hub of open `timbra listen` sessions (listener.Hub), each known by its
// listener webhook's id.
type Listeners interface {
	Connected(tenant, listenerID string) ([]string, bool)
	Deliver(ctx context.Context, tenant, listenerID string, ev listener.Event) (listener.Ack, error)
	// Each calls fn with every open session (the cluster renews their leases).
	Each(fn func(tenant, listenerID string, events []string))
}

// DefaultSession is the name of a listen session not named (and of every listener stored
// before sessions had names).
const DefaultSession = "default"

// MaxListenerSessions bounds the listen sessions (listener webhooks) one person keeps.
const MaxListenerSessions = 10

// maxSessionName bounds a session's name.
const maxSessionName = 40

// validSessionName tells whether a session's name is 1 to 40 letters, digits, '.', '_' or '-'.
func validSessionName(name string) bool {
	if name == "" || len(name) > maxSessionName {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// sessionOf is a listener's session name.
func sessionOf(w storage.Webhook) string {
	if w.ListenerSession == "" {
		return DefaultSession
	}
	return w.ListenerSession
}

// listenerSession is a webhook's session name as the API shows it: null for a URL webhook.
func listenerSession(w storage.Webhook) *string {
	if w.Kind != KindListener {
		return nil
	}
	name := sessionOf(w)
	return &name
}

// personListeners reads a person's listeners, one per session name.
func personListeners(tx storage.Tx, tenant, person string) ([]storage.Webhook, error) {
	all, err := tx.Webhooks(tenant).All()
	if err != nil {
		return nil, err
	}
	var out []storage.Webhook
	for _, w := range all {
		if w.Kind == KindListener && w.ListenerPersonID != nil && *w.ListenerPersonID == person {
			out = append(out, w)
		}
	}
	return out, nil
}

// findListener reads a person's listener of a session, if it has one.
func findListener(tx storage.Tx, tenant, person, session string) (storage.Webhook, bool, error) {
	all, err := personListeners(tx, tenant, person)
	if err != nil {
		return storage.Webhook{}, false, err
	}
	for _, w := range all {
		if sessionOf(w) == session {
			return w, true, nil
		}
	}
	return storage.Webhook{}, false, nil
}

// openListener is the caller's listener a resend or trigger goes to when it names no webhook:
// that of session when named, else the session named default if it is open, else the only
// one open.
func (s *Service) openListener(tx storage.Tx, c auth.Caller, session string) (storage.Webhook, error) {
	if session != "" {
		w, ok, err := findListener(tx, c.TenantID, c.PersonID, session)
		if err != nil {
			return storage.Webhook{}, err
		}
		if _, open := s.connected(tx, w); !ok || !open {
			return storage.Webhook{}, apierr.Conflict(fmt.Sprintf(MsgSessionNotOpen, session, session))
		}
		return w, nil
	}
	all, err := personListeners(tx, c.TenantID, c.PersonID)
	if err != nil {
		return storage.Webhook{}, err
	}
	var open []storage.Webhook
	for _, w := range all {
		if _, ok := s.connected(tx, w); ok {
			if sessionOf(w) == DefaultSession {
				return w, nil
			}
			open = append(open, w)
		}
	}
	switch len(open) {
	case 0:
		return storage.Webhook{}, apierr.Conflict(MsgListenerNotOpen)
	case 1:
		return open[0], nil
	}
	names := make([]string, len(open))
	for i, w := range open {
		names[i] = sessionOf(w)
	}
	slices.Sort(names)
	return storage.Webhook{}, apierr.Conflict(fmt.Sprintf(MsgSessionAmbiguous, strings.Join(names, ", ")))
}

// connected tells whether a listener webhook has an open session, on this node or (with other
// nodes) another, and the types it asked for.
func (s *Service) connected(tx storage.Tx, w storage.Webhook) ([]string, bool) {
	if s.Listeners == nil || w.Kind != KindListener || w.ID == "" {
		return nil, false
	}
	if events, ok := s.Listeners.Connected(w.TenantID, w.ID); ok {
		return events, true
	}
	if s.engine != nil && s.engine.cluster != nil {
		return s.engine.cluster.connectedElsewhere(tx, w.TenantID, w.ID)
	}
	return nil, false
}

// ListenerChanged tells the other nodes that a listen session of this node opened or closed
// (listener.Hub.Changed).
func (s *Service) ListenerChanged(tenant, listenerID string) {
	if s.engine != nil && s.engine.cluster != nil {
		s.engine.cluster.sessionChanged(tenant, listenerID)
	}
}

// validListenTypes checks a session's event types: exact types of the catalog, "namespace.*"
// patterns that take at least one, or "*" alone.
func validListenTypes(events []string) []api.Failure {
	var fs []api.Failure
	if len(events) > 1 && containsString(events, "*") {
		fs = append(fs, apierr.Field("events", MsgWildcardAlone, events, "", nil))
	}
	for _, e := range events {
		if e == "*" {
			continue
		}
		if prefix, ok := strings.CutSuffix(e, "*"); ok && strings.HasSuffix(prefix, ".") {
			if slices.ContainsFunc(Names(), func(n string) bool { return strings.HasPrefix(n, prefix) }) {
				continue
			}
		} else if _, ok := Lookup(e); ok {
			continue
		}
		fs = append(fs, apierr.Field("events", fmt.Sprintf(MsgUnknownEventType, e), e, "", nil))
	}
	return fs
}

// OpenListener creates or renews the caller's listener of a session (DefaultSession when
// session is "") that receives the given event types (all when none), and answers what the
// session's Ready carries. Each session of a person has its own listener (its deliveries, its
// types); its secret is made once and changes only by rotate-secret.
func (s *Service) OpenListener(ctx context.Context, c auth.Caller, session string, events []string) (listener.Ready, error) {
	ready, _, err := s.OpenListenerSince(ctx, c, session, events, "")
	return ready, err
}

// MaxReplay bounds the events a session catches up on when it opens (the most recent ones).
const MaxReplay = 1000

// OpenListenerSince is OpenListener for a session that catches up on what it missed: since
// (an instant, RFC 3339, or an event's id; "" for none) names from when. It answers, oldest
// first, the events since then (after that event) of the session's types that its listener has
// not received successfully, at most MaxReplay (the most recent), for Replay once the session
// is open; Ready.Replaying counts them.
func (s *Service) OpenListenerSince(ctx context.Context, c auth.Caller, session string, events []string, since string) (listener.Ready, []string, error) {
	if err := requireManage(c); err != nil {
		return listener.Ready{}, nil, err
	}
	var from time.Time
	var afterID string
	if since != "" {
		if isGUID(since) {
			afterID = strings.ToLower(since)
		} else if t, bad := parseInstant("since", since); bad != nil {
			return listener.Ready{}, nil, apierr.Invalid(*bad)
		} else {
			from = t
		}
	}
	ready, err := s.upsertListener(ctx, c, session, events)
	if err != nil || since == "" {
		return ready, nil, err
	}
	var replay []string
	err = s.Store.View(ctx, func(tx storage.Tx) error {
		if afterID != "" {
			e, err := s.findEvent(tx, c, afterID)
			if err != nil {
				f := apierr.Field("since", fmt.Sprintf(MsgSinceUnknown, since), since, "", nil)
				return apierr.Invalid(f)
			}
			from = e.CreatedAt
		}
		now := s.Now().UTC()
		if oldest := now.Add(-Retention); from.Before(oldest) {
			from = oldest
		}
		got := map[string]bool{} // events the listener received successfully
		ds, _, err := tx.Deliveries(c.TenantID).ByWebhook(ready.WebhookID, from, 0, 10*MaxReplay)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if d.Status == DeliveryOK {
				got[d.EventID] = true
			}
		}
		const page = 500
		for off := 0; len(replay) < MaxReplay; off += page {
			es, err := tx.Events(c.TenantID).Page("", from, now, off, page)
			if err != nil {
				return err
			}
			for _, e := range es {
				if len(replay) < MaxReplay && e.ID > afterID && !got[e.ID] && Subscribed(ready.Events, e.Type) {
					replay = append(replay, e.ID)
				}
			}
			if len(es) < page {
				break
			}
		}
		slices.Reverse(replay)
		return nil
	})
	if err != nil {
		return listener.Ready{}, nil, err
	}
	ready.Replaying = len(replay)
	return ready, replay, nil
}

// Replay delivers to a session's listener, once each and one after the other in this order,
// the events OpenListenerSince answered (events purged meanwhile are left out). mark is called
// with the deliveries' ids, in order, before they can be sent.
func (s *Service) Replay(ctx context.Context, tenant, webhookID string, eventIDs []string, mark func([]string)) error {
	if len(eventIDs) == 0 {
		return nil
	}
	return s.enqueue(ctx, tenant, func(tx storage.Tx) error {
		w, err := tx.Webhooks(tenant).Get(webhookID)
		if err != nil {
			return err
		}
		now := s.Now().UTC()
		var ds []storage.Delivery
		for _, id := range eventIDs {
			e, err := tx.Events(tenant).Get(id)
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			ds = append(ds, newDelivery(tenant, w, e, DeliveryManual, now))
		}
		ids := make([]string, len(ds))
		for i, d := range ds {
			ids[i] = d.ID
		}
		mark(ids)
		return tx.Deliveries(tenant).Create(ds)
	})
}

func (s *Service) upsertListener(ctx context.Context, c auth.Caller, session string, events []string) (listener.Ready, error) {
	if err := requireManage(c); err != nil {
		return listener.Ready{}, err
	}
	if session == "" {
		session = DefaultSession
	}
	if len(events) == 0 {
		events = []string{"*"}
	}
	fs := validListenTypes(events)
	if !validSessionName(session) {
		fs = append(fs, apierr.Field("session", fmt.Sprintf(MsgSessionName, session), session, "", nil))
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
		mine, err := personListeners(tx, c.TenantID, c.PersonID)
		if err != nil {
			return err
		}
		var w storage.Webhook
		ok := false
		for _, x := range mine {
			if sessionOf(x) == session {
				w, ok = x, true
			}
		}
		now := s.Now().UTC()
		var secret string
		if !ok {
			if len(mine) >= MaxListenerSessions {
				return apierr.Conflict(fmt.Sprintf(MsgTooManySessions, MaxListenerSessions))
			}
			person := c.PersonID
			w = storage.Webhook{ID: ids.New(now), TenantID: c.TenantID, Kind: KindListener, ListenerPersonID: &person,
				Status: StatusEnabled, CreatedAt: now}
			if session != DefaultSession {
				w.ListenerSession = session
			}
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
		ready = listener.Ready{WebhookID: w.ID, Session: session, Secret: secret, Events: events, SessionExpiresAt: api.FormatZoned(expires, c.Zone)}
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
