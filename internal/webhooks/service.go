package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/storage"
)

// Retention is how long events and deliveries are kept and queryable (spec 1 §8).
const Retention = 30 * 24 * time.Hour

// SecretOverlap is how long a rotated-out secret keeps signing (spec 1 §8).
const SecretOverlap = 24 * time.Hour

// Service is the events and webhooks area.
type Service struct {
	Store       storage.Store
	Keys        *secrets.Keys
	Now         func() time.Time
	Environment string
	// CheckURL answers "" for a URL a webhook may have, else the spec's text of why not.
	CheckURL func(raw string) string
	// NewSecret makes a signing secret (whsec_ + 44 base64 characters).
	NewSecret func() string
	// Listeners is the hub of open listen sessions; nil when none can connect.
	Listeners Listeners
	// LockWait is how long a change waits for another change of the same tenant's webhooks
	// before answering 409.
	LockWait time.Duration

	engine *Engine  // nil when the service was made without one
	locks  sync.Map // tenant → chan struct{} of capacity 1
}

// Config is what the service needs: its dependencies, and the delivery engine's (Send set: the
// service has an engine, which its changes wake and tell about).
type Config struct {
	Store       storage.Store
	Keys        *secrets.Keys
	Now         func() time.Time
	Environment string
	CheckURL    func(raw string) string
	NewSecret   func() string
	Listeners   Listeners
	LockWait    time.Duration

	// Send makes one attempt to a URL; nil: no engine (deliveries wait in the outbox).
	Send SendFunc
	Log  *slog.Logger
	// PerDestination bounds the attempts in flight to one destination; 0: DefaultPerDestination.
	PerDestination int
	// Shared, when the database has other server nodes, is how the engine shares the outbox
	// with them (cluster.go); Node names this node among them.
	Shared storage.Shared
	Node   string
}

// New returns the events and webhooks service and, when cfg.Send is set, its delivery engine
// (Engine; Run sends).
func New(cfg Config) *Service {
	s := &Service{Store: cfg.Store, Keys: cfg.Keys, Now: cfg.Now, Environment: cfg.Environment, CheckURL: cfg.CheckURL,
		NewSecret: cfg.NewSecret, Listeners: cfg.Listeners, LockWait: cfg.LockWait}
	if cfg.Send != nil {
		s.engine = newEngine(s, cfg.Send, cfg.Log)
		if cfg.PerDestination > 0 {
			s.engine.PerDestination = cfg.PerDestination
		}
		if cfg.Shared != nil {
			s.engine.cluster = newCluster(s.engine, cfg.Shared, cfg.Node)
		}
	}
	return s
}

// Engine is the service's delivery engine; nil when it was made without one.
func (s *Service) Engine() *Engine { return s.engine }

// enqueue runs fn in a read-write transaction that makes deliveries, then wakes the engine.
// Concurrent calls share a commit (Batch); fn may run twice, and only its last run commits.
func (s *Service) enqueue(ctx context.Context, tenant string, fn func(tx storage.Tx) error) error {
	if err := s.Store.Batch(ctx, fn); err != nil {
		return err
	}
	s.WakeEngine(tenant)
	return nil
}

// hookChanged tells the engine, after the change committed, to read the webhook again before
// its next attempt.
func (s *Service) hookChanged(tenant, webhook string) {
	if s.engine != nil {
		s.engine.HookChanged(tenant, webhook)
		if c := s.engine.cluster; c != nil {
			c.notify("hook " + tenant + " " + webhook)
		}
	}
}

