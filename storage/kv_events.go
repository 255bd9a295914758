package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

func (t collections) Webhooks(tenantID string) Webhooks {
	return kvWebhooks{newListed[Webhook](t, bucketWebhooks, tenantID)}
}

func (t collections) Events(tenantID string) Events {
	return kvEvents{records[Event]{b: t.bucket(bucketEvents), tenant: tenantID}, t.bucket(bucketEventsByRelated),
		t.bucket(bucketEventsByType), t.bucket(bucketEventsHours), t.bucket(bucketEventsRelatedHours)}
}

func (t collections) Deliveries(tenantID string) Deliveries {
	return kvDeliveries{
		records:   records[Delivery]{b: t.bucket(bucketDeliveries), tenant: tenantID},
		byWebhook: t.bucket(bucketDeliveriesByWebhook),
		pending:   t.bucket(bucketDeliveriesPending),
		count:     t.bucket(bucketDeliveriesPendingCount),
		perHook:   tally{t.bucket(bucketCounts), bucketDeliveriesByWebhook},
		due:       t.bucket(bucketDeliveriesDue),
	}
}

func (t collections) Outbox() Outbox { return kvOutbox{t.bucket(bucketDeliveriesDue)} }

type kvWebhooks struct{ records[Webhook] }

func (w kvWebhooks) Get(id string) (Webhook, error)                 { return w.get(id) }
func (w kvWebhooks) Put(v Webhook) error                            { return w.put(v.ID, v) }
func (w kvWebhooks) Delete(id string) error                         { return w.del(id) }
func (w kvWebhooks) List(offset, limit int) ([]Webhook, int, error) { return w.page(offset, limit) }

func (w kvWebhooks) All() ([]Webhook, error) {
	items, _, err := w.page(0, int(^uint(0)>>1))
	return items, err
}

// timeKey is the key prefix of the records of a tenant made at t's millisecond (ids are UUID
// version 7, whose first 48 bits are the millisecond): "<tenant>/xxxxxxxx-xxxx".
func timeKey(tenant string, t time.Time) []byte {
	return append(key(tenant, ""), idTime(t)...)
}

// idTime is the start of the ids made at t's millisecond: "xxxxxxxx-xxxx".
func idTime(t time.Time) []byte {
	ms := t.UnixMilli()
	var u [6]byte
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	return fmt.Appendf(nil, "%x-%x", u[0:4], u[4:6])
}

// newest walks the keys of b under prefix whose time part is in [from, to], newest first.
// lo and hi bound the keys (hi exclusive).
func newest(b kvBucket, prefix, lo, hi []byte, fn func(k, v []byte) bool) {
	c := b.Cursor()
	var k, v []byte
	if k, _ = c.Seek(hi); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	for ; k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, lo) >= 0; k, v = c.Prev() {
		if !fn(k, v) {
			return
		}
	}
}

// timeBounds are the key bounds of [from, to] under a tenant prefix with extra parts.
func timeBounds(prefix string, from, to time.Time) (lo, hi []byte) {
	lo = timeKey(prefix, from)
	hi = append(timeKey(prefix, to.Add(time.Millisecond)), 0)
	return lo, hi
}

// decodeEach is a walk's function that decodes each record get finds (none: passed over) and
// hands it to fn; a record that does not decode stops the walk, its error in *err.
func decodeEach[T any](fn func(T) bool, get func(k, v []byte) []byte, err *error) func(k, v []byte) bool {
	return func(k, v []byte) bool {
		raw := get(k, v)
		if raw == nil {
			return true
		}
		var item T
		if e := decodeRecord(raw, &item); e != nil {
			*err = fmt.Errorf("storage: decode %s: %w", k, e)
			return false
		}
		return fn(item)
	}
}

type kvEvents struct {
	records[Event]
	byRelated kvBucket
	byType    kvBucket
	hours     kvBucket
	// relHours counts each related object's events by hour (schema 30; nil before)
	relHours kvBucket
}

func (e kvEvents) Get(id string) (Event, error) { return e.get(id) }

func (e kvEvents) Put(v Event) error {
	if err := e.index(v, e.b.Get(key(e.tenant, v.ID)) == nil); err != nil {
		return err
	}
	return e.put(v.ID, v)
}

func (e kvEvents) Create(v Event) error {
	if err := e.index(v, true); err != nil {
		return err
	}
	return e.create(v.ID, v)
}

