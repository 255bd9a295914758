package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/internal/testpaths"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/urfave/cli/v2"
)

// The guides (docs/guides/*.md) and README.md show timbra commands to copy. TestGuideCommands
// keeps them true to the command tree: every `timbra …` line of their sh and console blocks must
// name commands that exist and only flags those commands take.

// guideFiles are the documents whose commands are checked.
func guideFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(testpaths.Repo("docs", "guides", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no guides in docs/guides")
	}
	return append(files, testpaths.Repo("README.md"))
}

func TestGuideCommands(t *testing.T) {
	app := docsApp(t)
	for _, file := range guideFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(testpaths.Repo(), file)
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
				return fmt.Sprintf("%s: unknown flag %s", path, cmdutil.Dashes(name))
			}
			if !hasValue && cmdutil.TakesValue(flags, name) {
				i++
			}
			continue
		}
		if descend {
			if sub := cmdutil.FindCommand(commands, a); sub != nil {
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
	return action == nil || reflect.ValueOf(action).Pointer() == reflect.ValueOf(cli.ActionFunc(cmdutil.GroupAction)).Pointer()
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

// TestGuideReceivers runs the verification code the developer guide gives to paste (its go and
// js blocks) on deliveries signed by timbra's own signer: a good one, one during a secret
// rotation (two signatures), and a wrong secret, a changed body and an old timestamp, which
// must be refused. It needs the go and node commands, as CI has.
func TestGuideReceivers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the guide's code")
	}
	doc, err := os.ReadFile(testpaths.Repo("docs", "guides", "developer.md"))
	if err != nil {
		t.Fatal(err)
	}
	cases := receiverCases(t)
	t.Run("go", func(t *testing.T) {
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go command")
		}
		src := fencedBlock(t, string(doc), "go")
		// The snippet is a whole program; its main (a server on a fixed port) is renamed, left
		// unused, and the driver's main calls its verify on each case instead.
		src = strings.Replace(src, "\nfunc main() {", "\nfunc guideMain() {", 1)
		if !strings.Contains(src, "func guideMain() {") || !strings.Contains(src, "func verify(") {
			t.Fatal("the go block of developer.md has no func main or func verify")
		}
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"go.mod":    "module guide\n\ngo 1.22\n",
			"guide.go":  src,
			"driver.go": goDriver,
		})
		runDriver(t, cases, dir, goBin, "run", ".")
	})
	t.Run("node", func(t *testing.T) {
		nodeBin, err := exec.LookPath("node")
		if err != nil {
			t.Skip("no node command")
		}
		src := fencedBlock(t, string(doc), "js")
		i := strings.Index(src, "function verify(")
		j := strings.Index(src[max(i, 0):], "\n}\n")
		if i < 0 || j < 0 {
			t.Fatal("the js block of developer.md has no function verify")
		}
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"driver.js": jsPrelude + src[i:i+j+3] + jsDriver})
		runDriver(t, cases, dir, nodeBin, "driver.js")
	})
}

type receiverCase struct {
	Name    string            `json:"name"`
	Secret  string            `json:"secret"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	OK      bool              `json:"ok"`
}

func receiverCases(t *testing.T) []receiverCase {
	t.Helper()
	oldSecret, newSecret := webhook.NewSecret(), webhook.NewSecret()
	body := `{"id":"01a203de-27dd-7041-9e15-d5f695534843","type":"invoice.stamped","createdAt":"2026-11-22T15:27:00.573Z","personId":null,"data":{"status":"Vigente","previousStatus":"","note":"año ñ"}}`
	id := "01a203de-27dd-7041-9e15-d5f695534843"
	signed := func(secrets []string, ts time.Time) map[string]string {
		sig, err := webhook.Sign(secrets, id, ts, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		h := map[string]string{}
		for k, v := range webhook.Headers(id, ts, sig) {
			h[strings.ToLower(k)] = v[0]
		}
		return h
	}
	now := time.Now()
	return []receiverCase{
		{Name: "signed", Secret: oldSecret, Headers: signed([]string{oldSecret}, now), Body: body, OK: true},
		{Name: "rotation, new secret", Secret: newSecret, Headers: signed([]string{newSecret, oldSecret}, now), Body: body, OK: true},
		{Name: "rotation, old secret", Secret: oldSecret, Headers: signed([]string{newSecret, oldSecret}, now), Body: body, OK: true},
		{Name: "wrong secret", Secret: newSecret, Headers: signed([]string{oldSecret}, now), Body: body},
		{Name: "changed body", Secret: oldSecret, Headers: signed([]string{oldSecret}, now), Body: strings.Replace(body, "Vigente", "Cancelado", 1)},
		{Name: "old timestamp", Secret: oldSecret, Headers: signed([]string{oldSecret}, now.Add(-10*time.Minute)), Body: body},
	}
}

// runDriver writes the cases to cases.json in dir, runs the driver there, and checks its one
// line per case: "ok" or "refused: <error>".
func runDriver(t *testing.T, cases []receiverCase, dir string, name string, args ...string) {
	t.Helper()
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"cases.json": string(data)})
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("driver printed %d lines for %d cases:\n%s", len(lines), len(cases), out)
	}
	for i, c := range cases {
		if got := lines[i] == "ok"; got != c.OK {
			t.Errorf("%s: the guide's verify answered %q, want ok=%v", c.Name, lines[i], c.OK)
		}
	}
}

// fencedBlock returns the content of the first fenced block of the language given.
func fencedBlock(t *testing.T, doc, lang string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n```"+lang+"\n")
	if !ok {
		t.Fatalf("no %s block", lang)
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatalf("unclosed %s block", lang)
	}
	return block + "\n"
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

const goDriver = `package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
)

func main() {
	var cases []struct {
		Secret  string            ` + "`json:\"secret\"`" + `
		Headers map[string]string ` + "`json:\"headers\"`" + `
		Body    string            ` + "`json:\"body\"`" + `
	}
	data, err := os.ReadFile("cases.json")
	if err == nil {
		err = json.Unmarshal(data, &cases)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.Headers {
			h.Set(k, v)
		}
		if err := verify(c.Secret, h, []byte(c.Body)); err != nil {
			fmt.Println("refused:", err)
		} else {
			fmt.Println("ok")
		}
	}
}
`

const jsPrelude = `const crypto = require("node:crypto");
const fs = require("node:fs");
`

const jsDriver = `
for (const c of JSON.parse(fs.readFileSync("cases.json", "utf8"))) {
  try {
    verify(c.secret, c.headers, Buffer.from(c.body, "utf8"));
    console.log("ok");
  } catch (e) {
    console.log("refused: " + e.message);
  }
}
`
