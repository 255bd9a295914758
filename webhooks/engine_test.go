package webhooks

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/ids"
	"github.com/timbra-mx/timbra/storage"
)

func TestRetryDelay(t *testing.T) {
	cases := []struct {
		n          int
		retryAfter time.Duration
		jitter     float64
		want       time.Duration
	}{
		{1, 0, 1, 5 * time.Second},
		{2, 0, 1, 5 * time.Minute},
		{7, 0, 1, 10 * time.Hour},
		{2, 0, 0.9, 270 * time.Second},
		{1, time.Minute, 1, time.Minute},      // Retry-After lengthens a wait
		{2, time.Second, 1, 5 * time.Minute},  // but never shortens it
		{1, 48 * time.Hour, 1, MaxRetryAfter}, // and is bounded
		{99, 0, 1.1, 11 * time.Hour},          // past the schedule: its last wait
	}
	for _, c := range cases {
		if got := retryDelay(c.n, c.retryAfter, c.jitter); got != c.want {
			t.Errorf("retryDelay(%d, %v, %v) = %v, want %v", c.n, c.retryAfter, c.jitter, got, c.want)
		}
	}
	total := time.Duration(0)
	for _, d := range RetrySchedule {
		total += d
	}
	if len(RetrySchedule) != AutomaticAttempts || total < 27*time.Hour || total > 29*time.Hour {
		t.Fatalf("schedule: %d attempts over %v", len(RetrySchedule), total)
	}
}

// TestReleaseClaimsAtStart: a delivery claimed by a process that died is due at once when the
// engine starts, not after its lease; an unclaimed retry keeps its time.
func TestReleaseClaimsAtStart(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	lease, retry := now.Add(2*time.Minute), now.Add(time.Hour)
	claimed := storage.Delivery{ID: ids.New(now), WebhookID: "w", Status: DeliveryPending, NextAttemptAt: &lease, Claimed: true}
	waiting := storage.Delivery{ID: ids.New(now), WebhookID: "w", Status: DeliveryPending, NextAttemptAt: &retry}
	ctx := context.Background()
	err = db.Update(ctx, func(tx storage.Tx) error {
		if err := tx.Deliveries("t").Put(claimed); err != nil {
			return err
		}
		return tx.Deliveries("t").Put(waiting)
	})
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(&Service{Store: db, Now: func() time.Time { return now }}, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := e.releaseClaims(ctx); err != nil || n != 1 {
		t.Fatalf("released %d, %v; want 1", n, err)
	}
	db.View(ctx, func(tx storage.Tx) error {
		refs, _ := tx.Outbox().Due(now, 10)
		if len(refs) != 1 || refs[0].DeliveryID != claimed.ID {
			t.Errorf("due now: %+v, want only the released claim", refs)
		}
		d, _ := tx.Deliveries("t").Get(claimed.ID)
		if d.Claimed {
			t.Error("the released delivery is still claimed")
		}
		w, _ := tx.Deliveries("t").Get(waiting.ID)
		if !w.NextAttemptAt.Equal(retry) {
			t.Errorf("an unclaimed retry moved to %v", w.NextAttemptAt)
		}
		return nil
	})
}
