package validations

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/internal/validations/validationstest"
)

// sharedSat is SAT's material beside the repository (../shared/sat); tests that need it skip
// without it.
func sharedSat(t *testing.T) string {
	t.Helper()
	dir := testpaths.Shared("sat")
	if _, err := os.Stat(filepath.Join(dir, "samples", "cfdi40-real.xml")); err != nil {
		t.Skipf("SAT samples not found at %s (../shared/sat beside the repository): %v", dir, err)
	}
	return dir
}

var allTypes = []string{TypeStructure, TypeCertificate, TypeCfdiSello, TypeTfdSello, TypeCfdiStatus, Type69B, Type69BBis}

func check(t *testing.T, p *Production, xml []byte) map[string]Outcome {
	t.Helper()
	out, err := p.Check(context.Background(), Input{XML: xml}, allTypes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results(allTypes, out); err != nil {
		t.Fatalf("outcomes break the contract: %v", err)
	}
	return out
}

func want(t *testing.T, out map[string]Outcome, expect map[string]string) {
	t.Helper()
	for typ, st := range expect {
		if got := out[typ]; got.Status != st {
			t.Errorf("%s: %s (%s), want %s", typ, got.Status, deref(got.Details), st)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestProductionSamples(t *testing.T) {
	sat := sharedSat(t)
	p, err := NewProduction(Config{StampTrustDirs: []string{filepath.Join(sat, "certs")}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	real, err := os.ReadFile(filepath.Join(sat, "samples", "cfdi40-real.xml"))
	if err != nil {
		t.Fatal(err)
	}
	out := check(t, p, real)
	want(t, out, map[string]string{
		TypeStructure: Valido, TypeCertificate: Vigente, TypeCfdiSello: Valido, TypeTfdSello: Valido,
		TypeCfdiStatus: NoDisponible, Type69B: NoDisponible, Type69BBis: NoDisponible,
	})
	if d := deref(out[TypeTfdSello].Details); !strings.Contains(d, "00001000000708361114") {
		t.Errorf("tfd details: %s", d)
	}

	// Without SAT's certificate in the trust store the stamp's certificate is not found.
	bare, _ := NewProduction(Config{}, nil, nil)
	want(t, check(t, bare, real), map[string]string{TypeTfdSello: NoEncontrado, TypeCfdiSello: Valido})

	// The test-vector sample (sealed with EKU9003173C9, stamped with SAT's test certificate
	// 30001000000500003456, also in certs/).
	valid, err := os.ReadFile(filepath.Join(sat, "samples", "cfdi40-valid.xml"))
	if err != nil {
		t.Fatal(err)
	}
	want(t, check(t, p, valid), map[string]string{
		TypeStructure: Valido, TypeCertificate: Vigente, TypeCfdiSello: Valido, TypeTfdSello: Valido,
	})
	// Its stamp removed: §4.7's "unstamped" column.
	i, j := bytes.Index(valid, []byte("<cfdi:Complemento")), bytes.Index(valid, []byte("</cfdi:Complemento>"))
	if i < 0 || j < i {
		t.Fatal("cfdi40-valid.xml has no Complemento")
	}
	unstamped := append(append([]byte{}, valid[:i]...), valid[j+len("</cfdi:Complemento>"):]...)
	want(t, check(t, p, unstamped), map[string]string{
		TypeStructure: Omitido, TypeCertificate: Vigente, TypeCfdiSello: Omitido, TypeTfdSello: Omitido,
		TypeCfdiStatus: Omitido, Type69B: NoDisponible, Type69BBis: NoDisponible,
	})
}

func generate(t testing.TB, opt csdtest.Options, issuedAt time.Time, stamp bool) validationstest.Invoice {
	return validationstest.New(t, opt, issuedAt, stamp)
}

func newDoc(rfc string, at time.Time) *cfdi.Comprobante { return validationstest.NewDoc(rfc, at) }

func xmlOf(t testing.TB, doc *cfdi.Comprobante) []byte {
	t.Helper()
	b, err := doc.XML()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestProductionGenerated(t *testing.T) {
	now := time.Now().Add(-time.Hour)
	g := generate(t, csdtest.Options{RFC: "EKU9003173C9"}, now, true)
	p := &Production{Trust: NewTrustStore([]*csd.Certificate{g.PAC.Cert}, nil), Lists: map[string]*List{}}
	good := xmlOf(t, g.Doc)

	t.Run("valid", func(t *testing.T) {
		want(t, check(t, p, good), map[string]string{
			TypeStructure: Valido, TypeCertificate: Vigente, TypeCfdiSello: Valido, TypeTfdSello: Valido,
			TypeCfdiStatus: NoDisponible, Type69B: NoDisponible, Type69BBis: NoDisponible,
		})
	})
	t.Run("tampered seal", func(t *testing.T) {
		// One character of Sello changed, in the document and in the stamp alike.
		s := g.Doc.Sello
		bad := s[:10] + string("AB"[boolInt(s[10] == 'A')]) + s[11:]
		x := bytes.ReplaceAll(good, []byte(s), []byte(bad))
		want(t, check(t, p, x), map[string]string{TypeCfdiSello: Invalido, TypeTfdSello: Invalido, TypeStructure: Valido})
	})
	t.Run("tampered amount", func(t *testing.T) {
		x := bytes.Replace(good, []byte(`Total="116.00"`), []byte(`Total="1116.00"`), 1)
		want(t, check(t, p, x), map[string]string{TypeCfdiSello: Invalido, TypeTfdSello: Valido, TypeCertificate: Vigente})
	})
	t.Run("tampered stamp", func(t *testing.T) {
		x := bytes.Replace(good, []byte(`UUID="6F1A2B3C`), []byte(`UUID="7F1A2B3C`), 1)
		want(t, check(t, p, x), map[string]string{TypeCfdiSello: Valido, TypeTfdSello: Invalido})
	})
	t.Run("unknown stamping certificate", func(t *testing.T) {
		other := &Production{Trust: NewTrustStore(nil, nil)}
		want(t, check(t, other, good), map[string]string{TypeTfdSello: NoEncontrado})
	})
	t.Run("server's own certificate, made after start", func(t *testing.T) {
		calls := 0
		own := &Production{Trust: NewTrustStore(nil, func(context.Context) ([]*csd.Certificate, error) {
			calls++
			return []*csd.Certificate{g.PAC.Cert}, nil
		})}
		want(t, check(t, own, good), map[string]string{TypeTfdSello: Valido})
		want(t, check(t, own, good), map[string]string{TypeTfdSello: Valido})
		if calls != 1 {
			t.Errorf("the dynamic source was asked %d times", calls)
		}
	})
	t.Run("expired certificate", func(t *testing.T) {
		old := time.Now().AddDate(-6, 0, 0)
		e := generate(t, csdtest.Options{RFC: "EKU9003173C9", NotBefore: old, NotAfter: old.AddDate(1, 0, 0)}, time.Now().Add(-time.Hour), true)
		pe := &Production{Trust: NewTrustStore([]*csd.Certificate{e.PAC.Cert}, nil)}
		want(t, check(t, pe, xmlOf(t, e.Doc)), map[string]string{TypeCertificate: Expirado, TypeCfdiSello: Valido})
	})
	t.Run("certificate not yet valid", func(t *testing.T) {
		e := generate(t, csdtest.Options{RFC: "EKU9003173C9", NotBefore: time.Now().Add(time.Hour)}, time.Now().Add(-time.Hour), true)
		want(t, check(t, p, xmlOf(t, e.Doc)), map[string]string{TypeCertificate: NoVigenteAun})
	})
	t.Run("certificate of another RFC", func(t *testing.T) {
		d := newDoc("AAA010101AAA", now)
		if _, err := cfdi.Seal(d, g.Issuer.Cert, &csd.PrivateKey{RSA: g.Issuer.PrivateKey}); err != nil {
			t.Fatal(err)
		}
		want(t, check(t, p, xmlOf(t, d)), map[string]string{TypeCertificate: Invalido, TypeCfdiSello: Omitido})
	})
	t.Run("unstamped", func(t *testing.T) {
		u := generate(t, csdtest.Options{RFC: "EKU9003173C9"}, now, false)
		want(t, check(t, p, xmlOf(t, u.Doc)), map[string]string{
			TypeStructure: Omitido, TypeCertificate: Vigente, TypeCfdiSello: Omitido, TypeTfdSello: Omitido,
			TypeCfdiStatus: Omitido, Type69B: NoDisponible, Type69BBis: NoDisponible,
		})
	})
	malformed := map[string][]byte{
		"malformed":  good[:len(good)/2],
		"not xml":    []byte("%PDF-1.7"),
		"empty":      {},
		"wrong root": []byte(`<?xml version="1.0"?><cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/3" Version="3.3"/>`),
		"other root": []byte(`<factura/>`),
	}
	for name, x := range malformed {
		t.Run(name, func(t *testing.T) {
			out := check(t, p, x)
			want(t, out, map[string]string{
				TypeStructure: Invalido, TypeCertificate: Omitido, TypeCfdiSello: Omitido, TypeTfdSello: Omitido,
				TypeCfdiStatus: Omitido, Type69B: Omitido, Type69BBis: Omitido,
			})
			if deref(out[TypeStructure].Details) == "<nil>" || strings.HasPrefix(deref(out[TypeStructure].Details), "cfdi:") {
				t.Errorf("details carry the parser error: %s", deref(out[TypeStructure].Details))
			}
		})
	}
	t.Run("structure rules", func(t *testing.T) {
		x := bytes.Replace(good, []byte(`TipoDeComprobante="I"`), []byte(`TipoDeComprobante="X"`), 1)
		x = bytes.Replace(x, []byte(`SubTotal="100.00"`), []byte(`SubTotal="100.0000000"`), 1)
		out := check(t, p, x)
		want(t, out, map[string]string{TypeStructure: Invalido})
		d := deref(out[TypeStructure].Details)
		for _, w := range []string{"TipoDeComprobante", "c_TipoDeComprobante", "SubTotal", "t_Importe"} {
			if !strings.Contains(d, w) {
				t.Errorf("details %q lack %q", d, w)
			}
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestProductionLists(t *testing.T) {
	dir := t.TempDir()
	// SAT's layout: title lines, then the header row; Latin-1 text.
	csv69b := "Listado completo de contribuyentes (Art\xedculo 69-B)\n" +
		"Informaci\xf3n actualizada al 1 de enero\n" +
		"No,RFC,Nombre del Contribuyente,Situaci\xf3n del contribuyente,Fecha\n" +
		"1,EKU9003173C9,ESCUELA KEMPER URGATE,Definitivo,2020\n" +
		"2,AAA010101AAA,OTRA,Desvirtuado,2020\n" +
		"3,BBB010101BB1,OTRA MAS,Sentencia Favorable,2020\n"
	os.WriteFile(filepath.Join(dir, "69b.csv"), []byte(csv69b), 0o600)
	os.WriteFile(filepath.Join(dir, "69bbis.csv"), []byte("rfc\nCCC010101CC1\n"), 0o600)
	p, err := NewProduction(Config{List69B: filepath.Join(dir, "69b.csv"), List69BBis: filepath.Join(dir, "69bbis.csv")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for rfc, w := range map[string][2]string{
		"EKU9003173C9": {Definitivo, NoListado}, "aaa010101aaa": {Desvirtuado, NoListado},
		"BBB010101BB1": {SentenciaFavorable, NoListado}, "CCC010101CC1": {NoListado, Definitivo},
	} {
		out, err := p.Check(context.Background(), Input{TIN: strings.ToUpper(rfc)}, []string{Type69B, Type69BBis})
		if err != nil {
			t.Fatal(err)
		}
		want(t, out, map[string]string{Type69B: w[0], Type69BBis: w[1]})
	}
	// With an XML the issuer's RFC is looked up.
	g := generate(t, csdtest.Options{RFC: "EKU9003173C9"}, time.Now().Add(-time.Hour), true)
	want(t, check(t, p, xmlOf(t, g.Doc)), map[string]string{Type69B: Definitivo, Type69BBis: NoListado})

	for name, bad := range map[string]string{
		"no RFC column":     "nombre,situacion\nX,Definitivo\n",
		"bad RFC":           "RFC\nNOT-AN-RFC\n",
		"unknown situation": "RFC,Situación\nAAA010101AAA,Quizá\n",
	} {
		if _, err := ReadList(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	if _, err := NewProduction(Config{List69B: filepath.Join(dir, "missing.csv")}, nil, nil); err == nil {
		t.Error("a missing list file starts")
	}
}

func TestProductionStatus(t *testing.T) {
	var got []string
	estado := "Vigente"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := new(bytes.Buffer)
		b.ReadFrom(r.Body)
		got = append(got, r.Header.Get("SOAPAction")+" "+b.String())
		if estado == "" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><ConsultaResponse xmlns="http://tempuri.org/"><ConsultaResult xmlns:a="http://schemas.datacontract.org/2004/07/Sat.Cfdi.Negocio.ConsultaCfdi.Servicio" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><a:CodigoEstatus>S - Comprobante obtenido satisfactoriamente.</a:CodigoEstatus><a:EsCancelable>Cancelable sin aceptación</a:EsCancelable><a:Estado>%s</a:Estado></ConsultaResult></ConsultaResponse></s:Body></s:Envelope>`, estado)
	}))
	defer srv.Close()
	g := generate(t, csdtest.Options{RFC: "EKU9003173C9"}, time.Now().Add(-time.Hour), true)
	x := xmlOf(t, g.Doc)
	p, err := NewProduction(Config{StatusURL: srv.URL}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ estado, status string }{
		{"Vigente", Vigente}, {"Cancelado", Cancelado}, {"No Encontrado", NoEncontrado}, {"", NoDisponible}, {"Raro", NoDisponible},
	} {
		estado = c.estado
		want(t, check(t, p, x), map[string]string{TypeCfdiStatus: c.status})
	}
	if len(got) == 0 || !strings.HasPrefix(got[0], consultaAction+" ") ||
		!strings.Contains(got[0], "<tem:expresionImpresa>?id=6F1A2B3C-4D5E-4F60-8A9B-0C1D2E3F4A5B&amp;re=EKU9003173C9&amp;rr=XAXX010101000&amp;tt=116.0&amp;fe=") {
		t.Fatalf("request: %v", got)
	}
	srv.Close()
	want(t, check(t, p, x), map[string]string{TypeCfdiStatus: NoDisponible})
}
