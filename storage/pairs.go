package storage

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// Pair counters: a tenant's records counted by every pair of the values of the fields a list
// filters on, so that a list filtered on two fields knows its total without walking an index.
// Kept for invoices (invoices_pairs) and download requests (download_requests_pairs), in a
// bucket of their own: a Put under a migration older than the bucket counts nothing, and the
// migration that makes it counts every stored record once.

// pairKey is the counter of a tenant's records whose field f holds a and field g holds b (both
// folded, f before g in the fields' order): f's fieldPrefix, then g, the length of b and b.
func pairKey(tenant string, f byte, a string, g byte, b string) []byte {
	k := append(fieldPrefix(tenant, f, a), g)
	k = binary.AppendUvarint(k, uint64(len(b)))
	return append(k, b...)
}

// movePairs moves a record's pair counters in b from the values it had (was) to those it has
// (now): folded, in the order of fields, "" where a field has none (every one for a record that
// is new, or deleted). Only the pairs of which a value changed are written; a nil b is left
// alone.
func movePairs(b kvBucket, tenant string, fields []byte, was, now []string) error {
	if b == nil {
		return nil
	}
	var c counterChanges
	for i, f := range fields {
		for j := i + 1; j < len(fields); j++ {
			g := fields[j]
			if was[i] == now[i] && was[j] == now[j] {
				continue
			}
			if was[i] != "" && was[j] != "" {
				c.add(pairKey(tenant, f, was[i], g, was[j]), -1)
			}
			if now[i] != "" && now[j] != "" {
				c.add(pairKey(tenant, f, now[i], g, now[j]), 1)
			}
		}
	}
	return c.apply(b)
}

// countPair is the counter in b of fields f and g holding a and bv (folded here), given in
// either order; 0 when a value is empty, f is g, either is not among fields, or b is nil.
func countPair(b kvBucket, tenant string, fields []byte, f byte, a string, g byte, bv string) int {
	i, j := slices.Index(fields, f), slices.Index(fields, g)
	if i > j {
		f, a, g, bv, i, j = g, bv, f, a, j, i
	}
	a, bv = Fold(a), Fold(bv)
	if b == nil || a == "" || bv == "" || i == j || i < 0 {
		return 0
	}
	if v := b.Get(pairKey(tenant, f, a, g, bv)); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v))
	}
	return 0
}

// countPairsFrom makes the bucket name and counts in it every record of the summaries bucket
// sums (keys "<tenant>/<id>"), whose folded values in the order of fields values reads (a
// migration).
func countPairsFrom(tx kvTx, name, sums []byte, fields []byte, values func(raw []byte) ([]string, error)) error {
	b, err := tx.CreateBucketIfNotExists(name)
	if err != nil {
		return err
	}
	none := make([]string, len(fields))
	return tx.Bucket(sums).ForEach(func(k, v []byte) error {
		tenant, _, err := splitRef(k)
		if err != nil {
			return err
		}
		now, err := values(v)
		if err != nil {
			return fmt.Errorf("decode summary %s: %w", k, err)
		}
		return movePairs(b, tenant, fields, none, now)
	})
}
