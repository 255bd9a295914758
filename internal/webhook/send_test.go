package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The tests below use only loopback: httptest servers on 127.0.0.1 and a Policy that allows
// the loopback range.

// loopback allows 127.0.0.0/8 and ::1, as an operator would for local development.
func loopback(t *testing.T) Policy {
	t.Helper()
	p, err := NewPolicy("127.0.0.0/8", "::1")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tlsServer starts an httptest TLS server and writes its certificate to a CA file.
func tlsServer(t *testing.T, h http.Handler) (ts *httptest.Server, caFile string) {
	t.Helper()
	ts = httptest.NewUnstartedServer(h)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // handshake failures are expected
	ts.StartTLS()
	t.Cleanup(ts.Close)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return ts, caFile
}

func newClient(t *testing.T, p Policy, caFile string) *http.Client {
	t.Helper()
	c, err := p.Client(caFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func status(a Attempt) string {
	if a.StatusCode == nil {
		return "none"
	}
	return strconv.Itoa(*a.StatusCode)
}

func TestSendDelivers(t *testing.T) {
	secret := NewSecret()
	body := []byte(`{"id":"` + testID + `","type":"webhook.test","nombre":"Ñandú"}`)
	var got atomic.Value
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var problems []string
		if r.Method != http.MethodPost {
			problems = append(problems, "method "+r.Method)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			problems = append(problems, "content-type "+ct)
		}
		if ua := r.Header.Get("User-Agent"); ua != "timbra-webhooks/1" {
			problems = append(problems, "user-agent "+ua)
		}
		if r.Header.Get("webhook-id") != testID {
			problems = append(problems, "webhook-id "+r.Header.Get("webhook-id"))
		}
		if err := Verify(secret, r.Header, b, time.Now(), 0); err != nil {
			problems = append(problems, "verify: "+err.Error())
		}
		got.Store(strings.Join(problems, "; "))
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "recibido")
	}))
	c := newClient(t, loopback(t), caFile)

	now := time.Now()
	sig, err := Sign([]string{secret}, testID, now, body)
	if err != nil {
		t.Fatal(err)
	}
	a := Send(context.Background(), c, ts.URL+"/hook", Headers(testID, now, sig), body)
	if !a.OK() || status(a) != "200" || a.Error != "" || a.Excerpt != "recibido" || a.RetryAfter != 0 || a.Err != nil {
		t.Fatalf("attempt %+v (status %s)", a, status(a))
	}
	if a.Duration <= 0 {
		t.Errorf("duration %v", a.Duration)
	}
	if p, _ := got.Load().(string); p != "" {
		t.Fatalf("the receiver saw: %s", p)
	}
}

func TestSendStatuses(t *testing.T) {
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/"))
		if ra := r.URL.Query().Get("retry"); ra != "" {
			w.Header().Set("Retry-After", ra)
		}
		w.WriteHeader(code)
		io.WriteString(w, http.StatusText(code))
	}))
	c := newClient(t, loopback(t), caFile)
	for _, tc := range []struct {
		path  string
		code  int
		ok    bool
		retry time.Duration
	}{
		{"/200", 200, true, 0},
		{"/204", 204, true, 0},
		{"/299", 299, true, 0},
		{"/400", 400, false, 0},
		{"/410", 410, false, 0},
		{"/429?retry=30", 429, false, 30 * time.Second},
		{"/500", 500, false, 0},
		{"/503?retry=120", 503, false, 2 * time.Minute},
		{"/503?retry=soon", 503, false, 0},
	} {
		a := Send(context.Background(), c, ts.URL+tc.path, nil, []byte(`{}`))
		if a.StatusCode == nil || *a.StatusCode != tc.code || a.Error != "" || a.OK() != tc.ok || a.RetryAfter != tc.retry {
			t.Errorf("%s: attempt %+v (status %s)", tc.path, a, status(a))
		}
		if want := http.StatusText(tc.code); tc.code != 204 && a.Excerpt != want {
			t.Errorf("%s: excerpt %q, want %q", tc.path, a.Excerpt, want)
		}
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	var followed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) { followed.Add(1) })
	mux.HandleFunc("/302", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/other", http.StatusFound)
	})
	mux.HandleFunc("/307", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/other", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/308", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusPermanentRedirect)
	})
	ts, caFile := tlsServer(t, mux)
	c := newClient(t, loopback(t), caFile)
	for _, code := range []int{302, 307, 308} {
		a := Send(context.Background(), c, ts.URL+"/"+strconv.Itoa(code), nil, []byte(`{}`))
		if a.StatusCode == nil || *a.StatusCode != code || a.Error != "" || a.OK() {
			t.Errorf("%d: attempt %+v (status %s)", code, a, status(a))
		}
	}
	if n := followed.Load(); n != 0 {
		t.Fatalf("redirect followed %d times", n)
	}
}

