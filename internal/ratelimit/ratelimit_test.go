package ratelimit

import (
	"context"
	"errors"
	"hash/maphash"
	"sync"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(func() time.Time { return now })
	f := Family{Name: "F", Limit: 3, Window: time.Minute} // one request every 20 s, 3 at once
	for _, c := range []struct {
		name         string
		wait         time.Duration
		allowed      bool
		remaining    int
		reset, retry int // seconds
	}{
		{"first of a burst", 0, true, 2, 20, 0},
		{"second", 0, true, 1, 40, 0},
		{"third: the limit", 0, true, 0, 60, 0},
		{"fourth at once: refused, one more in 20 s", 0, false, 0, 60, 20},
		{"5 s later: 15 s to wait", 5 * time.Second, false, 0, 55, 15},
		{"15 s later: one more", 15 * time.Second, true, 0, 60, 0},
		{"at once again: refused", 0, false, 0, 60, 20},
		{"a quiet minute: the whole limit", time.Minute, true, 2, 20, 0},
	} {
		now = now.Add(c.wait)
		d := l.Take("k", f)
		if d.Allowed != c.allowed || d.Remaining != c.remaining || d.Limit != 3 || d.ResetSeconds() != c.reset ||
			(!c.allowed && d.RetryAfterSeconds() != c.retry) {
			t.Fatalf("%s: %+v (reset %ds, retry %ds)", c.name, d, d.ResetSeconds(), d.RetryAfterSeconds())
		}
	}
	if !l.Take("other", f).Allowed || !l.Take("k", Family{Name: "G", Limit: 1, Window: time.Minute}).Allowed {
		t.Fatal("subjects and families must be counted apart")
	}
}

// TestNoEdgeBurst: fixed windows let a whole limit through at the end of one window and another
// at the start of the next, twice the limit in a moment. Here a second burst right after the
// first gets only what the rate has given back meanwhile.
func TestNoEdgeBurst(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(func() time.Time { return now })
	f := Family{Name: "F", Limit: 100, Window: time.Minute}
	burst := func() int {
		n := 0
		for range f.Limit {
			if l.Take("k", f).Allowed {
				n++
			}
		}
		return n
	}
	l.Take("k", f)                                       // a fixed window would start here
	now = now.Add(59*time.Second + 990*time.Millisecond) // and end here
	if n := burst(); n != 100 {
		t.Fatalf("first burst: %d of 100", n)
	}
	now = now.Add(20 * time.Millisecond) // the start of the next fixed window
	if n := burst(); n != 0 {
		t.Fatalf("a second burst 20 ms later passed %d more", n)
	}
	now = now.Add(30 * time.Second) // half a window: half the limit back
	if n := burst(); n != 50 {
		t.Fatalf("after half a window: %d, want 50", n)
	}
}

func TestZeroLimitRefusesAll(t *testing.T) {
	l := New(nil)
	if d := l.Take("k", Family{Name: "Z", Window: time.Minute}); d.Allowed {
		t.Fatalf("a family of 0 allowed a request: %+v", d)
	}
}

func TestSweepForgetsRecoveredSubjects(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(func() time.Time { return now })
	f := Family{Name: "F", Limit: 1, Window: time.Minute}
	for _, s := range []string{"a", "b", "c", "d"} {
		l.Take(s, f)
	}
	now = now.Add(2 * time.Hour)
	l.Take("a", f)
	sh := &l.shards[maphash.String(l.seed, "a")%shards]
	for k, tat := range sh.tats {
		if tat.Before(now) {
			t.Errorf("recovered slot %v kept in the swept shard", k)
		}
	}
	if _, ok := sh.tats[slot{"a", "F"}]; !ok {
		t.Error("the live slot was swept")
	}
}

// memTimes is Times in memory, as PostgreSQL keeps them; busy makes the next swaps fail as if
// another node had changed the time.
type memTimes struct {
	mu    sync.Mutex
	tats  map[string]time.Time
	busy  int
	fail  error
	swaps int
}

func (m *memTimes) Load(_ context.Context, subject, family string) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tats[subject+"/"+family], m.fail
}

func (m *memTimes) Swap(_ context.Context, subject, family string, old, next time.Time) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.swaps++
	if m.busy > 0 {
		m.busy--
		return false, nil
	}
	if !m.tats[subject+"/"+family].Equal(old) {
		return false, nil
	}
	m.tats[subject+"/"+family] = next
	return true, nil
}

func (m *memTimes) Forget(_ context.Context, t time.Time) error { return nil }

// TestSharedLimit: with shared times, two limiters (two nodes) decide as one would: a subject's
// requests count together, whichever node takes them; a swap lost to another node is tried
// again; times that cannot be read let the request through and say so.
func TestSharedLimit(t *testing.T) {
	now := time.Unix(1000, 0)
	clock := func() time.Time { return now }
	times := &memTimes{tats: map[string]time.Time{}}
	var logged []error
	nodes := []*Limiter{New(clock), New(clock)}
	for _, l := range nodes {
		l.Share(times, func(err error) { logged = append(logged, err) })
	}
	f := Family{Name: "F", Limit: 3, Window: time.Minute}
	allowed := 0
	for i := range 5 {
		if nodes[i%2].Take("k", f).Allowed {
			allowed++
		}
	}
	if allowed != 3 {
		t.Fatalf("%d of 5 requests allowed over two nodes, want 3", allowed)
	}
	d := nodes[0].Take("k", f)
	if d.Allowed || d.RetryAfterSeconds() != 20 {
		t.Fatalf("refused request: %+v", d)
	}
	now = now.Add(20 * time.Second)
	times.busy = 2 // another node changed the time twice meanwhile
	before := times.swaps
	if !nodes[1].Take("k", f).Allowed || times.swaps != before+3 {
		t.Fatalf("after two lost swaps: %d swaps", times.swaps-before)
	}
	times.fail = errors.New("connection refused")
	if d := nodes[0].Take("k", f); !d.Allowed || len(logged) != 1 {
		t.Fatalf("times that do not answer: %+v, logged %v", d, logged)
	}
}
