package downloadrequests

import (
	"bufio"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"sync"
)

// A package is read from its file one entry at a time: zipReader walks the central directory
// record by record (ZIP64 included) and holds only the entry it is on, so reading a package of
// SAT's 200,000 CFDIs holds no more memory than one of ten does (archive/zip's Reader keeps a
// File for every entry, about 0.25 KB each).

// ZIP methods an entry may have.
const (
	zipStore   uint16 = 0
	zipDeflate uint16 = 8
)

// ZIP record signatures and fixed lengths (APPNOTE.TXT, sections 4.3.7 to 4.3.16).
const (
	zipLocalSig      = 0x04034b50
	zipCentralSig    = 0x02014b50
	zipEndSig        = 0x06054b50
	zip64EndSig      = 0x06064b50
	zip64LocatorSig  = 0x07064b50
	zipDescriptorSig = 0x08074b50

	zipLocalLen      = 30
	zipCentralLen    = 46
	zipEndLen        = 22
	zip64LocatorLen  = 20
	zip64EndLen      = 56
	zip64ExtraID     = 0x0001
	zipEncryptedMask = 0x1 | 0x40 | 0x2000 // encrypted, strong encryption, masked local headers
	zipDescriptorBit = 0x8
)

// errZip is the error every malformed ZIP wraps.
var errZip = errors.New("not a valid ZIP")

func zipErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errZip}, args...)...)
}

// zipEntry is one file of a ZIP: what its central directory record says, and where its data
// starts (after its local header).
type zipEntry struct {
	Name          string
	Method        uint16
	Flags         uint16
	CRC32         uint32
	Size, RawSize int64 // the data's size in the ZIP, and the file's
	Offset        int64 // of the data in the ZIP
}

// zipReader reads a ZIP from r: every entry's local header and data lie before the central
// directory, and the directory before its end record.
type zipReader struct {
	r        io.ReaderAt
	dirStart int64 // the first central directory record
	dirEnd   int64 // just past the last one
	entries  uint64
}

// openZip reads the end of a ZIP's central directory (and its ZIP64 record when there is one).
func openZip(r io.ReaderAt, size int64) (*zipReader, error) {
	if size < zipEndLen {
		return nil, zipErr("%d bytes is too short", size)
	}
	// the end record is last, followed only by its comment (at most 65,535 bytes)
	tail := make([]byte, min(size, zipEndLen+math.MaxUint16))
	tailAt := size - int64(len(tail))
	if _, err := r.ReadAt(tail, tailAt); err != nil {
		return nil, err
	}
	at := -1
	for i := len(tail) - zipEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(tail[i:]) == zipEndSig {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, zipErr("no end of central directory record")
	}
	end := tail[at:]
	if comment := int(binary.LittleEndian.Uint16(end[20:])); zipEndLen+comment != len(end) {
		return nil, zipErr("the end record's comment (%d bytes) does not reach the end of the file (%d bytes)", comment, len(end)-zipEndLen)
	}
	disk, dirDisk := uint64(binary.LittleEndian.Uint16(end[4:])), uint64(binary.LittleEndian.Uint16(end[6:]))
	onDisk, entries := uint64(binary.LittleEndian.Uint16(end[8:])), uint64(binary.LittleEndian.Uint16(end[10:]))
	dirSize, dirOffset := uint64(binary.LittleEndian.Uint32(end[12:])), uint64(binary.LittleEndian.Uint32(end[16:]))
	endAt := tailAt + int64(at) // where the directory's end records begin

	// ZIP64: a locator right before the end record points at the ZIP64 end record
	if locAt := endAt - zip64LocatorLen; locAt >= 0 {
		var loc [zip64LocatorLen]byte
		if _, err := r.ReadAt(loc[:], locAt); err != nil {
			return nil, err
		}
		if binary.LittleEndian.Uint32(loc[:]) == zip64LocatorSig {
			if binary.LittleEndian.Uint32(loc[4:]) != 0 || binary.LittleEndian.Uint32(loc[16:]) != 1 {
				return nil, zipErr("a ZIP64 archive on more than one disk")
			}
			recAt := binary.LittleEndian.Uint64(loc[8:])
			if locAt < zip64EndLen || recAt > uint64(locAt-zip64EndLen) {
				return nil, zipErr("the ZIP64 end record at %d is outside the file", recAt)
			}
			var rec [zip64EndLen]byte
			if _, err := r.ReadAt(rec[:], int64(recAt)); err != nil {
				return nil, err
			}
			if binary.LittleEndian.Uint32(rec[:]) != zip64EndSig {
				return nil, zipErr("no ZIP64 end record at %d", recAt)
			}
			d64, dirDisk64 := uint64(binary.LittleEndian.Uint32(rec[16:])), uint64(binary.LittleEndian.Uint32(rec[20:]))
			on64, n64 := binary.LittleEndian.Uint64(rec[24:]), binary.LittleEndian.Uint64(rec[32:])
			size64, off64 := binary.LittleEndian.Uint64(rec[40:]), binary.LittleEndian.Uint64(rec[48:])
			// the 32-bit fields are either saturated or equal to the ZIP64 ones
			if !zip64Agrees(disk, d64, math.MaxUint16) || !zip64Agrees(dirDisk, dirDisk64, math.MaxUint16) ||
				!zip64Agrees(onDisk, on64, math.MaxUint16) || !zip64Agrees(entries, n64, math.MaxUint16) ||
				!zip64Agrees(dirSize, size64, math.MaxUint32) || !zip64Agrees(dirOffset, off64, math.MaxUint32) {
				return nil, zipErr("the end record and the ZIP64 end record disagree")
			}
			disk, dirDisk, onDisk, entries, dirSize, dirOffset, endAt = d64, dirDisk64, on64, n64, size64, off64, int64(recAt)
		}
	}
	if disk != 0 || dirDisk != 0 || onDisk != entries {
		return nil, zipErr("an archive on more than one disk")
	}
	if dirOffset > uint64(endAt) || dirSize > uint64(endAt)-dirOffset {
		return nil, zipErr("the central directory (%d bytes at %d) is past its end record at %d", dirSize, dirOffset, endAt)
	}
	if entries > dirSize/zipCentralLen {
		return nil, zipErr("%d entries cannot fit in a central directory of %d bytes", entries, dirSize)
	}
	return &zipReader{r: r, dirStart: int64(dirOffset), dirEnd: int64(dirOffset + dirSize), entries: entries}, nil
}

