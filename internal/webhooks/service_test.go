package webhooks

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/ids"
	"github.com/timbra-mx/timbra/internal/secrets"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

func TestConcurrentChangeIs409(t *testing.T) {
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, _ := secrets.New(bytes.Repeat([]byte{1}, secrets.KeySize))
	s := New(Config{Store: db, Keys: keys, Now: time.Now, LockWait: 50 * time.Millisecond,
		CheckURL: func(string) string { return "" }, NewSecret: func() string { return "whsec_x" }})
	c := auth.Caller{TenantID: "t", PersonID: "p", IsOwner: true}
	url := "https://example.com/x"
	in := api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}}
	ctx := context.Background()
	unlock, err := s.lock(ctx, c.TenantID) // another change in progress
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(ctx, c, in)
	if e, ok := apierr.As(err); !ok || e.Status != 409 || e.Details != MsgConcurrentChange {
		t.Fatalf("create during another change: %v", err)
	}
	if _, err := s.Create(ctx, auth.Caller{TenantID: "other", PersonID: "q"}, in); err != nil {
		t.Fatalf("another tenant must not wait: %v", err)
	}
	unlock()
	if _, err := s.Create(ctx, c, in); err != nil {
		t.Fatalf("create after the change: %v", err)
	}
}

// updates counts the write transactions of a store.
type updates struct {
	storage.Store
	n atomic.Int32
}

func (u *updates) Update(ctx context.Context, fn func(storage.Tx) error) error {
	u.n.Add(1)
	return u.Store.Update(ctx, fn)
}

