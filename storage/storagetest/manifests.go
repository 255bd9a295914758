package storagetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/storage"
)

// testManifests: every signed letter of a person is kept, newest first; Latest is the newest;
// a letter is the person's and the tenant's only; a person who signed none has none.
func testManifests(t *testing.T, s storage.Store) {
	a, b, ana, beto := id(), id(), id(), id()
	var made []string
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	must(t, s.Update(ctx, func(tx storage.Tx) error {
		for i := range 3 {
			m := storage.Manifest{ID: id(), PersonID: ana, Tin: "ANA010101AAA", CertificateNumber: fmt.Sprintf("3000100000040000000%d", i),
				FileName: "carta-manifiesto-ANA010101AAA.xml", XML: []byte(fmt.Sprintf("<CartaManifiesto n=\"%d\"/>", i)), SignedAt: at.Add(time.Duration(i) * time.Hour)}
			made = append(made, m.ID)
			if err := tx.Manifests(a).Add(m); err != nil {
				return err
			}
		}
		return tx.Manifests(b).Add(storage.Manifest{ID: id(), PersonID: ana, XML: []byte("<b/>")})
	}))
	must(t, s.View(ctx, func(tx storage.Tx) error {
		ms := tx.Manifests(a)
		latest, err := ms.Latest(ana)
		if err != nil || latest.ID != made[2] || string(latest.XML) != `<CartaManifiesto n="2"/>` || latest.TenantID != a || !latest.SignedAt.Equal(at.Add(2*time.Hour)) {
			return fmt.Errorf("latest = %+v, %v", latest, err)
		}
		page, total, err := ms.List(ana, 1, 5)
		if err != nil || total != 3 || len(page) != 2 || page[0].ID != made[1] || page[1].ID != made[0] {
			return fmt.Errorf("list from 1: total %d, %+v, %v", total, page, err)
		}
		if page, total, _ := ms.List(ana, 0, 1); total != 3 || len(page) != 1 || page[0].ID != made[2] {
			return fmt.Errorf("first page of 1: total %d, %+v", total, page)
		}
		if m, err := ms.Get(ana, made[0]); err != nil || m.CertificateNumber != "30001000000400000000" {
			return fmt.Errorf("get the first: %+v, %v", m, err)
		}
		if _, err := ms.Latest(beto); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("a person who signed none: %v", err)
		}
		if page, total, _ := ms.List(beto, 0, 5); total != 0 || len(page) != 0 {
			return fmt.Errorf("a person who signed none listed %d of %d", len(page), total)
		}
		if _, err := tx.Manifests(b).Get(ana, made[0]); !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("tenant a's letter in tenant b: %v", err)
		}
		if m, err := tx.Manifests(b).Latest(ana); err != nil || string(m.XML) != "<b/>" {
			return fmt.Errorf("tenant b's own letter: %+v, %v", m, err)
		}
		return nil
	}))
}
