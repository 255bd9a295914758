package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func openRaw(t *testing.T) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "m.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestMigration1 checks the first migration from an empty file: every foundation bucket exists
// and the version is recorded.
func TestMigration1(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 1) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketMeta, bucketTenants, bucketPeople, bucketPeopleByEmail, bucketAPIKeys, bucketAPIKeysByLookup, bucketAPIKeysByPerson} {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing after migration 1", b)
			}
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 1 {
			t.Errorf("schema version = %d, want 1", v)
		}
		return nil
	})
}

func TestMigrateIsIdempotentAndRefusesNewer(t *testing.T) {
	db := openRaw(t)
	for range 2 {
		if err := db.Update(func(tx *bolt.Tx) error { return migrate(boltKV{tx}) }); err != nil {
			t.Fatal(err)
		}
	}
	db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(MetaSchema), []byte(strconv.Itoa(len(migrations)+1)))
	})
	if err := db.Update(func(tx *bolt.Tx) error { return migrate(boltKV{tx}) }); err == nil {
		t.Fatal("a database of a newer schema was accepted")
	}
}

// TestMigration2 starts from a schema-1 database whose lookup index holds "tenant/key" and
// checks that the index then carries the whole KeyRef, with the owner flag taken from the person.
func TestMigration2(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 1) }); err != nil {
		t.Fatal(err)
	}
	owner := Person{ID: "p1", TenantID: "t1", Email: "o@x.mx", IsOwner: true}
	other := Person{ID: "p2", TenantID: "t1", Email: "p@x.mx"}
	keys := []APIKey{
		{ID: "k1", TenantID: "t1", PersonID: "p1", Status: 1, Lookup: []byte("h1")},
		{ID: "k2", TenantID: "t1", PersonID: "p2", Status: 0, Lookup: []byte("h2")},
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for _, p := range []Person{owner, other} {
			raw, _ := json.Marshal(p)
			tx.Bucket(bucketPeople).Put(key(p.TenantID, p.ID), raw)
		}
		for _, k := range keys {
			raw, _ := json.Marshal(k)
			tx.Bucket(bucketAPIKeys).Put(key(k.TenantID, k.ID), raw)
			tx.Bucket(bucketAPIKeysByLookup).Put(k.Lookup, key(k.TenantID, k.ID)) // schema 1 form
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 2) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		want := map[string]KeyRef{
			"h1": {TenantID: "t1", KeyID: "k1", PersonID: "p1", Status: 1, PersonIsOwner: true},
			"h2": {TenantID: "t1", KeyID: "k2", PersonID: "p2", Status: 0},
		}
		for h, w := range want {
			ref, err := newTx(boltKV{tx}).APIKeyByLookup([]byte(h))
			if err != nil || ref != w {
				t.Errorf("index %s = %+v, %v; want %+v", h, ref, err, w)
			}
		}
		var k1 APIKey
		json.Unmarshal(tx.Bucket(bucketAPIKeys).Get(key("t1", "k1")), &k1)
		if !k1.PersonIsOwner {
			t.Error("the key record did not get the owner flag")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 2 {
			t.Errorf("schema version = %d, want 2", v)
		}
		return nil
	})
}

// TestMigration3 checks the event and webhook buckets appear from a schema-2 database.
func TestMigration3(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 2) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 3) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketWebhooks, bucketEvents, bucketEventsByRelated, bucketDeliveries, bucketDeliveriesByWebhook, bucketDeliveriesPending, bucketOutbox} {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing after migration 3", b)
			}
		}
		return nil
	})
}

// TestMigration4 starts from a schema-3 database with data and checks that the catalog buckets
// are added without touching what was there.
func TestMigration4(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 3) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketWebhooks).Put([]byte("t/w"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 4) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketCatalogSet, bucketCatalogRows} {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing after migration 4", b)
			}
		}
		if tx.Bucket(bucketWebhooks).Get([]byte("t/w")) == nil {
			t.Error("migration 4 lost a webhook")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 4 {
			t.Errorf("schema version = %d, want 4", v)
		}
		return nil
	})
}

// TestMigration5 starts from a schema-4 database with data and checks that the employer and
// employee buckets are added without touching what was there.
func TestMigration5(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 4) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketPeople).Put([]byte("t/p"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 5) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketEmployers, bucketEmployees} {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing after migration 5", b)
			}
		}
		if tx.Bucket(bucketPeople).Get([]byte("t/p")) == nil {
			t.Error("migration 5 lost a person")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 5 {
			t.Errorf("schema version = %d, want 5", v)
		}
		return nil
	})
}

