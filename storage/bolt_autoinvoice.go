package storage

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

func (t boltTx) AutoInvoices() AutoInvoices {
	return boltAutoInvoices{t.bucket(bucketAutoInvoice), t.bucket(bucketPortalNames)}
}

type boltAutoInvoices struct{ b, names *bolt.Bucket }

func (a boltAutoInvoices) Get(tenantID string) (AutoInvoice, error) {
	var v AutoInvoice
	raw := a.b.Get([]byte(tenantID))
	if raw == nil {
		return v, ErrNotFound
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("storage: decode auto invoice %s: %w", tenantID, err)
	}
	return v, nil
}

func (a boltAutoInvoices) Put(v AutoInvoice) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return a.b.Put([]byte(v.TenantID), raw)
}

func (a boltAutoInvoices) PortalNameOwner(name string) (string, error) {
	raw := a.names.Get([]byte(name))
	if raw == nil {
		return "", ErrNotFound
	}
	return string(raw), nil
}

func (a boltAutoInvoices) HoldPortalName(name, tenantID string) error {
	return a.names.Put([]byte(name), []byte(tenantID))
}

func (a boltAutoInvoices) ReleasePortalName(name string) error { return a.names.Delete([]byte(name)) }
