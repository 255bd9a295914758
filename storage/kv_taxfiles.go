package storage

import (
	"bytes"
	"errors"
)

// Values of the taxfiles_by_person index: the state of the file, so a person's current files are
// found without decoding the deleted ones.
var (
	taxFileCurrent = []byte("c")
	taxFileDeleted = []byte("d")
)

func (t collections) TaxFiles(tenantID string) TaxFiles {
	return kvTaxFiles{
		records:      records[TaxFile]{b: t.bucket(bucketTaxFiles), tenant: tenantID},
		byPerson:     t.bucket(bucketTaxFilesByPerson),
		current:      t.bucket(bucketTaxFilesCurrent),
		currentTally: tally{t.bucket(bucketCounts), bucketTaxFilesCurrent},
	}
}

type kvTaxFiles struct {
	records[TaxFile]
	byPerson kvBucket
	current  kvBucket
	// currentTally counts each tenant's current files
	currentTally tally
}

func (b kvTaxFiles) Get(id string) (TaxFile, error) { return b.get(id) }

func (b kvTaxFiles) Put(f TaxFile) error {
	if old, err := b.get(f.ID); err == nil && old.PersonID != f.PersonID {
		if err := b.byPerson.Delete(key(b.tenant, old.PersonID, old.ID)); err != nil {
			return err
		}
	} else if err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	f.TenantID = b.tenant
	state, cur := taxFileCurrent, key(b.tenant, f.ID)
	was := has(b.current, cur)
	if f.Deleted() {
		state = taxFileDeleted
		if was {
			if err := b.currentTally.add(b.tenant, -1); err != nil {
				return err
			}
		}
		if err := b.current.Delete(cur); err != nil {
			return err
		}
	} else {
		if !was {
			if err := b.currentTally.add(b.tenant, 1); err != nil {
				return err
			}
		}
		if err := b.current.Put(cur, nil); err != nil {
			return err
		}
	}
	if err := b.byPerson.Put(key(b.tenant, f.PersonID, f.ID), state); err != nil {
		return err
	}
	return b.put(f.ID, f)
}

func (b kvTaxFiles) List(offset, limit int) ([]TaxFile, int, error) {
	prefix := key(b.tenant, "")
	return pageOf[TaxFile](b.current, prefix, offset, limit, b.currentTally.get(b.tenant), b.b, b.namedUnder(prefix))
}

func (b kvTaxFiles) ListByPerson(personID string, offset, limit int) ([]TaxFile, int, error) {
	prefix := key(b.tenant, personID, "")
	var out []TaxFile
	var err error
	ahead := newReadAhead(b.b, limit, decodeAll(&out, &err))
	total := 0
	c := b.byPerson.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if !bytes.Equal(v, taxFileCurrent) {
			continue
		}
		if total >= offset && total-offset < limit && !ahead.add(b.named(prefix, k)) {
			break
		}
		total++
	}
	ahead.flush()
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func (b kvTaxFiles) AllByPerson(personID string) ([]TaxFile, error) {
	prefix := key(b.tenant, personID, "")
	out, _, err := pageOf[TaxFile](b.byPerson, prefix, 0, int(^uint(0)>>1), -1, b.b, b.namedUnder(prefix))
	return out, err
}
