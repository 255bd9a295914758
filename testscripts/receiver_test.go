package testscripts

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/timbra-mx/timbra/internal/cfdi"
)

// receiversKey finds a script's receivers in its testscript values.
type receiversKey struct{}

// receivers are the local webhook receivers of one script, by name.
type receivers struct {
	mu     sync.Mutex
	byName map[string]*receiver
}

func (rs *receivers) close() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.byName {
		r.srv.Close()
	}
}

// receiver is an https endpoint on 127.0.0.1 that records what it receives and answers with a
// status the script chooses.
type receiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	status int
	got    []delivery
	arrive chan struct{} // closed and replaced at every request
}

type delivery struct {
	header http.Header
	body   []byte
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	status := r.status
	r.got = append(r.got, delivery{req.Header.Clone(), body})
	close(r.arrive)
	r.arrive = make(chan struct{})
	r.mu.Unlock()
	w.WriteHeader(status)
	fmt.Fprintf(w, "receiver answered %d", status)
}

func (r *receiver) snapshot() (n int, last delivery, arrive chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) > 0 {
		last = r.got[len(r.got)-1]
	}
	return len(r.got), last, r.arrive
}

// receiver start NAME CAFILE: starts an https receiver on 127.0.0.1, writes the certificate it
// serves to CAFILE as PEM (for `timbra server --webhook-ca-file`), and sets $NAME_URL to its
// address.
// receiver status NAME CODE: the status it answers from now on (200 at the start).
// receiver count NAME: prints how many requests it received.
// receiver wait NAME N: waits (at most 20 s) until it received N requests in all.
// receiver last NAME: prints the body of the last request, then its headers as lower-case
// `name: value` lines in name order.
// receiver body NAME FILE: writes the body of the last request to FILE, byte for byte.
func receiverCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("receiver does not fail")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: receiver start|status|count|wait|last|body NAME [ARG]")
	}
	rs := ts.Value(receiversKey{}).(*receivers)
	verb, name := args[0], args[1]
	rs.mu.Lock()
	r := rs.byName[name]
	rs.mu.Unlock()
	if verb != "start" && r == nil {
		ts.Fatalf("no receiver %q: start it first", name)
	}
	want := map[string]int{"start": 3, "status": 3, "count": 2, "wait": 3, "last": 2, "body": 3}
	if n, ok := want[verb]; !ok || len(args) != n {
		ts.Fatalf("usage: receiver start NAME CAFILE | status NAME CODE | count NAME | wait NAME N | last NAME | body NAME FILE")
	}
	switch verb {
	case "start":
		if r != nil {
			ts.Fatalf("receiver %q already started", name)
		}
		r = &receiver{status: http.StatusOK, arrive: make(chan struct{})}
		r.srv = httptest.NewTLSServer(r) // listens on 127.0.0.1
		rs.mu.Lock()
		rs.byName[name] = r
		rs.mu.Unlock()
		ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.srv.Certificate().Raw})
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), ca, 0o600))
		ts.Setenv(name+"_URL", r.srv.URL)
	case "status":
		code, err := strconv.Atoi(args[2])
		if err != nil || code < 100 || code > 599 {
			ts.Fatalf("receiver status: %q is not an HTTP status", args[2])
		}
		r.mu.Lock()
		r.status = code
		r.mu.Unlock()
	case "count":
		n, _, _ := r.snapshot()
		fmt.Fprintf(ts.Stdout(), "%d\n", n)
	case "wait":
		want, err := strconv.Atoi(args[2])
		if err != nil {
			ts.Fatalf("receiver wait: %q is not a number", args[2])
		}
		timeout := time.NewTimer(20 * time.Second)
		defer timeout.Stop()
		for {
			n, _, arrive := r.snapshot()
			if n >= want {
				return
			}
			select {
			case <-arrive:
			case <-timeout.C:
				ts.Fatalf("receiver %s got %d requests, want %d", name, n, want)
			}
		}
	case "last", "body":
		n, last, _ := r.snapshot()
		if n == 0 {
			ts.Fatalf("receiver %s received nothing", name)
		}
		if verb == "body" {
			ts.Check(os.WriteFile(ts.MkAbs(args[2]), last.body, 0o600))
			return
		}
		var b bytes.Buffer
		b.Write(last.body)
		b.WriteByte('\n')
		names := make([]string, 0, len(last.header))
		for k := range last.header {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			for _, v := range last.header[k] {
				fmt.Fprintf(&b, "%s: %s\n", strings.ToLower(k), v)
			}
		}
		ts.Stdout().Write(b.Bytes())
	}
}

// jsonget FILE PATH VAR: sets the environment variable VAR to the value at PATH in the JSON
// file FILE. PATH is a dotted path from the root (.id, .items.0.id, .data.relatedObject.id);
// a string is set as it is, any other value as JSON.
func jsonGet(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: jsonget FILE PATH VAR")
	}
	raw, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		ts.Fatalf("jsonget: %s is not JSON: %v", args[0], err)
	}
	path := strings.TrimPrefix(args[1], ".")
	if path != "" {
		for _, part := range strings.Split(path, ".") {
			switch x := v.(type) {
			case map[string]any:
				next, ok := x[part]
				if !ok {
					ts.Fatalf("jsonget: no %q in %s", args[1], args[0])
				}
				v = next
			case []any:
				i, err := strconv.Atoi(part)
				if err != nil || i < 0 || i >= len(x) {
					ts.Fatalf("jsonget: no element %q of %s in %s", part, args[1], args[0])
				}
				v = x[i]
			default:
				ts.Fatalf("jsonget: %s goes past a value in %s", args[1], args[0])
			}
		}
	}
	if s, ok := v.(string); ok {
		ts.Setenv(args[2], s)
		return
	}
	out, err := json.Marshal(v)
	ts.Check(err)
	ts.Setenv(args[2], string(out))
}

// mxnow: sets MX_NOW (2026-11-20T13:45:00), MX_TODAY (2026-11-20), MX_MONTH (11) and MX_YEAR
// (2026) to the current Mexico City time, as the API reads dates.
func mxNow(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: mxnow")
	}
	now := time.Now().In(cfdi.Mexico)
	ts.Setenv("MX_NOW", now.Format(cfdi.DateLayout))
	ts.Setenv("MX_TODAY", now.Format(time.DateOnly))
	ts.Setenv("MX_MONTH", now.Format("01"))
	ts.Setenv("MX_YEAR", now.Format("2006"))
}
