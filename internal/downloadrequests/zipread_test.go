package downloadrequests

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
)

// readZip opens a ZIP held in memory and answers its entries.
func readZip(t testing.TB, b []byte) (*zipReader, []zipEntry) {
	t.Helper()
	z, err := openZip(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var es []zipEntry
	if err := z.each(func(e zipEntry) error { es = append(es, e); return nil }); err != nil {
		t.Fatal(err)
	}
	return z, es
}

// zipFile is a file of a generated ZIP: streamed (archive/zip's CreateHeader: a data descriptor
// follows the data) or raw (no data descriptor: sizes and CRC-32 in the local header).
type zipFile struct {
	name    string
	method  uint16
	content []byte
	raw     bool
	extra   []byte // the extra field, in the local header and in the directory
}

// makeZip writes a ZIP with archive/zip's writer.
func makeZip(t testing.TB, comment string, files ...zipFile) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: f.method, Extra: f.extra}
		if !f.raw {
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(f.content)
			continue
		}
		data := f.content
		if f.method == zip.Deflate {
			data = deflated(t, f.content)
		}
		h.CRC32, h.CompressedSize64, h.UncompressedSize64 = crc32.ChecksumIEEE(f.content), uint64(len(data)), uint64(len(f.content))
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.SetComment(comment); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// deflated is b as archive/zip's writer deflates it (the data of a streamed entry).
func deflated(t testing.TB, b []byte) []byte {
	t.Helper()
	zb := makeZip(t, "", zipFile{name: "x", method: zip.Deflate, content: b})
	r, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := r.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	d, err := io.ReadAll(raw)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// zipAgree reads b with archive/zip and with zipReader, and fails unless both read the same
// entries (name, method, flags, sizes, CRC-32, data offset) with the same contents. It answers
// how many.
func zipAgree(t *testing.T, b []byte) int {
	t.Helper()
	want, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("archive/zip: %v", err)
	}
	z, got := readZip(t, b)
	if len(got) != len(want.File) {
		t.Fatalf("%d entries, archive/zip reads %d", len(got), len(want.File))
	}
	for i, f := range want.File {
		if err := sameEntry(z, got[i], f, true); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
	return len(got)
}

// sameEntry: e (read by zipReader) is f (read by archive/zip), and both read the same content.
// Where archive/zip fails, only whole is an error: otherwise the entry is compared as far as
// both read it.
func sameEntry(z *zipReader, e zipEntry, f *zip.File, whole bool) error {
	off, err := f.DataOffset()
	if err != nil {
		if !whole {
			return nil
		}
		return fmt.Errorf("archive/zip: %v", err)
	}
	if e.Name != f.Name || e.Method != f.Method || e.Flags != f.Flags || e.CRC32 != f.CRC32 || e.Size != int64(f.CompressedSize64) ||
		e.RawSize != int64(f.UncompressedSize64) || e.Offset != off {
		return fmt.Errorf("%+v, archive/zip: %q method %d flags %#x CRC %08x sizes %d/%d at %d", e, f.Name, f.Method, f.Flags,
			f.CRC32, f.CompressedSize64, f.UncompressedSize64, off)
	}
	want, werr := readAllOf(f.Open)
	got, gerr := readAllOf(func() (io.ReadCloser, error) { return z.open(e) })
	switch {
	case !whole && (werr != nil || gerr != nil):
		return nil
	case werr != nil:
		return fmt.Errorf("archive/zip: %v", werr)
	case gerr != nil || !bytes.Equal(got, want):
		return fmt.Errorf("%q: %d bytes, %v; archive/zip reads %d bytes", e.Name, len(got), gerr, len(want))
	}
	return nil
}

func readAllOf(open func() (io.ReadCloser, error)) ([]byte, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// zip64Extras rewrites a ZIP of raw entries (archive/zip's, without ZIP64) as a ZIP64 one: each
// central directory record has its sizes and local header offset saturated and the values in
// a ZIP64 extra field, and a ZIP64 end record and its locator precede the end record, whose
// fields are saturated.
func zip64Extras(t testing.TB, b []byte) []byte {
	t.Helper()
	end := b[len(b)-zipEndLen:]
	if binary.LittleEndian.Uint32(end) != zipEndSig || binary.LittleEndian.Uint16(end[20:]) != 0 {
		t.Fatal("not a ZIP without a comment")
	}
	n, dirAt := int(binary.LittleEndian.Uint16(end[10:])), int(binary.LittleEndian.Uint32(end[16:]))
	out := bytes.Clone(b[:dirAt])
	le := binary.LittleEndian
	for p, i := dirAt, 0; i < n; i++ {
		rec := b[p:]
		nameLen, extraLen, commentLen := int(le.Uint16(rec[28:])), int(le.Uint16(rec[30:])), int(le.Uint16(rec[32:]))
		fixed := bytes.Clone(rec[:zipCentralLen])
		extra := le.AppendUint16(nil, zip64ExtraID)
		extra = le.AppendUint16(extra, 24)
		extra = le.AppendUint64(extra, uint64(le.Uint32(rec[24:]))) // uncompressed
		extra = le.AppendUint64(extra, uint64(le.Uint32(rec[20:]))) // compressed
		extra = le.AppendUint64(extra, uint64(le.Uint32(rec[42:]))) // local header
		for _, at := range []int{20, 24, 42} {
			le.PutUint32(fixed[at:], math.MaxUint32)
		}
		le.PutUint16(fixed[30:], uint16(extraLen+len(extra)))
		out = append(out, fixed...)
		out = append(out, rec[zipCentralLen:zipCentralLen+nameLen]...)
		out = append(out, extra...)
		out = append(out, rec[zipCentralLen+nameLen:zipCentralLen+nameLen+extraLen+commentLen]...)
		p += zipCentralLen + nameLen + extraLen + commentLen
	}
	dirSize, recAt := len(out)-dirAt, len(out)
	out = le.AppendUint32(out, zip64EndSig)
	out = le.AppendUint64(out, zip64EndLen-12)
	out = le.AppendUint16(out, 45)
	out = le.AppendUint16(out, 45)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint64(out, uint64(n))
	out = le.AppendUint64(out, uint64(n))
	out = le.AppendUint64(out, uint64(dirSize))
	out = le.AppendUint64(out, uint64(dirAt))
	out = le.AppendUint32(out, zip64LocatorSig)
	out = le.AppendUint32(out, 0)
	out = le.AppendUint64(out, uint64(recAt))
	out = le.AppendUint32(out, 1)
	out = le.AppendUint32(out, zipEndSig)
	out = append(out, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)
	out = append(out, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0)
	return out
}

// someFiles: stored and deflated, streamed and raw, empty ones, UTF-8 names, a folder.
func someFiles() []zipFile {
	long := bytes.Repeat([]byte("<cfdi:Concepto Descripcion=\"Servicio ñ €\"/>\n"), 2000)
	// an extended timestamp extra field: the data starts after it
	extTime := []byte{0x55, 0x54, 5, 0, 1, 0x80, 0x2b, 0x92, 0x65}
	var fs []zipFile
	for _, raw := range []bool{false, true} {
		for _, m := range []uint16{zip.Store, zip.Deflate} {
			p := fmt.Sprintf("%v-%d-", raw, m)
			fs = append(fs,
				zipFile{p + "a.xml", m, []byte("<a/>"), raw, nil},
				zipFile{p + "vacío.xml", m, nil, raw, nil},
				zipFile{p + "factura_ñandú_€_日本.xml", m, long, raw, extTime},
				zipFile{p + "carpeta/b.txt", m, []byte("Uuid~RfcEmisor\r\nx~y\r\n"), raw, nil})
		}
	}
	return append(fs, zipFile{name: "carpeta/", method: zip.Store})
}

// TestZipReaderAgrees: the reader reads what archive/zip reads, entry by entry (name, method,
// flags, sizes, CRC-32, where the data starts, the content): stored and deflated files, with
// and without data descriptors, empty ones, UTF-8 names, a folder, an archive comment, no
// entries at all; ZIP64 extra fields and end records; and a ZIP64 archive of 70,000 entries
// (more than the end record's 16-bit count holds).
func TestZipReaderAgrees(t *testing.T) {
	raws := func(fs []zipFile) []zipFile {
		var out []zipFile
		for _, f := range fs {
			if f.raw {
				out = append(out, f)
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		zip  []byte
	}{
		{"mixed", makeZip(t, "", someFiles()...)},
		{"comment", makeZip(t, "Paquete del SAT · ñ", someFiles()...)},
		{"empty archive", makeZip(t, "")},
		{"ZIP64 extra fields", zip64Extras(t, makeZip(t, "", raws(someFiles())...))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if n := zipAgree(t, c.zip); c.name != "empty archive" && n == 0 {
				t.Error("no entries")
			}
		})
	}
	t.Run("70000 entries", func(t *testing.T) {
		b := manyEntries(t, 70_000)
		tail := b[len(b)-zipEndLen-zip64LocatorLen:]
		if binary.LittleEndian.Uint32(tail) != zip64LocatorSig || binary.LittleEndian.Uint16(tail[zip64LocatorLen+10:]) != math.MaxUint16 {
			t.Fatal("not a ZIP64 archive")
		}
		if n := zipAgree(t, b); n != 70_000 {
			t.Errorf("%d entries", n)
		}
	})
}

// manyEntries is a ZIP of n small stored files, written by archive/zip (ZIP64 past 65,534).
func manyEntries(t testing.TB, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for i := range n {
		content := fmt.Appendf(nil, "%d", i)
		h := &zip.FileHeader{Name: fmt.Sprintf("%06d.xml", i), Method: zip.Store, CRC32: crc32.ChecksumIEEE(content),
			CompressedSize64: uint64(len(content)), UncompressedSize64: uint64(len(content))}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(content)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestZipReaderHoldsOneEntry: walking a ZIP of 70,000 entries and reading each, the live heap
// after the last is what it was after the first thousand (archive/zip's Reader would hold
// about 17 MB more: a File per entry).
func TestZipReaderHoldsOneEntry(t *testing.T) {
	b := manyEntries(t, 70_000)
	z, err := openZip(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	var first, last int64
	i := 0
	err = z.each(func(e zipEntry) error {
		if _, err := readAllOf(func() (io.ReadCloser, error) { return z.open(e) }); err != nil {
			return err
		}
		switch i++; i {
		case 1000:
			first = live()
		case 70_000:
			last = live()
		}
		return nil
	})
	if err != nil || i != 70_000 {
		t.Fatalf("%d entries: %v", i, err)
	}
	if grew := last - first; grew > 1<<20 {
		t.Errorf("the live heap grew %d KB from entry 1,000 to 70,000", grew>>10)
	}
}

// TestZipReaderRefuses: a truncated ZIP, and one corrupted in each of its parts, is an error
// (ErrZip's) opening it, walking it or reading an entry to its end, never a panic; archive/zip
// refuses each too, but for the encrypted entry and the CRC-32 of zero, which it does not check.
func TestZipReaderRefuses(t *testing.T) {
	content := []byte("<cfdi:Comprobante/>")
	good := makeZip(t, "", zipFile{name: "a.xml", method: zip.Store, content: content, raw: true})
	two := makeZip(t, "", zipFile{name: "a.xml", method: zip.Store, content: content, raw: true},
		zipFile{name: "b.xml", method: zip.Store, content: content, raw: true})
	streamed := makeZip(t, "", zipFile{name: "a.xml", method: zip.Store, content: content})
	le := binary.LittleEndian
	// in good: the local header at 0, its data at 35, the central directory, the end record
	dirAt, endAt := int(le.Uint32(good[len(good)-6:])), len(good)-zipEndLen
	if le.Uint32(good[dirAt:]) != zipCentralSig || le.Uint32(good[35+len(content):]) != zipCentralSig {
		t.Fatal("unexpected layout")
	}
	change := func(b []byte, fn func(b []byte)) []byte {
		b = bytes.Clone(b)
		fn(b)
		return b
	}
	cases := []struct {
		name       string
		zip        []byte
		zipAccepts bool // archive/zip reads it whole
	}{
		{"not a ZIP", []byte("<cfdi:Comprobante/>"), false},
		{"empty file", nil, false},
		{"end record's comment past the end", change(good, func(b []byte) { le.PutUint16(b[endAt+20:], 5) }), false},
		{"central directory past the end record", change(good, func(b []byte) { le.PutUint32(b[endAt+16:], uint32(endAt)) }), false},
		{"more entries than the directory holds", change(good, func(b []byte) { le.PutUint16(b[endAt+8:], 2); le.PutUint16(b[endAt+10:], 2) }), false},
		{"fewer entries than the directory holds", change(two, func(b []byte) {
			le.PutUint16(b[len(b)-zipEndLen+8:], 1)
			le.PutUint16(b[len(b)-zipEndLen+10:], 1)
		}), false},
		{"bad central directory signature", change(good, func(b []byte) { b[dirAt] = 'X' }), false},
		{"bad local header signature", change(good, func(b []byte) { b[0] = 'X' }), false},
		{"local header offset past the directory", change(good, func(b []byte) { le.PutUint32(b[dirAt+42:], uint32(dirAt)) }), false},
		{"compressed size past the file", change(good, func(b []byte) { le.PutUint32(b[dirAt+20:], 1<<20) }), false},
		{"uncompressed size larger", change(good, func(b []byte) { le.PutUint32(b[dirAt+24:], uint32(len(content)+1)) }), false},
		{"uncompressed size smaller", change(good, func(b []byte) { le.PutUint32(b[dirAt+24:], uint32(len(content)-1)) }), false},
		{"data changed (CRC-32)", change(good, func(b []byte) { b[35] ^= 1 }), false},
		{"saturated size without ZIP64", change(good, func(b []byte) { le.PutUint32(b[dirAt+20:], math.MaxUint32) }), false},
		{"unknown method", change(good, func(b []byte) { le.PutUint16(b[dirAt+10:], 99) }), false},
		{"data descriptor's CRC-32", change(streamed, func(b []byte) {
			at := bytes.Index(b, []byte{'P', 'K', 7, 8})
			b[at+4] ^= 1
		}), false},
		{"encrypted entry", change(good, func(b []byte) { b[dirAt+8] |= 1 }), true},
		{"CRC-32 of zero", change(good, func(b []byte) { le.PutUint32(b[dirAt+16:], 0) }), true},
	}
	for n := range len(good) {
		cases = append(cases, struct {
			name       string
			zip        []byte
			zipAccepts bool
		}{fmt.Sprintf("truncated to %d bytes", n), good[:n], false})
	}
	for _, c := range cases {
		err := readWholeZip(c.zip)
		if err == nil {
			t.Errorf("%s: read", c.name)
		} else if !errors.Is(err, errZip) && !strings.Contains(err.Error(), "method") {
			t.Errorf("%s: %v, not a ZIP format error", c.name, err)
		}
		if zerr := readWholeArchiveZip(c.zip); (zerr == nil) != c.zipAccepts {
			t.Errorf("%s: archive/zip: %v", c.name, zerr)
		}
	}
	if err := readWholeZip(good); err != nil {
		t.Fatal(err)
	}

	// a deflated entry that inflates past its size stops there: what it gives is at most its size
	bomb := makeZip(t, "", zipFile{name: "a.xml", method: zip.Deflate, content: make([]byte, 1<<20), raw: true})
	dirAt = int(le.Uint32(bomb[len(bomb)-6:]))
	le.PutUint32(bomb[dirAt+24:], 10)
	z, es := readZip(t, bomb)
	rc, err := z.open(es[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(rc); err == nil || len(got) > 10 {
		t.Errorf("%d bytes of an entry of 10, %v", len(got), err)
	}
}

// readWholeZip opens b, walks it and reads every entry to its end.
func readWholeZip(b []byte) error {
	z, err := openZip(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	return z.each(func(e zipEntry) error {
		_, err := readAllOf(func() (io.ReadCloser, error) { return z.open(e) })
		return err
	})
}

// readWholeArchiveZip is readWholeZip with archive/zip.
func readWholeArchiveZip(b []byte) error {
	r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	for _, f := range r.File {
		if _, err := readAllOf(f.Open); err != nil {
			return err
		}
	}
	return nil
}

// FuzzZipReader: on any bytes the reader never panics, and whatever it and archive/zip both
// read, they read alike (the same entries in the same order, the same contents).
func FuzzZipReader(f *testing.F) {
	// small seeds: the fuzzer minimizes every input that finds new code, a large one slowly
	var small []zipFile
	for _, z := range someFiles() {
		if len(z.content) < 100 {
			small = append(small, z)
		}
	}
	f.Add(makeZip(f, "", small...))
	f.Add(makeZip(f, "comentario", zipFile{name: "a.xml", method: zip.Deflate, content: []byte("<a/>"), raw: true}))
	f.Add(makeZip(f, "", zipFile{name: "a.txt", method: zip.Store, content: []byte("x~y\r\n")}))
	f.Add(zip64Extras(f, makeZip(f, "", zipFile{name: "ñ.xml", method: zip.Deflate, content: []byte("<a/><a/>"), raw: true},
		zipFile{name: "b.xml", method: zip.Store, content: []byte("<b/>"), raw: true})))
	f.Fuzz(func(t *testing.T, b []byte) {
		z, err := openZip(bytes.NewReader(b), int64(len(b)))
		want, werr := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		i := 0
		err = z.each(func(e zipEntry) error {
			rc, err := z.open(e)
			if err == nil {
				io.Copy(io.Discard, rc) // never a panic
				rc.Close()
			}
			if werr == nil {
				if i >= len(want.File) {
					t.Fatalf("entry %d %q, archive/zip reads %d", i, e.Name, len(want.File))
				}
				if err := sameEntry(z, e, want.File[i], false); err != nil {
					t.Fatalf("entry %d: %v", i, err)
				}
			}
			i++
			return nil
		})
		if err == nil && werr == nil && i != len(want.File) {
			t.Fatalf("%d entries, archive/zip reads %d", i, len(want.File))
		}
	})
}
