package server

import (
	"context"
	"net/http"
	"sync"
)

// maxHeavy is how many load queries that read a whole collection into memory (a catalog with
// options, a webhook's 30-day log) run at once across tenants.
const maxHeavy = 4

// heavyGate bounds the load queries that read a whole collection into memory: at most one per
// tenant at once and maxHeavy across tenants, so one tenant's loads cannot take the memory or
// the slots of the others; a caller waits for its turn, or until its request goes away.
type heavyGate struct {
	all     chan struct{}
	mu      sync.Mutex
	tenants map[string]*tenantSlot
}

type tenantSlot struct {
	ch    chan struct{}
	users int // holding or waiting: the entry goes when none is left
}

func newHeavyGate(n int) *heavyGate {
	return &heavyGate{all: make(chan struct{}, n), tenants: map[string]*tenantSlot{}}
}

// acquire waits for the tenant's turn and then for a slot; the release gives both back.
func (g *heavyGate) acquire(ctx context.Context, tenant string) (release func(), err error) {
	g.mu.Lock()
	t := g.tenants[tenant]
	if t == nil {
		t = &tenantSlot{ch: make(chan struct{}, 1)}
		g.tenants[tenant] = t
	}
	t.users++
	g.mu.Unlock()
	leave := func() {
		g.mu.Lock()
		if t.users--; t.users == 0 {
			delete(g.tenants, tenant)
		}
		g.mu.Unlock()
	}
	if !take(ctx, t.ch) {
		leave()
		return nil, ctx.Err()
	}
	if !take(ctx, g.all) {
		<-t.ch
		leave()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-g.all
			<-t.ch
			leave()
		})
	}, nil
}

// take puts a token in ch: at once when there is room, else when there is before ctx ends.
func take(ctx context.Context, ch chan struct{}) bool {
	select {
	case ch <- struct{}{}:
		return true
	default:
	}
	select {
	case ch <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// heavyLoad runs a whole-collection load query in its turn (heavyGate), holding the turn until
// its answer is written: the answer's memory is what the gate bounds.
func (s *Server) heavyLoad(r *http.Request, load func() (any, error)) (any, error) {
	release, err := s.heavy.acquire(r.Context(), caller(r).TenantID)
	if err != nil {
		return nil, err
	}
	v, err := load()
	b, ok := v.(bare)
	if err != nil || !ok {
		release()
		return v, err
	}
	b.done = release
	return b, nil
}