// zip64Agrees: a 32-bit (or 16-bit) field of the end record agrees with its ZIP64 value when
// it is saturated or equal.
func zip64Agrees(v, v64, saturated uint64) bool { return v == saturated || v == v64 }

// each calls fn with every entry, in the central directory's order, holding one at a time.
func (z *zipReader) each(fn func(zipEntry) error) error {
	br := bufio.NewReaderSize(io.NewSectionReader(z.r, z.dirStart, z.dirEnd-z.dirStart), 64<<10)
	pos := z.dirStart
	var fixed [zipCentralLen]byte
	var buf []byte // the name, extra field and comment of the record read
	for i := uint64(0); i < z.entries; i++ {
		if _, err := io.ReadFull(br, fixed[:]); err != nil {
			return dirCut(err, "the central directory ends at its record %d of %d", i+1, z.entries)
		}
		if binary.LittleEndian.Uint32(fixed[:]) != zipCentralSig {
			return zipErr("no central directory record at %d (record %d of %d)", pos, i+1, z.entries)
		}
		nameLen, extraLen, commentLen := int(binary.LittleEndian.Uint16(fixed[28:])), int(binary.LittleEndian.Uint16(fixed[30:])), int(binary.LittleEndian.Uint16(fixed[32:]))
		n := nameLen + extraLen + commentLen
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return dirCut(err, "the central directory ends inside its record %d of %d", i+1, z.entries)
		}
		e, err := z.entry(fixed[:], buf[:nameLen], buf[nameLen:nameLen+extraLen])
		if err != nil {
			return fmt.Errorf("ZIP entry %d (%q): %w", i+1, buf[:nameLen], err)
		}
		pos += int64(zipCentralLen + n)
		if err := fn(e); err != nil {
			return err
		}
	}
	if pos != z.dirEnd {
		return zipErr("the central directory's %d entries end at %d, not at %d", z.entries, pos, z.dirEnd)
	}
	return nil
}

// dirCut is the error of a read of the central directory: a format error where the directory
// ends too soon, the read's own error otherwise.
func dirCut(err error, format string, args ...any) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return zipErr(format, args...)
	}
	return err
}

// entry reads a central directory record (its fixed part, name and extra field) and the
// entry's local header.
func (z *zipReader) entry(fixed, name, extra []byte) (zipEntry, error) {
	e := zipEntry{Name: string(name), Flags: binary.LittleEndian.Uint16(fixed[8:]), Method: binary.LittleEndian.Uint16(fixed[10:]),
		CRC32: binary.LittleEndian.Uint32(fixed[16:])}
	size, rawSize := uint64(binary.LittleEndian.Uint32(fixed[20:])), uint64(binary.LittleEndian.Uint32(fixed[24:]))
	header := uint64(binary.LittleEndian.Uint32(fixed[42:]))
	if e.Flags&zipEncryptedMask != 0 {
		return e, zipErr("an encrypted entry (flags %#04x)", e.Flags)
	}
	// the ZIP64 extra field holds, in this order, the fields saturated in the record
	needRaw, needSize, needHeader := rawSize == math.MaxUint32, size == math.MaxUint32, header == math.MaxUint32
	for len(extra) >= 4 {
		id, n := binary.LittleEndian.Uint16(extra), int(binary.LittleEndian.Uint16(extra[2:]))
		extra = extra[4:]
		if n > len(extra) {
			break
		}
		field := extra[:n]
		extra = extra[n:]
		if id != zip64ExtraID {
			continue
		}
		for _, f := range []struct {
			need *bool
			v    *uint64
		}{{&needRaw, &rawSize}, {&needSize, &size}, {&needHeader, &header}} {
			if !*f.need {
				continue
			}
			if len(field) < 8 {
				return e, zipErr("a ZIP64 extra field too short")
			}
			*f.v, *f.need, field = binary.LittleEndian.Uint64(field), false, field[8:]
		}
	}
	// an uncompressed size of 2³²-1 may be a real one; the others may not be saturated
	if needSize || needHeader {
		return e, zipErr("a saturated size or offset without its ZIP64 extra field")
	}
	if rawSize > math.MaxInt64 {
		return e, zipErr("a size of %d bytes", rawSize)
	}
	if header > uint64(z.dirStart) || uint64(z.dirStart)-header < zipLocalLen {
		return e, zipErr("its local header at %d is not before the central directory at %d", header, z.dirStart)
	}
	var local [zipLocalLen]byte
	if _, err := z.r.ReadAt(local[:], int64(header)); err != nil {
		return e, err
	}
	if binary.LittleEndian.Uint32(local[:]) != zipLocalSig {
		return e, zipErr("no local header at %d", header)
	}
	data := header + zipLocalLen + uint64(binary.LittleEndian.Uint16(local[26:])) + uint64(binary.LittleEndian.Uint16(local[28:]))
	if data > uint64(z.dirStart) || size > uint64(z.dirStart)-data {
		return e, zipErr("its data (%d bytes at %d) is not before the central directory at %d", size, data, z.dirStart)
	}
	e.Size, e.RawSize, e.Offset = int64(size), int64(rawSize), int64(data)
	return e, nil
}

