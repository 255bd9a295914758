// Package ratelimit counts requests per subject (an API key, or an address for requests without
// one) and per family with the generic cell rate algorithm, and tells the RateLimit-* header
// values and an exact Retry-After.
package ratelimit

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"time"
)

// Family is a named limit: Limit requests per Window for each subject.
type Family struct {
	Name   string
	Limit  int
	Window time.Duration
}

// BusinessWrite is the family of the test webhook, resend event and trigger event endpoints
// (spec 1 §8).
var BusinessWrite = Family{Name: "BusinessWrite", Limit: 600, Window: 60 * time.Second}

// Decision is the outcome of one request.
type Decision struct {
	Allowed   bool
	Limit     int
	Remaining int
	// Reset is how long until the subject has its whole limit again.
	Reset time.Duration
	// RetryAfter is, for a refused request, how long until one more would be allowed.
	RetryAfter time.Duration
}

// ResetSeconds is Reset rounded up to whole seconds, at least 1 (for RateLimit-Reset).
func (d Decision) ResetSeconds() int { return seconds(d.Reset) }

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1 (for Retry-After):
// a request sent that many seconds later is allowed, unless others came meanwhile.
func (d Decision) RetryAfterSeconds() int { return seconds(d.RetryAfter) }

func seconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// slot is one subject's count in one family.
type slot struct {
	subject string
	family  string
}

const shards = 64

type shard struct {
	mu        sync.Mutex
	tats      map[slot]time.Time // theoretical arrival time of each slot's next request
	lastSweep time.Time
}

// Limiter applies the generic cell rate algorithm (GCRA): a family of Limit requests per
// Window lets a subject send one request every Window/Limit, and up to Limit at once after a
// quiet Window. Unlike fixed windows, a burst at the end of one window and another at the start
// of the next cannot pass twice the limit in a moment: after a burst, requests pass only at the
// family's rate. Its state is one time per subject and family; safe for concurrent use.
type Limiter struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [shards]shard
	// shared, when set, keeps the times where every node of a shared database reads them, so
	// a subject's limit holds across the nodes (Share).
	shared    Times
	sweptMu   sync.Mutex
	lastSwept time.Time
	log       func(err error)
}

// Times keeps each subject's time where several nodes share it (PostgreSQL).
type Times interface {
	// Load is the slot's time; zero when it has none.
	Load(ctx context.Context, subject, family string) (time.Time, error)
	// Swap sets the slot's time to next if it is still old (zero: none), and tells whether it did.
	Swap(ctx context.Context, subject, family string, old, next time.Time) (bool, error)
	// Forget removes the times before t (those subjects have their whole limit again).
	Forget(ctx context.Context, t time.Time) error
}

// Share keeps the limiter's times in t from now on; a failure to reach t lets the request
// through (logged with log): the limit is a guard, the database answers for the rest.
func (l *Limiter) Share(t Times, log func(err error)) {
	l.shared, l.log = t, log
}

// maxSwaps bounds the tries of a shared Take whose time other nodes keep changing.
const maxSwaps = 16

// New returns a limiter reading the time from now (time.Now when nil).
func New(now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	l := &Limiter{now: now, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].tats = map[slot]time.Time{}
	}
	return l
}

// Take counts one request of subject in family f, unless it is refused.
func (l *Limiter) Take(subject string, f Family) Decision {
	now := l.now()
	if l.shared != nil {
		return l.takeShared(subject, f, now)
	}
	sh := &l.shards[maphash.String(l.seed, subject)%shards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now.Sub(sh.lastSweep) > time.Minute {
		sh.sweep(now)
	}
	k := slot{subject, f.Name}
	d, next := decide(f, sh.tats[k], now)
	if d.Allowed {
		sh.tats[k] = next
	}
	return d
}

// decide is the rule: the decision for a request at now of a slot whose time is tat, and the
// slot's next time when it is allowed.
func decide(f Family, tat, now time.Time) (Decision, time.Time) {
	interval := f.Window / time.Duration(max(f.Limit, 1))
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	d := Decision{Limit: f.Limit}
	if over := next.Sub(now) - f.Window; over > 0 || f.Limit <= 0 {
		d.Reset = tat.Sub(now)
		d.RetryAfter = over
		return d, time.Time{}
	}
	d.Allowed = true
	d.Reset = next.Sub(now)
	d.Remaining = int((f.Window - next.Sub(now)) / interval)
	return d, next
}

// takeShared is Take on the shared times: decide on the time this node last knew of the slot
// and swap it for the next if nobody changed it meanwhile (one statement); else read it and
// try again. A slot's time only grows (a time forgotten was past, which decides as now), so a
// request refused on the time known is refused on the real one too, without a statement.
func (l *Limiter) takeShared(subject string, f Family, now time.Time) Decision {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	l.forgetShared(ctx, now)
	sh := &l.shards[maphash.String(l.seed, subject)%shards]
	k := slot{subject, f.Name}
	sh.mu.Lock()
	old, known := sh.tats[k]
	sh.mu.Unlock()
	for range maxSwaps {
		if !known {
			var err error
			if old, err = l.shared.Load(ctx, subject, f.Name); err != nil {
				return l.failOpen(f, err)
			}
		}
		d, next := decide(f, old, now)
		if !d.Allowed {
			l.remember(sh, k, old)
			return d
		}
		ok, err := l.shared.Swap(ctx, subject, f.Name, old, next)
		if err != nil {
			return l.failOpen(f, err)
		}
		if ok {
			l.remember(sh, k, next)
			return d
		}
		known, now = false, l.now() // another node changed it: read it
	}
	return l.failOpen(f, errors.New("ratelimit: the time of "+f.Name+" kept changing"))
}

// remember keeps the shared time of a slot as this node last saw it.
func (l *Limiter) remember(sh *shard, k slot, tat time.Time) {
	sh.mu.Lock()
	if now := l.now(); now.Sub(sh.lastSweep) > time.Minute {
		sh.sweep(now)
	}
	sh.tats[k] = tat
	sh.mu.Unlock()
}

// failOpen lets a request through when the shared times cannot be read or written.
func (l *Limiter) failOpen(f Family, err error) Decision {
	if l.log != nil {
		l.log(err)
	}
	return Decision{Allowed: true, Limit: f.Limit, Remaining: 0, Reset: f.Window}
}

// forgetShared removes the shared times past, once a minute.
func (l *Limiter) forgetShared(ctx context.Context, now time.Time) {
	l.sweptMu.Lock()
	due := now.Sub(l.lastSwept) > time.Minute
	if due {
		l.lastSwept = now
	}
	l.sweptMu.Unlock()
	if due {
		if err := l.shared.Forget(ctx, now); err != nil && l.log != nil {
			l.log(err)
		}
	}
}

// sweep forgets the slots whose subjects have their whole limit again.
func (sh *shard) sweep(now time.Time) {
	for k, tat := range sh.tats {
		if tat.Before(now) {
			delete(sh.tats, k)
		}
	}
	sh.lastSweep = now
}
