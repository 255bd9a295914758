package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/internal/webhooks"
	"github.com/timbra-mx/timbra/storage"
)

// Metrics are written by hand in the Prometheus text exposition format (version 0.0.4): a few
// counters and histograms need no client library. Requests are labelled by the ServeMux pattern
// that matched ("GET /api/v4/people/{id}"), never by the raw path, so an id never becomes a
// label and the number of series is bounded by the route table.

// latencyBuckets are the upper bounds, in seconds, of the request latency histogram.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// unmatchedRoute labels a request no pattern matched (a 405 or a bad request line).
const unmatchedRoute = "unmatched"

type routeStatus struct {
	route  string
	status int
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative
	sum    float64
	n      uint64
}

type metrics struct {
	mu         sync.Mutex
	requests   map[routeStatus]uint64
	latency    map[string]*histogram
	deliveries map[string]uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[routeStatus]uint64{}, latency: map[string]*histogram{}, deliveries: map[string]uint64{}}
}

// request records one answered request under its route pattern.
func (m *metrics) request(pattern string, status int, took time.Duration) {
	if m == nil {
		return
	}
	if pattern == "" {
		pattern = unmatchedRoute
	}
	if status == 0 {
		status = http.StatusOK // a handler that wrote nothing: net/http answered 200
	}
	secs := took.Seconds()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[routeStatus{pattern, status}]++
	h := m.latency[pattern]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets))}
		m.latency[pattern] = h
	}
	for i, le := range latencyBuckets {
		if secs <= le {
			h.counts[i]++
			break
		}
	}
	h.sum += secs
	h.n++
}

// deliveryOutcome names an attempt's outcome: ok (2xx), http_error (another status), or the
// attempt's error (timeout, tls_failed, connection_failed, address_not_allowed).
func deliveryOutcome(a webhook.Attempt) string {
	switch {
	case a.Error != "":
		return snake(a.Error)
	case a.StatusCode != nil && *a.StatusCode >= 200 && *a.StatusCode < 300:
		return "ok"
	}
	return "http_error"
}

// snake turns "TlsFailed" into "tls_failed".
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (m *metrics) delivery(a webhook.Attempt) {
	m.mu.Lock()
	m.deliveries[deliveryOutcome(a)]++
	m.mu.Unlock()
}

// gaugedStore is what the metrics read of a backend (both have it).
type gaugedStore interface {
	Gauges(ctx context.Context) (storage.Gauges, error)
	Writer() storage.WriterTime
}

// backupStore is a backend that copies itself (bbolt; PostgreSQL has pg_dump).
type backupStore interface {
	Snapshot(ctx context.Context) (io.ReadCloser, int64, error)
}

