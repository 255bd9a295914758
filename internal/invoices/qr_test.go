package invoices

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const sampleQRURL = "https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=5FB2822E-396D-4725-8521-CDC4BDD20CCF&re=EKU9003173C9&rr=XAXX010101000&tt=1160.0&fe=Zaq8Hw=="

func TestQRPNGIsAPNG(t *testing.T) {
	raw, err := QRPNG(sampleQRURL)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dx() != b.Dy() {
		t.Fatalf("QR image %v: want a square of at least 100 pixels", b)
	}
}

// TestQRPNGDecodesWithZbar reads the code back with an independent decoder (zbarimg, Debian's
// zbar-tools).
func TestQRPNGDecodesWithZbar(t *testing.T) {
	zbar, err := exec.LookPath("zbarimg")
	if err != nil {
		t.Skip("zbarimg (Debian zbar-tools) is not installed: the QR code is not decoded back")
	}
	raw, err := QRPNG(sampleQRURL)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "qr.png")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(zbar, "--quiet", "--raw", f).Output()
	if err != nil {
		t.Fatalf("zbarimg: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != sampleQRURL {
		t.Fatalf("zbarimg read %q, want %q", got, sampleQRURL)
	}
}
