package webhooks

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
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

	// DefaultPerDestination is how many attempts may be in flight to one destination (a URL
	// webhook or a listen session) at once.
	DefaultPerDestination = 8
	// DefaultPerTenant bounds the attempts in flight of one tenant, whatever its destinations.
	DefaultPerTenant = 128
	// DefaultInFlight bounds the attempts in flight of the whole engine.
	DefaultInFlight = 1024

	// MaxUnrecorded bounds the outcomes waiting for their commit: past it no attempt starts.
	// With the attempts in flight, it bounds what a crash sends twice.
	MaxUnrecorded = 1024
	// Outstanding bounds a destination's attempts in flight and outcomes waiting for their
	// commit together, as a multiple of PerDestination: what a crash may send twice to it.
	Outstanding = 64

	refillBatch = 64  // deliveries one destination reads from the outbox at a time
	recordBatch = 256 // outcomes recorded in one transaction, at most
	// recordLinger is how long the first outcome of a batch waits for others to share its
	// commit: fewer commits cost less than the wait (the attempt is already answered).
	recordLinger = 5 * time.Millisecond
)

// SendFunc makes one attempt (webhook.Send through the guarded client, in production).
type SendFunc func(ctx context.Context, url string, h http.Header, body []byte) webhook.Attempt

// Engine sends the outbox. Each destination (a webhook: a URL or a listen session) has its own
// queue, read from its part of the outbox (storage.Outbox.Due) without a write; the engine
// keeps in memory which deliveries it holds, so a claim costs no commit. At most
// PerDestination attempts run at once per destination, PerTenant per tenant and InFlight in
// all, and free slots go round robin over tenants, then over each tenant's destinations: a
// destination that is slow, hangs until its timeout or fails holds only its own slots. Outcomes
// are recorded in batches, one transaction each.
//
// Delivery is at least once, with the same webhook-id: a delivery leaves the outbox only in the
// transaction that records its outcome, so after a crash every delivery not yet recorded is
// sent again; those are at most the attempts in flight and the outcomes waiting for their
// commit: Outstanding × PerDestination to one destination, InFlight + MaxUnrecorded in all. Order is not guaranteed: a destination's deliveries start
// in due order, up to PerDestination at once, and a failed one is retried later while the
// next ones go on.
type Engine struct {
	Svc            *Service
	Send           SendFunc
	Log            *slog.Logger
	PerDestination int
	PerTenant      int
	InFlight       int

	mu         sync.Mutex
	dests      map[destKey]*dest
	tenants    map[string]*tenantQueue
	active     []*tenantQueue // tenants with a destination that has queued work, round robin
	rr         int
	rescanAll  bool
	rescan     map[string]bool // tenants whose destinations are read again
	dirty      map[*dest]bool  // destinations whose queue is read again; true: from its first entry
	fetched    []fetchedJob    // entries read by the current step, their bodies not yet read
	timers     dueHeap
	inFlight   int
	unrecorded int
	results    chan outcome
	kickCh     chan struct{}
	stopped    context.Context // done once Run's context ends: listen attempts stop waiting
	attempts   sync.WaitGroup
	closers    sync.WaitGroup // closeRest of webhooks this engine disabled
	running    bool
	stopping   bool
	// cluster shares the outbox with the other nodes of the database; nil: this node is alone.
	cluster *cluster
}

type destKey struct{ tenant, webhook string }

// hookInfo is what an attempt needs of its webhook, read with each refill of the queue.
type hookInfo struct {
	gone     bool
	kind     string
	status   string
	url      *string
	person   *string
	sealed   []byte // the sealed secrets the signing secrets came from
	prev     []byte
	prevTill *time.Time
	prevUsed bool // secrets has the previous one
	secrets  []string
}

// closes tells why an attempt to this webhook is not made ("" when it is).
func (h hookInfo) closes() string {
	switch {
	case h.gone:
		return "WebhookDeleted"
	case h.status != StatusEnabled || (h.url == nil && h.kind != KindListener):
		return "WebhookDisabled"
	}
	return ""
}

type dest struct {
	key   destKey
	hook  hookInfo
	queue []job // read from the outbox, not started
	// manualInFlight counts a listen session's manual attempts in flight (see serialWait).
	manualInFlight int
	taken          map[string]struct{} // queued, in flight or waiting for the record of its outcome
	inFlight       int
	unrecorded     int       // outcomes waiting for their commit
	full           bool      // the last refill filled its batch: more may be due
	next           time.Time // the earliest due time after the last refill; zero: none known
	timerAt        time.Time // when the timer heap wakes it; zero: no entry
	reload         bool      // the webhook changed: read it before the next attempt
	hookRead       bool      // hook holds the webhook as read (and not changed since)
	// cursor is the last entry read: a read that only continues (more was due than one read
	// takes) starts after it instead of walking past what the engine holds. Anything that may
	// put an entry before it (a new delivery's wake, a retry's timer, a failed record) reads
	// from the first entry.
	cursor *storage.Queued
	// What the destination last answered, for Live.
	lastStatus  *int
	lastError   string
	lastErrorAt time.Time
	lastAt      time.Time
}

