package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

func (t boltTx) Webhooks(tenantID string) Webhooks {
	return boltWebhooks{records[Webhook]{t.tx.Bucket(bucketWebhooks), tenantID}}
}

func (t boltTx) Events(tenantID string) Events {
	return boltEvents{records[Event]{t.tx.Bucket(bucketEvents), tenantID}, t.tx.Bucket(bucketEventsByRelated)}
}

func (t boltTx) Deliveries(tenantID string) Deliveries {
	return boltDeliveries{
		records:   records[Delivery]{t.tx.Bucket(bucketDeliveries), tenantID},
		byWebhook: t.tx.Bucket(bucketDeliveriesByWebhook),
		pending:   t.tx.Bucket(bucketDeliveriesPending),
		outbox:    t.tx.Bucket(bucketOutbox),
	}
}

func (t boltTx) Outbox() Outbox { return boltOutbox{t.tx.Bucket(bucketOutbox)} }

type boltWebhooks struct{ records[Webhook] }

func (w boltWebhooks) Get(id string) (Webhook, error)                 { return w.get(id) }
func (w boltWebhooks) Put(v Webhook) error                            { return w.put(v.ID, v) }
func (w boltWebhooks) Delete(id string) error                         { return w.del(id) }
func (w boltWebhooks) List(offset, limit int) ([]Webhook, int, error) { return w.page(offset, limit) }

func (w boltWebhooks) All() ([]Webhook, error) {
	items, _, err := w.page(0, int(^uint(0)>>1))
	return items, err
}

// timeKey is the key prefix of the records of a tenant made at t's millisecond (ids are UUID
// version 7, whose first 48 bits are the millisecond): "<tenant>/xxxxxxxx-xxxx".
func timeKey(tenant string, t time.Time) []byte {
	ms := t.UnixMilli()
	var u [6]byte
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	return fmt.Appendf(nil, "%s/%x-%x", tenant, u[0:4], u[4:6])
}

// newest walks the keys of b under prefix whose time part is in [from, to], newest first.
// lo and hi bound the keys (hi exclusive).
func newest(b *bolt.Bucket, prefix, lo, hi []byte, fn func(k, v []byte) bool) {
	c := b.Cursor()
	k, v := c.Seek(hi)
	if k == nil {
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

func decodeEach[T any](fn func(T) bool, get func(k, v []byte) []byte) func(k, v []byte) bool {
	return func(k, v []byte) bool {
		raw := get(k, v)
		if raw == nil {
			return true
		}
		var item T
		if err := json.Unmarshal(raw, &item); err != nil {
			return true // a record that does not decode is skipped, never fatal to a listing
		}
		return fn(item)
	}
}

type boltEvents struct {
	records[Event]
	byRelated *bolt.Bucket
}

func (e boltEvents) Get(id string) (Event, error) { return e.get(id) }

func (e boltEvents) Put(v Event) error {
	if err := e.byRelated.Put(key(e.tenant, v.RelatedObjectID, v.ID), nil); err != nil {
		return err
	}
	return e.put(v.ID, v)
}

func (e boltEvents) Delete(id string) error {
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
	return e.del(id)
}

func (e boltEvents) Newest(from, to time.Time, fn func(Event) bool) error {
	lo, hi := timeBounds(e.tenant, from, to)
	newest(e.b, key(e.tenant, ""), lo, hi, decodeEach(fn, func(_, v []byte) []byte { return v }))
	return nil
}

func (e boltEvents) NewestRelated(related string, from, to time.Time, fn func(Event) bool) error {
	prefix := string(key(e.tenant, related))
	lo, hi := timeBounds(prefix, from, to)
	newest(e.byRelated, key(prefix, ""), lo, hi, decodeEach(fn, func(k, _ []byte) []byte {
		return e.b.Get(key(e.tenant, string(k[len(prefix)+1:])))
	}))
	return nil
}

func (e boltEvents) Older(t time.Time, fn func(Event) bool) error {
	return older(e.b, e.tenant, t, fn)
}

// older walks a tenant's records made before t, oldest first.
func older[T any](b *bolt.Bucket, tenant string, t time.Time, fn func(T) bool) error {
	prefix, limit := key(tenant, ""), timeKey(tenant, t)
	c := b.Cursor()
	var items []T // collected first: the caller may delete what it is given
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, limit) < 0; k, v = c.Next() {
		var item T
		if err := json.Unmarshal(v, &item); err != nil {
			return fmt.Errorf("storage: decode %s: %w", k, err)
		}
		items = append(items, item)
	}
	for _, item := range items {
		if !fn(item) {
			break
		}
	}
	return nil
}

type boltDeliveries struct {
	records[Delivery]
	byWebhook, pending, outbox *bolt.Bucket
}

// outboxKey orders pending deliveries by due time: 8 bytes of Unix nanoseconds, big-endian,
// then "<tenant>/<delivery>".
func outboxKey(due time.Time, tenant, id string) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(tenant)+1+len(id)), uint64(due.UnixNano()))
	return append(k, key(tenant, id)...)
}

