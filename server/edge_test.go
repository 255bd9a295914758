package server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/listener"
)

// serveOn runs a real server on ln (a TLS listener, as `timbra server --tls-cert` makes it, or
// not) until the test ends.
func serveOn(t *testing.T, ln net.Listener) { serveWith(t, ln, nil) }

// serveLogging is serveOn with the server's log.
func serveLogging(t *testing.T, ln net.Listener, log *slog.Logger) {
	serveWith(t, ln, func(c *Config) { c.Logger = log })
}

// serveWith runs a real server on ln, its configuration changed by mutate (when given), and
// returns it and stop, which shuts it down and answers what Serve returned; the end of the
// test stops it too.
func serveWith(t *testing.T, ln net.Listener, mutate func(*Config)) (*Server, func() error) {
	t.Helper()
	d, err := OpenData(DataOptions{Path: filepath.Join(t.TempDir(), "t.db")})
	if err != nil {
		t.Fatal(err)
	}
	return serveData(t, d, ln, mutate)
}

// serveData starts a server on ln over the open database d, as serveWith does.
func serveData(t *testing.T, d *Data, ln net.Listener, mutate func(*Config)) (*Server, func() error) {
	t.Helper()
	cfg := Config{Environment: d.Environment, Logger: slog.New(slog.DiscardHandler)}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	var once sync.Once
	var serveErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			serveErr = <-served
			d.Store.Close()
		})
		return serveErr
	}
	t.Cleanup(func() { stop() })
	return s, stop
}

// dialer opens a connection to the server under test: plain TCP or TLS.
type dialer func() (net.Conn, error)

func dialTCP(addr string) dialer { return func() (net.Conn, error) { return net.Dial("tcp", addr) } }

func dialTLS(addr string) dialer {
	return func() (net.Conn, error) { return tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) }
}

// rawExchange sends raw bytes on a new connection and reads the whole answer (the server
// closes the connection after these errors).
func rawExchange(t *testing.T, dial dialer, request []byte) (*http.Response, api.Envelope) {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	go c.Write(request) // a large request may be cut short by the answer: the write's error is expected
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%.40q: read the answer: %v", request, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%.40q: read the body: %v", request, err)
	}
	var env api.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("%.40q: the answer is not the envelope: %v\n%s", request, err, body)
	}
	if resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || resp.Header.Get("X-Trace-Id") != env.TraceIdentifier || env.TraceIdentifier == "" {
		t.Errorf("%.40q: headers %v, trace %q", request, resp.Header, env.TraceIdentifier)
	}
	return resp, env
}

// TestRefusedBeforeRouting: what net/http refuses before any handler runs answers in the
// envelope, with the status net/http chose, over plain TCP and inside TLS (the listener as
// `timbra server --tls-cert` makes it); a request between MaxHeaderBytes and net/http's limit
// is refused by the middleware with the same text; ordinary requests on the same listener are
// untouched.
func TestRefusedBeforeRouting(t *testing.T) {
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, plain)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}))

	huge := "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n"
	big := "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 100<<10) + "\r\nConnection: close\r\n\r\n"
	for _, over := range []struct {
		name string
		dial dialer
	}{{"TCP", dialTCP(plain.Addr().String())}, {"TLS", dialTLS(raw.Addr().String())}} {
		for _, tc := range []struct {
			name, request string
			status        int
			details       string
		}{
			{"a malformed request line", "NOT HTTP AT ALL\r\n\r\n", 400, MsgMalformedRequest + "."},
			{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, MsgMalformedRequest + ": missing required Host header."},
			{"a malformed header", "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", 400, MsgMalformedRequest + "."},
			{"an unknown transfer encoding", "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: rot13\r\n\r\n", 501, MsgTransferEncoding},
			{"headers past net/http's limit", huge, 431, msgHeadersTooLarge},
			{"headers past MaxHeaderBytes", big, 431, msgHeadersTooLarge},
		} {
			t.Run(over.name+"/"+tc.name, func(t *testing.T) {
				resp, env := rawExchange(t, over.dial, []byte(tc.request))
				if resp.StatusCode != tc.status || env.HTTPStatusCode != tc.status || env.Succeeded || env.Message != apierr.MessageFor(tc.status) || env.Details != tc.details {
					t.Errorf("%d %+v, want %d %q", resp.StatusCode, env, tc.status, tc.details)
				}
				if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("security headers missing: %v", resp.Header)
				}
			})
		}

		// two ordinary requests on one connection, and an answer whose status is an error: as they were
		t.Run(over.name+"/ordinary", func(t *testing.T) {
			c, err := over.dial()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			br := bufio.NewReader(c)
			for _, path := range []string{"/healthz", "/api/v4/people"} {
				io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.Header.Get("Date") == "" || resp.Close {
					t.Errorf("%s: %d, headers %v", path, resp.StatusCode, resp.Header)
				}
				if hsts := resp.Header.Get("Strict-Transport-Security") != ""; hsts != (over.name == "TLS") {
					t.Errorf("%s over %s: HSTS %v (r.TLS must be set over TLS only)", path, over.name, hsts)
				}
			}
		})
	}
}

