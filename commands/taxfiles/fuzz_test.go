package taxfiles

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzCSVManifest: the manifest `timbra tax-files bulk-upload MANIFEST` reads. Any text
// gives either pairs or a *manifestError naming lines, never both; each pair has a person, both
// paths (relative ones under the CSV's folder) and a password reference; and no message quotes
// what was written in the password column, which may be a password written where a
// reference belongs.
func FuzzCSVManifest(f *testing.F) {
	for _, s := range []string{
		"person,cer,key,password\nEKU9003173C9,a.cer,a.key,file:pw.txt\n",
		"\ufeffPassword, key ,cer,person\nenv:PW,/abs/k.key,c.cer,01a2\n# comment\n\n",
		"person,cer,key,password\nX,a.cer,a.key,Secreto123\n",
		"person,cer,key\n",
		"person,cer,key,password\n\"unterminated,a,b,c\n",
		"person,person,key,password\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		pairs, err := parseCSVManifest(strings.NewReader(text), filepath.Join("in", "m.csv"))
		if err != nil {
			if pairs != nil {
				t.Fatalf("pairs and an error: %v", err)
			}
			var me *manifestError
			if errors.As(err, &me) {
				if len(me.Lines) == 0 {
					t.Fatalf("a manifest error without lines")
				}
				// the messages' own words (the columns, the header) are not quoted from the input,
				// even where a password cell happens to equal one of them
				msg := strings.ReplaceAll(err.Error(), strings.Join(manifestColumns, ","), "")
				for _, c := range manifestColumns {
					msg = strings.ReplaceAll(msg, strconv.Quote(c), "")
				}
				// nor the header's own cells, which a message names as written (an unknown column)
				header, _, _ := strings.Cut(text, "\n")
				for _, h := range strings.Split(header, ",") {
					msg = strings.ReplaceAll(msg, strconv.Quote(strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))), "")
				}
				for _, c := range manifestColumns { // and named bare ("password must be file:PATH or env:NAME")
					msg = strings.ReplaceAll(msg, c, "")
				}
				for _, w := range []string{"missing column", "unknown column", "given twice", "fields, want", "manifest", "line", "empty", "file:PATH", "env:NAME"} {
					msg = strings.ReplaceAll(msg, w, "")
				}
				for _, secret := range passwordCells(text) {
					if len(secret) >= 6 && strings.Contains(msg, secret) {
						t.Fatalf("the error quotes the password column %q: %v", secret, err)
					}
				}
			}
			return
		}
		for _, p := range pairs {
			if p.Person == "" || p.Cer == "" || p.Key == "" || (p.Password.File == "") == (p.Password.Env == "") {
				t.Fatalf("incomplete pair %+v", p)
			}
			for _, path := range []string{p.Cer, p.Key, p.Password.File} {
				if path != "" && !filepath.IsAbs(path) && !strings.HasPrefix(path, "in"+string(filepath.Separator)) && path != "in" && !strings.HasPrefix(path, "..") {
					t.Fatalf("relative path %q not under the manifest's folder", path)
				}
			}
			if p.Password.Env != "" && !validEnvName(p.Password.Env) {
				t.Fatalf("bad environment name %q", p.Password.Env)
			}
		}
	})
}

// passwordCells are the values of a "password" column that are not references, as far as a
// plain split of the text can tell (what the manifest must never echo).
func passwordCells(text string) []string {
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.Contains(text, "\"") { // quotes: a plain split cannot tell the cells
		return nil
	}
	idx := -1
	for i, h := range strings.Split(lines[0], ",") {
		if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), "password") {
			idx = i
		}
	}
	if idx < 0 {
		return nil
	}
	var out []string
	for _, l := range lines[1:] {
		cells := strings.Split(l, ",")
		if idx < len(cells) {
			v := strings.TrimSpace(cells[idx])
			if !strings.HasPrefix(v, "file:") && !strings.HasPrefix(v, "env:") && !strings.ContainsAny(v, "\"#") {
				out = append(out, v)
			}
		}
	}
	return out
}

// FuzzFolderManifest: the folder form of the manifest, built from the input (one path per line,
// "/" between a subfolder and a file; a trailing "/" makes a folder). Every subfolder not starting
// with a dot is one pair (none is an error); a pair without a problem has its .cer, its .key and password.txt, and
// a pair with a problem says what is missing.
func FuzzFolderManifest(f *testing.F) {
	f.Add("EKU9003173C9/a.cer\nEKU9003173C9/a.key\nEKU9003173C9/password.txt")
	f.Add("AAA010101AAA/x.CER\nAAA010101AAA/y.key\nAAA010101AAA/z.key\nBBB/\n.hidden/a.cer\ntop.cer")
	f.Add("R/password.txt/\nR/.a.cer\nR/b.cer/")
	f.Fuzz(func(t *testing.T, layout string) {
		dir := t.TempDir()
		subs := map[string]bool{}
		for _, line := range strings.Split(layout, "\n") {
			if line == "" || strings.Contains(line, "\x00") || strings.Contains(line, "..") || strings.HasPrefix(line, "/") || strings.Count(line, "/") > 2 || len(line) > 100 {
				continue
			}
			p := filepath.Join(dir, filepath.FromSlash(line))
			var err error
			if strings.HasSuffix(line, "/") {
				err = os.MkdirAll(p, 0o700)
			} else if err = os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
				err = os.WriteFile(p, []byte("x"), 0o600)
			}
			if err != nil {
				continue // a name the file system refuses, or a file where a folder is
			}
		}
		ents, _ := os.ReadDir(dir)
		folders := 0 // two names may upper-case alike ("abc", "ABC"; invalid UTF-8): one pair each
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				subs[strings.ToUpper(e.Name())] = true
				folders++
			}
		}
		pairs, err := readFolderManifest(dir)
		if len(subs) == 0 {
			if err == nil {
				t.Fatalf("no subfolder but no error: %+v", pairs)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(pairs) != folders {
			t.Fatalf("%d pairs for %d subfolders", len(pairs), folders)
		}
		for _, p := range pairs {
			if !subs[p.Person] {
				t.Fatalf("pair of %q, which is no subfolder", p.Person)
			}
			if p.Problem == "" {
				if !strings.EqualFold(filepath.Ext(p.Cer), ".cer") || !strings.EqualFold(filepath.Ext(p.Key), ".key") {
					t.Fatalf("complete pair without its files: %+v", p)
				}
				if _, err := os.Stat(p.Password.File); err != nil {
					t.Fatalf("complete pair without password.txt: %+v", p)
				}
			}
		}
	})
}
