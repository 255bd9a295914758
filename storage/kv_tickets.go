package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

func (t collections) Tickets(tenantID string) Tickets {
	return kvTickets{newListed[Ticket](t, bucketTickets, tenantID), t.bucket(bucketTicketsByNumber),
		t.bucket(bucketTicketsByPaid), t.bucket(bucketTicketsByRecorded), t.bucket(bucketTicketsBy), t.bucket(bucketTicketsInStatus)}
}

type kvTickets struct {
	records[Ticket]
	byNumber, byPaid, byRecorded, by, inStatus kvBucket
}

func (s kvTickets) Get(id string) (Ticket, error) { return s.get(id) }

func (s kvTickets) GetMany(ids []string) ([]Ticket, error) { return s.getMany(ids) }

func (s kvTickets) ByNumber(number string) (Ticket, error) {
	id := s.byNumber.Get(key(s.tenant, number))
	if id == nil {
		return Ticket{}, ErrNotFound
	}
	return s.get(string(id))
}

// Put saves the ticket and its indexes: number → id; paid day/id → issuer/recorder/status (the
// status changes, so the value is rewritten on every Put); recorded day/id → recorder.
func (s kvTickets) Put(v Ticket) error {
	v.TenantID = s.tenant
	if len(v.PaidDay) != 10 || len(v.RecordedDay) != 10 {
		return fmt.Errorf("storage: ticket %s without its days", v.ID)
	}
	if err := s.put(v.ID, v); err != nil {
		return err
	}
	if err := s.byNumber.Put(key(s.tenant, v.Number), []byte(v.ID)); err != nil {
		return err
	}
	paid := key(s.tenant, v.PaidDay, v.ID)
	oldStatus := ""
	if old := s.byPaid.Get(paid); old != nil {
		parts := bytes.SplitN(old, []byte("/"), 3)
		if len(parts) != 3 {
			return fmt.Errorf("storage: malformed ticket index value %q", old)
		}
		oldStatus = string(parts[2])
	}
	entry := key(v.IssuerPersonID, v.RecordedByPersonID, v.Status)
	if err := s.byPaid.Put(paid, entry); err != nil {
		return err
	}
	if err := indexTicket(s.by, s.tally.counts, s.tenant, v, oldStatus, entry); err != nil {
		return err
	}
	if err := countTicketInStatus(s.inStatus, s.tenant, v, oldStatus); err != nil {
		return err
	}
	return s.byRecorded.Put(key(s.tenant, v.RecordedDay, v.ID), []byte(v.RecordedByPersonID))
}

// ticketsBy is the key prefix of a tenant's tickets of one index value.
func ticketsBy(tenant string, ix TicketIndex, value string) []byte {
	return key(tenant, string(ix), value, "")
}

// countKeyTickets is the counter of a ticketsBy prefix in the counts bucket.
func countKeyTickets(prefix []byte) []byte {
	return append(append(bytes.Clone(bucketTicketsBy), '/'), prefix...)
}

// indexTicket writes a ticket's entries under the people who see it (its issuer and its
// recorder, once when the same), under its issuer and under its status, moving it from its old status's (oldStatus; "" when new) and counting. Issuer,
// recorder and payment day never change. Before schema 17 (an older migration writing through
// Put) there is no index: nothing is written, and migration 17 indexes what it finds.
func indexTicket(by, counts kvBucket, tenant string, v Ticket, oldStatus string, entry []byte) error {
	if by == nil || oldStatus == v.Status {
		return nil // the entries are the same: issuer, recorder and day never change
	}
	put := func(ix TicketIndex, value string, isNew bool) error {
		p := ticketsBy(tenant, ix, value)
		if isNew {
			if err := addCount(counts, countKeyTickets(p), 1); err != nil {
				return err
			}
		}
		return by.Put(append(append(p, v.PaidDay...), "/"+v.ID...), entry)
	}
	isNew := oldStatus == ""
	if err := put(TicketsOfPerson, v.IssuerPersonID, isNew); err != nil {
		return err
	}
	if v.RecordedByPersonID != v.IssuerPersonID {
		if err := put(TicketsOfPerson, v.RecordedByPersonID, isNew); err != nil {
			return err
		}
	}
	if err := put(TicketsOfIssuer, v.IssuerPersonID, isNew); err != nil {
		return err
	}
	if oldStatus != "" && oldStatus != v.Status {
		p := ticketsBy(tenant, TicketsInStatus, oldStatus)
		if err := by.Delete(append(append(p, v.PaidDay...), "/"+v.ID...)); err != nil {
			return err
		}
		if err := addCount(counts, countKeyTickets(p), -1); err != nil {
			return err
		}
	}
	return put(TicketsInStatus, v.Status, oldStatus != v.Status)
}

// inStatusKey is the counter, in tickets_in_status, of a tenant's tickets of one person or
// issuer in one status.
func inStatusKey(tenant string, ix TicketIndex, value, status string) []byte {
	return key(tenant, string(ix), value, status)
}

