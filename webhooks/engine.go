package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/webhook"
)

// RetrySchedule is the wait before each automatic retry: the first attempt goes at once, the
// second after 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 attempts over about 28 h).
// Each wait varies by up to ±10% so retries of many deliveries spread out; a Retry-After header
// lengthens a wait up to MaxRetryAfter, never shortens it.
var RetrySchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Engine limits and rules.
const (
	MaxRetryAfter  = 10 * time.Hour
	FailingTooLong = 5 * 24 * time.Hour // failing continuously this long disables a webhook
	maxHistory     = 20                 // attempts kept per delivery
)

// SendFunc makes one attempt (webhook.Send through the guarded client, in production).
type SendFunc func(ctx context.Context, url string, h http.Header, body []byte) webhook.Attempt

// Engine sends the outbox: it claims due deliveries, signs and sends them with a pool of
// workers, and records each outcome. A claim moves the delivery a lease ahead in the outbox, so
// a crash at any point makes it due again: delivery is at least once, with the same webhook-id.
type Engine struct {
	Svc     *Service
	Send    SendFunc
	Log     *slog.Logger
	Workers int           // concurrent attempts; default and at most webhook.MaxConnsPerHost
	Lease   time.Duration // how long a claim lasts; default 2 min (an attempt times out at 15 s)

	wakeCh   chan struct{}
	inFlight atomic.Int64
}

// NewEngine returns an engine; call Run to start it. It sets svc.Wake.
func NewEngine(svc *Service, send SendFunc, log *slog.Logger) *Engine {
	e := &Engine{Svc: svc, Send: send, Log: log, Workers: webhook.MaxConnsPerHost, Lease: 2 * time.Minute, wakeCh: make(chan struct{}, 1)}
	svc.Wake = e.Wake
	return e
}

// Wake tells the engine a delivery may be due now.
func (e *Engine) Wake() {
	select {
	case e.wakeCh <- struct{}{}:
	default:
	}
}

type claim struct {
	ref   storage.DeliveryRef
	lease time.Time
}

// Run sends deliveries until ctx ends, then lets the attempts in flight finish, gives back the
// claims not started, and returns.
func (e *Engine) Run(ctx context.Context) error {
	e.Workers = min(max(e.Workers, 1), webhook.MaxConnsPerHost) // more would queue for connections
	jobs := make(chan claim, e.Workers)
	var wg sync.WaitGroup
	for range e.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				e.process(c)
				e.inFlight.Add(-1)
				e.Wake()
			}
		}()
	}
	if n, err := e.releaseClaims(ctx); err != nil {
		e.Log.Error("webhook outbox: release stale claims", "err", err)
	} else if n > 0 {
		e.Log.Info("webhook outbox: deliveries claimed before a stop are due again", "deliveries", n)
	}
	purge := time.NewTicker(time.Hour)
	defer purge.Stop()
	e.purge(ctx)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for ctx.Err() == nil {
		free := int64(e.Workers) - e.inFlight.Load()
		var next time.Time
		if free > 0 {
			claims, n, err := e.claim(ctx, int(free))
			if err != nil && ctx.Err() == nil {
				e.Log.Error("webhook outbox: claim", "err", err)
			}
			next = n
			for _, c := range claims {
				e.inFlight.Add(1)
				jobs <- c
			}
			if len(claims) == int(free) {
				continue // more may be due: claim again as workers free up
			}
		}
		wait := time.Second * 30
		if !next.IsZero() {
			wait = min(wait, max(time.Until(next), time.Millisecond))
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
		case <-e.wakeCh:
		case <-timer.C:
		case <-purge.C:
			e.purge(ctx)
		}
	}
	close(jobs)
	wg.Wait()
	return nil
}

