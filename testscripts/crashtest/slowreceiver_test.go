package crashtest

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhooks"
)

// TestSlowReceiverIsNotTimedOutByTheEngineQueue: a receiver that answers every delivery in 4 s,
// well within the 15 s attempt timeout (webhook.AttemptTimeout), must get every delivery
// recorded as succeeded when eight webhooks on its one host send to it at once, each as many
// attempts as the engine allows a destination. An attempt must not spend its timeout waiting
// for a connection: the engine bounds attempts per destination, and the client does not bound
// connections per host. (With 16 connections for 64 attempts, 16 of 64 such deliveries were
// recorded failed with Timeout.)
func TestSlowReceiverIsNotTimedOutByTheEngineQueue(t *testing.T) {
	const (
		hooks      = 8
		deliveries = hooks * webhooks.DefaultPerDestination
		pause      = 4 * time.Second
	)
	bin := timbraBinary(t)
	dir := t.TempDir()
	db := []string{"--data", filepath.Join(dir, "timbra.db")}
	creds := initDatabase(t, bin, db)

	var requests, now, peak atomic.Int64
	stop := make(chan struct{})
	rc := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		requests.Add(1)
		n := now.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		select {
		case <-time.After(pause):
		case <-stop:
		}
		now.Add(-1)
		w.WriteHeader(http.StatusOK)
	}))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(stop) }); rc.Close() })
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rc.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}

	srv := startServer(t, bin, dir, db, caFile, "server")
	c := apiClient(srv.base, creds, &http.Client{Timeout: 30 * time.Second})
	ctx := context.Background()
	ids := make([]string, hooks)
	for h := range hooks {
		var hook api.Webhook
		hookURL := fmt.Sprintf("%s/hook/%d", rc.URL, h)
		if err := c.Do(ctx, http.MethodPost, "/api/v4/webhooks", nil, api.WebhookCreate{URL: &hookURL, EnabledEvents: []string{"*"}}, &hook); err != nil {
			t.Fatal(err)
		}
		ids[h] = hook.ID
	}
	typ := "invoice.canceled"
	for i := range deliveries {
		if err := c.Do(ctx, http.MethodPost, "/api/v4/events/trigger", nil, api.EventTrigger{Type: &typ, WebhookID: &ids[i%hooks]}, nil); err != nil {
			t.Fatalf("trigger %d: %v", i, err)
		}
	}

	states := map[string]int{}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		clear(states)
		for _, id := range ids {
			var list api.PagedList[api.Delivery]
			q := url.Values{"pageSize": {"50"}}
			if err := c.Do(ctx, http.MethodGet, "/api/v4/webhooks/"+id+"/deliveries", q, nil, &list); err != nil {
				t.Fatal(err)
			}
			for _, d := range list.Items {
				k := d.Status
				if d.LastError != nil {
					k += "/" + *d.LastError
				}
				states[k]++
			}
		}
		if states["pending"] == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("receiver: %d requests, at most %d at once; deliveries by status: %v", requests.Load(), peak.Load(), states)
	if n := states["succeeded"]; n != deliveries {
		t.Errorf("%d of %d deliveries succeeded, although the receiver answered each one 200 within %s", n, deliveries, pause)
	}
}