// index writes v's entry under its related object (its value, the type, always) and, when v
// is new, its entry under its type and its hour counts (counted once, by its id's time).
func (e kvEvents) index(v Event, isNew bool) error {
	if err := e.byRelated.Put(key(e.tenant, v.RelatedObjectID, v.ID), []byte(v.Type)); err != nil {
		return err
	}
	if !isNew {
		return nil
	}
	if err := e.byType.Put(key(e.tenant, v.Type, v.ID), nil); err != nil {
		return err
	}
	return e.count(v, 1)
}

func (e kvEvents) Delete(id string) error {
	old, err := e.get(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := e.byRelated.Delete(key(e.tenant, old.RelatedObjectID, old.ID)); err != nil {
		return err
	}
	if err := e.byType.Delete(key(e.tenant, old.Type, old.ID)); err != nil {
		return err
	}
	if err := e.count(old, -1); err != nil {
		return err
	}
	return e.del(id)
}

// count adds d to the counters of v's hour, of any type and of v's type, the tenant's and its
// related object's.
func (e kvEvents) count(v Event, d int64) error {
	if err := countEvent(e.hours, e.tenant, v, d); err != nil {
		return err
	}
	return countRelated(e.relHours, e.tenant, v, d)
}

func countEvent(hours kvBucket, tenant string, v Event, d int64) error {
	at := eventTime(v)
	for _, typ := range []string{"", v.Type} {
		if err := addCount(hours, hourKey(tenant, typ, at), d); err != nil {
			return err
		}
	}
	return nil
}

// countRelated is countEvent for v's related object, in events_related_hours (nil before schema
// 30: nothing is written, and migration 30 counts what it finds).
func countRelated(relHours kvBucket, tenant string, v Event, d int64) error {
	if relHours == nil {
		return nil
	}
	return countEvent(relHours, string(key(tenant, v.RelatedObjectID)), v, d)
}

// eventTime is when v was made as its key orders it: the millisecond of its id (a UUID version
// 7, made at CreatedAt), or CreatedAt for an id of another form.
func eventTime(v Event) time.Time {
	if len(v.ID) >= 13 && v.ID[8] == '-' {
		if ms, err := strconv.ParseUint(v.ID[:8]+v.ID[9:13], 16, 64); err == nil {
			return time.UnixMilli(int64(ms)).UTC()
		}
	}
	return v.CreatedAt
}

// hourKey is the counter of a tenant's events of one type ("" any) made in the hour of t:
// "<tenant>/<type>/" and the hour since the Unix epoch, 4 bytes big-endian.
func hourKey(tenant, typ string, t time.Time) []byte {
	k := key(tenant, typ, "")
	return binary.BigEndian.AppendUint32(k, uint32(t.Unix()/3600))
}

// addCount adds d to the 8-byte big-endian counter at k; a counter that reaches 0 goes.
func addCount(b kvBucket, k []byte, d int64) error {
	n := int64(0)
	if v := b.Get(k); len(v) == 8 {
		n = int64(binary.BigEndian.Uint64(v))
	}
	n += d
	if n <= 0 {
		return b.Delete(k)
	}
	return b.Put(k, binary.BigEndian.AppendUint64(nil, uint64(n)))
}

// counterChanges are changes to counters of one bucket made together: apply reads the counters
// at once (on PostgreSQL one statement, not one a counter) and adds each change (addCount).
type counterChanges struct {
	keys [][]byte
	ds   []int64
}

func (c *counterChanges) add(k []byte, d int64) {
	c.keys, c.ds = append(c.keys, k), append(c.ds, d)
}

func (c *counterChanges) apply(b kvBucket) error {
	prefetch(b, c.keys)
	for i, k := range c.keys {
		if err := addCount(b, k, c.ds[i]); err != nil {
			return err
		}
	}
	return nil
}

// indexOf is the bucket and key prefix under which a tenant's events of type typ ("" any) are
// in time order.
func (e kvEvents) indexOf(typ string) (kvBucket, string) {
	if typ == "" {
		return e.b, e.tenant
	}
	return e.byType, string(key(e.tenant, typ))
}

// Count adds the kept counters of the hours [from, to] overlaps, then takes away the events of
// the first and last hour that fall outside it, counted by key: its cost grows with the hours of
// the range and the events of those two hours, never with the events stored.
func (e kvEvents) Count(typ string, from, to time.Time) (int, error) {
	b, p := e.indexOf(typ)
	return countHours(e.hours, e.tenant, typ, b, p, nil, from, to), nil
}

// CountRelated is Count over the related object's counters and index entries (whose values are
// their types).
func (e kvEvents) CountRelated(related, typ string, from, to time.Time) (int, error) {
	if e.relHours == nil {
		return 0, errors.New("storage: events are not counted by related object before schema 30")
	}
	var want []byte
	if typ != "" {
		want = []byte(typ)
	}
	return countHours(e.relHours, string(key(e.tenant, related)), typ, e.byRelated, string(key(e.tenant, related)), want, from, to), nil
}

// countHours adds the counters in hours of owner's events of type typ ("" any) over the hours
// [from, to] overlaps, then takes away the entries of index b under p in the first and last
// hour that fall outside it (those whose value is want, when want is not nil).
func countHours(hours kvBucket, owner, typ string, b kvBucket, p string, want []byte, from, to time.Time) int {
	if to.Before(from) {
		return 0
	}
	n := 0
	c := hours.Cursor()
	prefix := key(owner, typ, "")
	last := hourKey(owner, typ, to)
	for k, v := c.Seek(hourKey(owner, typ, from)); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, last) <= 0; k, v = c.Next() {
		n += int(binary.BigEndian.Uint64(v))
	}
	first := from.Truncate(time.Hour)
	n -= countRange(b, timeKey(p, first), timeKey(p, from), want)
	n -= countRange(b, append(timeKey(p, to.Add(time.Millisecond)), 0), timeKey(p, to.Truncate(time.Hour).Add(time.Hour)), want)
	return n
}

