package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestMigration19 starts from a schema-18 database with a download rule and checks that the
// download-request buckets are added without touching it.
func TestMigration19(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 18) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketDownloadRules).Put([]byte("t/r"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 19) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketDownloadRequests, bucketDownloadRequestsActive, bucketDownloadPackages, bucketDownloadItems} {
			if tx.Bucket(b) == nil {
				t.Errorf("%s missing after migration 19", b)
			}
		}
		if tx.Bucket(bucketDownloadRules).Get([]byte("t/r")) == nil {
			t.Error("migration 19 lost a rule")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 19 {
			t.Errorf("schema version = %d, want 19", v)
		}
		return nil
	})
}

// TestDownloadRequests: requests are tenant-scoped and counted; the active index follows
// Active, with the next attempt; a package is stored in chunks and read back whole; items keep their order and page;
// a delete takes the packages and items with it.
func TestDownloadRequests(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	next := now.Add(time.Minute)                                        // r3's next attempt, in the active index
	big := bytes.Repeat([]byte("0123456789abcdef"), chunkSize/16*2+100) // two chunks and a bit
	err = db.Update(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		for _, id := range []string{"r1", "r2"} {
			if err := rs.Put(DownloadRequest{ID: id, Active: id == "r1", CreatedAt: now}); err != nil {
				return err
			}
		}
		if err := tx.DownloadRequests("b").Put(DownloadRequest{ID: "r3", Active: true, NextAttemptDate: &next}); err != nil {
			return err
		}
		if n, err := rs.PutPackage("r1", "p_01", bytes.NewReader(big)); err != nil || n != int64(len(big)) {
			return fmt.Errorf("put package: %d %v", n, err)
		}
		for i := range 5 {
			if err := rs.AddItem("r1", ItemMetadata, []byte(fmt.Sprint(i))); err != nil {
				return err
			}
		}
		return rs.AddItem("r1", ItemXML, []byte("x"))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		list, total, err := rs.List(0, 10)
		if err != nil || total != 2 || len(list) != 2 || list[0].ID != "r1" || list[0].TenantID != "a" {
			t.Errorf("list %+v %d %v", list, total, err)
		}
		active, _ := tx.ActiveDownloadRequests()
		if len(active) != 2 || active[0] != (ActiveDownload{TenantID: "a", RequestID: "r1"}) || active[1] != (ActiveDownload{TenantID: "b", RequestID: "r3", Next: next}) {
			t.Errorf("active %v", active)
		}
		var got bytes.Buffer
		if err := rs.Package("r1", "p_01", &got); err != nil || !bytes.Equal(got.Bytes(), big) {
			t.Errorf("package: %d bytes, %v", got.Len(), err)
		}
		if err := rs.Package("r1", "p_02", &got); err != ErrNotFound {
			t.Errorf("absent package: %v", err)
		}
		// ReadPackageAt: within a chunk, across two, to the last byte; past the end; absent
		for _, c := range []struct{ off, n int }{{5, 10}, {chunkSize - 3, 7}, {0, chunkSize * 2}, {len(big) - 4, 4}} {
			p := make([]byte, c.n)
			if err := rs.ReadPackageAt("r1", "p_01", p, int64(c.off)); err != nil || !bytes.Equal(p, big[c.off:c.off+c.n]) {
				t.Errorf("ReadPackageAt %d+%d: %v", c.off, c.n, err)
			}
		}
		if err := rs.ReadPackageAt("r1", "p_01", make([]byte, 5), int64(len(big)-4)); err != io.ErrUnexpectedEOF {
			t.Errorf("ReadPackageAt past the end: %v", err)
		}
		if err := rs.ReadPackageAt("r1", "p_01", make([]byte, 1), int64(len(big))+chunkSize); err != io.ErrUnexpectedEOF {
			t.Errorf("ReadPackageAt a chunk past the end: %v", err)
		}
		if err := rs.ReadPackageAt("r1", "p_02", make([]byte, 1), 0); err != ErrNotFound {
			t.Errorf("ReadPackageAt an absent package: %v", err)
		}
		items, total, _ := rs.Items("r1", ItemMetadata, 1, 2)
		if total != 5 || len(items) != 2 || string(items[0]) != "1" || string(items[1]) != "2" {
			t.Errorf("items %q %d", items, total)
		}
		return nil
	})
	db.Update(ctx, func(tx Tx) error {
		r, _ := tx.DownloadRequests("a").Get("r1")
		r.Active = false
		tx.DownloadRequests("a").Put(r)
		return tx.DownloadRequests("a").Delete("r1")
	})
	db.View(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		if _, err := rs.Get("r1"); err != ErrNotFound {
			t.Errorf("deleted: %v", err)
		}
		if _, total, _ := rs.Items("r1", ItemMetadata, 0, 10); total != 0 {
			t.Errorf("items after delete: %d", total)
		}
		if err := rs.Package("r1", "p_01", &bytes.Buffer{}); err != ErrNotFound {
			t.Errorf("package after delete: %v", err)
		}
		if _, total, _ := rs.List(0, 10); total != 1 {
			t.Errorf("total after delete %d", total)
		}
		active, _ := tx.ActiveDownloadRequests()
		if len(active) != 1 {
			t.Errorf("active after delete %v", active)
		}
		return nil
	})
}

