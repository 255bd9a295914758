package storage

func (t boltTx) Products(tenantID string) Products {
	return boltProducts{newListed[Product](t, bucketProducts, tenantID)}
}

type boltProducts struct{ records[Product] }

func (p boltProducts) Get(id string) (Product, error) { return p.get(id) }

func (p boltProducts) Put(v Product) error {
	v.TenantID = p.tenant
	return p.put(v.ID, v)
}

func (p boltProducts) Delete(id string) error { return p.del(id) }

func (p boltProducts) List(offset, limit int) ([]Product, int, error) { return p.page(offset, limit) }
