package invoices

import (
	"bytes"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rsc.io/qr"
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

// TestQRPNGSameImage: the PNG is, byte for byte, what rsc.io/qr's Encode and PNG make (the code
// before the plans were kept), for codes of many versions; a text too long is an error as there.
func TestQRPNGSameImage(t *testing.T) {
	texts := []string{"1", "HELLO", sampleQRURL, strings.Repeat("0123456789", 40), strings.Repeat("ñ?&=", 150)}
	rnd := rand.New(rand.NewPCG(21, 7))
	for n := 1; n < 1200; n += 1 + n/3 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rnd.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		c, err := qr.Encode(text, qr.M)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := QRPNG(text)
		if err != nil {
			t.Fatal(err)
		}
		// the same file rsc.io/qr makes, with the plans made once: each version's plan is drawn
		// again from the cache here (the texts pass every size more than once)
		if !bytes.Equal(raw, c.PNG()) {
			t.Fatalf("%d bytes of text (%d modules): not the PNG rsc.io/qr makes", len(text), c.Size)
		}
		if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
			t.Fatalf("%d bytes of text: not a PNG: %v", len(text), err)
		}
	}
	long := strings.Repeat("x", 3000) // more than version 40 carries at level M
	if _, err := qr.Encode(long, qr.M); err == nil {
		t.Fatal("rsc.io/qr encoded 3,000 bytes at level M")
	}
	if _, err := QRPNG(long); err == nil {
		t.Fatal("QRPNG drew 3,000 bytes: want an error, as rsc.io/qr gives")
	}
}
