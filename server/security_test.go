package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/listener"
	"github.com/timbra-mx/timbra/storage"
)

// Tests of docs/security.md that no other test file holds.

// lockedLog is a log destination the test may read while the server writes (a request's log
// line is written after its answer is sent).
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// securityFixture is newFixture with the database's path known and a log safe to read.
func securityFixture(t *testing.T) (*fixture, string, *lockedLog) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.db")
	d, err := OpenData(DataOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Store.Close() })
	logs := &lockedLog{}
	s, err := New(Config{Environment: d.Environment, AdminToken: "op-token", Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, d.Store, d.Keys)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := s.Accounts().CreateTenant(context.Background(), api.TenantCreate{OwnerEmail: "owner@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &fixture{t: t, srv: s, http: hs, creds: creds, logs: &bytes.Buffer{}}, path, logs
}

// TestNoSecretInClearOnDiskOrInLogs: after every kind of secret has gone through the API (a
// sign-in password, API keys, a webhook signing secret, a CSD key and its password, the
// server's own stamping key made by a stamp), none of them is found in the database file, in
// the master key's absence from it, or in the request log.
func TestNoSecretInClearOnDiskOrInLogs(t *testing.T) {
	f, path, serverLog := securityFixture(t)
	withMiniCatalogs(t, f)
	cer, key, password := realPair(t)
	const signIn = "Clave#Segura2025"

	var person api.Person
	r := f.do("POST", "/api/v4/people", `{"legalName":"ESCUELA KEMPER URGATE","email":"kemper@example.com","password":"`+signIn+`","tin":"EKU9003173C9"}`)
	if r.status != 200 || json.Unmarshal(r.env.Data, &person) != nil {
		t.Fatalf("person: %d %s", r.status, r.raw)
	}
	var k api.APIKey
	r = f.do("POST", "/api/v4/apikeys", `{"personId":"`+person.ID+`","description":"s"}`)
	if r.status != 200 || json.Unmarshal(r.env.Data, &k) != nil || k.APIKeyValue == "" {
		t.Fatalf("key: %d %s", r.status, r.raw)
	}
	var hook api.Webhook
	r = f.do("POST", "/api/v4/webhooks", `{"url":"https://example.com/hook","enabledEvents":["*"]}`)
	if r.status != 201 || json.Unmarshal(r.env.Data, &hook) != nil || hook.Secret == "" {
		t.Fatalf("webhook: %d %s", r.status, r.raw)
	}
	for i, content := range [][]byte{cer, key} {
		body, _ := json.Marshal(map[string]any{"personId": person.ID, "fileType": i, "base64File": base64.StdEncoding.EncodeToString(content), "password": password})
		if r = f.do("POST", "/api/v4/tax-files", string(body)); r.status != 200 {
			t.Fatalf("tax file %d: %d %s", i, r.status, r.raw)
		}
	}
	// a stamp makes the server's stamping key; an invoice by value sends the CSD again
	if err := f.srv.invoices.Store.Update(context.Background(), func(tx storage.Tx) error {
		p, err := tx.People(f.creds.TenantKey).Get(f.creds.PersonID)
		if err != nil {
			return err
		}
		p.Balances = append(p.Balances, storage.Balance{CreditType: 1, Available: 5})
		return tx.People(f.creds.TenantKey).Put(p)
	}); err != nil {
		t.Fatal(err)
	}
	inv, _ := json.Marshal(byValue(t))
	if r = f.do("POST", "/api/v4/invoices", string(inv)); r.status != 200 {
		t.Fatalf("invoice: %d %s", r.status, r.raw)
	}
	pac, err := f.srv.Invoices().PAC(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	master, err := os.ReadFile(path + ".key")
	if err != nil {
		t.Fatal(err)
	}

	secretsOf := map[string][]byte{
		"sign-in password":            []byte(signIn),
		"owner's API key":             []byte(f.creds.APIKey),
		"created API key":             []byte(k.APIKeyValue),
		"webhook secret":              []byte(hook.Secret),
		"webhook secret's key":        []byte(strings.TrimPrefix(hook.Secret, "whsec_")),
		"CSD key password":            []byte(password),
		"CSD key file (a window)":     key[len(key)/2 : len(key)/2+48],
		"stamping key's private part": pac.Key.RSA.D.Bytes()[:48],
		"master key":                  bytes.TrimSpace(master),
	}
	db, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	logs := serverLog.String()
	for name, v := range secretsOf {
		if len(v) < 8 {
			t.Fatalf("%s: too short to search for", name)
		}
		if bytes.Contains(db, v) {
			t.Errorf("the database file holds the %s in clear", name)
		}
		if strings.Contains(logs, string(v)) {
			t.Errorf("the log holds the %s", name)
		}
	}
	if !strings.Contains(logs, "request") {
		t.Fatal("the log is empty: the check proves nothing")
	}
}

// TestSecurityHeaders: every answer, whatever its status, tells caches not to keep it and
// browsers not to sniff it; HSTS only over TLS.
func TestSecurityHeaders(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v4/people", ""},
		{"POST", "/api/v4/apikeys", `{"description":"x"}`},
		{"POST", "/api/v4/people", `{`},
		{"GET", "/api/v4/nothing", ""},
		{"PATCH", "/api/v4/people", ""},
		{"GET", "/healthz", ""},
	} {
		r := f.do(c.method, c.path, c.body)
		if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Cache-Control") != "no-store" ||
			r.header.Get(api.EnvironmentHeader) != "test" {
			t.Errorf("%s %s (%d): headers %v", c.method, c.path, r.status, r.header)
		}
		if r.header.Get("Strict-Transport-Security") != "" {
			t.Errorf("%s %s: HSTS over plain HTTP", c.method, c.path)
		}
	}
	r := f.do("GET", "/api/v4/people", "", "X-API-KEY", "wrong")
	if r.status != 401 || r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("401: %d %v", r.status, r.header)
	}

	ts := httptest.NewTLSServer(f.srv.Handler())
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hsts := resp.Header.Get("Strict-Transport-Security"); !strings.HasPrefix(hsts, "max-age=") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("over TLS: %v", resp.Header)
	}
}

