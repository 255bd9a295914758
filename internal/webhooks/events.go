package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/storage"
)

// Attempts of an automatic delivery; manual resends, tests and triggers have one.
const AutomaticAttempts = 8

// newEvent builds an event and the exact bytes of its envelope.
func newEvent(tenant, typ, relatedID string, personID *string, synthetic bool, now time.Time) (storage.Event, error) {
	t, ok := Lookup(typ)
	if !ok {
		return storage.Event{}, fmt.Errorf("event type %q is not in the catalog", typ)
	}
	id := ids.New(now)
	body, err := json.Marshal(api.Event{
		ID: id, Type: typ, CreatedAt: api.FormatInstant(now), PersonID: personID,
		Data: api.EventData{
			RelatedObject: api.RelatedObject{ID: relatedID, Type: t.RelatedType, URL: t.URLPrefix + relatedID},
			Status:        t.Status, PreviousStatus: t.PreviousStatus,
		},
	})
	if err != nil {
		return storage.Event{}, err
	}
	return storage.Event{ID: id, TenantID: tenant, Type: typ, PersonID: personID, RelatedObjectID: relatedID,
		Synthetic: synthetic, CreatedAt: now, Body: body}, nil
}

// newDelivery makes a pending delivery of e to a webhook, due now. Automatic deliveries to a
// URL retry; to a listener, like every manual or test delivery, they are one attempt.
func newDelivery(tenant string, w storage.Webhook, e storage.Event, kind string, now time.Time) storage.Delivery {
	webhookID := w.ID
	attempts := 1
	if kind == DeliveryAuto && w.Kind == KindURL {
		attempts = AutomaticAttempts
	}
	return storage.Delivery{
		ID: ids.New(now), TenantID: tenant, WebhookID: webhookID, EventID: e.ID, EventType: e.Type, Kind: kind,
		Status: DeliveryPending, MaxAttempts: attempts, NextAttemptAt: &now, Synthetic: e.Synthetic, CreatedAt: now, UpdatedAt: now,
	}
}

// EventFilter is the query of GET /api/v4/events, as sent.
type EventFilter struct {
	Type, RelatedObjectID, From, To string
	Page, Size                      int
}

func parseInstant(name, v string) (time.Time, *api.Failure) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		if t, err = time.Parse("2006-01-02T15:04:05.999999999", v); err != nil {
			f := apierr.Parse(name, "El valor '"+v+"' no es válido para "+name+".", v)
			return time.Time{}, &f
		}
	}
	return t.UTC(), nil
}

// ListEvents answers events of the last 30 days, newest first, filtered (spec 3 §4.4).
func (s *Service) ListEvents(ctx context.Context, c auth.Caller, f EventFilter) (api.PagedList[json.RawMessage], error) {
	if err := requireManage(c); err != nil {
		return api.PagedList[json.RawMessage]{}, err
	}
	var fs []api.Failure
	if f.Type != "" {
		if _, ok := Lookup(f.Type); !ok {
			fs = append(fs, unknownType("Type", f.Type, f.Type, false))
		}
	}
	now := s.Now().UTC()
	to, from := now, now.Add(-Retention)
	if f.To != "" {
		if t, bad := parseInstant("To", f.To); bad != nil {
			fs = append(fs, *bad)
		} else {
			to = t
		}
	}
	if f.From != "" {
		if t, bad := parseInstant("From", f.From); bad != nil {
			fs = append(fs, *bad)
		} else {
			from = t // without `to`, the range ends now: its 30 days are counted from now
		}
	}
	if len(fs) == 0 {
		if from.After(to) {
			fs = append(fs, apierr.Field("From", MsgFromAfterTo, f.From, "", nil))
		} else if to.Sub(from) > Retention {
			fs = append(fs, apierr.Field("From", MsgRangeTooLong, f.From, "", nil))
		}
	}
	if len(fs) > 0 {
		return api.PagedList[json.RawMessage]{}, apierr.Invalid(fs...)
	}
	if oldest := now.Add(-Retention); from.Before(oldest) {
		from = oldest
	}
	var items []json.RawMessage
	total := 0
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		events := tx.Events(c.TenantID)
		count, pageOf := events.Count, events.Page
		if f.RelatedObjectID != "" { // one object's events, counted and paged the same way
			count = func(typ string, from, to time.Time) (int, error) {
				return events.CountRelated(f.RelatedObjectID, typ, from, to)
			}
			pageOf = func(typ string, from, to time.Time, offset, limit int) ([]storage.Event, error) {
				return events.PageRelated(f.RelatedObjectID, typ, from, to, offset, limit)
			}
		}
		n, err := count(f.Type, from, to)
		if err != nil {
			return err
		}
		total = n
		page, err := pageOf(f.Type, from, to, (f.Page-1)*f.Size, f.Size)
		for _, e := range page {
			items = append(items, e.Body)
		}
		return err
	})
	if err != nil {
		return api.PagedList[json.RawMessage]{}, err
	}
	return api.NewPage(items, f.Page, f.Size, total), nil
}

