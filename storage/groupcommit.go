package storage

import (
	"errors"
	"fmt"
	"sync"
)

// groupCommit commits the writes given to Batch together, with no timer: a write that finds no
// commit under way starts one at once, and the writes that arrive while a commit runs (its
// fsync, mostly) wait and share the next. A lone write pays one commit, not bbolt's batch delay
// on top; under load a batch is as large as what arrived during the previous commit. As with
// bbolt's Batch, a function may run more than once: when one returns an error the group is
// rolled back, that function runs again alone (its error is its own) and the others are
// committed without it.
type groupCommit struct {
	// update runs fn in one read-write transaction of the backend and commits it.
	update  func(fn func(kvTx) error) error
	mu      sync.Mutex
	waiting []*batchCall
	leading bool // a goroutine is committing groups; only it takes waiting calls
}

type batchCall struct {
	fn   func(kvTx) error
	done chan error // the outcome, errSolo, or errLead
}

var (
	// errSolo: the call's function failed in a group; run it alone for its own error.
	errSolo = errors.New("storage: run the write alone")
	// errLead: the call is to commit the waiting group (its own included).
	errLead = errors.New("storage: lead the next commit")
)

func (g *groupCommit) do(fn func(kvTx) error) error {
	c := &batchCall{fn: fn, done: make(chan error, 1)}
	g.mu.Lock()
	g.waiting = append(g.waiting, c)
	lead := !g.leading
	g.leading = true
	g.mu.Unlock()
	if lead {
		g.lead()
	}
	for {
		switch err := <-c.done; err {
		case errLead:
			g.lead()
		case errSolo:
			return g.update(fn)
		default:
			return err
		}
	}
}

// lead commits the calls waiting now as one group, then hands the lead to the first call that
// came meanwhile (so no goroutine commits for others forever), or gives it up.
func (g *groupCommit) lead() {
	g.mu.Lock()
	calls := g.waiting
	g.waiting = nil
	g.mu.Unlock()
	g.commit(calls)
	g.mu.Lock()
	if len(g.waiting) == 0 {
		g.leading = false
		g.mu.Unlock()
		return
	}
	next := g.waiting[0]
	g.mu.Unlock()
	next.done <- errLead
}

// commit runs the calls in one read-write transaction and gives each the outcome; a call whose
// function fails is told to run alone and the rest are committed again without it.
func (g *groupCommit) commit(calls []*batchCall) {
	for len(calls) > 0 {
		failed := -1
		err := g.update(func(tx kvTx) error {
			for i, c := range calls {
				if err := callSafely(c.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed >= 0 {
			calls[failed].done <- errSolo
			calls = append(calls[:failed], calls[failed+1:]...)
			continue
		}
		for _, c := range calls {
			c.done <- err
		}
		return
	}
}

// callSafely runs fn, a panic turned into an error (the call then runs alone, and panics there,
// in its own goroutine).
func callSafely(fn func(kvTx) error, tx kvTx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("storage: a write panicked: %v", p)
		}
	}()
	return fn(tx)
}
