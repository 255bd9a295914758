package downloadrequests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/csd"
	"github.com/timbra-mx/timbra/internal/satws"
	"github.com/timbra-mx/timbra/internal/satws/satlocal"
	"github.com/timbra-mx/timbra/internal/satws/satwstest"
	"github.com/timbra-mx/timbra/storage"
)

// testEFirma gives every person SAT's test e.firma, opened anew for each step (the worker
// zeroes the key after it).
type testEFirma struct{ t testing.TB }

func (e testEFirma) EFirma(context.Context, string, string) (*csd.Certificate, *csd.PrivateKey, error) {
	c := satwstest.EFirma(e.t)
	return c.Cert, c.Key, nil
}

// clock is a test's clock, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// pending stores a new request of EKU9003173C9's issued metadata for a period starting at start.
func pending(t *testing.T, s storage.Store, tenant, id string, start time.Time) {
	t.Helper()
	r := storage.DownloadRequest{ID: id, TenantID: tenant, PersonID: "p-" + tenant, DownloadTypeID: "Emitidos", DownloadRequestTypeID: TypeManual,
		SatQueryTypeID: "Metadata", RequesterTin: "EKU9003173C9", IssuerTin: "EKU9003173C9", StartDate: start, EndDate: start.AddDate(0, 1, 0),
		DownloadRequestStatusID: StatusPending, Active: true, SatRequestStatusID: "0", CreatedAt: start, UpdatedAt: start}
	if err := s.Update(context.Background(), func(tx storage.Tx) error { return tx.DownloadRequests(tenant).Put(r) }); err != nil {
		t.Fatal(err)
	}
}

