package storage

func (t collections) DownloadRules(tenantID string) DownloadRules {
	return kvDownloadRules{newListed[DownloadRule](t, bucketDownloadRules, tenantID)}
}

type kvDownloadRules struct{ records[DownloadRule] }

func (d kvDownloadRules) Get(id string) (DownloadRule, error) { return d.get(id) }

func (d kvDownloadRules) Put(v DownloadRule) error {
	v.TenantID = d.tenant
	return d.put(v.ID, v)
}

func (d kvDownloadRules) Delete(id string) error { return d.del(id) }

func (d kvDownloadRules) List(offset, limit int) ([]DownloadRule, int, error) {
	return d.page(offset, limit)
}
