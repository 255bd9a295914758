package server

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// node is one server of several on one PostgreSQL database, serving on loopback.
type node struct {
	srv  *Server
	base string
	stop func() error
}

// startNode starts a server node on the database at url, its master key in key.
func startNode(t *testing.T, url, key, name string, mutate func(*Config)) *node {
	t.Helper()
	d, err := OpenData(DataOptions{Database: url, MasterKeyFile: key})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, stop := serveData(t, d, ln, func(c *Config) {
		c.Node, c.AdminToken = name, "op-token"
		if mutate != nil {
			mutate(c)
		}
	})
	return &node{srv: s, base: "http://" + ln.Addr().String(), stop: stop}
}

// call makes one API request to the node as creds.
func (n *node) call(t *testing.T, creds api.Credentials, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, n.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Tenant-Key", creds.TenantKey)
	req.Header.Set("X-Api-Key", creds.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func (n *node) dialListen(t *testing.T, creds api.Credentials) (*websocket.Conn, listener.Ready) {
	t.Helper()
	h := http.Header{"X-Tenant-Key": {creds.TenantKey}, "X-Api-Key": {creds.APIKey}}
	conn, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(n.base, "http")+listener.Path, h)
	if err != nil {
		t.Fatalf("dial listen: %v (%v)", err, resp)
	}
	t.Cleanup(func() { conn.Close() })
	var ready listener.Ready
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if err := conn.ReadJSON(&ready); err != nil || ready.Type != "ready" {
		t.Fatalf("ready: %+v %v", ready, err)
	}
	return conn, ready
}

// TestPostgresListenOnOneNodeTriggerOnAnother: two server nodes on one database. A listen
// session on node A receives, signed with its secret, the events triggered on node B; its acks
// are recorded and read back on B; the sessions' destination stays on A while B triggers.
// Then the session moves to B (A's connection closed, a new one on B) and events triggered on A
// reach it there. The trigger → event latency is logged.
func TestPostgresListenOnOneNodeTriggerOnAnother(t *testing.T) {
	url := pgtest.URL(t)
	key := filepath.Join(t.TempDir(), "master.key")
	a := startNode(t, url, key, "node-a", nil)
	b := startNode(t, url, key, "node-b", nil)
	creds, err := a.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}

	conn, ready := a.dialListen(t, creds)
	var lat []time.Duration
	roundTrip := func(from *node, conn *websocket.Conn, ready listener.Ready, i int) {
		t.Helper()
		start := time.Now()
		st, raw := from.call(t, creds, "POST", "/api/v4/events/trigger", `{"type":"invoice.stamped"}`)
		if st != 202 {
			t.Fatalf("trigger %d: %d %s", i, st, raw)
		}
		var trig struct{ Data api.EventTriggered }
		json.Unmarshal(raw, &trig)
		var ev listener.Event
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := conn.ReadJSON(&ev); err != nil || ev.Type != "event" {
			t.Fatalf("event %d: %+v %v", i, ev, err)
		}
		lat = append(lat, time.Since(start))
		h := http.Header{}
		for k, v := range ev.Headers {
			h.Set(k, v)
		}
		if ev.EventID != trig.Data.EventID || webhook.Verify(ready.Secret, h, []byte(ev.Body), time.Now(), 5*time.Minute) != nil {
			t.Fatalf("event %d: %+v is not the trigger's %s, or does not verify", i, ev, trig.Data.EventID)
		}
		code := 200
		conn.WriteJSON(listener.Ack{Type: "ack", DeliveryID: ev.DeliveryID, StatusCode: &code})
	}
	for i := range 20 {
		roundTrip(b, conn, ready, i)
	}
	// every ack is recorded, whichever node is asked
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, raw := b.call(t, creds, "GET", "/api/v4/webhooks/"+ready.WebhookID+"/deliveries?pageSize=50", "")
		var page struct{ Data api.PagedList[api.Delivery] }
		json.Unmarshal(raw, &page)
		ok := 0
		for _, d := range page.Data.Items {
			if d.Status == "succeeded" {
				ok++
			}
		}
		if st == 200 && ok == 20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries read on node B: %d succeeded of 20 (%d %.300s)", ok, st, raw)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// the session moves to node B; events triggered on A reach it there
	conn.Close()
	conn2, ready2 := b.dialListen(t, creds)
	if ready2.WebhookID != ready.WebhookID {
		t.Fatalf("a new session of the same person is another listener: %s, %s", ready2.WebhookID, ready.WebhookID)
	}
	for i := range 10 {
		roundTrip(a, conn2, ready2, 20+i)
	}
	slices.Sort(lat)
	t.Logf("trigger → event over two nodes: p50 %v, max %v (%d events)", lat[len(lat)/2], lat[len(lat)-1], len(lat))
}