func TestSendExcerpt(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 20<<10) // 320 KiB, beyond the drain bound
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(big[:n])
	}))
	c := newClient(t, loopback(t), caFile)
	for _, n := range []int{0, 1, 1023, 1024, 1025, 5000, len(big)} {
		a := Send(context.Background(), c, ts.URL+"/?n="+strconv.Itoa(n), nil, nil)
		want := big[:min(n, 1024)]
		if status(a) != "500" || a.Error != "" || a.Excerpt != string(want) {
			t.Errorf("body of %d bytes: status %s, error %q, excerpt of %d bytes", n, status(a), a.Error, len(a.Excerpt))
		}
	}
	a := Send(context.Background(), c, ts.URL+"/?n=5000", nil, nil)
	if len(a.Excerpt) != 1024 || a.Body != nil {
		t.Fatalf("excerpt of %d bytes, want exactly 1024; body of %d, want none", len(a.Excerpt), len(a.Body))
	}
	// SendKeeping keeps more of the body for a view, the excerpt staying 1 KB
	for _, n := range []int{0, 1023, 5000, 9000} {
		a := SendKeeping(context.Background(), c, ts.URL+"/?n="+strconv.Itoa(n), nil, nil, 8192)
		if a.Error != "" || a.Excerpt != string(big[:min(n, 1024)]) || string(a.Body) != string(big[:min(n, 8192)]) {
			t.Errorf("keeping 8 KB of %d bytes: error %q, excerpt of %d bytes, body of %d", n, a.Error, len(a.Excerpt), len(a.Body))
		}
		if a.Header.Get("Content-Length") == "" && a.Header.Get("Content-Type") == "" {
			t.Errorf("keeping 8 KB of %d bytes: no response header: %v", n, a.Header)
		}
	}
}

func TestSendTimeout(t *testing.T) {
	release := make(chan struct{})
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "parcial")
			w.(http.Flusher).Flush()
		}
		// Wait for the end of the test only: returning when the client goes away would let
		// the server finish the chunked body when it reads the client's close_notify, which
		// can reach the client before its socket closes and look like a complete response.
		<-release
	}))
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	p := loopback(t)

	// No answer before the deadline of the context: no status.
	c := newClient(t, p, caFile)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	a := Send(ctx, c, ts.URL+"/slow", nil, []byte(`{}`))
	if a.Error != ErrorTimeout || a.StatusCode != nil {
		t.Errorf("slow server: attempt %+v (status %s), want Timeout and no status", a, status(a))
	}

	// Headers came, the body stalls past the deadline of the client: the status is kept.
	c2 := newClient(t, p, caFile)
	c2.Timeout = 200 * time.Millisecond
	a = Send(context.Background(), c2, ts.URL+"/body", nil, []byte(`{}`))
	if a.Error != ErrorTimeout || status(a) != "202" || a.Excerpt != "parcial" {
		t.Errorf("stalled body, client timeout: attempt %+v (status %s), want Timeout with 202", a, status(a))
	}

	// The same with the deadline of the context.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	a = Send(ctx2, c, ts.URL+"/body", nil, []byte(`{}`))
	if a.Error != ErrorTimeout || status(a) != "202" {
		t.Errorf("stalled body, context deadline: attempt %+v (status %s), want Timeout with 202", a, status(a))
	}
}

func TestSendConnectionFailures(t *testing.T) {
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/reset":
			// Close with SO_LINGER 0: the client gets a TCP reset instead of an answer.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			if tc, ok := conn.(*tls.Conn).NetConn().(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
		case "/cut":
			// Promise 100 bytes, send 5, drop the connection.
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			io.WriteString(w, "corto")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
	}))
	c := newClient(t, loopback(t), caFile)

	a := Send(context.Background(), c, ts.URL+"/reset", nil, []byte(`{}`))
	if a.Error != ErrorConnectionFailed || a.StatusCode != nil {
		t.Errorf("reset: attempt %+v (status %s), want ConnectionFailed and no status", a, status(a))
	}
	a = Send(context.Background(), c, ts.URL+"/cut", nil, []byte(`{}`))
	if a.Error != ErrorConnectionFailed || status(a) != "200" || a.Excerpt != "corto" || a.OK() {
		t.Errorf("body cut short: attempt %+v (status %s), want ConnectionFailed with 200", a, status(a))
	}

	// Connection refused: a port nobody listens on any more.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	a = Send(context.Background(), c, "https://"+addr+"/?token=s3cret", nil, []byte(`{}`))
	if a.Error != ErrorConnectionFailed || a.StatusCode != nil {
		t.Errorf("refused: attempt %+v (status %s), want ConnectionFailed", a, status(a))
	}
	// the detail says why, without the URL (its query may hold a token)
	if !strings.Contains(a.Detail, "connection refused") || strings.Contains(a.Detail, "s3cret") || strings.Contains(a.Detail, "https://") {
		t.Errorf("refused: detail %q", a.Detail)
	}

	// DNS failure, without the network: a resolver whose DNS server cannot be reached.
	d := loopback(t).Dialer()
	d.Resolver = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS server in tests")
	}}
	noDNS := newClient(t, loopback(t), caFile)
	noDNS.Transport.(*http.Transport).DialContext = d.DialContext
	a = Send(context.Background(), noDNS, "https://timbra.invalid/", nil, []byte(`{}`))
	var dnsErr *net.DNSError
	if !errors.As(a.Err, &dnsErr) {
		t.Errorf("DNS failure: %v is not a DNS error", a.Err)
	}
	if a.Error != ErrorConnectionFailed || a.StatusCode != nil {
		t.Errorf("DNS failure: attempt %+v, want ConnectionFailed", a)
	}

	// A URL that cannot make a request.
	a = Send(context.Background(), c, "https://[::1/", nil, nil)
	if a.Error != ErrorConnectionFailed || a.StatusCode != nil {
		t.Errorf("bad URL: attempt %+v, want ConnectionFailed", a)
	}
}

