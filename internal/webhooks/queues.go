package webhooks

import (
	"context"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/storage"
)

// Queue is the state of one destination's deliveries.
type Queue struct {
	TenantID, WebhookID string
	storage.PendingStats
	Live
}

// live asks the engine, when one runs.
func (s *Service) live(tenant, webhook string) Live {
	if s.engine == nil {
		return Live{Concurrency: DefaultPerDestination}
	}
	return s.engine.Live(tenant, webhook)
}

// Queue answers a webhook's queue: its pending count and oldest (kept by the store, not
// counted), its attempts in flight and what it last answered.
func (s *Service) Queue(ctx context.Context, c auth.Caller, id string) (api.WebhookQueue, error) {
	if err := requireManage(c); err != nil {
		return api.WebhookQueue{}, err
	}
	var w storage.Webhook
	var st storage.PendingStats
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		if w, err = find(tx, c, id); err != nil {
			return err
		}
		st, err = tx.Deliveries(c.TenantID).PendingStats(w.ID)
		return err
	})
	if err != nil {
		return api.WebhookQueue{}, err
	}
	l := s.live(w.TenantID, w.ID)
	q := api.WebhookQueue{WebhookID: w.ID, Pending: st.Count, InFlight: l.InFlight, Concurrency: l.Concurrency, LastStatusCode: l.LastStatus}
	if !st.Oldest.IsZero() {
		q.OldestPendingAt = zoned(&st.Oldest, c.Zone)
		q.OldestPendingAgeSeconds = max(0, s.Now().Sub(st.Oldest).Round(time.Millisecond).Seconds())
	}
	if !l.LastAttemptAt.IsZero() {
		q.LastAttemptAt = zoned(&l.LastAttemptAt, c.Zone)
	}
	if l.LastError != "" {
		msg := l.LastError
		q.LastError, q.LastErrorAt = &msg, zoned(&l.LastErrorAt, c.Zone)
	}
	return q, nil
}

// Queues answers the queue of every destination with pending deliveries, of every tenant
// (the operator's metrics). Its cost grows with the destinations, not with the deliveries.
func (s *Service) Queues(ctx context.Context) ([]Queue, error) {
	var out []Queue
	err := s.Store.View(ctx, func(tx storage.Tx) error {
		out = out[:0]
		var failed error
		err := tx.Outbox().Destinations("", func(d storage.Destination) bool {
			st, err := tx.Deliveries(d.TenantID).PendingStats(d.WebhookID)
			if err != nil {
				failed = err
				return false
			}
			out = append(out, Queue{TenantID: d.TenantID, WebhookID: d.WebhookID, PendingStats: st})
			return true
		})
		if err != nil {
			return err
		}
		return failed
	})
	for i := range out {
		out[i].Live = s.live(out[i].TenantID, out[i].WebhookID)
	}
	return out, err
}
