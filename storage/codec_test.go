package storage

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func codecSamples() (Delivery, Delivery, Event, Event) {
	at := time.Date(2026, 11, 27, 8, 46, 44, 123456789, time.UTC)
	next, code, msg, p := at.Add(time.Minute), 503, "HTTP 503", "person-1"
	full := Delivery{ID: "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c01", TenantID: "t1", WebhookID: "w1", EventID: "e1",
		EventType: "invoice.stamped", Kind: "automatic", Status: "pending", Attempts: 2, MaxAttempts: 8,
		LastStatusCode: &code, LastError: &msg, LastErrorDetail: "dial tcp 127.0.0.1:3000: connect: connection refused", LastResponseExcerpt: "busy ñ",
		NextAttemptAt: &next, Synthetic: true,
		History: []Attempt{{At: at, StatusCode: &code, Error: "HTTP 503", DurationMS: 12},
			{At: at.Add(time.Second), Error: "timeout", ErrorDetail: "context deadline exceeded ñ", DurationMS: -1}},
		CreatedAt: at, UpdatedAt: at.Add(2 * time.Second)}
	bare := Delivery{ID: "d2", Status: "succeeded"}
	ev := Event{ID: "e1", TenantID: "t1", Type: "invoice.stamped", PersonID: &p, RelatedObjectID: "inv-1", Synthetic: true,
		CreatedAt: at, Body: json.RawMessage(`{"id":"e1","data":{"a":"ñ"}}`)}
	bareEv := Event{ID: "e2"}
	return full, bare, ev, bareEv
}

func personSamples() (Person, Person) {
	at := time.Date(2026, 11, 27, 8, 46, 44, 123456789, time.UTC)
	valid := at.AddDate(1, 0, 0)
	str := func(v string) *string { return &v }
	full := Person{ID: "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c03", TenantID: "t1", LegalName: "ESCUELA KEMPER URGATE ñ",
		Email: "ana@example.com", PhoneNumber: str("5512345678"), PasswordHash: "$argon2id$v=19$m=65536,t=3,p=2$c2FsdA$aGFzaA",
		SatTaxRegimeID: str("601"), SatCfdiUseID: str("G03"), UserTypeID: "2", Tin: str("EKU9003173C9"), Curp: str(""),
		ZipCode: str("42501"), CountryID: str("MEX"), ForeignTin: str("123456789"), Base64Photo: str("aGVsbG8="),
		TaxPassword: []byte{1, 2, 3}, Balances: []Balance{{CreditType: 1, Available: 998}, {CreditType: 2, Available: -3}},
		IsOwner: true, ValidTo: &valid, ManifestStatusID: "Signed", CreatedAt: at, UpdatedAt: at.Add(time.Minute)}
	return full, Person{ID: "p2"}
}

func invoiceSamples() (Invoice, Invoice) {
	at := time.Date(2026, 11, 27, 8, 46, 44, 123456789, time.UTC)
	answered, issuer, recipient := at.Add(time.Hour), "p-1", "p-2"
	full := Invoice{ID: "0199c3f4-7a10-7c3e-9d41-2f6b8e0a1c02", TenantID: "t1", ResponseID: "r1", PersonID: "p-0",
		IssuerPersonID: &issuer, RecipientPersonID: &recipient, UUID: "6F3E2A10-0000-4000-8000-000000000000", TypeCode: "I",
		IssuerTin: "EKU9003173C9", RecipientTin: "XAXX010101000", Total: "116.00", Status: "Cancelado", Date: "2026-11-27T02:46:44",
		Series: "F ñ", Cancellation: &InvoiceCancellation{ReasonCode: "01", ReplacementUUID: "U2", Status: "Cancelado sin aceptación",
			RequestedAt: at, AnsweredAt: &answered, Acknowledgement: []byte("<Acuse/>")},
		View: json.RawMessage(`{"id":"x","total":"116.00"}`), XML: []byte(`<?xml version="1.0"?><cfdi:Comprobante Total="116.00"/>`),
		CreatedAt: at, UpdatedAt: at.Add(time.Minute)}
	return full, Invoice{ID: "i2"}
}

