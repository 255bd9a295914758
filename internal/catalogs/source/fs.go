package source

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// errNotFound is wrapped by catalogFS.open for a missing file.
var errNotFound = errors.New("file not found")

// catalogFS is the folder holding schemas/, data/, tables.list and
// version.txt, wherever it is. Names are slash-separated and relative to it.
type catalogFS interface {
	// open opens a file; a missing one gives an error wrapping errNotFound.
	open(name string) (io.ReadCloser, error)
	// stat tells whether a file exists and its size (-1 when unknown).
	stat(name string) (exists bool, size int64, err error)
	// listSchemas returns the table names of schemas/*.sql, in any order.
	listSchemas() ([]string, error)
	// where names a file in messages.
	where(name string) string
	// parallelism is how many files are worth reading at once.
	parallelism() int
	close() error
}

// readSmall reads a whole file that should be small.
func readSmall(fs catalogFS, name string) ([]byte, error) {
	r, err := fs.open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxSmallFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading failed: %w", fs.where(name), err)
	}
	if len(b) > maxSmallFile {
		return nil, fmt.Errorf("%s: the file is larger than %d MiB, too large for what it should hold", fs.where(name), maxSmallFile>>20)
	}
	return b, nil
}

// schemaTableName returns the table name of a schemas/ file name, if it is one.
func schemaTableName(base string) (string, bool) {
	name, ok := strings.CutSuffix(base, ".sql")
	if !ok || strings.HasPrefix(base, ".") {
		return "", false
	}
	return name, true
}

// dirFS is a catalog folder on disk.
type dirFS struct{ root string }

func (d dirFS) path(name string) string { return filepath.Join(d.root, filepath.FromSlash(name)) }

func (d dirFS) where(name string) string { return d.path(name) }

func (d dirFS) parallelism() int { return 4 }

func (d dirFS) close() error { return nil }

func (d dirFS) open(name string) (io.ReadCloser, error) {
	f, err := os.Open(d.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", d.path(name), errNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog source: %w", err)
	}
	return f, nil
}

func (d dirFS) stat(name string) (bool, int64, error) {
	fi, err := os.Stat(d.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return false, -1, nil
	}
	if err != nil {
		return false, -1, fmt.Errorf("catalog source: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return false, -1, fmt.Errorf("catalog source: %s is not a regular file", d.path(name))
	}
	return true, fi.Size(), nil
}

func (d dirFS) listSchemas() ([]string, error) {
	entries, err := os.ReadDir(d.path("schemas"))
	if err != nil {
		return nil, fmt.Errorf("catalog source: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name, ok := schemaTableName(e.Name())
		if !ok {
			continue
		}
		if !validTableName(name) {
			return nil, fmt.Errorf("catalog source: %s: %q is not a table name (letters, digits and _ only)", d.path("schemas/"+e.Name()), name)
		}
		names = append(names, name)
	}
	return names, nil
}

// zipFS is a catalog folder inside a zip file, read in place.
type zipFS struct {
	desc     string               // the zip file or its URL, for messages
	prefix   string               // the catalog folder inside the zip, "" or ending in "/"
	files    map[string]*zip.File // by name relative to prefix
	file     io.Closer
	tempPath string // a downloaded zip to remove on close
}

// openZip reads the directory of the zip r of the given size and finds the
// catalog folder in it. desc names the zip in messages. The caller closes r
// if openZip fails.
func openZip(desc string, r interface {
	io.ReaderAt
	io.Closer
}, size int64, tempPath string) (*zipFS, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("catalog source %s: not a readable zip archive (%v)", desc, err)
	}
	prefix, err := zipRoot(zr.File)
	if err != nil {
		return nil, fmt.Errorf("catalog source %s: %w", desc, err)
	}
	z := &zipFS{desc: desc, prefix: prefix, files: map[string]*zip.File{}, file: r, tempPath: tempPath}
	for _, f := range zr.File {
		name := zipName(f)
		if rel, ok := strings.CutPrefix(name, prefix); ok && rel != "" && !strings.HasSuffix(rel, "/") {
			z.files[rel] = f
		}
	}
	return z, nil
}

// zipName is the slash-separated name of an entry.
func zipName(f *zip.File) string { return strings.ReplaceAll(f.Name, `\`, "/") }

// zipRoot finds the folder holding both schemas/ and data/ in a zip: the
// shallowest one, which must be the only one at its depth. macOS metadata
// (__MACOSX/, ._*) is ignored.
func zipRoot(files []*zip.File) (string, error) {
	schemas, data := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		name := zipName(f)
		if strings.HasPrefix(name, "__MACOSX/") || strings.Contains(name, "/._") || strings.HasPrefix(name, "._") {
			continue
		}
		segs := strings.Split(name, "/")
		// Every folder on the path counts, the last segment only when the
		// entry is a folder (its name ends in "/", so the last segment is "").
		for k := 0; k < len(segs)-1; k++ {
			prefix := strings.Join(segs[:k], "/")
			if k > 0 {
				prefix += "/"
			}
			switch segs[k] {
			case "schemas":
				schemas[prefix] = true
			case "data":
				data[prefix] = true
			}
		}
	}
	best, depth, tie := "", math.MaxInt, false
	for p := range schemas {
		if !data[p] {
			continue
		}
		d := strings.Count(p, "/")
		switch {
		case d < depth:
			best, depth, tie = p, d, false
		case d == depth:
			tie = true
			if p < best {
				best = p
			}
		}
	}
	if depth == math.MaxInt {
		return "", errors.New("no schemas/ and data/ folders found in the zip (expected the archive of phpcfdi/resources-sat-catalogs, with resources-sat-catalogs-master/database/schemas/ and data/)")
	}
	if tie {
		return "", fmt.Errorf("several catalog folders found in the zip at the same depth (one is %q); the zip should hold one", best)
	}
	return best, nil
}

func (z *zipFS) where(name string) string { return z.desc + ": " + z.prefix + name }

func (z *zipFS) parallelism() int { return 4 }

func (z *zipFS) open(name string) (io.ReadCloser, error) {
	f, ok := z.files[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", z.where(name), errNotFound)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the zip entry (%v)", z.where(name), err)
	}
	return rc, nil
}

func (z *zipFS) stat(name string) (bool, int64, error) {
	f, ok := z.files[name]
	if !ok {
		return false, -1, nil
	}
	size := int64(-1)
	if f.UncompressedSize64 <= math.MaxInt64 {
		size = int64(f.UncompressedSize64)
	}
	return true, size, nil
}

func (z *zipFS) listSchemas() ([]string, error) {
	var names []string
	for rel := range z.files {
		base, ok := strings.CutPrefix(rel, "schemas/")
		if !ok || strings.Contains(base, "/") {
			continue
		}
		name, ok := schemaTableName(base)
		if !ok {
			continue
		}
		if !validTableName(name) {
			return nil, fmt.Errorf("%s: %q is not a table name (letters, digits and _ only)", z.where(rel), name)
		}
		names = append(names, name)
	}
	return names, nil
}

func (z *zipFS) close() error {
	err := z.file.Close()
	if z.tempPath != "" {
		if rerr := os.Remove(z.tempPath); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return fmt.Errorf("catalog source %s: %w", z.desc, err)
	}
	return nil
}
