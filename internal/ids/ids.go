// Package ids makes record ids: UUID version 7 (RFC 9562) from a given time, so a record's id
// orders like its creation time and storage can seek by time. Ids made for the same millisecond
// keep their order through a counter in the rand_a field, as RFC 9562 §6.2 (method 1) describes.
package ids

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// seqs keeps a counter for each recent millisecond, so ids made for the same millisecond keep
// their order whatever times were asked for in between (a clock that stepped back, or several
// clocks in one process).
var (
	mu     sync.Mutex
	seqs   = map[int64]uint16{}
	recent []int64 // the milliseconds in seqs, oldest first
)

const keptMillis = 4096

// New returns a new UUID version 7 for time t, in the 8-4-4-4-12 form. Its first 48 bits are
// always t's millisecond; ids made for one millisecond sort in the order they were made (up to
// about 3500 in one millisecond, past which the rest are ordered only by their random bits).
func New(t time.Time) string {
	ms := t.UnixMilli()
	mu.Lock()
	s, ok := seqs[ms]
	switch {
	case !ok:
		s = randomSeq()
		if len(recent) >= keptMillis {
			delete(seqs, recent[0])
			recent = recent[1:]
		}
		recent = append(recent, ms)
	case s < 0x0fff:
		s++
	default:
		s = 0x0fff
	}
	seqs[ms] = s
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