type tenantQueue struct {
	id       string
	inFlight int
	ready    []*dest // destinations with queued work, round robin
	rr       int
	isActive bool
}

type job struct {
	storage.Queued
	body  []byte
	close string // why it is recorded failed, not sent: WebhookDeleted, WebhookDisabled, EventDeleted
}

type outcome struct {
	d       *dest
	job     job
	attempt webhook.Attempt
	// abandoned: the engine stopped while a listen session held the attempt, its outcome
	// unknown: nothing is recorded, the delivery stays pending and is offered again, with its
	// id, after the restart (the client answers what it did with it).
	abandoned bool
	ok        bool
	health    bool // counts for the webhook's health
	jitter    float64
	// delivery is the outcome written on the delivery as read after the attempt, and retry its
	// next attempt (zero: none); nil when it was no longer pending at the job's due time.
	delivery *storage.Delivery
	retry    time.Time
}

// newEngine returns the engine of svc (New makes it); call Run to start it.
func newEngine(svc *Service, send SendFunc, log *slog.Logger) *Engine {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Engine{Svc: svc, Send: send, Log: log, PerDestination: DefaultPerDestination, PerTenant: DefaultPerTenant,
		InFlight: DefaultInFlight, dests: map[destKey]*dest{}, tenants: map[string]*tenantQueue{},
		rescan: map[string]bool{}, dirty: map[*dest]bool{}, kickCh: make(chan struct{}, 1)}
}

// Live is what the engine knows of a destination beyond the outbox.
type Live struct {
	InFlight      int
	Concurrency   int
	LastAttemptAt time.Time // zero: none since the engine started
	LastStatus    *int
	LastError     string
	LastErrorAt   time.Time
}

// Live tells the attempts in flight to a destination and what it last answered.
func (e *Engine) Live(tenant, webhook string) Live {
	e.mu.Lock()
	defer e.mu.Unlock()
	l := Live{Concurrency: e.PerDestination}
	if d := e.dests[destKey{tenant, webhook}]; d != nil {
		l.InFlight, l.LastAttemptAt, l.LastStatus, l.LastError, l.LastErrorAt = d.inFlight, d.lastAt, d.lastStatus, d.lastError, d.lastErrorAt
	}
	return l
}

// Wake tells the engine to look at every destination again (a test that moved its clock).
func (e *Engine) Wake() {
	e.mu.Lock()
	e.rescanAll = true
	e.mu.Unlock()
	e.kick()
}

// WakeTenant tells the engine that a tenant has new deliveries.
func (e *Engine) WakeTenant(tenant string) {
	e.mu.Lock()
	e.rescan[tenant] = true
	e.mu.Unlock()
	e.kick()
}

// HookChanged tells the engine that a webhook changed or is gone: the attempts it has not
// started use what the webhook is now (a disabled or deleted one closes them unsent).
func (e *Engine) HookChanged(tenant, webhook string) {
	e.mu.Lock()
	if d := e.dests[destKey{tenant, webhook}]; d != nil {
		d.reload = true
		e.mark(d, true)
	}
	e.mu.Unlock()
	e.kick()
}

func (e *Engine) kick() {
	select {
	case e.kickCh <- struct{}{}:
	default:
	}
}

// ErrRunning is Run's answer while another Run of the same engine goes on.
var ErrRunning = errors.New("webhooks: the delivery engine is already running")

// Run sends deliveries until ctx ends, then lets the attempts in flight finish, records their
// outcomes and returns. One Run at a time: the engine's memory is the claim on its deliveries.
func (e *Engine) Run(ctx context.Context) error {
	e.mu.Lock()
	if e.running {
		e.mu.Unlock()
		return ErrRunning
	}
	e.PerDestination = max(e.PerDestination, 1)
	e.InFlight = max(e.InFlight, 1)
	e.PerTenant = max(e.PerTenant, 1)
	e.results = make(chan outcome, e.InFlight+MaxUnrecorded)
	e.rescanAll = true
	e.stopped = ctx
	e.running, e.stopping = true, false
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.running = false
		e.mu.Unlock()
	}()
	// attempts → results → settlers (in parallel) → settled → recorder (one transaction a batch)
	settled := make(chan []outcome, runtime.GOMAXPROCS(0))
	var settlers sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		settlers.Go(func() { e.settler(settled) })
	}
	go func() {
		settlers.Wait()
		close(settled)
	}()
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		e.recorder(settled)
	}()
	purgeDone := make(chan struct{})
	go func() {
		defer close(purgeDone)
		if e.cluster == nil { // with other nodes, the leader purges (PurgeEvery)
			e.PurgeEvery(ctx, time.Hour)
		}
	}()
	clusterDone := make(chan struct{})
	clusterCtx, stopCluster := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(clusterDone)
		if e.cluster != nil {
			e.cluster.run(clusterCtx)
		}
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	lastScan := time.Now()
	for ctx.Err() == nil {
		if e.cluster != nil && time.Since(lastScan) >= rescanEvery {
			e.Wake() // a node that died leaves work that no wake announces
			lastScan = time.Now()
		}
		wait := e.step()
		if e.cluster != nil {
			wait = min(wait, rescanEvery)
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
		case <-e.kickCh:
		case <-timer.C:
		}
	}
	e.mu.Lock()
	e.stopping = true // attempts that end now start no others
	e.mu.Unlock()
	e.attempts.Wait()
	close(e.results)
	<-recorded
	e.closers.Wait()
	<-purgeDone
	stopCluster()
	<-clusterDone
	if e.cluster != nil {
		if err := e.cluster.release(); err != nil {
			e.Log.Warn("cluster: give the leases back (the other nodes take them when they expire)", "err", err)
		}
	}
	return nil
}

