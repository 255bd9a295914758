package server

import (
	"context"
	"errors"
	"testing"
)

// TestHeavyGate: one whole-collection load per tenant at once, n across tenants; a waiter that
// goes away leaves nothing held; every turn given back leaves no state.
func TestHeavyGate(t *testing.T) {
	g := newHeavyGate(2)
	ctx := context.Background()
	tryAcquire := func(tenant string) (func(), bool) {
		c, cancel := context.WithCancel(ctx)
		cancel() // a turn not free at once is not waited for
		release, err := g.acquire(c, tenant)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("acquire: %v", err)
			}
			return nil, false
		}
		return release, true
	}
	a1, err := g.acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tryAcquire("a"); ok {
		t.Fatal("a second load of tenant a ran while its first runs")
	}
	b1, ok := tryAcquire("b")
	if !ok {
		t.Fatal("tenant b waited for tenant a")
	}
	if _, ok := tryAcquire("c"); ok {
		t.Fatal("a third load ran with 2 slots")
	}
	// a waiter for a's turn gets it when a's first load gives it back
	got := make(chan func())
	go func() {
		r, err := g.acquire(ctx, "a")
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	a1()
	a2 := <-got
	a2()
	b1()
	a1() // twice: nothing more
	if c, ok := tryAcquire("c"); !ok {
		t.Fatal("no slot after every load ended")
	} else {
		c()
	}
	g.mu.Lock()
	n := len(g.tenants)
	g.mu.Unlock()
	if n != 0 || len(g.all) != 0 {
		t.Fatalf("state left: %d tenants, %d slots", n, len(g.all))
	}
}