// findEvent reads an event of the last 30 days.
func (s *Service) findEvent(tx storage.Tx, c auth.Caller, id string) (storage.Event, error) {
	e, err := tx.Events(c.TenantID).Get(strings.ToLower(id))
	if errors.Is(err, storage.ErrNotFound) || (err == nil && e.CreatedAt.Before(s.Now().Add(-Retention))) {
		return storage.Event{}, apierr.NotFound(id)
	}
	return e, err
}

// GetEvent answers the exact envelope that was signed and delivered.
func (s *Service) GetEvent(ctx context.Context, c auth.Caller, id string) (json.RawMessage, error) {
	if err := requireManage(c); err != nil {
		return nil, err
	}
	var e storage.Event
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		e, err = s.findEvent(tx, c, id)
		return err
	})
	return e.Body, err
}

// target finds the webhook a resend or trigger goes to: the one named, or the caller's
// command-line listener when none is (of session, when named; see openListener). disabledText
// is the 400 text for a disabled webhook.
func (s *Service) target(tx storage.Tx, c auth.Caller, webhookID *string, session, disabledText string) (storage.Webhook, error) {
	if webhookID == nil {
		return s.openListener(tx, c, session)
	}
	w, err := tx.Webhooks(c.TenantID).Get(strings.ToLower(*webhookID))
	if errors.Is(err, storage.ErrNotFound) || (err == nil && !visible(c, w)) {
		return storage.Webhook{}, apierr.NotFound(*webhookID)
	}
	if err != nil {
		return storage.Webhook{}, err
	}
	if w.Kind == KindListener {
		if _, open := s.connected(tx, w); !open {
			return storage.Webhook{}, apierr.Conflict(MsgListenerNotOpen)
		}
		return w, nil
	}
	if w.Status != StatusEnabled {
		return storage.Webhook{}, apierr.BadRequest(disabledText)
	}
	return w, nil
}

// Resend delivers an existing event once more to one webhook: one attempt, no retries, no
// filtering by the webhook's types or people (202).
func (s *Service) Resend(ctx context.Context, c auth.Caller, eventID string, in api.EventResend) (api.EventResent, error) {
	if err := requireManage(c); err != nil {
		return api.EventResent{}, err
	}
	if in.WebhookID != nil && *in.WebhookID == "" {
		return api.EventResent{}, apierr.Invalid(apierr.Field("WebhookId", MsgWebhookIDEmpty, "", "NotEmptyValidator", nil))
	}
	session := ""
	if in.ListenerSession != nil {
		session = *in.ListenerSession
		if !validSessionName(session) {
			return api.EventResent{}, apierr.Invalid(apierr.Field("ListenerSession", fmt.Sprintf(MsgSessionName, session), session, "", nil))
		}
	}
	var out api.EventResent
	err := s.enqueue(ctx, c.TenantID, func(tx storage.Tx) error {
		e, err := s.findEvent(tx, c, eventID)
		if err != nil {
			return err
		}
		w, err := s.target(tx, c, in.WebhookID, session, MsgDisabledResend)
		if err != nil {
			return err
		}
		d := newDelivery(c.TenantID, w, e, DeliveryManual, s.Now().UTC())
		out = api.EventResent{DeliveryID: d.ID, WebhookID: w.ID}
		return tx.Deliveries(c.TenantID).Put(d)
	})
	return out, err
}

