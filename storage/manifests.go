package storage

import (
	"bytes"
	"fmt"
	"time"
)

var bucketManifests = []byte("manifests")

// Manifest is one signed carta manifiesto of a person, kept as it was signed: every signature
// is a version of its own, never changed, and stays when the person is deleted (what was
// authorized, by whom and when).
type Manifest struct {
	ID                string    `json:"id"`
	TenantID          string    `json:"tenantId"`
	PersonID          string    `json:"personId"`
	Tin               string    `json:"tin"`
	CertificateNumber string    `json:"certificateNumber"` // the e.firma that signed it
	FileName          string    `json:"fileName"`
	XML               []byte    `json:"xml"` // the signed letter, byte for byte
	SignedAt          time.Time `json:"signedAt"`
}

// Manifests is the signed letters of one tenant's people.
type Manifests interface {
	// Add keeps a new signed letter (its id a UUID v7: key order is signing order).
	Add(m Manifest) error
	// Get returns one letter of a person, ErrNotFound when the person has none with that id.
	Get(personID, id string) (Manifest, error)
	// Latest returns the person's newest letter, ErrNotFound when the person signed none.
	Latest(personID string) (Manifest, error)
	// List returns the person's letters newest first from offset, at most limit, and how many
	// the person has.
	List(personID string, offset, limit int) ([]Manifest, int, error)
}

func (t collections) Manifests(tenantID string) Manifests {
	return kvManifests{b: t.bucket(bucketManifests), tenant: tenantID}
}

type kvManifests struct {
	b      kvBucket
	tenant string
}

func (m kvManifests) Add(v Manifest) error {
	v.TenantID = m.tenant
	raw, err := encodeRecord(v)
	if err != nil {
		return err
	}
	return m.b.Put(key(m.tenant, v.PersonID, v.ID), raw)
}

func (m kvManifests) decode(k, raw []byte) (Manifest, error) {
	var v Manifest
	if err := decodeRecord(raw, &v); err != nil {
		return v, fmt.Errorf("storage: decode manifest %s: %w", k, err)
	}
	return v, nil
}

func (m kvManifests) Get(personID, id string) (Manifest, error) {
	k := key(m.tenant, personID, id)
	raw := m.b.Get(k)
	if raw == nil {
		return Manifest{}, ErrNotFound
	}
	return m.decode(k, raw)
}

func (m kvManifests) Latest(personID string) (Manifest, error) {
	vs, _, err := m.List(personID, 0, 1)
	if err != nil {
		return Manifest{}, err
	}
	if len(vs) == 0 {
		return Manifest{}, ErrNotFound
	}
	return vs[0], nil
}

// List walks the person's keys backwards from the newest; it decodes only the page's letters.
func (m kvManifests) List(personID string, offset, limit int) ([]Manifest, int, error) {
	prefix := key(m.tenant, personID, "")
	c := m.b.Cursor()
	var k, v []byte
	if k, _ = c.Seek(append(bytes.Clone(prefix), 0xff)); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	var out []Manifest
	n := 0
	for ; k != nil && bytes.HasPrefix(k, prefix); k, v = c.Prev() {
		if n >= offset && len(out) < limit {
			one, err := m.decode(k, v)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, one)
		}
		n++
	}
	return out, n, nil
}
