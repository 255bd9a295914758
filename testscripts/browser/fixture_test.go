package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/mail"
	"github.com/timbra-mx/timbra/internal/mail/mailtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// shop is a running timbra server with a tenant whose portal serves customers: the mini SAT
// catalogs, an owner who issues (SAT's test CSD EKU9003173C9, stamps and ticket credits) and
// records tickets, the portal "papeleria" (formerly "papeleria-vieja") with a privacy notice,
// a second tenant whose portal "sin-aviso" has no privacy notice, and a mail server.
type shop struct {
	url    string
	sink   *mailtest.Sink
	tenant api.Credentials
	owner  string
}

const (
	portalName    = "papeleria"
	previousName  = "papeleria-vieja"
	notOffered    = "sin-aviso"
	shopLegalName = "ESCUELA KEMPER URGATE"
	adminToken    = "browser-op-token"
)

func startShop(t *testing.T) *shop {
	t.Helper()
	cerPath := testpaths.Shared("sat", "certs", "EKU9003173C9.cer")
	if _, err := os.Stat(cerPath); err != nil {
		t.Skipf("needs the SAT test certificates beside the repository (%s): %v", cerPath, err)
	}
	d, err := server.OpenData(server.DataOptions{Path: filepath.Join(t.TempDir(), "portal.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	sink := mailtest.Start(t)
	var logs bytes.Buffer
	s, err := server.New(server.Config{Environment: d.Environment, AdminToken: adminToken, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Mail: &mail.SMTP{Host: sink.Host(), Port: sink.Port()}, MailFrom: "facturas@papeleria.example"}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	src, err := source.Open(context.Background(), testpaths.Repo("internal", "catalogs", "testdata", "mini"), source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := s.Catalogs().Import(context.Background(), src, time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-done
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	sh := &shop{url: "http://" + ln.Addr().String(), sink: sink}

	creds, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "duena@papeleria.example", OwnerLegalName: shopLegalName})
	if err != nil {
		t.Fatal(err)
	}
	sh.tenant, sh.owner = creds, creds.PersonID
	// the owner issues: RFC, regime and postal code of SAT's test CSD
	err = d.Store.Update(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(creds.TenantKey).Get(creds.PersonID)
		if err != nil {
			return err
		}
		tin, regime, zip := "EKU9003173C9", "601", "42501"
		p.Tin, p.SatTaxRegimeID, p.ZipCode = &tin, &regime, &zip
		return tx.People(creds.TenantKey).Put(p)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{1, 3} {
		sh.admin(t, "POST", "/admin/v1/tenants/"+creds.TenantKey+"/credits", fmt.Sprintf(`{"personId":%q,"creditType":%d,"amount":50}`, creds.PersonID, c))
	}
	shared := func(name string) []byte {
		b, err := os.ReadFile(testpaths.Shared("sat", "certs", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	password := strings.TrimSpace(string(shared("EKU9003173C9.password.txt")))
	for i, f := range []string{"EKU9003173C9.cer", "EKU9003173C9.key"} {
		body, _ := json.Marshal(map[string]any{"personId": creds.PersonID, "fileType": i, "base64File": base64.StdEncoding.EncodeToString(shared(f)), "password": password})
		sh.api(t, creds, "POST", "/api/v4/tax-files", string(body))
	}
	// the portal: first named papeleria-vieja (31 days ago), now papeleria
	sh.api(t, creds, "PUT", "/api/v4/auto-invoice/portal-name", `{"name":"`+previousName+`"}`)
	err = d.Store.Update(context.Background(), func(tx storage.Tx) error {
		a, err := tx.AutoInvoices().Get(creds.TenantKey)
		if err != nil {
			return err
		}
		back := time.Now().Add(-31 * 24 * time.Hour)
		a.PortalNameAssignedAt = &back
		return tx.AutoInvoices().Put(a)
	})
	if err != nil {
		t.Fatal(err)
	}
	sh.api(t, creds, "PUT", "/api/v4/auto-invoice/portal-name", `{"name":"`+portalName+`"}`)
	sh.api(t, creds, "PUT", "/api/v4/auto-invoice/settings", `{"privacyNoticeUrl":"https://papeleria.example/aviso-de-privacidad"}`)

	// a second shop whose portal does not invoice (no privacy notice)
	other, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "otro@tienda.example", OwnerLegalName: "TIENDA SIN AVISO"})
	if err != nil {
		t.Fatal(err)
	}
	sh.api(t, other, "PUT", "/api/v4/auto-invoice/portal-name", `{"name":"`+notOffered+`"}`)
	return sh
}

// ticket records a ticket of the owner paid at paidAt (two pencils and a service: 39.00).
func (sh *shop) ticket(t *testing.T, number string, paidAt time.Time) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"issuerId": sh.owner, "number": number, "paidAt": paidAt.In(cfdi.Mexico).Format("2006-01-02T15:04:05"),
		"paymentFormCode": "01", "items": []any{
			map[string]any{"itemCode": "44121706", "quantity": 2, "unitOfMeasurementCode": "H87", "description": "Lápiz de madera HB",
				"unitPrice": "12.50", "taxObjectCode": "02",
				"itemTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Tasa", "taxRate": "0.160000", "taxFlagCode": "T"}}},
			map[string]any{"itemCode": "01010101", "quantity": 1, "unitOfMeasurementCode": "ACT", "description": "Servicio exento",
				"unitPrice": 10, "taxObjectCode": "02",
				"itemTaxes": []any{map[string]any{"taxCode": "002", "taxTypeCode": "Exento", "taxFlagCode": "T"}}},
		}})
	sh.api(t, sh.tenant, "POST", "/api/v4/auto-invoice/tickets", string(body))
}

// recent is a payment time the billing window still takes: a few minutes ago, or the start
// of this Mexico City month if that is later.
func recent() time.Time {
	now := time.Now().In(cfdi.Mexico)
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, cfdi.Mexico)
	if t := now.Add(-10 * time.Minute); t.After(start) {
		return t
	}
	return start
}

func (sh *shop) api(t *testing.T, c api.Credentials, method, path, body string) {
	t.Helper()
	sh.call(t, method, path, body, map[string]string{"X-TENANT-KEY": c.TenantKey, "X-API-KEY": c.APIKey})
}

func (sh *shop) admin(t *testing.T, method, path, body string) {
	t.Helper()
	sh.call(t, method, path, body, map[string]string{"Authorization": "Bearer " + adminToken})
}

func (sh *shop) call(t *testing.T, method, path, body string, headers map[string]string) {
	t.Helper()
	req, _ := http.NewRequest(method, sh.url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatal(errors.New(method + " " + path + ": " + resp.Status + " " + string(raw)))
	}
}