func request(t *testing.T, s storage.Store, tenant, id string) storage.DownloadRequest {
	t.Helper()
	var r storage.DownloadRequest
	if err := s.View(context.Background(), func(tx storage.Tx) error {
		var err error
		r, err = tx.DownloadRequests(tenant).Get(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

// body reads a SAT call's message and puts it back for the local SAT.
func body(r *http.Request) []byte {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

func localSAT(t *testing.T, o satlocal.Options) *satlocal.Server {
	t.Helper()
	if o.CFDIs == "" {
		o.CFDIs = t.TempDir()
	}
	l, err := satlocal.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// brief is what a test's failure shows of a request (not its raw messages).
func brief(r storage.DownloadRequest) string {
	return fmt.Sprintf("%s %s active=%v sat=%q state=%s code=%s %q retries=%d next=%v", r.ID, r.DownloadRequestStatusID, r.Active, r.SatRequestID,
		r.SatRequestStatusID, r.SatStatusCode, r.SatMessage, r.RetriesCount, r.NextAttemptDate)
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestWorkerIsolatesTenants: tenant A's query hangs at the SAT; tenant B's request is queried,
// verified and completed meanwhile. Cancelling the worker ends A's call at once, and leaves A's
// request as it was (pending, no retry, not failed) to be taken again.
func TestWorkerIsolatesTenants(t *testing.T) {
	local := localSAT(t, satlocal.Options{})
	hung := make(chan struct{})
	var once sync.Once
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == satws.PathQuery && bytes.Contains(body(r), []byte(`FechaInicial="2024-01-01T00:00:00"`)) {
			once.Do(func() { close(hung) })
			<-r.Context().Done() // A's exchange: no answer until the caller gives up
			return
		}
		local.ServeHTTP(w, r)
	}))
	t.Cleanup(sat.Close)
	s := openStore(t)
	pending(t, s, "a", "a1", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	pending(t, s, "b", "b1", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &Worker{Store: s, TaxFiles: testEFirma{t}, Endpoints: satws.EndpointsAt(sat.URL), Interval: 10 * time.Millisecond,
		Backoff: satws.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond, Factor: 2}, CallTimeout: time.Minute, PerTenant: 1, Concurrency: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()

	<-hung
	waitFor(t, "tenant B's request completed", func() bool { return request(t, s, "b", "b1").DownloadRequestStatusID == StatusCompleted })
	if a := request(t, s, "a", "a1"); a.DownloadRequestStatusID != StatusPending || a.SatRequestID != "" {
		t.Fatalf("tenant A's request moved while its SAT call hung: %s", brief(a))
	}
	stopped := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	if d := time.Since(stopped); d > 2*time.Second {
		t.Errorf("stopping took %s", d)
	}
	if a := request(t, s, "a", "a1"); a.DownloadRequestStatusID != StatusPending || !a.Active || a.RetriesCount != 0 || a.SatMessage != "" {
		t.Errorf("tenant A's request after the stop: %s", brief(a))
	}
}

// TestWorkerCallDeadline: a SAT call that does not answer within CallTimeout is a temporary
// failure: the request is retried later, not failed, and the round ends.
func TestWorkerCallDeadline(t *testing.T) {
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body(r)              // read, so that the server sees the caller go away
		<-r.Context().Done() // no answer until the caller gives up
	}))
	t.Cleanup(sat.Close)
	s := openStore(t)
	pending(t, s, "a", "a1", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	w := &Worker{Store: s, TaxFiles: testEFirma{t}, Endpoints: satws.EndpointsAt(sat.URL), CallTimeout: 50 * time.Millisecond}
	start := time.Now()
	if err := w.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the round took %s", d)
	}
	a := request(t, s, "a", "a1")
	if a.DownloadRequestStatusID != StatusPending || !a.Active || a.RetriesCount != 1 || a.NextAttemptDate == nil || !strings.Contains(a.SatMessage, errDeadline.Error()) {
		t.Errorf("after a call past its deadline: %s", brief(a))
	}
}

// TestWorkerLimits: tenant a has 5 requests, b and c 2 each, every query held 100 ms at the SAT:
// at most PerTenant (2) queries of a tenant and Concurrency (4) in all are at the SAT at once,
// also when a alone has work left, and both limits are reached (the requests run side by side).
func TestWorkerLimits(t *testing.T) {
	local := localSAT(t, satlocal.Options{})
	years := map[string]string{"2023": "c", "2024": "a", "2025": "b"}
	var mu sync.Mutex
	in, most := map[string]int{}, map[string]int{}
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == satws.PathQuery {
			b := body(r)
			tenant := "?"
			if i := bytes.Index(b, []byte(`FechaInicial="`)); i >= 0 {
				tenant = years[string(b[i+14:i+18])]
			}
			mu.Lock()
			in[tenant]++
			in["all"]++
			for _, k := range []string{tenant, "all"} {
				most[k] = max(most[k], in[k])
			}
			mu.Unlock()
			time.Sleep(100 * time.Millisecond)
			defer func() {
				mu.Lock()
				in[tenant]--
				in["all"]--
				mu.Unlock()
			}()
		}
		local.ServeHTTP(w, r)
	}))
	t.Cleanup(sat.Close)
	s := openStore(t)
	n := map[string]int{"a": 5, "b": 2, "c": 2}
	for year, tenant := range years {
		for i := range n[tenant] {
			start, _ := time.Parse("2006-01-02", fmt.Sprintf("%s-%02d-01", year, i+1))
			pending(t, s, tenant, fmt.Sprintf("%s%d", tenant, i), start)
		}
	}
	w := &Worker{Store: s, TaxFiles: testEFirma{t}, Endpoints: satws.EndpointsAt(sat.URL), Interval: 10 * time.Millisecond,
		Backoff: satws.Backoff{Initial: time.Hour, Max: time.Hour, Factor: 2}, Concurrency: 4, PerTenant: 2}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	waitFor(t, "every request queried", func() bool {
		for tenant, k := range n {
			for i := range k {
				if request(t, s, tenant, fmt.Sprintf("%s%d", tenant, i)).SatRequestID == "" {
					return false
				}
			}
		}
		return true
	})
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if most["a"] != 2 || most["b"] > 2 || most["c"] > 2 || most["all"] != 4 || most["?"] != 0 {
		t.Errorf("most queries at the SAT at once: %v; want a 2, b and c at most 2, all 4", most)
	}
}

