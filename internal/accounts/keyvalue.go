package accounts

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"time"
)

// An API key's value is its environment's prefix (sk_test_, sk_live_) and 24 bytes in
// base64url: the first 6 are the milliseconds (since 1970, big-endian) of its making, the other
// 18 random (144 bits). The store finds a key by its lookup, the value's keyed hash; a value's
// lookup begins with those 6 bytes, so the keys made one after another sit side by side in the
// lookup index, and a commit of many new keys writes one page of it, not one random page per key
// (the keyed hash alone spreads them over the whole index: measured, that page writing was the
// whole gap between creating API keys and bbolt's raw batched writes; BENCHMARKS.md). A value
// made before this form (24 random bytes) keeps the keyed hash alone as its lookup.

const (
	prefixTest = "sk_test_"
	prefixLive = "sk_live_"
	valueBytes = 24
	timeBytes  = 6
)

// newValue makes an API key's value at now.
func newValue(prefix string, now time.Time) string {
	var b [valueBytes]byte
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(now.UnixMilli()))
	copy(b[:timeBytes], ms[8-timeBytes:])
	if _, err := rand.Read(b[timeBytes:]); err != nil {
		panic(err) // crypto/rand never fails on the systems Go supports
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// lookupOf is the lookup a value is stored under: its first 6 bytes and its keyed hash.
func (s *Service) lookupOf(value string) []byte {
	ordered, plain := s.lookupsOf(value)
	if ordered != nil {
		return ordered
	}
	return plain
}

// lookups are the lookups a presented value may be stored under: the time-ordered one, then the
// keyed hash alone (a value made before the time-ordered form).
func (s *Service) lookups(value string) [][]byte {
	ordered, plain := s.lookupsOf(value)
	if ordered == nil {
		return [][]byte{plain}
	}
	return [][]byte{ordered, plain}
}

// lookupsOf computes a value's keyed hash once: plain is it alone, ordered the value's time
// bytes and it (nil for what is not of a value's form).
func (s *Service) lookupsOf(value string) (ordered, plain []byte) {
	body, ok := strings.CutPrefix(value, prefixTest)
	if !ok {
		body, ok = strings.CutPrefix(value, prefixLive)
	}
	var b [valueBytes]byte
	if ok && len(body) == base64.RawURLEncoding.EncodedLen(valueBytes) {
		if n, err := base64.RawURLEncoding.Decode(b[:], []byte(body)); err != nil || n != valueBytes {
			ok = false
		}
	} else {
		ok = false
	}
	if !ok {
		return nil, s.Keys.Lookup(value)
	}
	ordered = make([]byte, timeBytes, timeBytes+32)
	copy(ordered, b[:timeBytes])
	ordered = append(ordered, s.Keys.Lookup(value)...)
	return ordered, ordered[timeBytes:]
}
