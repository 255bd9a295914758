package commands

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/urfave/cli/v2"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli and docs/man from the command tree")

var (
	cliDocsDir = testpaths.Repo("docs", "cli")
	manPath    = testpaths.Repo("docs", "man", "timbra.1")
)

// docsApp is the command tree the docs are generated from: a fixed version, so that the
// output does not depend on the build.
func docsApp(t *testing.T) *cli.App {
	cmdtest.Isolate(t)
	app := NewApp(cmdutil.NewFactory(&cmdutil.IOStreams{}, "dev"))
	app.Version = ""
	return app
}

// generatedDocs is every file of docs/cli and the man page, by path, from the command tree.
func generatedDocs(t *testing.T) map[string]string {
	app := docsApp(t)
	files := map[string]string{}
	var idx strings.Builder
	idx.WriteString("<!-- Generated from the command tree by `go test ./commands -run CLIDocs -update`; do not edit. -->\n\n")
	fmt.Fprintf(&idx, "# %s\n\n%s\n\n", app.Name, app.Usage)
	idx.WriteString(preformatted(app.Description))
	idx.WriteString("## Global options\n\n")
	idx.WriteString(flagTable(app.Flags))
	idx.WriteString("## Commands\n\n| command | usage |\n|---|---|\n")
	for _, c := range app.Commands {
		if c.Hidden || c.Name == "help" {
			continue
		}
		file := c.Name + ".md"
		fmt.Fprintf(&idx, "| [%s](%s) | %s |\n", c.Name, file, cell(c.Usage))
		var b strings.Builder
		b.WriteString("<!-- Generated from the command tree by `go test ./commands -run CLIDocs -update`; do not edit. -->\n\n")
		writeCommandDoc(&b, app.Name, c, 1)
		files[filepath.Join(cliDocsDir, file)] = b.String()
	}
	idx.WriteString("\nA manual page with the same content is in `docs/man/timbra.1` (`man ./docs/man/timbra.1`).\n")
	files[filepath.Join(cliDocsDir, "README.md")] = idx.String()
	man, err := app.ToManWithSection(1)
	if err != nil {
		t.Fatal(err)
	}
	files[manPath] = man
	return files
}

func writeCommandDoc(b *strings.Builder, parent string, c *cli.Command, level int) {
	full := parent + " " + c.Name
	level = min(level, 6)
	fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", level), full)
	if c.Usage != "" {
		b.WriteString(c.Usage + "\n\n")
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "Aliases: `%s`\n\n", strings.Join(c.Aliases, "`, `"))
	}
	usage := c.UsageText
	if usage == "" {
		usage = full
		if len(c.Subcommands) > 0 {
			usage += " command"
		}
		if len(visibleFlags(c.Flags)) > 0 {
			usage += " [options]"
		}
		if c.ArgsUsage != "" {
			usage += " " + c.ArgsUsage
		}
	}
	b.WriteString("```\n" + strings.TrimRight(usage, "\n") + "\n```\n\n")
	b.WriteString(preformatted(c.Description))
	if fs := visibleFlags(c.Flags); len(fs) > 0 {
		b.WriteString("Options:\n\n")
		b.WriteString(flagTable(fs))
	}
	for _, s := range c.Subcommands {
		if s.Hidden || s.Name == "help" {
			continue
		}
		writeCommandDoc(b, full, s, level+1)
	}
}

// preformatted keeps a description's layout (its indented examples) as written.
func preformatted(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return "```text\n" + strings.TrimRight(s, "\n") + "\n```\n\n"
}

func visibleFlags(fs []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range fs {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, f)
	}
	return out
}

func flagTable(fs []cli.Flag) string {
	fs = visibleFlags(fs)
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| option | usage | default | environment |\n|---|---|---|---|\n")
	for _, f := range fs {
		var names []string
		for _, n := range f.Names() {
			if len(n) == 1 {
				names = append(names, "`-"+n+"`")
			} else {
				names = append(names, "`--"+n+"`")
			}
		}
		usage, def, env := "", "", ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			usage = d.GetUsage()
			def = d.GetDefaultText()
			if def == "" && d.TakesValue() {
				def = d.GetValue()
			}
			envs := append([]string(nil), d.GetEnvVars()...)
			sort.Strings(envs)
			if len(envs) > 0 {
				env = "`" + strings.Join(envs, "`, `") + "`"
			}
		}
		if def == `""` || def == "false" || def == "[]" {
			def = ""
		}
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", strings.Join(names, ", "), cell(usage), cell(def), env)
	}
	b.WriteString("\n")
	return b.String()
}

func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// TestCLIDocsInStep keeps docs/cli (one Markdown file per top-level command and an index)
// and the man page docs/man/timbra.1 in step with the command tree; run
// `go test ./commands -run CLIDocs -update` after changing a command.
func TestCLIDocsInStep(t *testing.T) {
	want := generatedDocs(t)
	if again := generatedDocs(t); fmt.Sprint(again) != fmt.Sprint(want) {
		t.Fatal("the generated docs differ between two runs: something in them is not deterministic")
	}
	home, _ := os.UserHomeDir()
	for path, content := range want {
		if home != "" && home != "/" && strings.Contains(content, home) {
			t.Errorf("%s names this machine's home directory %s", path, home)
		}
	}
	if *updateDocs {
		old, _ := filepath.Glob(filepath.Join(cliDocsDir, "*.md"))
		for _, p := range old {
			if _, ok := want[p]; !ok {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			}
		}
		for path, content := range want {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for path, content := range want {
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("%s is not in step with the command tree: run go test ./commands -run CLIDocs -update", path)
		}
	}
	have, _ := filepath.Glob(filepath.Join(cliDocsDir, "*.md"))
	for _, p := range have {
		if _, ok := want[p]; !ok {
			t.Errorf("%s documents no command: run go test ./commands -run CLIDocs -update", p)
		}
	}
}
