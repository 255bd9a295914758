package storage

import (
	"encoding/json"
	"fmt"
)

var catalogSetKey = []byte("current")

// kvCatalogs keeps each table in a nested bucket of catalog_rows. It remembers the bucket of
// the last table written, because an import writes a table's rows one after another.
type kvCatalogs struct {
	tx        kvTx
	lastName  string
	lastTable kvBucket
}

func (t collections) Catalogs() Catalogs { return &kvCatalogs{tx: t.tx} }

func (c *kvCatalogs) Set() (CatalogSet, error) {
	var s CatalogSet
	raw := c.tx.Bucket(bucketCatalogSet).Get(catalogSetKey)
	if raw == nil {
		return s, ErrNotFound
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("storage: decode catalog set: %w", err)
	}
	return s, nil
}

func (c *kvCatalogs) PutSet(s CatalogSet) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return c.tx.Bucket(bucketCatalogSet).Put(catalogSetKey, raw)
}

func (c *kvCatalogs) Clear() error {
	if err := c.tx.DeleteBucket(bucketCatalogRows); err != nil {
		return err
	}
	if _, err := c.tx.CreateBucket(bucketCatalogRows); err != nil {
		return err
	}
	c.lastName, c.lastTable = "", nil
	return c.tx.Bucket(bucketCatalogSet).Delete(catalogSetKey)
}

func (c *kvCatalogs) PutRow(table string, key, row []byte) error {
	if c.lastTable == nil || c.lastName != table {
		b, err := c.tx.Bucket(bucketCatalogRows).CreateBucketIfNotExists([]byte(table))
		if err != nil {
			return fmt.Errorf("storage: catalog table %q: %w", table, err)
		}
		// Sources list rows mostly in key order: full pages keep the file small.
		b.InOrder()
		c.lastName, c.lastTable = table, b
	}
	return c.lastTable.Put(key, row)
}

func (c *kvCatalogs) Row(table string, key []byte) ([]byte, error) {
	b := c.tx.Bucket(bucketCatalogRows).Bucket([]byte(table))
	if b == nil {
		return nil, ErrNotFound
	}
	v := b.Get(key)
	if v == nil {
		return nil, ErrNotFound
	}
	return v, nil
}

func (c *kvCatalogs) Rows(table string, fn func(key, row []byte) error) error {
	b := c.tx.Bucket(bucketCatalogRows).Bucket([]byte(table))
	if b == nil {
		return nil
	}
	return b.ForEach(fn)
}
