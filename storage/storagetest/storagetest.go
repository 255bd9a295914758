// Package storagetest is the conformance suite every storage backend passes.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/timbra-mx/timbra/storage"
)

// Run checks a backend. open returns a new, empty store.
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("Meta", func(t *testing.T) { testMeta(t, open(t)) })
	t.Run("PeopleScopedAndOrdered", func(t *testing.T) { testPeople(t, open(t)) })
	t.Run("EmailUniqueAcrossTenants", func(t *testing.T) { testEmail(t, open(t)) })
	t.Run("APIKeysIndexes", func(t *testing.T) { testAPIKeys(t, open(t)) })
	t.Run("RollbackOnError", func(t *testing.T) { testRollback(t, open(t)) })
	t.Run("CatalogsReplaceWhole", func(t *testing.T) { testCatalogs(t, open(t)) })
	t.Run("ManifestsEveryVersionNewestFirst", func(t *testing.T) { testManifests(t, open(t)) })
}

var ctx = context.Background()

func id() string { return uuid.Must(uuid.NewV7()).String() }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testMeta(t *testing.T, s storage.Store) {
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.Meta().Put("environment", []byte("test")) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		v, err := tx.Meta().Get("environment")
		if err != nil || string(v) != "test" {
			return fmt.Errorf("meta environment = %q, %v", v, err)
		}
		v, err = tx.Meta().Get("absent")
		if err != nil || v != nil {
			return fmt.Errorf("absent meta = %q, %v", v, err)
		}
		return nil
	}))
}

func person(tenant, email string) storage.Person {
	now := time.Now().UTC()
	return storage.Person{ID: id(), TenantID: tenant, LegalName: "P " + email, Email: email, UserTypeID: "C", CreatedAt: now, UpdatedAt: now}
}

func testPeople(t *testing.T, s storage.Store) {
	a, b := id(), id()
	var made []string
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 5 {
			p := person(a, fmt.Sprintf("p%d@a.test", i))
			made = append(made, p.ID)
			if err := tx.People(a).Put(p); err != nil {
				return err
			}
		}
		return tx.People(b).Put(person(b, "other@b.test"))
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		items, total, err := tx.People(a).List(1, 2)
		if err != nil {
			return err
		}
		if total != 5 || len(items) != 2 || items[0].ID != made[1] || items[1].ID != made[2] {
			return fmt.Errorf("page (1,2) of 5: total %d, %d items", total, len(items))
		}
		if n, _ := tx.People(b).Count(); n != 1 {
			return fmt.Errorf("tenant b has %d people, want 1", n)
		}
		if ok, err := tx.People(a).Has(made[0]); !ok || err != nil {
			return fmt.Errorf("a person of the tenant: Has = %v, %v", ok, err)
		}
		if ok, _ := tx.People(b).Has(made[0]); ok {
			return errors.New("a person of another tenant: Has = true")
		}
		if _, err := tx.People(b).Get(made[0]); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("a person of tenant a was visible in tenant b: %v", err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.People(a).Delete(made[0]) }))
	// a change, and a deletion of what is not there, leave the total alone
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		p, err := tx.People(a).Get(made[1])
		if err != nil {
			return err
		}
		p.LegalName = "Changed"
		if err := tx.People(a).Put(p); err != nil {
			return err
		}
		if err := tx.People(a).Delete(made[0]); err != nil {
			return err
		}
		return tx.People(a).Delete(id())
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, _, err := tx.PersonByEmail("p0@a.test"); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("email index kept a deleted person: %v", err)
		}
		items, total, err := tx.People(a).List(3, 5)
		if err != nil {
			return err
		}
		if n, _ := tx.People(a).Count(); total != 4 || n != 4 || len(items) != 1 || items[0].ID != made[4] {
			return fmt.Errorf("after a deletion and a change: total %d, count %d, %d items on the last page", total, n, len(items))
		}
		if items, total, _ := tx.People(a).List(10, 5); total != 4 || len(items) != 0 {
			return fmt.Errorf("a page past the end: total %d, %d items", total, len(items))
		}
		return nil
	}))
}

