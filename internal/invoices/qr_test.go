package invoices

import (
	"bytes"
	"image/color"
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

// TestQRPNGSameImage: the PNG written directly is, pixel for pixel, the image of rsc.io/qr's own
// encoder (the one used before): same size, same modules, same quiet zone, for codes of many
// versions; and it stays a 1-bit grayscale PNG.
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
		got, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%d bytes of text: not a PNG: %v", len(text), err)
		}
		want, err := png.Decode(bytes.NewReader(c.PNG()))
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("%d bytes of text: image %v, want %v", len(text), got.Bounds(), want.Bounds())
		}
		if cfg, err := png.DecodeConfig(bytes.NewReader(raw)); err != nil || cfg.ColorModel != color.GrayModel || raw[24] != 1 {
			t.Fatalf("%d bytes of text: want 1-bit grayscale, got bit depth %d (%v)", len(text), raw[24], err)
		}
		r := got.Bounds()
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g, w := color.GrayModel.Convert(got.At(x, y)), color.GrayModel.Convert(want.At(x, y))
				if g != w {
					t.Fatalf("%d bytes of text (version with %d modules): pixel (%d,%d) is %v, want %v", len(text), c.Size, x, y, g, w)
				}
			}
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
