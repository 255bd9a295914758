package compat

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// TestFiscalapiInvoiceLifecycle runs invoices_lifecycle.test.mjs: the official client lists,
// gets, downloads the XML of, asks the status of and cancels invoices the Go side stamped 30
// hours earlier (the server's clock is moved back while stamping): a small one, cancelled at
// once, and one over 1,000 MXN, which waits for the recipient's acceptance. Afterwards the
// stored statuses are checked here.
func TestFiscalapiInvoiceLifecycle(t *testing.T) {
	node := nodeOrSkip(t)
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	s, d, hs := newServer(t, server.Config{Now: now})
	env := invoicesTenant(t, s, t.TempDir())
	if strings.HasPrefix(env[0], "TIMBRA_INV_SKIP=") {
		t.Skip(env[0])
	}
	get := func(name string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, name+"="); ok {
				return v
			}
		}
		return ""
	}
	tenant, owner := get("TIMBRA_INV_TENANT_KEY"), get("TIMBRA_INV_OWNER_ID")
	caller := auth.Caller{TenantID: tenant, PersonID: owner, IsOwner: true}
	offset.Store(int64(-30 * time.Hour))
	stamp := func(unitPrice string) api.Invoice {
		body := `{"versionCode":"4.0","series":"L","currencyCode":"MXN","typeCode":"I","expeditionZipCode":"42501","paymentFormCode":"01",
			"paymentMethodCode":"PUE","exportCode":"01",
			"issuer":{"tin":"EKU9003173C9","legalName":"ESCUELA KEMPER URGATE","taxRegimeCode":"601","taxCredentials":[
				{"base64File":"` + get("TIMBRA_INV_CER") + `","fileType":0,"password":"` + get("TIMBRA_INV_PASSWORD") + `"},
				{"base64File":"` + get("TIMBRA_INV_KEY") + `","fileType":1,"password":"` + get("TIMBRA_INV_PASSWORD") + `"}]},
			"recipient":{"tin":"EKU9003173C9","legalName":"ESCUELA KEMPER URGATE","zipCode":"42501","taxRegimeCode":"601","cfdiUseCode":"G01"},
			"items":[{"itemCode":"01010101","quantity":1,"unitOfMeasurementCode":"H87","description":"Servicio","unitPrice":` + unitPrice + `,
				"taxObjectCode":"02","itemTaxes":[{"taxCode":"002","taxTypeCode":"Tasa","taxRate":"0.160000","taxFlagCode":"T"}]}]}`
		var in api.InvoiceInput
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		inv, err := s.Invoices().Create(context.Background(), caller, in)
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	small, big := stamp("100"), stamp("5000")
	offset.Store(0)

	cmd := exec.Command(node, "--test", "--test-reporter=spec", "invoices_lifecycle.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(append(os.Environ(), "TIMBRA_BASE_URL="+hs.URL, "TIMBRA_LC_SMALL="+small.ID, "TIMBRA_LC_BIG="+big.ID,
		"TIMBRA_LC_SMALL_UUID="+small.UUID, "TIMBRA_LC_BIG_UUID="+big.UUID), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}
	for id, want := range map[string]string{small.ID: "Cancelado", big.ID: "Vigente"} {
		var rec storage.Invoice
		if err := d.Store.View(context.Background(), func(tx storage.Tx) error {
			var err error
			rec, err = tx.Invoices(tenant).Get(id)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if rec.Status != want || rec.Cancellation == nil {
			t.Fatalf("invoice %s: status %s, cancellation %+v; want %s", id, rec.Status, rec.Cancellation, want)
		}
	}
}