// lock serialises changes to one tenant's webhooks; a change that cannot start within LockWait
// answers 409 (spec 3 §4.5).
func (s *Service) lock(ctx context.Context, tenant string) (func(), error) {
	v, _ := s.locks.LoadOrStore(tenant, make(chan struct{}, 1))
	ch := v.(chan struct{})
	wait := s.LockWait
	if wait <= 0 {
		wait = 5 * time.Second
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-t.C:
		return nil, apierr.Conflict(MsgConcurrentChange)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// requireManage checks the permission Webhooks.Manage, which every person of a tenant has
// (spec 1 §5.4): only a caller without a person lacks it.
func requireManage(c auth.Caller) error {
	if c.PersonID == "" {
		return apierr.Forbidden(MsgNoPermission)
	}
	return nil
}

func secretContext(tenant, id string) string   { return "webhook.secret/" + tenant + "/" + id }
func previousContext(tenant, id string) string { return "webhook.previousSecret/" + tenant + "/" + id }

func zoned(t *time.Time, loc *time.Location) *string {
	if t == nil {
		return nil
	}
	v := api.FormatZoned(*t, loc)
	return &v
}

// toAPI shows a webhook; secret is set only on create and rotation.
func toAPI(w storage.Webhook, loc *time.Location, secret string) api.Webhook {
	return api.Webhook{
		ID: w.ID, Kind: w.Kind, URL: w.URL, Description: w.Description, EnabledEvents: w.EnabledEvents,
		PersonIDs: w.PersonIDs, Status: w.Status, DisabledReason: w.DisabledReason,
		DisabledAt: zoned(w.DisabledAt, loc), FailingSince: zoned(w.FailingSince, loc),
		ListenerPersonID: w.ListenerPersonID, ListenerSession: listenerSession(w), SessionExpiresAt: zoned(w.SessionExpiresAt, loc),
		CreatedAt: api.FormatZoned(w.CreatedAt, loc), UpdatedAt: api.FormatZoned(w.UpdatedAt, loc),
		Secret: secret,
	}
}

// visible tells whether c may see w: a listener only by its person and the owner.
func visible(c auth.Caller, w storage.Webhook) bool {
	if w.Kind != KindListener || w.ListenerPersonID == nil {
		return true
	}
	return c.IsOwner || *w.ListenerPersonID == c.PersonID
}

// validate checks the fields of a create or replace (spec 3 §4.5); people are checked later,
// against the tenant, inside the transaction.
func (s *Service) validate(url, description *string, events, people []string) []api.Failure {
	var fs []api.Failure
	raw := ""
	if url != nil {
		raw = *url
	}
	if msg := s.CheckURL(raw); msg != "" {
		fs = append(fs, apierr.Field("Url", msg, url, "", nil))
	}
	if description != nil && utf8.RuneCountInString(*description) > MaxDescription {
		fs = append(fs, apierr.Field("Description", MsgDescriptionTooLong, *description, "", nil))
	}
	switch {
	case len(events) == 0:
		fs = append(fs, apierr.Field("EnabledEvents", MsgNoEventTypes, events, "", nil))
	case len(events) > 1 && containsString(events, "*"):
		fs = append(fs, apierr.Field("EnabledEvents", MsgWildcardAlone, events, "", nil))
	default:
		for i, e := range events {
			if _, ok := Lookup(e); !ok && e != "*" {
				fs = append(fs, unknownType(fmt.Sprintf("EnabledEvents[%d]", i), e, e, false))
			}
		}
	}
	if len(people) > MaxPeoplePerWebhook {
		fs = append(fs, apierr.Field("PersonIds", MsgTooManyPeople, len(people), "", nil))
	}
	return fs
}

func containsString(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// checkPeople answers 400 when a person of the filter is not in the tenant.
func checkPeople(tx storage.Tx, tenant string, people []string) error {
	for _, id := range people {
		if _, err := tx.People(tenant).Get(id); errors.Is(err, storage.ErrNotFound) {
			return apierr.BadRequest(MsgPersonNotValid)
		} else if err != nil {
			return err
		}
	}
	return nil
}

func nilIfEmpty(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	return list
}

// Create makes a URL webhook and answers it with its secret (201).
func (s *Service) Create(ctx context.Context, c auth.Caller, in api.WebhookCreate) (api.Webhook, error) {
	if err := requireManage(c); err != nil {
		return api.Webhook{}, err
	}
	if fs := s.validate(in.URL, in.Description, in.EnabledEvents, in.PersonIDs); len(fs) > 0 {
		return api.Webhook{}, apierr.Invalid(fs...)
	}
	unlock, err := s.lock(ctx, c.TenantID)
	if err != nil {
		return api.Webhook{}, err
	}
	defer unlock()
	now := s.Now().UTC()
	secret := s.NewSecret()
	w := storage.Webhook{
		ID: ids.New(now), TenantID: c.TenantID, Kind: KindURL, URL: in.URL, EnabledEvents: in.EnabledEvents,
		PersonIDs: nilIfEmpty(in.PersonIDs), Status: StatusEnabled, CreatedAt: now, UpdatedAt: now,
	}
	if in.Description != nil {
		w.Description = *in.Description
	}
	w.Secret = s.Keys.Seal([]byte(secret), secretContext(c.TenantID, w.ID))
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		if err := checkPeople(tx, c.TenantID, w.PersonIDs); err != nil {
			return err
		}
		all, err := tx.Webhooks(c.TenantID).All()
		if err != nil {
			return err
		}
		n := 0
		for _, h := range all {
			if h.Kind == KindURL {
				n++
			}
		}
		if n >= MaxURLWebhooks {
			return apierr.BadRequest(MsgMaxWebhooks)
		}
		return tx.Webhooks(c.TenantID).Put(w)
	})
	if err != nil {
		return api.Webhook{}, err
	}
	return toAPI(w, c.Zone, secret), nil
}

// List answers a page of webhooks in creation order, listeners included where visible.
func (s *Service) List(ctx context.Context, c auth.Caller, page, size int) (api.PagedList[api.Webhook], error) {
	if err := requireManage(c); err != nil {
		return api.PagedList[api.Webhook]{}, err
	}
	all, err := s.visibleWebhooks(ctx, c)
	if err != nil {
		return api.PagedList[api.Webhook]{}, err
	}
	var items []api.Webhook
	for i := (page - 1) * size; i < len(all) && len(items) < size; i++ {
		items = append(items, toAPI(all[i], c.Zone, ""))
	}
	return api.NewPage(items, page, size, len(all)), nil
}

// All answers every webhook the caller may see, for load queries.
func (s *Service) All(ctx context.Context, c auth.Caller) ([]*api.Webhook, error) {
	if err := requireManage(c); err != nil {
		return nil, err
	}
	all, err := s.visibleWebhooks(ctx, c)
	out := make([]*api.Webhook, len(all))
	for i, w := range all {
		v := toAPI(w, c.Zone, "")
		out[i] = &v
	}
	return out, err
}

func (s *Service) visibleWebhooks(ctx context.Context, c auth.Caller) ([]storage.Webhook, error) {
	var out []storage.Webhook
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		all, err := tx.Webhooks(c.TenantID).All()
		for _, w := range all {
			if visible(c, w) {
				out = append(out, w)
			}
		}
		return err
	})
	return out, err
}