// TestBinaryRecordsRoundTrip checks that deliveries and events read back equal to what was
// written, every optional field set and none set, and that they are stored in the binary form.
func TestBinaryRecordsRoundTrip(t *testing.T) {
	full, bare, ev, bareEv := codecSamples()
	inv, bareInv := invoiceSamples()
	pending := inv
	pending.Cancellation = &InvoiceCancellation{ReasonCode: "02", Status: "En proceso", RequestedAt: inv.CreatedAt}
	person, barePerson := personSamples()
	for _, v := range []any{full, bare, ev, bareEv, inv, bareInv, pending, person, barePerson} {
		raw, err := encodeRecord(v)
		if err != nil {
			t.Fatal(err)
		}
		if raw[0] != binaryV1 {
			t.Fatalf("%T stored as %q, want the binary form", v, raw)
		}
		got := reflect.New(reflect.TypeOf(v))
		if err := decodeRecord(raw, got.Interface()); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if !reflect.DeepEqual(got.Elem().Interface(), v) {
			t.Errorf("round trip of %T:\n got %+v\nwant %+v", v, got.Elem().Interface(), v)
		}
	}
}

// TestJSONRecordsStillRead checks that records written as JSON (before schema 14) read back
// through the same call, and that other records stay JSON.
func TestJSONRecordsStillRead(t *testing.T) {
	full, _, ev, _ := codecSamples()
	inv, _ := invoiceSamples()
	person, _ := personSamples()
	for _, v := range []any{full, ev, inv, person} {
		raw, _ := json.Marshal(v)
		got := reflect.New(reflect.TypeOf(v))
		if err := decodeRecord(raw, got.Interface()); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if !reflect.DeepEqual(got.Elem().Interface(), v) {
			t.Errorf("JSON %T:\n got %+v\nwant %+v", v, got.Elem().Interface(), v)
		}
	}
	raw, _ := encodeRecord(Webhook{ID: "w1"})
	if raw[0] != '{' {
		t.Errorf("a webhook is stored as %q, want JSON", raw)
	}
}

// TestBinaryRecordsRefuseDamage checks that every truncation of a record, and bytes left over,
// is an error rather than a record with missing fields or a panic.
func TestBinaryRecordsRefuseDamage(t *testing.T) {
	full, _, _, _ := codecSamples()
	raw, _ := encodeRecord(full)
	for n := 1; n < len(raw); n++ {
		var d Delivery
		if err := decodeRecord(raw[:n], &d); err == nil {
			t.Fatalf("a delivery cut to %d of %d bytes decoded: %+v", n, len(raw), d)
		}
	}
	// an invoice's XML is the rest of its record: a cut before it is refused
	inv, _ := invoiceSamples()
	rawInv, _ := encodeRecord(inv)
	for n := 1; n < len(rawInv)-len(inv.XML); n++ {
		var v Invoice
		if err := decodeRecord(rawInv[:n], &v); err == nil {
			t.Fatalf("an invoice cut to %d of %d bytes decoded: %+v", n, len(rawInv), v)
		}
	}
	person, _ := personSamples()
	rawPerson, _ := encodeRecord(person)
	for n := 1; n < len(rawPerson); n++ {
		var p Person
		if err := decodeRecord(rawPerson[:n], &p); err == nil {
			t.Fatalf("a person cut to %d of %d bytes decoded: %+v", n, len(rawPerson), p)
		}
	}
	var d Delivery
	if err := decodeRecord(append(raw, 0), &d); err == nil {
		t.Error("a delivery with a byte left over decoded")
	}
	var p Person
	if err := decodeRecord(append(rawPerson, 0), &p); err == nil {
		t.Error("a person with a byte left over decoded")
	}
	var w Webhook
	if err := decodeRecord([]byte{binaryV1, 0}, &w); err == nil {
		t.Error("a binary webhook decoded")
	}
}