func testEmail(t *testing.T, s storage.Store) {
	a, b := id(), id()
	p := person(a, "Same@Example.com")
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.People(a).Put(p) }))
	err := s.Update(ctx, func(tx storage.Tx) error { return tx.People(b).Put(person(b, "  same@example.COM ")) })
	if !errors.Is(err, storage.ErrEmailTaken) {
		t.Fatalf("second person with the same email in another tenant: %v, want ErrEmailTaken", err)
	}
	p.Email = "new@example.com"
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.People(a).Put(p) }))
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.People(b).Put(person(b, "same@example.com")) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		ten, pid, err := tx.PersonByEmail("NEW@example.com")
		if err != nil || ten != a || pid != p.ID {
			return fmt.Errorf("PersonByEmail after change = %s/%s, %v", ten, pid, err)
		}
		return nil
	}))
}

func testAPIKeys(t *testing.T, s storage.Store) {
	tenant, pid := id(), id()
	now := time.Now().UTC()
	k := storage.APIKey{ID: id(), TenantID: tenant, PersonID: pid, PersonIsOwner: true, Lookup: []byte("hash-1"), Value: []byte("sealed"), CreatedAt: now, UpdatedAt: now}
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.APIKeys(tenant).Put(k) }))
	k.Lookup = []byte("hash-2")
	k.Status = 0
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.APIKeys(tenant).Put(k) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.APIKeyByLookup([]byte("hash-1")); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("old lookup hash still finds the key: %v", err)
		}
		ref, err := tx.APIKeyByLookup([]byte("hash-2"))
		want := storage.KeyRef{TenantID: tenant, KeyID: k.ID, PersonID: pid, Status: 0, PersonIsOwner: true}
		if err != nil || ref != want {
			return fmt.Errorf("lookup = %+v, %v; want %+v", ref, err, want)
		}
		items, total, err := tx.APIKeys(tenant).ListByPerson(pid, 0, 10)
		if err != nil || total != 1 || len(items) != 1 || items[0].ID != k.ID {
			return fmt.Errorf("ListByPerson = %d items of %d, %v", len(items), total, err)
		}
		return nil
	}))
	// a page of a person's keys: in id order, from offset, at most limit, and all counted
	more := []string{k.ID}
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 3 {
			m := storage.APIKey{ID: id(), TenantID: tenant, PersonID: pid, Lookup: fmt.Appendf(nil, "more-%d", i), Value: []byte("sealed"), CreatedAt: now, UpdatedAt: now}
			more = append(more, m.ID)
			if err := tx.APIKeys(tenant).Put(m); err != nil {
				return err
			}
		}
		return nil
	}))
	slices.Sort(more)
	must(t, s.View(ctx, func(tx storage.Tx) error {
		items, total, err := tx.APIKeys(tenant).ListByPerson(pid, 1, 2)
		if err != nil || total != 4 || len(items) != 2 || items[0].ID != more[1] || items[1].ID != more[2] {
			return fmt.Errorf("ListByPerson(1, 2) = %d items of %d, %v", len(items), total, err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for _, id := range more {
			if id != k.ID {
				if err := tx.APIKeys(tenant).Delete(id); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.APIKeys(tenant).Delete(k.ID) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.APIKeyByLookup([]byte("hash-2")); !errors.Is(err, storage.ErrNotFound) {
			return errors.New("deleted key still found by lookup")
		}
		if _, total, _ := tx.APIKeys(tenant).ListByPerson(pid, 0, 10); total != 0 {
			return errors.New("deleted key still in the person index")
		}
		return nil
	}))
}

func testRollback(t *testing.T, s storage.Store) {
	tenant := id()
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.People(tenant).Put(person(tenant, "x@x.test")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v", err)
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if n, _ := tx.People(tenant).Count(); n != 0 {
			return errors.New("a failed transaction left its record")
		}
		if _, _, err := tx.PersonByEmail("x@x.test"); !errors.Is(err, storage.ErrNotFound) {
			return errors.New("a failed transaction left its index")
		}
		return nil
	}))
}

// RunEvents checks webhooks, events, deliveries and the outbox. newID makes a UUID version 7
// for a time, as the services do.
func RunEvents(t *testing.T, open func(t *testing.T) storage.Store, newID func(time.Time) string) {
	t.Run("EventsNewestInRange", func(t *testing.T) { testEventsRange(t, open(t), newID) })
	t.Run("DeliveriesKeepTheOutbox", func(t *testing.T) { testOutbox(t, open(t), newID) })
	t.Run("OlderWalksPastABatch", func(t *testing.T) { testOlder(t, open(t), newID) })
}

// testOlder walks more old events and deliveries than older reads at once: oldest first, each
// once, deleted as they are given, and a walk stopped early gives no more.
func testOlder(t *testing.T, s storage.Store, newID func(time.Time) string) {
	tenant, other := id(), id()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const n = 700
	put := func(tenant string) {
		must(t, s.Update(ctx, func(tx storage.Tx) error {
			for i := range n + 5 { // five more after the cutoff
				at := base.Add(time.Duration(i) * time.Second)
				e := storage.Event{ID: newID(at), Type: "x", RelatedObjectID: "inv", CreatedAt: at, Body: []byte(`{}`)}
				if err := tx.Events(tenant).Put(e); err != nil {
					return err
				}
				d := storage.Delivery{ID: newID(at), WebhookID: "w", EventID: e.ID, Status: "succeeded", CreatedAt: at, UpdatedAt: at}
				if err := tx.Deliveries(tenant).Put(d); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	put(tenant)
	put(other)
	cutoff := base.Add(n * time.Second)
	var last time.Time
	seen := 0
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Events(tenant).Older(cutoff, func(e storage.Event) bool {
			if !e.CreatedAt.After(last) && seen > 0 || !e.CreatedAt.Before(cutoff) {
				t.Errorf("event %d made at %v after %v (cutoff %v)", seen, e.CreatedAt, last, cutoff)
			}
			last, seen = e.CreatedAt, seen+1
			return tx.Events(tenant).Delete(e.ID) == nil
		}); err != nil {
			return err
		}
		stopped := 0
		err := tx.Deliveries(tenant).Older(cutoff, func(storage.Delivery) bool {
			stopped++
			return stopped < 300
		})
		if stopped != 300 {
			t.Errorf("a walk of deliveries stopped at 300 gave %d", stopped)
		}
		if err != nil {
			return err
		}
		all, at := 0, time.Time{}
		err = tx.Deliveries(tenant).Older(cutoff, func(d storage.Delivery) bool {
			if all > 0 && !d.CreatedAt.After(at) {
				t.Errorf("delivery %d made at %v after %v", all, d.CreatedAt, at)
			}
			all, at = all+1, d.CreatedAt
			return all <= n // one more than there are: a walk that starts again is caught
		})
		if all != n {
			t.Errorf("a walk of every old delivery gave %d of %d", all, n)
		}
		return err
	}))
	if seen != n {
		t.Fatalf("Older gave %d of %d old events", seen, n)
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		left, others := 0, 0
		tx.Events(tenant).Older(base.Add(24*time.Hour), func(storage.Event) bool { left++; return true })
		tx.Events(other).Older(base.Add(24*time.Hour), func(storage.Event) bool { others++; return others <= n+5 })
		if left != 5 || others != n+5 {
			t.Errorf("after deleting the old events: %d left (want 5), the other tenant's %d (want %d)", left, others, n+5)
		}
		return nil
	}))
}

func testEventsRange(t *testing.T, s storage.Store, newID func(time.Time) string) {
	tenant := id()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var made []storage.Event
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		// ten events an hour apart (types x and y in turn), and three more in the fifth hour
		for i := range 13 {
			at := base.Add(time.Duration(i) * time.Hour)
			if i >= 10 {
				at = base.Add(4*time.Hour + time.Duration(i-9)*10*time.Minute)
			}
			e := storage.Event{ID: newID(at), Type: []string{"x", "y"}[i%2], RelatedObjectID: []string{"inv-a", "inv-b"}[(i/2)%2], CreatedAt: at, Body: []byte(`{}`)}
			made = append(made, e)
			put := tx.Events(tenant).Put
			if i%3 == 1 {
				put = tx.Events(tenant).Create // indexed and counted as Put does
			}
			if err := put(e); err != nil {
				return err
			}
		}
		// putting an event again counts it once
		if err := tx.Events(tenant).Put(made[0]); err != nil {
			return err
		}
		// another tenant's event in the same hours must never show
		return tx.Events(id()).Put(storage.Event{ID: newID(base.Add(3 * time.Hour)), Type: "x", RelatedObjectID: "inv-a", CreatedAt: base, Body: []byte(`{}`)})
	}))
	// an event created again fails its transaction, which leaves nothing
	if err := s.Update(ctx, func(tx storage.Tx) error {
		extra := storage.Event{ID: newID(base), Type: "x", RelatedObjectID: "inv-a", CreatedAt: base, Body: []byte(`{}`)}
		if err := tx.Events(tenant).Create(extra); err != nil {
			return err
		}
		return tx.Events(tenant).Create(made[4])
	}); err == nil {
		t.Fatal("an event created over an existing one: no error")
	}
	ids := func(es []storage.Event) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	page := func(typ string, from, to time.Time, offset, limit int) ([]string, int) {
		var got []storage.Event
		var n int
		must(t, s.View(ctx, func(tx storage.Tx) error {
			var err error
			if got, err = tx.Events(tenant).Page(typ, from, to, offset, limit); err != nil {
				return err
			}
			n, err = tx.Events(tenant).Count(typ, from, to)
			return err
		}))
		return ids(got), n
	}
	related := func(rel, typ string, from, to time.Time, offset, limit int) ([]string, int) {
		var got []storage.Event
		var n int
		must(t, s.View(ctx, func(tx storage.Tx) error {
			var err error
			if got, err = tx.Events(tenant).PageRelated(rel, typ, from, to, offset, limit); err != nil {
				return err
			}
			n, err = tx.Events(tenant).CountRelated(rel, typ, from, to)
			return err
		}))
		return ids(got), n
	}
	deletedBefore := time.Time{} // the events made before it are deleted (below)
	// scan is what the related object's count and page must be: a filter over every event made
	scan := func(rel, typ string, from, to time.Time, offset, limit int) ([]string, int) {
		var match []storage.Event
		for _, e := range made {
			if e.RelatedObjectID == rel && (typ == "" || e.Type == typ) && !e.CreatedAt.Before(from) && !e.CreatedAt.After(to) && !e.CreatedAt.Before(deletedBefore) {
				match = append(match, e)
			}
		}
		slices.SortFunc(match, func(a, b storage.Event) int { return b.CreatedAt.Compare(a.CreatedAt) })
		return ids(match[min(offset, len(match)):min(offset+limit, len(match))]), len(match)
	}
	type rangeCase struct {
		name          string
		typ           string
		from, to      time.Time
		offset, limit int
		want          []storage.Event
		count         int
	}
	checkRelated := func(round string, cases []rangeCase) {
		t.Helper()
		for _, c := range cases {
			for _, rel := range []string{"inv-a", "inv-b", "inv-none"} {
				got, n := related(rel, c.typ, c.from, c.to, c.offset, c.limit)
				want, wantN := scan(rel, c.typ, c.from, c.to, c.offset, c.limit)
				if n != wantN || fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: %s, %s: CountRelated %d, PageRelated %v; want %d, %v", round, c.name, rel, n, got, wantN, want)
				}
			}
		}
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if b, err := tx.Events(tenant).Body(made[0].ID); err != nil || string(b) != `{}` {
			return fmt.Errorf("body = %q, %v", b, err)
		}
		if _, err := tx.Events(tenant).Body(id()); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("body of an absent event: %v", err)
		}
		return nil
	}))
	cases := []rangeCase{
		{"whole hours, inclusive bounds, newest first", "", base.Add(2 * time.Hour), base.Add(5 * time.Hour), 0, 10,
			[]storage.Event{made[5], made[12], made[11], made[10], made[4], made[3], made[2]}, 7},
		{"a page further on", "", base.Add(2 * time.Hour), base.Add(5 * time.Hour), 2, 3,
			[]storage.Event{made[11], made[10], made[4]}, 7},
		{"bounds inside an hour at both ends", "", base.Add(4*time.Hour + 15*time.Minute), base.Add(4*time.Hour + 25*time.Minute), 0, 10,
			[]storage.Event{made[11]}, 1},
		{"one type", "y", base.Add(2 * time.Hour), base.Add(5 * time.Hour), 0, 10,
			[]storage.Event{made[5], made[11], made[3]}, 3},
		{"one type, inside an hour", "x", base.Add(4*time.Hour + 5*time.Minute), base.Add(5 * time.Hour), 0, 10,
			[]storage.Event{made[12], made[10]}, 2},
		{"a type with no events", "z", base, base.Add(24 * time.Hour), 0, 10, nil, 0},
		{"the whole range", "", base, base.Add(24 * time.Hour), 0, 100, nil, 13},
		{"an empty range", "", base.Add(5 * time.Hour), base.Add(4 * time.Hour), 0, 10, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := page(c.typ, c.from, c.to, c.offset, c.limit)
			if n != c.count {
				t.Errorf("Count = %d, want %d", n, c.count)
			}
			if c.want != nil && fmt.Sprint(got) != fmt.Sprint(ids(c.want)) {
				t.Errorf("Page = %v, want %v", got, ids(c.want))
			}
			if c.want == nil && c.count != len(got) && len(got) != c.limit {
				t.Errorf("Page gave %d events, Count %d", len(got), c.count)
			}
		})
	}
	// one related object's events: counted and paged as the tenant's, for each case above
	checkRelated("stored", cases)
	if got, n := related("inv-a", "", base, base.Add(9*time.Hour), 0, 100); n != 7 || len(got) != 7 {
		t.Fatalf("the events of inv-a: %v counted %d, want 7", got, n)
	}
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		return tx.Events(tenant).Older(base.Add(3*time.Hour), func(e storage.Event) bool {
			return tx.Events(tenant).Delete(e.ID) == nil
		})
	}))
	if got, n := page("", base, base.Add(24*time.Hour), 0, 100); len(got) != 10 || n != 10 {
		t.Fatalf("after deleting the 3 older events, %d remain and %d are counted", len(got), n)
	}
	if got, n := page("x", base, base.Add(24*time.Hour), 0, 100); len(got) != 5 || n != 5 {
		t.Fatalf("after deleting 2 older events of type x, %d remain and %d are counted", len(got), n)
	}
	deletedBefore = base.Add(3 * time.Hour)
	checkRelated("after deleting the 3 older events", cases)
}

