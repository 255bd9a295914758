package listen

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/commands/cmdutil"
	"github.com/timbra-mx/timbra/listener"
)

// linesOf prints results as the JSON lines do (OnReceived, then OnEvent for those forwarded or
// dropped) and decodes each line.
func linesOf(t *testing.T, calls ...func(*listenPrinter)) []map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	f := cmdutil.NewFactory(&cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, "test")
	l := &listenPrinter{f: f, o: &listenOptions{f: f, JSON: true}, loc: time.UTC}
	for _, call := range calls {
		call(l)
	}
	var lines []map[string]any
	for _, raw := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", raw, err)
		}
		lines = append(lines, m)
	}
	return lines
}

// wantFields checks some fields of a decoded line (numbers are float64).
func wantFields(t *testing.T, what string, line map[string]any, want map[string]any) {
	t.Helper()
	for k, v := range want {
		if !reflect.DeepEqual(line[k], v) {
			t.Errorf("%s: %s = %#v, want %#v (line %v)", what, k, line[k], v, line)
		}
	}
}

func lineEvent(id string, replay bool) listener.Event {
	kind := "automatic"
	if replay {
		kind = "manual"
	}
	return listener.Event{Type: listener.TypeEvent, DeliveryID: "dlv-" + id, EventID: id, EventType: "invoice.canceled", Kind: kind,
		Headers: map[string]string{"webhook-id": id}, Body: `{"id":"` + id + `"}`, Replay: replay}
}

// The JSON lines of an event to two routes (one failed), of a late event and of a replayed
// one: routes and forwards, late and the dropped phase, replay.
func TestListenJSONLinesOfRoutesLateAndReplay(t *testing.T) {
	at := time.Date(2025, 3, 10, 12, 0, 1, 0, time.UTC)
	app, acc := "http://localhost:3000/hooks", "http://localhost:4000/timbra"
	ok := 200

	// two routes, the second refused
	routed := listener.EventResult{Event: lineEvent("e-1", false), ReceivedAt: at, Verified: true, Pending: true, Targets: []string{app, acc}}
	done := routed
	done.Pending = false
	done.Forwards = []listener.ForwardResult{
		{URL: app, StatusCode: &ok, Header: http.Header{"Content-Type": {"text/plain"}}, Excerpt: "ok", Latency: 1100 * time.Microsecond},
		{URL: acc, Error: "ConnectionFailed", Err: errors.New("dial tcp [::1]:4000: connect: connection refused"), Latency: 400 * time.Microsecond},
	}
	done.Forward = &done.Forwards[1]
	lines := linesOf(t, func(l *listenPrinter) { l.received(routed) }, func(l *listenPrinter) { l.event(done) })
	if len(lines) != 2 {
		t.Fatalf("routes: %d lines, want received and forwarded", len(lines))
	}
	wantFields(t, "routes, received", lines[0], map[string]any{"phase": "received", "eventId": "e-1", "forwarding": true,
		"routes": []any{app, acc}, "replay": false, "late": false, "receivedAt": "2025-03-10T12:00:01.000Z"})
	wantFields(t, "routes, forwarded", lines[1], map[string]any{"phase": "forwarded", "eventId": "e-1", "replay": false, "late": false})
	fwd, _ := lines[1]["forward"].(map[string]any)
	wantFields(t, "routes, forward (the one that failed)", fwd, map[string]any{"url": acc, "statusCode": nil, "errorClass": "ConnectionFailed",
		"error": "ConnectionFailed: dial tcp [::1]:4000: connect: connection refused", "latencyMs": 0.4})
	fwds, _ := lines[1]["forwards"].([]any)
	if len(fwds) != 2 {
		t.Fatalf("routes: forwards %v, want both routes'", lines[1]["forwards"])
	}
	first, _ := fwds[0].(map[string]any)
	second, _ := fwds[1].(map[string]any)
	wantFields(t, "routes, forwards[0]", first, map[string]any{"url": app, "statusCode": 200.0, "error": nil, "errorClass": nil, "latencyMs": 1.1,
		"excerpt": "ok", "headers": map[string]any{"content-type": "text/plain"}})
	wantFields(t, "routes, forwards[1]", second, map[string]any{"url": acc, "statusCode": nil, "errorClass": "ConnectionFailed"})

	// late on arrival: one line, not forwarding, no routes
	late := listener.EventResult{Event: lineEvent("e-2", false), ReceivedAt: at, Verified: true, Late: true, Deadline: at.Add(-time.Second)}
	lines = linesOf(t, func(l *listenPrinter) { l.received(late) })
	if len(lines) != 1 {
		t.Fatalf("late: %d lines, want the received one only", len(lines))
	}
	wantFields(t, "late", lines[0], map[string]any{"phase": "received", "eventId": "e-2", "forwarding": false, "routes": []any{}, "late": true, "replay": false})

	// late after waiting for a forward slot: received forwarding, then dropped
	waited := listener.EventResult{Event: lineEvent("e-3", false), ReceivedAt: at, Verified: true, Pending: true, Targets: []string{app}}
	dropped := waited
	dropped.Pending, dropped.Late = false, true
	lines = linesOf(t, func(l *listenPrinter) { l.received(waited) }, func(l *listenPrinter) { l.event(dropped) })
	if len(lines) != 2 {
		t.Fatalf("dropped: %d lines, want received and dropped", len(lines))
	}
	wantFields(t, "dropped", lines[1], map[string]any{"phase": "dropped", "eventId": "e-3", "late": true, "forward": nil, "forwards": []any{}})

	// a replay: marked in both lines, kind manual
	replay := listener.EventResult{Event: lineEvent("e-4", true), ReceivedAt: at, Verified: true, Pending: true, Targets: []string{app}}
	answered := replay
	answered.Pending = false
	answered.Forwards = []listener.ForwardResult{{URL: app, StatusCode: &ok, Latency: time.Millisecond}}
	answered.Forward = &answered.Forwards[0]
	lines = linesOf(t, func(l *listenPrinter) { l.received(replay) }, func(l *listenPrinter) { l.event(answered) })
	if len(lines) != 2 {
		t.Fatalf("replay: %d lines", len(lines))
	}
	for i, phase := range []string{"received", "forwarded"} {
		wantFields(t, "replay, "+phase, lines[i], map[string]any{"phase": phase, "eventId": "e-4", "kind": "manual", "replay": true, "late": false})
	}
}