func FuzzBinaryRecords(f *testing.F) {
	full, bare, ev, bareEv := codecSamples()
	inv, bareInv := invoiceSamples()
	person, barePerson := personSamples()
	for _, v := range []any{full, bare, ev, bareEv, inv, bareInv, person, barePerson} {
		raw, _ := encodeRecord(v)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var d Delivery
		if decodeRecord(raw, &d) == nil && len(raw) > 0 && raw[0] == binaryV1 {
			again, _ := encodeRecord(d)
			var d2 Delivery
			if err := decodeRecord(again, &d2); err != nil || !reflect.DeepEqual(d, d2) {
				t.Fatalf("a decoded delivery does not read back: %+v %+v %v", d, d2, err)
			}
		}
		var e Event
		_ = decodeRecord(raw, &e)
		var p Person
		if decodeRecord(raw, &p) == nil && len(raw) > 0 && raw[0] == binaryV1 {
			again, _ := encodeRecord(p)
			var p2 Person
			if err := decodeRecord(again, &p2); err != nil || !reflect.DeepEqual(p, p2) {
				t.Fatalf("a decoded person does not read back: %+v %+v %v", p, p2, err)
			}
		}
		var v Invoice
		if decodeRecord(raw, &v) == nil && len(raw) > 0 && raw[0] == binaryV1 {
			again, _ := encodeRecord(v)
			var v2 Invoice
			if err := decodeRecord(again, &v2); err != nil || !reflect.DeepEqual(v, v2) {
				t.Fatalf("a decoded invoice does not read back: %+v %+v %v", v, v2, err)
			}
		}
	})
}

