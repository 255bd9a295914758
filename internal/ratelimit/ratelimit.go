// Package ratelimit counts requests per subject (an API key, or an address for requests without
// one) and per family, in fixed windows, and tells the RateLimit-* header values.
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
	Reset     time.Duration // until the window ends
}

// ResetSeconds is Reset rounded up to whole seconds, at least 1 (for RateLimit-Reset and
// Retry-After).
func (d Decision) ResetSeconds() int {
	s := int((d.Reset + time.Second - 1) / time.Second)
	return max(s, 1)
}

type window struct {
	start time.Time
	count int
}

type slot struct {
	subject string
	family  string
}

const shards = 64

type shard struct {
	mu        sync.Mutex
	windows   map[slot]*window
	lastSweep time.Time
}

// Limiter is safe for concurrent use.
type Limiter struct {
	now    func() time.Time
	seed   maphash.Seed
	shards [shards]shard
}

// New returns a limiter reading time from now.
func New(now func() time.Time) *Limiter {
	l := &Limiter{now: now, seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].windows = map[slot]*window{}
	}
	return l
}

// Take counts one request of subject in family f and tells whether it may run. A refused
// request is not counted.
func (l *Limiter) Take(subject string, f Family) Decision {
	now := l.now()
	sh := &l.shards[maphash.String(l.seed, subject)%shards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if now.Sub(sh.lastSweep) > time.Minute {
		sh.sweep(now)
	}
	k := slot{subject, f.Name}
	w := sh.windows[k]
	if w == nil || now.Sub(w.start) >= f.Window {
		w = &window{start: now}
		sh.windows[k] = w
	}
	d := Decision{Limit: f.Limit, Reset: w.start.Add(f.Window).Sub(now)}
	if w.count >= f.Limit {
		return d
	}
	w.count++
	d.Allowed = true
	d.Remaining = f.Limit - w.count
	return d
}

// sweep forgets windows that started more than an hour ago. Each shard sweeps itself when used,
// at most once a minute, so the maps do not grow without bound.
func (sh *shard) sweep(now time.Time) {
	for k, w := range sh.windows {
		if now.Sub(w.start) > time.Hour {
			delete(sh.windows, k)
		}
	}
	sh.lastSweep = now
}