// TestWorkerTokens: a request's query, verification and download authenticate once; the next
// request of the same e.firma uses the same token; a token past its Expires is renewed before
// the call; a token the SAT no longer knows (a restarted SAT answers 300) is renewed once and the
// step goes on.
func TestWorkerTokens(t *testing.T) {
	dir := t.TempDir()
	x := `<?xml version="1.0" encoding="UTF-8"?>
<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Fecha="2024-01-10T12:00:00" Total="116.00" TipoDeComprobante="I">
  <cfdi:Emisor Rfc="EKU9003173C9" Nombre="EMISOR"/><cfdi:Receptor Rfc="XAXX010101000" Nombre="PUBLICO"/>
  <cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="55555555-5555-4555-8555-555555555555" FechaTimbrado="2024-01-10T12:00:01" RfcProvCertif="SAT970701NN3"/></cfdi:Complemento>
</cfdi:Comprobante>`
	if err := os.WriteFile(filepath.Join(dir, "a.xml"), []byte(x), 0o600); err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now().UTC()}
	var local atomic.Pointer[satlocal.Server]
	local.Store(localSAT(t, satlocal.Options{CFDIs: dir, Now: clk.now}))
	var auths atomic.Int32
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == satws.PathAuthenticate {
			auths.Add(1)
		}
		local.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(sat.Close)
	s := openStore(t)
	w := &Worker{Store: s, TaxFiles: testEFirma{t}, Endpoints: satws.EndpointsAt(sat.URL), Now: clk.now,
		Backoff: satws.Backoff{Initial: time.Second, Max: time.Second, Factor: 2}}
	ctx := context.Background()
	round := func() {
		t.Helper()
		if err := w.Round(ctx); err != nil {
			t.Fatal(err)
		}
		clk.add(2 * time.Second)
	}

	pending(t, s, "a", "a1", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	round() // the query
	round() // the verification, finished: the download
	r := request(t, s, "a", "a1")
	if r.DownloadRequestStatusID != StatusCompleted || len(r.Downloaded) != 1 || r.InvoiceCount != 1 {
		t.Fatalf("the request: %s", brief(r))
	}
	if n := auths.Load(); n != 1 {
		t.Fatalf("Autentica calls for one request: %d, want 1", n)
	}

	pending(t, s, "a", "a2", time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC))
	round()
	if r := request(t, s, "a", "a2"); r.SatRequestID == "" || auths.Load() != 1 {
		t.Fatalf("a second request within the token's life: %d Autentica calls, %s", auths.Load(), brief(r))
	}
	clk.add(5 * time.Minute) // past the token's Expires
	round()
	if r := request(t, s, "a", "a2"); r.DownloadRequestStatusID != StatusCompleted || auths.Load() != 2 {
		t.Fatalf("after the token expired: %d Autentica calls, %s", auths.Load(), brief(r))
	}

	local.Store(localSAT(t, satlocal.Options{CFDIs: dir, Now: clk.now})) // knows no token
	pending(t, s, "a", "a3", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))
	round()
	if r := request(t, s, "a", "a3"); r.SatRequestID == "" || r.DownloadRequestStatusID != StatusInProgress || auths.Load() != 3 {
		t.Fatalf("after the SAT refused the token: %d Autentica calls, %s", auths.Load(), brief(r))
	}
}