// find reads a webhook the caller may see. A malformed id answers "Not Found" as a route that
// does not match; an absent or invisible one "No such resource".
func find(tx storage.Tx, c auth.Caller, id string) (storage.Webhook, error) {
	if !isGUID(id) {
		return storage.Webhook{}, apierr.NotFoundText(apierr.DetailsNotFound)
	}
	w, err := tx.Webhooks(c.TenantID).Get(strings.ToLower(id))
	if errors.Is(err, storage.ErrNotFound) || (err == nil && !visible(c, w)) {
		return storage.Webhook{}, apierr.NotFound(id)
	}
	return w, err
}

// Get answers one webhook without its secret.
func (s *Service) Get(ctx context.Context, c auth.Caller, id string) (api.Webhook, error) {
	if err := requireManage(c); err != nil {
		return api.Webhook{}, err
	}
	var w storage.Webhook
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		w, err = find(tx, c, id)
		return err
	})
	if err != nil {
		return api.Webhook{}, err
	}
	return toAPI(w, c.Zone, ""), nil
}

// Replace is the PUT of the full model; status omitted keeps the state.
func (s *Service) Replace(ctx context.Context, c auth.Caller, id string, in api.WebhookUpdate) (api.Webhook, error) {
	if err := requireManage(c); err != nil {
		return api.Webhook{}, err
	}
	if !isGUID(id) {
		return api.Webhook{}, apierr.NotFoundText(apierr.DetailsNotFound)
	}
	var fs []api.Failure
	if in.ID == nil || *in.ID == "" {
		fs = append(fs, apierr.Field("Id", "'Id' no debería estar vacío.", in.ID, "NotEmptyValidator", nil))
	} else if !strings.EqualFold(*in.ID, id) {
		fs = append(fs, apierr.Field("id", MsgIDsMismatch, *in.ID, "", nil))
	}
	fs = append(fs, s.validate(in.URL, in.Description, in.EnabledEvents, in.PersonIDs)...)
	if in.Status != nil && *in.Status != StatusEnabled && *in.Status != StatusDisabled {
		fs = append(fs, apierr.Field("Status", MsgStatusInvalid, *in.Status, "", nil))
	}
	if len(fs) > 0 {
		return api.Webhook{}, apierr.Invalid(fs...)
	}
	unlock, err := s.lock(ctx, c.TenantID)
	if err != nil {
		return api.Webhook{}, err
	}
	defer unlock()
	var w storage.Webhook
	var more bool
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		var err error
		if w, err = find(tx, c, id); err != nil {
			return err
		}
		if w.Kind == KindListener {
			return apierr.BadRequest(MsgListenerNotEditable)
		}
		if err := checkPeople(tx, c.TenantID, in.PersonIDs); err != nil {
			return err
		}
		now := s.Now().UTC()
		w.URL, w.EnabledEvents, w.PersonIDs, w.UpdatedAt = in.URL, in.EnabledEvents, nilIfEmpty(in.PersonIDs), now
		w.Description = ""
		if in.Description != nil {
			w.Description = *in.Description
		}
		more = false
		if in.Status != nil && *in.Status != w.Status {
			if *in.Status == StatusDisabled {
				more, err = s.disable(tx, &w, ReasonManual, now)
				return err
			}
			w.Status, w.DisabledReason, w.DisabledAt, w.FailingSince = StatusEnabled, nil, nil, nil
		}
		return tx.Webhooks(c.TenantID).Put(w)
	})
	if err != nil {
		return api.Webhook{}, err
	}
	s.hookChanged(w.TenantID, w.ID)
	if more {
		if err := s.closeRest(context.WithoutCancel(ctx), w.TenantID, w.ID, "WebhookDisabled"); err != nil {
			return api.Webhook{}, err
		}
	}
	return toAPI(w, c.Zone, ""), nil
}

