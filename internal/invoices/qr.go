package invoices

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"
	"sync/atomic"

	"rsc.io/qr/coding"
)

// QRPNG draws text (SAT's verification URL, cfdi.QRURL) as a QR code in PNG, with error
// correction level M, as printed invoices carry it: the code of rsc.io/qr's Encode (the smallest
// of numeric, alphanumeric or byte mode, the smallest version, mask 0), 8 pixels per module, a
// quiet zone of 4 modules, 1-bit grayscale.
func QRPNG(text string) ([]byte, error) {
	var enc coding.Encoding = coding.String(text)
	if coding.Num(text).Check() == nil {
		enc = coding.Num(text)
	} else if coding.Alpha(text).Check() == nil {
		enc = coding.Alpha(text)
	}
	v := coding.Version(coding.MinVersion)
	for enc.Bits(v) > v.DataBytes(coding.M)*8 {
		if v++; v > coding.MaxVersion {
			return nil, errors.New("text too long to encode as QR")
		}
	}
	p, err := qrPlan(v)
	if err != nil {
		return nil, err
	}
	c, err := p.Encode(enc)
	if err != nil {
		return nil, err
	}
	return qrPNG(c), nil
}

// qrPlans are the plans (module layout, level M, mask 0) of the versions drawn so far: building
// one is most of a code's work, and a plan is only read when it encodes.
var qrPlans [coding.MaxVersion + 1]atomic.Pointer[coding.Plan]

func qrPlan(v coding.Version) (*coding.Plan, error) {
	if p := qrPlans[v].Load(); p != nil {
		return p, nil
	}
	p, err := coding.NewPlan(v, coding.M, 0)
	if err != nil {
		return nil, err
	}
	qrPlans[v].Store(p)
	return p, nil
}

// Geometry of the QR code's image. With 8 pixels per module, one module is one byte of a 1-bit
// scanline: 0x00 black, 0xFF white.
const (
	qrModulePixels = 8
	qrQuietModules = 4
)

// qrPNG writes the PNG of a code directly: every scanline of a module row is the same, so the
// image data is one deflate block with fixed Huffman codes where each module row is its first
// scanline (runs of a byte as copies at distance 1) and one copy of it for the other 7.
func qrPNG(c *coding.Code) []byte {
	size := c.Size
	side := (size + 2*qrQuietModules) * qrModulePixels
	stride := 1 + side/8 // the filter byte (0, none), then one byte per module
	out := make([]byte, 0, 64+size*(stride+8))
	out = append(out, "\x89PNG\r\n\x1a\n"...)

	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(side))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(side))
	ihdr[8] = 1 // bit depth; color type 0 (gray), deflate, filter 0, no interlace
	out = pngChunk(out, "IHDR", ihdr[:])

	start := len(out)
	out = append(out, 0, 0, 0, 0, 'I', 'D', 'A', 'T')
	z := deflater{out: append(out, 0x78, 0x01)} // zlib: deflate, 32 KiB window, no dictionary
	z.bits(1, 1)                                // the last block
	z.bits(1, 2)                                // fixed Huffman codes
	sum := adler{a: 1}
	line := make([]byte, stride)
	row := func(y, scanlines int) {
		line[0] = 0
		for x := range side / 8 {
			m := x - qrQuietModules
			line[1+x] = 0xFF
			if y >= 0 && y < size && m >= 0 && m < size && c.Bitmap[y*c.Stride+m/8]&(0x80>>(m&7)) != 0 {
				line[1+x] = 0
			}
		}
		for i := 0; i < len(line); {
			z.literal(line[i])
			n := 1
			for i+n < len(line) && line[i+n] == line[i] {
				n++
			}
			if n-1 >= 3 {
				z.copy(n-1, 1)
			} else {
				for range n - 1 {
					z.literal(line[i])
				}
			}
			i += n
		}
		z.copy((scanlines-1)*stride, stride)
		sum.repeat(line, scanlines)
	}
	row(-1, qrQuietModules*qrModulePixels)
	for y := range size {
		row(y, qrModulePixels)
	}
	row(size, qrQuietModules*qrModulePixels)
	z.code(256) // the end of the block
	out = binary.BigEndian.AppendUint32(z.flush(), sum.b<<16|sum.a)

	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-8))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start+4:]))
	return pngChunk(out, "IEND", nil)
}

