package taxfiles

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/timbra-mx/timbra/commands/cmdutil"
)

// The manifests of `timbra tax-files bulk-upload`: a CSV file or a folder, each read into the
// same list of pairs before anything is sent.
//
// CSV: a header line naming the columns person, cer, key and password (in any order, each once,
// no other column), then one pair per line. person is a person id or an RFC (the person of the
// tenant whose tin it is); cer and key are paths, relative to the CSV's folder unless absolute;
// password is file:PATH (the first line of that file, relative like cer and key) or env:NAME
// (the environment variable). Blank lines and lines starting with # are ignored. A line that
// does not follow this is a manifest error, reported with its line number, and nothing is sent.
//
// Folder: one subfolder per person, named by the person's RFC, holding exactly one file ending
// in .cer, exactly one ending in .key and a password.txt whose first line is the key's password.
// Names starting with a dot are ignored, and so are other files, nested folders and files at
// the top level. A subfolder that does not hold these is a pair that fails alone.

// bulkSecret says where a pair's password comes from; the password itself is read only when
// the pair is validated, and is never part of a message.
type bulkSecret struct {
	File string // a path whose first line is the password
	Env  string // an environment variable
}

func (s bulkSecret) String() string {
	if s.Env != "" {
		return "env:" + s.Env
	}
	return "file:" + s.File
}

// read returns the password.
func (s bulkSecret) read(getenv func(string) (string, bool)) (string, error) {
	if s.Env != "" {
		v, ok := getenv(s.Env)
		if !ok {
			return "", fmt.Errorf("the environment variable %s of the password is not set", s.Env)
		}
		return v, nil
	}
	p, err := cmdutil.SecretFromFile(s.File)
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	return *p, nil
}

// bulkPair is one certificate and key of a manifest.
type bulkPair struct {
	Source   string // where it was read: "tax-files.csv:3" or the subfolder
	Person   string // a person id or an RFC, as written
	Cer, Key string
	Password bulkSecret
	Problem  string // a folder pair that is not complete fails with this, without being sent
}

// manifestError lists every line of a manifest that could not be read.
type manifestError struct {
	Path  string
	Lines []string
}

func (e *manifestError) Error() string {
	return fmt.Sprintf("manifest %s:\n  %s", e.Path, strings.Join(e.Lines, "\n  "))
}

// readManifest reads a CSV file or a folder.
func readManifest(path string) ([]bulkPair, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if st.IsDir() {
		return readFolderManifest(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	defer f.Close()
	return parseCSVManifest(f, path)
}

var manifestColumns = []string{"person", "cer", "key", "password"}

// parseCSVManifest reads the CSV manifest of r; name is its path, which relative paths are
// relative to.
func parseCSVManifest(r io.Reader, name string) ([]bulkPair, error) {
	dir := filepath.Dir(name)
	base := filepath.Base(name)
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	merr := &manifestError{Path: name}
	var pairs []bulkPair
	col := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				merr.Lines = append(merr.Lines, fmt.Sprintf("line %d: %v", pe.Line, pe.Err))
				if len(merr.Lines) > 20 {
					break
				}
				continue
			}
			return nil, fmt.Errorf("manifest %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(col) == 0 {
			if msg := readManifestHeader(rec, col); msg != "" {
				return nil, &manifestError{Path: name, Lines: []string{fmt.Sprintf("line %d: %s", line, msg)}}
			}
			continue
		}
		if len(rec) != len(manifestColumns) {
			merr.Lines = append(merr.Lines, fmt.Sprintf("line %d: %d fields, want %d (%s)", line, len(rec), len(manifestColumns), strings.Join(manifestColumns, ",")))
			continue
		}
		get := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		p := bulkPair{Source: fmt.Sprintf("%s:%d", base, line), Person: get("person")}
		var msgs []string
		for _, c := range manifestColumns {
			if get(c) == "" {
				msgs = append(msgs, "empty "+c)
			}
		}
		if get("cer") != "" {
			p.Cer = manifestPath(dir, get("cer"))
		}
		if get("key") != "" {
			p.Key = manifestPath(dir, get("key"))
		}
		if pw := get("password"); pw != "" {
			kind, v, ok := strings.Cut(pw, ":")
			switch {
			case ok && kind == "file" && v != "":
				p.Password.File = manifestPath(dir, v)
			case ok && kind == "env" && validEnvName(v):
				p.Password.Env = v
			default:
				// never quote the value: it may be a password written where a reference belongs
				msgs = append(msgs, "password must be file:PATH or env:NAME")
			}
		}
		if len(msgs) > 0 {
			merr.Lines = append(merr.Lines, fmt.Sprintf("line %d: %s", line, strings.Join(msgs, "; ")))
			continue
		}
		pairs = append(pairs, p)
	}
	if len(col) == 0 && len(merr.Lines) == 0 {
		merr.Lines = append(merr.Lines, "no header line: want "+strings.Join(manifestColumns, ","))
	}
	if len(merr.Lines) > 0 {
		return nil, merr
	}
	return pairs, nil
}

