package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestStampTransactions: movements are kept per tenant in the order they are added, counted.
func TestStampTransactions(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	now := time.Now().UTC()
	err = s.Update(ctx, func(tx Tx) error {
		for i, id := range []string{"01a", "01b", "01c"} {
			if err := tx.StampTransactions("a").Add(StampTransaction{ID: id, Consecutive: int64(i + 1), Amount: 1, CreatedAt: now}); err != nil {
				return err
			}
		}
		return tx.StampTransactions("b").Add(StampTransaction{ID: "01d", Consecutive: 1, CreatedAt: now})
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.View(ctx, func(tx Tx) error {
		page, total, err := tx.StampTransactions("a").List(1, 5)
		if err != nil || total != 3 || len(page) != 2 || page[0].ID != "01b" || page[1].TenantID != "a" {
			t.Errorf("list: %+v %d %v", page, total, err)
		}
		if _, err := tx.StampTransactions("b").Get("01a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("another tenant's: %v", err)
		}
		if got, err := tx.StampTransactions("b").Get("01d"); err != nil || got.Consecutive != 1 {
			t.Errorf("get: %+v %v", got, err)
		}
		return nil
	})
}
