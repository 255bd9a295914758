package compat

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// satFolderCFDI is one CFDI of the local SAT's folder as satws/descargamasiva.test.mjs expects it.
type satFolderCFDI struct {
	UUID        string `json:"uuid"`
	Issuer      string `json:"issuer"`
	Receiver    string `json:"receiver"`
	Date        string `json:"date"`
	OnBehalf    string `json:"onBehalf,omitempty"`
	Cancelled   string `json:"cancelled,omitempty"` // the cancellation's date, YYYY-MM-DD HH:MM:SS
	Retenciones bool   `json:"retenciones,omitempty"`
	// Complements are SAT's codes of its complements (the Complemento filter's values).
	Complements []string `json:"complements"`
	xml         string   // complements written into the CFDI, before the stamp
	concept     string   // written at the end of its concept (after ACuentaTerceros, if any)
}

// TestNodecfdiAgainstLocalSAT: the npm package @nodecfdi/sat-ws-descarga-masiva (an independent
// client of SAT's bulk download service) authenticates with SAT's test e.firma at the local SAT,
// queries issued, received, metadata, by UUID, on behalf of a third party, by complement (SAT's
// codes, as the package names them) and withholding CFDIs, verifies, downloads every package and
// reads it with its own readers: it must read exactly the CFDIs written here. It also reads the local SAT's refusals (a CSD, bad periods, duplicates, a
// cancelled UUID, a third download) as their codes. It needs node and
// `npm ci --prefix testscripts/compat/satws`; it skips without them (fails with
// TIMBRA_REQUIRE_COMPAT=1) and without SAT's test e.firma.
func TestNodecfdiAgainstLocalSAT(t *testing.T) {
	node := nodeModuleOrSkip(t, "satws", "@nodecfdi/sat-ws-descarga-masiva")
	cer, key, pw := satwstest.Files()
	for _, f := range []string{cer, key, pw} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("SAT's test e.firma is not beside the repository (%v)", err)
		}
	}
	satwstest.CSD(t) // skips without the CSD

	const rfc = "EKU9003173C9"
	const packageSize = 2 // CFDIs or metadata lines per package: requests of several packages
	cfdis := []satFolderCFDI{
		{UUID: "11111111-1111-4111-8111-111111111111", Issuer: rfc, Receiver: "AAA010101AAA", Date: "2024-01-05T10:00:00"},
		{UUID: "22222222-2222-4222-8222-222222222222", Issuer: rfc, Receiver: "XAXX010101000", Date: "2024-01-20T23:59:59", OnBehalf: "CACX7605101P8"},
		{UUID: "33333333-3333-4333-8333-333333333333", Issuer: "AAA010101AAA", Receiver: rfc, Date: "2024-01-21T00:00:00"},
		{UUID: "44444444-4444-4444-8444-444444444444", Issuer: rfc, Receiver: "AAA010101AAA", Date: "2024-01-25T08:30:00", Cancelled: "2024-02-01 10:00:00"},
		{UUID: "55555555-5555-4555-8555-555555555555", Issuer: rfc, Receiver: "AAA010101AAA", Date: "2024-01-12T09:00:00", Complements: []string{"donat11", "leyendasfisc"},
			xml: `<donat:Donatarias xmlns:donat="http://www.sat.gob.mx/donat" version="1.1" noAutorizacion="123" fechaAutorizacion="2020-01-01" leyenda="Donativo"/>` +
				`<leyendasFisc:LeyendasFiscales xmlns:leyendasFisc="http://www.sat.gob.mx/leyendasFiscales" version="1.0"><leyendasFisc:Leyenda textoLeyenda="Leyenda"/></leyendasFisc:LeyendasFiscales>`},
		{UUID: "66666666-6666-4666-8666-666666666666", Issuer: rfc, Receiver: "AAA010101AAA", Date: "2024-01-13T09:00:00", Complements: []string{"pagos20", "iedu"},
			xml:     `<pago20:Pagos xmlns:pago20="http://www.sat.gob.mx/Pagos20" Version="2.0"/>`,
			concept: `<cfdi:ComplementoConcepto><iedu:instEducativas xmlns:iedu="http://www.sat.gob.mx/iedu" version="1.0" nombreAlumno="ALUMNO" CURP="XEXX010101HNEXXXA4" nivelEducativo="Primaria" autRVOE="1"/></cfdi:ComplementoConcepto>`},
		{UUID: "AAAAAAAA-1111-4111-8111-111111111111", Issuer: rfc, Receiver: "AAA010101AAA", Date: "2024-01-10T12:00:00", Retenciones: true, Complements: []string{"intereses"}},
		{UUID: "AAAAAAAA-2222-4222-8222-222222222222", Issuer: rfc, Receiver: "AAA010101AAA", Date: "2024-01-11T12:00:00", Retenciones: true, Complements: []string{"intereses", "serviciosplataformastecnologicas10"},
			xml: `<plataformasTecnologicas:ServiciosPlataformasTecnologicas xmlns:plataformasTecnologicas="http://www.sat.gob.mx/esquemas/retencionpago/1/PlataformasTecnologicas10" Version="1.0" Periodicidad="05" NumServ="1" MonTotServSIVA="100.00" TotalIVATrasladado="16.00" TotalIVARetenido="8.00" TotalISRRetenido="1.00" DifIVAEntregadoPrestServ="0.00" MonTotalporUsoPlataforma="0.00"/>`},
	}
	dir := t.TempDir()
	var cancelled []string
	for i, c := range cfdis {
		b := []byte(satCFDI(c.UUID, c.Issuer, c.Receiver, c.Date))
		if c.Retenciones {
			b = satwstest.Retenciones(c.UUID, c.Issuer, c.Receiver, c.Date)
		}
		concept := c.concept
		if c.OnBehalf != "" {
			concept = `<cfdi:ACuentaTerceros RfcACuentaTerceros="` + c.OnBehalf + `" NombreACuentaTerceros="TERCERO" RegimenFiscalACuentaTerceros="601" DomicilioFiscalACuentaTerceros="42501"/>` + concept
		}
		for _, in := range []struct{ at, xml string }{{"</cfdi:Concepto>", concept}, {"<tfd:TimbreFiscalDigital", c.xml}} {
			if in.xml == "" {
				continue
			}
			with := strings.Replace(string(b), in.at, strings.Replace(in.at, "<", in.xml+"<", 1), 1)
			if with == string(b) {
				t.Fatalf("%s: no %q to put %s before", c.UUID, in.at, in.xml)
			}
			b = []byte(with)
		}
		if c.Complements == nil {
			cfdis[i].Complements = []string{}
		}
		if err := os.WriteFile(filepath.Join(dir, c.UUID+".xml"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		if c.Cancelled != "" {
			cancelled = append(cancelled, c.UUID+"~"+c.Cancelled)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, satlocal.CancelledFile), []byte(strings.Join(cancelled, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local, err := satlocal.New(satlocal.Options{CFDIs: dir, Delay: 200 * time.Millisecond, PackageSize: packageSize})
	if err != nil {
		t.Fatal(err)
	}
	if all, ret := local.CFDIs(); all != len(cfdis) || ret != 2 {
		t.Fatalf("the local SAT reads %d CFDIs (%d withholding), want %d (2)", all, ret, len(cfdis))
	}
	sat := httptest.NewServer(local)
	t.Cleanup(sat.Close)

	list, err := json.Marshal(cfdis)
	if err != nil {
		t.Fatal(err)
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "descargamasiva.test.mjs")
	cmd.Dir = "satws"
	cmd.Env = append(os.Environ(), "TZ=America/Mexico_City",
		"SATWS_BASE_URL="+sat.URL, "SATWS_PACKAGE_SIZE="+strconv.Itoa(packageSize), "SATWS_RETENCIONES_PATH="+satlocal.RetencionesPath, "SATWS_CFDIS="+string(list),
		"TIMBRA_EFIRMA_CER="+abs(cer), "TIMBRA_EFIRMA_KEY="+abs(key), "TIMBRA_EFIRMA_PASSWORD_FILE="+abs(pw),
		"TIMBRA_CSD_CER="+abs(testpaths.Shared("sat", "certs", "EKU9003173C9.cer")),
		"TIMBRA_CSD_KEY="+abs(testpaths.Shared("sat", "certs", "EKU9003173C9.key")),
		"TIMBRA_CSD_PASSWORD_FILE="+abs(testpaths.Shared("sat", "certs", "EKU9003173C9.password.txt")))
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("@nodecfdi/sat-ws-descarga-masiva failed against the local SAT: %v", err)
	}
}
