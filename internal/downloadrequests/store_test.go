package downloadrequests

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/storagetest"
)

// cfdiOf is a stamped CFDI of a package (its Folio and the start of its UUID).
const cfdiOf = `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Folio="%s" Total="1.00"><cfdi:Emisor Rfc="EKU9003173C9"/>` +
	`<cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="%s-0000-4000-8000-000000000000"/></cfdi:Complemento></cfdi:Comprobante>`

// TestStoreInBatches: a package of more CFDIs than one transaction's entries is stored in
// several, every CFDI indexed once in order; a store cut short (the request still marked with
// the package, some of its chunks and entries written) is cleared before the package is stored
// again, and the entries of packages stored before it stay. Each entry is where its CFDI is in
// the package (a few dozen bytes) and reads back the CFDI; an entry of the JSON form written
// before reads its CFDI from itself.
func TestStoreInBatches(t *testing.T) {
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	n := entriesPerCommit*2 + 7
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for i := range n {
		w, _ := zw.Create(fmt.Sprintf("%d.xml", i))
		fmt.Fprintf(w, cfdiOf, fmt.Sprint(i), fmt.Sprintf("%08X", i))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "p.zip")
	if err := os.WriteFile(path, zb.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// an earlier package's entry (in the JSON form of before, the XML in it), then a store of
	// p_02 cut short
	earlierXML := fmt.Sprintf(cfdiOf, "earlier", "AAAAAAAA")
	earlier, _ := json.Marshal(api.DownloadXML{Number: &[]string{"earlier"}[0], DownloadPackageID: "p_01",
		Base64Content: base64.StdEncoding.EncodeToString([]byte(earlierXML))})
	r := storage.DownloadRequest{ID: "r1", TenantID: "a", SatQueryTypeID: "CFDI", Active: true, PackageIDs: []string{"p_01", "p_02"}, Downloaded: []string{"p_01"}}
	err = db.Update(ctx, func(tx storage.Tx) error {
		rs := tx.DownloadRequests("a")
		if err := rs.AddItem("r1", storage.ItemXML, earlier); err != nil {
			return err
		}
		cut := r
		cut.Storing = &storage.PackageStore{Package: "p_02", Kind: storage.ItemXML, ItemsBefore: 1}
		if err := rs.PutPackageChunk("r1", "p_02", 0, []byte("partial")); err != nil {
			return err
		}
		for range 5 {
			if err := rs.AddItem("r1", storage.ItemXML, []byte(`{"folio":"partial"}`)); err != nil {
				return err
			}
		}
		return rs.Put(cut)
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Storing = &storage.PackageStore{Package: "p_02", Kind: storage.ItemXML, ItemsBefore: 1} // as the worker read it
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := &Worker{Store: db}
	if err := w.store(ctx, &r, "p_02", f); err != nil {
		t.Fatal(err)
	}
	db.View(ctx, func(tx storage.Tx) error {
		rs := tx.DownloadRequests("a")
		got, err := rs.Get("r1")
		if err != nil || got.Storing != nil || len(got.Downloaded) != 2 {
			t.Errorf("request after store: %+v %v", got, err)
		}
		var pkg bytes.Buffer
		if err := rs.Package("r1", "p_02", &pkg); err != nil || !bytes.Equal(pkg.Bytes(), zb.Bytes()) {
			t.Errorf("package: %d bytes of %d, %v", pkg.Len(), zb.Len(), err)
		}
		items, total, _ := rs.Items("r1", storage.ItemXML, 0, n+10)
		if total != n+1 {
			t.Fatalf("%d entries, want %d", total, n+1)
		}
		for i, b := range items {
			raw, pkg, err := readXMLEntry(rs, "r1", b)
			if err != nil {
				t.Fatalf("entry %d: %v", i, err)
			}
			x, err := xmlOf(raw, "r1", pkg, i)
			want, wantPkg := fmt.Sprint(i-1), "p_02"
			if i == 0 {
				want, wantPkg = "earlier", "p_01"
			}
			if err != nil || x.Number == nil || *x.Number != want || x.DownloadPackageID != wantPkg || len(b) > 64 && i > 0 {
				t.Fatalf("entry %d (%d bytes): %+v %v", i, len(b), x, err)
			}
		}
		return nil
	})
}

// TestReadXMLEntryChecks: an entry reads its CFDI from the stored package, deflated or stored;
// a package whose bytes changed since (or that is gone) is an error, not another CFDI.
func TestReadXMLEntryChecks(t *testing.T) {
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for i, m := range []uint16{zip.Deflate, zip.Store} {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("%d.xml", i), Method: m})
		fmt.Fprintf(w, cfdiOf, fmt.Sprint(i), fmt.Sprintf("%08X", i))
	}
	zw.Close()
	z, files := readZip(t, zb.Bytes())
	var entries [][]byte
	for _, zf := range files {
		e, err := indexXMLFile(z, zf, "p_01")
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e.encode())
	}
	read := func(b []byte) ([]byte, error) {
		var raw []byte
		err := db.View(ctx, func(tx storage.Tx) error {
			var err error
			raw, _, err = readXMLEntry(tx.DownloadRequests("a"), "r1", b)
			return err
		})
		return raw, err
	}
	put := func(pkg []byte) {
		db.Update(ctx, func(tx storage.Tx) error {
			_, err := tx.DownloadRequests("a").PutPackage("r1", "p_01", bytes.NewReader(pkg))
			return err
		})
	}
	if _, err := read(entries[0]); err == nil {
		t.Error("an entry of an absent package read")
	}
	put(zb.Bytes())
	for i, b := range entries {
		raw, err := read(b)
		if err != nil || string(raw) != fmt.Sprintf(cfdiOf, fmt.Sprint(i), fmt.Sprintf("%08X", i)) {
			t.Errorf("entry %d: %q %v", i, raw, err)
		}
	}
	for i, b := range entries {
		e, _ := decodeXMLEntry(b)
		changed := bytes.Clone(zb.Bytes())
		changed[e.Offset+e.Size/2] ^= 0x20
		put(changed)
		if raw, err := read(b); err == nil {
			t.Errorf("entry %d read from a changed package: %q", i, raw)
		}
	}
}

