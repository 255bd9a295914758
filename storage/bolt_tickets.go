package storage

import (
	"bytes"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

func (t boltTx) Tickets(tenantID string) Tickets {
	return boltTickets{newListed[Ticket](t, bucketTickets, tenantID), t.bucket(bucketTicketsByNumber),
		t.bucket(bucketTicketsByPaid), t.bucket(bucketTicketsByRecorded)}
}

type boltTickets struct {
	records[Ticket]
	byNumber, byPaid, byRecorded *bolt.Bucket
}

func (s boltTickets) Get(id string) (Ticket, error) { return s.get(id) }

func (s boltTickets) ByNumber(number string) (Ticket, error) {
	id := s.byNumber.Get(key(s.tenant, number))
	if id == nil {
		return Ticket{}, ErrNotFound
	}
	return s.get(string(id))
}

// Put saves the ticket and its indexes: number → id; paid day/id → issuer/recorder/status (the
// status changes, so the value is rewritten on every Put); recorded day/id → recorder.
func (s boltTickets) Put(v Ticket) error {
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
	if err := s.byPaid.Put(key(s.tenant, v.PaidDay, v.ID), key(v.IssuerPersonID, v.RecordedByPersonID, v.Status)); err != nil {
		return err
	}
	return s.byRecorded.Put(key(s.tenant, v.RecordedDay, v.ID), []byte(v.RecordedByPersonID))
}

func (s boltTickets) List(offset, limit int) ([]Ticket, int, error) { return s.page(offset, limit) }

// days walks the index entries of the tenant from day from to day to, both included ("" leaves
// a side open), calling fn with the ticket id and the entry's value; backwards when reverse.
func (s boltTickets) days(b *bolt.Bucket, from, to string, reverse bool, fn func(id string, v []byte) error) error {
	prefix := key(s.tenant, "")
	first := key(s.tenant, from)
	last := key(s.tenant, to+"/\xff")
	if to == "" {
		last = key(s.tenant + "0") // '0' follows '/': past every key of the tenant
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

func (s boltTickets) EachPaid(from, to string, reverse bool, fn func(id, issuerID, recordedByID, status string) error) error {
	return s.days(s.byPaid, from, to, reverse, func(id string, v []byte) error {
		parts := bytes.SplitN(v, []byte("/"), 3)
		if len(parts) != 3 {
			return fmt.Errorf("storage: malformed ticket index value %q", v)
		}
		return fn(id, string(parts[0]), string(parts[1]), string(parts[2]))
	})
}

func (s boltTickets) EachRecorded(from, to string, fn func(id, recordedByID string) error) error {
	return s.days(s.byRecorded, from, to, false, func(id string, v []byte) error { return fn(id, string(v)) })
}
