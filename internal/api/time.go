package api

import (
	"fmt"
	"time"
)

const (
	// layoutLocal is the API's date-time without offset (`yyyy-MM-ddTHH:mm:ss.fff`).
	layoutLocal = "2006-01-02T15:04:05.000"
	// layoutUTC is the same with a trailing Z, for instants in UTC.
	layoutUTC = "2006-01-02T15:04:05.000Z"
)

// FormatAudit formats an audit field (createdAt, updatedAt) of a record: UTC, no offset (spec 1
// §7.3).
func FormatAudit(t time.Time) string { return t.UTC().Format(layoutLocal) }

// FormatZoned formats a webhook or delivery date-time: in loc without offset, or in UTC with a
// trailing Z when no zone was asked for (spec 3 §2.2, §6.5).
func FormatZoned(t time.Time, loc *time.Location) string {
	if loc == nil {
		return t.UTC().Format(layoutUTC)
	}
	return t.In(loc).Format(layoutLocal)
}

// FormatInstant formats an event's createdAt: always UTC with a trailing Z (spec 3 §2.4).
func FormatInstant(t time.Time) string { return t.UTC().Format(layoutUTC) }

// ParseTime reads any date-time the API writes: RFC 3339 with an offset or Z, or a local
// date-time without offset (taken as UTC).
func ParseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date-time", s)
}
