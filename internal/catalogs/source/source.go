// Package source reads a source of the SAT catalogs in the SQL-text layout of
// phpcfdi/resources-sat-catalogs: schemas/<table>.sql with one CREATE TABLE,
// data/<table>.sql with one INSERT per line, tables.list and version.txt.
//
// A source is a folder, a .zip file (such as the GitHub archive of that
// repository) or an http(s) URL of either a zip or a folder; see Open.
package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// DefaultURL is the GitHub archive of phpcfdi/resources-sat-catalogs.
const DefaultURL = "https://github.com/phpcfdi/resources-sat-catalogs/archive/refs/heads/master.zip"

// Table describes one catalog table.
type Table struct {
	Name    string
	Columns []string // in schema order
	Key     []string // primary-key columns in order; empty when the table has none
	HasData bool     // false when the source has no data/<table>.sql
}

// Options tunes Open. The zero value is fine.
type Options struct {
	// HTTPClient fetches URLs. When nil a client with a 15 s connect and TLS
	// handshake timeout and no overall timeout is used.
	HTTPClient *http.Client
	// TempDir holds a downloaded zip until Close; os.TempDir() when empty.
	TempDir string
	// ETag and LastModified, from an earlier download of the same URL, make
	// the request conditional (If-None-Match, If-Modified-Since): when the
	// server answers 304 Not Modified Open returns ErrNotModified.
	ETag         string
	LastModified string
	// Progress, when set, is told how a zip download goes: done bytes out of
	// total (-1 while unknown), at most about ten times a second and once
	// more at the end, when total is the final size. A folder URL, whose
	// files are fetched one by one, does not report progress.
	Progress func(done, total int64)
}

// ErrNotModified is returned (wrapped) by Open when a conditional request
// (Options.ETag or Options.LastModified) is answered 304 Not Modified.
var ErrNotModified = errors.New("not modified since the last download")

// Source is an opened catalog source. Once opened it may be used by several
// goroutines at once; Close it when done.
type Source struct {
	desc         string
	version      string
	etag         string
	lastModified string
	tables       []Table
	index        map[string]int // table name -> position in tables
	sizes        []int64        // data file sizes, -1 when unknown
	fs           catalogFS

	closeOnce sync.Once
	closeErr  error
}

// Limits on what is read into memory whole.
const (
	maxSmallFile = 4 << 20  // version.txt, tables.list, a schema
	maxLine      = 64 << 20 // one line of a data file
)