// Trigger builds an event shaped like a real one of that type and delivers it once, only to
// the webhook given (test environment only, 202).
func (s *Service) Trigger(ctx context.Context, c auth.Caller, in api.EventTrigger) (api.EventTriggered, error) {
	if err := requireManage(c); err != nil {
		return api.EventTriggered{}, err
	}
	var fs []api.Failure
	typ := ""
	if in.Type != nil {
		typ = *in.Type
	}
	if _, ok := Lookup(typ); !ok || typ == TypeTest {
		fs = append(fs, unknownType("Type", typ, in.Type, true))
	}
	if in.RelatedObjectID != nil {
		if n := utf8.RuneCountInString(*in.RelatedObjectID); n == 0 {
			fs = append(fs, apierr.Field("RelatedObjectId", MsgRelatedIDEmpty, "", "NotEmptyValidator", nil))
		} else if f, long := apierr.TooLong("RelatedObjectId", *in.RelatedObjectID, MaxRelatedID, *in.RelatedObjectID); long {
			fs = append(fs, f)
		}
	}
	if in.WebhookID != nil && *in.WebhookID == "" {
		fs = append(fs, apierr.Field("WebhookId", MsgWebhookIDEmpty, "", "NotEmptyValidator", nil))
	}
	if len(fs) > 0 {
		return api.EventTriggered{}, apierr.Invalid(fs...)
	}
	if s.Environment != "test" {
		return api.EventTriggered{}, apierr.Forbidden(MsgTriggerProduction)
	}
	now := s.Now().UTC()
	related := ids.New(now) // a synthetic id: GET on its url answers 404
	if in.RelatedObjectID != nil {
		related = *in.RelatedObjectID
	}
	var out api.EventTriggered
	err := s.enqueue(ctx, c.TenantID, func(tx storage.Tx) error {
		if in.PersonID != nil {
			if _, err := tx.People(c.TenantID).Get(*in.PersonID); err != nil {
				if errors.Is(err, storage.ErrNotFound) {
					return apierr.BadRequest(MsgPersonNotValid)
				}
				return err
			}
		}
		w, err := s.target(tx, c, in.WebhookID, "", MsgDisabledTest)
		if err != nil {
			return err
		}
		e, err := newEvent(c.TenantID, typ, related, in.PersonID, true, now)
		if err != nil {
			return err
		}
		if err := tx.Events(c.TenantID).Put(e); err != nil {
			return err
		}
		out = api.EventTriggered{EventID: e.ID, WebhookID: w.ID}
		return tx.Deliveries(c.TenantID).Put(newDelivery(c.TenantID, w, e, DeliveryTest, now))
	})
	return out, err
}

// Emit records a real event of a tenant and, in the same transaction, one automatic delivery
// to every enabled URL webhook subscribed to its type and person. Areas call it inside their
// own operations as they reach a state.
func (s *Service) Emit(ctx context.Context, tenant, typ, relatedID string, personID *string) (string, error) {
	now := s.Now().UTC()
	e, err := newEvent(tenant, typ, relatedID, personID, false, now)
	if err != nil {
		return "", err
	}
	if err := s.enqueue(ctx, tenant, func(tx storage.Tx) error { return s.emitIn(tx, e, now) }); err != nil {
		return "", err
	}
	return e.ID, nil
}

// EmitIn records an event of another area in that area's own transaction tx, with its
// deliveries, so that the event commits with the change it tells of or not at all. Call
// WakeEngine after tx commits. It reads and writes only through tx (it may run again in a
// storage Batch: the event gets a new id each time, and only the committed run's stays).
func (s *Service) EmitIn(tx storage.Tx, tenant, typ, relatedID string, personID *string) (string, error) {
	now := s.Now().UTC()
	e, err := newEvent(tenant, typ, relatedID, personID, false, now)
	if err != nil {
		return "", err
	}
	if err := s.emitIn(tx, e, now); err != nil {
		return "", err
	}
	return e.ID, nil
}

// WakeEngine tells the delivery engine that a tenant's deliveries are due (after EmitIn's
// transaction).
func (s *Service) WakeEngine(tenant string) {
	if s.engine != nil {
		s.engine.WakeTenant(tenant)
		if c := s.engine.cluster; c != nil {
			c.notify("wake " + tenant) // the node that holds its destinations may be another
		}
	}
}

func (s *Service) emitIn(tx storage.Tx, e storage.Event, now time.Time) error {
	if err := tx.Events(e.TenantID).Create(e); err != nil {
		return err
	}
	hooks, err := tx.Webhooks(e.TenantID).All()
	if err != nil {
		return err
	}
	var ds []storage.Delivery
	for _, w := range hooks {
		if w.Kind == KindListener {
			// a listener receives the tenant's real events only while its session is open
			if events, open := s.connected(tx, w); !open || !Subscribed(events, e.Type) {
				continue
			}
		} else if w.Status != StatusEnabled || !Subscribed(w.EnabledEvents, e.Type) {
			continue
		}
		if w.PersonIDs != nil && (e.PersonID == nil || !containsString(w.PersonIDs, *e.PersonID)) {
			continue
		}
		ds = append(ds, newDelivery(e.TenantID, w, e, DeliveryAuto, now))
	}
	return tx.Deliveries(e.TenantID).Create(ds)
}
