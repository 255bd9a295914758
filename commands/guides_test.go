package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// The guides (docs/guides/*.md) and README.md show timbra commands to copy. TestGuideCommands
// keeps them true to the command tree: every `timbra …` line of their sh and console blocks must
// name commands that exist and only flags those commands take.

// guideFiles are the documents whose commands are checked, relative to this package.
func guideFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../docs/guides/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no guides in ../docs/guides")
	}
	return append(files, "../README.md")
}

func TestGuideCommands(t *testing.T) {
	app := docsApp(t)
	for _, file := range guideFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(file), "../")
		lines := guideCommandLines(string(text))
		checked := 0
		for _, l := range lines {
			for _, inv := range timbraInvocations(l.text) {
				checked++
				if problem := checkInvocation(app, inv); problem != "" {
					t.Errorf("%s:%d: %s\n\t%s", name, l.line, problem, l.text)
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no timbra command found in its sh or console blocks", name)
		}
	}
}

// TestGuideChecker shows that the check finds what it is for: made-up commands and flags, in
// every form a guide writes a command.
func TestGuideChecker(t *testing.T) {
	app := docsApp(t)
	doc := "text\n\n```sh\n" +
		"./timbra people list -o json   # fine\n" +
		"timbra peple list\n" + // 5
		"TIMBRA_ADMIN_TOKEN=x timbra server backup out.db --base-url http://h --bogus\n" + // 6
		"timbra webhooks create --url https://x \\\n  --events '*' --secret-stdin\n" + // 7
		"echo \"$(timbra listen --print-secrets)\"\n" + // 9
		"cat <<'EOF' > m.csv\ntimbra --not-checked\nEOF\n" +
		"timbra events list | jq . && timbra trigger invoice.canceled --webhook-id W --wait\n" + // 13
		"sudo -u timbra timbra server check --data /var/lib/timbra/timbra.db --fast\n" + // 14
		"```\n\n```console\n" +
		"$ timbra catalogs status\n" +
		"timbra --this-is-output\n" +
		"$ timbra people get ID --expand\n" + // 20
		"```\n\n```go\ntimbra --not-a-shell-block\n```\n"
	var got []string
	for _, l := range guideCommandLines(doc) {
		for _, inv := range timbraInvocations(l.text) {
			if p := checkInvocation(app, inv); p != "" {
				got = append(got, fmt.Sprintf("%d: %s", l.line, p))
			}
		}
	}
	want := []string{
		`5: timbra: unknown command "peple"`,
		`6: timbra server backup: unknown flag --bogus`,
		`7: timbra webhooks create: unknown flag --secret-stdin`,
		`9: timbra listen: unknown flag --print-secrets`,
		`13: timbra trigger: unknown flag --wait`,
		`14: timbra server check: unknown flag --fast`,
		`20: timbra people get: unknown flag --expand`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type guideLine struct {
	line int    // 1-based line of the document where the command starts
	text string // the command, continuation lines joined
}

var fenceRE = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_-]*)")

// guideCommandLines returns the command lines of a Markdown document's sh, bash, shell and
// console blocks. In a console block only lines with a `$ ` prompt are commands (the rest is
// output); a trailing backslash continues a command on the next line; here-documents are skipped.
func guideCommandLines(doc string) []guideLine {
	var out []guideLine
	lines := strings.Split(doc, "\n")
	fence, kind := "", ""
	heredoc := ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			if fence == "" {
				fence, kind = m[1], strings.ToLower(m[2])
				continue
			}
			if strings.HasPrefix(strings.TrimSpace(l), fence) && m[2] == "" {
				fence, kind, heredoc = "", "", ""
				continue
			}
		}
		if fence == "" {
			continue
		}
		if heredoc != "" {
			if strings.TrimSpace(l) == heredoc {
				heredoc = ""
			}
			continue
		}
		var cmd string
		switch kind {
		case "sh", "bash", "shell":
			cmd = l
		case "console":
			t := strings.TrimLeft(l, " ")
			if !strings.HasPrefix(t, "$ ") {
				continue
			}
			cmd = t[2:]
		default:
			continue
		}
		start := i
		for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
			i++
			next := lines[i]
			if kind == "console" {
				next = strings.TrimPrefix(strings.TrimLeft(next, " "), "> ")
			}
			cmd = strings.TrimSuffix(cmd, "\\") + " " + next
		}
		heredoc = heredocEnd(cmd)
		if strings.TrimSpace(cmd) != "" {
			out = append(out, guideLine{line: start + 1, text: cmd})
		}
	}
	return out
}

var heredocRE = regexp.MustCompile(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)

func heredocEnd(cmd string) string {
	if m := heredocRE.FindStringSubmatch(cmd); m != nil {
		return m[1]
	}
	return ""
}

