package testscripts

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/testpaths"
)

// tourStep is one command of README.md's tour: its line(s) as written, and the output lines
// shown after it (`# → …`, where … stands for any text).
type tourStep struct {
	line   int // in README.md, for messages
	cmd    string
	expect []string
}

var (
	tourStart    = "<!-- tour:start -->"
	tourEnd      = "<!-- tour:end -->"
	assignmentRE = regexp.MustCompile(`^([A-Z_][A-Z0-9_]*)=(.*)$`)
	backgroundRE = regexp.MustCompile(`\s&\s*(#.*)?$`)
)

// tourSteps reads the commands of the sh blocks between the tour's markers.
func tourSteps(t *testing.T, readme string) []tourStep {
	t.Helper()
	i, j := strings.Index(readme, tourStart), strings.Index(readme, tourEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %s ... %s", tourStart, tourEnd)
	}
	first := strings.Count(readme[:i], "\n") + 1
	var steps []tourStep
	inSh := false
	lines := strings.Split(readme[i:j], "\n")
	for n := 0; n < len(lines); n++ {
		l := lines[n]
		switch {
		case strings.HasPrefix(l, "```sh"):
			inSh = true
		case strings.HasPrefix(l, "```"):
			inSh = false
		case !inSh || strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "# → "):
			if len(steps) == 0 {
				t.Fatalf("README.md:%d: output before any command", first+n)
			}
			steps[len(steps)-1].expect = append(steps[len(steps)-1].expect, strings.TrimPrefix(l, "# → "))
		case strings.HasPrefix(l, "#"):
		default:
			s := tourStep{line: first + n, cmd: l}
			for strings.HasSuffix(s.cmd, "\\") && n+1 < len(lines) {
				n++
				s.cmd = strings.TrimSuffix(s.cmd, "\\") + " " + strings.TrimSpace(lines[n])
			}
			steps = append(steps, s)
		}
	}
	if len(steps) < 10 {
		t.Fatalf("the tour has %d commands: the markers or the sh blocks moved", len(steps))
	}
	return steps
}

