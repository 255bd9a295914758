package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestReadAhead walks 600 index entries through readAhead on both backends: every record
// handed over once, in the walk's order, nil for a missing one, across chunks of growing size;
// a stop ends the walk there (no record after it handed over, add false); a page-sized start.
func TestReadAhead(t *testing.T) {
	const n = 600
	keyOf := func(i int) []byte { return fmt.Appendf(nil, "r%04d", i) }
	check := func(t *testing.T, write func(func(kvTx) error) error) {
		err := write(func(tx kvTx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("ra"))
			if err != nil {
				return err
			}
			for i := range n {
				if i%7 == 3 {
					continue // an entry whose record is gone
				}
				if err := b.Put(keyOf(i), fmt.Appendf(nil, "v%d", i)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ size, stopAt int }{{aheadFirst, 0}, {aheadFirst, 300}, {10, 10}, {50, 1}, {1000, 599}} {
			err := write(func(tx kvTx) error {
				b := tx.Bucket([]byte("ra"))
				calls := 0
				ahead := newReadAhead(b, c.size, func(k, raw []byte) bool {
					want := fmt.Sprintf("v%d", calls)
					if string(k) != string(keyOf(calls)) || (calls%7 == 3) != (raw == nil) || (raw != nil && string(raw) != want) {
						t.Errorf("size %d, call %d: %s = %q", c.size, calls, k, raw)
					}
					calls++
					return c.stopAt == 0 || calls < c.stopAt // 0: never
				})
				added := 0
				for i := range n {
					added++
					if !ahead.add(keyOf(i)) {
						break
					}
				}
				more := ahead.flush()
				if want := c.stopAt; c.stopAt == 0 && (calls != n || !more) || c.stopAt > 0 && (calls != want || more) {
					t.Errorf("size %d, stop at %d: %d calls, %d added, flush %v", c.size, c.stopAt, calls, added, more)
				}
				if added-calls >= aheadMax {
					t.Errorf("size %d, stop at %d: %d entries gathered past the stop", c.size, c.stopAt, added-calls)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Run("bbolt", func(t *testing.T) {
		b, err := Open(filepath.Join(t.TempDir(), "ra.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		check(t, b.update)
	})
	t.Run("Postgres", func(t *testing.T) {
		p := openTestPostgres(t)
		check(t, func(fn func(kvTx) error) error { return p.write(context.Background(), fn) })
	})
}

// TestPageOfNamesAMissingRecord: an index entry naming a record that is not there fails the
// page, read ahead or not, rather than leaving a hole.
func TestPageOfNamesAMissingRecord(t *testing.T) {
	b, err := Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.update(func(tx kvTx) error {
		idx, err := tx.CreateBucketIfNotExists([]byte("idx"))
		if err != nil {
			return err
		}
		recs, err := tx.CreateBucketIfNotExists([]byte("recs"))
		if err != nil {
			return err
		}
		for _, id := range []string{"a", "b", "c"} {
			if err := idx.Put([]byte("t/p/"+id), nil); err != nil {
				return err
			}
			if id != "b" { // b's record is gone
				if err := recs.Put([]byte("t/"+id), fmt.Appendf(nil, `{"name":%q}`, id)); err != nil {
					return err
				}
			}
		}
		type rec struct{ Name string }
		recordKey := func(k []byte) []byte { return append([]byte("t/"), k[len("t/p/"):]...) }
		if got, n, err := pageOf[rec](idx, []byte("t/p/"), 0, 1, -1, recs, recordKey); err != nil || n != 3 || len(got) != 1 || got[0].Name != "a" {
			t.Errorf("the first of three = %v of %d, %v", got, n, err)
		}
		if _, _, err := pageOf[rec](idx, []byte("t/p/"), 0, 10, -1, recs, recordKey); err == nil {
			t.Error("a page over an entry naming a missing record: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
