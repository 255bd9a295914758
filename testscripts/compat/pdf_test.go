package compat

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/server"
)

// TestFiscalapiPDF runs the official client's invoices.getPdf against a server, then reads the
// PDF it saved: it begins with %PDF- and, when pdftotext is installed, its text names the
// invoice's UUID, the amount in words and the stamp.
func TestFiscalapiPDF(t *testing.T) {
	node := nodeOrSkip(t)
	s, _, hs := newServer(t, server.Config{})
	env := invoicesTenant(t, s, t.TempDir())
	if strings.HasPrefix(env[0], "TIMBRA_INV_SKIP=") {
		t.Skip(env[0])
	}
	pdfPath := filepath.Join(t.TempDir(), "invoice.pdf")
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "invoices_pdf.test.mjs")
	cmd.Dir = "fiscalapi"
	cmd.Env = append(append(os.Environ(), "TIMBRA_BASE_URL="+hs.URL, "TIMBRA_PDF_OUT="+pdfPath), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("the fiscalapi client failed against timbra: %v", err)
	}
	pdf, err := os.ReadFile(pdfPath)
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("the client saved no PDF: %v", err)
	}
	uuid := regexp.MustCompile(`uuid ([0-9A-F-]{36})`).FindSubmatch(out)
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Log("pdftotext (Debian poppler-utils) is not installed: the PDF's text was not read")
		return
	}
	text, err := exec.Command(bin, pdfPath, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	// 2 × 500 + 16 % IVA = 1160.00
	for _, want := range []string{"MIL CIENTO SESENTA PESOS 00/100 M.N.", "ESCUELA KEMPER URGATE", "PUBLICO EN GENERAL", "Timbre fiscal digital"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the PDF's text lacks %q", want)
		}
	}
	if uuid == nil || !strings.Contains(string(text), string(uuid[1])) {
		t.Errorf("the PDF's text lacks the invoice's UUID (%q)", uuid)
	}
}
