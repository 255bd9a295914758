// Package crashtest runs the real timbra binary and kills it. TestWebhookOutboxSurvivesSIGKILL
// checks the delivery engine's promise (internal/webhooks/engine.go): every delivery the API accepted
// reaches its receiver at least once, with the same webhook-id, even when the server dies with
// SIGKILL while thousands are pending and some are on the wire.
package crashtest

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/timbra-mx/timbra/storage"
)

// Size of the run.
const (
	events         = 3000 // triggers sent, all answered 202
	perKey         = 500  // triggers per API key: under the BusinessWrite limit of 600 per 60 s
	triggerClients = 32   // concurrent trigger requests
	receiverCap    = 4    // requests the receiver answers at once
	receiverPause  = 2 * time.Millisecond
	// Until the kill, the receiver holds a request while it has received 1/receiverLag of the
	// events accepted so far.
	receiverLag = 4
	// duplicateBound is what a kill may send twice to one destination: its attempts in flight
	// and outcomes waiting for their commit (webhooks.Engine).
	duplicateBound = webhooks.Outstanding * webhooks.DefaultPerDestination
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// goTool finds the go command that runs this test.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("the go command is not on PATH")
}

// timbraBinary builds ./cmd/timbra once per test binary.
func timbraBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		gotool, err := goTool()
		if err != nil {
			buildErr = err
			return
		}
		if binDir, err = os.MkdirTemp("", "timbra-crashtest-"); err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(binDir, "timbra")
		if runtime.GOOS == "windows" {
			binPath += ".exe"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, gotool, "build", "-o", binPath, "github.com/timbra-mx/timbra/cmd/timbra")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// childEnv is this process's environment without TIMBRA_* variables (so a developer's settings
// do not leak into the server), with no catalog import (no test reaches the internet), plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TIMBRA_") {
			env = append(env, kv)
		}
	}
	env = append(env, "TIMBRA_CATALOGS=none")
	return append(env, extra...)
}

// receiver is a local TLS webhook receiver. It records every webhook-id it gets (a request
// counts once its body is read, whether or not the sender lives to see the answer), checks the
// signature, and answers 200 after a short pause, at most receiverCap at once. Until released,
// it also holds a request while it has received a quarter of the events accepted so far:
// whatever the speed of the machine, the kill then finds thousands pending and some on the
// wire.
type receiver struct {
	srv      *httptest.Server
	caFile   string
	secret   atomic.Pointer[string]
	accepted atomic.Int64 // triggers answered 202 so far (fed by the test)
	released atomic.Bool
	holding  atomic.Int64 // requests held until more events are accepted
	sem      chan struct{}

	mu       sync.Mutex
	got      map[string]int // webhook-id → receipts
	requests int
	badSig   int
	badBody  int
	firstBad string
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: map[string]int{}, sem: make(chan struct{}, receiverCap)}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		rc.released.Store(true)
		rc.srv.Close()
	})
	rc.caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw})
	if err := os.WriteFile(rc.caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

func (rc *receiver) unique() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // cut short: not received
	}
	id := r.Header.Get(webhook.HeaderID)
	rc.holding.Add(1)
	for deadline := time.Now().Add(time.Minute); !rc.released.Load() && time.Now().Before(deadline); {
		if int64(rc.unique()) < rc.accepted.Load()/receiverLag {
			break
		}
		time.Sleep(time.Millisecond)
	}
	rc.holding.Add(-1)
	var sigErr error
	if s := rc.secret.Load(); s == nil {
		sigErr = errors.New("no secret yet")
	} else {
		sigErr = webhook.Verify(*s, r.Header, body, time.Now(), 0)
	}
	var env struct {
		ID string `json:"id"`
	}
	bodyErr := json.Unmarshal(body, &env)
	if bodyErr == nil && env.ID != id {
		bodyErr = fmt.Errorf("body id %q, webhook-id %q", env.ID, id)
	}
	rc.mu.Lock()
	rc.requests++
	rc.got[id]++
	if sigErr != nil {
		rc.badSig++
		if rc.firstBad == "" {
			rc.firstBad = "signature: " + sigErr.Error()
		}
	}
	if bodyErr != nil {
		rc.badBody++
		if rc.firstBad == "" {
			rc.firstBad = "body: " + bodyErr.Error()
		}
	}
	rc.mu.Unlock()
	rc.sem <- struct{}{}
	time.Sleep(receiverPause)
	<-rc.sem
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, "ok")
}