// drop gives back what a destination read and has not started (it is another node's now).
// Called with e.mu held.
func (e *Engine) drop(d *dest) {
	for _, j := range d.queue {
		delete(d.taken, j.DeliveryID)
	}
	clear(d.queue)
	d.queue, d.cursor = nil, nil
}

// lost tells the engine that another node holds a destination now.
func (e *Engine) lost(k destKey) {
	e.mu.Lock()
	if d := e.dests[k]; d != nil {
		e.drop(d)
	}
	e.mu.Unlock()
}

// gained tells the engine that this node holds a destination now: its queue is read.
func (e *Engine) gained(k destKey) {
	e.mu.Lock()
	e.mark(e.dest(k), true)
	e.mu.Unlock()
	e.kick()
}

// busy tells whether a destination has attempts in flight, outcomes to record or work queued.
func (e *Engine) busy(k destKey) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := e.dests[k]
	return d != nil && (d.inFlight > 0 || d.unrecorded > 0 || len(d.queue) > 0 || len(d.taken) > 0)
}

// step reads the queues that need it, starts what the limits allow and tells how long to
// sleep when nothing wakes the engine.
func (e *Engine) step() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := e.Svc.Now().UTC()
	e.fetched = e.fetched[:0]
	for len(e.timers) > 0 && !e.timers[0].at.After(now) {
		t := heap.Pop(&e.timers).(timerEntry)
		if t.at.Equal(t.d.timerAt) { // else stale: an earlier entry already read the queue again
			t.d.timerAt = time.Time{}
			e.mark(t.d, true) // a retry may come before what was read
		}
	}
	if err := e.refill(now); err != nil {
		e.Log.Error("webhook outbox: read", "err", err)
	}
	if len(e.fetched) > 0 {
		// The entries just read are the engine's (taken): their bodies are read without the
		// lock, so attempts that end meanwhile start the next ones.
		fetched := e.fetched
		e.mu.Unlock()
		err := e.readBodies(fetched)
		e.mu.Lock()
		for _, f := range fetched {
			if err != nil { // given back, read again in a second
				delete(f.d.taken, f.job.DeliveryID)
				e.mark(f.d, true)
				e.schedule(f.d, now.Add(time.Second))
				continue
			}
			f.d.queue = append(f.d.queue, f.job)
			e.ready(f.d)
		}
		clear(fetched)
	}
	e.dispatch()
	wait := 30 * time.Second
	if len(e.timers) > 0 {
		wait = min(wait, max(e.timers[0].at.Sub(now), time.Millisecond))
	}
	return wait
}

// refill reads, in one read transaction, the destinations of the tenants to rescan and the
// queues of the dirty destinations. Called with e.mu held.
func (e *Engine) refill(now time.Time) error {
	if !e.rescanAll && len(e.rescan) == 0 && len(e.dirty) == 0 {
		return nil
	}
	all, tenants := e.rescanAll, e.rescan
	e.rescanAll, e.rescan = false, map[string]bool{}
	dirty := map[*dest]bool{}
	for d, fromStart := range e.dirty {
		x := e.dest(d.key) // the one the engine holds, should d have been forgotten
		dirty[x] = dirty[x] || fromStart || x != d
	}
	clear(e.dirty)
	return e.Svc.Store.View(context.Background(), func(tx storage.Tx) error {
		found := func(d storage.Destination) bool {
			k := destKey{d.TenantID, d.WebhookID}
			if e.cluster != nil {
				if e.cluster.want(k, now); !e.cluster.owns(k, now) {
					return true // another node's, or asked for: read once held
				}
			}
			x := e.dest(k)
			if !d.Next.After(now) || x.next.IsZero() || d.Next.Before(x.next) {
				dirty[x] = true
			}
			return true
		}
		var err error
		if all {
			err = tx.Outbox().Destinations("", found)
		} else {
			for t := range tenants {
				if err = tx.Outbox().Destinations(t, found); err != nil {
					break
				}
			}
		}
		if err != nil {
			return err
		}
		for d, fromStart := range dirty {
			if e.cluster != nil && !e.cluster.owns(d.key, now) {
				continue
			}
			if err := e.fill(tx, d, now, fromStart); err != nil {
				// this destination waits for its timer or the next wake; the others go on
				e.Log.Error("webhook outbox: read a destination", "tenant", d.key.tenant, "webhook", d.key.webhook, "err", err)
				e.schedule(d, now.Add(time.Second))
			}
		}
		return nil
	})
}

// dest finds or makes a destination. Called with e.mu held.
func (e *Engine) dest(k destKey) *dest {
	d := e.dests[k]
	if d == nil {
		d = &dest{key: k, taken: map[string]struct{}{}}
		e.dests[k] = d
	}
	return d
}