// TestSlowBodyIsCut: a client that sends the headers and then trickles (here: stops sending)
// its body gets a 400 envelope once the body's read deadline passes, instead of holding the
// connection and its handler.
func TestSlowBodyIsCut(t *testing.T) {
	old := bodyReadTimeout
	bodyReadTimeout = 300 * time.Millisecond
	defer func() { bodyReadTimeout = old }()
	f := newFixture(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v4/people HTTP/1.1\r\nHost: x\r\nX-TENANT-KEY: %s\r\nX-API-KEY: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"legalName\":",
		f.creds.TenantKey, f.creds.APIKey)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound for a broken server, not a timing check
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	var env api.RawEnvelope
	if resp.StatusCode != 400 || json.Unmarshal(raw, &env) != nil || env.HTTPStatusCode != 400 {
		t.Fatalf("stalled body: %d %s", resp.StatusCode, raw)
	}
}

// TestListenFrameLimit: a listen session reads frames of at most 64 KiB; a larger one ends
// the session with close code 1009 instead of being buffered.
func TestListenFrameLimit(t *testing.T) {
	f := newHookFixture(t, "")
	conn, _ := f.dialListen(t, "")
	small, _ := json.Marshal(listener.Ack{Type: listener.TypeAck, DeliveryID: strings.Repeat("x", 1000)})
	if err := conn.WriteMessage(websocket.TextMessage, small); err != nil {
		t.Fatal(err)
	}
	if err := conn.WriteMessage(websocket.TextMessage, bytes.Repeat([]byte("a"), 64<<10+1)); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound for a broken server, not a timing check
	for {
		_, _, err := conn.ReadMessage()
		if err == nil {
			continue // a ping or an event: keep reading
		}
		if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
			t.Fatalf("after a frame over the limit: %v, want close 1009", err)
		}
		return
	}
}

// TestDataFilesArePrivate: a new database and its master key are readable by their owner only.
func TestDataFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	path := filepath.Join(t.TempDir(), "p.db")
	d, err := OpenData(DataOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Store.Close()
	for _, p := range []string{path, path + ".key"} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", filepath.Base(p), st.Mode(), err)
		}
	}
}