// TestPlainHTTPToTheTLSPort: plain HTTP sent to the TLS port gets the envelope; HTTPS is served
// as before (r.TLS set: HSTS sent); a handshake that fails otherwise ends the connection without
// an answer, and the server goes on.
func TestPlainHTTPToTheTLSPort(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveOn(t, tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}))
	addr := raw.Addr().String()

	resp, env := rawExchange(t, dialTCP(addr), []byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	if resp.StatusCode != 400 || env.Details != MsgPlainHTTPToHTTPS {
		t.Errorf("plain HTTP: %d %+v", resp.StatusCode, env)
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "\x16\x03\x01\x00\x05hello") // a TLS record header, then no ClientHello
	if b, err := io.ReadAll(c); len(b) > 0 && b[0] != 0x15 || err != nil {
		t.Errorf("a broken handshake: %q, %v (want a TLS alert at most, then the end)", b, err)
	}
	c.Close()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	defer client.CloseIdleConnections()
	r, err := client.Get("https://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 || r.Header.Get("Strict-Transport-Security") == "" || r.TLS == nil {
		t.Errorf("HTTPS: %d %v", r.StatusCode, r.Header)
	}
}

// TestHandshakeFailuresLogged: a TLS handshake that fails is logged once, with the remote
// address; a client gone before its hello (a TCP health check) is not.
func TestHandshakeFailuresLogged(t *testing.T) {
	var mu sync.Mutex
	var logs bytes.Buffer
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveLogging(t, tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}),
		slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil)))
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(logs.String(), "TLS handshake failed")
	}
	exchange := func(send string) {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, send)
		if send == "" {
			c.(*net.TCPConn).CloseWrite()
		}
		io.ReadAll(c)
	}
	exchange("")
	exchange("\x16\x03\x01\x00\x05hello")
	deadline := time.Now().Add(5 * time.Second)
	for count() < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "TLS handshake failed"); n != 1 || !strings.Contains(logs.String(), "remote=127.0.0.1:") {
		t.Errorf("%d handshake failures logged, want 1 (the broken hello, not the silent client):\n%s", n, logs.String())
	}
}

// TestListenOverTLS: a listen session (a websocket: the connection hijacked from the wrapper
// around TLS) opens over wss:// and receives its ready message.
func TestListenOverTLS(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := serveWith(t, tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}), nil)
	creds, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	dialer := &websocket.Dialer{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, HandshakeTimeout: 10 * time.Second}
	h := http.Header{"X-Tenant-Key": {creds.TenantKey}, "X-Api-Key": {creds.APIKey}}
	conn, resp, err := dialer.Dial("wss://"+raw.Addr().String()+listener.Path, h)
	if err != nil {
		t.Fatalf("dial wss: %v (%v)", err, resp)
	}
	defer conn.Close()
	var ready listener.Ready
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := conn.ReadJSON(&ready); err != nil || ready.Type != "ready" || !strings.HasPrefix(ready.Secret, "whsec_") {
		t.Fatalf("ready over TLS: %+v %v", ready, err)
	}
}

// lockedWriter serializes the writes of a log shared by the server's goroutines.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestRewriteOnlyGoErrors: only net/http's own error answers are rewritten, never a handler's
// answer or a piece of a body.
func TestRewriteOnlyGoErrors(t *testing.T) {
	for _, p := range []string{
		"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nDate: x\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n200 OK",
		"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request\r\nmore",
		"HTTP/1.1 4xx Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nx",
		"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n",
		"Hello",
	} {
		if b, ok := rewritePlainError([]byte(p)); ok {
			t.Errorf("%q rewritten as %q", p, b)
		}
	}
}

func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestShutdownDoesNotWaitForSilentConnections: a connection that never sent a request (a
// browser's preconnect, a client's spare dial) does not hold a graceful shutdown; a request in
// flight still finishes.
func TestShutdownDoesNotWaitForSilentConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, stop := serveWith(t, ln, func(c *Config) { c.ShutdownTimeout = 3 * time.Second })
	silent, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// an ordinary request first, so the server has surely accepted the silent connection too
	if resp, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	// net/http counts a silent connection as busy for 5 s, past this server's 3 s to shut down
	if err := stop(); err != nil {
		t.Fatalf("shutdown with a silent connection open: %v", err)
	}
}

// TestSilentConnectionsForgotten: a connection leaves the silent ones when it sends its first
// byte or is closed, so that connections that come and go (health checks) are not kept.
func TestSilentConnectionsForgotten(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := envelopeErrors(raw, nil)
	defer l.Close()
	silent := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.silent)
	}
	accept := func() (client, server net.Conn) {
		client, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		server, err = l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		return client, server
	}
	c1, s1 := accept()
	c2, s2 := accept()
	if n := silent(); n != 2 {
		t.Fatalf("%d silent after two accepts, want 2", n)
	}
	io.WriteString(c1, "G")
	s1.Read(make([]byte, 1))
	s2.Close()
	if n := silent(); n != 0 {
		t.Fatalf("%d silent after one spoke and one closed, want 0", n)
	}
	c1.Close()
	c2.Close()
	s1.Close()
}
