package ratelimit

import (
	"hash/maphash"
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
