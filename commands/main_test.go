package commands

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/timbra-mx/timbra/commands/cmdtest"
)

// TestMainHelper runs Main in a child process started by the tests below.
func TestMainHelper(t *testing.T) {
	if os.Getenv("TIMBRA_TEST_MAIN") != "1" {
		t.Skip("helper process")
	}
	os.Args = append([]string{"timbra"}, strings.Fields(os.Getenv("TIMBRA_TEST_ARGS"))...)
	os.Exit(Main())
}

func mainProcess(t *testing.T, args string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelper$")
	cmd.Env = append(os.Environ(), "TIMBRA_TEST_MAIN=1", "TIMBRA_TEST_ARGS="+args)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, &out, &errb
}

func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

func TestMainUsesProcessStreams(t *testing.T) {
	cmdtest.Isolate(t)
	cmd, out, errb := mainProcess(t, "--version")
	if code := exitCodeOf(t, cmd.Run()); code != 0 || out.String() != "timbra "+version+"\n" {
		t.Fatalf("code %d stdout %q stderr %q", code, out, errb)
	}
	cmd, out, errb = mainProcess(t, "people list --nope")
	if code := exitCodeOf(t, cmd.Run()); code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "unknown flag: --nope") {
		t.Fatalf("code %d stdout %q stderr %q", code, out, errb)
	}
}

// SIGINT cancels the request in flight; the command stops with 130.
func TestMainInterruptedBySignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a child process cannot be sent SIGINT on Windows")
	}
	cmdtest.Isolate(t)
	arrived := make(chan struct{})
	var once sync.Once
	srv := cmdtest.NewFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(arrived) })
		<-r.Context().Done()
	})
	cmdtest.UseAPI(t, srv.URL)
	cmd, out, errb := mainProcess(t, "people list")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("ended before its request arrived: %v\nstdout %q\nstderr %q", err, out, errb)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := exitCodeOf(t, <-done)
	if code != 130 || !strings.Contains(errb.String(), "interrupted") {
		t.Fatalf("code %d stdout %q stderr %q", code, out, errb)
	}
}