// disable turns a webhook off for a reason and closes its pending deliveries (the first slice
// in tx; more tells that closeRest has the rest to close).
func (s *Service) disable(tx storage.Tx, w *storage.Webhook, reason string, now time.Time) (more bool, err error) {
	w.Status, w.DisabledReason, w.DisabledAt, w.UpdatedAt = StatusDisabled, &reason, &now, now
	if err := tx.Webhooks(w.TenantID).Put(*w); err != nil {
		return false, err
	}
	return closePending(tx, w.TenantID, w.ID, "WebhookDisabled", now)
}

// closeSlice is how many pending deliveries one transaction closes at most: a webhook disabled
// with a large backlog holds the database's writer one short slice at a time.
var closeSlice = 1000

// closePending ends up to closeSlice of a webhook's pending deliveries unsent, oldest first;
// lastError says why. It tells whether more are left (closeRest closes them).
func closePending(tx storage.Tx, tenant, webhookID, why string, now time.Time) (more bool, err error) {
	pending, err := tx.Deliveries(tenant).Pending(webhookID, closeSlice+1)
	if err != nil {
		return false, err
	}
	if more = len(pending) > closeSlice; more {
		pending = pending[:closeSlice]
	}
	for _, d := range pending {
		d.Status, d.LastError, d.UpdatedAt = DeliveryFailed, &why, now
		if err := tx.Deliveries(tenant).Put(d); err != nil {
			return false, err
		}
	}
	return more, nil
}

