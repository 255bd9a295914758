package invoices

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/cfdi"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sampleXML is a stamped-looking CFDI (fixed seals, UUID and dates: RenderPDF reads, it does not
// verify) with n items, a payment and local taxes, so that every block of the PDF shows.
func sampleXML(t testing.TB, n int) []byte {
	t.Helper()
	d := &cfdi.Comprobante{
		Version: "4.0", Serie: "F", Folio: "1001", Fecha: "2026-03-14T10:20:30", FormaPago: "03",
		NoCertificado: "30001000000500003416", Certificado: "TUlJQ0VSVA==", CondicionesDePago: "Contado",
		SubTotal: "1000.00", Moneda: "MXN", Total: "1160.00", TipoDeComprobante: "I", Exportacion: "01",
		MetodoPago: "PUE", LugarExpedicion: "42501",
		Sello:    strings.Repeat("AbCdEfGh0123+/", 24) + "rH8/bw==",
		Emisor:   cfdi.Emisor{Rfc: "EKU9003173C9", Nombre: "ESCUELA KEMPER URGATE", RegimenFiscal: "601"},
		Receptor: cfdi.Receptor{Rfc: "CACX7605101P8", Nombre: "XOCHILT CASAS CHAVEZ", DomicilioFiscalReceptor: "36257", RegimenFiscalReceptor: "612", UsoCFDI: "G03"},
		Impuestos: &cfdi.Impuestos{TotalImpuestosTrasladados: "160.00",
			Traslados: []cfdi.TrasladoTotal{{Base: "1000.00", Impuesto: "002", TipoFactor: "Tasa", TasaOCuota: "0.160000", Importe: "160.00"}}},
	}
	for i := 0; i < n; i++ {
		d.Conceptos = append(d.Conceptos, cfdi.Concepto{ClaveProdServ: "44121706", NoIdentificacion: fmt.Sprintf("SKU-%03d", i+1),
			Cantidad: "1", ClaveUnidad: "H87", Unidad: "Pieza",
			Descripcion:   fmt.Sprintf("Artículo número %d: lápiz de madera con goma, caja con doce piezas y sacapuntas de acero inoxidable", i+1),
			ValorUnitario: "20.00", Importe: "20.00", ObjetoImp: "02",
			Traslados: []cfdi.Traslado{{Base: "20.00", Impuesto: "002", TipoFactor: "Tasa", TasaOCuota: "0.160000", Importe: "3.20"}}})
	}
	d.Complemento = append(d.Complemento, &cfdi.ImpuestosLocales{Version: "1.0", TotaldeRetenciones: "0.00", TotaldeTraslados: "0.00",
		Traslados: []cfdi.ImpuestoLocal{{Nombre: "ISH", Tasa: "3.00", Importe: "0.00"}}})
	d.Complemento = append(d.Complemento, &cfdi.TimbreFiscalDigital{Version: "1.1", UUID: "5A6B7C8D-1234-4ABC-9DEF-0123456789AB",
		FechaTimbrado: "2026-03-14T10:21:00", RfcProvCertif: RfcProvCertif, SelloCFD: d.Sello, NoCertificadoSAT: "00001000000700000001",
		SelloSAT: strings.Repeat("ZyXwVuTs9876=/", 24) + "Qq=="})
	x, err := d.XML()
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func defaultOptions(t testing.TB) PDFOptions {
	opt, err := ParsePDFOptions(PDFRequest{InvoiceID: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return opt
}

func TestRenderPDFDeterministic(t *testing.T) {
	x := sampleXML(t, 3)
	a, err := RenderPDF(x, defaultOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RenderPDF(x, defaultOptions(t))
	if !bytes.HasPrefix(a, []byte("%PDF-")) || !bytes.Equal(a, b) {
		t.Fatalf("want the same PDF twice (%d and %d bytes, starts %q)", len(a), len(b), a[:8])
	}
	if _, err := RenderPDF([]byte("<x/>"), defaultOptions(t)); err == nil {
		t.Fatal("a non-CFDI rendered")
	}
}

// pdfText is pdftotext's text layer of a PDF (-layout keeps columns on their lines).
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (Debian poppler-utils) is not installed: the text layer was not checked")
	}
	in := filepath.Join(t.TempDir(), "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", in, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// TestPDFGolden compares the text layer of a 50-item invoice (three pages) with the golden file
// (go test ./internal/invoices -run TestPDFGolden -update rewrites it).
func TestPDFGolden(t *testing.T) {
	pdf, err := RenderPDF(sampleXML(t, 50), defaultOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, pdf)
	golden := filepath.Join("testdata", "invoice50.pdf.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Fatalf("the text layer differs from %s (rerun with -update after checking):\n%s", golden, text)
	}
	for _, s := range []string{"ESCUELA KEMPER URGATE", "XOCHILT CASAS CHAVEZ", "MIL CIENTO SESENTA PESOS 00/100 M.N.",
		"SKU-050", "Traslado IVA Tasa 16%", "$1,160.00", "5A6B7C8D-1234-4ABC-9DEF-0123456789AB", "Sello digital del SAT",
		"Cadena original del complemento de certificación digital del SAT", "Complemento de impuestos locales", "ISH",
		"Página 1 de ", "30001000000500003416", "00001000000700000001", "Lugar de expedición: 42501"} {
		if !strings.Contains(text, s) {
			t.Errorf("the text layer lacks %q", s)
		}
	}
	if pages := strings.Count(text, "\f"); pages < 2 {
		t.Errorf("50 items on %d page(s): want the table continued on more pages", pages)
	}
}

// TestPDFRendersPNG draws page 1 with pdftoppm and checks that the band colour and dark text are
// there (the page is not blank); the PNG is kept in testdata/ for a look with -update.
func TestPDFRendersPNG(t *testing.T) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm (Debian poppler-utils) is not installed: the page was not rendered")
	}
	opt := defaultOptions(t)
	opt.Band = [3]int{200, 30, 40}
	opt.Logo, opt.LogoType = testLogo(t), "PNG"
	pdf, err := RenderPDF(sampleXML(t, 5), opt)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile", in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		_ = os.WriteFile(filepath.Join("testdata", "invoice-page1.png"), raw, 0o644)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	band, dark, white := 0, 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case r > 190 && r < 210 && g < 45 && bl < 55:
				band++
			case r < 80 && g < 80 && bl < 80:
				dark++
			case r > 250 && g > 250 && bl > 250:
				white++
			}
		}
	}
	total := b.Dx() * b.Dy()
	if band < total/50 || dark < total/500 || white < total/2 {
		t.Fatalf("page 1 of %dx%d: %d band-coloured, %d dark, %d white pixels", b.Dx(), b.Dy(), band, dark, white)
	}
}