func TestSendTLS(t *testing.T) {
	var hits atomic.Int32
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	p := loopback(t)

	// Not trusted: the system roots do not know the test certificate.
	untrusting := newClient(t, p, "")
	a := Send(context.Background(), untrusting, ts.URL+"/", nil, []byte(`{}`))
	if a.Error != ErrorTLSFailed || a.StatusCode != nil {
		t.Errorf("untrusted certificate: attempt %+v (status %s), want TlsFailed", a, status(a))
	}
	if !strings.Contains(a.Detail, "certificate signed by unknown authority") {
		t.Errorf("untrusted certificate: detail %q", a.Detail)
	}

	// Trusted through the CA file.
	trusting := newClient(t, p, caFile)
	a = Send(context.Background(), trusting, ts.URL+"/", nil, []byte(`{}`))
	if !a.OK() {
		t.Errorf("trusted through the CA file: attempt %+v (status %s)", a, status(a))
	}

	// Trusted, but not for the name: the test certificate names 127.0.0.1, ::1 and example.com.
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	a = Send(context.Background(), trusting, "https://localhost:"+strconv.Itoa(port)+"/", nil, []byte(`{}`))
	if a.Error != ErrorTLSFailed || a.StatusCode != nil {
		t.Errorf("wrong host name: attempt %+v (status %s), want TlsFailed", a, status(a))
	}

	// A plain HTTP server on an https URL.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer plain.Close()
	a = Send(context.Background(), trusting, strings.Replace(plain.URL, "http:", "https:", 1)+"/", nil, []byte(`{}`))
	if a.Error != ErrorTLSFailed || a.StatusCode != nil {
		t.Errorf("plain HTTP server: attempt %+v (status %s), want TlsFailed", a, status(a))
	}

	// A server that offers only TLS 1.1: the client asks for 1.2 or later.
	old := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	old.TLS = &tls.Config{MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}
	old.Config.ErrorLog = log.New(io.Discard, "", 0)
	old.StartTLS()
	defer old.Close()
	a = Send(context.Background(), trusting, old.URL+"/", nil, []byte(`{}`))
	if a.Error != ErrorTLSFailed || a.StatusCode != nil {
		t.Errorf("TLS 1.1 server: attempt %+v (status %s), want TlsFailed", a, status(a))
	}

	if n := hits.Load(); n != 1 {
		t.Errorf("%d requests reached a handler, want 1 (the trusted one)", n)
	}
}