func TestPurgeInSlices(t *testing.T) {
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer func(n int, d time.Duration) { purgeSliceSize, purgeSliceTime = n, d }(purgeSliceSize, purgeSliceTime)
	purgeSliceSize, purgeSliceTime = 10, time.Hour
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	old, recent := now.Add(-Retention-time.Hour), now.Add(-time.Hour)
	ctx := context.Background()
	fill := func(tenant string, olds int) {
		err := db.Update(ctx, func(tx storage.Tx) error {
			for i := range olds + 3 {
				at := old.Add(time.Duration(i) * time.Second)
				if i >= olds {
					at = recent
				}
				e := storage.Event{ID: ids.New(at), Type: "invoice.stamped", CreatedAt: at, Body: []byte(`{}`)}
				if err := tx.Events(tenant).Put(e); err != nil {
					return err
				}
				d := storage.Delivery{ID: ids.New(at), WebhookID: "w", EventID: e.ID, EventType: e.Type, Kind: "automatic",
					Status: "succeeded", Attempts: 1, MaxAttempts: 8, CreatedAt: at, UpdatedAt: at}
				if err := tx.Deliveries(tenant).Put(d); err != nil {
					return err
				}
			}
			return tx.Tenants().Put(storage.Tenant{ID: tenant, OwnerPersonID: "p", CreatedAt: now})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fill("a", 25)
	fill("b", 4)
	st := &updates{Store: db}
	s := New(Config{Store: st, Now: func() time.Time { return now }})
	n, err := s.Purge(ctx)
	if err != nil || n != 2*(25+4) {
		t.Fatalf("purged %d records (%v), want %d", n, err, 2*(25+4))
	}
	// a: 10 + 10 + 5 events, as many deliveries; b: 4 and 4
	if got := st.n.Load(); got != 8 {
		t.Fatalf("%d write transactions, want 8 of at most 10 records", got)
	}
	for _, tenant := range []string{"a", "b"} {
		left := 0
		err := db.View(ctx, func(tx storage.Tx) error {
			if err := tx.Events(tenant).Older(now, func(storage.Event) bool { left++; return true }); err != nil {
				return err
			}
			return tx.Deliveries(tenant).Older(now, func(storage.Delivery) bool { left++; return true })
		})
		if err != nil || left != 6 {
			t.Fatalf("tenant %s kept %d records (%v), want its 3 recent events and 3 deliveries", tenant, left, err)
		}
	}
	if n, err := s.Purge(ctx); n != 0 || err != nil {
		t.Fatalf("a second purge deleted %d (%v)", n, err)
	}
	// out of time after each record: a slice each, and one more that finds none left
	purgeSliceTime = 0
	fill("a", 25)
	fill("b", 4)
	st.n.Store(0)
	if n, err := s.Purge(ctx); err != nil || n != 2*(25+4) {
		t.Fatalf("purged %d records (%v), want %d", n, err, 2*(25+4))
	}
	if got := st.n.Load(); got != 2*(25+1)+2*(4+1) {
		t.Fatalf("%d write transactions, want %d of one record", got, 2*(25+1)+2*(4+1))
	}
}

// TestDisableClosesABacklogInSlices: disabling a webhook (by hand, by deleting it, or by the
// engine on a 410) closes every pending delivery, a slice per transaction.
func TestDisableClosesABacklogInSlices(t *testing.T) {
	defer func(n int) { closeSlice = n }(closeSlice)
	closeSlice = 10
	ctx := context.Background()
	c := auth.Caller{TenantID: "a", PersonID: "p", IsOwner: true}
	// closed tells how many of the webhook's deliveries are failed for why, and how many pending
	closed := func(t *testing.T, db storage.Store, hook, why string) (failed, pending int) {
		t.Helper()
		err := db.View(ctx, func(tx storage.Tx) error {
			return tx.Deliveries("a").AllByWebhook(hook, func(d storage.Delivery) bool {
				switch {
				case d.Status == DeliveryPending:
					pending++
				case d.Status == DeliveryFailed && d.LastError != nil && *d.LastError == why:
					failed++
				}
				return true
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		return failed, pending
	}
	for _, how := range []string{"disable", "delete"} {
		t.Run(how, func(t *testing.T) {
			db, err := storagetest.Open(t)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			keys, _ := secrets.New(bytes.Repeat([]byte{1}, secrets.KeySize))
			st := &updates{Store: db}
			s := New(Config{Store: st, Keys: keys, Now: time.Now, CheckURL: func(string) string { return "" }, NewSecret: func() string { return "whsec_x" }})
			url := "https://example.com/x"
			w, err := s.Create(ctx, c, api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}})
			if err != nil {
				t.Fatal(err)
			}
			for range 25 {
				if _, err := s.Emit(ctx, "a", "invoice.stamped", "inv", nil); err != nil {
					t.Fatal(err)
				}
			}
			st.n.Store(0)
			why := "WebhookDisabled"
			if how == "disable" {
				off := StatusDisabled
				_, err = s.Replace(ctx, c, w.ID, api.WebhookUpdate{ID: &w.ID, URL: &url, EnabledEvents: []string{"*"}, Status: &off})
			} else {
				why, err = "WebhookDeleted", s.Delete(ctx, c, w.ID)
			}
			if err != nil {
				t.Fatal(err)
			}
			if failed, pending := closed(t, db, w.ID, why); failed != 25 || pending != 0 {
				t.Fatalf("%d closed (%s) and %d pending of 25", failed, why, pending)
			}
			if n := st.n.Load(); n != 3 { // 10 with the change, then 10 and 5
				t.Fatalf("%d write transactions, want 3 of at most 10 deliveries", n)
			}
		})
	}
	t.Run("gone", func(t *testing.T) {
		gone := 410
		var sent atomic.Int32
		db, err := storagetest.Open(t)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		keys, _ := secrets.New(bytes.Repeat([]byte{1}, secrets.KeySize))
		s := New(Config{Store: db, Keys: keys, Now: time.Now, CheckURL: func(string) string { return "" }, NewSecret: webhook.NewSecret,
			Send: func(context.Context, string, http.Header, []byte) webhook.Attempt {
				sent.Add(1)
				return webhook.Attempt{StatusCode: &gone}
			}, Log: slog.New(slog.DiscardHandler), PerDestination: 1})
		url := "https://example.com/gone"
		w, err := s.Create(ctx, c, api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}})
		if err != nil {
			t.Fatal(err)
		}
		// one delivery due now, 24 retrying in an hour
		ev, err := s.Emit(ctx, "a", "invoice.stamped", "inv", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(ctx, func(tx storage.Tx) error {
			later := time.Now().Add(time.Hour).UTC()
			for range 24 {
				err := tx.Deliveries("a").Put(storage.Delivery{ID: ids.New(time.Now()), WebhookID: w.ID, EventID: ev, EventType: "invoice.stamped",
					Kind: "automatic", Status: DeliveryPending, Attempts: 1, MaxAttempts: 8, NextAttemptAt: &later, CreatedAt: time.Now(), UpdatedAt: time.Now()})
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		run, stop := context.WithCancel(ctx)
		done := make(chan error)
		go func() { done <- s.Engine().Run(run) }()
		deadline := time.Now().Add(time.Minute)
		for {
			failed, pending := closed(t, db, w.ID, "WebhookDisabled")
			if failed == 24 && pending == 0 {
				break
			}
			if time.Now().After(deadline) {
				select {
				case err := <-done:
					t.Fatalf("run: %v", err)
				default:
				}
				t.Fatalf("after a 410: %d closed and %d pending of the 24 others (%d sent)", failed, pending, sent.Load())
			}
			time.Sleep(5 * time.Millisecond)
		}
		stop()
		<-done
		if n := sent.Load(); n != 1 {
			t.Fatalf("%d attempts, want the one answered 410", n)
		}
	})
}
