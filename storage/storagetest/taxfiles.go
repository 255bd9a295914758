package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// RunTaxFiles checks tax files: scoped to the tenant, listed in creation order (the tenant's and a
// person's current files), soft deletion out of every list but AllByPerson, and
// DeletePersonTaxFiles.
func RunTaxFiles(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Run("ScopedAndOrdered", func(t *testing.T) { testTaxFilesScoped(t, open(t)) })
	t.Run("SoftDelete", func(t *testing.T) { testTaxFilesSoftDelete(t, open(t)) })
	t.Run("DeletedWithThePerson", func(t *testing.T) { testTaxFilesPersonDeleted(t, open(t)) })
}

func taxFile(personID string, fileType, seq int) storage.TaxFile {
	now := time.Now().UTC().Truncate(time.Millisecond)
	from, to := now.Add(-time.Hour), now.Add(24*time.Hour)
	return storage.TaxFile{ID: id(), PersonID: personID, Tin: "EKU9003173C9", FileType: fileType,
		Content: []byte("sealed content"), Password: []byte("sealed password"), PublicKeyID: fmt.Sprintf("pk%d", seq),
		ValidFrom: &from, ValidTo: &to, Sequence: seq, CreatedAt: now, UpdatedAt: now}
}

func ids(fs []storage.TaxFile) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func sameIDs(got []storage.TaxFile, want ...string) error {
	g := ids(got)
	if fmt.Sprint(g) != fmt.Sprint(want) {
		return fmt.Errorf("ids = %v, want %v", g, want)
	}
	return nil
}

func testTaxFilesScoped(t *testing.T, s storage.Store) {
	a, b, p, q := id(), id(), id(), id()
	var made []string
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 6 {
			person := p
			if i%2 == 1 {
				person = q
			}
			f := taxFile(person, i%2, i)
			made = append(made, f.ID)
			if err := tx.TaxFiles(a).Put(f); err != nil {
				return err
			}
		}
		return nil
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		got, total, err := tx.TaxFiles(a).List(1, 3)
		if err != nil || total != 6 {
			return fmt.Errorf("list total = %d, %v", total, err)
		}
		if err := sameIDs(got, made[1:4]...); err != nil {
			return fmt.Errorf("list page: %w", err)
		}
		got, total, err = tx.TaxFiles(a).ListByPerson(q, 1, 5)
		if err != nil || total != 3 {
			return fmt.Errorf("person list total = %d, %v", total, err)
		}
		if err := sameIDs(got, made[3], made[5]); err != nil {
			return fmt.Errorf("person list page: %w", err)
		}
		if got, total, err = tx.TaxFiles(a).ListByPerson(q, 0, 1); err != nil || total != 3 || sameIDs(got, made[1]) != nil {
			return fmt.Errorf("person list, one of three = %d of %d, %v", len(got), total, err)
		}
		f, err := tx.TaxFiles(a).Get(made[2])
		if err != nil || f.TenantID != a || f.PersonID != p || string(f.Content) != "sealed content" || f.Sequence != 2 || f.ValidTo == nil {
			return fmt.Errorf("get = %+v, %v", f, err)
		}
		if _, err := tx.TaxFiles(b).Get(made[2]); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("a file of tenant a is visible in tenant b: %v", err)
		}
		if got, total, err := tx.TaxFiles(b).List(0, 10); err != nil || total != 0 || len(got) != 0 {
			return fmt.Errorf("tenant b lists %d files, %v", total, err)
		}
		if all, err := tx.TaxFiles(b).AllByPerson(p); err != nil || len(all) != 0 {
			return fmt.Errorf("tenant b has %d files of p, %v", len(all), err)
		}
		return nil
	}))
}

func testTaxFilesSoftDelete(t *testing.T, s storage.Store) {
	tenant, p := id(), id()
	cer, key := taxFile(p, 0, 1), taxFile(p, 1, 1)
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		if err := tx.TaxFiles(tenant).Put(cer); err != nil {
			return err
		}
		return tx.TaxFiles(tenant).Put(key)
	}))
	at := time.Now().UTC().Truncate(time.Millisecond)
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		f, err := tx.TaxFiles(tenant).Get(cer.ID)
		if err != nil {
			return err
		}
		f.SoftDelete("deleter", at)
		if err := tx.TaxFiles(tenant).Put(f); err != nil {
			return err
		}
		return tx.TaxFiles(tenant).Put(f) // deleted again: counted out once
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		files := tx.TaxFiles(tenant)
		if got, total, err := files.List(0, 10); err != nil || total != 1 || sameIDs(got, key.ID) != nil {
			return fmt.Errorf("list after delete = %v (%d), %v", ids(got), total, err)
		}
		if got, total, err := files.ListByPerson(p, 0, 10); err != nil || total != 1 || sameIDs(got, key.ID) != nil {
			return fmt.Errorf("person list after delete = %v (%d), %v", ids(got), total, err)
		}
		all, err := files.AllByPerson(p)
		if err != nil || sameIDs(all, cer.ID, key.ID) != nil {
			return fmt.Errorf("all of the person = %v, %v", ids(all), err)
		}
		d := all[0]
		if !d.Deleted() || d.Content != nil || d.Password != nil || d.DeletedBy != "deleter" || !d.DeletedAt.Equal(at) ||
			d.FileType != 0 || d.Tin != "EKU9003173C9" || d.ValidTo == nil || d.Sequence != 1 {
			return fmt.Errorf("deleted record = %+v: want content and password erased, type, RFC, validity and who and when kept", d)
		}
		return nil
	}))
}

func testTaxFilesPersonDeleted(t *testing.T, s storage.Store) {
	tenant, p, other := id(), id(), id()
	mine, theirs := []storage.TaxFile{taxFile(p, 0, 1), taxFile(p, 1, 1)}, taxFile(other, 0, 1)
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for _, f := range append(mine, theirs) {
			if err := tx.TaxFiles(tenant).Put(f); err != nil {
				return err
			}
		}
		return nil
	}))
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx storage.Tx) error {
		if err := storage.DeletePersonTaxFiles(tx, tenant, p, "x", time.Now()); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("Update returned %v", err)
	}
	must(t, s.View(ctx, func(tx storage.Tx) error {
		if _, total, err := tx.TaxFiles(tenant).ListByPerson(p, 0, 10); err != nil || total != 2 {
			return fmt.Errorf("a failed transaction deleted tax files: %d left, %v", total, err)
		}
		return nil
	}))
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		return storage.DeletePersonTaxFiles(tx, tenant, p, "owner", time.Now())
	}))
	// twice is the same as once
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		return storage.DeletePersonTaxFiles(tx, tenant, p, "someone else", time.Now())
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		files := tx.TaxFiles(tenant)
		if got, total, err := files.List(0, 10); err != nil || total != 1 || sameIDs(got, theirs.ID) != nil {
			return fmt.Errorf("list after the person's deletion = %v (%d), %v", ids(got), total, err)
		}
		all, err := files.AllByPerson(p)
		if err != nil || len(all) != 2 {
			return fmt.Errorf("the person's records: %d, %v; want both kept", len(all), err)
		}
		for _, f := range all {
			if !f.Deleted() || f.Content != nil || f.DeletedBy != "owner" {
				return fmt.Errorf("record after the person's deletion = %+v", f)
			}
		}
		return nil
	}))
}
