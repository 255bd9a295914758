package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/server"
	"github.com/timbra-mx/timbra/storage"
	"github.com/timbra-mx/timbra/storage/pgtest"
)

// BenchmarkNodes compares the backends and the nodes on the same machine in one run: one server
// on bbolt, one on PostgreSQL, two on one PostgreSQL database. Each sub-benchmark, on a new
// database, measures through real servers on loopback (Serve: HTTP, engine, leases):
//
//   - reads/s: GET /api/v4/people/{id}, 16 clients, spread over the nodes;
//
//   - writes/s: POST /api/v4/apikeys (a small write: the key, its indexes and counters), 16
//     clients, spread over the nodes;
//
//   - deliveries/s: 8 webhooks on a local receiver that answers at once, 512 events emitted
//     over the nodes, from the first emit until the 4,096 deliveries arrived;
//
//   - listen p50/p99: one listen session on the first node, 200 triggers one after another
//     on the last, trigger sent → event read from the session.
//
// During the writes and the deliveries it also reports how busy the writer was: the time the
// nodes' writes held it (bbolt's single writer; PostgreSQL's writer lock) over the time
// elapsed. Near 1, writes wait for each other, and more nodes or CPUs would add no writes.
//
//	TIMBRA_TEST_POSTGRES=postgres://root@127.0.0.1:5432/test?sslmode=disable \
//	go test ./bench -run '^$' -bench 'Nodes' -benchtime 1x -count 3
//
// Without TIMBRA_TEST_POSTGRES the PostgreSQL cases skip.
func BenchmarkNodes(b *testing.B) {
	for _, c := range []struct {
		name     string
		postgres bool
		nodes    int
	}{{"store=bbolt/nodes=1", false, 1}, {"store=postgres/nodes=1", true, 1}, {"store=postgres/nodes=2", true, 2}} {
		b.Run(c.name, func(b *testing.B) {
			var reads, writes, deliveries, busyWrites, busyDeliveries float64
			var heldWrites, heldDeliveries time.Duration
			var lat []time.Duration
			for range b.N {
				b.StopTimer()
				cl := newCluster(b, c.postgres, c.nodes)
				b.StartTimer()
				reads += cl.reads(b)
				w, busy, held := cl.busy(func() float64 { return cl.writes(b) })
				writes, busyWrites, heldWrites = writes+w, busyWrites+busy, heldWrites+held
				d, busy, held := cl.busy(func() float64 { return cl.deliveries(b) })
				deliveries, busyDeliveries, heldDeliveries = deliveries+d, busyDeliveries+busy, heldDeliveries+held
				lat = append(lat, cl.listen(b)...)
				b.StopTimer()
				cl.stop()
				b.StartTimer()
			}
			l := latencies(lat)
			b.ReportMetric(reads/float64(b.N), "reads/s")
			b.ReportMetric(writes/float64(b.N), "writes/s")
			b.ReportMetric(deliveries/float64(b.N), "deliveries/s")
			b.ReportMetric(busyWrites/float64(b.N), "writer-busy-writes")
			b.ReportMetric(busyDeliveries/float64(b.N), "writer-busy-deliveries")
			b.ReportMetric(float64(heldWrites.Microseconds())/1000/float64(b.N), "held-ms/tx-writes")
			b.ReportMetric(float64(heldDeliveries.Microseconds())/1000/float64(b.N), "held-ms/tx-deliveries")
			b.ReportMetric(float64(l.P50.Microseconds())/1000, "listen-p50-ms")
			b.ReportMetric(float64(l.P99.Microseconds())/1000, "listen-p99-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// benchCluster is servers on one database, a tenant, and a receiver of webhooks.
type benchCluster struct {
	nodes    []*benchNode
	creds    api.Credentials
	hc       *http.Client
	received atomic.Int64
	rc       *httptest.Server
}

type benchNode struct {
	srv    *server.Server
	base   string
	writer func() storage.WriterTime
	stop   func()
}

func newCluster(b *testing.B, postgres bool, n int) *benchCluster {
	dir := b.TempDir()
	opt := server.DataOptions{Path: filepath.Join(dir, "bench.db")}
	if postgres {
		opt = server.DataOptions{Database: pgtest.URL(b), MasterKeyFile: filepath.Join(dir, "master.key")}
	}
	cl := &benchCluster{hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	cl.rc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		cl.received.Add(1)
	}))
	policy, err := webhook.NewPolicy("127.0.0.0/8")
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		d, err := server.OpenData(opt)
		if err != nil {
			b.Fatal(err)
		}
		s, err := server.New(server.Config{
			Environment: d.Environment, Version: "bench", Logger: slog.New(slog.DiscardHandler), Node: fmt.Sprintf("bench-%d", i),
			StandardLimit: HighLimit, AnonymousLimit: HighLimit, ShutdownTimeout: 5 * time.Second, WebhookPolicy: policy,
		}, d.Store, d.Keys)
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Serve(ctx, ln); close(done) }()
		timed, ok := d.Store.(interface{ Writer() storage.WriterTime })
		if !ok {
			b.Fatalf("%T does not time its writer", d.Store)
		}
		cl.nodes = append(cl.nodes, &benchNode{srv: s, base: "http://" + ln.Addr().String(), writer: timed.Writer, stop: func() {
			cancel()
			<-done
			d.Store.Close()
		}})
	}
	if cl.creds, err = cl.nodes[0].srv.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "bench@example.com"}); err != nil {
		b.Fatal(err)
	}
	return cl
}

