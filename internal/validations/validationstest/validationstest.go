// Package validationstest makes CFDIs for the tests of SAT validations: an income invoice sealed
// by a generated issuer certificate and stamped by a generated stamping certificate, whose
// pieces a test can then tamper with.
package validationstest

import (
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/csd/csdtest"
)

// UUID is the fiscal folio of every stamped invoice made here.
const UUID = "6F1A2B3C-4D5E-4F60-8A9B-0C1D2E3F4A5B"

// PACRFC is the RFC of the generated stamping certificate.
const PACRFC = "SAT970701NN3"

// Invoice is a generated CFDI with its issuer and stamping identities.
type Invoice struct {
	Issuer, PAC csdtest.Pair
	Doc         *cfdi.Comprobante
}

// XML is the document as written.
func (inv Invoice) XML(t testing.TB) []byte {
	t.Helper()
	b, err := inv.Doc.XML()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// NewDoc is an unsealed income invoice of rfc, issued at at: one line of 100.00 with IVA 16%.
func NewDoc(rfc string, at time.Time) *cfdi.Comprobante {
	tr := cfdi.Traslado{Base: "100.00", Impuesto: cfdi.IVA, TipoFactor: cfdi.Tasa, TasaOCuota: "0.160000", Importe: "16.00"}
	return &cfdi.Comprobante{
		Version: "4.0", Serie: "A", Folio: "17", Fecha: at.In(cfdi.Mexico).Format(cfdi.DateLayout), FormaPago: "01",
		SubTotal: "100.00", Moneda: "MXN", Total: "116.00", TipoDeComprobante: "I", Exportacion: "01", MetodoPago: "PUE",
		LugarExpedicion: "20000",
		Emisor:          cfdi.Emisor{Rfc: rfc, Nombre: "CONTRIBUYENTE DE PRUEBAS", RegimenFiscal: "601"},
		Receptor: cfdi.Receptor{Rfc: "XAXX010101000", Nombre: "PUBLICO EN GENERAL", DomicilioFiscalReceptor: "20000",
			RegimenFiscalReceptor: "616", UsoCFDI: "S01"},
		Conceptos: []cfdi.Concepto{{ClaveProdServ: "01010101", Cantidad: "1", ClaveUnidad: "H87", Descripcion: "Producto",
			ValorUnitario: "100.00", Importe: "100.00", ObjetoImp: "02", Traslados: []cfdi.Traslado{tr}}},
		Impuestos: &cfdi.Impuestos{TotalImpuestosTrasladados: "16.00", Traslados: []cfdi.TrasladoTotal{
			{Base: "100.00", Impuesto: cfdi.IVA, TipoFactor: cfdi.Tasa, TasaOCuota: "0.160000", Importe: "16.00"}}},
	}
}

// New makes an issuer (opt; valid from a day before issuedAt unless opt says), a stamping
// identity valid from a day before issuedAt, and the invoice sealed at issuedAt, stamped a minute
// later when stamp is true. Keys come from csdtest.Keys (cached per process).
func New(t testing.TB, opt csdtest.Options, issuedAt time.Time, stamp bool) Invoice {
	t.Helper()
	keys := csdtest.Keys(2, 2048)
	opt.Key = keys[0]
	if opt.NotBefore.IsZero() {
		opt.NotBefore = issuedAt.Add(-24 * time.Hour)
	}
	issuer, err := csdtest.NewPair(opt)
	if err != nil {
		t.Fatal(err)
	}
	pac, err := csdtest.NewPair(csdtest.Options{RFC: PACRFC, Key: keys[1], NotBefore: issuedAt.Add(-24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	doc := NewDoc(issuer.RFC, issuedAt)
	if _, err := cfdi.Seal(doc, issuer.Cert, &csd.PrivateKey{RSA: issuer.PrivateKey}); err != nil {
		t.Fatal(err)
	}
	if stamp {
		if _, err := cfdi.Stamp(doc, pac.Cert, &csd.PrivateKey{RSA: pac.PrivateKey}, UUID, issuedAt.Add(time.Minute), PACRFC); err != nil {
			t.Fatal(err)
		}
	}
	return Invoice{Issuer: issuer, PAC: pac, Doc: doc}
}