// TestPostgresWebhookDeliveriesSharedByNodes: two nodes, four webhooks; events emitted on both
// nodes reach every webhook once each (the nodes split the destinations by lease: one node at a
// time sends to a webhook); then node A stops and B sends what remains, the new events too.
func TestPostgresWebhookDeliveriesSharedByNodes(t *testing.T) {
	url := pgtest.URL(t)
	key := filepath.Join(t.TempDir(), "master.key")
	rc := newCountingReceiver(t)
	policy, err := webhook.NewPolicy("127.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	allow := func(c *Config) { c.WebhookPolicy, c.WebhookCAFile = policy, rc.ca }
	a := startNode(t, url, key, "node-a", allow)
	b := startNode(t, url, key, "node-b", allow)
	creds, err := a.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	for i := range 4 {
		body := fmt.Sprintf(`{"url":%q,"enabledEvents":["*"]}`, rc.srv.URL+fmt.Sprintf("/hook%d", i))
		st, raw := a.call(t, creds, "POST", "/api/v4/webhooks", body)
		if st != 201 {
			t.Fatalf("create webhook: %d %s", st, raw)
		}
		var w struct{ Data api.Webhook }
		json.Unmarshal(raw, &w)
		hooks = append(hooks, w.Data.ID)
	}
	emit := func(n *node, count int) {
		for range count {
			if _, err := n.srv.Webhooks().Emit(context.Background(), creds.TenantKey, "invoice.stamped", "inv", nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	emit(a, 25)
	emit(b, 25)
	waitReceived(t, rc, 4*50)
	t.Logf("200 deliveries over two nodes in %v", time.Since(start))
	// one node sent to each webhook
	byNode := map[string]int{}
	for _, h := range hooks {
		var senders []string
		for _, n := range []*node{a, b} {
			if !n.srv.engine.Live(creds.TenantKey, h).LastAttemptAt.IsZero() {
				senders = append(senders, n.srv.cfg.Node)
			}
		}
		if len(senders) != 1 {
			t.Fatalf("webhook %s was sent to by %v, want one node", h, senders)
		}
		byNode[senders[0]]++
	}
	t.Logf("webhooks by node: %v", byNode)

	if err := a.stop(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	emit(b, 10)
	waitReceived(t, rc, 4*60)
	t.Logf("after node A stopped, node B sent the 40 new deliveries in %v", time.Since(start))
}

// countingReceiver answers 200 to every delivery and counts them by path and webhook-id.
type countingReceiver struct {
	srv *httptest.Server
	ca  string
	mu  sync.Mutex
	got map[string]int
}

func newCountingReceiver(t *testing.T) *countingReceiver {
	rc := &countingReceiver{got: map[string]int{}}
	rc.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		rc.mu.Lock()
		rc.got[r.URL.Path+" "+r.Header.Get(webhook.HeaderID)]++
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.srv.Close)
	rc.ca = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(rc.ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return rc
}

// waitReceived waits until the receiver has every one of want deliveries, each once.
func waitReceived(t *testing.T, rc *countingReceiver, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rc.mu.Lock()
		n := len(rc.got)
		dup := 0
		for _, r := range rc.got {
			if r > 1 {
				dup++
			}
		}
		rc.mu.Unlock()
		if n >= want {
			if n > want || dup > 0 {
				t.Fatalf("received %d deliveries (%d more than once), want %d once each", n, dup, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %d of %d deliveries", n, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPostgresRateLimitAcrossNodes: one API key's limit counts its requests on every node: 30 a
// minute over two nodes lets 30 of 50 requests through, the others answered 429 with Retry-After.
func TestPostgresRateLimitAcrossNodes(t *testing.T) {
	url := pgtest.URL(t)
	key := filepath.Join(t.TempDir(), "master.key")
	limit := func(c *Config) { c.StandardLimit = 30 }
	a := startNode(t, url, key, "node-a", limit)
	b := startNode(t, url, key, "node-b", limit)
	creds, err := a.srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	ok, refused := 0, 0
	for i := range 50 {
		n := []*node{a, b}[i%2]
		req, _ := http.NewRequest("GET", n.base+"/api/v4/people/"+creds.PersonID, nil)
		req.Header.Set("X-Tenant-Key", creds.TenantKey)
		req.Header.Set("X-Api-Key", creds.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == 200:
			ok++
		case resp.StatusCode == 429 && resp.Header.Get("Retry-After") != "":
			refused++
		default:
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	if ok != 30 || refused != 20 {
		t.Fatalf("%d allowed and %d refused over two nodes, want 30 and 20", ok, refused)
	}
}
