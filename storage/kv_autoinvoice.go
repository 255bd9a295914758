package storage

import (
	"encoding/json"
	"fmt"
)

func (t collections) AutoInvoices() AutoInvoices {
	return kvAutoInvoices{t.bucket(bucketAutoInvoice), t.bucket(bucketPortalNames)}
}

type kvAutoInvoices struct{ b, names kvBucket }

func (a kvAutoInvoices) Get(tenantID string) (AutoInvoice, error) {
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

func (a kvAutoInvoices) Put(v AutoInvoice) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return a.b.Put([]byte(v.TenantID), raw)
}

func (a kvAutoInvoices) PortalNameOwner(name string) (string, error) {
	raw := a.names.Get([]byte(name))
	if raw == nil {
		return "", ErrNotFound
	}
	return string(raw), nil
}

func (a kvAutoInvoices) HoldPortalName(name, tenantID string) error {
	return a.names.Put([]byte(name), []byte(tenantID))
}

func (a kvAutoInvoices) ReleasePortalName(name string) error { return a.names.Delete([]byte(name)) }