// fill tops up a destination's queue from the outbox, and reads its webhook when it changed or
// new work came. Called with e.mu held.
func (e *Engine) fill(tx storage.Tx, d *dest, now time.Time, fromStart bool) error {
	// The webhook is read once, then again only when it changed (HookChanged, a disable by
	// the recorder) or its previous secret stopped signing.
	if d.reload || !d.hookRead || (d.hook.prevUsed && !previousSigns(d.hook.prev, d.hook.prevTill, now)) {
		if err := e.readHook(tx, d, now); err != nil {
			return err
		}
		d.reload, d.hookRead = false, true
	}
	room := refillBatch - len(d.queue)
	if room <= 0 {
		return nil
	}
	after := d.cursor
	if fromStart {
		after = nil
	}
	q, next, err := tx.Outbox().Due(d.key.tenant, d.key.webhook, after, now, room, func(id string) bool {
		_, held := d.taken[id]
		return held
	})
	if err != nil {
		return err
	}
	if len(q) > 0 {
		last := q[len(q)-1]
		d.cursor = &last
	} else if fromStart {
		d.cursor = nil
	}
	d.full, d.next = len(q) == room, next
	if !next.IsZero() {
		e.schedule(d, next)
	}
	if len(q) == 0 {
		e.forget(d)
		return nil
	}
	for _, item := range q {
		d.taken[item.DeliveryID] = struct{}{}
		e.fetched = append(e.fetched, fetchedJob{d: d, job: job{Queued: item}})
	}
	return nil
}

// fetchedJob is an entry read from a destination's outbox, its body not yet read.
type fetchedJob struct {
	d   *dest
	job job
}

// readBodies reads the event bodies of entries the engine has taken, in one read transaction.
// An entry whose event is gone closes unsent.
func (e *Engine) readBodies(fetched []fetchedJob) error {
	err := e.Svc.Store.View(context.Background(), func(tx storage.Tx) error {
		for i := range fetched {
			j := &fetched[i].job
			body, err := tx.Events(j.TenantID).Body(j.EventID)
			switch {
			case errors.Is(err, storage.ErrNotFound):
				j.close = "EventDeleted" // purged with its retention: nothing left to send
			case err != nil:
				return err
			}
			j.body = body
		}
		return nil
	})
	if err != nil {
		e.Log.Error("webhook outbox: read event bodies", "err", err)
	}
	return err
}

// mark has a destination's queue read on the next step: from its first entry (fromStart), or
// after the last entry read, when nothing can have come before it. Called with e.mu held.
func (e *Engine) mark(d *dest, fromStart bool) {
	e.dirty[d] = e.dirty[d] || fromStart
}

// schedule makes the engine read a destination's queue at a time; a destination has at most
// one entry waiting, its earliest. Called with e.mu held.
func (e *Engine) schedule(d *dest, at time.Time) {
	if !d.timerAt.IsZero() && !at.Before(d.timerAt) {
		return
	}
	d.timerAt = at
	heap.Push(&e.timers, timerEntry{at: at, d: d})
	if len(e.timers) > 2*len(e.dests)+1024 { // drop the stale entries
		live := e.timers[:0]
		for _, t := range e.timers {
			if t.at.Equal(t.d.timerAt) {
				live = append(live, t)
			}
		}
		clear(e.timers[len(live):])
		e.timers = live
		heap.Init(&e.timers)
	}
}

// forget drops a destination that holds nothing and never sent, so the map does not grow with
// every webhook that ever had a delivery. Called with e.mu held.
func (e *Engine) forget(d *dest) {
	if d.idle() && d.lastAt.IsZero() {
		delete(e.dests, d.key)
	}
}

func (d *dest) idle() bool {
	return len(d.queue) == 0 && len(d.taken) == 0 && d.inFlight == 0 && d.next.IsZero() && d.timerAt.IsZero() && !d.reload
}

// forgetIdle drops the destinations that hold nothing and last sent before t, with what they
// last answered: the engine's memory grows with the destinations in use, not with all.
func (e *Engine) forgetIdle(t time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, d := range e.dests {
		if d.idle() && d.lastAt.Before(t) {
			delete(e.dests, k)
		}
	}
	for k, t := range e.tenants {
		if !t.isActive && t.inFlight == 0 {
			delete(e.tenants, k)
		}
	}
}

// readHook reads the destination's webhook, opening its secrets only when they changed.
func (e *Engine) readHook(tx storage.Tx, d *dest, now time.Time) error {
	w, err := tx.Webhooks(d.key.tenant).Get(d.key.webhook)
	if errors.Is(err, storage.ErrNotFound) {
		d.hook = hookInfo{gone: true}
		return nil
	}
	if err != nil {
		return err
	}
	h := hookInfo{kind: w.Kind, status: w.Status, url: w.URL, person: w.ListenerPersonID, sealed: w.Secret,
		prev: w.PreviousSecret, prevTill: w.PreviousSecretUntil}
	if h.status != StatusEnabled {
		d.hook = h
		return nil
	}
	// the previous secret signs too until its time (signingSecrets)
	h.prevUsed = previousSigns(h.prev, h.prevTill, now)
	if d.hook.secrets != nil && bytes.Equal(d.hook.sealed, h.sealed) && bytes.Equal(d.hook.prev, h.prev) && d.hook.prevUsed == h.prevUsed {
		h.secrets = d.hook.secrets
	} else if h.secrets, err = e.Svc.signingSecrets(w, now); err != nil {
		return err
	}
	d.hook = h
	return nil
}