// countTicketInStatus moves a ticket's counters in tickets_in_status from its old status (""
// when new) to its status: under its issuer and recorder as people (once when the same) and
// under its issuer. Before schema 28 (an older migration writing through Put) there are none:
// nothing is written, and migration 28 counts what it finds.
func countTicketInStatus(b kvBucket, tenant string, v Ticket, oldStatus string) error {
	if b == nil || oldStatus == v.Status {
		return nil
	}
	keys := []struct {
		ix    TicketIndex
		value string
	}{{TicketsOfPerson, v.IssuerPersonID}, {TicketsOfPerson, v.RecordedByPersonID}, {TicketsOfIssuer, v.IssuerPersonID}}
	if v.RecordedByPersonID == v.IssuerPersonID {
		keys = append(keys[:1], keys[2])
	}
	var c counterChanges
	for _, k := range keys {
		if oldStatus != "" {
			c.add(inStatusKey(tenant, k.ix, k.value, oldStatus), -1)
		}
		c.add(inStatusKey(tenant, k.ix, k.value, v.Status), 1)
	}
	return c.apply(b)
}

// countTicketsInStatus writes tickets_in_status from every payment-day entry (migration 28).
func countTicketsInStatus(tx kvTx) error {
	b, err := tx.CreateBucketIfNotExists(bucketTicketsInStatus)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketTicketsByPaid).ForEach(func(k, entry []byte) error {
		parts := bytes.SplitN(k, []byte("/"), 3) // tenant/day/id
		vals := bytes.SplitN(entry, []byte("/"), 3)
		if len(parts) != 3 || len(vals) != 3 {
			return fmt.Errorf("malformed ticket index entry %q → %q", k, entry)
		}
		v := Ticket{IssuerPersonID: string(vals[0]), RecordedByPersonID: string(vals[1]), Status: string(vals[2])}
		return countTicketInStatus(b, string(parts[0]), v, "")
	})
}

func (s kvTickets) CountIn(ix TicketIndex, value, status string) (int, error) {
	if s.inStatus == nil {
		return 0, nil
	}
	if v := s.inStatus.Get(inStatusKey(s.tenant, ix, value, status)); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v)), nil
	}
	return 0, nil
}

func (s kvTickets) CountBy(ix TicketIndex, value string) (int, error) {
	if v := s.tally.counts.Get(countKeyTickets(ticketsBy(s.tenant, ix, value))); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v)), nil
	}
	return 0, nil
}

func (s kvTickets) EachPaidBy(ix TicketIndex, value, from, to string, reverse bool, fn func(id, issuerID, recordedByID, status string) error) error {
	return s.days(s.by, ticketsBy(s.tenant, ix, value), from, to, reverse, paidEntry(fn))
}

// indexTicketsBy writes tickets_by and its counters from every payment-day entry (migration 17).
func indexTicketsBy(tx kvTx) error {
	by, counts := tx.Bucket(bucketTicketsBy), tx.Bucket(bucketCounts)
	return tx.Bucket(bucketTicketsByPaid).ForEach(func(k, entry []byte) error {
		parts := bytes.SplitN(k, []byte("/"), 3) // tenant/day/id
		vals := bytes.SplitN(entry, []byte("/"), 3)
		if len(parts) != 3 || len(vals) != 3 {
			return fmt.Errorf("malformed ticket index entry %q → %q", k, entry)
		}
		v := Ticket{ID: string(parts[2]), PaidDay: string(parts[1]), IssuerPersonID: string(vals[0]), RecordedByPersonID: string(vals[1]), Status: string(vals[2])}
		return indexTicket(by, counts, string(parts[0]), v, "", entry)
	})
}

func (s kvTickets) List(offset, limit int) ([]Ticket, int, error) { return s.page(offset, limit) }

// days walks the index entries under prefix (the tenant's, or one value's of tickets_by: ending
// in '/') from day from to day to, both included ("" leaves a side open), calling fn with the
// ticket id and the entry's value; backwards when reverse.
func (s kvTickets) days(b kvBucket, prefix []byte, from, to string, reverse bool, fn func(id string, v []byte) error) error {
	first := append(bytes.Clone(prefix), from...)
	last := append(bytes.Clone(prefix), to+"/\xff"...)
	if to == "" {
		last = append(bytes.Clone(prefix[:len(prefix)-1]), '0') // '0' follows '/': past every key under prefix
	}
	c := b.Cursor()
	var k, v []byte
	step := c.Next
	if reverse {
		if k, _ = c.Seek(last); k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		step = c.Prev
	} else {
		k, v = c.Seek(first)
	}
	for ; k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, first) >= 0 && bytes.Compare(k, last) < 0; k, v = step() {
		rest := k[len(prefix):] // day/id
		if len(rest) < 12 {
			return fmt.Errorf("storage: malformed ticket index key %q", k)
		}
		if err := fn(string(rest[11:]), v); errors.Is(err, ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (s kvTickets) EachPaid(from, to string, reverse bool, fn func(id, issuerID, recordedByID, status string) error) error {
	return s.days(s.byPaid, key(s.tenant, ""), from, to, reverse, paidEntry(fn))
}

// paidEntry reads a payment-day entry's value (issuer/recorder/status) for fn.
func paidEntry(fn func(id, issuerID, recordedByID, status string) error) func(id string, v []byte) error {
	return func(id string, v []byte) error {
		parts := bytes.SplitN(v, []byte("/"), 3)
		if len(parts) != 3 {
			return fmt.Errorf("storage: malformed ticket index value %q", v)
		}
		return fn(id, string(parts[0]), string(parts[1]), string(parts[2]))
	}
}

func (s kvTickets) EachRecorded(from, to string, fn func(id, recordedByID string) error) error {
	return s.days(s.byRecorded, key(s.tenant, ""), from, to, false, func(id string, v []byte) error { return fn(id, string(v)) })
}
