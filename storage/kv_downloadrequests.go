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

func (t collections) DownloadRequests(tenantID string) DownloadRequests {
	return kvDownloadRequests{records: newListed[DownloadRequest](t, bucketDownloadRequests, tenantID), tx: t}
}

// ActiveDownloadRequests are the requests of every tenant that the worker has work on.
func (t collections) ActiveDownloadRequests() ([]ActiveDownload, error) {
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

type kvDownloadRequests struct {
	records[DownloadRequest]
	tx collections
}

func (d kvDownloadRequests) Get(id string) (DownloadRequest, error) { return d.get(id) }

func (d kvDownloadRequests) Put(v DownloadRequest) error {
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
	if err := d.put(v.ID, v); err != nil {
		return err
	}
	return indexDownloadRequest(d.tx.tx, d.tenant, v.ID, &v)
}

func (s *DownloadRequestSummary) fields() []*string {
	return []*string{&s.ID, &s.Day, &s.Status, &s.DownloadType, &s.QueryType, &s.RequestType, &s.Rule, &s.Requester}
}

func decodeRequestSummary(b []byte) (DownloadRequestSummary, error) {
	var s DownloadRequestSummary
	if !decodeStrings(b, s.fields()) {
		return DownloadRequestSummary{}, errors.New("malformed download request summary")
	}
	return s, nil
}

// indexDownloadRequest moves a request's summary and its index entries and counters from what
// is stored to v's (nil: the request is deleted), for the fields that changed. Before the index
// exists (an older migration writing through Put) nothing is written, and the migration that
// makes it indexes what it finds.
func indexDownloadRequest(tx kvTx, tenant, id string, v *DownloadRequest) error {
	sums, by, counts := tx.Bucket(bucketDownloadRequestsSummary), tx.Bucket(bucketDownloadRequestsBy), tx.Bucket(bucketCounts)
	if sums == nil || by == nil {
		return nil
	}
	var old, now DownloadRequestSummary
	k := key(tenant, id)
	if raw := sums.Get(k); raw != nil {
		var err error
		if old, err = decodeRequestSummary(raw); err != nil {
			return fmt.Errorf("storage: decode summary of download request %s: %w", id, err)
		}
	}
	if v != nil {
		now = SummaryOf(*v)
		if err := sums.Put(k, encodeStrings(now.fields())); err != nil {
			return err
		}
	} else if err := sums.Delete(k); err != nil {
		return err
	}
	if err := movePairs(tx.Bucket(bucketDownloadRequestsPairs), tenant, requestFieldKeys, old.folded(), now.folded()); err != nil {
		return err
	}
	var c counterChanges
	for _, f := range DownloadRequestFields {
		was, is := Fold(old.Field(f)), Fold(now.Field(f))
		if was == is {
			continue
		}
		if was != "" {
			p := fieldPrefix(tenant, byte(f), was)
			if err := by.Delete(append(p, id...)); err != nil {
				return err
			}
			c.add(countKeyIn(bucketDownloadRequestsBy, p), -1)
		}
		if is != "" {
			p := fieldPrefix(tenant, byte(f), is)
			if err := by.Put(append(p, id...), nil); err != nil {
				return err
			}
			c.add(countKeyIn(bucketDownloadRequestsBy, p), 1)
		}
	}
	return c.apply(counts)
}

// requestFieldKeys are the indexed fields as the pair counters name them, in
// DownloadRequestFields' order.
var requestFieldKeys = func() []byte {
	var b []byte
	for _, f := range DownloadRequestFields {
		b = append(b, byte(f))
	}
	return b
}()

// folded is a summary's indexed values, folded, in DownloadRequestFields' order.
func (s DownloadRequestSummary) folded() []string {
	out := make([]string, len(DownloadRequestFields))
	for i, f := range DownloadRequestFields {
		out[i] = Fold(s.Field(f))
	}
	return out
}

func (d kvDownloadRequests) CountBoth(f DownloadRequestField, a string, g DownloadRequestField, b string) (int, error) {
	return countPair(d.tx.bucket(bucketDownloadRequestsPairs), d.tenant, requestFieldKeys, byte(f), a, byte(g), b), nil
}

// countDownloadRequestPairs writes download_requests_pairs from every stored summary (migration
// 29).
func countDownloadRequestPairs(tx kvTx) error {
	return countPairsFrom(tx, bucketDownloadRequestsPairs, bucketDownloadRequestsSummary, requestFieldKeys, func(raw []byte) ([]string, error) {
		s, err := decodeRequestSummary(raw)
		return s.folded(), err
	})
}

func (d kvDownloadRequests) CountBy(f DownloadRequestField, value string) (int, error) {
	folded := Fold(value)
	if folded == "" {
		return 0, nil
	}
	if v := d.tally.counts.Get(countKeyIn(bucketDownloadRequestsBy, fieldPrefix(d.tenant, byte(f), folded))); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v)), nil
	}
	return 0, nil
}