// TestGuardRefusesAtConnect: with an empty allow-list, the connect-time guard refuses
// 127.0.0.1 whatever the URL names, here localhost, which the resolver turns into 127.0.0.1.
func TestGuardRefusesAtConnect(t *testing.T) {
	var hits atomic.Int32
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	port := strconv.Itoa(ts.Listener.Addr().(*net.TCPAddr).Port)

	var strict Policy
	c := newClient(t, strict, caFile)
	for _, u := range []string{"https://localhost:" + port + "/", ts.URL + "/", "https://[::ffff:127.0.0.1]:" + port + "/"} {
		a := Send(context.Background(), c, u, nil, []byte(`{}`))
		if a.Error != ErrorAddressNotAllowed || a.StatusCode != nil || !errors.Is(a.Err, ErrAddressNotAllowed) {
			t.Errorf("%s: attempt %+v, want AddressNotAllowed by the guard", u, a)
		}
	}

	// The dialer alone, by name.
	conn, err := strict.DialContext(context.Background(), "tcp", "localhost:"+port)
	if err == nil {
		conn.Close()
		t.Fatal("DialContext connected to localhost with an empty allow-list")
	}
	if !errors.Is(err, ErrAddressNotAllowed) {
		t.Fatalf("DialContext: %v, want ErrAddressNotAllowed", err)
	}
	if _, err := strict.DialContext(context.Background(), "udp", "127.0.0.1:"+port); !errors.Is(err, ErrAddressNotAllowed) {
		t.Fatalf("DialContext over UDP: %v, want ErrAddressNotAllowed", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}

	// Allowed: the same dial connects.
	conn, err = loopback(t).DialContext(context.Background(), "tcp", "localhost:"+port)
	if err != nil {
		t.Fatalf("DialContext with loopback allowed: %v", err)
	}
	conn.Close()
	// Allowing one address does not allow its neighbours.
	only, _ := NewPolicy("127.0.0.2")
	if _, err := only.DialContext(context.Background(), "tcp", "127.0.0.1:"+port); !errors.Is(err, ErrAddressNotAllowed) {
		t.Fatalf("DialContext to 127.0.0.1 with 127.0.0.2 allowed: %v", err)
	}
}

func TestClient(t *testing.T) {
	var hits atomic.Int32
	ts, caFile := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	// A proxy in the environment is ignored: it points at a closed port.
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:9")
	t.Setenv("https_proxy", "http://127.0.0.1:9")
	t.Setenv("NO_PROXY", "")
	c := newClient(t, loopback(t), caFile)
	if c.Timeout != 15*time.Second {
		t.Errorf("timeout %v", c.Timeout)
	}
	tr := c.Transport.(*http.Transport)
	if tr.Proxy != nil {
		t.Error("the transport uses a proxy")
	}
	if tr.TLSClientConfig.MinVersion != tls.VersionTLS12 {
		t.Errorf("TLS minimum %x", tr.TLSClientConfig.MinVersion)
	}
	if tr.DisableKeepAlives || tr.MaxIdleConnsPerHost <= 0 || tr.MaxConnsPerHost != 0 || tr.IdleConnTimeout <= 0 {
		t.Errorf("connection reuse: %+v", tr)
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL, nil)
	if err := c.CheckRedirect(req, []*http.Request{req}); !errors.Is(err, http.ErrUseLastResponse) {
		t.Errorf("CheckRedirect = %v", err)
	}
	for range 3 {
		if a := Send(context.Background(), c, ts.URL+"/", nil, []byte(`{}`)); !a.OK() {
			t.Fatalf("attempt through an environment proxy: %+v", a)
		}
	}
	if hits.Load() != 3 {
		t.Fatalf("%d hits, want 3", hits.Load())
	}

	// CA files: missing, or without a certificate.
	if _, err := (Policy{}).Client(filepath.Join(t.TempDir(), "none.pem")); err == nil {
		t.Error("Client accepted a missing CA file")
	}
	empty := filepath.Join(t.TempDir(), "empty.pem")
	os.WriteFile(empty, []byte("not a certificate\n"), 0o600)
	if _, err := (Policy{}).Client(empty); err == nil {
		t.Error("Client accepted a CA file without certificates")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":                               0,
		"0":                              0,
		"120":                            2 * time.Minute,
		" 5 ":                            5 * time.Second,
		"-5":                             0,
		"1.5":                            0,
		"soon":                           0,
		"99999999999999999999":           30 * 24 * time.Hour,
		"3000000":                        30 * 24 * time.Hour,
		"Sun, 01 Mar 2026 12:01:30 GMT":  90 * time.Second,
		"Sunday, 01-Mar-26 12:10:00 GMT": 10 * time.Minute,
		"Sun Mar  1 13:00:00 2026":       time.Hour,
		"Sun, 01 Mar 2026 11:00:00 GMT":  0,
	} {
		if got := parseRetryAfter(v, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Post", URL: "https://x", Err: err} }
	for _, c := range []struct {
		err  error
		want string
	}{
		{wrap(context.DeadlineExceeded), ErrorTimeout},
		{wrap(&net.OpError{Op: "dial", Err: ErrAddressNotAllowed}), ErrorAddressNotAllowed},
		{wrap(&net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}), ErrorConnectionFailed},
		{wrap(&net.DNSError{Err: "i/o timeout", Name: "x", IsTimeout: true}), ErrorTimeout},
		{wrap(&net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}), ErrorTLSFailed},
		{wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), ErrorTLSFailed},
		{wrap(errors.New("tls: server selected unsupported protocol version 302")), ErrorTLSFailed},
		{wrap(context.Canceled), ErrorConnectionFailed},
		{wrap(io.EOF), ErrorConnectionFailed},
	} {
		if got := classify(c.err); got != c.want {
			t.Errorf("classify(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
