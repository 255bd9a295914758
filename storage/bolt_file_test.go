package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// freeMany writes 1,000 values of 64 KiB (16,000 pages) into a scratch bucket and deletes it, so
// that the file holds that many free pages.
func freeMany(t *testing.T, st *Bolt) {
	t.Helper()
	name := []byte("freelist_test")
	big := make([]byte, 64<<10)
	err := st.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(name)
		if err != nil {
			return err
		}
		for i := range 1000 {
			if err := b.Put(fmt.Appendf(nil, "%04d", i), big); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.db.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket(name) }); err != nil {
		t.Fatal(err)
	}
}

// smallWrite writes one person of another tenant, as an API write does, and returns the pages
// its commit allocated.
func smallWrite(t *testing.T, st *Bolt, i int) int64 {
	t.Helper()
	before := st.db.Stats()
	at := time.Now().UTC()
	err := st.Update(context.Background(), func(tx Tx) error {
		return tx.People("other").Put(Person{ID: fmt.Sprintf("p%06d", i), LegalName: "Persona", Email: fmt.Sprintf("p%d@other.test", i), CreatedAt: at, UpdatedAt: at})
	})
	if err != nil {
		t.Fatal(err)
	}
	after := st.db.Stats()
	d := after.Sub(&before)
	return d.TxStats.GetPageCount()
}

// TestFreedPagesCostNoCommit: once many pages are free (a purge, a deletion), a small write's
// commit allocates no more pages than before. bbolt's default wrote the whole list of free pages
// in every commit: 16,000 free pages took 32 more pages in each, any tenant's.
func TestFreedPagesCostNoCommit(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "f.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	smallWrite(t, st, 0) // the buckets and counts of the tenant exist from here on
	var before int64
	for i := 1; i <= 5; i++ {
		before = max(before, smallWrite(t, st, i))
	}
	freeMany(t, st)
	if s := st.db.Stats(); s.FreePageN+s.PendingPageN < 16000 {
		t.Fatalf("%d free pages after the deletion, want at least 16,000", s.FreePageN+s.PendingPageN)
	}
	for i := 6; i <= 10; i++ {
		if got := smallWrite(t, st, i); got > before+2 {
			t.Fatalf("a small write allocated %d pages with 16,000 free, %d before: the free pages cost every commit", got, before)
		}
	}
}

// listOnDisk tells whether the newest meta page of the bbolt file at path names a page holding
// the list of free pages (bbolt's format: after the 16-byte page header, magic, version, page
// size and flags, 4 bytes each, the root bucket, 16, the list's page id, 8, the high water
// mark, 8, and the transaction id, 8; an id of all ones is no list).
func listOnDisk(t *testing.T, path string) bool {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := func(i int) (txid, freelist uint64) {
		m := raw[i*os.Getpagesize()+16:]
		return binary.LittleEndian.Uint64(m[48:]), binary.LittleEndian.Uint64(m[32:])
	}
	tx0, list0 := meta(0)
	tx1, list1 := meta(1)
	if tx1 > tx0 {
		list0 = list1
	}
	return list0 != ^uint64(0)
}

// TestFreePagesFoundOnOpen: the free pages, kept in memory only, are found again when the file is
// opened, and reused: writing as much again after a reopen does not grow the file; the records
// written before are all there.
func TestFreePagesFoundOnOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		smallWrite(t, st, i)
	}
	freeMany(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	grown := size()
	if !listOnDisk(t, path) {
		t.Fatal("Close did not write the list of free pages: the next open walks the file")
	}
	if st, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := st.db.Stats().FreePageN; n < 16000 {
		t.Fatalf("%d free pages found on open, want at least 16,000", n)
	}
	freeMany(t, st)
	if now := size(); now > grown {
		t.Fatalf("the file grew from %d to %d bytes: the free pages were not reused after the reopen", grown, now)
	}
	var n int
	err = st.View(context.Background(), func(tx Tx) error {
		ps, total, err := tx.People("other").List(0, 100)
		if err == nil && total != len(ps) {
			err = fmt.Errorf("total %d, %d listed", total, len(ps))
		}
		n = len(ps)
		return err
	})
	if err != nil || n != 20 {
		t.Fatalf("%d people after the reopen (%v), want 20", n, err)
	}
}

// copyOpen is a copy of the file at path, open or not, as a crash would leave it: what the last
// commit wrote, the list of free pages not among it.
func copyOpen(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "crashed.db")
	if err := os.WriteFile(cp, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return cp
}

// TestFreePagesFoundAfterACrash: a file left without its list of free pages (the server did not
// close it) opens with them found by the walk, and reuses them.
func TestFreePagesFoundAfterACrash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 20 {
		smallWrite(t, st, i)
	}
	freeMany(t, st)
	smallWrite(t, st, 20) // a commit after the deletion: its pages are free on disk
	crashed := copyOpen(t, path)
	if listOnDisk(t, crashed) {
		t.Fatal("the open file carries a list of free pages: every commit writes it")
	}
	grown, err := os.Stat(crashed)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(crashed)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n := c.db.Stats().FreePageN; n < 16000 {
		t.Fatalf("%d free pages found in a file not closed, want at least 16,000", n)
	}
	freeMany(t, c)
	if now, err := os.Stat(crashed); err != nil || now.Size() > grown.Size() {
		t.Fatalf("the file grew from %d bytes (%v): the free pages of a file not closed were not reused", grown.Size(), err)
	}
}

// TestInspectDamagedFileNotClosed: Inspect (timbra server check) of a damaged file that was not
// closed reports the damage; bbolt's own walk for its free pages would crash the process.
func TestInspectDamagedFileNotClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 50 {
		smallWrite(t, st, i)
	}
	damaged := copyOpen(t, path)
	raw, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	for i := 3 * os.Getpagesize(); i < len(raw); i++ {
		raw[i] = byte(i*7 + 13)
	}
	if err := os.WriteFile(damaged, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Inspect(damaged)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Problems, func(p string) bool { return strings.HasPrefix(p, "integrity:") }) {
		t.Fatalf("problems %q: want an integrity problem", r.Problems)
	}
}

// TestSnapshotIsRemovedWhenClosed: the snapshot is a sound copy of the size it says, in a file
// beside the database (mode 0600) that its Close removes.
func TestSnapshotIsRemovedWhenClosed(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 20 {
		smallWrite(t, st, i)
	}
	snap, size, err := st.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".timbra-backup-*"))
	if len(left) != 1 {
		t.Fatalf("snapshot files beside the database: %q", left)
	}
	if fi, err := os.Stat(left[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the snapshot's file: %v %v", fi.Mode(), err)
	}
	raw, err := io.ReadAll(snap)
	if err != nil || int64(len(raw)) != size {
		t.Fatalf("read %d of %d bytes: %v", len(raw), size, err)
	}
	if err := snap.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".timbra-backup-*")); len(left) != 0 {
		t.Fatalf("left beside the database after Close: %q", left)
	}
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(copyPath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, err := Inspect(copyPath); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("the snapshot is not sound: %v %v", err, rep.Problems)
	}
}