// adler is an Adler-32 (RFC 1950) being computed.
type adler struct{ a, b uint32 }

// repeat adds k copies of p (at most a few hundred bytes): one copy adds S, the sum of p's bytes,
// to a and len(p)·a + T to b, where T is the sum of (len(p)-i)·p[i]; k copies add k·S to a and
// k·len(p)·a + k·T + S·len(p)·k(k-1)/2 to b.
func (d *adler) repeat(p []byte, k int) {
	const mod = 65521
	var s, t uint64
	n := uint64(len(p))
	for i, c := range p {
		s += uint64(c)
		t += (n - uint64(i)) * uint64(c)
	}
	a, b, kk := uint64(d.a), uint64(d.b), uint64(k)
	b = (b + kk*n%mod*a + kk*t + s%mod*(n*kk*(kk-1)/2%mod)) % mod
	a = (a + kk*s) % mod
	d.a, d.b = uint32(a), uint32(b)
}

// pngChunk appends a PNG chunk: length, type, data, CRC of type and data.
func pngChunk(out []byte, kind string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	at := len(out)
	out = append(out, kind...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[at:]))
}

// deflater writes a deflate stream with the fixed Huffman codes (RFC 1951 §3.2.6).
type deflater struct {
	out  []byte
	acc  uint64
	nacc uint
}

// bits appends n bits of v, least significant first.
func (d *deflater) bits(v uint32, n uint) {
	d.acc |= uint64(v) << d.nacc
	d.nacc += n
	for d.nacc >= 8 {
		d.out = append(d.out, byte(d.acc))
		d.acc >>= 8
		d.nacc -= 8
	}
}

// flush pads the last byte with zeros and returns the stream.
func (d *deflater) flush() []byte {
	if d.nacc > 0 {
		d.out = append(d.out, byte(d.acc))
		d.acc, d.nacc = 0, 0
	}
	return d.out
}

// code appends the fixed Huffman code of a literal/length symbol (0–287); Huffman codes go most
// significant bit first.
func (d *deflater) code(sym int) {
	var c uint32
	var n uint
	switch {
	case sym < 144:
		c, n = 0x30+uint32(sym), 8
	case sym < 256:
		c, n = 0x190+uint32(sym-144), 9
	case sym < 280:
		c, n = uint32(sym-256), 7
	default:
		c, n = 0xC0+uint32(sym-280), 8
	}
	d.bits(bits.Reverse32(c)>>(32-n), n)
}

func (d *deflater) literal(b byte) { d.code(int(b)) }

// Lengths and distances of copies (RFC 1951 §3.2.5): the first value of each code and its extra
// bits.
var (
	lengthBase  = [...]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [...]uint{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [...]int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [...]uint{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// copy appends a copy of n bytes (at least 3) from dist bytes back (1 to 32,768), as copies of
// at most 258 bytes.
func (d *deflater) copy(n, dist int) {
	dc := len(distBase) - 1
	for distBase[dc] > dist {
		dc--
	}
	for n > 0 {
		l := min(n, 258)
		if r := n - l; r > 0 && r < 3 { // leave at least 3 for the last copy
			l = n - 3
		}
		lc := len(lengthBase) - 1
		for lengthBase[lc] > l {
			lc--
		}
		d.code(257 + lc)
		d.bits(uint32(l-lengthBase[lc]), lengthExtra[lc])
		d.bits(bits.Reverse32(uint32(dc))>>27, 5)
		d.bits(uint32(dist-distBase[dc]), distExtra[dc])
		n -= l
	}
}