// open reads an entry's file: inflated when deflated, and refused at its end unless it has
// the entry's size and CRC-32 (and its data descriptor, when it has one, the same CRC-32).
func (z *zipReader) open(e zipEntry) (io.ReadCloser, error) {
	data := io.NewSectionReader(z.r, e.Offset, e.Size)
	var rc io.ReadCloser
	switch e.Method {
	case zipStore:
		rc = io.NopCloser(data)
	case zipDeflate:
		rc = inflater(data)
	default:
		return nil, fmt.Errorf("ZIP entry %q: method %d (only Store and Deflate are read)", e.Name, e.Method)
	}
	return &zipFileReader{z: z, e: e, rc: rc, crc: crc32.NewIEEE()}, nil
}

type zipFileReader struct {
	z   *zipReader
	e   zipEntry
	rc  io.ReadCloser
	crc hash.Hash32
	n   int64
	err error // sticky
}

func (r *zipFileReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.rc.Read(p)
	r.crc.Write(p[:n])
	r.n += int64(n)
	switch {
	case r.n > r.e.RawSize:
		n, err = 0, zipErr("entry %q is longer than its %d bytes", r.e.Name, r.e.RawSize)
	case errors.Is(err, io.EOF):
		err = r.atEnd()
	case err != nil:
		err = fmt.Errorf("ZIP entry %q: %w", r.e.Name, err)
	}
	r.err = err
	return n, err
}

// atEnd checks the entry read whole: io.EOF when it is the one the directory describes.
func (r *zipFileReader) atEnd() error {
	if r.n != r.e.RawSize {
		return zipErr("entry %q ends after %d of its %d bytes", r.e.Name, r.n, r.e.RawSize)
	}
	if r.crc.Sum32() != r.e.CRC32 {
		return zipErr("entry %q: CRC-32 %08x, the directory says %08x", r.e.Name, r.crc.Sum32(), r.e.CRC32)
	}
	if r.e.Flags&zipDescriptorBit != 0 {
		// the data descriptor: [signature] CRC-32, sizes; its CRC-32 must be the directory's
		var d [16]byte
		at := r.e.Offset + r.e.Size
		n := min(int64(len(d)), r.z.dirStart-at)
		if n < 12 {
			return zipErr("entry %q: no room for its data descriptor", r.e.Name)
		}
		if _, err := r.z.r.ReadAt(d[:n], at); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		crc := d[:4]
		if binary.LittleEndian.Uint32(d[:]) == zipDescriptorSig {
			if n < 16 {
				return zipErr("entry %q: no room for its data descriptor", r.e.Name)
			}
			crc = d[4:8]
		}
		if binary.LittleEndian.Uint32(crc) != r.e.CRC32 {
			return zipErr("entry %q: its data descriptor's CRC-32 is not the directory's", r.e.Name)
		}
	}
	return io.EOF
}

func (r *zipFileReader) Close() error {
	if r.rc == nil {
		return nil
	}
	err := r.rc.Close()
	if _, ok := r.rc.(flate.Resetter); ok {
		inflaters.Put(r.rc)
	}
	r.rc, r.err = nil, errors.New("ZIP entry read after its Close")
	return err
}

// inflaters keeps the inflaters of closed entries: a new one allocates tens of KB, once per
// CFDI of a package without them.
var inflaters sync.Pool

func inflater(r io.Reader) io.ReadCloser {
	if fr, ok := inflaters.Get().(io.ReadCloser); ok {
		fr.(flate.Resetter).Reset(r, nil)
		return fr
	}
	return flate.NewReader(r)
}
