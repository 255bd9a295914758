package downloadrequests

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/downloadrules"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
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
	s, err := storagetest.Open(t)
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
	withEFirma(t, s, "t1", "p1", now)
	if err := s.Update(ctx, func(tx storage.Tx) error {
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

// TestRulesPauseWithoutEFirma: an approved rule whose person has no current e.firma (only a CSD,
// an expired e.firma) creates no request and keeps its last run; it is paused with the reason,
// logged once however many rounds pass; once an e.firma is uploaded it runs for the whole period
// since its last run (a rule that never ran: since a day before it paused), logged once, and the
// pause is cleared.
func TestRulesPauseWithoutEFirma(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC) // 12:00 in Mexico City
	withEFirma(t, s, "t1", "p1", now)                    // p1's own rule runs
	lastEnd, lastRun := time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC), now.Add(-50*time.Hour)
	if err := s.Update(ctx, func(tx storage.Tx) error {
		tin := "EKU9003173C9"
		if err := tx.People("t1").Put(storage.Person{ID: "p2", TenantID: "t1", LegalName: "EKU", Email: "p2@example.com", Tin: &tin, CreatedAt: now}); err != nil {
			return err
		}
		for _, r := range []storage.DownloadRule{
			{ID: "ran", TenantID: "t1", PersonID: "p2", Tin: tin, DownloadRuleStatusID: downloadrules.StatusApproved, SatQueryTypeID: "Metadata",
				DownloadTypeID: "Emitidos", CreatedAt: now, LastRunAt: &lastRun, LastRunEnd: &lastEnd, LastRequestID: "old"},
			{ID: "new", TenantID: "t1", PersonID: "p2", Tin: tin, DownloadRuleStatusID: downloadrules.StatusApproved, SatQueryTypeID: "Metadata",
				DownloadTypeID: "Recibidos", CreatedAt: now},
			{ID: "ok", TenantID: "t1", PersonID: "p1", Tin: tin, DownloadRuleStatusID: downloadrules.StatusApproved, SatQueryTypeID: "Metadata",
				DownloadTypeID: "Emitidos", CreatedAt: now},
		} {
			if err := tx.DownloadRules("t1").Put(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	pair(t, s, "t1", "p2", "csd", api.TaxFileCertificateCSD, now.AddDate(-1, 0, 0), now.AddDate(1, 0, 0))
	pair(t, s, "t1", "p2", "expired", api.TaxFileCertificateFIEL, now.AddDate(-4, 0, 0), now.AddDate(0, 0, -1))

	var logs bytes.Buffer
	clock := now
	w := &Worker{Store: s, Now: func() time.Time { return clock }, RulesEvery: 24 * time.Hour, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	rule := func(id string) storage.DownloadRule {
		var r storage.DownloadRule
		if err := s.View(ctx, func(tx storage.Tx) error { var err error; r, err = tx.DownloadRules("t1").Get(id); return err }); err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, run := range []struct {
		at   time.Duration
		want int // p1's rule only: at once, and again a day later
	}{{0, 1}, {time.Hour, 0}, {30 * time.Hour, 1}} {
		clock = now.Add(run.at)
		if n, err := w.RunRules(ctx); err != nil || n != run.want {
			t.Fatalf("run at +%s: %d created, %v", run.at, n, err)
		}
	}
	if rs := requests(t, s, "t1"); len(rs) != 2 || rs[0].DownloadRuleID != "ok" || rs[1].DownloadRuleID != "ok" {
		t.Fatalf("requests while paused: %+v", rs)
	}
	for _, id := range []string{"ran", "new"} {
		r := rule(id)
		if r.PausedSince == nil || !r.PausedSince.Equal(now) || r.PausedReason != fmt.Sprintf(MsgRulePaused, "p2") {
			t.Errorf("rule %s paused: %+v", id, r)
		}
	}
	if r := rule("ran"); !r.LastRunAt.Equal(lastRun) || !r.LastRunEnd.Equal(lastEnd) || r.LastRequestID != "old" {
		t.Errorf("the paused rule's last run moved: %+v", r)
	}
	if n := strings.Count(logs.String(), "download rule paused"); n != 2 {
		t.Errorf("pause logged %d times, want once per rule:\n%s", n, logs.String())
	}

	pair(t, s, "t1", "p2", "current", api.TaxFileCertificateFIEL, now.AddDate(-1, 0, 0), now.AddDate(1, 0, 0))
	clock = now.Add(31 * time.Hour)
	if n, err := w.RunRules(ctx); err != nil || n != 2 {
		t.Fatalf("after the e.firma: %d created, %v", n, err)
	}
	end := wall(clock)
	got := map[string]storage.DownloadRequest{}
	for _, r := range requests(t, s, "t1")[2:] {
		got[r.DownloadRuleID] = r
	}
	if r := got["ran"]; !r.StartDate.Equal(lastEnd) || !r.EndDate.Equal(end) {
		t.Errorf("the rule that ran before asks from its last end: %s to %s", r.StartDate, r.EndDate)
	}
	if r := got["new"]; !r.StartDate.Equal(wall(now).Add(-24*time.Hour)) || !r.EndDate.Equal(end) {
		t.Errorf("the rule that never ran asks from a day before it paused: %s to %s", r.StartDate, r.EndDate)
	}
	for _, id := range []string{"ran", "new"} {
		if r := rule(id); r.PausedSince != nil || r.PausedReason != "" || r.LastRequestID != got[id].ID {
			t.Errorf("rule %s after it ran again: %+v", id, r)
		}
	}
	if n := strings.Count(logs.String(), "download rule runs again"); n != 2 {
		t.Errorf("run again logged %d times, want once per rule:\n%s", n, logs.String())
	}
}