func testOutbox(t *testing.T, s storage.Store, newID func(time.Time) string) {
	tenant, hook, other := id(), id(), id()
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	due := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	ds := []storage.Delivery{
		{ID: newID(now), WebhookID: hook, EventID: "e1", EventType: "invoice.canceled", Kind: "automatic", Status: "pending", NextAttemptAt: due(time.Minute)},
		{ID: newID(now), WebhookID: hook, EventID: "e2", EventType: "webhook.test", Kind: "test", Synthetic: true, Status: "pending", NextAttemptAt: due(0)},
		{ID: newID(now), WebhookID: hook, Status: "succeeded"},
		{ID: newID(now), WebhookID: other, EventID: "e3", EventType: "invoice.stamped", Kind: "manual", Status: "pending", NextAttemptAt: due(-time.Second)},
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if !tx.Outbox().Empty() {
			return errors.New("a new store's outbox is not empty")
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for _, d := range ds {
			if err := tx.Deliveries(tenant).Put(d); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		q, next, err := tx.Outbox().Due(tenant, hook, nil, now, 10, nil)
		want := storage.Queued{Due: now, TenantID: tenant, WebhookID: hook, DeliveryID: ds[1].ID, EventID: "e2", EventType: "webhook.test", Kind: "test", Synthetic: true}
		if err != nil || len(q) != 1 || !q[0].Due.Equal(want.Due) || q[0].DeliveryID != want.DeliveryID || q[0].EventID != want.EventID ||
			q[0].EventType != want.EventType || q[0].Kind != want.Kind || !q[0].Synthetic || q[0].TenantID != tenant || q[0].WebhookID != hook {
			return fmt.Errorf("due now = %+v, %v", q, err)
		}
		if !next.Equal(now.Add(time.Minute)) {
			return fmt.Errorf("next after now = %v", next)
		}
		if q, next, _ := tx.Outbox().Due(tenant, hook, nil, now.Add(time.Hour), 10, nil); len(q) != 2 || q[0].DeliveryID != ds[1].ID || q[1].Synthetic || !next.IsZero() {
			return fmt.Errorf("due in an hour = %+v, next %v (earliest first)", q, next)
		}
		if q, _, _ := tx.Outbox().Due(tenant, hook, nil, now.Add(time.Hour), 1, nil); len(q) != 1 || q[0].DeliveryID != ds[1].ID {
			return fmt.Errorf("limit 1 = %+v", q)
		}
		if q, _, _ := tx.Outbox().Due(tenant, hook, &storage.Queued{Due: now, DeliveryID: ds[1].ID}, now.Add(time.Hour), 10, nil); len(q) != 1 || q[0].DeliveryID != ds[0].ID {
			return fmt.Errorf("after the first = %+v", q)
		}
		if q, _, _ := tx.Outbox().Due(tenant, hook, &storage.Queued{Due: now.Add(time.Second)}, now.Add(time.Hour), 10, nil); len(q) != 1 || q[0].DeliveryID != ds[0].ID {
			return fmt.Errorf("after a time between them = %+v", q)
		}
		skip := func(id string) bool { return id == ds[1].ID }
		if q, _, _ := tx.Outbox().Due(tenant, hook, nil, now.Add(time.Hour), 10, skip); len(q) != 1 || q[0].DeliveryID != ds[0].ID {
			return fmt.Errorf("skipping the first = %+v", q)
		}
		var dests []storage.Destination
		tx.Outbox().Destinations("", func(d storage.Destination) bool { dests = append(dests, d); return true })
		if len(dests) != 2 {
			return fmt.Errorf("destinations = %+v", dests)
		}
		for _, d := range dests {
			if d.TenantID != tenant || (d.WebhookID == hook && !d.Next.Equal(now)) || (d.WebhookID == other && !d.Next.Equal(now.Add(-time.Second))) {
				return fmt.Errorf("destination %+v", d)
			}
		}
		n := 0
		tx.Outbox().Destinations(tenant, func(storage.Destination) bool { n++; return false })
		if n != 1 {
			return fmt.Errorf("destinations stopped after %d", n)
		}
		tx.Outbox().Destinations(id(), func(d storage.Destination) bool { n++; return true })
		if n != 1 {
			return errors.New("another tenant's destinations were listed")
		}
		if p, _ := tx.Deliveries(tenant).Pending(hook, 10); len(p) != 2 {
			return fmt.Errorf("pending = %d", len(p))
		}
		if p, _ := tx.Deliveries(tenant).Pending(hook, 1); len(p) != 1 || p[0].ID != ds[0].ID {
			return fmt.Errorf("the oldest pending = %+v", p)
		}
		if st, _ := tx.Deliveries(tenant).PendingStats(hook); st.Count != 2 || st.Oldest.IsZero() || st.Oldest.After(time.Now()) {
			return fmt.Errorf("pending stats = %+v", st)
		}
		items, total, _ := tx.Deliveries(tenant).ByWebhook(hook, time.Time{}, 0, 2)
		if total != 3 || len(items) != 2 || items[0].ID != ds[2].ID {
			return fmt.Errorf("by webhook: %d of %d, newest first", len(items), total)
		}
		return nil
	}))
	// rescheduling moves the queue entry; finishing or deleting removes it
	ds[1].NextAttemptAt = due(time.Hour)
	ds[0].Status = "failed"
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Deliveries(tenant).Put(ds[1]); err != nil {
			return err
		}
		if err := tx.Deliveries(tenant).Put(ds[1]); err != nil { // twice: counted once
			return err
		}
		if err := tx.Deliveries(tenant).Delete(ds[3].ID); err != nil {
			return err
		}
		return tx.Deliveries(tenant).Put(ds[0])
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if q, _, _ := tx.Outbox().Due(tenant, hook, nil, now.Add(2*time.Hour), 10, nil); len(q) != 1 || !q[0].Due.Equal(now.Add(time.Hour)) {
			return fmt.Errorf("after moves: %+v", q)
		}
		// the webhook's deliveries are counted: a delete counted out, a change not counted again
		if items, total, _ := tx.Deliveries(tenant).ByWebhook(hook, time.Time{}, 1, 5); total != 3 || len(items) != 2 || items[0].ID != ds[1].ID {
			return fmt.Errorf("by webhook from the second: %d of %d", len(items), total)
		}
		if items, total, _ := tx.Deliveries(tenant).ByWebhook(hook, time.Time{}, 0, 0); total != 3 || len(items) != 0 {
			return fmt.Errorf("by webhook, none asked: %d of %d", len(items), total)
		}
		if _, total, _ := tx.Deliveries(tenant).ByWebhook(other, time.Time{}, 0, 5); total != 0 {
			return fmt.Errorf("the other webhook's deliveries, one deleted: %d", total)
		}
		// since a moment after they were made: none
		if items, total, _ := tx.Deliveries(tenant).ByWebhook(hook, now.Add(time.Second), 0, 5); total != 0 || len(items) != 0 {
			return fmt.Errorf("by webhook since after them: %d of %d", len(items), total)
		}
		if p, _ := tx.Deliveries(tenant).Pending(hook, 10); len(p) != 1 {
			return fmt.Errorf("pending after one failed = %d", len(p))
		}
		if st, _ := tx.Deliveries(tenant).PendingStats(hook); st.Count != 1 {
			return fmt.Errorf("pending count after one failed = %+v", st)
		}
		if st, _ := tx.Deliveries(tenant).PendingStats(other); st.Count != 0 || !st.Oldest.IsZero() {
			return fmt.Errorf("pending stats after a delete = %+v", st)
		}
		d, _ := tx.Deliveries(tenant).Get(ds[0].ID)
		if d.NextAttemptAt != nil {
			return errors.New("a finished delivery kept its next attempt time")
		}
		return nil
	}))
	// Update reads once and keeps the indexes as Put does; false changes nothing
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		dels := tx.Deliveries(tenant)
		if err := dels.Update(ds[1].ID, func(d *storage.Delivery) bool { d.Status = "failed"; return false }); err != nil {
			return err
		}
		if st, _ := dels.PendingStats(hook); st.Count != 1 {
			return fmt.Errorf("an update that declined changed the count: %+v", st)
		}
		if err := dels.Update(ds[1].ID, func(d *storage.Delivery) bool { d.Status, d.Attempts = "succeeded", 3; return true }); err != nil {
			return err
		}
		if err := dels.Update(id(), func(*storage.Delivery) bool { return true }); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("update of an absent delivery: %v", err)
		}
		return nil
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		d, _ := tx.Deliveries(tenant).Get(ds[1].ID)
		if d.Status != "succeeded" || d.Attempts != 3 || d.NextAttemptAt != nil || d.TenantID != tenant {
			return fmt.Errorf("after Update: %+v", d)
		}
		if st, _ := tx.Deliveries(tenant).PendingStats(hook); st.Count != 0 || !tx.Outbox().Empty() {
			return fmt.Errorf("after Update the queue is not empty: %+v", st)
		}
		return nil
	}))
	// Create saves new deliveries as Put does; Finish saves an attempt's outcome only where the
	// delivery is still pending and due as the attempt found it
	fresh := []storage.Delivery{
		{ID: newID(now), WebhookID: hook, EventID: "e4", EventType: "invoice.stamped", Kind: "automatic", Status: "pending", NextAttemptAt: due(0)},
		{ID: newID(now), WebhookID: hook, EventID: "e5", EventType: "invoice.stamped", Kind: "automatic", Status: "pending", NextAttemptAt: due(time.Second)},
		{ID: newID(now), WebhookID: hook, EventID: "e6", EventType: "invoice.stamped", Kind: "automatic", Status: "pending", NextAttemptAt: due(2 * time.Second)},
	}
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.Deliveries(tenant).Create(fresh) }))
	// a delivery created again: the transaction fails, and nothing of it stays
	again := storage.Delivery{ID: newID(now), WebhookID: hook, EventID: "e7", EventType: "invoice.stamped", Kind: "automatic", Status: "pending", NextAttemptAt: due(0)}
	if err := s.Update(ctx, func(tx storage.Tx) error {
		return tx.Deliveries(tenant).Create([]storage.Delivery{again, fresh[1]})
	}); err == nil {
		t.Fatal("a delivery created over an existing one: no error")
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Deliveries(tenant).Get(again.ID); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("the failed create left its first delivery: %v", err)
		}
		return nil
	}))
	done, retry, moved := fresh[0], fresh[1], fresh[2]
	done.Status, done.NextAttemptAt, done.Attempts = "succeeded", nil, 1
	retry.NextAttemptAt, retry.Attempts = due(time.Hour), 1
	moved.Status, moved.NextAttemptAt = "succeeded", nil
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		ok, err := tx.Deliveries(tenant).Finish([]storage.Finished{
			{Delivery: done, Due: *fresh[0].NextAttemptAt},
			{Delivery: retry, Due: *fresh[1].NextAttemptAt},
			{Delivery: moved, Due: now.Add(time.Minute)}, // not when it is due: moved meanwhile
		})
		if err != nil || len(ok) != 3 || !ok[0] || !ok[1] || ok[2] {
			return fmt.Errorf("finish = %v, %v", ok, err)
		}
		return nil
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		dels := tx.Deliveries(tenant)
		if d, _ := dels.Get(done.ID); d.Status != "succeeded" || d.Attempts != 1 || d.NextAttemptAt != nil {
			return fmt.Errorf("finished: %+v", d)
		}
		if d, _ := dels.Get(moved.ID); d.Status != "pending" || !d.NextAttemptAt.Equal(*fresh[2].NextAttemptAt) {
			return fmt.Errorf("a delivery moved meanwhile was written: %+v", d)
		}
		if st, _ := dels.PendingStats(hook); st.Count != 2 {
			return fmt.Errorf("pending after finishing one and retrying one of three = %+v", st)
		}
		q, _, err := tx.Outbox().Due(tenant, hook, nil, now.Add(2*time.Hour), 10, nil)
		if err != nil || len(q) != 2 || q[0].DeliveryID != moved.ID || q[1].DeliveryID != retry.ID || !q[1].Due.Equal(now.Add(time.Hour)) {
			return fmt.Errorf("the queue after finishing: %+v %v", q, err)
		}
		if _, total, _ := dels.ByWebhook(hook, time.Time{}, 0, 1); total != 6 {
			return fmt.Errorf("by webhook after finishing: %d, not 6 (a finish counted again)", total)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error { // leave the queue empty, as before
		for _, d := range fresh {
			if err := tx.Deliveries(tenant).Delete(d.ID); err != nil {
				return err
			}
		}
		return nil
	}))
	err := s.Update(ctx, func(tx storage.Tx) error {
		return tx.Deliveries(tenant).Put(storage.Delivery{ID: newID(now), WebhookID: hook, Status: "pending"})
	})
	if err == nil {
		t.Fatal("a pending delivery without a due time was accepted")
	}
	// a delivery older than since is neither counted nor listed, until it is removed
	old := storage.Delivery{ID: newID(now.Add(-48 * time.Hour)), WebhookID: hook, Status: "succeeded"}
	must(t, s.Update(ctx, func(tx storage.Tx) error { return tx.Deliveries(tenant).Put(old) }))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		all, n, _ := tx.Deliveries(tenant).ByWebhook(hook, time.Time{}, 0, 10)
		recent, m, _ := tx.Deliveries(tenant).ByWebhook(hook, now.Add(-24*time.Hour), 0, 10)
		if n != m+1 || len(all) != len(recent)+1 || all[len(all)-1].ID != old.ID || slices.ContainsFunc(recent, func(d storage.Delivery) bool { return d.ID == old.ID }) {
			return fmt.Errorf("since a day ago: %d of %d, all: %d of %d", len(recent), m, len(all), n)
		}
		return nil
	}))
}
