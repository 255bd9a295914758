package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestGroupCommit: concurrent writes through Batch are all committed, each once; a write whose
// function fails gets its own error and leaves nothing, the others of its group commit; a
// write that panics panics in its own goroutine; no writer waits forever (the lead passes on).
func TestGroupCommit(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	name := []byte("gc_test")
	if err := st.db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket(name); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var wg sync.WaitGroup
	const writers, each = 32, 50
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				k := fmt.Sprintf("%02d-%03d", w, i)
				err := st.Batch(context.Background(), func(tx Tx) error {
					if i%10 == 7 {
						return boom // fails: nothing of it stays
					}
					return tx.(collections).tx.Bucket(name).Put([]byte(k), []byte("v"))
				})
				if i%10 == 7 {
					if !errors.Is(err, boom) {
						errs <- fmt.Errorf("%s: failing write got %v", k, err)
					}
				} else if err != nil {
					errs <- fmt.Errorf("%s: %v", k, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := 0
	if err := st.db.View(func(tx *bolt.Tx) error { n = tx.Bucket(name).Stats().KeyN; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := writers * each * 9 / 10; n != want {
		t.Fatalf("%d keys committed, want %d", n, want)
	}
	defer func() {
		if p := recover(); p == nil {
			t.Fatal("a panicking write did not panic in its caller")
		}
	}()
	_ = st.Batch(context.Background(), func(Tx) error { panic("in a write") })
}

// TestGroupCommitTakesWhatCameWhileWaiting: the writes that come while a group's transaction
// waits for the writer (on PostgreSQL, another node's commit) join that transaction.
func TestGroupCommitTakesWhatCameWhileWaiting(t *testing.T) {
	gate := make(chan struct{})
	var ran atomic.Int32
	var sizes []int
	g := &groupCommit{}
	g.update = func(fn func(kvTx) error) error {
		if len(sizes) == 0 {
			<-gate // the first transaction waits for the writer
		}
		before := ran.Load()
		err := fn(nil)
		sizes = append(sizes, int(ran.Load()-before))
		return err
	}
	write := func(kvTx) error { ran.Add(1); return nil }
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := g.do(write); err != nil {
				t.Error(err)
			}
		})
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		g.mu.Lock()
		n := len(g.waiting)
		g.mu.Unlock()
		if n == 4 { // the leader's own and three that came while it waits
			break
		}
	}
	close(gate)
	wg.Wait()
	if fmt.Sprint(sizes) != "[4]" {
		t.Fatalf("transactions of %v writes; want one of 4", sizes)
	}
}
