package testscripts

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
)

// tmuxWait bounds each wait of the terminal test: generous, because under -race the binary is
// slow to start; every wait polls and ends as soon as the screen shows what it waits for.
const tmuxWait = 45 * time.Second

// TestInspectInTmux drives `timbra webhooks inspect` in a real terminal: tmux runs it in a
// detached session on its own socket, send-keys types, capture-pane reads the screen. A webhook
// whose receiver answers 500 got one failed delivery; the test opens the webhook, resends that
// delivery (r, then y) and checks through the API that a new delivery of the same event was made.
//
// The timbra it runs is the binary testscript.Main put on PATH (this test binary, built by go
// test, which runs commands.Main when called timbra), the same one the scripts run.
func TestInspectInTmux(t *testing.T) {
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: the terminal test of timbra webhooks inspect needs it (apt-get install tmux)")
	}
	timbra, err := exec.LookPath("timbra")
	if err != nil {
		t.Fatalf("timbra is not on PATH (testscript.Main puts it there): %v", err)
	}
	dir := t.TempDir()
	env := tmuxTestEnv(dir)

	// a receiver that answers 500 to everything
	var received atomic.Int64
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		received.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, "receiver is broken")
	}))
	t.Cleanup(rcv.Close)
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rcv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	// a server, and a client of it
	db := filepath.Join(dir, "t.db")
	initCmd := exec.Command(timbra, "server", "init", "--data", db, "--json")
	initCmd.Env = env
	out, err := initCmd.Output()
	if err != nil {
		t.Fatalf("timbra server init: %v\n%s", err, stderrOf(err))
	}
	var creds api.Credentials
	if err := json.Unmarshal(out, &creds); err != nil {
		t.Fatalf("timbra server init --json printed %q: %v", out, err)
	}
	base := startServer(t, timbra, env, dir, "--data", db, "--webhook-allow-cidr", "127.0.0.1/32", "--webhook-ca-file", ca)
	client := &api.Client{BaseURL: base, TenantKey: creds.TenantKey, APIKey: creds.APIKey}
	ctx, cancel := context.WithTimeout(context.Background(), 3*tmuxWait)
	defer cancel()

	// a webhook to the broken receiver, and an event that fails on it
	url := rcv.URL + "/hooks"
	hook, err := client.CreateWebhook(ctx, api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}})
	if err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	typ, related := "invoice.canceled", "inv-tmux-1"
	ev, err := client.TriggerEvent(ctx, api.EventTrigger{Type: &typ, RelatedObjectID: &related, WebhookID: &hook.ID})
	if err != nil {
		t.Fatalf("trigger: %v", err)
	}
	first := waitDeliveries(t, ctx, client, hook.ID, func(ds []api.Delivery) bool {
		return len(ds) == 1 && ds[0].Status == api.DeliveryFailed
	})[0]

	// the inspector in a detached tmux session of 160x45, on a socket of its own
	sock := filepath.Join(dir, "tmux.sock")
	conf := filepath.Join(dir, "tmux.conf")
	// the pane stays after timbra exits, so that a failure can show the last screen
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tmux := func(args ...string) (string, error) {
		cmd := exec.Command(tmuxPath, append([]string{"-S", sock, "-f", conf}, args...)...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return string(out), fmt.Errorf("tmux %s: %v: %s", args[0], err, stderr.String())
		}
		return string(out), nil
	}
	t.Cleanup(func() { _, _ = tmux("kill-server") })
	line := []string{"env", "TIMBRA_BASE_URL=" + base, "TIMBRA_TENANT_KEY=" + creds.TenantKey, "TIMBRA_API_KEY=" + creds.APIKey,
		timbra, "webhooks", "inspect"}
	// the shell tmux runs the line with writes timbra's exit status down: tmux itself may not
	// learn it (with libutempter it can miss a SIGCHLD and leave the process unreaped)
	exitFile := filepath.Join(dir, "exit-status")
	run := shellJoin(line) + "; echo $? > " + shellJoin([]string{exitFile})
	if _, err := tmux("new-session", "-d", "-x", "160", "-y", "45", "-s", "inspect", run); err != nil {
		t.Fatal(err)
	}
	screen := func(what string, ok func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(tmuxWait)
		var last string
		for {
			s, err := tmux("capture-pane", "-p", "-t", "inspect")
			if err == nil {
				last = s
				if ok(s) {
					t.Logf("screen with %s:\n%s", what, s)
					return s
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen did not show %s within %s; it shows:\n%s", what, tmuxWait, last)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	keys := func(k ...string) {
		t.Helper()
		if _, err := tmux(append([]string{"send-keys", "-t", "inspect"}, k...)...); err != nil {
			t.Fatal(err)
		}
	}
	has := func(subs ...string) func(string) bool {
		return func(s string) bool {
			for _, sub := range subs {
				if !strings.Contains(s, sub) {
					return false
				}
			}
			return true
		}
	}

	// the webhooks screen lists the webhook; enter opens its deliveries: the failed one, and its
	// queue, empty but for the receiver's last error
	screen("the webhook", has("timbra inspect", url, "enabled"))
	keys("Enter")
	s := screen("the failed delivery", has("1 of 1 deliveries", "failed", "500", typ, ev.EventID,
		"Queue     empty · last error HTTP 500 at "))
	if !strings.Contains(s, "> ") {
		t.Fatalf("no delivery selected:\n%s", s)
	}

	// r asks first; y resends
	keys("r")
	screen("the question", has("Resend event "+ev.EventID, "[y/n]"))
	keys("y")
	screen("the news of the resend", has("Resent event "+ev.EventID))

	// the API has a second delivery of the same event, made by hand; the screen shows it too
	ds := waitDeliveries(t, ctx, client, hook.ID, func(ds []api.Delivery) bool {
		return len(ds) == 2 && ds[0].Status != api.DeliveryPending
	})
	if ds[1].ID != first.ID || ds[0].ID == first.ID || ds[0].EventID != ev.EventID || ds[0].Kind != "manual" || ds[0].Attempts != 1 {
		t.Fatalf("after the resend the deliveries are %+v", ds)
	}
	if n := received.Load(); n != 2 {
		t.Errorf("the receiver got %d requests, want 2", n)
	}
	// the new delivery showed pending; the view refreshes by itself until it ends
	screen("the resent delivery failed, without a key pressed", func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "manual") && strings.Contains(l, "failed") && strings.Contains(l, "500") {
				return strings.Contains(s, "2 of 2 deliveries")
			}
		}
		return false
	})

	// q quits with exit status 0
	keys("q")
	deadline := time.Now().Add(tmuxWait)
	for {
		raw, err := os.ReadFile(exitFile)
		if st := strings.TrimSpace(string(raw)); err == nil && st != "" {
			if st != "0" {
				s, _ := tmux("capture-pane", "-p", "-t", "inspect")
				t.Fatalf("timbra ended with status %s after q:\n%s", st, s)
			}
			break
		}
		if time.Now().After(deadline) {
			s, _ := tmux("capture-pane", "-p", "-t", "inspect")
			t.Fatalf("timbra did not end within %s after q:\n%s", tmuxWait, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tmuxTestEnv is the environment of the processes of the terminal test: a home of their own,
// keys in files, no timbra settings from outside.
func tmuxTestEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "TIMBRA_") || strings.HasPrefix(k, "TMUX") || k == "HOME" || k == "XDG_CONFIG_HOME" ||
			k == "XDG_DATA_HOME" || k == "NO_COLOR" || k == "GORACE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+dir,
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".config"),
		"XDG_DATA_HOME="+filepath.Join(dir, ".local", "share"),
		"TIMBRA_CONFIG_DIR="+filepath.Join(dir, ".config", "timbra"),
		"TIMBRA_KEYRING=file",
		"TIMBRA_CATALOGS=none",
		"GORACE=atexit_sleep_ms=0",
	)
}