// closeRest closes what closePending left of a webhook's pending deliveries, a slice per
// transaction, while the webhook stays disabled (or deleted, for WebhookDeleted). What a stop
// leaves pending the engine closes when it comes due.
func (s *Service) closeRest(ctx context.Context, tenant, webhookID, why string) error {
	for more := true; more; {
		err := s.Store.Update(ctx, func(tx storage.Tx) error {
			more = false
			w, err := tx.Webhooks(tenant).Get(webhookID)
			switch {
			case errors.Is(err, storage.ErrNotFound):
			case err != nil:
				return err
			case w.Status == StatusEnabled || why == "WebhookDeleted":
				return nil // enabled again, or made again: what is left is sent
			}
			more, err = closePending(tx, tenant, webhookID, why, s.Now().UTC())
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Delete removes a webhook; its pending deliveries close and its delivery log stays.
func (s *Service) Delete(ctx context.Context, c auth.Caller, id string) error {
	if err := requireManage(c); err != nil {
		return err
	}
	unlock, err := s.lock(ctx, c.TenantID)
	if err != nil {
		return err
	}
	defer unlock()
	var deleted string
	var more bool
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		w, err := find(tx, c, id)
		if err != nil {
			return err
		}
		if more, err = closePending(tx, c.TenantID, w.ID, "WebhookDeleted", s.Now().UTC()); err != nil {
			return err
		}
		deleted = w.ID
		return tx.Webhooks(c.TenantID).Delete(w.ID)
	})
	if err != nil {
		return err
	}
	s.hookChanged(c.TenantID, deleted)
	if more {
		return s.closeRest(context.WithoutCancel(ctx), c.TenantID, deleted, "WebhookDeleted")
	}
	return nil
}

// RotateSecret gives a webhook a new secret; the old one keeps signing for 24 hours.
func (s *Service) RotateSecret(ctx context.Context, c auth.Caller, id string) (api.Webhook, error) {
	if err := requireManage(c); err != nil {
		return api.Webhook{}, err
	}
	unlock, err := s.lock(ctx, c.TenantID)
	if err != nil {
		return api.Webhook{}, err
	}
	defer unlock()
	secret := s.NewSecret()
	var w storage.Webhook
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		var err error
		if w, err = find(tx, c, id); err != nil {
			return err
		}
		old, err := s.Keys.Open(w.Secret, secretContext(w.TenantID, w.ID))
		if err != nil {
			return err
		}
		now := s.Now().UTC()
		until := now.Add(SecretOverlap)
		w.PreviousSecret = s.Keys.Seal(old, previousContext(w.TenantID, w.ID))
		w.PreviousSecretUntil = &until
		w.Secret = s.Keys.Seal([]byte(secret), secretContext(w.TenantID, w.ID))
		w.UpdatedAt = now
		return tx.Webhooks(c.TenantID).Put(w)
	})
	if err != nil {
		return api.Webhook{}, err
	}
	s.hookChanged(w.TenantID, w.ID)
	return toAPI(w, c.Zone, secret), nil
}

// signingSecrets are the secrets that sign a delivery to w at now: the current one, and the
// previous one during the 24 hours after a rotation.
// previousSigns tells whether a rotated-out secret still signs at now.
func previousSigns(sealed []byte, until *time.Time, now time.Time) bool {
	return len(sealed) > 0 && until != nil && now.Before(*until)
}

func (s *Service) signingSecrets(w storage.Webhook, now time.Time) ([]string, error) {
	cur, err := s.Keys.Open(w.Secret, secretContext(w.TenantID, w.ID))
	if err != nil {
		return nil, err
	}
	out := []string{string(cur)}
	if previousSigns(w.PreviousSecret, w.PreviousSecretUntil, now) {
		prev, err := s.Keys.Open(w.PreviousSecret, previousContext(w.TenantID, w.ID))
		if err != nil {
			return nil, err
		}
		out = append(out, string(prev))
	}
	return out, nil
}

// Test sends a webhook.test event to this webhook only: one signed attempt (202).
func (s *Service) Test(ctx context.Context, c auth.Caller, id string) (api.WebhookTested, error) {
	if err := requireManage(c); err != nil {
		return api.WebhookTested{}, err
	}
	var out api.WebhookTested
	err := s.enqueue(ctx, c.TenantID, func(tx storage.Tx) error {
		w, err := find(tx, c, id)
		if err != nil {
			return err
		}
		if w.Kind == KindListener {
			return apierr.BadRequest(MsgListenerNotEditable)
		}
		if w.Status != StatusEnabled {
			return apierr.BadRequest(MsgDisabledTest)
		}
		now := s.Now().UTC()
		e, err := newEvent(c.TenantID, TypeTest, w.ID, nil, true, now)
		if err != nil {
			return err
		}
		if err := tx.Events(c.TenantID).Put(e); err != nil {
			return err
		}
		d := newDelivery(c.TenantID, w, e, DeliveryTest, now)
		out = api.WebhookTested{EventID: e.ID, DeliveryID: d.ID}
		return tx.Deliveries(c.TenantID).Put(d)
	})
	return out, err
}

