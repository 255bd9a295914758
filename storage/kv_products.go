package storage

func (t collections) Products(tenantID string) Products {
	return kvProducts{newListed[Product](t, bucketProducts, tenantID)}
}

type kvProducts struct{ records[Product] }

func (p kvProducts) Get(id string) (Product, error) { return p.get(id) }

func (p kvProducts) Put(v Product) error {
	v.TenantID = p.tenant
	return p.put(v.ID, v)
}

func (p kvProducts) Delete(id string) error { return p.del(id) }

func (p kvProducts) List(offset, limit int) ([]Product, int, error) { return p.page(offset, limit) }
