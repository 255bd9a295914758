// Package ratelimit counts requests per subject (an API key, or an address for requests without
// one) and per family with the generic cell rate algorithm, and tells the RateLimit-* header
// values and an exact Retry-After.
package ratelimit

import (
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
}

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
	interval := f.Window / time.Duration(max(f.Limit, 1))
	sh := &l.shards[maphash.String(l.seed, subject)%shards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now.Sub(sh.lastSweep) > time.Minute {
		sh.sweep(now)
	}
	k := slot{subject, f.Name}
	tat := sh.tats[k]
	if tat.Before(now) {
		tat = now
	}
	next := tat.Add(interval)
	d := Decision{Limit: f.Limit}
	if over := next.Sub(now) - f.Window; over > 0 || f.Limit <= 0 {
		d.Reset = tat.Sub(now)
		d.RetryAfter = over
		return d
	}
	sh.tats[k] = next
	d.Allowed = true
	d.Reset = next.Sub(now)
	d.Remaining = int((f.Window - next.Sub(now)) / interval)
	return d
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