// countRange counts the keys of b in [lo, hi) (whose value is want, when want is not nil).
func countRange(b kvBucket, lo, hi, want []byte) int {
	n := 0
	c := b.Cursor()
	for k, v := c.Seek(lo); k != nil && bytes.Compare(k, hi) < 0; k, v = c.Next() {
		if want == nil || bytes.Equal(v, want) {
			n++
		}
	}
	return n
}

// Page walks the keys of [from, to] newest first, passing over offset of them unread and
// decoding at most limit.
func (e kvEvents) Page(typ string, from, to time.Time, offset, limit int) ([]Event, error) {
	b, p := e.indexOf(typ)
	lo, hi := timeBounds(p, from, to)
	var out []Event
	var err error
	take := decodeEach(func(ev Event) bool { out = append(out, ev); return len(out) < limit }, asRecord, &err)
	ahead := newReadAhead(e.b, limit, take) // of a type: its index names the records
	skip := offset
	under := key(p, "")
	newest(b, under, lo, hi, func(k, v []byte) bool {
		if skip > 0 {
			skip--
			return true
		}
		if typ == "" {
			return take(k, v)
		}
		return ahead.add(e.named(under, k))
	})
	ahead.flush()
	return out, err
}

// PageRelated walks the related object's index entries of [from, to] newest first, their types
// read from the entries, passing over offset of those of type typ ("" any) and decoding at most
// limit.
func (e kvEvents) PageRelated(related, typ string, from, to time.Time, offset, limit int) ([]Event, error) {
	prefix := string(key(e.tenant, related))
	lo, hi := timeBounds(prefix, from, to)
	if limit <= 0 {
		return nil, nil
	}
	var out []Event
	var err error
	skip := offset
	ahead := newReadAhead(e.b, limit, decodeEach(func(ev Event) bool { out = append(out, ev); return len(out) < limit }, asRecord, &err))
	under := key(prefix, "")
	newest(e.byRelated, under, lo, hi, func(k, v []byte) bool {
		if typ != "" && string(v) != typ {
			return true
		}
		if skip > 0 {
			skip--
			return true
		}
		return ahead.add(e.named(under, k))
	})
	ahead.flush()
	return out, err
}

func (e kvEvents) Body(id string) ([]byte, error) {
	raw := e.b.Get(key(e.tenant, id))
	if raw == nil {
		return nil, ErrNotFound
	}
	var v Event
	if err := decodeRecord(raw, &v); err != nil {
		return nil, fmt.Errorf("storage: decode %s/%s: %w", e.tenant, id, err)
	}
	return v.Body, nil
}

func (e kvEvents) Older(t time.Time, fn func(Event) bool) error {
	return older(e.b, e.tenant, t, fn)
}

// olderBatch is how many records older reads before it hands them to its caller.
const olderBatch = 256

