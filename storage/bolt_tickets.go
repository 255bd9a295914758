package storage

import bolt "go.etcd.io/bbolt"

func (t boltTx) Tickets(tenantID string) Tickets {
	return boltTickets{records[Ticket]{t.tx.Bucket(bucketTickets), tenantID}, t.tx.Bucket(bucketTicketsByNumber)}
}

type boltTickets struct {
	records[Ticket]
	byNumber *bolt.Bucket
}

func (s boltTickets) Get(id string) (Ticket, error) { return s.get(id) }

func (s boltTickets) ByNumber(number string) (Ticket, error) {
	id := s.byNumber.Get(key(s.tenant, number))
	if id == nil {
		return Ticket{}, ErrNotFound
	}
	return s.get(string(id))
}

func (s boltTickets) Put(v Ticket) error {
	v.TenantID = s.tenant
	if err := s.put(v.ID, v); err != nil {
		return err
	}
	return s.byNumber.Put(key(s.tenant, v.Number), []byte(v.ID))
}

func (s boltTickets) List(offset, limit int) ([]Ticket, int, error) { return s.page(offset, limit) }
