package storage

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

func (t boltTx) Tickets(tenantID string) Tickets {
	return boltTickets{records[Ticket]{t.tx.Bucket(bucketTickets), tenantID}, t.tx.Bucket(bucketTicketsByNumber),
		t.tx.Bucket(bucketTicketsByPaid), t.tx.Bucket(bucketTicketsByRecorded)}
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

// Put saves the ticket and its indexes: number → id; paid day/id → issuer and status (the
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
	if err := s.byPaid.Put(key(s.tenant, v.PaidDay, v.ID), []byte(v.IssuerPersonID+"/"+v.Status)); err != nil {
		return err
	}
	return s.byRecorded.Put(key(s.tenant, v.RecordedDay, v.ID), []byte(v.RecordedByPersonID))
}

func (s boltTickets) List(offset, limit int) ([]Ticket, int, error) { return s.page(offset, limit) }

// days walks the index entries of the tenant from day from to day to, both included, calling fn
// with the ticket id and the entry's value.
func (s boltTickets) days(b *bolt.Bucket, from, to string, fn func(id string, v []byte) error) error {
	prefix := key(s.tenant, "")
	last := key(s.tenant, to+"/\xff")
	c := b.Cursor()
	for k, v := c.Seek(key(s.tenant, from, "")); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, last) < 0; k, v = c.Next() {
		rest := k[len(prefix):] // day/id
		if len(rest) < 12 {
			return fmt.Errorf("storage: malformed ticket index key %q", k)
		}
		if err := fn(string(rest[11:]), v); err != nil {
			return err
		}
	}
	return nil
}

func (s boltTickets) EachPaid(from, to string, fn func(id, issuerID, status string) error) error {
	return s.days(s.byPaid, from, to, func(id string, v []byte) error {
		issuer, status, err := splitRef(v)
		if err != nil {
			return err
		}
		return fn(id, issuer, status)
	})
}

func (s boltTickets) EachRecorded(from, to string, fn func(id, recordedByID string) error) error {
	return s.days(s.byRecorded, from, to, func(id string, v []byte) error { return fn(id, string(v)) })
}
