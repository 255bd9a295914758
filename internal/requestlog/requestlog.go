// Package requestlog is each tenant's live API request log (GET /api/v4/logs/tail, `timbra logs
// tail`): the server publishes one Entry per authenticated request once it is answered, and
// every open tail of that tenant gets it. Memory is bounded: a few recent entries per tenant
// (shown to a tail when it opens) and a fixed buffer per tail. Publishing never waits: a tail
// whose buffer is full is dropped (it is told why and may open again), so a slow reader costs
// requests nothing.
//
// An Entry holds no secret: no bodies, no headers, the path without its query, and no values of
// the query, only its parameters' names.
package requestlog

import (
	"sync"

	"github.com/timbra-mx/timbra/internal/api"
)

// Entry is one answered request of a tenant.
type Entry = api.RequestLogEntry

// Sizes: recent entries kept per tenant, entries a tail may fall behind by before it is
// dropped, and tenants whose recent entries are kept (beyond that, those with no open tail go).
const (
	Recent      = 20
	TailBuffer  = 256
	MaxTenants  = 4096
	DropMessage = "El lector se quedó atrás: se descartó para no demorar las peticiones; vuelve a abrirlo."
)

// Tail is one open reader of a tenant's log. C yields the entries it may see; it is closed when
// the tail is dropped (Dropped says so), closed, or the hub closes.
type Tail struct {
	C       <-chan Entry
	c       chan Entry
	tenant  string
	person  string // "" sees every person's requests (the owner)
	dropped bool
	hub     *Hub
}

// Dropped tells, once C is closed, whether the tail was dropped for falling behind.
func (t *Tail) Dropped() bool {
	t.hub.mu.Lock()
	defer t.hub.mu.Unlock()
	return t.dropped
}

// Close ends the tail.
func (t *Tail) Close() {
	h := t.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(t)
}

type tenantLog struct {
	recent []Entry // a ring of Recent, oldest at next when full
	next   int
	tails  map[*Tail]struct{}
}

// Hub holds the tenants' logs and tails.
type Hub struct {
	mu      sync.Mutex
	tenants map[string]*tenantLog
	closed  bool
}

// New makes an empty hub.
func New() *Hub { return &Hub{tenants: map[string]*tenantLog{}} }

func (l *tenantLog) add(e Entry) {
	if len(l.recent) < Recent {
		l.recent = append(l.recent, e)
		return
	}
	l.recent[l.next] = e
	l.next = (l.next + 1) % Recent
}

func (l *tenantLog) ordered() []Entry {
	return append(append([]Entry(nil), l.recent[l.next:]...), l.recent[:l.next]...)
}

func visible(t *Tail, e Entry) bool { return t.person == "" || t.person == e.PersonID }

// Publish records an entry of a tenant and hands it to its tails without waiting: a tail whose
// buffer is full is dropped.
func (h *Hub) Publish(tenant string, e Entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	l := h.tenants[tenant]
	if l == nil {
		if len(h.tenants) >= MaxTenants {
			h.evict()
		}
		l = &tenantLog{tails: map[*Tail]struct{}{}}
		h.tenants[tenant] = l
	}
	l.add(e)
	for t := range l.tails {
		if !visible(t, e) {
			continue
		}
		select {
		case t.c <- e:
		default:
			t.dropped = true
			h.remove(t)
		}
	}
}

// evict forgets the recent entries of tenants with no open tail (under h.mu).
func (h *Hub) evict() {
	for k, l := range h.tenants {
		if len(l.tails) == 0 {
			delete(h.tenants, k)
		}
	}
}

// Open starts a tail of a tenant's log: person "" sees every request of the tenant, another
// value only that person's. The recent entries it may see come first.
func (h *Hub) Open(tenant, person string) *Tail {
	c := make(chan Entry, TailBuffer+Recent)
	t := &Tail{C: c, c: c, tenant: tenant, person: person, hub: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(c)
		return t
	}
	l := h.tenants[tenant]
	if l == nil {
		if len(h.tenants) >= MaxTenants {
			h.evict()
		}
		l = &tenantLog{tails: map[*Tail]struct{}{}}
		h.tenants[tenant] = l
	}
	for _, e := range l.ordered() {
		if visible(t, e) {
			c <- e
		}
	}
	l.tails[t] = struct{}{}
	return t
}

// remove ends a tail (under h.mu); a second call does nothing.
func (h *Hub) remove(t *Tail) {
	l := h.tenants[t.tenant]
	if l == nil {
		return
	}
	if _, ok := l.tails[t]; !ok {
		return
	}
	delete(l.tails, t)
	close(t.c)
}

// CloseAll ends every tail and refuses new ones (the server is stopping).
func (h *Hub) CloseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, l := range h.tenants {
		for t := range l.tails {
			h.remove(t)
		}
	}
}