// TestStoreRefusesDamagedPackage: a package whose CFDI was altered after its CRC-32 was
// written (still a CFDI that reads), or that is cut short, is not stored: the store is an error
// and the request does not count the package as downloaded.
func TestStoreRefusesDamagedPackage(t *testing.T) {
	db, err := storagetest.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for i := range 3 {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("%d.xml", i), Method: zip.Store})
		fmt.Fprintf(w, cfdiOf, fmt.Sprintf("folio-%d", i), fmt.Sprintf("%08X", i))
	}
	zw.Close()
	altered := bytes.Clone(zb.Bytes())
	at := bytes.Index(altered, []byte("folio-2"))
	altered[at] = 'F'
	for name, pkg := range map[string][]byte{"altered": altered, "cut short": zb.Bytes()[:zb.Len()-10]} {
		r := storage.DownloadRequest{ID: "r-" + name, TenantID: "a", SatQueryTypeID: "CFDI", Active: true, PackageIDs: []string{"p_01"}}
		if err := db.Update(ctx, func(tx storage.Tx) error { return tx.DownloadRequests("a").Put(r) }); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "p.zip")
		if err := os.WriteFile(path, pkg, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		err = (&Worker{Store: db}).store(ctx, &r, "p_01", f)
		f.Close()
		if err == nil || !strings.Contains(err.Error(), errZip.Error()) {
			t.Errorf("%s: %v, want a ZIP error", name, err)
		}
		db.View(ctx, func(tx storage.Tx) error {
			got, err := tx.DownloadRequests("a").Get(r.ID)
			if err != nil || len(got.Downloaded) != 0 {
				t.Errorf("%s: %+v %v", name, got, err)
			}
			return nil
		})
	}
}