// TestMigration6 starts from a schema-5 database with data and checks that the tax file buckets
// are added without touching what was there.
func TestMigration6(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 5) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketEmployers).Put([]byte("t/p"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 6) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketTaxFiles, bucketTaxFilesByPerson, bucketTaxFilesCurrent} {
			if tx.Bucket(b) == nil {
				t.Errorf("bucket %s missing after migration 6", b)
			}
		}
		if tx.Bucket(bucketEmployers).Get([]byte("t/p")) == nil {
			t.Error("migration 6 lost employer data")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 6 {
			t.Errorf("schema version = %d, want 6", v)
		}
		return nil
	})
}

// TestMigration7 starts from a schema-6 database with data and checks that the products bucket
// is added without touching what was there.
func TestMigration7(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 6) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketTaxFiles).Put([]byte("t/f"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 7) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketProducts) == nil {
			t.Error("bucket products missing after migration 7")
		}
		if tx.Bucket(bucketTaxFiles).Get([]byte("t/f")) == nil {
			t.Error("migration 7 lost a tax file")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 7 {
			t.Errorf("schema version = %d, want 7", v)
		}
		return nil
	})
}

// TestMigration8 starts from a schema-7 database with a product and checks that the invoice
// buckets are added without touching it.
func TestMigration8(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 7) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketProducts).Put([]byte("t/p"), []byte("{}")) }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 8) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketInvoices) == nil || tx.Bucket(bucketInvoicesByUUID) == nil {
			t.Error("invoice buckets missing after migration 8")
		}
		if tx.Bucket(bucketProducts).Get([]byte("t/p")) == nil {
			t.Error("migration 8 lost a product")
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 8 {
			t.Errorf("schema version = %d, want 8", v)
		}
		return nil
	})
}

