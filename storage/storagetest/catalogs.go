package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// testCatalogs checks that an import replaces the whole set (nothing of the old one survives),
// that rows come back in key order, and that a failed import leaves the old set in place.
func testCatalogs(t *testing.T, s storage.Store) {
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, err := tx.Catalogs().Set(); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("set of an empty store: %v, want ErrNotFound", err)
		}
		if _, err := tx.Catalogs().Row("t", []byte("k")); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("row of an empty store: %v, want ErrNotFound", err)
		}
		return tx.Catalogs().Rows("t", func(k, v []byte) error { return fmt.Errorf("row %s in an empty store", k) })
	}))
	put := func(version string, rows map[string][]string) error {
		return s.Update(ctx, func(tx storage.Tx) error {
			c := tx.Catalogs()
			if err := c.Clear(); err != nil {
				return err
			}
			set := storage.CatalogSet{Version: version, Source: "test", ImportedAt: time.Unix(0, 0).UTC()}
			for table, keys := range rows {
				for _, k := range keys {
					if err := c.PutRow(table, []byte(k), []byte("row "+k)); err != nil {
						return err
					}
				}
				set.Tables = append(set.Tables, storage.CatalogTable{Name: table, HasData: true, Rows: len(keys)})
			}
			return c.PutSet(set)
		})
	}
	must(t, put("1", map[string][]string{"a": {"3", "1", "2"}, "old": {"x"}}))
	must(t, put("2", map[string][]string{"a": {"2", "1"}}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		c := tx.Catalogs()
		set, err := c.Set()
		if err != nil || set.Version != "2" {
			return fmt.Errorf("set = %+v, %v; want version 2", set, err)
		}
		if _, ok := set.Table("old"); ok {
			return errors.New("the table of the old set is still described")
		}
		if _, err := c.Row("old", []byte("x")); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("row of the old set: %v, want ErrNotFound", err)
		}
		if _, err := c.Row("a", []byte("3")); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("row 3 survived the new import: %v", err)
		}
		v, err := c.Row("a", []byte("2"))
		if err != nil || string(v) != "row 2" {
			return fmt.Errorf("row a/2 = %q, %v", v, err)
		}
		var keys []string
		if err := c.Rows("a", func(k, _ []byte) error { keys = append(keys, string(k)); return nil }); err != nil {
			return err
		}
		if fmt.Sprint(keys) != "[1 2]" {
			return fmt.Errorf("rows in order = %v, want [1 2]", keys)
		}
		return nil
	}))
	failed := errors.New("source broke halfway")
	err := s.Update(ctx, func(tx storage.Tx) error {
		c := tx.Catalogs()
		if err := c.Clear(); err != nil {
			return err
		}
		if err := c.PutRow("a", []byte("9"), []byte("row 9")); err != nil {
			return err
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("failed import: %v", err)
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		set, err := tx.Catalogs().Set()
		if err != nil || set.Version != "2" {
			return fmt.Errorf("after a failed import the set is %+v, %v; want version 2 kept", set, err)
		}
		if _, err := tx.Catalogs().Row("a", []byte("1")); err != nil {
			return fmt.Errorf("after a failed import row a/1: %v", err)
		}
		return nil
	}))
}
