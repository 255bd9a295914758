package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/timbra-mx/timbra/internal/api"
)

// tailOf opens the request log as creds and answers the next entries: each call reads until an
// entry arrives (pings and ready skipped).
func tailOf(t *testing.T, f *fixture, creds api.Credentials) (func() api.RequestLogEntry, *api.RequestLogStream) {
	t.Helper()
	c := &api.Client{BaseURL: f.http.URL, TenantKey: creds.TenantKey, APIKey: creds.APIKey}
	s, err := c.OpenRequestLog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ev, data, err := s.Next()
	if err != nil || ev != "ready" || !strings.Contains(string(data), `"tenantId":"`) {
		t.Fatalf("first event %q %s %v", ev, data, err)
	}
	return func() api.RequestLogEntry {
		t.Helper()
		for {
			ev, data, err := s.Next()
			if err != nil {
				t.Fatalf("tail: %v", err)
			}
			if ev != "request" {
				continue
			}
			var e api.RequestLogEntry
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatal(err)
			}
			return e
		}
	}, s
}

// TestRequestLogTail: the owner's tail gets every request of the tenant as answered (method,
// path, status, latency, request id, error text), never a query value, a header or a body; a
// person's tail only that person's; a request whose key is wrong is in no tenant's log.
func TestRequestLogTail(t *testing.T) {
	f := newFixture(t)
	other := f.createPerson(f.creds, "otro@example.com")
	otherCreds := f.keyFor(f.creds, other.ID)
	next, _ := tailOf(t, f, f.creds)
	nextOther, _ := tailOf(t, f, otherCreds)

	ok := f.do("GET", "/api/v4/people?pageSize=5&apiKey=s3cr3t-value", "")
	bad := f.do("POST", "/api/v4/webhooks", `{"url":"https://example.com/x","enabledEvents":["nope"],"secret":"whsec_zzz"}`)
	f.do("GET", "/api/v4/people", "", "X-API-KEY", "wrong-key")
	f.do("GET", "/api/v4/people/nobody", "", as(otherCreds)...)

	e := next()
	for e.RequestID != ok.env.TraceIdentifier { // the recent entries first: the person and key made above
		if e.Path != "/api/v4/people" && e.Path != "/api/v4/apikeys" {
			t.Fatalf("a recent entry %+v", e)
		}
		e = next()
	}
	if e.Method != "GET" || e.Path != "/api/v4/people" || e.Status != 200 || e.RequestID != ok.env.TraceIdentifier ||
		e.PersonID != f.creds.PersonID || e.Error != "" || e.LatencyMs < 0 || e.Time.IsZero() ||
		strings.Join(e.Query, ",") != "apiKey,pageSize" {
		t.Errorf("first entry %+v", e)
	}
	e = next()
	if e.Method != "POST" || e.Status != 400 || e.RequestID != bad.env.TraceIdentifier || e.Error != "EnabledEvents[0]: El tipo de evento 'nope' no existe." {
		t.Errorf("second entry %+v", e)
	}
	e = next() // the wrong key's request is nobody's: the next is the other person's 404
	if e.Path != "/api/v4/people/nobody" || e.Status != 404 || e.PersonID != other.ID || !strings.HasPrefix(e.Error, "No such resource") {
		t.Errorf("third entry %+v", e)
	}
	if e := nextOther(); e.Path != "/api/v4/people/nobody" {
		t.Errorf("the other person's tail: %+v (the owner's requests are not theirs)", e)
	}
	raw, _ := json.Marshal(e)
	for _, secret := range []string{"s3cr3t", "whsec_zzz", f.creds.APIKey, otherCreds.APIKey, f.creds.TenantKey} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("an entry holds %q: %s", secret, raw)
		}
	}
}

// TestRequestLogEndsAtShutdown: the server's CloseAll ends every tail (a stream would otherwise
// hold Shutdown for its whole timeout).
func TestRequestLogEndsAtShutdown(t *testing.T) {
	f := newFixture(t)
	_, s := tailOf(t, f, f.creds)
	f.srv.requests.CloseAll()
	for {
		_, _, err := s.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("the tail ended with %v, want the end of the stream", err)
			}
			break
		}
	}
}
