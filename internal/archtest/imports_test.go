// Package archtest checks the architecture ARCHITECTURE.md states: its table of which of
// timbra's packages may import which, against the imports go list reports.
package archtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

const module = "github.com/timbra-mx/timbra"

// rule is a row of the table: the packages it covers and the packages they may import, as
// patterns relative to the module ("…" at the end: the folder and any depth below it; "anything";
// "nothing").
type rule struct {
	line     int
	packages []string
	allowed  []string
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// rules reads the table under "## Who may import whom".
func rules(t *testing.T) []rule {
	t.Helper()
	doc, err := os.ReadFile(testpaths.Repo("ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []rule
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Who may import whom"
		case in && strings.HasPrefix(line, "| `"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 2 {
				t.Fatalf("ARCHITECTURE.md:%d: a row of the import table has %d cells, want 2", n, len(cells))
			}
			r := rule{line: n}
			for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
				r.packages = append(r.packages, m[1])
			}
			allowed := cells[1]
			switch {
			case strings.HasPrefix(strings.TrimSpace(allowed), "anything"):
				r.allowed = []string{"anything"}
			case strings.HasPrefix(strings.TrimSpace(allowed), "nothing"):
				// "nothing (`x`: `y`)": x may import y
				if i := strings.Index(allowed, "("); i >= 0 {
					spans := codeSpan.FindAllStringSubmatch(allowed[i:], -1)
					if len(spans) >= 2 {
						out = append(out, rule{line: n, packages: []string{spans[0][1]}, allowed: pluck(spans[1:])})
					}
				}
				r.allowed = nil
			default:
				r.allowed = pluck(codeSpan.FindAllStringSubmatch(allowed, -1))
			}
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		t.Fatal(`ARCHITECTURE.md has no import table under "## Who may import whom"`)
	}
	return out
}

func pluck(ms [][]string) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m[1])
	}
	return out
}

// matches tells whether pkg (relative to the module) fits pattern.
func matches(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/…"); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	ok, _ := path.Match(pattern, pkg)
	return ok
}

// ruleFor is the first row that covers pkg; a more precise row (an exact name) wins over a
// folder pattern.
func ruleFor(rs []rule, pkg string) *rule {
	var found *rule
	for i := range rs {
		for _, p := range rs[i].packages {
			if !matches(p, pkg) {
				continue
			}
			if p == pkg {
				return &rs[i]
			}
			if found == nil {
				found = &rs[i]
			}
		}
	}
	return found
}

type listed struct {
	ImportPath string
	Imports    []string
}

// TestImportRules checks every package's imports (of its code, not its tests) against the table,
// and that the table covers every package.
func TestImportRules(t *testing.T) {
	rs := rules(t)
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = testpaths.Repo()
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	checked := 0
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		r := ruleFor(rs, pkg)
		if r == nil {
			t.Errorf("%s is in no row of ARCHITECTURE.md's import table: add it", pkg)
			continue
		}
		checked++
		if len(r.allowed) == 1 && r.allowed[0] == "anything" {
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue // the standard library or a module
			}
			allowed := false
			for _, a := range r.allowed {
				allowed = allowed || matches(a, dep)
			}
			if !allowed {
				t.Errorf("%s imports %s, which ARCHITECTURE.md:%d does not allow (%s may import %v)", pkg, dep, r.line, strings.Join(r.packages, ", "), r.allowed)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages checked: go list gave too little", checked)
	}
}

// TestImportRulesCatchHTTPInRules makes sure the table would catch the mistake it exists for:
// a rule package importing the HTTP layer or the CLI.
func TestImportRulesCatchHTTPInRules(t *testing.T) {
	rs := rules(t)
	for _, c := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"internal/invoices", "server", false},
		{"internal/webhooks", "commands", false},
		{"internal/people", "tui", false},
		{"storage", "internal/people", false},
		{"listener", "server", false},
		{"internal/invoices", "storage", true},
		{"server", "internal/invoices", true},
		{"storage/storagetest", "storage", true},
	} {
		r := ruleFor(rs, c.pkg)
		if r == nil {
			t.Fatalf("no row for %s", c.pkg)
		}
		allowed := false
		for _, a := range r.allowed {
			allowed = allowed || a == "anything" || matches(a, c.dep)
		}
		if allowed != c.ok {
			t.Errorf("%s importing %s: allowed = %v, want %v (ARCHITECTURE.md:%d)", c.pkg, c.dep, allowed, c.ok, r.line)
		}
	}
}