// older walks a tenant's records made before t, oldest first. It reads them a batch at a time,
// each batch before the caller sees it (the caller may delete what it is given), so that a walk
// stopped early costs what it read, not every record older than t.
func older[T any](b kvBucket, tenant string, t time.Time, fn func(T) bool) error {
	prefix, limit := key(tenant, ""), timeKey(tenant, t)
	from, next := prefix, []byte(nil)
	for {
		items := make([]T, 0, olderBatch)
		c := b.Cursor()
		for k, v := c.Seek(from); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, limit) < 0 && len(items) < olderBatch; k, v = c.Next() {
			var item T
			if err := decodeRecord(v, &item); err != nil {
				return fmt.Errorf("storage: decode %s: %w", k, err)
			}
			items = append(items, item)
			next = append(append(next[:0], k...), 0) // the first key after k
		}
		for _, item := range items {
			if !fn(item) {
				return nil
			}
		}
		if len(items) < olderBatch {
			return nil
		}
		from = next
	}
}

type kvDeliveries struct {
	records[Delivery]
	byWebhook, pending, count, due kvBucket
	perHook                        tally // deliveries of each webhook: "<tenant>/<webhookID>"
}

// dueKey orders a webhook's pending deliveries by due time: "<tenant>/<webhook>/", 8 bytes of
// Unix nanoseconds, big-endian, then the delivery id.
func dueKey(tenant, webhook string, due time.Time, id string) []byte {
	k := make([]byte, 0, len(tenant)+len(webhook)+2+8+len(id))
	k = append(append(append(append(k, tenant...), '/'), webhook...), '/')
	k = binary.BigEndian.AppendUint64(k, uint64(due.UnixNano()))
	return append(k, id...)
}

// dueValue is what an attempt needs of a pending delivery: "<kind>/<event type>/<event id>/<0|1 synthetic>".
func dueValue(d Delivery) []byte {
	synthetic := "0"
	if d.Synthetic {
		synthetic = "1"
	}
	return key(d.Kind, d.EventType, d.EventID, synthetic)
}

func (d kvDeliveries) Get(id string) (Delivery, error) { return d.get(id) }

// addPending moves a webhook's pending counter by n.
func (d kvDeliveries) addPending(webhook string, n int64) error {
	return addCount(d.count, key(d.tenant, webhook), n)
}

func (d kvDeliveries) Put(v Delivery) error {
	old, err := d.get(v.ID)
	switch {
	case err == nil:
		return d.replace(&old, v)
	case errors.Is(err, ErrNotFound):
		return d.replace(nil, v)
	}
	return err
}

func (d kvDeliveries) Update(id string, fn func(*Delivery) bool) error {
	old, err := d.get(id)
	if err != nil {
		return err
	}
	v := old
	v.History = slices.Clone(old.History)
	if !fn(&v) {
		return nil
	}
	v.ID = id
	return d.replace(&old, v)
}

// counters reads ahead, where the backend can, the counters that saving deliveries of these
// webhooks moves: the pending ones, and with added the count of each webhook's deliveries.
func (d kvDeliveries) counters(webhooks []string, added bool) {
	var pending, perHook [][]byte
	seen := map[string]bool{}
	for _, w := range webhooks {
		if seen[w] {
			continue
		}
		seen[w] = true
		pending = append(pending, key(d.tenant, w))
		if added && d.perHook.counts != nil {
			perHook = append(perHook, d.perHook.key(d.tenant+"/"+w))
		}
	}
	prefetch(d.count, pending)
	if len(perHook) > 0 {
		prefetch(d.perHook.counts, perHook)
	}
}

func (d kvDeliveries) Create(ds []Delivery) error {
	hooks := make([]string, len(ds))
	for i, v := range ds {
		hooks[i] = v.WebhookID
	}
	d.counters(hooks, true)
	for _, v := range ds {
		if err := d.replace(nil, v); err != nil {
			return err
		}
	}
	return nil
}

func (d kvDeliveries) Finish(fs []Finished) ([]bool, error) {
	keys := make([][]byte, len(fs))
	hooks := make([]string, len(fs))
	for i, f := range fs {
		keys[i], hooks[i] = dueKey(d.tenant, f.Delivery.WebhookID, f.Due, f.Delivery.ID), f.Delivery.WebhookID
	}
	prefetch(d.due, keys)
	d.counters(hooks, false)
	ok := make([]bool, len(fs))
	for i, f := range fs {
		if d.due.Get(keys[i]) == nil {
			continue
		}
		due := f.Due
		if err := d.replace(&Delivery{ID: f.Delivery.ID, WebhookID: f.Delivery.WebhookID, Status: "pending", NextAttemptAt: &due}, f.Delivery); err != nil {
			return nil, err
		}
		ok[i] = true
	}
	return ok, nil
}

