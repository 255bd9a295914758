package storage

import (
	"errors"
	"fmt"
	"sync"
)

// groupCommit commits the writes given to Batch together, with no timer: a write that finds no
// commit under way starts one at once, and the writes that arrive while a commit runs (its
// fsync, mostly) or waits for the writer wait and share the next. A lone write pays one commit,
// not bbolt's batch delay on top; under load a batch is as large as what arrived during the
// previous commit and the wait for the writer. As with
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

// lead commits the calls waiting as one group, then hands the lead to the first call that came
// meanwhile (so no goroutine commits for others forever), or gives it up.
func (g *groupCommit) lead() {
	g.commit()
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

// take removes and returns the calls waiting.
func (g *groupCommit) take() []*batchCall {
	g.mu.Lock()
	defer g.mu.Unlock()
	calls := g.waiting
	g.waiting = nil
	return calls
}

// commit runs the calls waiting in one read-write transaction and gives each the outcome. It
// takes them once the transaction holds the writer, not before: those that came while it
// waited for the writer (on PostgreSQL, another node's commit) share it instead of waiting for
// the next. A call whose function fails is told to run alone and the rest are committed again
// without it.
func (g *groupCommit) commit() {
	var calls []*batchCall
	taken := false
	for {
		failed := -1
		err := g.update(func(tx kvTx) error {
			if !taken {
				calls, taken = g.take(), true
			}
			for i, c := range calls {
				if err := callSafely(c.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if !taken { // the transaction failed before it held the writer: the calls get its error
			calls, taken = g.take(), true
		}
		if failed >= 0 {
			calls[failed].done <- errSolo
			if calls = append(calls[:failed], calls[failed+1:]...); len(calls) == 0 {
				return
			}
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
