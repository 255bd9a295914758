package ids

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestNewIsV7AndOrdered(t *testing.T) {
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var made []string
	for i := range 5000 {
		made = append(made, New(base.Add(time.Duration(i/1000)*time.Millisecond)))
	}
	if !sort.StringsAreSorted(made) {
		t.Fatal("ids made in order do not sort in order")
	}
	seen := map[string]bool{}
	for _, s := range made {
		u, err := uuid.Parse(s) // independent parser
		if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%s: version %v variant %v err %v", s, u.Version(), u.Variant(), err)
		}
		if seen[s] {
			t.Fatalf("duplicate id %s", s)
		}
		seen[s] = true
	}
	u, _ := uuid.Parse(made[0])
	sec, nsec := u.Time().UnixTime()
	if got := time.Unix(sec, nsec).UTC(); !got.Equal(base) {
		t.Fatalf("time in id = %v, want %v", got, base)
	}
	if !strings.HasPrefix(made[0], TimePrefix(base)) {
		t.Fatalf("%s does not start with TimePrefix %s", made[0], TimePrefix(base))
	}
	if TimePrefix(base.Add(time.Millisecond)) <= made[999] {
		t.Fatal("the next millisecond's prefix does not sort after this one's ids")
	}
}

func TestEarlierTimeKeepsItsTime(t *testing.T) {
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	New(later)
	early := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := New(early)
	if !strings.HasPrefix(id, TimePrefix(early)) {
		t.Fatalf("an id made for %v after one for %v carries another time: %s", early, later, id)
	}
}

// TestSameMillisecondAfterOtherTimes: ids for one millisecond keep their order even when ids
// for other times (earlier and later) are made in between.
func TestSameMillisecondAfterOtherTimes(t *testing.T) {
	at := time.Date(2026, 5, 5, 5, 5, 5, 0, time.UTC)
	var made []string
	for i := range 50 {
		made = append(made, New(at))
		New(at.Add(time.Duration(i+1) * time.Hour))
		New(at.Add(-time.Duration(i+1) * time.Hour))
	}
	if !sort.StringsAreSorted(made) {
		t.Fatal("ids of one millisecond lost their order when other times came between them")
	}
}