// replace saves v over old (nil when v is new), keeping the indexes and the pending counter.
func (d kvDeliveries) replace(old *Delivery, v Delivery) error {
	v.TenantID = d.tenant
	wasPending := false
	if old != nil {
		wasPending = old.Status == "pending"
		if old.NextAttemptAt != nil {
			if err := d.due.Delete(dueKey(d.tenant, old.WebhookID, *old.NextAttemptAt, old.ID)); err != nil {
				return err
			}
		}
	}
	if v.Status == "pending" {
		if v.NextAttemptAt == nil {
			return fmt.Errorf("storage: pending delivery %s without a next attempt time", v.ID)
		}
		if err := d.due.Put(dueKey(d.tenant, v.WebhookID, *v.NextAttemptAt, v.ID), dueValue(v)); err != nil {
			return err
		}
		if !wasPending {
			if err := d.pending.Put(key(d.tenant, v.WebhookID, v.ID), nil); err != nil {
				return err
			}
			if err := d.addPending(v.WebhookID, 1); err != nil {
				return err
			}
		}
	} else {
		v.NextAttemptAt = nil
		if err := d.pending.Delete(key(d.tenant, v.WebhookID, v.ID)); err != nil {
			return err
		}
		if wasPending {
			if err := d.addPending(v.WebhookID, -1); err != nil {
				return err
			}
		}
	}
	if old != nil {
		return d.overwrite(v.ID, v)
	}
	if err := d.byWebhook.Put(key(d.tenant, v.WebhookID, v.ID), nil); err != nil {
		return err
	}
	if err := d.perHook.add(d.tenant+"/"+v.WebhookID, 1); err != nil {
		return err
	}
	return d.create(v.ID, v)
}

func (d kvDeliveries) Delete(id string) error {
	old, err := d.get(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if old.NextAttemptAt != nil {
		if err := d.due.Delete(dueKey(d.tenant, old.WebhookID, *old.NextAttemptAt, old.ID)); err != nil {
			return err
		}
	}
	if old.Status == "pending" {
		if err := d.addPending(old.WebhookID, -1); err != nil {
			return err
		}
	}
	for _, b := range []kvBucket{d.pending, d.byWebhook} {
		if err := b.Delete(key(d.tenant, old.WebhookID, old.ID)); err != nil {
			return err
		}
	}
	if err := d.perHook.add(d.tenant+"/"+old.WebhookID, -1); err != nil {
		return err
	}
	return d.del(id)
}

func (d kvDeliveries) ByWebhook(webhookID string, since time.Time, offset, limit int) ([]Delivery, int, error) {
	prefix := key(d.tenant, webhookID, "")
	lo := prefix // the zero time: every delivery
	if !since.IsZero() {
		lo = timeKey(string(key(d.tenant, webhookID)), since)
	}
	total := d.perHook.get(d.tenant+"/"+webhookID) - countRange(d.byWebhook, prefix, lo, nil)
	if limit <= 0 || offset >= total {
		return nil, total, nil
	}
	var out []Delivery
	var err error
	skip := offset
	ahead := newReadAhead(d.b, limit, decodeEach(func(item Delivery) bool { out = append(out, item); return len(out) < limit }, asRecord, &err))
	newest(d.byWebhook, prefix, lo, append(bytes.Clone(prefix), 0xff), func(k, v []byte) bool {
		if skip > 0 {
			skip--
			return true
		}
		return ahead.add(d.named(prefix, k))
	})
	ahead.flush()
	return out, total, err
}

func (d kvDeliveries) AllByWebhook(webhookID string, fn func(Delivery) bool) error {
	prefix := key(d.tenant, webhookID, "")
	var err error
	ahead := newReadAhead(d.b, aheadFirst, decodeEach(fn, asRecord, &err))
	newest(d.byWebhook, prefix, prefix, append(bytes.Clone(prefix), 0xff), func(k, _ []byte) bool { return ahead.add(d.named(prefix, k)) })
	ahead.flush()
	return err
}

func (d kvDeliveries) Pending(webhookID string, limit int) ([]Delivery, error) {
	prefix := key(d.tenant, webhookID, "")
	var out []Delivery
	var err error
	ahead := newReadAhead(d.b, limit, decodeAll(&out, &err))
	c := d.pending.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out)+len(ahead.keys) < limit; k, _ = c.Next() {
		if !ahead.add(d.named(prefix, k)) {
			break
		}
	}
	ahead.flush()
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (d kvDeliveries) PendingStats(webhookID string) (PendingStats, error) {
	var st PendingStats
	if v := d.count.Get(key(d.tenant, webhookID)); len(v) == 8 {
		st.Count = int(binary.BigEndian.Uint64(v))
	}
	prefix := key(d.tenant, webhookID, "")
	if k, _ := d.pending.Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
		// delivery ids are UUID version 7: the first key is the oldest, and tells its millisecond
		st.Oldest = uuidTime(string(k[len(prefix):]))
	}
	return st, nil
}

