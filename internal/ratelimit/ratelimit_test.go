package ratelimit

import (
	"hash/maphash"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(func() time.Time { return now })
	f := Family{Name: "F", Limit: 3, Window: time.Minute}
	for i := range 3 {
		d := l.Take("k", f)
		if !d.Allowed || d.Remaining != 2-i || d.Limit != 3 {
			t.Fatalf("request %d: %+v", i, d)
		}
	}
	d := l.Take("k", f)
	if d.Allowed || d.Remaining != 0 || d.ResetSeconds() != 60 {
		t.Fatalf("4th request: %+v (reset %ds)", d, d.ResetSeconds())
	}
	if !l.Take("other", f).Allowed || !l.Take("k", Family{Name: "G", Limit: 1, Window: time.Minute}).Allowed {
		t.Fatal("subjects and families must be counted apart")
	}
	now = now.Add(45 * time.Second)
	if d := l.Take("k", f); d.Allowed || d.ResetSeconds() != 15 {
		t.Fatalf("same window later: %+v", d)
	}
	now = now.Add(15 * time.Second)
	if d := l.Take("k", f); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("new window: %+v", d)
	}
}

func TestSweepForgetsOldWindows(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(func() time.Time { return now })
	f := Family{Name: "F", Limit: 1, Window: time.Minute}
	for _, s := range []string{"a", "b", "c", "d"} {
		l.Take(s, f)
	}
	now = now.Add(2 * time.Hour)
	l.Take("a", f)
	sh := &l.shards[maphash.String(l.seed, "a")%shards]
	for k, w := range sh.windows {
		if now.Sub(w.start) > time.Hour {
			t.Errorf("stale window %v kept in the swept shard", k)
		}
	}
	if _, ok := sh.windows[slot{"a", "F"}]; !ok {
		t.Error("the live window was swept")
	}
}
