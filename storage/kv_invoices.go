package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

func (t collections) Invoices(tenantID string) Invoices {
	return kvInvoices{newListed[Invoice](t, bucketInvoices, tenantID), t.bucket(bucketInvoicesByUUID),
		t.bucket(bucketInvoicesSummary), t.bucket(bucketInvoicesCanceling), t.bucket(bucketInvoicesBy), t.bucket(bucketInvoicesPairs),
		t.bucket(bucketInvoicesDays)}
}

type kvInvoices struct {
	records[Invoice]
	byUUID, summary, canceling, by, pairs, days kvBucket
}

func (t collections) PendingCancellations() ([]PendingCancellation, error) {
	var out []PendingCancellation
	err := t.bucket(bucketInvoicesCanceling).ForEach(func(k, v []byte) error {
		tenant, id, err := splitRef(k)
		if err != nil {
			return err
		}
		at, err := time.Parse(time.RFC3339Nano, string(v))
		if err != nil {
			return fmt.Errorf("storage: pending cancellation %s: %w", k, err)
		}
		out = append(out, PendingCancellation{TenantID: tenant, InvoiceID: id, RequestedAt: at})
		return nil
	})
	return out, err
}

func (s kvInvoices) Get(id string) (Invoice, error) { return s.get(id) }

func (s kvInvoices) GetMany(ids []string) ([]Invoice, error) { return s.getMany(ids) }

func (s kvInvoices) ByUUID(uuid string) (Invoice, error) {
	id := s.byUUID.Get(key(s.tenant, strings.ToUpper(uuid)))
	if id == nil {
		return Invoice{}, ErrNotFound
	}
	return s.get(string(id))
}

// Put saves an invoice with its UUID index and its summary (rewritten on every Put: the status
// changes).
func (s kvInvoices) Put(v Invoice) error {
	v.TenantID = s.tenant
	v.UUID = strings.ToUpper(v.UUID)
	if err := invoiceDates(&v); err != nil {
		return err
	}
	if err := s.put(v.ID, v); err != nil {
		return err
	}
	if err := s.byUUID.Put(key(s.tenant, v.UUID), []byte(v.ID)); err != nil {
		return err
	}
	sum := InvoiceSummary{ID: v.ID, IssuerTin: v.IssuerTin, RecipientTin: v.RecipientTin, TypeCode: v.TypeCode, Status: v.Status,
		Date: v.Date, Series: v.Series}
	if v.IssuerPersonID != nil {
		sum.IssuerPersonID = *v.IssuerPersonID
	}
	if v.RecipientPersonID != nil {
		sum.RecipientPersonID = *v.RecipientPersonID
	}
	var old *InvoiceSummary
	if raw := s.summary.Get(key(s.tenant, v.ID)); raw != nil {
		o, err := decodeSummary(raw)
		if err != nil {
			return fmt.Errorf("storage: decode summary of %s: %w", v.ID, err)
		}
		old = &o
	}
	if err := s.summary.Put(key(s.tenant, v.ID), sum.encode()); err != nil {
		return err
	}
	if err := indexSummary(s.by, s.tally.counts, s.tenant, old, sum); err != nil {
		return err
	}
	if err := movePairs(s.pairs, s.tenant, invoiceFieldKeys, old.folded(), sum.folded()); err != nil {
		return err
	}
	if err := moveDays(s.days, s.tenant, old, sum); err != nil {
		return err
	}
	if v.Status == StatusCanceling && v.Cancellation != nil {
		return s.canceling.Put(key(s.tenant, v.ID), []byte(v.Cancellation.RequestedAt.UTC().Format(time.RFC3339Nano)))
	}
	return s.canceling.Delete(key(s.tenant, v.ID))
}

// encode writes the summary's fields as length-prefixed strings (encodeStrings).
func (r InvoiceSummary) encode() []byte { return encodeStrings(r.fields()) }

func (r *InvoiceSummary) fields() []*string {
	return []*string{&r.ID, &r.IssuerTin, &r.RecipientTin, &r.IssuerPersonID, &r.RecipientPersonID, &r.TypeCode, &r.Status, &r.Date, &r.Series}
}

func decodeSummary(b []byte) (InvoiceSummary, error) {
	var r InvoiceSummary
	if !decodeStrings(b, r.fields()) {
		return InvoiceSummary{}, errors.New("malformed invoice summary")
	}
	return r, nil
}

// encodeStrings writes strings as length-prefixed bytes (uvarint lengths): read back by
// decodeStrings without a JSON decoder, whatever bytes they hold.
func encodeStrings(fields []*string) []byte {
	n := 0
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(*f)
	}
	b := make([]byte, 0, n)
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(*f)))
		b = append(b, *f...)
	}
	return b
}

// decodeStrings reads what encodeStrings wrote into fields; false when b is not exactly that.
func decodeStrings(b []byte, fields []*string) bool {
	for _, f := range fields {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return false
		}
		*f = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	return len(b) == 0
}

func (s kvInvoices) List(offset, limit int) ([]Invoice, int, error) { return s.page(offset, limit) }