// uuidTime is the millisecond a UUID version 7 was made; zero for any other string.
func uuidTime(id string) time.Time {
	hex := strings.ReplaceAll(id, "-", "")
	if len(hex) != 32 {
		return time.Time{}
	}
	ms, err := strconv.ParseUint(hex[:12], 16, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

func (d kvDeliveries) Older(t time.Time, fn func(Delivery) bool) error {
	return older(d.b, d.tenant, t, fn)
}

type kvOutbox struct{ b kvBucket }

// splitDue reads a due key: its tenant, webhook, due time and delivery id.
func splitDue(k []byte) (tenant, webhook string, due time.Time, id string, err error) {
	i := bytes.IndexByte(k, '/')
	if i < 0 {
		return "", "", time.Time{}, "", fmt.Errorf("storage: malformed outbox key %q", k)
	}
	j := bytes.IndexByte(k[i+1:], '/')
	if j < 0 || len(k) < i+1+j+1+8 {
		return "", "", time.Time{}, "", fmt.Errorf("storage: malformed outbox key %q", k)
	}
	rest := k[i+1+j+1:]
	return string(k[:i]), string(k[i+1 : i+1+j]), time.Unix(0, int64(binary.BigEndian.Uint64(rest[:8]))), string(rest[8:]), nil
}

func (o kvOutbox) Destinations(tenant string, fn func(Destination) bool) error {
	var prefix []byte
	if tenant != "" {
		prefix = key(tenant, "")
	}
	c := o.b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); {
		t, w, due, _, err := splitDue(k)
		if err != nil {
			return err
		}
		if !fn(Destination{TenantID: t, WebhookID: w, Next: due}) {
			return nil
		}
		// past every key of this webhook: "<tenant>/<webhook>0" sorts right after "<tenant>/<webhook>/…"
		k, _ = c.Seek(append(key(t, w), '/'+1))
	}
	return nil
}

func (o kvOutbox) Due(tenant, webhook string, after *Queued, now time.Time, limit int, skip func(string) bool) ([]Queued, time.Time, error) {
	prefix := key(tenant, webhook, "")
	var out []Queued
	c := o.b.Cursor()
	k, v := c.Seek(prefix)
	if after != nil {
		from := dueKey(tenant, webhook, after.Due, after.DeliveryID)
		if k, v = c.Seek(from); bytes.Equal(k, from) {
			k, v = c.Next()
		}
	}
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(k) < len(prefix)+8 {
			return nil, time.Time{}, fmt.Errorf("storage: malformed outbox key %q", k)
		}
		due := time.Unix(0, int64(binary.BigEndian.Uint64(k[len(prefix):])))
		if due.After(now) {
			return out, due, nil
		}
		if len(out) == limit {
			return out, time.Time{}, nil
		}
		id := string(k[len(prefix)+8:])
		if skip != nil && skip(id) {
			continue
		}
		parts := strings.SplitN(string(v), "/", 4)
		if len(parts) != 4 {
			return nil, time.Time{}, fmt.Errorf("storage: malformed outbox value %q", v)
		}
		out = append(out, Queued{Due: due, TenantID: tenant, WebhookID: webhook, DeliveryID: id,
			Kind: parts[0], EventType: parts[1], EventID: parts[2], Synthetic: parts[3] == "1"})
	}
	return out, time.Time{}, nil
}

func (o kvOutbox) Empty() bool {
	k, _ := o.b.Cursor().First()
	return k == nil
}