func (d kvDownloadRequests) EachBy(f DownloadRequestField, value string, fn func(id string) error) error {
	folded := Fold(value)
	if folded == "" {
		return nil
	}
	prefix := fieldPrefix(d.tenant, byte(f), folded)
	c := d.tx.bucket(bucketDownloadRequestsBy).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if err := fn(string(k[len(prefix):])); errors.Is(err, ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (d kvDownloadRequests) Summary(id string) (DownloadRequestSummary, error) {
	raw := d.tx.bucket(bucketDownloadRequestsSummary).Get(key(d.tenant, id))
	if raw == nil {
		return DownloadRequestSummary{}, ErrNotFound
	}
	s, err := decodeRequestSummary(raw)
	if err != nil {
		return s, fmt.Errorf("storage: decode summary of download request %s: %w", id, err)
	}
	return s, nil
}

// indexDownloadRequests writes the summary and the index entries of every stored request (the
// walk writes only other buckets).
func indexDownloadRequests(tx kvTx) error {
	return tx.Bucket(bucketDownloadRequests).ForEach(func(k, v []byte) error {
		tenant, id, err := splitRef(k)
		if err != nil {
			return err
		}
		var r DownloadRequest
		if err := decodeRecord(v, &r); err != nil {
			return fmt.Errorf("decode download request %s: %w", k, err)
		}
		r.ID = id
		return indexDownloadRequest(tx, tenant, id, &r)
	})
}

func (d kvDownloadRequests) SameQuery(r DownloadRequest) (active, taken int, err error) {
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

func (d kvDownloadRequests) keysUnder(name []byte, prefix []byte) [][]byte {
	var ks [][]byte
	c := d.tx.bucket(name).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ks = append(ks, bytes.Clone(k))
	}
	return ks
}

func (d kvDownloadRequests) Delete(id string) error {
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
	if err := indexDownloadRequest(d.tx.tx, d.tenant, id, nil); err != nil {
		return err
	}
	return d.del(id)
}

func (d kvDownloadRequests) List(offset, limit int) ([]DownloadRequest, int, error) {
	return d.page(offset, limit)
}

// chunkSize is the size of a package's values in download_packages (the last may be shorter).
const chunkSize = PackageChunkSize

func chunkKey(prefix []byte, i uint32) []byte {
	return binary.BigEndian.AppendUint32(bytes.Clone(prefix), i)
}

func (d kvDownloadRequests) PutPackage(requestID, packageID string, r io.Reader) (int64, error) {
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

func (d kvDownloadRequests) PutPackageChunk(requestID, packageID string, i int, b []byte) error {
	return d.tx.bucket(bucketDownloadPackages).Put(chunkKey(key(d.tenant, requestID, packageID, ""), uint32(i)), bytes.Clone(b))
}

func (d kvDownloadRequests) DeletePackage(requestID, packageID string) error {
	prefix := key(d.tenant, requestID, packageID, "")
	return deletePrefix(d.tx.bucket(bucketDownloadPackages), d.keysUnder(bucketDownloadPackages, prefix))
}

func (d kvDownloadRequests) TruncateItems(requestID, kind string, keep int) (int, error) {
	prefix := key(d.tenant, requestID, kind, "")
	ks := d.keysUnder(bucketDownloadItems, prefix)
	if keep >= len(ks) {
		return 0, nil
	}
	return len(ks) - keep, deletePrefix(d.tx.bucket(bucketDownloadItems), ks[max(keep, 0):])
}

func (d kvDownloadRequests) Package(requestID, packageID string, w io.Writer) error {
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

func (d kvDownloadRequests) ReadPackageAt(requestID, packageID string, p []byte, off int64) error {
	if off < 0 {
		return fmt.Errorf("storage: package offset %d", off)
	}
	prefix := key(d.tenant, requestID, packageID, "")
	b := d.tx.bucket(bucketDownloadPackages)
	for len(p) > 0 {
		i, at := off/chunkSize, int(off%chunkSize)
		if i > 1<<32-1 {
			return io.ErrUnexpectedEOF
		}
		v := b.Get(chunkKey(prefix, uint32(i)))
		if v == nil && b.Get(chunkKey(prefix, 0)) == nil {
			return ErrNotFound
		}
		if at >= len(v) {
			return io.ErrUnexpectedEOF
		}
		n := copy(p, v[at:])
		if n < len(p) && len(v) != chunkSize {
			return io.ErrUnexpectedEOF // a short chunk is the last
		}
		p, off = p[n:], off+int64(n)
	}
	return nil
}

func (d kvDownloadRequests) AddItem(requestID, kind string, v []byte) error {
	prefix := key(d.tenant, requestID, kind, "")
	return d.tx.bucket(bucketDownloadItems).Put(binary.BigEndian.AppendUint64(prefix, uint64(d.itemCount(prefix))), v)
}

// itemCount is the number of items under prefix: their sequences run from 0 without a gap
// (AddItem appends, TruncateItems cuts the tail, Delete takes all), so it is the last one's
// sequence and one, read from the last key without walking the others.
func (d kvDownloadRequests) itemCount(prefix []byte) int {
	c := d.tx.bucket(bucketDownloadItems).Cursor()
	// the last key under prefix: seek past it and step back
	k, _ := c.Seek(append(bytes.Clone(prefix), 0xff))
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	if k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8 {
		return int(binary.BigEndian.Uint64(k[len(prefix):])) + 1
	}
	return 0
}

// Items reads the page from its first key (a seek, not a walk from the first item), so a page
// costs its own items whatever the request holds.
func (d kvDownloadRequests) Items(requestID, kind string, offset, limit int) ([][]byte, int, error) {
	prefix := key(d.tenant, requestID, kind, "")
	total := d.itemCount(prefix)
	var out [][]byte
	c := d.tx.bucket(bucketDownloadItems).Cursor()
	for k, v := c.Seek(binary.BigEndian.AppendUint64(bytes.Clone(prefix), uint64(max(offset, 0)))); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, v = c.Next() {
		out = append(out, bytes.Clone(v))
	}
	return out, total, nil
}
