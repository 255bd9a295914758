package storage

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage/pgtest"
)

// TestPostgresCopyFromBolt: a bbolt database (people, events, a catalog table in a nested
// bucket) copied into PostgreSQL reads the same there; a copy cut short goes on where it stopped
// and ends verified; a target holding a timbra database is refused unless replaced; a file in
// use is refused.
func TestPostgresCopyFromBolt(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t.db")
	src, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	err = src.Update(ctx, func(tx Tx) error {
		if err := tx.Meta().Put(MetaEnvironment, []byte("test")); err != nil {
			return err
		}
		for i := range 60 {
			p := Person{ID: fmt.Sprintf("p%03d", i), TenantID: "t1", Email: fmt.Sprintf("p%d@example.com", i), CreatedAt: now, UpdatedAt: now}
			if err := tx.People("t1").Put(p); err != nil {
				return err
			}
		}
		cat := tx.Catalogs()
		for i := range 30 {
			if err := cat.PutRow("c_Pais", []byte(fmt.Sprintf("k%02d", i)), []byte(fmt.Sprintf("row %d", i))); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CopyToPostgres(ctx, path, pgtest.URL(t), CopyOptions{}); err == nil {
		t.Fatal("a file in use by a server was copied")
	}
	src.Close()

	url := pgtest.URL(t)
	copyBatch = 7
	defer func() { copyBatch = 2000 }()
	cut, stop := context.WithCancel(ctx)
	batches := 0
	_, err = CopyToPostgres(cut, path, url, CopyOptions{Progress: func(bucket string, keys int) {
		if batches++; batches == 5 {
			stop() // cut short after a few batches
		}
	}})
	if err == nil {
		t.Fatal("the cut copy answered no error")
	}
	rep, err := CopyToPostgres(ctx, path, url, CopyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed {
		t.Error("the second copy did not go on from the first")
	}
	keys := map[string]int{}
	for _, b := range rep.Buckets {
		keys[b.Name] = b.Keys
	}
	if keys["people"] != 60 || keys["catalog_rows/c_Pais"] != 30 {
		t.Fatalf("verified buckets: %v", keys)
	}

	dst, err := OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	err = dst.View(ctx, func(tx Tx) error {
		people, total, err := tx.People("t1").List(0, 100)
		if err != nil || total != 60 || len(people) != 60 || people[59].ID != "p059" {
			return fmt.Errorf("people: %d of %d (%v)", len(people), total, err)
		}
		if _, _, err := tx.PersonByEmail("p7@example.com"); err != nil {
			return err
		}
		row, err := tx.Catalogs().Row("c_Pais", []byte("k29"))
		if err != nil || string(row) != "row 29" {
			return fmt.Errorf("catalog row %q (%v)", row, err)
		}
		return nil
	})
	dst.Close()
	if err != nil {
		t.Fatal(err)
	}

	if _, err := CopyToPostgres(ctx, path, url, CopyOptions{}); !errors.Is(err, ErrTargetNotEmpty) {
		t.Fatalf("a copy into a timbra database: %v", err)
	}
	if rep, err := CopyToPostgres(ctx, path, url, CopyOptions{Replace: true}); err != nil || rep.Resumed {
		t.Fatalf("a copy replacing the target: %+v %v", rep, err)
	}
}
