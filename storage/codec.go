package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Records are JSON, except deliveries and events (since schema 14: the delivery engine reads and
// writes them on every attempt), invoices (since schema 15: their stamped XML is most of the
// database, and JSON kept it as base64) and people (since schema 26, codec_person.go: every list
// of people decodes a page of them): they are kept in a compact binary form that is read
// without reflection or parsing. A binary record starts with its format byte, which is never
// '{', so records written as JSON before read back as they are.
const binaryV1 byte = 1

// binaryRecord is a record kept in the binary form.
type binaryRecord interface {
	appendBinary(b []byte) []byte
}

// binaryDecoder reads a record kept in the binary form (its format byte already read).
type binaryDecoder interface {
	decodeBinary(b []byte) error
}

var errBadRecord = errors.New("malformed binary record")

// encodeRecord is the stored form of v: binary when v's kind has one, else JSON.
func encodeRecord(v any) ([]byte, error) {
	if r, ok := v.(binaryRecord); ok {
		return r.appendBinary(append(make([]byte, 0, 256), binaryV1)), nil
	}
	return json.Marshal(v)
}

// decodeRecord reads a stored record into v, in whichever form it was written.
func decodeRecord(raw []byte, v any) error {
	if len(raw) > 0 && raw[0] == binaryV1 {
		if r, ok := v.(binaryDecoder); ok {
			return r.decodeBinary(raw[1:])
		}
		return errBadRecord
	}
	return json.Unmarshal(raw, v)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendTime keeps the instant (Unix seconds and nanoseconds); it reads back in UTC.
func appendTime(b []byte, t time.Time) []byte {
	return binary.AppendUvarint(binary.AppendVarint(b, t.Unix()), uint64(t.Nanosecond()))
}

// reader reads the fields of a binary record in order; the first malformed field sets err and
// every later read answers zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() { r.err, r.b = errBadRecord, nil }

func (r *reader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) string() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) time() time.Time {
	s, ns := r.int(), r.uint()
	if ns >= uint64(time.Second) {
		r.fail()
	}
	if r.err != nil {
		return time.Time{}
	}
	return time.Unix(s, int64(ns)).UTC()
}

// done is the reader's error, or one for bytes left over.
func (r *reader) done() error {
	if r.err == nil && len(r.b) > 0 {
		return errBadRecord
	}
	return r.err
}

// flags of a delivery's optional fields
const (
	hasStatusCode = 1 << iota
	hasError
	hasNextAttempt
	isSynthetic
	hasDetails // since schema 18: the errors' details follow the history
)

func (d Delivery) appendBinary(b []byte) []byte {
	var flags byte
	if d.LastStatusCode != nil {
		flags |= hasStatusCode
	}
	if d.LastError != nil {
		flags |= hasError
	}
	if d.NextAttemptAt != nil {
		flags |= hasNextAttempt
	}
	if d.Synthetic {
		flags |= isSynthetic
	}
	details := d.LastErrorDetail != "" || slices.ContainsFunc(d.History, func(a Attempt) bool { return a.ErrorDetail != "" })
	if details {
		flags |= hasDetails
	}
	for _, s := range []string{d.ID, d.TenantID, d.WebhookID, d.EventID, d.EventType, d.Kind, d.Status, d.LastResponseExcerpt} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(binary.AppendVarint(b, int64(d.Attempts)), int64(d.MaxAttempts))
	b = append(b, flags)
	if d.LastStatusCode != nil {
		b = binary.AppendVarint(b, int64(*d.LastStatusCode))
	}
	if d.LastError != nil {
		b = appendString(b, *d.LastError)
	}
	if d.NextAttemptAt != nil {
		b = appendTime(b, *d.NextAttemptAt)
	}
	b = appendTime(appendTime(b, d.CreatedAt), d.UpdatedAt)
	b = binary.AppendUvarint(b, uint64(len(d.History)))
	for _, a := range d.History {
		b = appendTime(b, a.At)
		if a.StatusCode != nil {
			b = binary.AppendVarint(append(b, 1), int64(*a.StatusCode))
		} else {
			b = append(b, 0)
		}
		b = binary.AppendVarint(appendString(b, a.Error), a.DurationMS)
	}
	if details {
		b = appendString(b, d.LastErrorDetail)
		for _, a := range d.History {
			b = appendString(b, a.ErrorDetail)
		}
	}
	return b
}

func (d *Delivery) decodeBinary(b []byte) error {
	r := reader{b: b}
	*d = Delivery{}
	for _, s := range []*string{&d.ID, &d.TenantID, &d.WebhookID, &d.EventID, &d.EventType, &d.Kind, &d.Status, &d.LastResponseExcerpt} {
		*s = r.string()
	}
	d.Attempts, d.MaxAttempts = int(r.int()), int(r.int())
	flags := r.byte()
	if flags&hasStatusCode != 0 {
		c := int(r.int())
		d.LastStatusCode = &c
	}
	if flags&hasError != 0 {
		e := r.string()
		d.LastError = &e
	}
	if flags&hasNextAttempt != 0 {
		t := r.time()
		d.NextAttemptAt = &t
	}
	d.Synthetic = flags&isSynthetic != 0
	d.CreatedAt, d.UpdatedAt = r.time(), r.time()
	n := r.uint()
	if n > uint64(len(r.b)) { // every attempt takes more than a byte: a bound before allocating
		r.fail()
	}
	if n > 0 && r.err == nil {
		d.History = make([]Attempt, n)
		for i := range d.History {
			a := &d.History[i]
			a.At = r.time()
			if r.byte() == 1 {
				c := int(r.int())
				a.StatusCode = &c
			}
			a.Error, a.DurationMS = r.string(), r.int()
		}
	}
	if flags&hasDetails != 0 {
		d.LastErrorDetail = r.string()
		for i := range d.History {
			d.History[i].ErrorDetail = r.string()
		}
	}
	return r.done()
}

// An event's body is the rest of its record, after the other fields.
const hasPerson = 1

func (e Event) appendBinary(b []byte) []byte {
	var flags byte
	if e.PersonID != nil {
		flags |= hasPerson
	}
	if e.Synthetic {
		flags |= isSynthetic
	}
	b = appendString(appendString(appendString(b, e.ID), e.TenantID), e.Type)
	b = append(b, flags)
	if e.PersonID != nil {
		b = appendString(b, *e.PersonID)
	}
	b = appendTime(appendString(b, e.RelatedObjectID), e.CreatedAt)
	return append(b, e.Body...)
}

func (e *Event) decodeBinary(b []byte) error {
	r := reader{b: b}
	*e = Event{}
	e.ID, e.TenantID, e.Type = r.string(), r.string(), r.string()
	flags := r.byte()
	if flags&hasPerson != 0 {
		p := r.string()
		e.PersonID = &p
	}
	e.Synthetic = flags&isSynthetic != 0
	e.RelatedObjectID, e.CreatedAt = r.string(), r.time()
	if r.err != nil {
		return r.err
	}
	if len(r.b) > 0 {
		e.Body = bytes.Clone(r.b)
	}
	return nil
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// bytes reads a length-prefixed field; an empty one is nil.
func (r *reader) bytes() []byte {
	n := r.uint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.fail()
		return nil
	}
	if n == 0 {
		return nil
	}
	v := bytes.Clone(r.b[:n])
	r.b = r.b[n:]
	return v
}

// flags of an invoice's optional fields
const (
	hasIssuerPerson = 1 << iota
	hasRecipientPerson
	hasCancellation
	hasAnswered
)

// An invoice is binary since schema 15: its stamped XML is kept as it is (in JSON it was base64,
// a third larger), and last, as the rest of the record.
func (v Invoice) appendBinary(b []byte) []byte {
	var flags byte
	if v.IssuerPersonID != nil {
		flags |= hasIssuerPerson
	}
	if v.RecipientPersonID != nil {
		flags |= hasRecipientPerson
	}
	if v.Cancellation != nil {
		flags |= hasCancellation
		if v.Cancellation.AnsweredAt != nil {
			flags |= hasAnswered
		}
	}
	for _, s := range []string{v.ID, v.TenantID, v.ResponseID, v.PersonID, v.UUID, v.TypeCode, v.IssuerTin, v.RecipientTin,
		v.Total, v.Status, v.Date, v.Series} {
		b = appendString(b, s)
	}
	b = append(b, flags)
	if v.IssuerPersonID != nil {
		b = appendString(b, *v.IssuerPersonID)
	}
	if v.RecipientPersonID != nil {
		b = appendString(b, *v.RecipientPersonID)
	}
	if c := v.Cancellation; c != nil {
		b = appendTime(appendString(appendString(appendString(b, c.ReasonCode), c.ReplacementUUID), c.Status), c.RequestedAt)
		if c.AnsweredAt != nil {
			b = appendTime(b, *c.AnsweredAt)
		}
		b = appendBytes(b, c.Acknowledgement)
	}
	b = appendTime(appendTime(b, v.CreatedAt), v.UpdatedAt)
	b = appendBytes(b, v.View)
	return append(b, v.XML...)
}

func (v *Invoice) decodeBinary(b []byte) error {
	r := reader{b: b}
	*v = Invoice{}
	for _, s := range []*string{&v.ID, &v.TenantID, &v.ResponseID, &v.PersonID, &v.UUID, &v.TypeCode, &v.IssuerTin, &v.RecipientTin,
		&v.Total, &v.Status, &v.Date, &v.Series} {
		*s = r.string()
	}
	flags := r.byte()
	if flags&hasIssuerPerson != 0 {
		p := r.string()
		v.IssuerPersonID = &p
	}
	if flags&hasRecipientPerson != 0 {
		p := r.string()
		v.RecipientPersonID = &p
	}
	if flags&hasCancellation != 0 {
		c := &InvoiceCancellation{ReasonCode: r.string(), ReplacementUUID: r.string(), Status: r.string(), RequestedAt: r.time()}
		if flags&hasAnswered != 0 {
			t := r.time()
			c.AnsweredAt = &t
		}
		c.Acknowledgement = r.bytes()
		v.Cancellation = c
	}
	v.CreatedAt, v.UpdatedAt = r.time(), r.time()
	v.View = r.bytes()
	if r.err != nil {
		return r.err
	}
	if len(r.b) > 0 {
		v.XML = bytes.Clone(r.b)
	}
	return nil
}