// proc is a running timbra server.
type proc struct {
	cmd    *exec.Cmd
	done   chan struct{}
	err    error // of Wait, once done is closed
	logs   string
	base   string
	killed bool
}

// startServer starts `timbra server` on a free loopback port and waits until it answers; db
// names its database (--data PATH, or --database URL --master-key-file FILE).
func startServer(t *testing.T, bin, dir string, db []string, caFile, name string) *proc {
	t.Helper()
	addrFile := filepath.Join(dir, name+".addr")
	args := append([]string{"server"}, db...)
	cmd := exec.Command(bin, append(args, "--addr", "127.0.0.1:0", "--addr-file", addrFile,
		"--webhook-allow-cidr", "127.0.0.1/32", "--webhook-ca-file", caFile)...)
	cmd.Env = childEnv()
	p := startProc(t, cmd, filepath.Join(dir, name+".log"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if raw, err := os.ReadFile(addrFile); err == nil && strings.HasSuffix(string(raw), "\n") {
			p.base = "http://" + strings.TrimSpace(string(raw))
			if resp, err := http.Get(p.base + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return p
				}
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before answering: %v\n%s", name, p.err, p.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer within 30 s\n%s", name, p.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startProc starts cmd with its output in the file logs; the process is killed, if still
// running, when the test ends.
func startProc(t *testing.T, cmd *exec.Cmd, logs string) *proc {
	t.Helper()
	p := &proc{cmd: cmd, done: make(chan struct{}), logs: logs}
	logf, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) log() string {
	raw, _ := os.ReadFile(p.logs)
	if len(raw) > 4000 {
		raw = append([]byte("…"), raw[len(raw)-4000:]...)
	}
	return string(raw)
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL (when still running) and waits for the process to end.
func (p *proc) kill() {
	if !p.exited() {
		p.killed = true
		p.cmd.Process.Kill()
	}
	<-p.done
}

// stop asks the server to stop cleanly (SIGTERM) and waits, at most 45 s, then kills it.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	if p.exited() {
		t.Fatalf("the server had already exited: %v\n%s", p.err, p.log())
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("the server did not stop cleanly: %v\n%s", p.err, p.log())
		}
	case <-time.After(45 * time.Second):
		p.kill()
		t.Errorf("the server did not stop within 45 s of SIGTERM\n%s", p.log())
	}
}

// outboxState reads the outbox of a database (a bbolt file's server stopped): how many
// deliveries are still pending.
func outboxState(t *testing.T, open func() (storage.Store, error)) (pending int) {
	t.Helper()
	st, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	far := time.Now().Add(100 * 365 * 24 * time.Hour)
	err = st.View(context.Background(), func(tx storage.Tx) error {
		var dests []storage.Destination
		if err := tx.Outbox().Destinations("", func(d storage.Destination) bool { dests = append(dests, d); return true }); err != nil {
			return err
		}
		for _, d := range dests {
			q, _, err := tx.Outbox().Due(d.TenantID, d.WebhookID, nil, far, 1<<30, nil)
			if err != nil {
				return err
			}
			pending += len(q)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pending
}

// deliveryStates counts a webhook's deliveries by status (and by lastError for failed ones).
func deliveryStates(t *testing.T, open func() (storage.Store, error), tenant, hook string) map[string]int {
	t.Helper()
	st, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]int{}
	err = st.View(context.Background(), func(tx storage.Tx) error {
		return tx.Deliveries(tenant).AllByWebhook(hook, func(d storage.Delivery) bool {
			k := d.Status
			if d.LastError != nil {
				k += "/" + *d.LastError
			}
			out[k]++
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func apiClient(base string, creds api.Credentials, hc *http.Client) *api.Client {
	return &api.Client{BaseURL: base, TenantKey: creds.TenantKey, APIKey: creds.APIKey, HTTP: hc}
}

// TestWebhookOutboxSurvivesSIGKILL: a server accepts 2400 triggers for a slow local receiver
// and is killed with SIGKILL while most are pending; a new server on the same database must
// deliver every accepted event at least once. Duplicates are allowed (at least once) and
// reported. It asserts no timing.
// pendingDeliveries counts a webhook's pending deliveries through the load endpoint.
func pendingDeliveries(t *testing.T, hc *http.Client, base string, creds api.Credentials, hook string) int {
	t.Helper()
	q := url.Values{"filter": {`["status","=","pending"]`}, "requireTotalCount": {"true"}, "take": {"1"}}
	req, err := http.NewRequest(http.MethodGet, base+"/api/v4/webhooks/"+hook+"/deliveries/load?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-TENANT-KEY", creds.TenantKey)
	req.Header.Set("X-API-KEY", creds.APIKey)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("deliveries load: %v", err)
	}
	defer resp.Body.Close()
	var res struct {
		TotalCount int `json:"totalCount"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("deliveries load: %d %v", resp.StatusCode, err)
	}
	return res.TotalCount
}

// initDatabase makes a test database with `timbra server init --json` and answers its
// credentials; db names it as startServer's.
func initDatabase(t *testing.T, bin string, db []string) api.Credentials {
	t.Helper()
	initCmd := exec.Command(bin, append(append([]string{"server", "init"}, db...), "--json")...)
	initCmd.Env = childEnv()
	out, err := initCmd.Output()
	if err != nil {
		t.Fatalf("server init: %v\n%s", err, out)
	}
	var creds api.Credentials
	if err := json.Unmarshal(out, &creds); err != nil || creds.APIKey == "" || creds.Environment != "test" {
		t.Fatalf("server init answered %q (%v)", out, err)
	}
	return creds
}

func TestWebhookOutboxSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	db := []string{"--data", filepath.Join(dir, "timbra.db")}
	drainThroughAKill(t, deployment{
		dir: dir, db: db, nodes: 1,
		open: func() (storage.Store, error) { return storage.Open(db[1]) },
	})
}

// deployment is how the drain's servers find their database.
type deployment struct {
	dir   string
	db    []string // startServer's database flags
	nodes int      // servers sharing the database: 1 (a file; a new one is started after the kill), or more
	open  func() (storage.Store, error)
	// holder names the node that sends to the webhook (several nodes): the one killed
	holder func(t *testing.T, tenant, hook string, nodes []*proc) int
}

// drainThroughAKill: thousands of triggers for a slow local receiver; the server sending them
// is killed with SIGKILL while most are pending; then (a new server on the file, or the nodes
// still up) every accepted event reaches the receiver at least once.
func drainThroughAKill(t *testing.T, dep deployment) {
	start := time.Now()
	bin := timbraBinary(t)
	dir := dep.dir
	creds := initDatabase(t, bin, dep.db)

	rc := newReceiver(t)
	var nodes []*proc
	for i := range dep.nodes {
		nodes = append(nodes, startServer(t, bin, dir, dep.db, rc.caFile, fmt.Sprintf("node%d", i+1)))
	}
	first := nodes[0]
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2 * triggerClients}}
	defer hc.CloseIdleConnections()
	ctx := context.Background()
	owner := apiClient(first.base, creds, hc)

	var hook api.Webhook
	url := rc.srv.URL + "/hook"
	if err := owner.Do(ctx, http.MethodPost, "/api/v4/webhooks", nil,
		api.WebhookCreate{URL: &url, EnabledEvents: []string{"*"}}, &hook); err != nil {
		t.Fatalf("create webhook: %v", err)
	}
	rc.secret.Store(&hook.Secret)

	// The trigger endpoint is BusinessWrite: 600 per 60 s per API key. Each key sends at most
	// perKey triggers; the owner's key is one of them.
	keys := []*api.Client{owner}
	for len(keys)*perKey < events {
		desc := fmt.Sprintf("crashtest %d", len(keys))
		k, err := owner.CreateAPIKey(ctx, api.APIKeyCreate{Description: &desc})
		if err != nil {
			t.Fatalf("create API key: %v", err)
		}
		// the keys' requests go to every node in turn
		base := nodes[len(keys)%len(nodes)].base
		keys = append(keys, apiClient(base, api.Credentials{TenantKey: creds.TenantKey, APIKey: k.APIKeyValue}, hc))
	}

	// Trigger every event; each 202 gives the event id the receiver must see.
	accepted := make([]string, events)
	var next atomic.Int64
	var failMu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	typ := "invoice.canceled"
	for range triggerClients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= events {
					return
				}
				var got api.EventTriggered
				err := keys[i/perKey].Do(ctx, http.MethodPost, "/api/v4/events/trigger", nil,
					api.EventTrigger{Type: &typ, WebhookID: &hook.ID}, &got)
				if err != nil || got.EventID == "" {
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("trigger %d: %v", i, err))
					failMu.Unlock()
					continue
				}
				accepted[i] = got.EventID
				rc.accepted.Add(1)
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d triggers were not accepted; first: %s", len(failures), failures[0])
	}
	triggered := time.Now()

	// SIGKILL while most deliveries are pending and some are on the wire: the server sending
	// them (the node holding the webhook, when several share the database).
	victim := first
	if dep.nodes > 1 {
		victim = nodes[dep.holder(t, creds.TenantKey, hook.ID, nodes)]
	}
	receivedAtKill, heldAtKill := rc.unique(), int(rc.holding.Load())
	victim.kill()
	killedAt := time.Now()
	rc.released.Store(true)
	if !victim.killed {
		t.Fatalf("the server had exited before the kill: %v\n%s", victim.err, victim.log())
	}
	pendingAtKill := outboxState(t, dep.open)
	t.Logf("at the kill: %d accepted, %d received, %d pending in the outbox, %d requests held by the receiver",
		events, receivedAtKill, pendingAtKill, heldAtKill)
	if pendingAtKill == 0 {
		t.Fatal("nothing was pending at the kill: the test proves nothing")
	}

	// A new server on the same file, or a node still up on the shared database. The dead one's
	// claims were only in its memory (and, shared, in a lease that expires): every delivery it had
	// not recorded is due as it was.
	var second *proc
	if dep.nodes == 1 {
		second = startServer(t, bin, dir, dep.db, rc.caFile, "second")
	} else {
		for _, n := range nodes {
			if n != victim {
				second = n
				break
			}
		}
	}
	restarted := time.Now()
	deadline := restarted.Add(5 * time.Minute)
	missing := func() []string {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		var out []string
		for _, id := range accepted {
			if rc.got[id] == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	var lost []string
	for {
		lost = missing()
		if len(lost) == 0 || time.Now().After(deadline) {
			break
		}
		if second.exited() {
			t.Fatalf("the restarted server exited: %v\n%s", second.err, second.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	allReceived := time.Now()
	// Deliveries sent before the kill but not recorded are sent again after the restart; the
	// receiver has their ids already, so wait until the outbox is empty before stopping.
	for pending := -1; pending != 0; time.Sleep(50 * time.Millisecond) {
		pending = pendingDeliveries(t, hc, second.base, creds, hook.ID)
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still pending long after every event arrived", pending)
		}
	}
	for _, n := range append(nodes, second) {
		if n != victim && !n.exited() {
			n.stop(t)
		}
	}
	states := deliveryStates(t, dep.open, creds.TenantKey, hook.ID)

	rc.mu.Lock()
	requests, unique, badSig, badBody, firstBad := rc.requests, len(rc.got), rc.badSig, rc.badBody, rc.firstBad
	isAccepted := make(map[string]bool, len(accepted))
	for _, id := range accepted {
		isAccepted[id] = true
	}
	duplicates, strangers := 0, 0
	for id, n := range rc.got {
		if !isAccepted[id] {
			strangers++
		}
		duplicates += n - 1
	}
	rc.mu.Unlock()
	deliveries := 0
	for _, n := range states {
		deliveries += n
	}

	t.Logf("events %d (API keys %d); at the kill %d pending, %d not yet received; "+
		"receiver: %d requests, %d distinct ids, %d duplicates (bound %d); lost %d; deliveries %d by status %v",
		events, len(keys), pendingAtKill, events-receivedAtKill, requests, unique, duplicates, duplicateBound, len(lost), deliveries, states)
	if duplicates > duplicateBound {
		t.Errorf("%d deliveries arrived twice, more than the engine's bound of %d (attempts in flight to one destination and outcomes waiting for their commit)", duplicates, duplicateBound)
	}
	t.Logf("time: start→all triggered %s, →killed %s, →restarted %s, →all received %s; total %s",
		triggered.Sub(start).Round(time.Millisecond), killedAt.Sub(triggered).Round(time.Millisecond),
		restarted.Sub(killedAt).Round(time.Millisecond), allReceived.Sub(restarted).Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond))
	if len(lost) > 0 {
		t.Errorf("%d accepted events never reached the receiver, e.g. %s", len(lost), strings.Join(lost[:min(5, len(lost))], ", "))
	}
	if strangers > 0 {
		t.Errorf("the receiver got %d webhook-ids no trigger answered", strangers)
	}
	if badSig > 0 || badBody > 0 {
		t.Errorf("%d deliveries with a bad signature, %d with a bad body; first: %s", badSig, badBody, firstBad)
	}
	if deliveries != events {
		t.Errorf("%d deliveries in the database for %d accepted triggers", deliveries, events)
	}
	if n := states["pending"]; n > 0 {
		t.Errorf("%d deliveries still pending after every event arrived and the server stopped", n)
	}
	if strings.Contains(second.log(), "level=ERROR") {
		t.Logf("the restarted server logged errors:\n%s", second.log())
	}
}
