package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/cfdi"
	"github.com/timbra-mx/timbra/internal/invoices"
)

var updatePDF = flag.Bool("update-pdf", false, "rewrite testdata/invoice_pdf.golden.txt")

func pdfLogo(t *testing.T) string {
	img := image.NewNRGBA(image.Rect(0, 0, 30, 30))
	for i := 0; i < 30*30; i++ {
		img.Set(i%30, i/30, color.NRGBA{uint8(i % 255), 90, 160, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// normalizePDFText makes the text layer of a freshly stamped invoice comparable: the lines of
// the seals and of the stamp's cadena become one «sello» line each, and the UUID, dates and the
// SAT certificate number placeholders (both dates "<fecha>": they may fall in the same second); whitespace is collapsed.
func normalizePDFText(text string, doc *cfdi.Comprobante) string {
	tfd := doc.TFD()
	long := []string{doc.Sello, tfd.SelloSAT, tfd.Cadena()}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		isSeal := false
		for _, s := range long {
			if len(l) >= 8 && l != tfd.UUID && strings.Contains(s, l) {
				isSeal = true
			}
		}
		if isSeal {
			if len(out) > 0 && out[len(out)-1] == "«sello»" {
				continue
			}
			l = "«sello»"
		}
		out = append(out, l)
	}
	s := strings.Join(out, "\n")
	return strings.NewReplacer(tfd.UUID, "<UUID>", tfd.FechaTimbrado, "<fecha>", doc.Fecha, "<fecha>",
		tfd.NoCertificadoSAT, "<NoCertificadoSAT>").Replace(s)
}

// TestInvoicePDF stamps an invoice with the fixtures and asks for its PDF as the official client
// does: the file answer holds a PDF whose text layer (pdftotext) matches the golden file.
func TestInvoicePDF(t *testing.T) {
	f, m := invoiceFixture(t, 2)
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))
	doc := verifyAnswer(t, f, inv)

	body, _ := json.Marshal(map[string]any{"invoiceId": inv.ID, "bandColor": "#8B0000", "fontColor": "#FFFFFF", "base64Logo": pdfLogo(t)})
	r := f.do("POST", "/api/v4/invoices/pdf", string(body), m.headers()...)
	var file api.InvoiceFile
	if r.status != 200 || !r.env.Succeeded || json.Unmarshal(r.env.Data, &file) != nil {
		t.Fatalf("pdf: %d %s", r.status, r.raw)
	}
	pdf, err := base64.StdEncoding.DecodeString(file.Base64Content)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) || file.Base64File != file.Base64Content ||
		file.FileName != doc.TFD().UUID+".pdf" || file.ContentType != "application/pdf" || file.FileExtension != "pdf" {
		t.Fatalf("file answer %s… %q %q %v", file.Base64Content[:min(20, len(file.Base64Content))], file.FileName, file.ContentType, err)
	}
	// By UUID too, and the same bytes (the document is deterministic).
	body, _ = json.Marshal(map[string]any{"invoiceId": strings.ToLower(doc.TFD().UUID), "bandColor": "8b0000", "base64Logo": pdfLogo(t)})
	var again api.InvoiceFile
	if r := f.do("POST", "/api/v4/invoices/pdf", string(body), m.headers()...); r.status != 200 || json.Unmarshal(r.env.Data, &again) != nil ||
		again.Base64Content != file.Base64Content {
		t.Fatalf("by UUID: %d, same PDF %v", r.status, again.Base64Content == file.Base64Content)
	}

	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Skip("pdftotext (Debian poppler-utils) is not installed: the text layer was not checked")
	}
	in := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := exec.Command(bin, in, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{doc.TFD().UUID, "ESCUELA KEMPER URGATE", "DOSCIENTOS OCHENTA Y OCHO PESOS 18/100 M.N.", "$288.18",
		"[LAP-HB] Lápiz de madera HB", "Retención ISR", "IVA Exento", doc.TFD().NoCertificadoSAT, doc.TFD().FechaTimbrado} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("the PDF text lacks %q", s)
		}
	}
	text := normalizePDFText(string(raw), doc)
	golden := filepath.Join("testdata", "invoice_pdf.golden.txt")
	if *updatePDF {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Fatalf("the text layer differs from %s (go test ./server -run TestInvoicePDF -update-pdf after checking):\n%s", golden, text)
	}
}

func TestInvoicePDFFailures(t *testing.T) {
	f, m := invoiceFixture(t, 1)
	inv := invoiceOf(t, f.do("POST", "/api/v4/invoices", empBody(byValue(t)), m.headers()...))

	r := f.do("POST", "/api/v4/invoices/pdf", `{"invoiceId":"`+inv.ID+`","bandColor":"rojo","fontColor":"#GGGGGG","base64Logo":"bm8gZXMgdW5hIGltYWdlbg=="}`, m.headers()...)
	var fs []api.Failure
	if r.status != 400 || json.Unmarshal(r.env.Data, &fs) != nil || len(fs) != 3 ||
		fs[0].PropertyName != "BandColor" || fs[0].ErrorMessage != "El color 'rojo' no es válido: usa un color hexadecimal como #1F4E79 o #FFF." ||
		fs[1].PropertyName != "FontColor" || fs[2].PropertyName != "Base64Logo" || fs[2].ErrorMessage != invoices.MsgPDFLogo ||
		fs[2].ErrorCode == nil || *fs[2].ErrorCode != "InvalidFormat" {
		t.Fatalf("bad look: %d %s", r.status, r.raw)
	}
	if strings.Contains(r.raw, "bm8gZXMgdW5hIGltYWdlbg") {
		t.Fatalf("the logo is echoed: %s", r.raw)
	}
	if r := f.do("POST", "/api/v4/invoices/pdf", `{}`, m.headers()...); r.status != 400 || !strings.Contains(r.raw, "InvoiceId") {
		t.Fatalf("no id: %d %s", r.status, r.raw)
	}
	if r := f.do("POST", "/api/v4/invoices/pdf", `{"invoiceId":"nope"}`, m.headers()...); r.status != 404 || !strings.Contains(r.raw, "La factura 'nope' no existe.") {
		t.Fatalf("unknown id: %d %s", r.status, r.raw)
	}
	if r := f.do("POST", "/api/v4/invoices/pdf", `{"invoiceId":`, m.headers()...); r.status != 400 {
		t.Fatalf("bad JSON: %d %s", r.status, r.raw)
	}
	if r := f.do("POST", "/api/v4/invoices/pdf", `{"invoiceId":"`+inv.ID+`"}`, "X-API-KEY", ""); r.status != 401 {
		t.Fatalf("no key: %d %s", r.status, r.raw)
	}
}
