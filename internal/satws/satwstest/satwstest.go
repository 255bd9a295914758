// Package satwstest gives tests SAT's test e.firma (EKU9003173C9, from the shared folder beside
// the repository) as a satws.Credential, and a CSD of the same RFC, which the service refuses.
package satwstest

import (
	"bytes"
	"os"
	"testing"

	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// Files are the paths of SAT's test e.firma: certificate, key, password.
func Files() (cer, key, password string) {
	return testpaths.Shared("sat", "certs", "efirma", "EKU9003173C9.cer"),
		testpaths.Shared("sat", "certs", "efirma", "EKU9003173C9.key"),
		testpaths.Shared("sat", "certs", "efirma", "EKU9003173C9.password.txt")
}

func read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("SAT's test e.firma is not beside the repository (%v)", err)
	}
	return b
}

// EFirma is SAT's test e.firma of EKU9003173C9 (serial 30001000000500003415).
func EFirma(t testing.TB) *satws.Credential {
	t.Helper()
	cer, key, pw := Files()
	c, err := satws.OpenCredential(read(t, cer), read(t, key), bytes.TrimSpace(read(t, pw)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// CSD is the certificate and key of SAT's test CSD of EKU9003173C9 (not an e.firma) and its
// password.
func CSD(t testing.TB) (cer, key, password []byte) {
	t.Helper()
	return read(t, testpaths.Shared("sat", "certs", "EKU9003173C9.cer")), read(t, testpaths.Shared("sat", "certs", "EKU9003173C9.key")),
		bytes.TrimSpace(read(t, testpaths.Shared("sat", "certs", "EKU9003173C9.password.txt")))
}

// Retenciones is a stamped withholding CFDI (Retenciones 2.0) for tests: issued by issuer to a
// national receiver on date (FechaExp, wall clock), operation 1000.00, 100.00 withheld, with
// the Intereses complement. Not sealed: no reader of bulk downloads checks seals.
func Retenciones(uuid, issuer, receiver, date string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<retenciones:Retenciones xmlns:retenciones="http://www.sat.gob.mx/esquemas/retencionpago/2" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" xmlns:intereses="http://www.sat.gob.mx/esquemas/retencionpago/1/intereses" Version="2.0" FolioInt="R-9" NoCertificado="30001000000500003416" Sello="" Certificado="" FechaExp="` + date + `" LugarExpRetenc="42501" CveRetenc="16" DescRetenc="Intereses">
  <retenciones:Emisor RfcE="` + issuer + `" NomDenRazSocE="EMISOR RET" RegimenFiscalE="601"/>
  <retenciones:Receptor NacionalidadR="Nacional"><retenciones:Nacional RfcR="` + receiver + `" NomDenRazSocR="RECEPTOR RET" DomicilioFiscalR="42501"/></retenciones:Receptor>
  <retenciones:Periodo MesIni="01" MesFin="01" Ejercicio="` + date[:4] + `"/>
  <retenciones:Totales MontoTotOperacion="1000.00" MontoTotGrav="1000.00" MontoTotExent="0.00" MontoTotRet="100.00">
    <retenciones:ImpRetenidos BaseRet="1000.00" ImpuestoRet="001" MontoRet="100.00" TipoPagoRet="01"/>
  </retenciones:Totales>
  <retenciones:Complemento>
    <intereses:Intereses Version="1.0" SistFinanciero="SI" RetiroAORESRetInt="NO" OperFinancDerivad="NO" MontIntNominal="1000.00" MontIntReal="1000.00" Perdida="0.00"/>
    <tfd:TimbreFiscalDigital Version="1.1" UUID="` + uuid + `" FechaTimbrado="` + date + `" RfcProvCertif="SAT970701NN3" SelloCFD="" NoCertificadoSAT="00001000000708361114" SelloSAT=""/>
  </retenciones:Complemento>
</retenciones:Retenciones>`)
}