// serveMetrics answers GET /metrics, guarded by the operator token.
func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if !s.operator(w, r) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	var b strings.Builder
	m := s.metrics
	m.mu.Lock()
	b.WriteString("# HELP timbra_http_requests_total Requests answered, by route pattern and status.\n# TYPE timbra_http_requests_total counter\n")
	keys := make([]routeStatus, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b routeStatus) int {
		if c := strings.Compare(a.route, b.route); c != 0 {
			return c
		}
		return a.status - b.status
	})
	for _, k := range keys {
		fmt.Fprintf(&b, "timbra_http_requests_total{route=%s,status=\"%d\"} %d\n", quote(k.route), k.status, m.requests[k])
	}
	b.WriteString("# HELP timbra_http_request_duration_seconds Request latency, by route pattern.\n# TYPE timbra_http_request_duration_seconds histogram\n")
	routes := make([]string, 0, len(m.latency))
	for k := range m.latency {
		routes = append(routes, k)
	}
	slices.Sort(routes)
	for _, route := range routes {
		h, q := m.latency[route], quote(route)
		var cum uint64
		for i, le := range latencyBuckets {
			cum += h.counts[i]
			fmt.Fprintf(&b, "timbra_http_request_duration_seconds_bucket{route=%s,le=\"%s\"} %d\n", q, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		fmt.Fprintf(&b, "timbra_http_request_duration_seconds_bucket{route=%s,le=\"+Inf\"} %d\n", q, h.n)
		fmt.Fprintf(&b, "timbra_http_request_duration_seconds_sum{route=%s} %s\n", q, strconv.FormatFloat(h.sum, 'g', -1, 64))
		fmt.Fprintf(&b, "timbra_http_request_duration_seconds_count{route=%s} %d\n", q, h.n)
	}
	b.WriteString("# HELP timbra_webhook_deliveries_total Webhook delivery attempts over HTTP, by outcome.\n# TYPE timbra_webhook_deliveries_total counter\n")
	outcomes := make([]string, 0, len(m.deliveries))
	for k := range m.deliveries {
		outcomes = append(outcomes, k)
	}
	slices.Sort(outcomes)
	for _, o := range outcomes {
		fmt.Fprintf(&b, "timbra_webhook_deliveries_total{outcome=%s} %d\n", quote(o), m.deliveries[o])
	}
	m.mu.Unlock()
	db := "bbolt"
	if s.shared != nil {
		db = "postgresql"
	}
	fmt.Fprintf(&b, "# HELP timbra_node_info This server: its node name (with other nodes on the database) and its database.\n# TYPE timbra_node_info gauge\ntimbra_node_info{node=%s,database=%s} 1\n", quote(s.cfg.Node), quote(db))
	fmt.Fprintf(&b, "# HELP timbra_listener_sessions Open listen sessions.\n# TYPE timbra_listener_sessions gauge\ntimbra_listener_sessions %d\n", s.hub.Len())
	s.queueMetrics(r.Context(), &b)
	if s.gauges != nil {
		wt := s.gauges.Writer()
		fmt.Fprintf(&b, "# HELP timbra_store_writes_total Write transactions of this node, committed or not.\n# TYPE timbra_store_writes_total counter\ntimbra_store_writes_total %d\n", wt.Writes)
		fmt.Fprintf(&b, "# HELP timbra_store_writer_wait_seconds_total Time this node's writes waited for the writer (bbolt's single writer; on PostgreSQL the writer lock every node shares).\n# TYPE timbra_store_writer_wait_seconds_total counter\ntimbra_store_writer_wait_seconds_total %s\n", strconv.FormatFloat(wt.Waited.Seconds(), 'g', -1, 64))
		fmt.Fprintf(&b, "# HELP timbra_store_writer_held_seconds_total Time this node's writes held the writer, until their commit returned. Its rate summed over the nodes is how busy the writer is: near 1, writes are the limit.\n# TYPE timbra_store_writer_held_seconds_total counter\ntimbra_store_writer_held_seconds_total %s\n", strconv.FormatFloat(wt.Held.Seconds(), 'g', -1, 64))
		if g, err := s.gauges.Gauges(r.Context()); err == nil {
			fmt.Fprintf(&b, "# HELP timbra_outbox_depth Pending webhook deliveries.\n# TYPE timbra_outbox_depth gauge\ntimbra_outbox_depth %d\n", g.OutboxDepth)
			fmt.Fprintf(&b, "# HELP timbra_db_size_bytes Size of the database (bbolt: its file; PostgreSQL: timbra's tables).\n# TYPE timbra_db_size_bytes gauge\ntimbra_db_size_bytes %d\n", g.SizeBytes)
		} else {
			s.log.Warn("metrics: read the database gauges", "error", err.Error())
		}
	}
	io.WriteString(w, b.String())
}

// queueMetrics writes the queue of every destination with pending deliveries: labelled by
// tenant and webhook id (at most 16 URL webhooks a tenant, and one listener a person).
func (s *Server) queueMetrics(ctx context.Context, b *strings.Builder) {
	queues, err := s.webhooks.Queues(ctx)
	if err != nil {
		s.log.Warn("metrics: read the webhook queues", "error", err.Error())
		return
	}
	now := s.cfg.Now()
	gauges := []struct {
		name, help string
		value      func(webhooks.Queue) (float64, bool)
	}{
		{"timbra_webhook_queue_depth", "Pending deliveries of a destination (in flight included).",
			func(q webhooks.Queue) (float64, bool) { return float64(q.Count), true }},
		{"timbra_webhook_in_flight", "Attempts on the wire to a destination.",
			func(q webhooks.Queue) (float64, bool) { return float64(q.InFlight), true }},
		{"timbra_webhook_oldest_pending_seconds", "Age of a destination's oldest pending delivery.",
			func(q webhooks.Queue) (float64, bool) { return max(0, now.Sub(q.Oldest).Seconds()), !q.Oldest.IsZero() }},
		{"timbra_webhook_last_error_timestamp_seconds", "When a destination last failed (since the server started), labelled with the error.",
			func(q webhooks.Queue) (float64, bool) {
				return float64(q.LastErrorAt.UnixMilli()) / 1000, q.LastError != ""
			}},
	}
	for _, g := range gauges {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s gauge\n", g.name, g.help, g.name)
		for _, q := range queues {
			v, ok := g.value(q)
			if !ok {
				continue
			}
			labels := "tenant=" + quote(q.TenantID) + ",webhook=" + quote(q.WebhookID)
			if g.name == "timbra_webhook_last_error_timestamp_seconds" {
				labels += ",error=" + quote(q.LastError)
			}
			fmt.Fprintf(b, "%s{%s} %s\n", g.name, labels, strconv.FormatFloat(v, 'f', -1, 64))
		}
	}
}

// quote is a label value in the exposition format's escaping.
func quote(v string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(v) + `"`
}

// serveBackup answers GET /admin/v1/backup, guarded by the operator token: the whole database
// as one consistent bbolt file, copied first beside the database (Snapshot: the read
// transaction is not held while the client downloads) and then sent with its length, while the
// server goes on serving. Each MiB sent has writeTimeout of its own, so a slow download goes on
// and a client that stopped reading is cut. The master key is not in it.
func (s *Server) serveBackup(w http.ResponseWriter, r *http.Request) {
	if !s.operator(w, r) {
		return
	}
	backup, ok := s.store.(backupStore)
	if !ok {
		s.writeError(w, r, apierr.Conflict("This server's database is PostgreSQL: back it up with pg_dump (docs/guides/postgres.md); GET /admin/v1/backup copies a bbolt database."))
		return
	}
	snap, size, err := backup.Snapshot(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer snap.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="timbra-backup.db"`)
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	rc := http.NewResponseController(w)
	buf := make([]byte, 1<<20)
	var sent int64
	for {
		n, rerr := snap.Read(buf)
		if n > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
			if _, err := w.Write(buf[:n]); err != nil {
				s.log.Warn("backup download cut", "sent", sent, "size", size, "error", err.Error())
				panic(http.ErrAbortHandler) // the status is sent: the client sees a cut body
			}
			sent += int64(n)
		}
		if rerr == io.EOF {
			return
		}
		if rerr != nil {
			s.log.Error("backup failed", "sent", sent, "size", size, "error", rerr.Error())
			panic(http.ErrAbortHandler)
		}
	}
}