// busy runs phase and returns its result, the time the nodes' writes held the writer over the
// time phase took, and the mean time a write transaction held it.
func (cl *benchCluster) busy(phase func() float64) (result, busy float64, perWrite time.Duration) {
	sum := func() (t storage.WriterTime) {
		for _, n := range cl.nodes {
			w := n.writer()
			t.Writes, t.Held = t.Writes+w.Writes, t.Held+w.Held
		}
		return t
	}
	before, start := sum(), time.Now()
	result = phase()
	took, after := time.Since(start), sum()
	held := after.Held - before.Held
	return result, float64(held) / float64(took), held / time.Duration(max(1, after.Writes-before.Writes))
}

func (cl *benchCluster) stop() {
	for _, n := range cl.nodes {
		n.stop()
	}
	cl.rc.Close()
	cl.hc.CloseIdleConnections()
}

func (cl *benchCluster) request(method, base, path, body string) error {
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-Tenant-Key", cl.creds.TenantKey)
	req.Header.Set("X-Api-Key", cl.creds.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.hc.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d", method, path, resp.StatusCode)
	}
	return nil
}

// spread runs ops requests from 16 clients, client i on node i mod the nodes.
func (cl *benchCluster) spread(b *testing.B, name string, ops int, op func(base string) error) float64 {
	r := Run(name, 16, time.Minute, ops, func(w int) func() error {
		base := cl.nodes[w%len(cl.nodes)].base
		return func() error { return op(base) }
	})
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return r.PerSecond()
}

func (cl *benchCluster) reads(b *testing.B) float64 {
	path := PeoplePath + "/" + cl.creds.PersonID
	return cl.spread(b, "reads", 8000, func(base string) error { return cl.request("GET", base, path, "") })
}

func (cl *benchCluster) writes(b *testing.B) float64 {
	return cl.spread(b, "writes", 2000, func(base string) error { return cl.request("POST", base, KeysPath, KeyBody) })
}

func (cl *benchCluster) deliveries(b *testing.B) float64 {
	const hooks, events = 8, 512
	for i := range hooks {
		body := fmt.Sprintf(`{"url":"%s/hook/%d","enabledEvents":["invoice.stamped"]}`, cl.rc.URL, i)
		if err := cl.request("POST", cl.nodes[0].base, "/api/v4/webhooks", body); err != nil {
			b.Fatal(err)
		}
	}
	cl.received.Store(0)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			svc := cl.nodes[w%len(cl.nodes)].srv.Webhooks()
			for range events / 8 {
				if _, err := svc.Emit(context.Background(), cl.creds.TenantKey, "invoice.stamped", "inv", nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(2 * time.Minute)
	for cl.received.Load() < hooks*events {
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d deliveries arrived", cl.received.Load(), hooks*events)
		}
		time.Sleep(time.Millisecond)
	}
	return float64(hooks*events) / time.Since(start).Seconds()
}

func (cl *benchCluster) listen(b *testing.B) []time.Duration {
	first, last := cl.nodes[0], cl.nodes[len(cl.nodes)-1]
	h := http.Header{"X-Tenant-Key": {cl.creds.TenantKey}, "X-Api-Key": {cl.creds.APIKey}}
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(first.base, "http")+listener.Path+"?events=invoice.canceled", h)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	var ready listener.Ready
	if err := conn.ReadJSON(&ready); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	for range 200 {
		start := time.Now()
		if err := cl.request("POST", last.base, "/api/v4/events/trigger", `{"type":"invoice.canceled"}`); err != nil {
			b.Fatal(err)
		}
		var ev listener.Event
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := conn.ReadJSON(&ev); err != nil || ev.Type != listener.TypeEvent {
			b.Fatalf("event: %+v %v", ev, err)
		}
		lat = append(lat, time.Since(start))
		code := 200
		conn.WriteJSON(listener.Ack{Type: "ack", DeliveryID: ev.DeliveryID, StatusCode: &code})
	}
	return lat
}

// BenchmarkEmitsGrowPostgres: one node on a new PostgreSQL database, 8 webhooks of a tenant
// subscribed to the event; 16 clients emit 3,200 events (25,600 deliveries, delivered meanwhile)
// four times over. It reports the emits a second of the first round and of the fourth, and their
// ratio: near 1, an emit's cost does not grow with the events and deliveries stored.
//
//	TIMBRA_TEST_POSTGRES=postgres://root@127.0.0.1:5432/test?sslmode=disable \
//	go test ./bench -run '^$' -bench 'EmitsGrowPostgres' -benchtime 1x -count 3
func BenchmarkEmitsGrowPostgres(b *testing.B) {
	for range b.N {
		b.StopTimer()
		cl := newCluster(b, true, 1)
		for i := range 8 {
			body := fmt.Sprintf(`{"url":"%s/hook/%d","enabledEvents":["invoice.stamped"]}`, cl.rc.URL, i)
			if err := cl.request("POST", cl.nodes[0].base, "/api/v4/webhooks", body); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		svc := cl.nodes[0].srv.Webhooks()
		var rounds []float64
		for range 4 {
			start := time.Now()
			var wg sync.WaitGroup
			for range 16 {
				wg.Go(func() {
					for range 200 {
						if _, err := svc.Emit(context.Background(), cl.creds.TenantKey, "invoice.stamped", "inv", nil); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			rounds = append(rounds, 3200/time.Since(start).Seconds())
		}
		b.StopTimer()
		cl.stop()
		b.ReportMetric(rounds[0], "emits/s-first")
		b.ReportMetric(rounds[3], "emits/s-fourth")
		b.ReportMetric(rounds[3]/rounds[0], "fourth/first")
		b.ReportMetric(0, "ns/op")
	}
}