// startServer starts `timbra server` on a free port, waits until it answers, and stops it (with
// SIGINT) when the test ends. It returns the server's base URL.
func startServer(t *testing.T, timbra string, env []string, dir string, args ...string) string {
	t.Helper()
	addrFile := filepath.Join(dir, "addr")
	cmd := exec.Command(timbra, append([]string{"server", "--addr", "127.0.0.1:0", "--addr-file", addrFile}, args...)...)
	cmd.Env = env
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(tmuxWait)
	for {
		select {
		case err := <-done:
			t.Fatalf("timbra server stopped: %v\n%s", err, logs.String())
		default:
		}
		if raw, err := os.ReadFile(addrFile); err == nil && strings.TrimSpace(string(raw)) != "" {
			base := "http://" + strings.TrimSpace(string(raw))
			if resp, err := http.Get(base + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return base
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timbra server did not answer within %s", tmuxWait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDeliveries reads a webhook's deliveries (newest first) until ok accepts them.
func waitDeliveries(t *testing.T, ctx context.Context, c *api.Client, webhookID string, ok func([]api.Delivery) bool) []api.Delivery {
	t.Helper()
	deadline := time.Now().Add(tmuxWait)
	for {
		page, err := c.ListDeliveries(ctx, webhookID, 1, 50)
		if err != nil {
			t.Fatalf("list deliveries: %v", err)
		}
		if ok(page.Items) {
			return page.Items
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries did not reach the state awaited within %s: %+v", tmuxWait, page.Items)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shellJoin quotes words for sh, which tmux runs the command with.
func shellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(quoted, " ")
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
