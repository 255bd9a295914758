package downloadrequests

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// Limits of the worker when its fields are 0.
const (
	// DefaultConcurrency is how many requests take a step at once, all tenants together (each
	// step mostly waits for the SAT: four tenants with hung exchanges still leave room).
	DefaultConcurrency = 8
	// DefaultPerTenant is how many requests of one tenant take a step at once.
	DefaultPerTenant = 2
	// DefaultCallTimeout bounds one SAT call but a download.
	DefaultCallTimeout = 2 * time.Minute
	// DefaultDownloadTimeout bounds the download of one package (SAT's packages are up to
	// 200,000 CFDIs).
	DefaultDownloadTimeout = 30 * time.Minute
)

// turns are the steps running: each request's step is claimed while it runs, so no request
// takes two steps at once (the server holds the database file alone, so memory is enough).
type turns struct {
	mu       sync.Mutex
	running  map[ref]bool
	byTenant map[string]int
	// after is the tenant served last: the next dispatch starts with the one after it.
	after string
	steps sync.WaitGroup
}

func (w *Worker) concurrency() int {
	if w.Concurrency > 0 {
		return w.Concurrency
	}
	return DefaultConcurrency
}

func (w *Worker) perTenant() int {
	if w.PerTenant > 0 {
		return w.PerTenant
	}
	return DefaultPerTenant
}

// due lists, per tenant in creation order, the active requests whose next attempt has come and
// that are not running (from the active index alone: no request is read).
func (w *Worker) due(ctx context.Context) (map[string][]string, error) {
	now := w.now()
	out := map[string][]string{}
	err := w.Store.View(ctx, func(tx storage.Tx) error {
		active, err := tx.ActiveDownloadRequests()
		if err != nil {
			return err
		}
		for _, a := range active {
			if !now.Before(a.Next) && !w.turns.isRunning(ref{a.TenantID, a.RequestID}) {
				out[a.TenantID] = append(out[a.TenantID], a.RequestID)
			}
		}
		return nil
	})
	return out, err
}

// ref names a request of a tenant.
type ref struct{ tenant, id string }

func (t *turns) isRunning(a ref) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running[a]
}

// dispatch starts a step for the requests that are due, within the limits: round robin over
// the tenants (from the one after the tenant served last), one request of each in turn, at most
// PerTenant of a tenant and Concurrency in all running. A step that ends wakes the worker, so
// the next request starts at once. It answers the steps it started.
func (w *Worker) dispatch(ctx context.Context) (*sync.WaitGroup, error) {
	started := &sync.WaitGroup{}
	queues, err := w.due(ctx)
	if err != nil || len(queues) == 0 {
		return started, err
	}
	tenants := make([]string, 0, len(queues))
	for t := range queues {
		tenants = append(tenants, t)
	}
	slices.Sort(tenants)

	t := &w.turns
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running == nil {
		t.running, t.byTenant = map[ref]bool{}, map[string]int{}
	}
	i, _ := slices.BinarySearch(tenants, t.after+"\x00")
	order := slices.Concat(tenants[i:], tenants[:i])
	limit, per := w.concurrency(), w.perTenant()
	for more := true; more && len(t.running) < limit; {
		more = false
		for _, tenant := range order {
			if len(t.running) >= limit {
				break
			}
			q := queues[tenant]
			if len(q) == 0 || t.byTenant[tenant] >= per {
				continue
			}
			a := ref{tenant, q[0]}
			queues[tenant] = q[1:]
			if t.running[a] {
				continue // started meanwhile
			}
			t.running[a] = true
			t.byTenant[tenant]++
			t.after = tenant
			more = true
			started.Add(1)
			t.steps.Add(1)
			go w.take(ctx, a, started)
		}
	}
	return started, nil
}

// take runs one step of a claimed request, then frees its turn and wakes the worker.
func (w *Worker) take(ctx context.Context, a ref, started *sync.WaitGroup) {
	defer started.Done()
	defer w.turns.steps.Done()
	defer w.Wake()
	defer w.turns.release(a)
	if err := w.step(ctx, a); err != nil && ctx.Err() == nil {
		w.log().Error("download request step", "tenant", a.tenant, "request", a.id, "err", err)
	}
}

func (t *turns) release(a ref) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.running, a)
	if t.byTenant[a.tenant]--; t.byTenant[a.tenant] <= 0 {
		delete(t.byTenant, a.tenant)
	}
}
