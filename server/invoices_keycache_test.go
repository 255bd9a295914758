package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/storage"
)

// The issuer's opened key is kept between by-reference invoices (taxfiles' key cache), and every
// change of the issuer's tax files is seen by the next invoice: a new pair seals it, a deleted
// key is not used, no key left fails as without files. Concurrent invoices are -race clean.
func TestInvoiceKeyCache(t *testing.T) {
	f, m := invoiceFixture(t, 30)
	keys := genKeys(2)
	rfc := "EKU9003173C9"
	issuer := taxPerson(t, f, "kemper@example.com", rfc)
	recipient := taxPerson(t, f, "client@example.com", "XAXX010101000")
	err := f.srv.Accounts().Store.Update(context.Background(), func(tx storage.Tx) error {
		for _, c := range []struct{ id, name, regime, use string }{
			{issuer.person, "ESCUELA KEMPER URGATE", "601", "G01"}, {recipient.person, "PUBLICO EN GENERAL", "616", "S01"},
		} {
			p, err := tx.People(f.creds.TenantKey).Get(c.id)
			if err != nil {
				return err
			}
			zip := "42501"
			p.LegalName, p.SatTaxRegimeID, p.ZipCode, p.SatCfdiUseID = c.name, &c.regime, &zip, &c.use
			if err := tx.People(f.creds.TenantKey).Put(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	product := productOf(t, f.do("POST", "/api/v4/products", empBody(productBase())))
	ref := empBody(map[string]any{"typeCode": "I", "paymentFormCode": "01", "paymentMethodCode": "PUE", "expeditionZipCode": "42501",
		"issuer": map[string]any{"id": issuer.person}, "recipient": map[string]any{"id": recipient.person},
		"globalInformation": map[string]any{"periodicityCode": "04", "monthCode": "11", "year": 2026},
		"items":             []any{map[string]any{"id": product.ID, "quantity": 4}}})
	upload := func(p csdtest.Pair) (cerID, keyID string) {
		cer := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 0, p.Cer, "", "")))
		key := taxFile(t, f.do("POST", "/api/v4/tax-files", uploadBody(issuer.person, 1, p.Key, p.Password, "")))
		return cer.ID, key.ID
	}
	tax := f.srv.TaxFiles()
	// stamp makes one invoice and checks the certificate that sealed it and the keys opened so far
	stamp := func(wantCert string, wantOpened int64) {
		t.Helper()
		inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", ref, m.headers()...))
		xml, _ := base64.StdEncoding.DecodeString(inv.Responses[0].InvoiceBase64)
		doc, err := cfdi.Parse(xml)
		if err != nil {
			t.Fatal(err)
		}
		if doc.NoCertificado != wantCert {
			t.Fatalf("sealed with certificate %s, want %s", doc.NoCertificado, wantCert)
		}
		if got := tax.KeysOpened(); got != wantOpened {
			t.Fatalf("keys opened = %d, want %d", got, wantOpened)
		}
	}

	a := newPair(t, csdtest.Options{RFC: rfc, Key: keys[0]})
	_, keyA := upload(a)
	stamp(a.Number, 1)
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", ref, m.headers()...))
	verifyAnswer(t, f, inv) // the seal made with the kept key verifies
	if tax.KeysOpened() != 1 {
		t.Fatalf("the second invoice opened the key again (%d opens)", tax.KeysOpened())
	}

	// a newer pair seals the next invoice
	b := newPair(t, csdtest.Options{RFC: rfc, Key: keys[1]})
	_, keyB := upload(b)
	stamp(b.Number, 2)
	stamp(b.Number, 2)

	// its key deleted: back to the first pair
	if r := f.do("DELETE", "/api/v4/tax-files/"+keyB, ""); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	stamp(a.Number, 3)

	// no key left: fails as without files, no stamp used
	if r := f.do("DELETE", "/api/v4/tax-files/"+keyA, ""); r.status != 200 {
		t.Fatalf("delete: %d %s", r.status, r.raw)
	}
	before := stampsOf(t, f, m.person)
	expectFailure(t, f.do("POST", "/api/v4/invoices", ref, m.headers()...), "Issuer.Id", fmt.Sprintf(invoices.MsgIssuerNoFiles, issuer.person))
	if stampsOf(t, f, m.person) != before || tax.KeysOpened() != 3 || tax.KeysKept() != 0 {
		t.Fatalf("a failed invoice used a stamp or kept a key (opened %d, kept %d)", tax.KeysOpened(), tax.KeysKept())
	}

	// concurrent invoices with the pair uploaded again
	upload(b)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if r := f.do("POST", "/api/v4/invoices", ref, m.headers()...); r.status != 200 {
				t.Errorf("concurrent invoice: %d %s", r.status, r.raw)
			}
		})
	}
	wg.Wait()
	// each request that found nothing kept may have opened the key; later ones did not
	if n := tax.KeysOpened(); n < 4 || n > 3+8 || tax.KeysKept() != 1 {
		t.Fatalf("opened %d, kept %d after the concurrent invoices", n, tax.KeysKept())
	}
	stamp(b.Number, tax.KeysOpened())
}

// TestInvoiceByValueKeyCache: a key sent by value (taxCredentials) is opened once for the same
// bytes and password of the same tenant; a wrong password is refused every time and never kept.
func TestInvoiceByValueKeyCache(t *testing.T) {
	f, m := invoiceFixture(t, 10)
	tax := f.srv.TaxFiles()
	before := tax.KeysOpened()
	for i := range 3 {
		inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
		if i == 0 {
			verifyAnswer(t, f, inv)
		}
	}
	if got := tax.KeysOpened() - before; got != 1 {
		t.Fatalf("three invoices with the same key opened it %d times, want 1", got)
	}
	wrong := byValue(t)
	wrong["issuer"].(map[string]any)["taxCredentials"].([]any)[1].(map[string]any)["password"] = "wrong-password"
	for range 2 {
		expectFailure(t, f.do("POST", "/api/v4/invoices", empBody(wrong), m.headers()...),
			"Issuer.TaxCredentials[1].Password", taxfiles.MsgWrongPassword)
	}
	if got := tax.KeysOpened() - before; got != 3 {
		t.Fatalf("a wrong password was kept: %d opens, want 3", got)
	}
	// the right password again: still kept
	invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	if got := tax.KeysOpened() - before; got != 3 {
		t.Fatalf("the kept key was opened again: %d opens", got)
	}
}