// timbraInvocations splits a shell line into simple commands (at |, &&, ||, ; and &, and inside
// $(...)) and returns the arguments of those that run timbra: `timbra`, `./timbra` or any path
// ending in /timbra, also after variable assignments and `sudo -u USER`, and `go run ./cmd/timbra`.
func timbraInvocations(line string) [][]string {
	var out [][]string
	for _, words := range simpleCommands(line) {
		for len(words) > 0 && (isAssignment(words[0]) || shellKeywords[words[0]]) {
			words = words[1:]
		}
		if len(words) > 0 && words[0] == "sudo" {
			words = words[1:]
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				if words[0] == "-u" || words[0] == "-g" {
					words = words[1:]
				}
				if len(words) > 0 {
					words = words[1:]
				}
			}
		}
		if len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/timbra" {
			out = append(out, words[3:])
			continue
		}
		if len(words) > 0 && (words[0] == "timbra" || strings.HasSuffix(words[0], "/timbra")) {
			out = append(out, words[1:])
		}
	}
	return out
}

// shellKeywords may come before a command: `while …; do timbra …; done`.
var shellKeywords = map[string]bool{"do": true, "then": true, "else": true, "exec": true, "time": true, "!": true}

var assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(w string) bool { return assignmentRE.MatchString(w) }

// simpleCommands is a small shell lexer: quotes, backslashes, comments, operators and
// redirections (whose targets are dropped). Each $(...) is a command of its own and one word of
// the command around it.
func simpleCommands(line string) [][]string {
	var cmds [][]string
	var cur []string
	var word strings.Builder
	inWord := false
	redirect := false
	endWord := func() {
		if !inWord {
			return
		}
		if redirect {
			redirect = false
		} else {
			cur = append(cur, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	// subst reads a $( ... ) starting at i (at the '$'), returns its inner text and the index
	// after the closing parenthesis.
	subst := func(i int) (string, int) {
		depth := 0
		for j := i + 1; j < len(line); j++ {
			switch line[j] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					return line[i+2 : j], j + 1
				}
			}
		}
		return line[i+2:], len(line)
	}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			word.WriteByte(line[i+1])
			inWord = true
			i += 2
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			i++
			for i < len(line) && line[i] != '"' {
				if line[i] == '\\' && i+1 < len(line) {
					word.WriteByte(line[i+1])
					i += 2
					continue
				}
				if strings.HasPrefix(line[i:], "$(") {
					inner, next := subst(i)
					cmds = append(cmds, simpleCommands(inner)...)
					word.WriteString("X")
					i = next
					continue
				}
				word.WriteByte(line[i])
				i++
			}
			inWord = true
			i++
		case strings.HasPrefix(line[i:], "$("):
			inner, next := subst(i)
			cmds = append(cmds, simpleCommands(inner)...)
			word.WriteString("X")
			inWord = true
			i = next
		case c == '#' && !inWord:
			i = len(line)
		case c == ' ' || c == '\t':
			endWord()
			i++
		case c == '|' || c == '&' || c == ';':
			endCmd()
			i++
		case c == '<' || c == '>':
			// 2>, &> and >> are one redirection: a number just read is its descriptor
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			endWord()
			for i < len(line) && (line[i] == '<' || line[i] == '>' || line[i] == '&') {
				i++
			}
			redirect = true
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCmd()
	return cmds
}

// checkInvocation walks args (what follows `timbra`) down the command tree as the parser does
// (reorderArgs): names of subcommands descend until the first positional argument; every flag
// must be one of the command reached so far. It returns the first problem, or "".
func checkInvocation(app *cli.App, args []string) string {
	path := app.Name
	commands, flags := app.Commands, app.Flags
	var cmd *cli.Command
	descend := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !flagKnown(flags, name) && !builtinFlag(name, cmd == nil) {
				return fmt.Sprintf("%s: unknown flag %s", path, dashes(name))
			}
			if !hasValue && takesValue(flags, name) {
				i++
			}
			continue
		}
		if descend {
			if sub := findCommand(commands, a); sub != nil {
				cmd, commands, flags = sub, sub.Subcommands, sub.Flags
				path += " " + sub.Name
				continue
			}
			if len(commands) > 0 && isGroup(app, cmd) {
				return fmt.Sprintf("%s: unknown command %q", path, a)
			}
			descend = false
		}
	}
	return ""
}

// isGroup tells whether cmd (nil for the app) only dispatches to its subcommands, so that a word
// that names none of them is an unknown command (`timbra validate FILE` has an action of its own).
func isGroup(app *cli.App, cmd *cli.Command) bool {
	action := app.Action
	if cmd != nil {
		action = cmd.Action
	}
	return action == nil || reflect.ValueOf(action).Pointer() == reflect.ValueOf(cli.ActionFunc(groupAction)).Pointer()
}

func flagKnown(flags []cli.Flag, name string) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// builtinFlag tells the flags the cli package adds when it runs: help everywhere, the version
// at the top.
func builtinFlag(name string, top bool) bool {
	return name == "help" || name == "h" || (top && (name == "version" || name == "v"))
}