func (d boltDeliveries) Get(id string) (Delivery, error) { return d.get(id) }

func (d boltDeliveries) Put(v Delivery) error {
	v.TenantID = d.tenant
	old, err := d.get(v.ID)
	switch {
	case err == nil:
		if old.NextAttemptAt != nil {
			if err := d.outbox.Delete(outboxKey(*old.NextAttemptAt, d.tenant, old.ID)); err != nil {
				return err
			}
		}
	case !errors.Is(err, ErrNotFound):
		return err
	}
	if v.Status == "pending" {
		if v.NextAttemptAt == nil {
			return fmt.Errorf("storage: pending delivery %s without a next attempt time", v.ID)
		}
		if err := d.outbox.Put(outboxKey(*v.NextAttemptAt, d.tenant, v.ID), nil); err != nil {
			return err
		}
		if err := d.pending.Put(key(d.tenant, v.WebhookID, v.ID), nil); err != nil {
			return err
		}
	} else {
		v.NextAttemptAt = nil
		if err := d.pending.Delete(key(d.tenant, v.WebhookID, v.ID)); err != nil {
			return err
		}
	}
	if err := d.byWebhook.Put(key(d.tenant, v.WebhookID, v.ID), nil); err != nil {
		return err
	}
	return d.put(v.ID, v)
}

func (d boltDeliveries) Delete(id string) error {
	old, err := d.get(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if old.NextAttemptAt != nil {
		if err := d.outbox.Delete(outboxKey(*old.NextAttemptAt, d.tenant, old.ID)); err != nil {
			return err
		}
	}
	for _, b := range []*bolt.Bucket{d.pending, d.byWebhook} {
		if err := b.Delete(key(d.tenant, old.WebhookID, old.ID)); err != nil {
			return err
		}
	}
	return d.del(id)
}

func (d boltDeliveries) resolve(prefix []byte) func(k, _ []byte) []byte {
	return func(k, _ []byte) []byte { return d.b.Get(key(d.tenant, string(k[len(prefix):]))) }
}

func (d boltDeliveries) ByWebhook(webhookID string, offset, limit int) ([]Delivery, int, error) {
	prefix := key(d.tenant, webhookID, "")
	var out []Delivery
	total := 0
	get := d.resolve(prefix)
	newest(d.byWebhook, prefix, prefix, append(bytes.Clone(prefix), 0xff), func(k, v []byte) bool {
		if total >= offset && len(out) < limit {
			if raw := get(k, v); raw != nil {
				var item Delivery
				if json.Unmarshal(raw, &item) == nil {
					out = append(out, item)
				}
			}
		}
		total++
		return true
	})
	return out, total, nil
}

func (d boltDeliveries) AllByWebhook(webhookID string, fn func(Delivery) bool) error {
	prefix := key(d.tenant, webhookID, "")
	newest(d.byWebhook, prefix, prefix, append(bytes.Clone(prefix), 0xff), decodeEach(fn, d.resolve(prefix)))
	return nil
}

func (d boltDeliveries) Pending(webhookID string) ([]Delivery, error) {
	prefix := key(d.tenant, webhookID, "")
	var out []Delivery
	c := d.pending.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		v, err := d.get(string(k[len(prefix):]))
		if err != nil {
			return nil, fmt.Errorf("storage: pending index %s: %w", k, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func (d boltDeliveries) Older(t time.Time, fn func(Delivery) bool) error {
	return older(d.b, d.tenant, t, fn)
}

type boltOutbox struct{ b *bolt.Bucket }

func (o boltOutbox) Due(now time.Time, limit int) ([]DeliveryRef, error) {
	var out []DeliveryRef
	c := o.b.Cursor()
	for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
		due := time.Unix(0, int64(binary.BigEndian.Uint64(k[:8])))
		if due.After(now) {
			break
		}
		tenant, id, err := splitRef(k[8:])
		if err != nil {
			return nil, err
		}
		out = append(out, DeliveryRef{Due: due, TenantID: tenant, DeliveryID: id})
	}
	return out, nil
}

func (o boltOutbox) Next() (time.Time, bool) {
	k, _ := o.b.Cursor().First()
	if k == nil {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(k[:8]))), true
}