// TestDownloadPackageInParts: a package stored chunk by chunk in several transactions reads back
// whole; DeletePackage clears it; TruncateItems keeps the first entries of a kind only.
func TestDownloadPackageInParts(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	parts := [][]byte{[]byte("PK0123"), []byte("4567"), []byte("89")}
	for i, p := range parts {
		err := db.Update(ctx, func(tx Tx) error {
			rs := tx.DownloadRequests("a")
			if err := rs.PutPackageChunk("r1", "p_01", i, p); err != nil {
				return err
			}
			for j := range 3 {
				if err := rs.AddItem("r1", ItemXML, fmt.Appendf(nil, "%d.%d", i, j)); err != nil {
					return err
				}
			}
			return rs.AddItem("r1", ItemMetadata, []byte("m"))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err = db.Update(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		var got bytes.Buffer
		if err := rs.Package("r1", "p_01", &got); err != nil || got.String() != "PK0123456789" {
			t.Errorf("package %q %v", got.String(), err)
		}
		if n, err := rs.TruncateItems("r1", ItemXML, 4); err != nil || n != 5 {
			t.Errorf("truncate: %d %v", n, err)
		}
		if n, err := rs.TruncateItems("r1", ItemXML, 10); err != nil || n != 0 {
			t.Errorf("truncate beyond: %d %v", n, err)
		}
		items, total, _ := rs.Items("r1", ItemXML, 0, 10)
		if total != 4 || string(items[3]) != "1.0" {
			t.Errorf("after truncate: %q", items)
		}
		if _, total, _ := rs.Items("r1", ItemMetadata, 0, 10); total != 3 {
			t.Errorf("another kind: %d", total)
		}
		if err := rs.DeletePackage("r1", "p_01"); err != nil {
			return err
		}
		if err := rs.Package("r1", "p_01", &got); err != ErrNotFound {
			t.Errorf("deleted package: %v", err)
		}
		// the next item after a truncate follows the kept ones
		if err := rs.AddItem("r1", ItemXML, []byte("new")); err != nil {
			return err
		}
		items, total, _ = rs.Items("r1", ItemXML, 4, 1)
		if total != 5 || string(items[0]) != "new" {
			t.Errorf("after add: %q %d", items, total)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// searchIndexOf reads every entry of download_requests_by and every counter of it, as text:
// "<tenant> <field> <value> <id>" and "<tenant> <field> <value> = <count>".
func searchIndexOf(t *testing.T, tx *bolt.Tx) (entries, counters []string) {
	t.Helper()
	read := func(b []byte) string {
		tenant, rest, _ := bytes.Cut(b, []byte("/"))
		f, rest, _ := bytes.Cut(rest, []byte("/"))
		n, k := binary.Uvarint(rest)
		return fmt.Sprintf("%s %s %s|%s", tenant, f, rest[k:k+int(n)], rest[k+int(n):])
	}
	tx.Bucket(bucketDownloadRequestsBy).ForEach(func(k, _ []byte) error {
		entries = append(entries, read(k))
		return nil
	})
	prefix := append(bytes.Clone(bucketDownloadRequestsBy), '/')
	c := tx.Bucket(bucketCounts).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		counters = append(counters, fmt.Sprintf("%s = %d", read(k[len(prefix):]), binary.BigEndian.Uint64(v)))
	}
	sort.Strings(entries)
	sort.Strings(counters)
	return entries, counters
}

// TestDownloadRequestsSearchIndex: each request is under every non-empty searched field
// (folded) and its creation day in UTC, each value counted; a Put that changes the status
// moves the entry, one that changes nothing writes the same, a delete removes them; the
// summary reads back; CountBy and EachBy read the index in creation order.
func TestDownloadRequestsSearchIndex(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	day := time.Date(2026, 11, 20, 23, 30, 0, 0, time.FixedZone("CST", -6*3600)) // 21 Nov in UTC
	r1 := DownloadRequest{ID: "r1", DownloadTypeID: "Emitidos", DownloadRequestTypeID: "Manual", SatQueryTypeID: "CFDI",
		RequesterTin: "eku9003173c9", DownloadRequestStatusID: "Pending", CreatedAt: day}
	r2 := r1
	r2.ID, r2.DownloadRuleID, r2.SatQueryTypeID = "r2", "rule-1", "Metadata"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.Update(ctx, func(tx Tx) error {
		for _, r := range []DownloadRequest{r1, r2} {
			if err := tx.DownloadRequests("a").Put(r); err != nil {
				return err
			}
		}
		r2.DownloadRequestStatusID = "Completed"
		if err := tx.DownloadRequests("a").Put(r2); err != nil {
			return err
		}
		if err := tx.DownloadRequests("a").Put(r2); err != nil { // the same again
			return err
		}
		return tx.DownloadRequests("b").Put(r1)
	}))
	must(db.db.View(func(tx *bolt.Tx) error {
		entries, counters := searchIndexOf(t, tx)
		want := []string{"a d 2026-11-21|r1", "a d 2026-11-21|r2", "a k MANUAL|r1", "a k MANUAL|r2", "a n EKU9003173C9|r1", "a n EKU9003173C9|r2",
			"a q CFDI|r1", "a q METADATA|r2", "a r RULE-1|r2", "a s COMPLETED|r2", "a s PENDING|r1", "a t EMITIDOS|r1", "a t EMITIDOS|r2",
			"b d 2026-11-21|r1", "b k MANUAL|r1", "b n EKU9003173C9|r1", "b q CFDI|r1", "b s PENDING|r1", "b t EMITIDOS|r1"}
		if fmt.Sprint(entries) != fmt.Sprint(want) {
			t.Errorf("entries:\n%v\nwant\n%v", entries, want)
		}
		wantCounts := []string{"a d 2026-11-21| = 2", "a k MANUAL| = 2", "a n EKU9003173C9| = 2", "a q CFDI| = 1", "a q METADATA| = 1",
			"a r RULE-1| = 1", "a s COMPLETED| = 1", "a s PENDING| = 1", "a t EMITIDOS| = 2",
			"b d 2026-11-21| = 1", "b k MANUAL| = 1", "b n EKU9003173C9| = 1", "b q CFDI| = 1", "b s PENDING| = 1", "b t EMITIDOS| = 1"}
		if fmt.Sprint(counters) != fmt.Sprint(wantCounts) {
			t.Errorf("counters:\n%v\nwant\n%v", counters, wantCounts)
		}
		return nil
	}))
	must(db.View(ctx, func(tx Tx) error {
		rs := tx.DownloadRequests("a")
		if n, _ := rs.CountBy(RequestsByDay, "2026-11-21"); n != 2 {
			t.Errorf("count of the day = %d", n)
		}
		if n, _ := rs.CountBy(RequestsByStatus, "pending"); n != 1 {
			t.Errorf("count of pending = %d", n)
		}
		var walked []string
		if err := rs.EachBy(RequestsByRequester, "EKU9003173C9", func(id string) error { walked = append(walked, id); return nil }); err != nil {
			return err
		}
		if fmt.Sprint(walked) != "[r1 r2]" {
			t.Errorf("walk of the RFC: %v", walked)
		}
		walked = nil
		if err := rs.EachBy(RequestsByRequester, "EKU9003173C9", func(id string) error { walked = append(walked, id); return ErrStop }); err != nil {
			return err
		}
		if fmt.Sprint(walked) != "[r1]" {
			t.Errorf("a walk stopped at the first: %v", walked)
		}
		if s, err := rs.Summary("r2"); err != nil || s != (DownloadRequestSummary{ID: "r2", Day: "2026-11-21", Status: "Completed",
			DownloadType: "Emitidos", QueryType: "Metadata", RequestType: "Manual", Rule: "rule-1", Requester: "eku9003173c9"}) {
			t.Errorf("summary of r2: %+v %v", s, err)
		}
		if _, err := rs.Summary("nope"); err != ErrNotFound {
			t.Errorf("summary of an unknown request: %v", err)
		}
		for _, c := range []struct {
			f, g DownloadRequestField
			a, b string
			want int
		}{{RequestsByStatus, RequestsByRule, "completed", "RULE-1", 1}, {RequestsByRule, RequestsByStatus, "rule-1", "Pending", 0},
			{RequestsByRequester, RequestsByDay, "EKU9003173C9", "2026-11-21", 2}, {RequestsByStatus, RequestsByQueryType, "pending", "cfdi", 1},
			{RequestsByStatus, RequestsByStatus, "pending", "pending", 0}} {
			if n, err := rs.CountBoth(c.f, c.a, c.g, c.b); err != nil || n != c.want {
				t.Errorf("%c %q, %c %q: counted %d (%v), want %d", c.f, c.a, c.g, c.b, n, err, c.want)
			}
		}
		return nil
	}))
	must(db.Update(ctx, func(tx Tx) error { return tx.DownloadRequests("a").Delete("r2") }))
	must(db.View(ctx, func(tx Tx) error {
		if n, _ := tx.DownloadRequests("a").CountBoth(RequestsByStatus, "Completed", RequestsByRule, "rule-1"); n != 0 {
			t.Errorf("a deleted request still counted by its pair: %d", n)
		}
		if n, _ := tx.DownloadRequests("a").CountBoth(RequestsByRequester, "EKU9003173C9", RequestsByDay, "2026-11-21"); n != 1 {
			t.Errorf("the requests of the RFC and day after a delete: %d", n)
		}
		return nil
	}))
	must(db.db.View(func(tx *bolt.Tx) error {
		entries, counters := searchIndexOf(t, tx)
		for _, e := range append(entries, counters...) {
			if strings.Contains(e, "r2") || strings.Contains(e, "COMPLETED") || strings.Contains(e, "RULE-1") || strings.Contains(e, "METADATA") {
				t.Errorf("left after deleting r2: %s", e)
			}
		}
		if len(entries) != 12 || tx.Bucket(bucketDownloadRequestsSummary).Get([]byte("a/r2")) != nil {
			t.Errorf("after deleting r2: %v", entries)
		}
		return nil
	}))
}

// TestMigrationIndexesDownloadRequests starts from a schema-19 database holding requests (of
// two tenants) and checks that the migration to the current schema indexes them as Put would.
func TestMigrationIndexesDownloadRequests(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 19) }); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	err := db.Update(func(tx *bolt.Tx) error {
		for _, r := range []DownloadRequest{
			{ID: "r1", TenantID: "a", DownloadTypeID: "Recibidos", SatQueryTypeID: "CFDI", DownloadRequestStatusID: "Completed", CreatedAt: day},
			{ID: "r2", TenantID: "b", DownloadTypeID: "Emitidos", RequesterTin: "ANA010101AAA", DownloadRequestStatusID: "Failed", CreatedAt: day.AddDate(0, 0, 1)},
		} {
			raw, _ := json.Marshal(r)
			if err := tx.Bucket(bucketDownloadRequests).Put(key(r.TenantID, r.ID), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrate(boltKV{tx}) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		entries, counters := searchIndexOf(t, tx)
		want := []string{"a d 2026-03-01|r1", "a q CFDI|r1", "a s COMPLETED|r1", "a t RECIBIDOS|r1",
			"b d 2026-03-02|r2", "b n ANA010101AAA|r2", "b s FAILED|r2", "b t EMITIDOS|r2"}
		if fmt.Sprint(entries) != fmt.Sprint(want) || len(counters) != len(want) {
			t.Errorf("after the migration:\n%v\n%v\nwant\n%v", entries, counters, want)
		}
		if s, err := newTx(boltKV{tx}).DownloadRequests("b").Summary("r2"); err != nil || s.Requester != "ANA010101AAA" || s.Day != "2026-03-02" {
			t.Errorf("summary after the migration: %+v %v", s, err)
		}
		// counted by pairs once (migration 29), whatever Put the migrations before it made
		for _, c := range []struct {
			tenant string
			f, g   DownloadRequestField
			a, b   string
		}{{"a", RequestsByStatus, RequestsByDownloadType, "Completed", "Recibidos"}, {"b", RequestsByRequester, RequestsByDay, "ana010101aaa", "2026-03-02"}} {
			if n, err := newTx(boltKV{tx}).DownloadRequests(c.tenant).CountBoth(c.f, c.a, c.g, c.b); err != nil || n != 1 {
				t.Errorf("%s: %c %q, %c %q counted %d (%v) after the migration, want 1", c.tenant, c.f, c.a, c.g, c.b, n, err)
			}
		}
		return nil
	})
}