func readManifestHeader(rec []string, col map[string]int) string {
	for i, h := range rec {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		known := false
		for _, c := range manifestColumns {
			known = known || c == h
		}
		if !known {
			clear(col)
			return fmt.Sprintf("unknown column %q: the header is %s", h, strings.Join(manifestColumns, ","))
		}
		if _, dup := col[h]; dup {
			clear(col)
			return fmt.Sprintf("column %q given twice", h)
		}
		col[h] = i
	}
	for _, c := range manifestColumns {
		if _, ok := col[c]; !ok {
			clear(col)
			return fmt.Sprintf("missing column %q: the header is %s", c, strings.Join(manifestColumns, ","))
		}
	}
	return ""
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func validEnvName(s string) bool { return envNameRE.MatchString(s) }

func manifestPath(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// passwordFileName is the file of a folder manifest's subfolder that holds the password.
const passwordFileName = "password.txt"

// readFolderManifest reads a folder laid out one RFC per subfolder.
func readFolderManifest(dir string) ([]bulkPair, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	var pairs []bulkPair
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		p := bulkPair{Source: sub, Person: strings.ToUpper(e.Name())}
		files, err := os.ReadDir(sub)
		if err != nil {
			p.Problem = err.Error()
			pairs = append(pairs, p)
			continue
		}
		var cers, keys []string
		hasPassword := false
		for _, f := range files {
			name := f.Name()
			if strings.HasPrefix(name, ".") || !f.Type().IsRegular() && f.Type()&fs.ModeSymlink == 0 {
				continue
			}
			switch ext := strings.ToLower(filepath.Ext(name)); {
			case ext == ".cer":
				cers = append(cers, name)
			case ext == ".key":
				keys = append(keys, name)
			case name == passwordFileName:
				hasPassword = true
			}
		}
		sort.Strings(cers)
		sort.Strings(keys)
		var msgs []string
		for _, x := range []struct {
			kind  string
			names []string
		}{{".cer", cers}, {".key", keys}} {
			switch len(x.names) {
			case 0:
				msgs = append(msgs, "no "+x.kind+" file")
			case 1:
			default:
				msgs = append(msgs, fmt.Sprintf("%d %s files (%s), want one", len(x.names), x.kind, strings.Join(x.names, ", ")))
			}
		}
		if !hasPassword {
			msgs = append(msgs, "no "+passwordFileName)
		}
		if len(cers) == 1 {
			p.Cer = filepath.Join(sub, cers[0])
		}
		if len(keys) == 1 {
			p.Key = filepath.Join(sub, keys[0])
		}
		p.Password.File = filepath.Join(sub, passwordFileName)
		p.Problem = strings.Join(msgs, "; ")
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 {
		return nil, fmt.Errorf("manifest %s: no subfolder (want one folder per RFC with its .cer, .key and %s)", dir, passwordFileName)
	}
	return pairs, nil
}
