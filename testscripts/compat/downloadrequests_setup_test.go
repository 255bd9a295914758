package compat

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/auth"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/internal/taxfiles"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
)

// satCFDI is a stamped CFDI 4.0 of January 2024 (one item with IVA) as the local SAT answers it.
func satCFDI(uuid, issuer, receiver, date string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Serie="A" Folio="7" Fecha="%s" SubTotal="100.00" Moneda="MXN" Total="116.00" TipoDeComprobante="I" Exportacion="01" LugarExpedicion="42501" NoCertificado="30001000000500003416">
  <cfdi:Emisor Rfc="%s" Nombre="EMISOR" RegimenFiscal="601"/>
  <cfdi:Receptor Rfc="%s" Nombre="RECEPTOR" DomicilioFiscalReceptor="42501" RegimenFiscalReceptor="601" UsoCFDI="G03"/>
  <cfdi:Conceptos>
    <cfdi:Concepto ClaveProdServ="84111506" Cantidad="1" ClaveUnidad="ACT" Descripcion="Servicio" ValorUnitario="100.00" Importe="100.00" ObjetoImp="02">
      <cfdi:Impuestos><cfdi:Traslados><cfdi:Traslado Base="100.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="16.00"/></cfdi:Traslados></cfdi:Impuestos>
    </cfdi:Concepto>
  </cfdi:Conceptos>
  <cfdi:Impuestos TotalImpuestosTrasladados="16.00">
    <cfdi:Traslados><cfdi:Traslado Base="100.00" Impuesto="002" TipoFactor="Tasa" TasaOCuota="0.160000" Importe="16.00"/></cfdi:Traslados>
  </cfdi:Impuestos>
  <cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="%s" FechaTimbrado="%s" RfcProvCertif="SAT970701NN3"/></cfdi:Complemento>
</cfdi:Comprobante>`, date, issuer, receiver, uuid, date)
}

// downloadRequestsServer starts a local SAT with three CFDIs of January 2024 (two issued by
// EKU9003173C9, one received) and a withholding CFDI issued by EKU9003173C9, and a server whose download worker runs against it, with a tenant
// whose owner is EKU9003173C9 with SAT's test e.firma; it returns the server's address and the
// environment of downloadrequests.test.mjs and manifests.test.mjs (with the e.firma's files). It
// skips without SAT's test e.firma.
func downloadRequestsServer(t *testing.T) (string, []string) {
	t.Helper()
	cer, key, pw := satwstest.Files()
	cerB, err1 := os.ReadFile(cer)
	keyB, err2 := os.ReadFile(key)
	pwB, err3 := os.ReadFile(pw)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Skip("SAT's test e.firma is not beside the repository")
	}
	dir := t.TempDir()
	for _, c := range [][4]string{
		{"11111111-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-05T10:00:00"},
		{"22222222-2222-4222-8222-222222222222", "EKU9003173C9", "XAXX010101000", "2024-01-20T23:59:59"},
		{"33333333-3333-4333-8333-333333333333", "AAA010101AAA", "EKU9003173C9", "2024-01-21T00:00:00"},
	} {
		if err := os.WriteFile(filepath.Join(dir, c[0]+".xml"), []byte(satCFDI(c[0], c[1], c[2], c[3])), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ret := "aaaaaaaa-1111-4111-8111-111111111111"
	if err := os.WriteFile(filepath.Join(dir, ret+".xml"), satwstest.Retenciones(ret, "EKU9003173C9", "AAA010101AAA", "2024-01-10T12:00:00"), 0o600); err != nil {
		t.Fatal(err)
	}
	local, err := satlocal.New(satlocal.Options{CFDIs: dir, Delay: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)
	s, _, hs := newServer(t, server.Config{SatDownload: satws.EndpointsAt(sat.URL), SatRetenciones: satws.EndpointsAt(sat.URL + satlocal.RetencionesPath),
		SatDownloadInterval: 50 * time.Millisecond,
		SatDownloadBackoff:  satws.Backoff{Initial: 50 * time.Millisecond, Max: 200 * time.Millisecond, Factor: 2}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.RunDownloads(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	creds, err := s.Accounts().CreateTenant(ctx, api.TenantCreate{OwnerEmail: "downloads-owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	rfc := "EKU9003173C9"
	err = s.Accounts().Store.Update(ctx, func(tx storage.Tx) error {
		o, err := tx.People(creds.TenantKey).Get(creds.PersonID)
		if err != nil {
			return err
		}
		o.Tin = &rfc
		return tx.People(creds.TenantKey).Put(o)
	})
	if err != nil {
		t.Fatal(err)
	}
	owner := auth.Caller{TenantID: creds.TenantKey, PersonID: creds.PersonID, IsOwner: true}
	for _, f := range []struct {
		kind     string
		content  []byte
		password string
	}{{"2", cerB, ""}, {"3", keyB, strings.TrimSpace(string(pwB))}} {
		id, content, password := creds.PersonID, base64.StdEncoding.EncodeToString(f.content), f.password
		if _, err := s.TaxFiles().Upload(ctx, owner, taxfiles.Upload{PersonID: &id, FileType: []byte(f.kind), Base64File: &content, Password: &password}); err != nil {
			t.Fatal(err)
		}
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	return hs.URL, []string{"TIMBRA_BASE_URL=" + hs.URL, "TIMBRA_DL_TENANT_KEY=" + creds.TenantKey, "TIMBRA_DL_API_KEY=" + creds.APIKey,
		"TIMBRA_EFIRMA_CER=" + abs(cer), "TIMBRA_EFIRMA_KEY=" + abs(key), "TIMBRA_EFIRMA_PASSWORD_FILE=" + abs(pw)}
}
