package server

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/timbra-mx/timbra/internal/webhook"
	"github.com/timbra-mx/timbra/storage"
)

func (f *fixture) raw(path string, token string) (*http.Response, []byte) {
	f.t.Helper()
	req, _ := http.NewRequest("GET", f.http.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp, body
}

func TestMetrics(t *testing.T) {
	f := newFixture(t)
	if resp, _ := f.raw("/metrics", ""); resp.StatusCode != 401 {
		t.Fatalf("metrics without the operator token: %d", resp.StatusCode)
	}
	if resp, _ := f.raw("/metrics", "wrong"); resp.StatusCode != 401 {
		t.Fatalf("metrics with a wrong token: %d", resp.StatusCode)
	}
	f.do("GET", "/api/v4/people/"+f.creds.PersonID, "")
	f.do("GET", "/api/v4/people/0195f0e0-0000-7000-8000-000000000001", "")
	f.do("GET", "/api/v4/no-such-thing", "")
	resp, body := f.raw("/metrics", "op-token")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	text := string(body)
	for _, want := range []string{
		`timbra_http_requests_total{route="GET /api/v4/people/{id}",status="200"} 1`,
		`timbra_http_requests_total{route="GET /api/v4/people/{id}",status="404"} 1`,
		`timbra_http_requests_total{route="/",status="404"} 1`,
		`timbra_http_requests_total{route="GET /metrics",status="401"} 2`,
		`timbra_http_request_duration_seconds_bucket{route="GET /api/v4/people/{id}",le="+Inf"} 2`,
		`timbra_http_request_duration_seconds_count{route="GET /api/v4/people/{id}"} 2`,
		"# TYPE timbra_webhook_deliveries_total counter",
		"timbra_listener_sessions 0",
		"timbra_outbox_depth 0",
		"timbra_db_size_bytes ",
		"# TYPE timbra_store_writer_held_seconds_total counter",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
	// the fixture's tenant was written: the writer's clock counted it
	for _, series := range []string{"timbra_store_writes_total", "timbra_store_writer_held_seconds_total"} {
		m := regexp.MustCompile(`(?m)^` + series + ` ([0-9.e+-]+)$`).FindStringSubmatch(text)
		if m == nil {
			t.Errorf("metrics lack %s", series)
		} else if v, err := strconv.ParseFloat(m[1], 64); err != nil || v <= 0 {
			t.Errorf("%s = %s after writes", series, m[1])
		}
	}
	for _, id := range []string{f.creds.PersonID, "0195f0e0-0000-7000-8000-000000000001", "no-such-thing", f.creds.APIKey} {
		if strings.Contains(text, id) {
			t.Errorf("a raw path or secret %q is in the metrics", id)
		}
	}
	// Every sample line is a name, optional labels and a number.
	sample := regexp.MustCompile(`^[a-z_]+(\{.*\})? [0-9.e+-]+$`)
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(line, "#") && !sample.MatchString(line) {
			t.Errorf("malformed sample %q", line)
		}
	}
}

func TestBackupWhileWriting(t *testing.T) {
	f := newFixture(t)
	if resp, _ := f.raw("/admin/v1/backup", ""); resp.StatusCode != 401 {
		t.Fatalf("backup without the operator token: %d", resp.StatusCode)
	}
	if _, ok := f.srv.store.(*storage.Postgres); ok {
		r := f.do("GET", "/admin/v1/backup", "", "Authorization", "Bearer op-token")
		if r.status != 409 || !strings.Contains(string(r.raw), "pg_dump") {
			t.Fatalf("backup of a PostgreSQL database: %d %s", r.status, r.raw)
		}
		return
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				r := f.do("POST", "/admin/v1/tenants", fmt.Sprintf(`{"ownerEmail":"w%d-%d@example.com"}`, i, n), "Authorization", "Bearer op-token")
				if r.status != 200 {
					t.Errorf("write during backup: %s", r.raw)
					return
				}
			}
		}()
	}
	var bodies [][]byte
	for range 3 {
		resp, body := f.raw("/admin/v1/backup", "op-token")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" {
			t.Fatalf("backup: %d %s", resp.StatusCode, body)
		}
		bodies = append(bodies, body)
	}
	close(stop)
	wg.Wait()
	for i, body := range bodies {
		path := filepath.Join(t.TempDir(), "backup.db")
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := storage.Inspect(path)
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("backup %d: %v %v", i, err, rep.Problems)
		}
		if rep.Schema != storage.SchemaVersion || rep.Environment != "test" || rep.KeyCheck == nil {
			t.Fatalf("backup %d: %+v", i, rep)
		}
		tenants := 0
		for _, b := range rep.Buckets {
			if b.Name == "tenants" {
				tenants = b.Keys
			}
		}
		if tenants < 1 {
			t.Fatalf("backup %d has no tenants: %+v", i, rep.Buckets)
		}
	}
}

func TestDeliveryOutcome(t *testing.T) {
	code := func(c int) *int { return &c }
	for _, c := range []struct {
		a    webhook.Attempt
		want string
	}{
		{webhook.Attempt{StatusCode: code(204)}, "ok"},
		{webhook.Attempt{StatusCode: code(500)}, "http_error"},
		{webhook.Attempt{StatusCode: code(302)}, "http_error"},
		{webhook.Attempt{Error: webhook.ErrorTimeout}, "timeout"},
		{webhook.Attempt{Error: webhook.ErrorTLSFailed}, "tls_failed"},
		{webhook.Attempt{Error: webhook.ErrorConnectionFailed}, "connection_failed"},
		{webhook.Attempt{Error: webhook.ErrorAddressNotAllowed}, "address_not_allowed"},
	} {
		if got := deliveryOutcome(c.a); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
	m := newMetrics()
	m.delivery(webhook.Attempt{StatusCode: code(200)})
	m.delivery(webhook.Attempt{Error: webhook.ErrorTimeout})
	m.delivery(webhook.Attempt{StatusCode: code(201)})
	if m.deliveries["ok"] != 2 || m.deliveries["timeout"] != 1 {
		t.Fatalf("deliveries %v", m.deliveries)
	}
}
