package cfdi

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxReadSize bounds a document read by ReadCFDI: what a document costs to read is bounded by
// it (and by maxDepth), whatever the input.
const MaxReadSize = 64 << 20

// newDecoder is the XML decoder of every reader of this package: UTF-8 only (a CFDI is UTF-8).
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") || strings.EqualFold(label, "utf8") {
			return r, nil
		}
		return nil, fmt.Errorf("encoding %q: a CFDI is UTF-8", label)
	}
	return d
}

// stream reads a document one token at a time (encoding/xml, no tree): it keeps the names of
// the open elements and, when asked, the bytes of one element as written. A kind of document
// (the CFDI: cfdiReader) is a function called with each start tag; another kind is another such
// function over the same stream.
type stream struct {
	d    *xml.Decoder
	src  *recorder
	path []xml.Name // the open elements, the root first

	// the element being captured: its depth, where its bytes start, and what gets them
	capDepth int
	capFrom  int64
	capDone  func(raw []byte)
	recDepth int // the element recordInside was asked for
}

// errTooLarge is the error of a document beyond MaxReadSize.
var errTooLarge = parseErr("the document is larger than %d bytes", MaxReadSize)

// recorder hands the decoder the input one byte at a time (so the decoder reads nothing ahead
// and its offsets are the input's) and, while on, keeps the bytes read since the last token
// that started outside a captured element.
type recorder struct {
	r       io.Reader
	in      []byte // read from r, not yet handed over
	at, end int
	err     error
	n       int64 // bytes handed over
	on      bool
	buf     []byte
	from    int64 // the offset of buf[0]
}

func (r *recorder) ReadByte() (byte, error) {
	if r.at == r.end {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	if r.n >= MaxReadSize {
		return 0, errTooLarge
	}
	b := r.in[r.at]
	r.at++
	r.n++
	if r.on {
		r.buf = append(r.buf, b)
	}
	return b, nil
}

// fill reads more of the input.
func (r *recorder) fill() error {
	for r.err == nil && r.at == r.end {
		var k int
		k, r.err = r.r.Read(r.in)
		r.at, r.end = 0, k
	}
	if r.at < r.end {
		return nil
	}
	return r.err
}

// Read makes recorder an io.Reader; the decoder only calls ReadByte.
func (r *recorder) Read(p []byte) (int, error) {
	for i := range p {
		b, err := r.ReadByte()
		if err != nil {
			return i, err
		}
		p[i] = b
	}
	return len(p), nil
}

// drop forgets the bytes kept before off.
func (r *recorder) drop(off int64) {
	if k := int(off - r.from); r.on && k > 0 && k <= len(r.buf) {
		r.buf = append(r.buf[:0], r.buf[k:]...)
		r.from = off
	}
}

func newStream(in io.Reader) *stream {
	br := bufio.NewReader(in)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	src := &recorder{r: br, in: make([]byte, 4096)}
	return &stream{d: newDecoder(src), src: src}
}

// depth is the number of open elements (1 in the root's start tag).
func (s *stream) depth() int { return len(s.path) }

// at reports whether the open elements, from the root's child on, are names of space, in order.
func (s *stream) at(space string, names ...string) bool {
	if len(s.path) != len(names)+1 {
		return false
	}
	for i, n := range names {
		if p := s.path[i+1]; p.Space != space || p.Local != n {
			return false
		}
	}
	return true
}

// recordInside asks for the bytes of the element whose start tag was just read to be kept
// while it is open, so that elements inside it can be captured (bytes are kept only there).
func (s *stream) recordInside() {
	// the decoder holds no byte read ahead after a start tag (encoding/xml reads to its '>'),
	// so what the recorder keeps from here is at the decoder's offsets
	if !s.src.on && s.d.InputOffset() == s.src.n {
		s.recDepth, s.src.on = len(s.path), true
		s.src.buf, s.src.from = s.src.buf[:0], s.src.n
	}
}

// capture asks for the bytes of the element whose start tag was just read, as written, from
// its "<" to the end of its end tag; done gets them (its own copy) when the element ends. It
// must be inside (not on) an element recordInside was asked for, or it is ignored, as is a
// capture inside a capture. Elements inside it are still visited.
func (s *stream) capture(done func(raw []byte)) {
	if s.src.on && s.recDepth < len(s.path) && s.capDone == nil {
		s.capDepth, s.capDone = len(s.path), done
	}
}

// run reads the whole document, calling start with each start tag (s.path ends with it). It
// refuses what is not one well-formed element, nesting deeper than maxDepth or larger than
// MaxReadSize.
func (s *stream) run(start func(t xml.StartElement) error) error {
	var sawRoot bool
	for {
		off := s.d.InputOffset()
		if s.capDone == nil {
			s.src.drop(off)
		}
		tok, err := s.d.Token()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errTooLarge) {
			return errTooLarge
		}
		if err != nil {
			return parseErr("not well-formed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(s.path) >= maxDepth {
				return parseErr("elements nested deeper than %d", maxDepth)
			}
			if sawRoot && len(s.path) == 0 {
				return parseErr("more than one root element")
			}
			sawRoot = true
			s.path = append(s.path, t.Name)
			if err := start(t); err != nil {
				return err
			}
			if s.capDone != nil && s.capDepth == len(s.path) {
				s.capFrom = off
			}
		case xml.EndElement:
			if s.capDone != nil && s.capDepth == len(s.path) {
				end := s.d.InputOffset()
				raw := s.src.buf[s.capFrom-s.src.from : end-s.src.from]
				done := s.capDone
				s.capDone = nil
				done(append([]byte(nil), raw...))
			}
			if s.src.on && s.recDepth == len(s.path) {
				s.src.on = false
			}
			s.path = s.path[:len(s.path)-1]
		case xml.CharData:
			if len(s.path) == 0 && len(strings.TrimSpace(string(t))) > 0 {
				return parseErr("text outside the root element")
			}
		}
	}
	if !sawRoot {
		return parseErr("no root element")
	}
	return nil
}
