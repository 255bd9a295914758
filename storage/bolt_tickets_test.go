package storage_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/timbra-mx/timbra/storage"
)

// TestBoltTicketIndexes: the number index, and the day indexes the usage report walks (both
// days included, the status rewritten on each Put, tenants apart).
func TestBoltTicketIndexes(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	days := []string{"2026-10-31", "2026-11-01", "2026-11-15", "2026-11-30", "2026-12-01"}
	err = db.Update(ctx, func(tx storage.Tx) error {
		for _, tenant := range []string{"t1", "t2"} {
			for i, d := range days {
				k := storage.Ticket{ID: fmt.Sprintf("id-%d", i), Number: fmt.Sprintf("N-%d", i), IssuerPersonID: "issuer", RecordedByPersonID: "cashier",
					PaidDay: d, RecordedDay: days[len(days)-1-i], Status: "pending"}
				if err := tx.Tickets(tenant).Put(k); err != nil {
					return err
				}
			}
		}
		k, err := tx.Tickets("t1").Get("id-2")
		if err != nil {
			return err
		}
		k.Status = "invoiced"
		if err := tx.Tickets("t1").Put(k); err != nil {
			return err
		}
		if err := tx.Tickets("t1").Put(storage.Ticket{ID: "x", Number: "X"}); err == nil {
			return errors.New("a ticket without its days was saved")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(ctx, func(tx storage.Tx) error {
		ts := tx.Tickets("t1")
		if k, err := ts.ByNumber("N-3"); err != nil || k.ID != "id-3" {
			return fmt.Errorf("by number: %+v %v", k, err)
		}
		if _, err := ts.ByNumber("N-9"); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("absent number: %v", err)
		}
		walk := func(from, to string, reverse bool, stopAt string) ([]string, error) {
			var got []string
			err := ts.EachPaid(from, to, reverse, func(id, issuer, recorder, status string) error {
				got = append(got, id+":"+issuer+":"+recorder+":"+status)
				if id == stopAt {
					return storage.ErrStop
				}
				return nil
			})
			return got, err
		}
		for _, c := range []struct {
			from, to string
			reverse  bool
			stopAt   string
			want     []string
		}{
			{"2026-11-01", "2026-11-30", false, "", []string{"id-1:issuer:cashier:pending", "id-2:issuer:cashier:invoiced", "id-3:issuer:cashier:pending"}},
			{"2026-11-01", "2026-11-30", true, "", []string{"id-3:issuer:cashier:pending", "id-2:issuer:cashier:invoiced", "id-1:issuer:cashier:pending"}},
			{"", "", true, "id-3", []string{"id-4:issuer:cashier:pending", "id-3:issuer:cashier:pending"}},
			{"", "2026-10-31", false, "", []string{"id-0:issuer:cashier:pending"}},
			{"2026-12-01", "", true, "", []string{"id-4:issuer:cashier:pending"}},
			{"2027-01-01", "", true, "", nil},
		} {
			got, err := walk(c.from, c.to, c.reverse, c.stopAt)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, c.want) {
				return fmt.Errorf("paid %q..%q reverse %v: %v, want %v", c.from, c.to, c.reverse, got, c.want)
			}
		}
		var recorded []string
		if err := ts.EachRecorded("2026-12-01", "2026-12-01", func(id, who string) error {
			recorded = append(recorded, id+":"+who)
			return nil
		}); err != nil {
			return err
		}
		if want := []string{"id-0:cashier"}; !reflect.DeepEqual(recorded, want) {
			return fmt.Errorf("recorded on December 1: %v", recorded)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBoltTicketsBy: each ticket is under its issuer and its recorder (once when the same) and
// under its status, by payment day; a status change moves it, and the counts follow.
func TestBoltTicketsBy(t *testing.T) {
	db, err := storage.Open(filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	err = db.Update(ctx, func(tx storage.Tx) error {
		for i, who := range [][2]string{{"ana", "ana"}, {"ana", "beto"}, {"carla", "beto"}, {"ana", "ana"}} {
			day := fmt.Sprintf("2026-11-%02d", 10+i)
			if err := tx.Tickets("t1").Put(storage.Ticket{ID: fmt.Sprintf("id-%d", i), Number: fmt.Sprintf("N-%d", i), IssuerPersonID: who[0],
				RecordedByPersonID: who[1], PaidDay: day, RecordedDay: day, Status: "pending"}); err != nil {
				return err
			}
		}
		if err := tx.Tickets("t2").Put(storage.Ticket{ID: "other", Number: "O", IssuerPersonID: "ana", RecordedByPersonID: "ana",
			PaidDay: "2026-11-10", RecordedDay: "2026-11-10", Status: "pending"}); err != nil {
			return err
		}
		k, err := tx.Tickets("t1").Get("id-1")
		if err != nil {
			return err
		}
		k.Status = "invoiced"
		if err := tx.Tickets("t1").Put(k); err != nil {
			return err
		}
		return tx.Tickets("t1").Put(k) // the same status again: counted once
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(ctx, func(tx storage.Tx) error {
		ts := tx.Tickets("t1")
		for _, c := range []struct {
			ix       storage.TicketIndex
			value    string
			from, to string
			want     []string
		}{
			{storage.TicketsOfPerson, "ana", "", "", []string{"id-3:pending", "id-1:invoiced", "id-0:pending"}},
			{storage.TicketsOfPerson, "beto", "", "", []string{"id-2:pending", "id-1:invoiced"}},
			{storage.TicketsOfPerson, "carla", "", "", []string{"id-2:pending"}},
			{storage.TicketsOfIssuer, "ana", "", "", []string{"id-3:pending", "id-1:invoiced", "id-0:pending"}},
			{storage.TicketsOfIssuer, "beto", "", "", nil},
			{storage.TicketsOfPerson, "ana", "2026-11-11", "2026-11-12", []string{"id-1:invoiced"}},
			{storage.TicketsInStatus, "pending", "", "", []string{"id-3:pending", "id-2:pending", "id-0:pending"}},
			{storage.TicketsInStatus, "invoiced", "", "", []string{"id-1:invoiced"}},
			{storage.TicketsInStatus, "cancelled", "", "", nil},
			{storage.TicketsOfPerson, "an", "", "", nil}, // a prefix of a person is not the person
		} {
			var got []string
			if err := ts.EachPaidBy(c.ix, c.value, c.from, c.to, true, func(id, _, _, status string) error {
				got = append(got, id+":"+status)
				return nil
			}); err != nil {
				return err
			}
			n, err := ts.CountBy(c.ix, c.value)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, c.want) || (c.from == "" && n != len(c.want)) {
				return fmt.Errorf("%c %q %s..%s: %v counted %d, want %v", c.ix, c.value, c.from, c.to, got, n, c.want)
			}
		}
		if n, _ := tx.Tickets("t2").CountBy(storage.TicketsOfPerson, "ana"); n != 1 {
			return fmt.Errorf("t2's tickets of ana counted %d", n)
		}
		// by person and by issuer in a status, moved with the status (id-1 pending → invoiced)
		for _, c := range []struct {
			ix            storage.TicketIndex
			value, status string
			want          int
		}{
			{storage.TicketsOfPerson, "ana", "pending", 2}, {storage.TicketsOfPerson, "ana", "invoiced", 1},
			{storage.TicketsOfPerson, "beto", "pending", 1}, {storage.TicketsOfPerson, "beto", "invoiced", 1},
			{storage.TicketsOfPerson, "carla", "invoiced", 0}, {storage.TicketsOfIssuer, "ana", "pending", 2},
			{storage.TicketsOfIssuer, "carla", "pending", 1}, {storage.TicketsOfIssuer, "beto", "pending", 0},
		} {
			if n, err := ts.CountIn(c.ix, c.value, c.status); err != nil || n != c.want {
				return fmt.Errorf("%c %q %s: counted %d (%v), want %d", c.ix, c.value, c.status, n, err, c.want)
			}
		}
		if n, _ := tx.Tickets("t2").CountIn(storage.TicketsOfIssuer, "ana", "pending"); n != 1 {
			return fmt.Errorf("t2's pending tickets of ana counted %d", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