func (s kvInvoices) EachSummary(from, to time.Time, fn func(InvoiceSummary) error) error {
	prefix := key(s.tenant, "")
	lo, hi := prefix, append(bytes.Clone(prefix), 0xff)
	if !from.IsZero() {
		lo = timeKey(s.tenant, from)
	}
	if !to.IsZero() {
		hi = timeKey(s.tenant, to)
	}
	c := s.summary.Cursor()
	for k, v := c.Seek(lo); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, hi) < 0; k, v = c.Next() {
		sum, err := decodeSummary(v)
		if err != nil {
			return fmt.Errorf("storage: decode %s: %w", k, err)
		}
		if err := fn(sum); errors.Is(err, ErrStop) {
			return nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// byPrefix is the key prefix of a tenant's invoices whose field is folded (Fold).
func byPrefix(tenant string, f InvoiceField, folded string) []byte {
	return fieldPrefix(tenant, byte(f), folded)
}

// fieldPrefix is the key prefix, in an index by field, of a tenant's records whose field f
// holds the folded value: "<tenant>/<f>/<uvarint length><value>", the record's id after it.
func fieldPrefix(tenant string, f byte, folded string) []byte {
	b := key(tenant, string(f), "")
	b = binary.AppendUvarint(b, uint64(len(folded)))
	return append(b, folded...)
}

// countKeyBy is the counter of a byPrefix in the counts bucket.
func countKeyBy(prefix []byte) []byte { return countKeyIn(bucketInvoicesBy, prefix) }

// countKeyIn is the counter of an index prefix of the bucket named index in the counts bucket.
func countKeyIn(index, prefix []byte) []byte {
	return append(append(bytes.Clone(index), '/'), prefix...)
}

// indexSummary moves an invoice's index entries and counters from its old summary (nil: new)
// to sum, for the fields that changed. Before schema 16 (an older migration writing through Put)
// there is no index: nothing is written, and migration 16 indexes what it finds.
func indexSummary(by, counts kvBucket, tenant string, old *InvoiceSummary, sum InvoiceSummary) error {
	if by == nil {
		return nil
	}
	var c counterChanges
	for _, f := range InvoiceFields {
		was, now := "", Fold(sum.Field(f))
		if old != nil {
			was = Fold(old.Field(f))
		}
		if was == now {
			continue
		}
		if was != "" {
			p := byPrefix(tenant, f, was)
			if err := by.Delete(append(p, sum.ID...)); err != nil {
				return err
			}
			c.add(countKeyBy(p), -1)
		}
		if now != "" {
			p := byPrefix(tenant, f, now)
			if err := by.Put(append(p, sum.ID...), nil); err != nil {
				return err
			}
			c.add(countKeyBy(p), 1)
		}
	}
	return c.apply(counts)
}

// invoiceFieldKeys are the indexed fields as the pair counters name them, in InvoiceFields'
// order.
var invoiceFieldKeys = func() []byte {
	var b []byte
	for _, f := range InvoiceFields {
		b = append(b, byte(f))
	}
	return b
}()

// folded is a summary's indexed values, folded, in InvoiceFields' order ("" every one for nil).
func (r *InvoiceSummary) folded() []string {
	out := make([]string, len(InvoiceFields))
	if r != nil {
		for i, f := range InvoiceFields {
			out[i] = Fold(r.Field(f))
		}
	}
	return out
}

func (s kvInvoices) CountBoth(f InvoiceField, a string, g InvoiceField, b string) (int, error) {
	return countPair(s.pairs, s.tenant, invoiceFieldKeys, byte(f), a, byte(g), b), nil
}

// invoiceDay is the day of a CFDI date, YYYY-MM-DD as written ("" when it has none).
func invoiceDay(date string) string {
	if len(date) < 10 {
		return ""
	}
	return date[:10]
}

// dayKey is the counter, in invoices_days, of a tenant's invoices of one day whose field f holds
// the folded value (f AllInvoices, value "*": every invoice).
func dayKey(tenant string, f InvoiceField, value, day string) []byte {
	return append(byPrefix(tenant, f, value), day...)
}

// moveDays moves an invoice's day counters from its old summary (nil: new) to sum: of every
// invoice and of each field's value, where the value or the day changed. Before schema 31 (an
// older migration writing through Put) there are none: nothing is written, and migration 31
// counts what it finds.
func moveDays(b kvBucket, tenant string, old *InvoiceSummary, sum InvoiceSummary) error {
	if b == nil {
		return nil
	}
	was, now := append(old.folded(), ""), append(sum.folded(), "*")
	wasDay, nowDay := "", invoiceDay(sum.Date)
	if old != nil {
		was[len(was)-1], wasDay = "*", invoiceDay(old.Date)
	}
	var c counterChanges
	for i, f := range append(InvoiceFields[:len(InvoiceFields):len(InvoiceFields)], AllInvoices) {
		if was[i] == now[i] && wasDay == nowDay {
			continue
		}
		if was[i] != "" && wasDay != "" {
			c.add(dayKey(tenant, f, was[i], wasDay), -1)
		}
		if now[i] != "" && nowDay != "" {
			c.add(dayKey(tenant, f, now[i], nowDay), 1)
		}
	}
	return c.apply(b)
}

func (s kvInvoices) CountDays(f InvoiceField, value, from, to string) (int, error) {
	if s.days == nil {
		return 0, errors.New("storage: invoices are not counted by day before schema 31")
	}
	folded := "*"
	if f != AllInvoices {
		if folded = Fold(value); folded == "" {
			return 0, nil
		}
	}
	prefix := byPrefix(s.tenant, f, folded)
	n := 0
	c := s.days.Cursor()
	for k, v := c.Seek(append(bytes.Clone(prefix), from...)); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if to != "" && string(k[len(prefix):]) > to {
			break
		}
		if len(v) == 8 {
			n += int(binary.BigEndian.Uint64(v))
		}
	}
	return n, nil
}

// countInvoiceDays writes invoices_days from every stored summary (migration 31).
func countInvoiceDays(tx kvTx) error {
	b, err := tx.CreateBucketIfNotExists(bucketInvoicesDays)
	if err != nil {
		return err
	}
	return eachStoredSummary(tx, func(tenant string, sum InvoiceSummary) error { return moveDays(b, tenant, nil, sum) })
}

// eachStoredSummary calls fn with every stored invoice summary and its tenant (a migration).
func eachStoredSummary(tx kvTx, fn func(tenant string, sum InvoiceSummary) error) error {
	return tx.Bucket(bucketInvoicesSummary).ForEach(func(k, v []byte) error {
		tenant, _, err := splitRef(k)
		if err != nil {
			return err
		}
		sum, err := decodeSummary(v)
		if err != nil {
			return fmt.Errorf("decode summary %s: %w", k, err)
		}
		return fn(tenant, sum)
	})
}

// countInvoicePairs writes invoices_pairs from every stored summary (migration 27).
func countInvoicePairs(tx kvTx) error {
	return countPairsFrom(tx, bucketInvoicesPairs, bucketInvoicesSummary, invoiceFieldKeys, func(raw []byte) ([]string, error) {
		sum, err := decodeSummary(raw)
		return sum.folded(), err
	})
}

func (s kvInvoices) CountBy(f InvoiceField, value string) (int, error) {
	folded := Fold(value)
	if folded == "" {
		return 0, nil
	}
	if v := s.tally.counts.Get(countKeyBy(byPrefix(s.tenant, f, folded))); len(v) == 8 {
		return int(binary.BigEndian.Uint64(v)), nil
	}
	return 0, nil
}

func (s kvInvoices) EachBy(f InvoiceField, value string, from, to time.Time, fn func(InvoiceSummary) error) error {
	folded := Fold(value)
	if folded == "" {
		return nil
	}
	prefix := byPrefix(s.tenant, f, folded)
	lo, hi := prefix, append(bytes.Clone(prefix), 0xff)
	if !from.IsZero() {
		lo = append(bytes.Clone(prefix), idTime(from)...)
	}
	if !to.IsZero() {
		hi = append(bytes.Clone(prefix), idTime(to)...)
	}
	var err error
	ahead := newReadAhead(s.summary, aheadFirst, func(k, raw []byte) bool {
		if raw == nil {
			err = fmt.Errorf("storage: an invoice index entry names no summary: %q", k)
			return false
		}
		sum, e := decodeSummary(raw)
		if e != nil {
			err = fmt.Errorf("storage: decode summary %s: %w", k, e)
			return false
		}
		err = fn(sum)
		return err == nil
	})
	c := s.by.Cursor()
	for k, _ := c.Seek(lo); k != nil && bytes.HasPrefix(k, prefix) && bytes.Compare(k, hi) < 0; k, _ = c.Next() {
		if !ahead.add(s.named(prefix, k)) {
			break
		}
	}
	ahead.flush()
	if errors.Is(err, ErrStop) {
		return nil
	}
	return err
}

// indexInvoicesBy writes invoices_by and its counters from every stored summary (migration 16).
func indexInvoicesBy(tx kvTx) error {
	by, counts := tx.Bucket(bucketInvoicesBy), tx.Bucket(bucketCounts)
	return eachStoredSummary(tx, func(tenant string, sum InvoiceSummary) error { return indexSummary(by, counts, tenant, nil, sum) })
}

// indexInvoices writes the summary of every stored invoice (migration 12).
func indexInvoices(tx kvTx) error {
	b := tx.Bucket(bucketInvoices)
	var all []Invoice
	if err := b.ForEach(func(k, raw []byte) error {
		var v Invoice
		if err := decodeRecord(raw, &v); err != nil {
			return fmt.Errorf("decode invoice %s: %w", k, err)
		}
		all = append(all, v)
		return nil
	}); err != nil {
		return err
	}
	for _, v := range all { // Put writes into the bucket ForEach walks: after the walk
		if err := (newTx(tx)).Invoices(v.TenantID).Put(v); err != nil {
			return err
		}
	}
	return nil
}