// TestWorkerTokensPerService: the withholding CFDIs' service gives tokens of its own, so a
// token is kept per e.firma and service: a CFDI request, a Retenciones request and a CFDI
// request again of one person authenticate once at each service, never trading one service's
// token for the other's.
func TestWorkerTokensPerService(t *testing.T) {
	dir := t.TempDir()
	doc := satwstest.Retenciones("66666666-6666-4666-8666-666666666666", "EKU9003173C9", "AAA010101AAA", "2024-01-10T12:00:00")
	if err := os.WriteFile(filepath.Join(dir, "r.xml"), doc, 0o600); err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now().UTC()}
	local := localSAT(t, satlocal.Options{CFDIs: dir, Now: clk.now})
	var mu sync.Mutex
	auths := map[string]int{}
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, satws.PathAuthenticate) {
			mu.Lock()
			auths[r.URL.Path]++
			mu.Unlock()
		}
		local.ServeHTTP(w, r)
	}))
	t.Cleanup(sat.Close)
	s := openStore(t)
	w := &Worker{Store: s, TaxFiles: testEFirma{t}, Endpoints: satws.EndpointsAt(sat.URL),
		Retenciones: satws.EndpointsAt(sat.URL + satlocal.RetencionesPath), Now: clk.now,
		Backoff: satws.Backoff{Initial: time.Second, Max: time.Second, Factor: 2}}
	ctx := context.Background()
	for i, query := range []string{"Metadata", QueryRetenciones, "Metadata"} {
		id := fmt.Sprintf("r%d", i)
		pending(t, s, "a", id, time.Date(2024, 1+time.Month(i), 1, 0, 0, 0, 0, time.UTC))
		if query == QueryRetenciones {
			if err := s.Update(ctx, func(tx storage.Tx) error {
				r, err := tx.DownloadRequests("a").Get(id)
				if err != nil {
					return err
				}
				r.SatQueryTypeID = QueryRetenciones
				return tx.DownloadRequests("a").Put(r)
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Round(ctx); err != nil {
			t.Fatal(err)
		}
		if r := request(t, s, "a", id); r.SatRequestID == "" {
			t.Fatalf("%s (%s) was not taken: %s", id, query, brief(r))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if auths[satws.PathAuthenticate] != 1 || auths[satlocal.RetencionesPath+satws.PathAuthenticate] != 1 || len(auths) != 2 {
		t.Errorf("Autentica calls by address: %v, want one at each service", auths)
	}
}

// TestWorkerStalledDownload: a package download that stops sending is cut once no byte came
// for a call's deadline (not the download's long one) and tried again later; it is no failure.
func TestWorkerStalledDownload(t *testing.T) {
	dir := t.TempDir()
	x := `<cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" xmlns:tfd="http://www.sat.gob.mx/TimbreFiscalDigital" Version="4.0" Fecha="2024-01-10T12:00:00" Total="1.00" TipoDeComprobante="I"><cfdi:Emisor Rfc="EKU9003173C9"/><cfdi:Receptor Rfc="XAXX010101000"/><cfdi:Complemento><tfd:TimbreFiscalDigital Version="1.1" UUID="77777777-7777-4777-8777-777777777777"/></cfdi:Complemento></cfdi:Comprobante>`
	if err := os.WriteFile(filepath.Join(dir, "a.xml"), []byte(x), 0o600); err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: time.Now().UTC()}
	local := localSAT(t, satlocal.Options{CFDIs: dir, Now: clk.now})
	sat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != satws.PathDownload {
			local.ServeHTTP(w, r)
			return
		}
		body(r)
		w.Header().Set("Content-Type", "text/xml")
		// the answer starts, a first piece of the package arrives, then nothing
		io.WriteString(w, `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h:respuesta xmlns:h="http://DescargaMasivaTerceros.sat.gob.mx" CodEstatus="5000" Mensaje="Solicitud Aceptada"/></s:Header><s:Body><RespuestaDescargaMasivaTercerosSalida xmlns="http://DescargaMasivaTerceros.sat.gob.mx"><Paquete>UEsDBBQAAAAIAAAAIQ`+strings.Repeat("A", 8192))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(sat.Close)
	s := openStore(t)
	w := &Worker{Store: s, TaxFiles: testEFirma{t}, Endpoints: satws.EndpointsAt(sat.URL), Now: clk.now,
		CallTimeout: 300 * time.Millisecond, DownloadTimeout: time.Hour,
		Backoff: satws.Backoff{Initial: time.Second, Max: time.Second, Factor: 2}}
	pending(t, s, "a", "a1", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx := context.Background()
	if err := w.Round(ctx); err != nil { // the query
		t.Fatal(err)
	}
	clk.add(2 * time.Second)
	start := time.Now()
	if err := w.Round(ctx); err != nil { // the verification, finished: the download, which stalls
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the stalled download held its step %s", d)
	}
	a := request(t, s, "a", "a1")
	if a.DownloadRequestStatusID != StatusInProgress || !a.Active || a.RetriesCount != 1 || len(a.Downloaded) != 0 || !strings.Contains(a.SatMessage, "no byte of the package") {
		t.Errorf("after a stalled download: %s", brief(a))
	}
}
