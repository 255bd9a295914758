package downloadrequests

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/downloadrules"
	"github.com/timbra-mx/timbra/storage"
)

type emitted struct{ tenant, typ, related, person string }

type recorder struct {
	mu     sync.Mutex
	events []emitted
	woken  []string
}

func (r *recorder) EmitIn(_ storage.Tx, tenant, typ, related string, person *string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := ""
	if person != nil {
		p = *person
	}
	r.events = append(r.events, emitted{tenant, typ, related, p})
	return "e", nil
}

func (r *recorder) WakeEngine(tenant string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.woken = append(r.woken, tenant)
}

func openStore(t *testing.T) storage.Store {
	t.Helper()
	s, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func requests(t *testing.T, s storage.Store, tenant string) []storage.DownloadRequest {
	t.Helper()
	var out []storage.DownloadRequest
	if err := s.View(context.Background(), func(tx storage.Tx) error {
		var err error
		out, _, err = tx.DownloadRequests(tenant).List(0, 1000)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRulesRunOnSchedule: an approved rule creates its Automatic request at once, then once per
// RulesEvery, each for the period since the last one ended; a pending rule never; a new worker
// on the same store (a restart) does not run it again before it is due.
func TestRulesRunOnSchedule(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC) // 12:00 in Mexico City
	if err := s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Tenants().Put(storage.Tenant{ID: "t1", CreatedAt: now}); err != nil {
			return err
		}
		for _, r := range []storage.DownloadRule{
			{ID: "r1", TenantID: "t1", PersonID: "p1", Tin: "EKU9003173C9", DownloadRuleStatusID: downloadrules.StatusApproved,
				SatQueryTypeID: "CFDI", DownloadTypeID: "Emitidos", SatInvoiceStatusID: "Vigente", CreatedAt: now},
			{ID: "r2", TenantID: "t1", PersonID: "p1", Tin: "EKU9003173C9", DownloadRuleStatusID: "1",
				SatQueryTypeID: "Metadata", DownloadTypeID: "Recibidos", SatInvoiceStatusID: "Vigente", CreatedAt: now},
		} {
			if err := tx.DownloadRules("t1").Put(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	clock := now
	w := &Worker{Store: s, Now: func() time.Time { return clock }, RulesEvery: 24 * time.Hour}
	if n, err := w.RunRules(ctx); err != nil || n != 1 {
		t.Fatalf("first run: %d %v", n, err)
	}
	rs := requests(t, s, "t1")
	if len(rs) != 1 {
		t.Fatalf("requests: %+v", rs)
	}
	r := rs[0]
	wantStart, wantEnd := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	if r.DownloadRequestTypeID != TypeAutomatic || r.DownloadRuleID != "r1" || r.PersonID != "p1" || r.RequesterTin != "EKU9003173C9" ||
		r.IssuerTin != "EKU9003173C9" || r.SatQueryTypeID != "CFDI" || r.DownloadRequestStatusID != StatusPending || !r.Active ||
		!r.StartDate.Equal(wantStart) || !r.EndDate.Equal(wantEnd) || r.Consecutive != 1 {
		t.Fatalf("automatic request: %+v", r)
	}

	clock = now.Add(23 * time.Hour)
	restarted := &Worker{Store: s, Now: func() time.Time { return clock }, RulesEvery: 24 * time.Hour}
	if n, err := restarted.RunRules(ctx); err != nil || n != 0 {
		t.Fatalf("before it is due, after a restart: %d %v", n, err)
	}
	clock = now.Add(24*time.Hour + 30*time.Minute)
	if n, err := restarted.RunRules(ctx); err != nil || n != 1 {
		t.Fatalf("second run: %d %v", n, err)
	}
	if n, err := w.RunRules(ctx); err != nil || n != 0 {
		t.Fatalf("the same run again: %d %v", n, err)
	}
	rs = requests(t, s, "t1")
	if len(rs) != 2 || !rs[1].StartDate.Equal(wantEnd) || !rs[1].EndDate.Equal(wantEnd.Add(24*time.Hour+30*time.Minute)) || rs[1].Consecutive != 2 {
		t.Fatalf("second request: %+v", rs)
	}
	var rule storage.DownloadRule
	_ = s.View(ctx, func(tx storage.Tx) error { rule, _ = tx.DownloadRules("t1").Get("r1"); return nil })
	if rule.LastRequestID != rs[1].ID || rule.LastRunAt == nil || !rule.LastRunAt.Equal(clock) || rule.LastRunEnd == nil || !rule.LastRunEnd.Equal(rs[1].EndDate) {
		t.Fatalf("rule's last run: %+v", rule)
	}
}

// TestEventsOnTheEnd: a request that becomes Failed or Completed emits its event with the
// change, and wakes the engine; other changes emit nothing.
func TestEventsOnTheEnd(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	rec := &recorder{}
	w := &Worker{Store: s, Events: rec}
	now := time.Now().UTC()
	for _, id := range []string{"a", "b"} {
		r := storage.DownloadRequest{ID: id, TenantID: "t1", PersonID: "p1", DownloadRequestStatusID: StatusPending, Active: true, CreatedAt: now}
		if err := s.Update(ctx, func(tx storage.Tx) error { return tx.DownloadRequests("t1").Put(r) }); err != nil {
			t.Fatal(err)
		}
	}
	a := requests(t, s, "t1")[0]
	a.DownloadRequestStatusID = StatusInProgress
	if err := w.save(ctx, a); err != nil || len(rec.events) != 0 {
		t.Fatalf("in progress: %v %+v", err, rec.events)
	}
	a.DownloadRequestStatusID, a.Active = StatusCompleted, false
	if err := w.save(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := w.save(ctx, a); err != nil {
		t.Fatal(err)
	}
	b := requests(t, s, "t1")[1]
	if err := w.fail(ctx, b, "5002", "Se agotó las solicitudes de por vida"); err != nil {
		t.Fatal(err)
	}
	want := []emitted{{"t1", EventCompleted, "a", "p1"}, {"t1", EventFailed, "b", "p1"}}
	if len(rec.events) != 2 || rec.events[0] != want[0] || rec.events[1] != want[1] || len(rec.woken) != 2 {
		t.Fatalf("events %+v, woken %v", rec.events, rec.woken)
	}
}