// ready puts a destination with queued work in its tenant's round, and the tenant in the
// engine's. Called with e.mu held.
func (e *Engine) ready(d *dest) {
	t := e.tenants[d.key.tenant]
	if t == nil {
		t = &tenantQueue{id: d.key.tenant}
		e.tenants[t.id] = t
	}
	for _, x := range t.ready {
		if x == d {
			goto tenant
		}
	}
	t.ready = append(t.ready, d)
tenant:
	if !t.isActive {
		t.isActive = true
		e.active = append(e.active, t)
	}
}

// dispatch starts attempts while the limits allow: one per turn, tenants in turn, and in each
// tenant its destinations in turn. Called with e.mu held.
func (e *Engine) dispatch() {
	for !e.stopping && e.inFlight < e.InFlight && e.unrecorded < MaxUnrecorded && len(e.active) > 0 {
		started := false
		for range len(e.active) {
			if e.rr >= len(e.active) {
				e.rr = 0
			}
			t := e.active[e.rr]
			if d := e.pick(t); d != nil {
				e.start(t, d)
				e.rr++
				started = true
				break
			}
			if len(t.ready) == 0 {
				t.isActive = false
				e.active = append(e.active[:e.rr], e.active[e.rr+1:]...)
				continue
			}
			e.rr++
		}
		if !started {
			return
		}
	}
}

// pick chooses a tenant's next destination that may start an attempt, dropping those with
// nothing queued from its round. Called with e.mu held.
func (e *Engine) pick(t *tenantQueue) *dest {
	if t.inFlight >= e.PerTenant {
		return nil
	}
	for range len(t.ready) {
		if t.rr >= len(t.ready) {
			t.rr = 0
		}
		d := t.ready[t.rr]
		if len(d.queue) > 0 && e.cluster != nil && !e.cluster.owns(d.key, e.Svc.Now().UTC()) {
			e.drop(d) // another node's now: what it read stays in the outbox for that node
		}
		if len(d.queue) == 0 {
			t.ready = append(t.ready[:t.rr], t.ready[t.rr+1:]...)
			continue
		}
		t.rr++
		if !d.reload && d.inFlight < e.PerDestination && d.inFlight+d.unrecorded < Outstanding*e.PerDestination && !d.serialWait() {
			return d
		}
	}
	return nil
}

// serialWait tells that a listen session's next attempt waits for those in flight: a session
// takes its manual deliveries (a catch-up, resends) one at a time, in order, and nothing else
// while one is in flight, so that a catch-up arrives whole and in order before what follows.
// Called with e.mu held.
func (d *dest) serialWait() bool {
	if d.hook.kind != KindListener || len(d.queue) == 0 {
		return false
	}
	return d.manualInFlight > 0 || (d.queue[0].Kind == DeliveryManual && d.inFlight > 0)
}

// start takes the first job of d and runs its attempt. Called with e.mu held.
func (e *Engine) start(t *tenantQueue, d *dest) {
	j := d.queue[0]
	d.queue[0] = job{}
	d.queue = d.queue[1:]
	if len(d.queue) == 0 {
		d.queue = nil
	}
	if len(d.queue) < refillBatch/2 && d.full {
		e.mark(d, false) // more may be due after what was read: read on the next step
		e.kick()
	}
	d.inFlight++
	t.inFlight++
	e.inFlight++
	if j.Kind == DeliveryManual && d.hook.kind == KindListener {
		d.manualInFlight++
	}
	h := d.hook
	if j.close == "" {
		j.close = h.closes()
	}
	e.attempts.Add(1)
	go func() {
		defer e.attempts.Done()
		o := e.attempt(h, j)
		o.d = d
		e.release(t, o)
		e.results <- o // never blocks: its capacity is InFlight + MaxUnrecorded
	}()
}

// attempt signs and sends one delivery, or closes it unsent when its webhook is gone.
func (e *Engine) attempt(h hookInfo, j job) outcome {
	o := outcome{job: j, jitter: 0.9 + rand.Float64()*0.2}
	if j.close != "" {
		return o
	}
	now := e.Svc.Now().UTC()
	sig, err := webhook.Sign(h.secrets, j.EventID, now, j.body)
	if err != nil {
		e.Log.Error("webhook outbox: sign", "tenant", j.TenantID, "webhook", j.WebhookID, "err", err)
		o.attempt = webhook.Attempt{Error: "SignatureFailed"}
		return o
	}
	isListener := h.kind == KindListener
	if isListener && e.cluster != nil && e.cluster.openElsewhere(j.TenantID, j.WebhookID) {
		// the session moved to another node, which sends it: nothing is recorded here
		o.abandoned = true
		e.lost(destKey{j.TenantID, j.WebhookID})
		e.cluster.notify("wake " + j.TenantID)
		return o
	}
	if isListener {
		o.attempt = e.toListener(e.stopped, h, j, webhook.Headers(j.EventID, now, sig))
		if err := e.stopped.Err(); err != nil && o.attempt.Error == err.Error() {
			o.abandoned = true
			return o
		}
	} else {
		o.attempt = e.Send(context.Background(), *h.url, webhook.Headers(j.EventID, now, sig), j.body)
	}
	a := o.attempt
	e.Log.Debug("webhook attempt", "delivery", j.DeliveryID, "event", j.EventID, "status", a.StatusCode, "error", a.Error, "ms", a.Duration.Milliseconds())
	// a listener without a forward target acknowledges with no status and no error: delivered
	o.ok = a.OK() || (isListener && a.Error == "" && a.StatusCode == nil)
	o.health = !j.Synthetic && j.Kind != DeliveryTest && !isListener
	return o
}

