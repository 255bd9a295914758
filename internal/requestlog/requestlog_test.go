package requestlog

import (
	"fmt"
	"testing"
)

func entry(i int, person string) Entry {
	return Entry{Method: "GET", Path: fmt.Sprintf("/api/v4/people/%d", i), Status: 200, PersonID: person}
}

// TestTailGetsRecentThenLive: a tail opens with the tenant's last Recent entries, then gets
// each new one; other tenants' never; a person's tail only that person's.
func TestTailGetsRecentThenLive(t *testing.T) {
	h := New()
	for i := range Recent + 5 {
		h.Publish("t1", entry(i, "p1"))
	}
	h.Publish("t2", entry(999, "p1"))
	all := h.Open("t1", "")
	mine := h.Open("t1", "p2")
	h.Publish("t1", entry(100, "p2"))
	h.Publish("t1", entry(101, "p1"))
	all.Close()
	mine.Close()
	var paths []string
	for e := range all.C {
		paths = append(paths, e.Path)
	}
	if len(paths) != Recent+2 || paths[0] != "/api/v4/people/5" || paths[Recent-1] != fmt.Sprintf("/api/v4/people/%d", Recent+4) ||
		paths[Recent] != "/api/v4/people/100" || paths[Recent+1] != "/api/v4/people/101" {
		t.Errorf("the owner's tail: %v", paths)
	}
	var own []string
	for e := range mine.C {
		own = append(own, e.Path)
	}
	if len(own) != 1 || own[0] != "/api/v4/people/100" {
		t.Errorf("p2's tail: %v", own)
	}
	if all.Dropped() || mine.Dropped() {
		t.Error("a closed tail is not a dropped one")
	}
	all.Close() // twice: nothing
}

// TestSlowTailIsDropped: a tail that does not read is dropped once its buffer is full, and
// publishing goes on without waiting (the loop would hang otherwise); the other tails go on.
func TestSlowTailIsDropped(t *testing.T) {
	h := New()
	slow := h.Open("t1", "")
	fast := h.Open("t1", "")
	got := 0
	for i := range TailBuffer * 4 {
		h.Publish("t1", entry(i, "p1"))
		for len(fast.C) > 0 {
			<-fast.C
			got++
		}
	}
	n := 0
	for range slow.C { // closed: the loop ends
		n++
	}
	if !slow.Dropped() || n != TailBuffer+Recent {
		t.Errorf("slow tail: dropped %v after %d entries", slow.Dropped(), n)
	}
	if fast.Dropped() || got != TailBuffer*4 {
		t.Errorf("fast tail: dropped %v, %d entries", fast.Dropped(), got)
	}
	fast.Close()
}

// TestMemoryIsBounded: the recent entries of at most MaxTenants tenants are kept, those with
// an open tail always.
func TestMemoryIsBounded(t *testing.T) {
	h := New()
	tail := h.Open("watched", "")
	for i := range MaxTenants * 2 {
		h.Publish(fmt.Sprintf("t%d", i), entry(i, "p"))
	}
	if n := len(h.tenants); n > MaxTenants {
		t.Errorf("%d tenants kept", n)
	}
	h.Publish("watched", entry(1, "p"))
	if e := <-tail.C; e.Path != "/api/v4/people/1" {
		t.Errorf("the watched tenant's tail: %+v", e)
	}
	h.CloseAll()
	if _, ok := <-tail.C; ok {
		t.Error("CloseAll left a tail open")
	}
	if after := h.Open("watched", ""); after != nil {
		if _, ok := <-after.C; ok {
			t.Error("a tail opened after CloseAll is open")
		}
	}
}