// TestMigration14 opens a schema-13 database whose deliveries and events are JSON: they read
// as before, and what is written from then on is binary.
func TestMigration14(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 13) }); err != nil {
		t.Fatal(err)
	}
	full, _, ev, _ := codecSamples()
	err := db.Update(func(tx *bolt.Tx) error {
		rawD, _ := json.Marshal(full)
		rawE, _ := json.Marshal(ev)
		if err := tx.Bucket(bucketDeliveries).Put(key("t1", full.ID), rawD); err != nil {
			return err
		}
		return tx.Bucket(bucketEvents).Put(key("t1", ev.ID), rawE)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 14) }); err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		d, err := (newTx(boltKV{tx})).Deliveries("t1").Get(full.ID)
		if err != nil || !reflect.DeepEqual(d, full) {
			t.Errorf("JSON delivery after migration 14: %+v %v", d, err)
		}
		body, err := (newTx(boltKV{tx})).Events("t1").Body(ev.ID)
		if err != nil || string(body) != string(ev.Body) {
			t.Errorf("JSON event body after migration 14: %s %v", body, err)
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 14 {
			t.Errorf("schema version = %d, want 14", v)
		}
		if err := migrateTo(boltKV{tx}, 15); err != nil { // the events' indexes of schema 15
			return err
		}
		if err := (newTx(boltKV{tx})).Events("t1").Put(ev); err != nil {
			return err
		}
		if raw := tx.Bucket(bucketEvents).Get(key("t1", ev.ID)); raw[0] != binaryV1 {
			t.Errorf("an event written after migration 14 is %q", raw)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration15: the events stored before schema 15 (JSON and binary, of two tenants and two
// types) are indexed by type and counted by hour, so Count and Page see them; each tenant's
// people and current tax files are counted.
func TestMigration15(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 14) }); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	ms := base.UnixMilli()
	id := func(n int) string { return fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, n) }
	evs := []Event{
		{ID: id(1), TenantID: "t1", Type: "invoice.stamped", CreatedAt: base, Body: []byte(`{"a":1}`)},
		{ID: id(2), TenantID: "t1", Type: "invoice.canceled", CreatedAt: base, Body: []byte(`{"a":2}`)},
		{ID: id(3), TenantID: "t2", Type: "invoice.stamped", CreatedAt: base, Body: []byte(`{"a":3}`)},
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for i, e := range evs {
			raw, err := json.Marshal(e)
			if i == 1 {
				raw, err = encodeRecord(e)
			}
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketEvents).Put(key(e.TenantID, e.ID), raw); err != nil {
				return err
			}
		}
		for i, tenant := range []string{"t1", "t1", "t1", "t2"} {
			raw, _ := json.Marshal(Person{ID: id(10 + i), TenantID: tenant, Email: fmt.Sprintf("p%d@x.test", i)})
			if err := tx.Bucket(bucketPeople).Put(key(tenant, id(10+i)), raw); err != nil {
				return err
			}
			if err := tx.Bucket(bucketTaxFilesCurrent).Put(key(tenant, id(20+i)), nil); err != nil {
				return err
			}
			if err := tx.Bucket(bucketDeliveriesByWebhook).Put(key(tenant, "hook-1", id(30+i)), nil); err != nil {
				return err
			}
		}
		return migrateTo(boltKV{tx}, 15)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		events := newTx(boltKV{tx}).Events("t1")
		for _, c := range []struct {
			typ  string
			want int
		}{{"", 2}, {"invoice.stamped", 1}, {"invoice.canceled", 1}, {"invoice.paid", 0}} {
			n, err := events.Count(c.typ, base.Add(-time.Hour), base.Add(time.Hour))
			if err != nil || n != c.want {
				t.Errorf("Count(%q) = %d, %v; want %d", c.typ, n, err, c.want)
			}
			page, err := events.Page(c.typ, base.Add(-time.Hour), base.Add(time.Hour), 0, 10)
			if err != nil || len(page) != c.want {
				t.Errorf("Page(%q) = %d events, %v; want %d", c.typ, len(page), err, c.want)
			}
		}
		if n, _ := newTx(boltKV{tx}).People("t1").Count(); n != 3 {
			t.Errorf("people of t1 counted %d, want 3", n)
		}
		if _, total, _ := newTx(boltKV{tx}).People("t2").List(0, 10); total != 1 {
			t.Errorf("people of t2 listed with total %d, want 1", total)
		}
		if n := (tally{boltKV{tx}.Bucket(bucketCounts), bucketDeliveriesByWebhook}).get("t1/hook-1"); n != 3 {
			t.Errorf("deliveries of t1's hook-1 counted %d, want 3", n)
		}
		if n := (tally{boltKV{tx}.Bucket(bucketCounts), bucketTaxFilesCurrent}).get("t1"); n != 3 {
			t.Errorf("current tax files of t1 counted %d, want 3", n)
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 15 {
			t.Errorf("schema version = %d, want 15", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration16: the invoices stored before schema 16 are indexed by every filtered field and
// counted, so CountBy and EachBy see them.
func TestMigration16(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 15) }); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	ms := base.UnixMilli()
	id := func(n int) string { return fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, n) }
	err := db.Update(func(tx *bolt.Tx) error {
		for i, tenant := range []string{"t1", "t1", "t1", "t2"} {
			v := Invoice{ID: id(i), UUID: id(100 + i), TypeCode: "I", IssuerTin: "EKU9003173C9", RecipientTin: "XAXX010101000",
				Status: "Vigente", Series: "F", Date: "2026-11-01T04:00:00", View: []byte(`{}`), CreatedAt: base, UpdatedAt: base}
			if i == 1 {
				v.Status, v.Series = "Cancelado", "g"
			}
			if err := newTx(boltKV{tx}).Invoices(tenant).Put(v); err != nil { // no index yet: nothing indexed
				return err
			}
		}
		if tx.Bucket(bucketInvoicesBy) != nil {
			return fmt.Errorf("invoices_by before schema 16")
		}
		return migrateTo(boltKV{tx}, 16)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		inv := newTx(boltKV{tx}).Invoices("t1")
		for _, c := range []struct {
			f     InvoiceField
			value string
			want  int
		}{{ByStatus, "vigente", 2}, {ByStatus, "Cancelado", 1}, {BySeries, "G", 1}, {BySeries, "f", 2}, {ByIssuerTin, "EKU9003173C9", 3}, {ByIssuerPersonID, "x", 0}} {
			n, err := inv.CountBy(c.f, c.value)
			walked := 0
			if err == nil {
				err = inv.EachBy(c.f, c.value, time.Time{}, time.Time{}, func(InvoiceSummary) error { walked++; return nil })
			}
			if err != nil || n != c.want || walked != c.want {
				t.Errorf("%c %q: counted %d, walked %d (%v); want %d", c.f, c.value, n, walked, err, c.want)
			}
		}
		if n, _ := newTx(boltKV{tx}).Invoices("t2").CountBy(ByTypeCode, "I"); n != 1 {
			t.Errorf("t2's invoices of type I counted %d, want 1", n)
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 16 {
			t.Errorf("schema version = %d, want 16", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration27: the invoices stored before schema 27 are counted by every pair of filtered
// fields, once (a Put under an older migration counts none).
func TestMigration27(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 26) }); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	ms := base.UnixMilli()
	id := func(n int) string { return fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, n) }
	err := db.Update(func(tx *bolt.Tx) error {
		for i, tenant := range []string{"t1", "t1", "t1", "t2"} {
			v := Invoice{ID: id(i), UUID: id(100 + i), TypeCode: "I", IssuerTin: "EKU9003173C9", RecipientTin: "XAXX010101000",
				Status: "Vigente", Series: "F", Date: "2026-11-01T04:00:00", View: []byte(`{}`), CreatedAt: base, UpdatedAt: base}
			if i == 1 {
				v.Status, v.Series = "Cancelado", "g"
			}
			if err := newTx(boltKV{tx}).Invoices(tenant).Put(v); err != nil { // no pair counters yet: none counted
				return err
			}
		}
		if tx.Bucket(bucketInvoicesPairs) != nil {
			return fmt.Errorf("invoices_pairs before schema 27")
		}
		return migrateTo(boltKV{tx}, 27)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		inv := newTx(boltKV{tx}).Invoices("t1")
		for _, c := range []struct {
			f, g InvoiceField
			a, b string
			want int
		}{{ByRecipientTin, ByStatus, "xaxx010101000", "vigente", 2}, {ByStatus, BySeries, "Cancelado", "G", 1},
			{ByIssuerTin, ByTypeCode, "EKU9003173C9", "i", 3}, {ByStatus, BySeries, "Vigente", "g", 0}} {
			if n, err := inv.CountBoth(c.f, c.a, c.g, c.b); err != nil || n != c.want {
				t.Errorf("%c %q, %c %q: counted %d (%v); want %d", c.f, c.a, c.g, c.b, n, err, c.want)
			}
		}
		if n, _ := newTx(boltKV{tx}).Invoices("t2").CountBoth(ByTypeCode, "I", ByStatus, "Vigente"); n != 1 {
			t.Errorf("t2's valid invoices of type I counted %d, want 1", n)
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 27 {
			t.Errorf("schema version = %d, want 27", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration28: the tickets stored before schema 28 are counted by person and by issuer in
// each status, once.
func TestMigration28(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 27) }); err != nil {
		t.Fatal(err)
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for i, status := range []string{"pending", "invoiced", "pending"} {
			v := Ticket{ID: fmt.Sprintf("id-%d", i), Number: fmt.Sprintf("N-%d", i), IssuerPersonID: "ana", RecordedByPersonID: []string{"beto", "ana", "beto"}[i],
				PaidDay: "2026-11-10", RecordedDay: "2026-11-10", Status: status}
			if err := newTx(boltKV{tx}).Tickets("t1").Put(v); err != nil { // no counters yet: none counted
				return err
			}
		}
		if tx.Bucket(bucketTicketsInStatus) != nil {
			return fmt.Errorf("tickets_in_status before schema 28")
		}
		return migrateTo(boltKV{tx}, 28)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		ts := newTx(boltKV{tx}).Tickets("t1")
		for _, c := range []struct {
			ix            TicketIndex
			value, status string
			want          int
		}{{TicketsOfPerson, "ana", "pending", 2}, {TicketsOfPerson, "ana", "invoiced", 1}, {TicketsOfPerson, "beto", "pending", 2},
			{TicketsOfPerson, "beto", "invoiced", 0}, {TicketsOfIssuer, "ana", "pending", 2}, {TicketsOfIssuer, "beto", "pending", 0}} {
			if n, err := ts.CountIn(c.ix, c.value, c.status); err != nil || n != c.want {
				t.Errorf("%c %q %s: counted %d (%v), want %d", c.ix, c.value, c.status, n, err, c.want)
			}
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 28 {
			t.Errorf("schema version = %d, want 28", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration31: the invoices stored before schema 31 are counted by the day of their date,
// of all and of each filtered value, once.
func TestMigration31(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 30) }); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	ms := base.UnixMilli()
	id := func(n int) string { return fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, n) }
	err := db.Update(func(tx *bolt.Tx) error {
		for i := range 4 {
			v := Invoice{ID: id(i), UUID: id(100 + i), TypeCode: "I", IssuerTin: "EKU9003173C9", RecipientTin: []string{"XAXX010101000", "AAA010101AAA"}[i%2],
				Status: "Vigente", Date: fmt.Sprintf("2026-11-0%dT04:00:00", 1+i/2), View: []byte(`{}`), CreatedAt: base, UpdatedAt: base}
			if err := newTx(boltKV{tx}).Invoices("t1").Put(v); err != nil { // no day counters yet: none counted
				return err
			}
		}
		if tx.Bucket(bucketInvoicesDays) != nil {
			return fmt.Errorf("invoices_days before schema 31")
		}
		return migrateTo(boltKV{tx}, 31)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		inv := newTx(boltKV{tx}).Invoices("t1")
		for _, c := range []struct {
			f               InvoiceField
			value, from, to string
			want            int
		}{{AllInvoices, "", "", "", 4}, {AllInvoices, "", "2026-11-02", "", 2}, {ByRecipientTin, "xaxx010101000", "", "2026-11-01", 1},
			{ByStatus, "vigente", "2026-11-01", "2026-11-02", 4}, {ByIssuerTin, "EKU9003173C9", "2026-11-03", "", 0}} {
			if n, err := inv.CountDays(c.f, c.value, c.from, c.to); err != nil || n != c.want {
				t.Errorf("%c %q %q..%q: counted %d (%v); want %d", c.f, c.value, c.from, c.to, n, err, c.want)
			}
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 31 {
			t.Errorf("schema version = %d, want 31", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration30: the events stored before schema 30 (their related index entries without a
// type) are counted by related object and hour, and their entries get their types, once.
func TestMigration30(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 29) }); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	id := func(at time.Time, n int) string {
		ms := at.UnixMilli()
		return fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, n)
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for i := range 5 {
			at := base.Add(time.Duration(i) * 20 * time.Minute)
			e := Event{ID: id(at, i), Type: []string{"webhook.test", "invoice.stamped"}[i%2], RelatedObjectID: "hook-1", CreatedAt: at, Body: []byte(`{}`)}
			if err := newTx(boltKV{tx}).Events("t1").Put(e); err != nil {
				return err
			}
			// as written before schema 30: an entry without its type
			if err := tx.Bucket(bucketEventsByRelated).Put(key("t1", e.RelatedObjectID, e.ID), nil); err != nil {
				return err
			}
		}
		if tx.Bucket(bucketEventsRelatedHours) != nil {
			return fmt.Errorf("events_related_hours before schema 30")
		}
		return migrateTo(boltKV{tx}, 30)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		evs := newTx(boltKV{tx}).Events("t1")
		for _, c := range []struct {
			typ      string
			from, to time.Time
			want     int
		}{{"", base, base.Add(2 * time.Hour), 5}, {"webhook.test", base, base.Add(2 * time.Hour), 3},
			{"invoice.stamped", base.Add(30 * time.Minute), base.Add(2 * time.Hour), 1}, {"", base.Add(50 * time.Minute), base.Add(70 * time.Minute), 1}} {
			n, err := evs.CountRelated("hook-1", c.typ, c.from, c.to)
			page, perr := evs.PageRelated("hook-1", c.typ, c.from, c.to, 0, 10)
			if err != nil || perr != nil || n != c.want || len(page) != c.want {
				t.Errorf("%q %v..%v: counted %d, paged %d (%v, %v); want %d", c.typ, c.from, c.to, n, len(page), err, perr, c.want)
			}
		}
		if v, _ := schemaVersion(boltKV{tx}); v != 30 {
			t.Errorf("schema version = %d, want 30", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigration17: the tickets stored before schema 17 are indexed under their people and
// status and counted.
func TestMigration17(t *testing.T) {
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, 16) }); err != nil {
		t.Fatal(err)
	}
	err := db.Update(func(tx *bolt.Tx) error {
		for i, status := range []string{"pending", "invoiced", "pending"} {
			v := Ticket{ID: fmt.Sprintf("id-%d", i), Number: fmt.Sprintf("N-%d", i), IssuerPersonID: "ana", RecordedByPersonID: "beto",
				PaidDay: "2026-11-10", RecordedDay: "2026-11-10", Status: status}
			if err := newTx(boltKV{tx}).Tickets("t1").Put(v); err != nil { // no index yet: nothing indexed
				return err
			}
		}
		if tx.Bucket(bucketTicketsBy) != nil {
			return fmt.Errorf("tickets_by before schema 17")
		}
		return migrateTo(boltKV{tx}, 17)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		ts := newTx(boltKV{tx}).Tickets("t1")
		for _, c := range []struct {
			ix    TicketIndex
			value string
			want  int
		}{{TicketsOfPerson, "ana", 3}, {TicketsOfPerson, "beto", 3}, {TicketsOfIssuer, "ana", 3}, {TicketsOfIssuer, "beto", 0},
			{TicketsInStatus, "pending", 2}, {TicketsInStatus, "invoiced", 1}} {
			n, err := ts.CountBy(c.ix, c.value)
			walked := 0
			if err == nil {
				err = ts.EachPaidBy(c.ix, c.value, "", "", false, func(string, string, string, string) error { walked++; return nil })
			}
			if err != nil || n != c.want || walked != c.want {
				t.Errorf("%c %q: counted %d, walked %d (%v); want %d", c.ix, c.value, n, walked, err, c.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFold: ASCII values fold to their upper case; other text as strings.EqualFold would match.
func TestFold(t *testing.T) {
	for _, c := range []struct{ a, b string }{{"eku9003173c9", "EKU9003173C9"}, {"Vigente", "VIGENTE"}, {"señal", "SEÑAL"},
		{"\u212a", "k"}, {"ß", "ẞ"}} {
		if Fold(c.a) != Fold(c.b) {
			t.Errorf("Fold(%q) = %q, Fold(%q) = %q", c.a, Fold(c.a), c.b, Fold(c.b))
		}
	}
	if Fold("A-1") != "A-1" || Fold("a") == Fold("b") {
		t.Error("Fold changed what it should keep")
	}
}

// TestMigrationDownloadQueries: the download requests stored before the index of their queries
// are indexed by it: SameQuery counts the active ones and those the SAT took, not the others,
// and not the request asked about.
func TestMigrationDownloadQueries(t *testing.T) {
	at := slices.IndexFunc(migrations, func(m func(kvTx) error) bool {
		return reflect.ValueOf(m).Pointer() == reflect.ValueOf(indexDownloadQueries).Pointer()
	})
	if at < 0 {
		t.Fatal("indexDownloadQueries is not a migration")
	}
	db := openRaw(t)
	if err := db.Update(func(tx *bolt.Tx) error { return migrateTo(boltKV{tx}, at) }); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	q := DownloadRequest{DownloadTypeID: "Emitidos", SatQueryTypeID: "CFDI", RequesterTin: "EKU9003173C9", IssuerTin: "EKU9003173C9", StartDate: start, EndDate: start.AddDate(0, 1, 0)}
	other := q
	other.EndDate = other.EndDate.Add(time.Second) // another period
	err := db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketDownloadRequestsQuery) != nil {
			return fmt.Errorf("download_requests_by_query before its migration")
		}
		for i, c := range []struct {
			r      DownloadRequest
			active bool
			satID  string
		}{{q, true, ""}, {q, false, "sat-1"}, {q, false, ""}, {other, true, ""}} {
			r := c.r
			r.ID, r.TenantID, r.Active, r.SatRequestID = fmt.Sprintf("r%d", i), "t1", c.active, c.satID
			raw, err := encodeRecord(r)
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketDownloadRequests).Put(key("t1", r.ID), raw); err != nil {
				return err
			}
		}
		return migrateTo(boltKV{tx}, at+1)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		rs := newTx(boltKV{tx}).DownloadRequests("t1")
		for _, c := range []struct {
			r             DownloadRequest
			active, taken int
		}{{q, 1, 1}, {DownloadRequest{ID: "r0", DownloadTypeID: q.DownloadTypeID, SatQueryTypeID: q.SatQueryTypeID, RequesterTin: q.RequesterTin,
			IssuerTin: q.IssuerTin, StartDate: q.StartDate, EndDate: q.EndDate}, 0, 1}, {other, 1, 0}} {
			a, n, err := rs.SameQuery(c.r)
			if err != nil || a != c.active || n != c.taken {
				t.Errorf("SameQuery(%s): %d active, %d taken (%v); want %d, %d", c.r.ID, a, n, err, c.active, c.taken)
			}
		}
		if a, n, _ := newTx(boltKV{tx}).DownloadRequests("t2").SameQuery(q); a != 0 || n != 0 {
			t.Errorf("another tenant: %d active, %d taken", a, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUndecodableRecordsAreErrors: a record that does not decode (a damaged file) makes the
// listings that meet it answer an error naming it, instead of leaving it out of a page whose
// total counts it.
func TestUndecodableRecordsAreErrors(t *testing.T) {
	db, err := Open(t.TempDir() + "/t.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	full, _, ev, _ := codecSamples()
	full.Status = "succeeded"
	full.NextAttemptAt = nil
	ms := ev.CreatedAt.UnixMilli() // a time-ordered id, as events have: the walks are by time
	ev.ID = fmt.Sprintf("%08x-%04x-7000-8000-%012d", ms>>16, ms&0xffff, 1)
	ctx := t.Context()
	if err := db.Update(ctx, func(tx Tx) error {
		if err := tx.Events("t1").Put(ev); err != nil {
			return err
		}
		return tx.Deliveries("t1").Put(full)
	}); err != nil {
		t.Fatal(err)
	}
	listings := func() ([]error, int) {
		var errs []error
		seen := 0
		db.View(ctx, func(tx Tx) error {
			evs, err := tx.Events("t1").PageRelated("inv-1", "", ev.CreatedAt.Add(-time.Hour), ev.CreatedAt.Add(time.Hour), 0, 10)
			seen += len(evs)
			errs = append(errs, err)
			errs = append(errs, tx.Deliveries("t1").AllByWebhook("w1", func(Delivery) bool { seen++; return true }))
			page, _, err := tx.Deliveries("t1").ByWebhook("w1", time.Time{}, 0, 10)
			seen += len(page)
			errs = append(errs, err)
			return nil
		})
		return errs, seen
	}
	errs, seen := listings()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("listing %d of sound records: %v", i, err)
		}
	}
	if seen != 3 {
		t.Fatalf("the sound records were listed %d times, want 3 (once by each listing)", seen)
	}
	if err := db.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketEvents).Put(key("t1", ev.ID), []byte{0xff, 0x00}); err != nil {
			return err
		}
		return tx.Bucket(bucketDeliveries).Put(key("t1", full.ID), []byte{0xff, 0x00})
	}); err != nil {
		t.Fatal(err)
	}
	errs, _ = listings()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "decode") {
			t.Errorf("listing %d of a damaged record: %v, want its decode error", i, err)
		}
	}
}