// TestMigration12 starts from a schema-11 database with two invoices stored as before (no date
// or series fields, no summary) and checks that each gets its summary, with the date and series
// of its answer, and keeps its XML.
func TestMigration12(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 11) }); err != nil {
		t.Fatal(err)
	}
	old := []Invoice{
		{ID: "i1", TenantID: "t1", UUID: "U1", TypeCode: "I", IssuerTin: "EKU9003173C9", RecipientTin: "XAXX010101000", Status: "Vigente",
			View: []byte(`{"date":"2026-11-20T10:00:00","series":"F"}`), XML: []byte("<x/>")},
		{ID: "i2", TenantID: "t2", UUID: "U2", TypeCode: "E", Status: StatusCanceling, IssuerPersonID: new("p1"),
			Cancellation: &InvoiceCancellation{Status: "En proceso", RequestedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)},
			View:         []byte(`{"date":"2026-11-21T11:00:00","series":null}`), XML: []byte("<y/>")},
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for _, v := range old {
			raw, _ := json.Marshal(v)
			if err := tx.Bucket(bucketInvoices).Put(key(v.TenantID, v.ID), raw); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 12) }); err != nil {
		t.Fatal(err)
	}
	want := map[string]InvoiceSummary{
		"t1": {ID: "i1", IssuerTin: "EKU9003173C9", RecipientTin: "XAXX010101000", TypeCode: "I", Status: "Vigente", Date: "2026-11-20T10:00:00", Series: "F"},
		"t2": {ID: "i2", IssuerPersonID: "p1", TypeCode: "E", Status: StatusCanceling, Date: "2026-11-21T11:00:00"},
	}
	db.View(func(tx *bolt.Tx) error {
		for tenant, w := range want {
			var got []InvoiceSummary
			if err := (newTx(boltKV{tx})).Invoices(tenant).EachSummary(time.Time{}, time.Time{}, func(s InvoiceSummary) error { got = append(got, s); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0] != w {
				t.Errorf("tenant %s summaries = %+v, want %+v", tenant, got, w)
			}
			v, err := (newTx(boltKV{tx})).Invoices(tenant).Get(w.ID)
			if err != nil || v.Date != w.Date || v.Series != w.Series || len(v.XML) != 4 {
				t.Errorf("invoice %s after migration 12: %+v %v", w.ID, v, err)
			}
		}
		if p, err := (newTx(boltKV{tx})).PendingCancellations(); err != nil || len(p) != 1 || p[0].TenantID != "t2" || p[0].InvoiceID != "i2" {
			t.Errorf("pending cancellations after migration 12: %+v %v", p, err)
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 12 {
			t.Errorf("schema version = %d, want 12", v)
		}
		return nil
	})
}

// TestInvoiceSummaryEncoding: a summary reads back as written whatever its fields hold, and a
// damaged one is an error.
func TestInvoiceSummaryEncoding(t *testing.T) {
	for _, r := range []InvoiceSummary{{}, {ID: "a", Series: "F\x00\x1f/é", Date: "2026-11-20T10:00:00", Status: "Vigente"}} {
		got, err := decodeSummary(r.encode())
		if err != nil || got != r {
			t.Errorf("round trip of %+v: %+v %v", r, got, err)
		}
	}
	enc := InvoiceSummary{ID: "abc", Series: "F"}.encode()
	for _, bad := range [][]byte{enc[:len(enc)-1], append(append([]byte{}, enc...), 0), {0xff}} {
		if _, err := decodeSummary(bad); err == nil {
			t.Errorf("decodeSummary(%q) accepted", bad)
		}
	}
}

// TestMigration13 starts from a schema-12 database with pending deliveries in the outbox of
// schema 3 (one claimed by an older engine, its lease in the future) and a finished one, and
// checks that each pending one is in its webhook's queue with its event's fields, counted once,
// due at once when it was claimed, and that the old outbox is gone.
func TestMigration13(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 12) }); err != nil {
		t.Fatal(err)
	}
	past, lease := time.Now().UTC().Add(-time.Hour), time.Now().UTC().Add(2*time.Minute)
	old := []map[string]any{
		{"id": "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c01", "tenantId": "t1", "webhookId": "w1", "eventId": "e1", "eventType": "webhook.test", "kind": "test", "status": "pending", "nextAttemptAt": past},
		{"id": "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c02", "tenantId": "t1", "webhookId": "w1", "eventId": "e2", "eventType": "invoice.stamped", "kind": "automatic", "status": "pending", "nextAttemptAt": lease, "claimed": true},
		{"id": "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c03", "tenantId": "t1", "webhookId": "w1", "eventId": "e2", "eventType": "invoice.stamped", "kind": "automatic", "status": "succeeded"},
	}
	err := db.Update(func(tx *bolt.Tx) error {
		tx.Bucket(bucketEvents).Put(key("t1", "e1"), []byte(`{"id":"e1","synthetic":true,"body":{"a":1}}`))
		tx.Bucket(bucketEvents).Put(key("t1", "e2"), []byte(`{"id":"e2","synthetic":false,"body":{"b":2}}`))
		for _, d := range old {
			raw, _ := json.Marshal(d)
			id := d["id"].(string)
			tx.Bucket(bucketDeliveries).Put(key("t1", id), raw)
			tx.Bucket(bucketDeliveriesByWebhook).Put(key("t1", "w1", id), nil)
			if d["status"] == "pending" {
				tx.Bucket(bucketDeliveriesPending).Put(key("t1", "w1", id), nil)
				tx.Bucket(bucketOutbox).Put(append(binary.BigEndian.AppendUint64(nil, uint64(d["nextAttemptAt"].(time.Time).UnixNano())), key("t1", id)...), nil)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 13) }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketOutbox) != nil {
			t.Error("the outbox of schema 3 is still there")
		}
		q, next, err := (newTx(boltKV{tx})).Outbox().Due("t1", "w1", nil, time.Now(), 10, nil)
		if err != nil || len(q) != 2 || !next.IsZero() {
			t.Fatalf("queue after migration 13: %+v next %v %v", q, next, err)
		}
		if q[0].DeliveryID != old[0]["id"] || !q[0].Synthetic || q[0].Kind != "test" || q[0].EventID != "e1" {
			t.Errorf("first queued = %+v", q[0])
		}
		if q[1].DeliveryID != old[1]["id"] || q[1].Synthetic || q[1].EventType != "invoice.stamped" || q[1].Due.After(time.Now()) {
			t.Errorf("the claimed one = %+v (due at once)", q[1])
		}
		d, err := (newTx(boltKV{tx})).Deliveries("t1").Get(q[0].DeliveryID)
		if err != nil || !d.Synthetic || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(past) {
			t.Errorf("delivery after migration 13: %+v %v", d, err)
		}
		if st, _ := (newTx(boltKV{tx})).Deliveries("t1").PendingStats("w1"); st.Count != 2 {
			t.Errorf("pending count = %d, want 2", st.Count)
		}
		if raw := tx.Bucket(bucketDeliveries).Get(key("t1", q[1].DeliveryID)); bytes.Contains(raw, []byte("claimed")) {
			t.Errorf("the claim is still stored: %s", raw)
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 13 {
			t.Errorf("schema version = %d, want 13", v)
		}
		return nil
	})
}
