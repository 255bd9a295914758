package cfdi_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/internal/testpaths"
)

// TestReadRetenciones: a stamped Retenciones 2.0 gives its root, issuer, national receiver,
// period, totals, complements and stamp; a foreign receiver its tax number; a CFDI 4.0 is
// ErrNotRetenciones (and IsRetenciones false), an unstamped or broken document an error.
func TestReadRetenciones(t *testing.T) {
	doc := satwstest.Retenciones("aaaaaaaa-1111-4111-8111-111111111111", "eku9003173c9", "AAA010101AAA", "2024-01-10T12:00:00")
	if !cfdi.IsRetenciones(bytes.NewReader(doc)) {
		t.Fatal("IsRetenciones: false for a Retenciones 2.0")
	}
	r, err := cfdi.ReadRetenciones(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := cfdi.Retenciones{Version: "2.0", FolioInt: "R-9", FechaExp: "2024-01-10T12:00:00", LugarExpRetenc: "42501", CveRetenc: "16",
		DescRetenc: "Intereses", NoCertificado: "30001000000500003416", RfcE: "EKU9003173C9", NomDenRazSocE: "EMISOR RET", RegimenFiscalE: "601",
		NacionalidadR: "Nacional", RfcR: "AAA010101AAA", NomDenRazSocR: "RECEPTOR RET", DomicilioFiscalR: "42501",
		MesIni: "01", MesFin: "01", Ejercicio: "2024", MontoTotOperacion: "1000.00", MontoTotGrav: "1000.00", MontoTotExent: "0.00", MontoTotRet: "100.00",
		UUID: "AAAAAAAA-1111-4111-8111-111111111111", FechaTimbrado: "2024-01-10T12:00:00", RfcProvCertif: "SAT970701NN3"}
	if len(r.Complements) != 1 || r.Complements[0] != (xml.Name{Space: "http://www.sat.gob.mx/esquemas/retencionpago/1/intereses", Local: "Intereses"}) {
		t.Errorf("complements: %v", r.Complements)
	}
	r.Complements = nil
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got  %+v\nwant %+v", r, want)
	}

	foreign := strings.Replace(string(doc), `NacionalidadR="Nacional"><retenciones:Nacional RfcR="AAA010101AAA" NomDenRazSocR="RECEPTOR RET" DomicilioFiscalR="42501"/>`,
		`NacionalidadR="Extranjero"><retenciones:Extranjero NumRegIdTribR="123456789" NomDenRazSocR="FOREIGN LLC"/>`, 1)
	f, err := cfdi.ReadRetenciones(strings.NewReader(foreign))
	if err != nil || f.NacionalidadR != "Extranjero" || f.NumRegIdTribR != "123456789" || f.NomDenRazSocR != "FOREIGN LLC" || f.RfcR != "" {
		t.Errorf("foreign receiver: %+v %v", f, err)
	}

	sample, err := os.ReadFile(testpaths.Shared("sat", "samples", "cfdi40-real.xml"))
	if err != nil {
		t.Skip("SAT's samples are not beside the repository")
	}
	if cfdi.IsRetenciones(bytes.NewReader(sample)) {
		t.Error("IsRetenciones: true for a CFDI 4.0")
	}
	if _, err := cfdi.ReadRetenciones(bytes.NewReader(sample)); !errors.Is(err, cfdi.ErrNotRetenciones) {
		t.Errorf("a CFDI 4.0: %v", err)
	}
	unstamped := strings.Replace(string(doc), `UUID="aaaaaaaa-1111-4111-8111-111111111111"`, ``, 1)
	if _, err := cfdi.ReadRetenciones(strings.NewReader(unstamped)); err == nil || errors.Is(err, cfdi.ErrNotRetenciones) {
		t.Errorf("unstamped: %v", err)
	}
	if _, err := cfdi.ReadRetenciones(strings.NewReader(string(doc[:len(doc)-40]))); err == nil {
		t.Error("a cut document was read")
	}
	if _, err := cfdi.ReadRetenciones(strings.NewReader("")); err == nil || errors.Is(err, cfdi.ErrNotRetenciones) {
		t.Errorf("empty: %v", err)
	}
	// the namespace decides, not the prefix
	other := strings.ReplaceAll(string(doc), "retencionpago/2\"", "retencionpago/1\"")
	if _, err := cfdi.ReadRetenciones(strings.NewReader(other)); !errors.Is(err, cfdi.ErrNotRetenciones) {
		t.Errorf("version 1 namespace: %v", err)
	}
}

// FuzzReadRetenciones: ReadRetenciones never panics; what it accepts has a root of
// retenciones:Retenciones (IsRetenciones agrees) and a UUID in upper case.
func FuzzReadRetenciones(f *testing.F) {
	f.Add(satwstest.Retenciones("aaaaaaaa-1111-4111-8111-111111111111", "EKU9003173C9", "AAA010101AAA", "2024-01-10T12:00:00"))
	f.Add([]byte(`<r:Retenciones xmlns:r="http://www.sat.gob.mx/esquemas/retencionpago/2"><r:Complemento><t:TimbreFiscalDigital xmlns:t="http://www.sat.gob.mx/TimbreFiscalDigital" UUID="x"/></r:Complemento></r:Retenciones>`))
	f.Add([]byte(`<a/>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := cfdi.ReadRetenciones(bytes.NewReader(b))
		if err != nil {
			return
		}
		if !cfdi.IsRetenciones(bytes.NewReader(b)) || r.UUID == "" || r.UUID != strings.ToUpper(r.UUID) {
			t.Fatalf("accepted %q as %+v", b, r)
		}
	})
}
