// Package ids makes record ids: UUID version 7 (RFC 9562) from a given time, so a record's id
// orders like its creation time and storage can seek by time. Ids made in the same millisecond
// keep their order through a counter in the rand_a field, as RFC 9562 §6.2 (method 1) describes.
package ids

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

var (
	mu     sync.Mutex
	lastMS int64
	seq    uint16 // 12 bits
)

// New returns a new UUID version 7 for time t, in the 8-4-4-4-12 form. Its first 48 bits are
// always t's millisecond. More than 4096 ids in one millisecond, or an earlier t than the last
// one, give ids ordered only by their random bits within that millisecond.
func New(t time.Time) string {
	ms := t.UnixMilli()
	var s uint16
	mu.Lock()
	switch {
	case ms == lastMS && seq < 0x0fff:
		seq++ // same millisecond: count up so these ids keep their order
		s = seq
	case ms >= lastMS:
		lastMS, seq = ms, randomSeq()
		s = seq
	default:
		// an earlier time (a clock that stepped back, or another clock): the id keeps its own
		// time, because storage seeks by it, and is ordered only by its random part
		s = randomSeq()
	}
	mu.Unlock()

	var u [16]byte
	rand.Read(u[8:])
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	u[6] = 0x70 | byte(s>>8)&0x0f
	u[7] = byte(s)
	u[8] = 0x80 | u[8]&0x3f
	var out [36]byte
	hex.Encode(out[0:8], u[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], u[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], u[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], u[8:10])
	out[23] = '-'
	hex.Encode(out[24:], u[10:])
	return string(out[:])
}

// randomSeq starts a millisecond's counter low enough to leave room to count up.
func randomSeq() uint16 {
	var b [2]byte
	rand.Read(b[:])
	return (uint16(b[0])<<8 | uint16(b[1])) & 0x01ff
}

// TimePrefix is the leading part of every id made at t's millisecond ("xxxxxxxx-xxxx"): ids of
// later times sort after it.
func TimePrefix(t time.Time) string {
	ms := t.UnixMilli()
	var u [6]byte
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	return hex.EncodeToString(u[0:4]) + "-" + hex.EncodeToString(u[4:6])
}
