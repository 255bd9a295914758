package storage

import (
	"strings"

	bolt "go.etcd.io/bbolt"
)

func (t boltTx) Invoices(tenantID string) Invoices {
	return boltInvoices{records[Invoice]{t.tx.Bucket(bucketInvoices), tenantID}, t.tx.Bucket(bucketInvoicesByUUID)}
}

type boltInvoices struct {
	records[Invoice]
	byUUID *bolt.Bucket
}

func (s boltInvoices) Get(id string) (Invoice, error) { return s.get(id) }

func (s boltInvoices) ByUUID(uuid string) (Invoice, error) {
	id := s.byUUID.Get(key(s.tenant, strings.ToUpper(uuid)))
	if id == nil {
		return Invoice{}, ErrNotFound
	}
	return s.get(string(id))
}

func (s boltInvoices) Put(v Invoice) error {
	v.TenantID = s.tenant
	v.UUID = strings.ToUpper(v.UUID)
	if err := s.put(v.ID, v); err != nil {
		return err
	}
	return s.byUUID.Put(key(s.tenant, v.UUID), []byte(v.ID))
}

func (s boltInvoices) List(offset, limit int) ([]Invoice, int, error) { return s.page(offset, limit) }