// claim takes up to n due deliveries, moving each a lease ahead; next is the earliest due time
// still waiting.
func (e *Engine) claim(ctx context.Context, n int) ([]claim, time.Time, error) {
	var out []claim
	var next time.Time
	now := e.Svc.Now().UTC()
	lease := now.Add(e.Lease)
	err := e.Svc.Store.Update(context.WithoutCancel(ctx), func(tx storage.Tx) error {
		out = out[:0]
		refs, err := tx.Outbox().Due(now, n)
		if err != nil {
			return err
		}
		for _, r := range refs {
			d, err := tx.Deliveries(r.TenantID).Get(r.DeliveryID)
			if err != nil {
				return err
			}
			d.NextAttemptAt, d.Claimed = &lease, true
			if err := tx.Deliveries(r.TenantID).Put(d); err != nil {
				return err
			}
			out = append(out, claim{ref: r, lease: lease})
		}
		if due, ok := tx.Outbox().Next(); ok && len(refs) < n {
			next = due
		}
		return nil
	})
	return out, next, err
}

// releaseClaims makes every claimed delivery due now. Only one process opens the database, so
// at start every claim belongs to a process that stopped (or crashed) before recording the
// attempt: waiting for its lease would only delay the delivery.
func (e *Engine) releaseClaims(ctx context.Context) (int, error) {
	n := 0
	now := e.Svc.Now().UTC()
	err := e.Svc.Store.Update(ctx, func(tx storage.Tx) error {
		n = 0
		refs, err := tx.Outbox().Due(time.Unix(1<<40, 0), int(^uint(0)>>1))
		if err != nil {
			return err
		}
		for _, r := range refs {
			d, err := tx.Deliveries(r.TenantID).Get(r.DeliveryID)
			if err != nil {
				return err
			}
			if !d.Claimed {
				continue
			}
			d.Claimed, d.NextAttemptAt = false, &now
			if err := tx.Deliveries(r.TenantID).Put(d); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// process makes one attempt of a claimed delivery and records it.
func (e *Engine) process(c claim) {
	ctx := context.Background()
	s := e.Svc
	var d storage.Delivery
	var w storage.Webhook
	var ev storage.Event
	var hookGone bool
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if d, err = tx.Deliveries(c.ref.TenantID).Get(c.ref.DeliveryID); err != nil {
			return err
		}
		if ev, err = tx.Events(c.ref.TenantID).Get(d.EventID); err != nil {
			return err
		}
		w, err = tx.Webhooks(c.ref.TenantID).Get(d.WebhookID)
		if errors.Is(err, storage.ErrNotFound) {
			hookGone, err = true, nil
		}
		return err
	})
	if err != nil {
		e.Log.Error("webhook outbox: read delivery", "tenant", c.ref.TenantID, "delivery", c.ref.DeliveryID, "err", err)
		return // the claim expires and the delivery is tried again
	}
	if !stillClaimed(d, c.lease) {
		return
	}
	isListener := !hookGone && w.Kind == KindListener
	if hookGone || w.Status != StatusEnabled || (w.URL == nil && !isListener) {
		why := "WebhookDisabled"
		if hookGone {
			why = "WebhookDeleted"
		}
		e.record(c, func(d *storage.Delivery, _ *storage.Webhook, now time.Time, claimed bool) {
			if claimed {
				d.Status, d.LastError, d.UpdatedAt = DeliveryFailed, &why, now
			}
		})
		return
	}
	now := s.Now().UTC()
	secrets, err := s.signingSecrets(w, now)
	var a webhook.Attempt
	if err == nil {
		var sig string
		if sig, err = webhook.Sign(secrets, ev.ID, now, ev.Body); err == nil {
			if isListener {
				a = e.toListener(ctx, w, d, ev, webhook.Headers(ev.ID, now, sig))
			} else {
				a = e.Send(ctx, *w.URL, webhook.Headers(ev.ID, now, sig), ev.Body)
			}
		}
	}
	if err != nil {
		e.Log.Error("webhook outbox: sign", "tenant", c.ref.TenantID, "webhook", w.ID, "err", err)
		return
	}
	e.Log.Debug("webhook attempt", "delivery", d.ID, "event", ev.ID, "status", a.StatusCode, "error", a.Error, "ms", a.Duration.Milliseconds())
	countsForHealth := !ev.Synthetic && d.Kind != DeliveryTest && !isListener
	// a listener without a forward target acknowledges with no status and no error: delivered
	ok := a.OK() || (isListener && a.Error == "" && a.StatusCode == nil)
	jitter := 0.9 + rand.Float64()*0.2 // chosen outside the transaction, which may run twice
	e.record(c, func(d *storage.Delivery, w *storage.Webhook, now time.Time, claimed bool) {
		d.Attempts++
		d.LastStatusCode, d.LastResponseExcerpt, d.UpdatedAt = a.StatusCode, a.Excerpt, now
		d.LastError = nil
		if a.Error != "" {
			msg := a.Error
			d.LastError = &msg
		}
		d.History = append(d.History, storage.Attempt{At: now, StatusCode: a.StatusCode, Error: a.Error, DurationMS: a.Duration.Milliseconds()})
		if len(d.History) > maxHistory {
			d.History = d.History[len(d.History)-maxHistory:]
		}
		if !claimed {
			return // closed while in flight: the attempt is logged, the state stays closed
		}
		gone := a.Error == "" && a.StatusCode != nil && *a.StatusCode == http.StatusGone
		switch {
		case ok:
			d.Status = DeliveryOK
		case gone || d.Attempts >= d.MaxAttempts:
			d.Status = DeliveryFailed
		default:
			next := now.Add(retryDelay(d.Attempts, a.RetryAfter, jitter))
			d.NextAttemptAt = &next
		}
		if w == nil {
			return
		}
		if gone && w.Status == StatusEnabled {
			reason := ReasonGone
			w.Status, w.DisabledReason, w.DisabledAt, w.UpdatedAt = StatusDisabled, &reason, &now, now
		}
		if countsForHealth {
			if ok {
				w.FailingSince = nil
			} else if w.FailingSince == nil {
				w.FailingSince = &now
			} else if now.Sub(*w.FailingSince) >= FailingTooLong && w.Status == StatusEnabled {
				reason := ReasonFailing
				w.Status, w.DisabledReason, w.DisabledAt, w.UpdatedAt = StatusDisabled, &reason, &now, now
			}
		}
	})
}

// toListener hands a delivery to its person's open listen session and waits for the client's
// acknowledgement, which becomes the attempt's outcome.
func (e *Engine) toListener(ctx context.Context, w storage.Webhook, d storage.Delivery, ev storage.Event, h http.Header) webhook.Attempt {
	start := time.Now()
	if e.Svc.Listeners == nil || w.ListenerPersonID == nil {
		return webhook.Attempt{Error: listener.ErrNotConnected.Error()}
	}
	headers := map[string]string{}
	for k := range h {
		headers[strings.ToLower(k)] = h.Get(k)
	}
	ack, err := e.Svc.Listeners.Deliver(ctx, w.TenantID, *w.ListenerPersonID, listener.Event{
		DeliveryID: d.ID, EventID: ev.ID, EventType: ev.Type, Kind: d.Kind, Headers: headers, Body: string(ev.Body),
	})
	if err != nil {
		return webhook.Attempt{Error: err.Error(), Duration: time.Since(start)}
	}
	excerpt := ack.Excerpt
	if len(excerpt) > webhook.ExcerptBytes {
		excerpt = excerpt[:webhook.ExcerptBytes]
	}
	return webhook.Attempt{StatusCode: ack.StatusCode, Error: ack.Error, Excerpt: excerpt, Duration: time.Since(start)}
}

// stillClaimed tells whether a delivery is still pending under this claim (a disable, a
// delete or another claim after an expired lease changes that).
func stillClaimed(d storage.Delivery, lease time.Time) bool {
	return d.Status == DeliveryPending && d.Claimed && d.NextAttemptAt != nil && d.NextAttemptAt.Equal(lease)
}

// retryDelay is the wait after attempt n (1-based) of an automatic delivery.
func retryDelay(n int, retryAfter time.Duration, jitter float64) time.Duration {
	wait := RetrySchedule[min(n, len(RetrySchedule)-1)]
	wait = time.Duration(float64(wait) * jitter)
	if retryAfter > wait {
		wait = min(retryAfter, MaxRetryAfter)
	}
	return wait
}

// record applies an outcome to a claimed delivery (and its webhook) in one transaction. When
// the webhook becomes disabled, its other pending deliveries close too. A delivery closed while
// its attempt was in flight (its webhook disabled or deleted) is given to fn with claimed false,
// so the attempt that did happen is logged. fn may run twice.
func (e *Engine) record(c claim, fn func(d *storage.Delivery, w *storage.Webhook, now time.Time, claimed bool)) {
	s := e.Svc
	err := s.Store.Batch(context.Background(), func(tx storage.Tx) error {
		d, err := tx.Deliveries(c.ref.TenantID).Get(c.ref.DeliveryID)
		if err != nil {
			return err
		}
		claimed := stillClaimed(d, c.lease)
		if !claimed && !closedByWebhook(d) {
			return nil
		}
		now := s.Now().UTC()
		var wp *storage.Webhook
		w, err := tx.Webhooks(c.ref.TenantID).Get(d.WebhookID)
		switch {
		case err == nil:
			wp = &w
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
		before := storage.Webhook{}
		if wp != nil {
			before = w
		}
		fn(&d, wp, now, claimed)
		d.Claimed = false
		if err := tx.Deliveries(c.ref.TenantID).Put(d); err != nil {
			return err
		}
		if wp == nil || !webhookChanged(before, w) {
			return nil
		}
		if err := tx.Webhooks(c.ref.TenantID).Put(w); err != nil {
			return err
		}
		if before.Status == StatusEnabled && w.Status == StatusDisabled {
			return closePending(tx, w.TenantID, w.ID, "WebhookDisabled", now)
		}
		return nil
	})
	if err != nil {
		e.Log.Error("webhook outbox: record attempt", "tenant", c.ref.TenantID, "delivery", c.ref.DeliveryID, "err", err)
	}
}

// closedByWebhook tells whether a delivery was closed unsent because its webhook was disabled or
// deleted.
func closedByWebhook(d storage.Delivery) bool {
	return d.Status == DeliveryFailed && d.LastError != nil && (*d.LastError == "WebhookDisabled" || *d.LastError == "WebhookDeleted")
}

func webhookChanged(a, b storage.Webhook) bool {
	return a.Status != b.Status || !sameTime(a.FailingSince, b.FailingSince)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// purge deletes the events and deliveries older than the retention of every tenant.
func (e *Engine) purge(ctx context.Context) {
	n, err := e.Svc.Purge(ctx)
	if err != nil {
		e.Log.Error("purge of old events", "err", err)
	} else if n > 0 {
		e.Log.Info("purged old events and deliveries", "records", n)
	}
}

// Purge deletes events and deliveries older than 30 days, in every tenant.
func (s *Service) Purge(ctx context.Context) (int, error) {
	cutoff := s.Now().Add(-Retention)
	n := 0
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		tenants, err := tx.Tenants().List()
		if err != nil {
			return err
		}
		for _, t := range tenants {
			var failed error
			tx.Events(t.ID).Older(cutoff, func(ev storage.Event) bool {
				failed = tx.Events(t.ID).Delete(ev.ID)
				n++
				return failed == nil
			})
			if failed != nil {
				return failed
			}
			tx.Deliveries(t.ID).Older(cutoff, func(d storage.Delivery) bool {
				failed = tx.Deliveries(t.ID).Delete(d.ID)
				n++
				return failed == nil
			})
			if failed != nil {
				return failed
			}
		}
		return nil
	})
	return n, err
}