// Deliveries answers a webhook's delivery log, newest first, last 30 days; also for a deleted
// webhook whose log remains. Its count is kept and its page read by key: the cost does not grow
// with the log.
func (s *Service) Deliveries(ctx context.Context, c auth.Caller, id string, page, size int) (api.PagedList[api.Delivery], error) {
	items := []api.Delivery{}
	total := 0
	err := s.withLog(ctx, c, id, func(tx storage.Tx, hook string) error {
		ds, n, err := tx.Deliveries(c.TenantID).ByWebhook(hook, s.Now().Add(-Retention), (page-1)*size, size)
		for _, d := range ds {
			items = append(items, deliveryToAPI(d, c.Zone))
		}
		total = n
		return err
	})
	if err != nil {
		return api.PagedList[api.Delivery]{}, err
	}
	return api.NewPage(items, page, size, total), nil
}

// AllDeliveries answers a webhook's whole delivery log of the last 30 days, for load queries.
func (s *Service) AllDeliveries(ctx context.Context, c auth.Caller, id string) ([]*api.Delivery, error) {
	var out []*api.Delivery
	err := s.eachDelivery(ctx, c, id, func(d storage.Delivery) {
		v := deliveryToAPI(d, c.Zone)
		out = append(out, &v)
	})
	return out, err
}

// eachDelivery calls fn for a webhook's deliveries of the last 30 days, newest first.
func (s *Service) eachDelivery(ctx context.Context, c auth.Caller, id string, fn func(storage.Delivery)) error {
	cutoff := s.Now().Add(-Retention)
	return s.withLog(ctx, c, id, func(tx storage.Tx, hook string) error {
		return tx.Deliveries(c.TenantID).AllByWebhook(hook, func(d storage.Delivery) bool {
			if d.CreatedAt.Before(cutoff) {
				return false
			}
			fn(d)
			return true
		})
	})
}

// withLog calls fn in a read transaction with the id of the webhook whose delivery log is asked
// for: a webhook of the caller's tenant, or a deleted one whose log remains.
func (s *Service) withLog(ctx context.Context, c auth.Caller, id string, fn func(tx storage.Tx, hook string) error) error {
	if err := requireManage(c); err != nil {
		return err
	}
	return s.Store.View(ctx, func(tx storage.Tx) error {
		w, err := find(tx, c, id)
		if err != nil {
			e, ok := apierr.As(err)
			if !ok || e.Status != http.StatusNotFound || !isGUID(id) {
				return err
			}
			// a deleted webhook keeps its log; one that never existed has none
			if _, n, _ := tx.Deliveries(c.TenantID).ByWebhook(strings.ToLower(id), time.Time{}, 0, 0); n == 0 {
				return err
			}
			w.ID = strings.ToLower(id)
		}
		return fn(tx, w.ID)
	})
}

func deliveryToAPI(d storage.Delivery, loc *time.Location) api.Delivery {
	out := api.Delivery{
		ID: d.ID, CreatedAt: api.FormatZoned(d.CreatedAt, loc), EventID: d.EventID, Kind: d.Kind, Status: d.Status,
		Attempts: d.Attempts, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
		LastResponseExcerpt: d.LastResponseExcerpt, WebhookID: d.WebhookID, EventType: d.EventType,
		NextAttemptAt: zoned(d.NextAttemptAt, loc), History: []api.Attempt{}, LastErrorDetail: orNull(d.LastErrorDetail),
	}
	for _, a := range d.History {
		out.History = append(out.History, api.Attempt{At: api.FormatZoned(a.At, loc), StatusCode: a.StatusCode, DurationMS: a.DurationMS,
			Error: orNull(a.Error), ErrorDetail: orNull(a.ErrorDetail)})
	}
	return out
}

// orNull is s, or null when empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