// settler writes outcomes on their deliveries, as many as are waiting (up to recordBatch) in
// one read transaction, in parallel with the other settlers and with the recorder, which then
// only checks that nothing changed each delivery (Deliveries.Finish) and saves it.
func (e *Engine) settler(out chan<- []outcome) {
	var waiting []outcome
	for o := range e.results {
		waiting = append(waiting[:0], o)
	more:
		for len(waiting) < recordBatch {
			select {
			case o, ok := <-e.results:
				if !ok {
					break more
				}
				waiting = append(waiting, o)
			default:
				break more
			}
		}
		batch := slices.Clone(waiting) // its own, sized to what came: batches are often small
		clear(waiting)
		now := e.Svc.Now().UTC()
		err := e.Svc.Store.View(context.Background(), func(tx storage.Tx) error {
			for i := range batch {
				o := &batch[i]
				o.delivery, o.retry = nil, time.Time{}
				if o.job.close != "" || o.abandoned {
					continue
				}
				d, err := tx.Deliveries(o.job.TenantID).Get(o.job.DeliveryID)
				if errors.Is(err, storage.ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				if d.Status == DeliveryPending && d.NextAttemptAt != nil && d.NextAttemptAt.Equal(o.job.Due) {
					o.retry = outcomeOn(&d, *o, now, true)
					o.delivery = &d
				}
			}
			return nil
		})
		if err != nil {
			e.Log.Error("webhook outbox: read deliveries", "err", err) // the recorder reads them itself
			for i := range batch {
				batch[i].delivery = nil
			}
		}
		out <- batch
	}
}

// release frees the attempt's slots, notes what the destination answered, and starts what the
// freed slots allow, without waiting for the engine's loop.
func (e *Engine) release(t *tenantQueue, o outcome) {
	e.mu.Lock()
	d := o.d
	d.inFlight--
	t.inFlight--
	e.inFlight--
	if o.job.Kind == DeliveryManual && d.manualInFlight > 0 {
		d.manualInFlight--
	}
	d.unrecorded++
	e.unrecorded++
	if o.job.close == "" {
		now := e.Svc.Now().UTC()
		d.lastAt, d.lastStatus = now, o.attempt.StatusCode
		if !o.ok {
			d.lastError, d.lastErrorAt = o.attempt.Error, now
			if d.lastError == "" && o.attempt.StatusCode != nil {
				d.lastError = fmt.Sprintf("HTTP %d", *o.attempt.StatusCode)
			}
		}
	}
	e.dispatch()
	e.mu.Unlock()
}

// toListener hands a delivery to its person's open listen session and waits for the client's
// acknowledgement, which becomes the attempt's outcome.
func (e *Engine) toListener(ctx context.Context, h hookInfo, j job, hd http.Header) webhook.Attempt {
	start := time.Now()
	if e.Svc.Listeners == nil {
		return webhook.Attempt{Error: listener.ErrNotConnected.Error()}
	}
	headers := map[string]string{}
	for k := range hd {
		headers[strings.ToLower(k)] = hd.Get(k)
	}
	ack, err := e.Svc.Listeners.Deliver(ctx, j.TenantID, j.WebhookID, listener.Event{
		DeliveryID: j.DeliveryID, EventID: j.EventID, EventType: j.EventType, Kind: j.Kind, Headers: headers, Body: string(j.body),
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

// recorder commits settled outcomes in one transaction per batch: up to recordBatch, or what
// came within recordLinger of the first, until the settlers are done.
func (e *Engine) recorder(settled <-chan []outcome) {
	batch := make([]outcome, 0, recordBatch)
	linger := time.NewTimer(0)
	<-linger.C
	for b := range settled {
		batch = append(batch[:0], b...)
		linger.Reset(recordLinger)
	more:
		for len(batch) < recordBatch {
			select {
			case b, ok := <-settled:
				if !ok {
					break more
				}
				batch = append(batch, b...)
			case <-linger.C:
				break more
			}
		}
		linger.Stop()
		retries, changed, rest, err := e.record(batch)
		if err != nil {
			e.Log.Error("webhook outbox: record attempts", "attempts", len(batch), "err", err)
		}
		for _, k := range rest {
			e.closers.Go(func() {
				if err := e.Svc.closeRest(e.stopped, k.tenant, k.webhook, "WebhookDisabled"); err != nil && e.stopped.Err() == nil {
					e.Log.Error("webhook disabled: close its pending deliveries", "tenant", k.tenant, "webhook", k.webhook, "err", err)
				}
			})
		}
		e.mu.Lock()
		for _, o := range batch {
			delete(o.d.taken, o.job.DeliveryID)
			o.d.unrecorded--
			e.unrecorded--
		}
		for _, k := range changed {
			if d := e.dests[k]; d != nil {
				d.reload = true // disabled by this batch: what is queued closes unsent
				e.mark(d, true)
			}
		}
		for i, o := range batch {
			d := o.d
			if err != nil {
				e.mark(d, true) // not recorded: still due in the outbox, sent again
			} else if !retries[i].IsZero() {
				e.schedule(d, retries[i])
			}
			if len(d.queue) == 0 && d.full {
				e.mark(d, false)
			}
		}
		e.mu.Unlock()
		e.kick()
	}
}

// record applies a batch of outcomes in one transaction and answers, per outcome, the time of
// its retry (zero when none). A delivery closed while its attempt was in flight (its webhook
// disabled or deleted) keeps its state and logs the attempt. When a webhook becomes disabled,
// its other pending deliveries close too: a slice here, the rest (those of rest) by closeRest.
func (e *Engine) record(batch []outcome) (retries []time.Time, changed, rest []destKey, err error) {
	retries = make([]time.Time, len(batch))
	err = e.Svc.Store.Update(context.Background(), func(tx storage.Tx) error {
		clear(retries)
		changed, rest = changed[:0], rest[:0]
		now := e.Svc.Now().UTC()
		type hookState struct {
			w, before storage.Webhook
			gone      bool
		}
		hooks := map[destKey]*hookState{}
		var order []*hookState
		finished, err := finishAll(tx, batch)
		if err != nil {
			return err
		}
		for i, o := range batch {
			if o.abandoned {
				continue
			}
			j := o.job
			hs := hooks[o.d.key]
			if hs == nil {
				hs = &hookState{}
				w, err := tx.Webhooks(j.TenantID).Get(j.WebhookID)
				switch {
				case err == nil:
					hs.w, hs.before = w, w
				case errors.Is(err, storage.ErrNotFound):
					hs.gone = true
				default:
					return err
				}
				hooks[o.d.key] = hs
				order = append(order, hs)
			}
			if finished[i] {
				retries[i] = o.retry
				if !hs.gone {
					healthOn(&hs.w, o, now)
				}
				continue
			}
			err := tx.Deliveries(j.TenantID).Update(j.DeliveryID, func(d *storage.Delivery) bool {
				claimed := d.Status == DeliveryPending && d.NextAttemptAt != nil && d.NextAttemptAt.Equal(j.Due)
				if !claimed && (j.close != "" || !closedByWebhook(*d)) {
					return false
				}
				if j.close != "" {
					why := j.close
					d.Status, d.LastError, d.UpdatedAt = DeliveryFailed, &why, now
					return true
				}
				retries[i] = outcomeOn(d, o, now, claimed)
				if claimed && !hs.gone {
					healthOn(&hs.w, o, now)
				}
				return true
			})
			if err != nil && !errors.Is(err, storage.ErrNotFound) { // not found: purged meanwhile
				return err
			}
		}
		for _, hs := range order {
			if hs.gone || !webhookChanged(hs.before, hs.w) {
				continue
			}
			if err := tx.Webhooks(hs.w.TenantID).Put(hs.w); err != nil {
				return err
			}
			if hs.before.Status == StatusEnabled && hs.w.Status == StatusDisabled {
				changed = append(changed, destKey{hs.w.TenantID, hs.w.ID})
				more, err := closePending(tx, hs.w.TenantID, hs.w.ID, "WebhookDisabled", now)
				if err != nil {
					return err
				}
				if more {
					rest = append(rest, destKey{hs.w.TenantID, hs.w.ID})
				}
			}
		}
		return nil
	})
	return retries, changed, rest, err
}

// finishAll saves the outcomes that carry their delivery as it is to be (storage's Finish, a
// call per tenant): finished[i] tells that batch[i]'s was, its delivery still pending and due
// as the attempt found it; the others are updated one by one.
func finishAll(tx storage.Tx, batch []outcome) (finished []bool, err error) {
	finished = make([]bool, len(batch))
	at := map[string][]int{} // a tenant's outcomes, by their place in batch
	var tenants []string
	for i, o := range batch {
		if o.abandoned || o.delivery == nil {
			continue
		}
		t := o.job.TenantID
		if at[t] == nil {
			tenants = append(tenants, t)
		}
		at[t] = append(at[t], i)
	}
	for _, t := range tenants {
		fs := make([]storage.Finished, len(at[t]))
		for k, i := range at[t] {
			fs[k] = storage.Finished{Delivery: *batch[i].delivery, Due: batch[i].job.Due}
		}
		ok, err := tx.Deliveries(t).Finish(fs)
		if err != nil {
			return nil, err
		}
		for k, i := range at[t] {
			finished[i] = ok[k]
		}
	}
	return finished, nil
}

// outcomeOn writes an attempt's outcome on its delivery and answers the time of the retry (zero
// when none). claimed is false for a delivery closed while the attempt was in flight: the
// attempt is logged and the state stays.
func outcomeOn(d *storage.Delivery, o outcome, now time.Time, claimed bool) time.Time {
	a := o.attempt
	d.Attempts++
	d.LastStatusCode, d.LastResponseExcerpt, d.UpdatedAt = a.StatusCode, a.Excerpt, now
	d.LastError, d.LastErrorDetail = nil, a.Detail
	if a.Error != "" {
		msg := a.Error
		d.LastError = &msg
	}
	d.History = append(d.History, storage.Attempt{At: now, StatusCode: a.StatusCode, Error: a.Error, ErrorDetail: a.Detail,
		DurationMS: a.Duration.Milliseconds()})
	if len(d.History) > maxHistory {
		d.History = d.History[len(d.History)-maxHistory:]
	}
	if !claimed {
		return time.Time{} // closed while in flight: the attempt is logged, the state stays closed
	}
	switch {
	case o.ok:
		d.Status = DeliveryOK
	case gone(o.attempt) || d.Attempts >= d.MaxAttempts:
		d.Status = DeliveryFailed
	default:
		retry := now.Add(retryDelay(d.Attempts, a.RetryAfter, o.jitter))
		d.NextAttemptAt = &retry
		return retry
	}
	return time.Time{}
}

// gone tells whether the receiver answered 410: the webhook is to be disabled.
func gone(a webhook.Attempt) bool {
	return a.Error == "" && a.StatusCode != nil && *a.StatusCode == http.StatusGone
}

// healthOn writes an attempt's outcome on its webhook: a 410 disables it, and a real event's
// answer moves failingSince (failing for FailingTooLong disables it).
func healthOn(w *storage.Webhook, o outcome, now time.Time) {
	if gone(o.attempt) && w.Status == StatusEnabled {
		reason := ReasonGone
		w.Status, w.DisabledReason, w.DisabledAt, w.UpdatedAt = StatusDisabled, &reason, &now, now
	}
	if o.health {
		if o.ok {
			w.FailingSince = nil
		} else if w.FailingSince == nil {
			w.FailingSince = &now
		} else if now.Sub(*w.FailingSince) >= FailingTooLong && w.Status == StatusEnabled {
			reason := ReasonFailing
			w.Status, w.DisabledReason, w.DisabledAt, w.UpdatedAt = StatusDisabled, &reason, &now, now
		}
	}
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

// timerEntry wakes a destination when its next delivery is due; stale entries only cause a
// read that finds nothing new.
type timerEntry struct {
	at time.Time
	d  *dest
}

type dueHeap []timerEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(timerEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// PurgeEvery deletes old events and deliveries now and then every period until ctx ends. Run
// calls it on a node alone; with other nodes, only the leader does.
func (e *Engine) PurgeEvery(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		e.forgetIdle(e.Svc.Now().Add(-period))
		n, err := e.Svc.Purge(ctx)
		if err != nil && ctx.Err() == nil {
			e.Log.Error("purge of old events", "err", err)
		} else if n > 0 {
			e.Log.Info("purged old events and deliveries", "records", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// A purge deletes in slices, each one transaction of at most purgeSliceSize records and about
// purgeSliceTime of work, so that a purge of many holds the database's writer (every tenant's,
// on PostgreSQL every node's) one short slice at a time and the writes of others pass between
// slices.
var (
	purgeSliceSize = 1000
	purgeSliceTime = 50 * time.Millisecond
)

// Purge deletes events and deliveries older than 30 days, in every tenant, a slice per
// transaction; it returns how many it deleted, also when it stops on an error or when ctx ends.
func (s *Service) Purge(ctx context.Context) (int, error) {
	cutoff := s.Now().Add(-Retention)
	var tenants []storage.Tenant
	err := s.Store.View(ctx, func(tx storage.Tx) (err error) {
		tenants, err = tx.Tenants().List()
		return err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range tenants {
		for _, events := range []bool{true, false} {
			for more := true; more; {
				var k int
				var err error
				k, more, err = s.purgeSlice(ctx, t.ID, events, cutoff)
				if n += k; err != nil {
					return n, err
				}
			}
		}
	}
	return n, nil
}

// purgeSlice deletes, in one transaction, a slice of the tenant's events (or deliveries) created
// before cutoff, oldest first, and returns how many it deleted and whether it stopped before
// the last (at purgeSliceSize records or after purgeSliceTime).
func (s *Service) purgeSlice(ctx context.Context, tenant string, events bool, cutoff time.Time) (k int, more bool, err error) {
	err = s.Store.Update(ctx, func(tx storage.Tx) error {
		k, more = 0, false
		start := time.Now()
		var failed error
		del := func(delete func(string) error, id string) bool {
			if failed = delete(id); failed != nil {
				return false
			}
			k++
			more = k == purgeSliceSize || time.Since(start) >= purgeSliceTime
			return !more
		}
		var err error
		if events {
			err = tx.Events(tenant).Older(cutoff, func(e storage.Event) bool { return del(tx.Events(tenant).Delete, e.ID) })
		} else {
			err = tx.Deliveries(tenant).Older(cutoff, func(d storage.Delivery) bool { return del(tx.Deliveries(tenant).Delete, d.ID) })
		}
		return errors.Join(err, failed)
	})
	return k, more, err
}
