package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

func (t boltTx) DownloadRequests(tenantID string) DownloadRequests {
	return boltDownloadRequests{records: newListed[DownloadRequest](t, bucketDownloadRequests, tenantID), tx: t}
}

// ActiveDownloadRequests are the requests of every tenant that the worker has work on.
func (t boltTx) ActiveDownloadRequests() ([]ActiveDownload, error) {
	var out []ActiveDownload
	err := t.bucket(bucketDownloadRequestsActive).ForEach(func(k, v []byte) error {
		tenant, id, ok := strings.Cut(string(k), "/")
		if !ok {
			return fmt.Errorf("storage: malformed active download key %q", k)
		}
		a := ActiveDownload{TenantID: tenant, RequestID: id}
		if len(v) == 8 {
			a.Next = time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

type boltDownloadRequests struct {
	records[DownloadRequest]
	tx boltTx
}

func (d boltDownloadRequests) Get(id string) (DownloadRequest, error) { return d.get(id) }

func (d boltDownloadRequests) Put(v DownloadRequest) error {
	v.TenantID = d.tenant
	active := d.tx.bucket(bucketDownloadRequestsActive)
	var err error
	if v.Active {
		var next []byte // the next attempt, so the worker finds the due requests without decoding them
		if v.NextAttemptDate != nil {
			next = binary.BigEndian.AppendUint64(nil, uint64(v.NextAttemptDate.UnixNano()))
		}
		err = active.Put(key(d.tenant, v.ID), next)
	} else {
		err = active.Delete(key(d.tenant, v.ID))
	}
	if err != nil {
		return err
	}
	if err := d.tx.bucket(bucketDownloadRequestsQuery).Put(key(d.tenant, v.QueryKey(), v.ID), v.queryState()); err != nil {
		return err
	}
	return d.put(v.ID, v)
}

func (d boltDownloadRequests) SameQuery(r DownloadRequest) (active, taken int, err error) {
	prefix := key(d.tenant, r.QueryKey(), "")
	c := d.tx.bucket(bucketDownloadRequestsQuery).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		switch {
		case string(k[len(prefix):]) == r.ID:
		case len(v) == 1 && v[0] == 'a':
			active++
		case len(v) == 1 && v[0] == 's':
			taken++
		}
	}
	return active, taken, nil
}

func deletePrefix(b interface {
	Delete([]byte) error
}, keys [][]byte) error {
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (d boltDownloadRequests) keysUnder(name []byte, prefix []byte) [][]byte {
	var ks [][]byte
	c := d.tx.bucket(name).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ks = append(ks, bytes.Clone(k))
	}
	return ks
}

func (d boltDownloadRequests) Delete(id string) error {
	prefix := key(d.tenant, id, "")
	for _, name := range [][]byte{bucketDownloadPackages, bucketDownloadItems} {
		if err := deletePrefix(d.tx.bucket(name), d.keysUnder(name, prefix)); err != nil {
			return err
		}
	}
	if err := d.tx.bucket(bucketDownloadRequestsActive).Delete(key(d.tenant, id)); err != nil {
		return err
	}
	r, err := d.get(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := d.tx.bucket(bucketDownloadRequestsQuery).Delete(key(d.tenant, r.QueryKey(), id)); err != nil {
		return err
	}
	return d.del(id)
}

func (d boltDownloadRequests) List(offset, limit int) ([]DownloadRequest, int, error) {
	return d.page(offset, limit)
}

// chunkSize is the size of a package's values in download_packages.
const chunkSize = 1 << 20

func chunkKey(prefix []byte, i uint32) []byte {
	return binary.BigEndian.AppendUint32(bytes.Clone(prefix), i)
}

func (d boltDownloadRequests) PutPackage(requestID, packageID string, r io.Reader) (int64, error) {
	b := d.tx.bucket(bucketDownloadPackages)
	prefix := key(d.tenant, requestID, packageID, "")
	if err := deletePrefix(b, d.keysUnder(bucketDownloadPackages, prefix)); err != nil {
		return 0, err
	}
	var n int64
	buf := make([]byte, chunkSize)
	for i := uint32(0); ; i++ {
		m, err := io.ReadFull(r, buf)
		if m > 0 {
			if err := b.Put(chunkKey(prefix, i), bytes.Clone(buf[:m])); err != nil {
				return n, err
			}
			n += int64(m)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func (d boltDownloadRequests) PutPackageChunk(requestID, packageID string, i int, b []byte) error {
	return d.tx.bucket(bucketDownloadPackages).Put(chunkKey(key(d.tenant, requestID, packageID, ""), uint32(i)), bytes.Clone(b))
}

func (d boltDownloadRequests) DeletePackage(requestID, packageID string) error {
	prefix := key(d.tenant, requestID, packageID, "")
	return deletePrefix(d.tx.bucket(bucketDownloadPackages), d.keysUnder(bucketDownloadPackages, prefix))
}

func (d boltDownloadRequests) TruncateItems(requestID, kind string, keep int) (int, error) {
	prefix := key(d.tenant, requestID, kind, "")
	ks := d.keysUnder(bucketDownloadItems, prefix)
	if keep >= len(ks) {
		return 0, nil
	}
	return len(ks) - keep, deletePrefix(d.tx.bucket(bucketDownloadItems), ks[max(keep, 0):])
}

func (d boltDownloadRequests) Package(requestID, packageID string, w io.Writer) error {
	prefix := key(d.tenant, requestID, packageID, "")
	c := d.tx.bucket(bucketDownloadPackages).Cursor()
	found := false
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+4; k, v = c.Next() {
		found = true
		if _, err := w.Write(v); err != nil {
			return err
		}
	}
	if !found {
		return ErrNotFound
	}
	return nil
}

func (d boltDownloadRequests) AddItem(requestID, kind string, v []byte) error {
	b := d.tx.bucket(bucketDownloadItems)
	prefix := key(d.tenant, requestID, kind, "")
	var next uint64
	c := b.Cursor()
	// the last key under prefix: seek past it and step back
	end := append(bytes.Clone(prefix), 0xff)
	k, _ := c.Seek(end)
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	if k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8 {
		next = binary.BigEndian.Uint64(k[len(prefix):]) + 1
	}
	return b.Put(binary.BigEndian.AppendUint64(prefix, next), v)
}

func (d boltDownloadRequests) Items(requestID, kind string, offset, limit int) ([][]byte, int, error) {
	prefix := key(d.tenant, requestID, kind, "")
	c := d.tx.bucket(bucketDownloadItems).Cursor()
	var out [][]byte
	total := 0
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if total >= offset && len(out) < limit {
			out = append(out, bytes.Clone(v))
		}
		total++
	}
	return out, total, nil
}