// TestWrongMasterKeyRefused: a database opened with another master key is refused at start,
// before anything is sealed or opened with the wrong key.
func TestWrongMasterKeyRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	d, err := OpenData(DataOptions{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	d.Store.Close()
	other := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(other, []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err = OpenData(DataOptions{Path: path, MasterKeyFile: other})
	if err == nil {
		d.Store.Close()
		t.Fatal("a database opened with another master key")
	}
	if !strings.Contains(err.Error(), "does not belong") {
		t.Fatalf("error %v", err)
	}
}

// TestValidationXMLNeverEchoed: an invoice sent for validation is the caller's document; no
// failure quotes it, in clear or in base64.
func TestValidationXMLNeverEchoed(t *testing.T) {
	f := newFixture(t)
	withMiniCatalogs(t, f)
	marker := "SECRETMARKER"
	encoded := base64.StdEncoding.EncodeToString([]byte(marker))
	for _, body := range []string{
		`{"xml":"` + marker + `-not-base64","validationTypes":["sat.cfdi.structure"]}`,
		`{"xml":"` + encoded + `","tin":"AAA010101AAA","validationTypes":["sat.blacklist.69b"]}`,
		`{"xml":"` + encoded + `","validationTypes":[]}`,
	} {
		r := f.do("POST", "/api/v4/sat-validations", body)
		if r.status != 400 {
			t.Fatalf("%s: %d %s", body, r.status, r.raw)
		}
		if strings.Contains(r.raw, marker) || strings.Contains(r.raw, encoded) {
			t.Errorf("the answer echoes the XML: %s", r.raw)
		}
	}
}

// TestSecurityDocNamesRealTests: every test and every .go path docs/security.md names exists,
// so the review cannot name a test that was renamed or removed.
func TestSecurityDocNamesRealTests(t *testing.T) {
	root := ".."
	doc, err := os.ReadFile(filepath.Join(root, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFuncRE.FindAllSubmatch(src, -1) {
			tests[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for _, m := range docTickRE.FindAllStringSubmatch(string(doc), -1) {
		name := m[1]
		switch {
		case testNameRE.MatchString(name):
			named++
			if !tests[name] {
				t.Errorf("docs/security.md names %s, which no test file declares", name)
			}
		case strings.HasSuffix(name, ".go") && strings.Contains(name, "/"):
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(name))); err != nil {
				t.Errorf("docs/security.md names %s, which does not exist", name)
			}
		}
	}
	if named < 30 {
		t.Fatalf("docs/security.md names only %d tests: the check reads it wrong", named)
	}
}

var (
	testFuncRE = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)[A-Za-z0-9_]*)\(`)
	docTickRE  = regexp.MustCompile("`([^`\\s]+)`")
	testNameRE = regexp.MustCompile(`^(?:Test|Fuzz)[A-Z0-9_][A-Za-z0-9_]*$`)
)

// TestStalledReaderIsCut: a client that asks for a large answer and never reads it does not
// hold the answer: the write fails once the write deadline passes and the handler ends.
func TestStalledReaderIsCut(t *testing.T) {
	old := writeTimeout
	writeTimeout = 300 * time.Millisecond
	defer func() { writeTimeout = old }()
	f := newFixture(t)
	done := make(chan error, 1)
	f.srv.mux.HandleFunc("GET /test/large", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * writeTimeout) // the handler's own time is not the client's: not cut for it
		_, err := w.Write(make([]byte, 64<<20))
		done <- err
	})
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.http.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /test/large HTTP/1.1\r\nHost: x\r\n\r\n") // and never read
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("64 MB written to a client that never read")
		}
	case <-time.After(30 * time.Second): // a bound for a broken server, not a timing check
		t.Fatal("a client that never reads still holds its answer")
	}
}

// TestErrorsBeforeRoutingInEnvelope: what the router would refuse in plain text or redirect is
// answered in the spec's envelope: headers past the limit (431), a path that is not clean
// ("//", "..": 404, never a redirect), and a listen session asked for by a browser page (403,
// before anything is made for it).
func TestErrorsBeforeRoutingInEnvelope(t *testing.T) {
	f := newHookFixture(t, "")
	envelope := func(resp *http.Response) api.RawEnvelope {
		t.Helper()
		defer resp.Body.Close()
		var env api.RawEnvelope
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, &env); err != nil || env.HTTPStatusCode != resp.StatusCode || env.TraceIdentifier == "" {
			t.Fatalf("%d %q is not the envelope: %v", resp.StatusCode, raw, err)
		}
		return env
	}
	send := func(path string, header http.Header) *http.Response {
		t.Helper()
		conn, err := net.Dial("tcp", strings.TrimPrefix(f.http.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		req, _ := http.NewRequest("GET", "http://x", nil)
		req.URL.Path, req.URL.RawPath = path, ""
		req.Header = header
		req.Header.Set("X-TENANT-KEY", f.creds.TenantKey)
		req.Header.Set("X-API-KEY", f.creds.APIKey)
		if err := req.Write(conn); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	big := http.Header{"X-Padding": {strings.Repeat("a", MaxHeaderBytes)}}
	if resp := send("/api/v4/people", big); resp.StatusCode != 431 || !strings.Contains(envelope(resp).Details, "64 KB") {
		t.Errorf("headers over the limit: %d", resp.StatusCode)
	}
	for _, p := range []string{"//api/v4/people", "/api/v4//people", "/api/v4/x/../people", "/api/v4/./people"} {
		if resp := send(p, http.Header{}); resp.StatusCode != 404 || resp.Header.Get("Location") != "" || envelope(resp).Details != "Not Found" {
			t.Errorf("%s: %d (Location %q)", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if resp := send("/api/v4/people", http.Header{}); resp.StatusCode != 200 {
		t.Fatalf("a clean path: %d", resp.StatusCode)
	}
	h := http.Header{"X-Tenant-Key": {f.creds.TenantKey}, "X-Api-Key": {f.creds.APIKey}, "Origin": {"https://evil.example"}}
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(f.http.URL, "http")+listener.Path, h)
	if err == nil || resp == nil || resp.StatusCode != 403 || envelope(resp).Details != MsgOriginRefused {
		t.Fatalf("listen from a page: %v %v", err, resp)
	}
	if r := f.do("GET", "/api/v4/webhooks", ""); !strings.Contains(r.raw, `"totalCount":0`) {
		t.Fatalf("a refused listen session made a webhook: %s", r.raw)
	}
}