// matchLine turns an expected line into a pattern: … is any text, the rest is literal.
func matchLine(expect string) *regexp.Regexp {
	parts := strings.Split(expect, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?m)^` + strings.Join(parts, ".*") + `$`)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestReadmeTour runs README.md's tour as written, with the real binary, in a folder of its
// own, and checks the output each step shows. README.md says what it changes: ./timbra is the
// binary under test and the receiver is built once; the server's address is a free port (read
// for 127.0.0.1:8080 in the expected output); the catalogs are the tests' small copy; RECEIVER
// is a free port and CSD_DIR the copy of SAT's certificates beside the repository; listen runs
// with --format json in the background, and the inspector is left out (both need a terminal).
func TestReadmeTour(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the tour needs jq")
	}
	csdDir, err := filepath.Abs(testpaths.Shared("sat", "certs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(csdDir, "EKU9003173C9.key")); err != nil {
		t.Skipf("needs SAT's test CSD in %s: %v", csdDir, err)
	}
	raw, err := os.ReadFile(testpaths.Repo("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	steps := tourSteps(t, string(raw))

	work := t.TempDir()
	bin, err := exec.LookPath("timbra") // the test binary as timbra (TestMain)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(work, "timbra")); err != nil {
		t.Fatal(err)
	}
	receiver := filepath.Join(work, "receiver")
	build := exec.Command("go", "build", "-o", receiver, "./examples/receiver")
	build.Dir = testpaths.Repo()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/receiver: %v\n%s", err, out)
	}
	mini, err := filepath.Abs(testpaths.Repo("internal", "catalogs", "testdata", "mini"))
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	vars := map[string]string{"RECEIVER": freeAddr(t), "CSD_DIR": csdDir}
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + work, "XDG_CONFIG_HOME=" + filepath.Join(work, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(work, ".local", "share"), "TIMBRA_KEYRING=file", "NO_COLOR=1", "LANG=C.UTF-8",
		"TIMBRA_ADDR=" + addr, "TIMBRA_BASE_URL=http://" + addr, "TIMBRA_CATALOGS=" + mini, "GORACE=atexit_sleep_ms=0",
	}
	environ := func() []string {
		e := append([]string(nil), env...)
		for k, v := range vars {
			e = append(e, k+"="+v)
		}
		return e
	}

	var background []*exec.Cmd
	t.Cleanup(func() {
		for _, c := range background {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
				<-done
			}
		}
	})
	sh := func(ctx context.Context, cmd string) *exec.Cmd {
		c := exec.CommandContext(ctx, "sh", "-c", cmd)
		c.Dir, c.Env = work, environ()
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return c
	}
	expectations := func(s tourStep) []*regexp.Regexp {
		var res []*regexp.Regexp
		for _, e := range s.expect {
			res = append(res, matchLine(strings.ReplaceAll(e, "127.0.0.1:8080", addr)))
		}
		return res
	}

	for _, s := range steps {
		cmd := s.cmd
		where := fmt.Sprintf("README.md:%d %s", s.line, cmd)
		switch {
		case strings.HasPrefix(cmd, "go build -o timbra ./cmd/timbra"):
			continue // ./timbra is the binary under test
		case strings.HasPrefix(cmd, "./timbra webhooks inspect"), strings.HasPrefix(cmd, "./timbra inspect"):
			continue // a terminal UI: TestInspectInTmux
		case strings.HasPrefix(cmd, "go run ./examples/receiver"):
			cmd = "./receiver" + strings.TrimPrefix(cmd, "go run ./examples/receiver")
		}
		if m := assignmentRE.FindStringSubmatch(cmd); m != nil {
			if m[1] == "RECEIVER" || m[1] == "CSD_DIR" {
				continue // the test's own value
			}
			out, err := sh(context.Background(), cmd+`; printf %s "$`+m[1]+`"`).Output()
			if err != nil || len(out) == 0 || bytes.Contains(out, []byte("null")) {
				t.Fatalf("%s: %q, %v", where, out, err)
			}
			vars[m[1]] = string(out)
			continue
		}
		listen := strings.HasPrefix(cmd, "./timbra listen ")
		if listen { // the live view needs a terminal: JSON lines in the background instead
			cmd = strings.TrimSpace(strings.SplitN(cmd, "#", 2)[0]) + " --format json > listen.log 2>&1 &"
		}
		if backgroundRE.MatchString(cmd) {
			c := sh(context.Background(), backgroundRE.ReplaceAllString(cmd, ""))
			if err := c.Start(); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			background = append(background, c)
			waitReady(t, where, func() bool {
				switch {
				case strings.HasPrefix(cmd, "./timbra server"):
					resp, err := http.Get("http://" + addr + "/healthz")
					if err == nil {
						resp.Body.Close()
					}
					return err == nil && resp.StatusCode == 200
				case strings.HasPrefix(cmd, "./receiver"):
					conn, err := net.Dial("tcp", vars["RECEIVER"])
					if err == nil {
						conn.Close()
					}
					return err == nil
				case listen:
					log, _ := os.ReadFile(filepath.Join(work, "listen.log"))
					return bytes.Contains(log, []byte("Ready: "))
				}
				return true
			})
			continue
		}

		// A foreground command: it must succeed and print every line shown. A cat of a log is
		// read again until the lines are there (what it shows arrives on its own).
		deadline := time.Now().Add(15 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			out, err := sh(ctx, cmd).CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s: %v\n%s", where, err, out)
			}
			var missing []string
			for i, re := range expectations(s) {
				if !re.Match(out) {
					missing = append(missing, s.expect[i])
				}
			}
			if len(missing) == 0 {
				break
			}
			if !strings.HasPrefix(cmd, "cat ") || time.Now().After(deadline) {
				t.Fatalf("%s: the output lacks the lines README.md shows:\n  %s\noutput:\n%s", where, strings.Join(missing, "\n  "), out)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// waitReady waits (at most 30 s) until ready says a background command of the tour is ready.
func waitReady(t *testing.T, where string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not ready after 30 s", where)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The tour's reader: commands (continued lines joined), the output lines after each, comments
// and other blocks left out; … in an expected line is any text.
func TestTourSteps(t *testing.T) {
	readme := "# x\n```sh\n./timbra nothing\n```\n" + tourStart + "\n```sh\n# a comment\n" + strings.Repeat("./timbra people list\n# → ID…OWNER\n", 9) +
		"./timbra tax-files upload --cer a \\\n    --key b   # why\n# → Certificate uploaded (…).\n\nX=$(echo 1)\n```\n```text\nnot a command\n```\n" + tourEnd + "\n"
	steps := tourSteps(t, readme)
	if len(steps) != 11 || steps[0].cmd != "./timbra people list" || steps[0].line != 8 || len(steps[0].expect) != 1 ||
		steps[9].cmd != "./timbra tax-files upload --cer a  --key b   # why" || steps[9].expect[0] != "Certificate uploaded (…)." || steps[10].cmd != "X=$(echo 1)" {
		t.Fatalf("steps: %+v", steps)
	}
	re := matchLine("Certificate uploaded (…).")
	if !re.MatchString("Certificate uploaded (01a2-x).\n") || re.MatchString("Certificate uploaded (01a2-x)!\n") || !matchLine("…EKU9003173C9…CSD key…").MatchString("a\tEKU9003173C9\tCSD key\t1\n") {
		t.Fatal("matchLine")
	}
}