// Open opens spec, which is one of:
//
//   - a folder holding schemas/ and data/, or holding a database/ folder that
//     does (a checkout of phpcfdi/resources-sat-catalogs), or holding exactly
//     one folder that is either (an extracted archive);
//   - a .zip file with such a folder anywhere inside (the GitHub archive
//     resources-sat-catalogs-master/database/...); it is read in place;
//   - an https:// URL (http:// only for a loopback host) of such a zip,
//     downloaded to a temporary file removed by Close, or of a folder when
//     the URL ends with "/": version.txt, tables.list and the schemas are
//     fetched by Open, data files by Rows (with the ctx given to Open).
func Open(ctx context.Context, spec string, opt Options) (*Source, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("catalog source: none given (expected a folder, a .zip file or an https:// URL)")
	}
	if scheme, _, ok := strings.Cut(spec, "://"); ok && !strings.ContainsAny(scheme, `/\`) && len(scheme) > 1 {
		return openURL(ctx, spec, opt)
	}
	fi, err := os.Stat(spec)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("catalog source %s: no such file or folder", spec)
		}
		return nil, fmt.Errorf("catalog source %s: %w", spec, err)
	}
	if fi.IsDir() {
		root, err := findRootDir(spec)
		if err != nil {
			return nil, err
		}
		return build(ctx, root, dirFS{root: root})
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("catalog source %s: not a folder or a .zip file", spec)
	}
	f, err := os.Open(spec)
	if err != nil {
		return nil, fmt.Errorf("catalog source %s: %w", spec, err)
	}
	magic := make([]byte, len(zipMagic))
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, zipMagic) {
		f.Close()
		return nil, fmt.Errorf("catalog source %s: not a folder or a .zip file (expected the catalogs folder or the zip archive of phpcfdi/resources-sat-catalogs)", spec)
	}
	z, err := openZip(spec, f, fi.Size(), "")
	if err != nil {
		f.Close()
		return nil, err
	}
	return build(ctx, spec, z)
}

// Version returns the content of version.txt, trimmed; "" when absent.
func (s *Source) Version() string { return s.version }

// Describe names the source for people: the folder, the zip file or the URL
// (without credentials or query).
func (s *Source) Describe() string { return s.desc }

// ETag returns the ETag header of the download; "" for local sources.
func (s *Source) ETag() string { return s.etag }

// LastModified returns the Last-Modified header of the download; "" for
// local sources.
func (s *Source) LastModified() string { return s.lastModified }

// Tables returns the tables, in the order of tables.list when the source has
// one and by name otherwise. The result is a copy.
func (s *Source) Tables() []Table {
	out := make([]Table, len(s.tables))
	for i, t := range s.tables {
		t.Columns = append([]string(nil), t.Columns...)
		t.Key = append([]string(nil), t.Key...)
		out[i] = t
	}
	return out
}

// DataSize returns the size in bytes of data/<table>.sql when known, for
// progress reports; -1 otherwise.
func (s *Source) DataSize(table string) int64 {
	i, ok := s.index[table]
	if !ok {
		return -1
	}
	return s.sizes[i]
}

// Close releases the source, removing a downloaded zip. It is safe to call
// more than once.
func (s *Source) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.fs.close() })
	return s.closeErr
}

// Rows calls fn with the values of each row of data/<table>.sql, in file
// order. Values are string, json.Number (a number's exact text) or nil (NULL);
// the slice is fn's to keep. The strings may share memory with the chunk of
// the file they were read from, so a caller keeping a few of them for long
// should strings.Clone them. A table without data gives no rows and no error.
// An error from fn stops the reading and is returned as is; a malformed line,
// or a row whose number of values is not the table's number of columns, is an
// error naming the file and the line.
func (s *Source) Rows(table string, fn func(values []any) error) error {
	i, ok := s.index[table]
	if !ok {
		return fmt.Errorf("catalog source %s: there is no table %q", s.desc, table)
	}
	t := &s.tables[i]
	if !t.HasData {
		return nil
	}
	name := "data/" + table + ".sql"
	r, err := s.fs.open(name)
	if errors.Is(err, errNotFound) && s.sizes[i] < 0 {
		return nil // a remote folder that could not tell beforehand
	}
	if err != nil {
		return err
	}
	defer r.Close()
	return readRows(r, s.sizes[i], table, len(t.Columns), func(line int, msg error) error {
		return fmt.Errorf("%s:%d: %w", s.fs.where(name), line, msg)
	}, fn)
}

// readChunk is how much of a data file is read, and turned into one string,
// at a time: lines and the values without escapes are slices of it, which
// saves an allocation and a copy per line.
const readChunk = 1 << 20

// readRows is the loop of Rows: located turns a problem on a line into the
// error to return.
// size is the size of the data when known, else -1.
func readRows(r io.Reader, size int64, table string, ncols int, located func(line int, msg error) error, fn func([]any) error) error {
	bufSize := readChunk
	if size >= 0 && size < readChunk {
		bufSize = int(size) + 1 // +1 to see the end in the same read
	}
	rd := lineReader{r: r, buf: make([]byte, bufSize)}
	began, committed := false, false
	for {
		line, ok, err := rd.next()
		if err != nil {
			return located(rd.lineNo, err)
		}
		if !ok {
			break
		}
		if rd.lineNo == 1 {
			line = strings.TrimPrefix(line, "\uFEFF")
		}
		switch classify(line) {
		case lineSkip:
		case lineBegin:
			began = true
		case lineCommit:
			committed = true
		default:
			vals, err := parseInsert(line, table, make([]any, 0, ncols))
			if err != nil {
				return located(rd.lineNo, err)
			}
			if len(vals) != ncols {
				return located(rd.lineNo, fmt.Errorf("the row has %d values but table %s has %d columns", len(vals), table, ncols))
			}
			if err := fn(vals); err != nil {
				return err
			}
		}
	}
	if began && !committed {
		return located(rd.lineNo, errors.New("the file ends without COMMIT; it looks cut short"))
	}
	return nil
}

// lineReader splits a stream into lines without their "\n" or "\r\n".
type lineReader struct {
	r      io.Reader
	buf    []byte // buf[:have] is read but not yet turned into data
	have   int
	data   string // the current chunk
	pos    int    // next line in data
	eof    bool
	lineNo int // of the line last returned
}

// next returns the next line; ok is false at the end.
func (l *lineReader) next() (line string, ok bool, err error) {
	for {
		if j := strings.IndexByte(l.data[l.pos:], '\n'); j >= 0 {
			line = l.data[l.pos : l.pos+j]
			l.pos += j + 1
			l.lineNo++
			return strings.TrimSuffix(line, "\r"), true, nil
		}
		if l.eof {
			if l.pos < len(l.data) { // a last line without "\n"
				line = l.data[l.pos:]
				l.pos = len(l.data)
				l.lineNo++
				return strings.TrimSuffix(line, "\r"), true, nil
			}
			return "", false, nil
		}
		// Carry the unfinished line over and read more after it.
		rest := len(l.data) - l.pos
		if rest == len(l.buf) {
			if len(l.buf) >= maxLine {
				return "", false, fmt.Errorf("line %d is longer than %d MiB", l.lineNo+1, maxLine>>20)
			}
			l.buf = make([]byte, 2*len(l.buf))
		}
		l.have = copy(l.buf, l.data[l.pos:])
		n, err := io.ReadFull(l.r, l.buf[l.have:])
		l.have += n
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			l.eof = true
		default:
			return "", false, fmt.Errorf("reading failed: %w", err)
		}
		l.data, l.pos = string(l.buf[:l.have]), 0
	}
}

const (
	lineInsert = iota
	lineSkip
	lineBegin
	lineCommit
)

// classify tells the statements that carry no rows from the rest.
func classify(s string) int {
	s = strings.TrimLeft(s, " \t")
	if len(s) == 0 {
		return lineSkip
	}
	switch s[0] {
	case 'I':
		return lineInsert
	case 'P', 'p':
		if hasWord(s, "PRAGMA") {
			return lineSkip
		}
	case 'B', 'b':
		if hasWord(s, "BEGIN") {
			return lineBegin
		}
	case 'C', 'c':
		if hasWord(s, "COMMIT") {
			return lineCommit
		}
	case 'E', 'e':
		if hasWord(s, "END") {
			return lineCommit
		}
	}
	return lineInsert
}

// hasWord reports whether s starts with the keyword w followed by a space or
// ";", and ends with ";".
func hasWord(s, w string) bool {
	if len(s) <= len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	if c := s[len(w)]; c != ' ' && c != '\t' && c != ';' {
		return false
	}
	return strings.HasSuffix(strings.TrimRight(s, " \t"), ";")
}

// build reads the catalog metadata through fs and makes the Source, closing fs
// on failure. desc is the Source's description.
func build(ctx context.Context, desc string, fs catalogFS) (*Source, error) {
	s, err := load(ctx, desc, fs)
	if err != nil {
		fs.close()
		return nil, err
	}
	return s, nil
}

func load(ctx context.Context, desc string, fs catalogFS) (*Source, error) {
	s := &Source{desc: desc, fs: fs}
	if v, err := readSmall(fs, "version.txt"); err == nil {
		s.version = strings.TrimSpace(strings.TrimPrefix(string(v), "\uFEFF"))
	} else if !errors.Is(err, errNotFound) {
		return nil, err
	}
	var names []string
	list, err := readSmall(fs, "tables.list")
	switch {
	case err == nil:
		names, err = parseTablesList(string(list), fs.where("tables.list"))
		if err != nil {
			return nil, err
		}
	case errors.Is(err, errNotFound):
		names, err = fs.listSchemas()
		if err != nil {
			return nil, err
		}
		sort.Strings(names)
	default:
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("catalog source %s: there are no tables (tables.list and schemas/ are empty)", desc)
	}
	s.tables = make([]Table, len(names))
	s.sizes = make([]int64, len(names))
	s.index = make(map[string]int, len(names))
	for i, n := range names {
		s.index[n] = i
	}
	err = forEach(ctx, len(names), fs.parallelism(), func(i int) error {
		name := names[i]
		schema := "schemas/" + name + ".sql"
		text, err := readSmall(fs, schema)
		if errors.Is(err, errNotFound) {
			return fmt.Errorf("catalog source %s: table %s is listed in tables.list but %s does not exist", desc, name, fs.where(schema))
		}
		if err != nil {
			return err
		}
		t, err := ParseSchema(string(text))
		if err != nil {
			return fmt.Errorf("%s: %w", fs.where(schema), err)
		}
		if t.Name != name {
			return fmt.Errorf("%s: the schema creates table %q, expected %q", fs.where(schema), t.Name, name)
		}
		has, size, err := fs.stat("data/" + name + ".sql")
		if err != nil {
			return err
		}
		t.HasData = has
		s.tables[i] = t
		s.sizes[i] = size
		return nil
	})
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && err == ctxErr {
			err = fmt.Errorf("catalog source %s: %w", desc, err)
		}
		return nil, err
	}
	return s, nil
}

// parseTablesList reads tables.list: one table name a line; empty lines and
// lines starting with # are ignored.
func parseTablesList(text, where string) ([]string, error) {
	var names []string
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimPrefix(text, "\uFEFF"), "\n") {
		name := strings.TrimSpace(line)
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		if !validTableName(name) {
			return nil, fmt.Errorf("%s:%d: %q is not a table name (letters, digits and _ only)", where, i+1, name)
		}
		if seen[name] {
			return nil, fmt.Errorf("%s:%d: table %s is listed twice", where, i+1, name)
		}
		seen[name] = true
		names = append(names, name)
	}
	return names, nil
}

// validTableName accepts the names that can safely become file names and URL
// paths.
func validTableName(name string) bool {
	if name == "" || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// forEach calls fn(0..n-1) on up to workers goroutines and returns the first
// error; it stops starting new calls after an error or when ctx ends.
func forEach(ctx context.Context, n, workers int, fn func(i int) error) error {
	if workers < 1 {
		workers = 1
	}
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= n {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			firstErr = err
			return 0, false
		}
		i := next
		next++
		return i, true
	}
	for w := 0; w < min(workers, n); w++ {
		wg.Go(func() {
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// findRootDir finds, from the folder dir, the folder that holds schemas/ and
// data/.
func findRootDir(dir string) (string, error) {
	if isRootDir(dir) {
		return dir, nil
	}
	if db := filepath.Join(dir, "database"); isRootDir(db) {
		return db, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("catalog source %s: %w", dir, err)
	}
	var found []string
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			continue
		}
		if isRootDir(sub) {
			found = append(found, sub)
		} else if db := filepath.Join(sub, "database"); isRootDir(db) {
			found = append(found, db)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("catalog source %s: no schemas/ and data/ folders found (expected a folder like phpcfdi/resources-sat-catalogs/database)", dir)
	}
	return "", fmt.Errorf("catalog source %s: several catalog folders found (%s); give the one to use", dir, strings.Join(found, ", "))
}

func isRootDir(dir string) bool {
	for _, sub := range []string{"schemas", "data"} {
		fi, err := os.Stat(filepath.Join(dir, sub))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
