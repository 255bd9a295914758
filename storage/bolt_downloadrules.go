package storage

func (t boltTx) DownloadRules(tenantID string) DownloadRules {
	return boltDownloadRules{newListed[DownloadRule](t, bucketDownloadRules, tenantID)}
}

type boltDownloadRules struct{ records[DownloadRule] }

func (d boltDownloadRules) Get(id string) (DownloadRule, error) { return d.get(id) }

func (d boltDownloadRules) Put(v DownloadRule) error {
	v.TenantID = d.tenant
	return d.put(v.ID, v)
}

func (d boltDownloadRules) Delete(id string) error { return d.del(id) }

func (d boltDownloadRules) List(offset, limit int) ([]DownloadRule, int, error) {
	return d.page(offset, limit)
}