// testLogo is a small two-colour PNG.
func testLogo(t testing.TB) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 40, 20))
	for y := 0; y < 20; y++ {
		for x := 0; x < 40; x++ {
			c := color.NRGBA{20, 120, 60, 255}
			if x > 20 {
				c = color.NRGBA{240, 200, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParsePDFOptions(t *testing.T) {
	logo := base64.StdEncoding.EncodeToString(testLogo(t))
	opt, err := ParsePDFOptions(PDFRequest{InvoiceID: "a", BandColor: "#0a0B0c", FontColor: "fff", Base64Logo: "data:image/png;base64," + logo})
	if err != nil || opt.Band != [3]int{10, 11, 12} || opt.Font != [3]int{255, 255, 255} || opt.LogoType != "PNG" || len(opt.Logo) == 0 {
		t.Fatalf("%+v %v", opt, err)
	}
	if _, err := RenderPDF(sampleXML(t, 1), opt); err != nil {
		t.Fatalf("with a logo: %v", err)
	}
	_, err = ParsePDFOptions(PDFRequest{BandColor: "azul", FontColor: "#12345", Base64Logo: "bm90IGFuIGltYWdl"})
	e, ok := apierr.As(err)
	if !ok || e.Status != 400 || len(e.Failures) != 4 {
		t.Fatalf("want one 400 with 4 failures, got %+v", err)
	}
	props := ""
	for _, f := range e.Failures {
		props += f.PropertyName + " "
		if f.ErrorCode == nil || f.ErrorMessage == "" {
			t.Errorf("failure %+v", f)
		}
	}
	if props != "InvoiceId BandColor FontColor Base64Logo " || e.Failures[1].ErrorMessage != fmt.Sprintf(MsgPDFColor, "azul") ||
		e.Failures[3].ErrorMessage != MsgPDFLogo {
		t.Fatalf("failures %+v", e.Failures)
	}
	if _, err := ParsePDFOptions(PDFRequest{InvoiceID: "a", Base64Logo: "%%%"}); err == nil {
		t.Fatal("bad base64 accepted")
	}
}

// TestPDFComplements: a payment and a payroll complement each get their summary block.
func TestPDFComplements(t *testing.T) {
	doc, err := cfdi.Parse(sampleXML(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	pagos := &cfdi.Pagos{Version: "2.0", Totales: cfdi.PagosTotales{MontoTotalPagos: "1160.00", TotalTrasladosBaseIVA16: "1000.00", TotalTrasladosImpuestoIVA16: "160.00"},
		Pagos: []cfdi.Pago{{FechaPago: "2026-03-10T12:00:00", FormaDePagoP: "03", MonedaP: "MXN", TipoCambioP: "1", Monto: "1160.00", NumOperacion: "OP-77",
			DoctoRelacionado: []cfdi.DoctoRelacionado{{IdDocumento: "11111111-2222-4333-8444-555555555555", Serie: "F", Folio: "9", MonedaDR: "MXN",
				EquivalenciaDR: "1", NumParcialidad: "2", ImpSaldoAnt: "2320.00", ImpPagado: "1160.00", ImpSaldoInsoluto: "1160.00", ObjetoImpDR: "01"}}}}}
	nomina := &cfdi.Nomina{Version: "1.2", TipoNomina: "O", FechaPago: "2026-03-15", FechaInicialPago: "2026-03-01", FechaFinalPago: "2026-03-15",
		NumDiasPagados: "15", TotalPercepciones: "7500.00", TotalDeducciones: "850.00",
		Emisor:       &cfdi.NominaEmisor{RegistroPatronal: "B5510768108"},
		Receptor:     cfdi.NominaReceptor{Curp: "XEXX010101HNEXXXA4", NumEmpleado: "E-042", Puesto: "Docente", PeriodicidadPago: "04", ClaveEntFed: "HID", TipoContrato: "01", TipoRegimen: "02"},
		Percepciones: &cfdi.Percepciones{TotalSueldos: "7500.00", TotalGravado: "7500.00", TotalExento: "0.00", Percepcion: []cfdi.Percepcion{{TipoPercepcion: "001", Clave: "P001", Concepto: "Sueldo quincenal", ImporteGravado: "7500.00", ImporteExento: "0.00"}}},
		Deducciones:  &cfdi.Deducciones{TotalImpuestosRetenidos: "850.00", Deduccion: []cfdi.Deduccion{{TipoDeduccion: "002", Clave: "D002", Concepto: "ISR retenido", Importe: "850.00"}}}}
	tfd := doc.Complemento[len(doc.Complemento)-1]
	doc.Complemento = []cfdi.Complement{pagos, nomina, tfd}
	x, err := doc.XML()
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := RenderPDF(x, defaultOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, pdf)
	for _, s := range []string{"Complemento para recepción de pagos 2.0", "Monto total de pagos: $1,160.00", "11111111-2222-4333-8444-555555555555",
		"$2,320.00", "OP-77", "Complemento de nómina 1.2", "XEXX010101HNEXXXA4", "Sueldo quincenal", "ISR retenido", "$850.00",
		"Total de percepciones: $7,500.00", "B5510768108"} {
		if !strings.Contains(text, s) {
			t.Errorf("the text layer lacks %q", s)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}
