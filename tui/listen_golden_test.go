package tui

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/timbra-mx/timbra/listener"
)

// goldenView runs the listen view in teatest at w×h, sends it msgs, quits, and compares its
// last view with testdata/<test>.golden (go test ./tui -update rewrites them).
func goldenView(t *testing.T, w, h int, msgs ...tea.Msg) {
	t.Helper()
	goldenViewOf(t, testOptions(), w, h, msgs...)
}

// goldenViewOf is goldenView of a view made with opts.
func goldenViewOf(t *testing.T, opts ListenOptions, w, h int, msgs ...tea.Msg) {
	t.Helper()
	tm := teatest.NewTestModel(t, NewListen(opts), teatest.WithInitialTermSize(w, h))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	tm.Send(keyMsg("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second))
	golden.RequireEqual(t, []byte(fm.View()))
}

// goldenSizes are the terminals every screen of the view is drawn at.
var goldenSizes = [][2]int{{120, 35}, {80, 24}, {60, 20}}

// eventID is a UUID v7 as the server makes them: events of the same minute share the start.
func eventID(n int) string { return fmt.Sprintf("01a203de-b7e3-715c-8397-b4556659%04x", n) }

// arrival is event n of a type, signed and verified, its forward under way.
func arrival(n int, typ string) EventMsg {
	id := eventID(n)
	body := `{"id":"` + id + `","type":"` + typ + `","createdAt":"2025-03-10T11:59:59.000Z","personId":null,` +
		`"data":{"relatedObject":{"id":"01a203de-27dd-7040-accc-cd9d668153d3","type":"invoice","url":"/api/v4/invoices/01a203de-27dd-7040-accc-cd9d668153d3"},"status":"Cancelado","previousStatus":"Vigente"}}`
	return EventMsg(listener.EventResult{
		Event: listener.Event{DeliveryID: fmt.Sprintf("01a203de-b7e3-715d-9ec3-a8ef1c4b%04x", n), EventID: id, EventType: typ, Kind: "test",
			Headers: map[string]string{"webhook-id": id, "webhook-timestamp": "1741608000", "webhook-signature": "v1,95Fyn8y5qtxwI8PKa06HhRExowtu3638G4BzlcDwsQM="},
			Body:    body},
		ReceivedAt: t0.Add(time.Duration(n) * time.Second), Verified: true, Pending: true,
	})
}

// answered is event n with the answer of the forward target.
func answered(n int, typ string, status int, latency time.Duration, contentType, body string) EventMsg {
	e := arrival(n, typ)
	e.Pending = false
	h := http.Header{"Date": {"Mon, 10 Mar 2025 12:00:00 GMT"}, "Content-Length": {fmt.Sprint(len(body))}}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	excerpt := body[:min(len(body), 1024)]
	e.Forward = &listener.ForwardResult{URL: "http://localhost:3000/hooks", RequestHeader: listener.ForwardHeader(e.Event, nil),
		StatusCode: &status, Header: h, Excerpt: excerpt, Body: body, Latency: latency}
	return e
}

// failed is event n whose forward got no answer.
func failed(n int, typ, class string, err error, latency time.Duration) EventMsg {
	e := arrival(n, typ)
	e.Pending = false
	e.Forward = &listener.ForwardResult{URL: "http://localhost:3000/hooks", RequestHeader: listener.ForwardHeader(e.Event, nil),
		Error: class, Err: err, Latency: latency}
	return e
}

// The routes of a session with several: every event to the app, invoices also to the
// accounting service.
const (
	routeApp        = "http://localhost:3000/hooks"
	routeAccounting = "http://localhost:4000/timbra"
)

func routesOptions() ListenOptions {
	o := testOptions()
	o.ForwardTo, o.Routes = routeApp, []string{routeApp, routeAccounting + " (invoice.*)"}
	return o
}

// routed is event n forwarded to both routes: the app answered appStatus, the accounting
// service accountingStatus (0: no answer, refused).
func routed(n int, typ string, appStatus, accountingStatus int) EventMsg {
	e := arrival(n, typ)
	e.Pending, e.Targets = false, []string{routeApp, routeAccounting}
	app := listener.ForwardResult{URL: routeApp, RequestHeader: listener.ForwardHeader(e.Event, nil), StatusCode: &appStatus,
		Header: http.Header{"Content-Length": {"0"}}, Latency: 1100 * time.Microsecond}
	acc := listener.ForwardResult{URL: routeAccounting, RequestHeader: listener.ForwardHeader(e.Event, nil), Latency: 400 * time.Microsecond}
	if accountingStatus == 0 {
		acc.Error, acc.Err = "ConnectionFailed", fmt.Errorf("dial tcp [::1]:4000: connect: connection refused")
	} else {
		acc.StatusCode, acc.Header = &accountingStatus, http.Header{"Content-Length": {"0"}}
	}
	e.Forwards = []listener.ForwardResult{app, acc}
	e.Forward = &e.Forwards[0]
	if !forwardOK(&acc) {
		e.Forward = &e.Forwards[1]
	}
	return e
}

// late is event n that came past its attempt's deadline: not forwarded.
func late(n int, typ string) EventMsg {
	e := arrival(n, typ)
	e.Pending, e.Late, e.Deadline = false, true, t0.Add(time.Duration(n)*time.Second-time.Second)
	return e
}

// replayed is a catch-up's event.
func replayed(e EventMsg) EventMsg {
	e.Event.Replay, e.Event.Kind = true, "manual"
	return e
}

// errorPage is the HTML error page of a development server, about 1 KB.
var errorPage = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n" +
	"<pre>TypeError: Cannot read properties of undefined (reading 'relatedObject')<br> &nbsp; &nbsp;at handleInvoiceCanceled (/app/src/webhooks.js:42:31)<br> &nbsp; &nbsp;at /app/src/webhooks.js:18:5<br> &nbsp; &nbsp;at Layer.handle [as handle_request] (/app/node_modules/express/lib/router/layer.js:95:5)<br> &nbsp; &nbsp;at next (/app/node_modules/express/lib/router/route.js:149:13)</pre>\n" +
	strings.Repeat("<!-- padding of the error page: development servers answer long pages -->\n", 6) +
	"</body>\n</html>\n"

func TestGoldenListen(t *testing.T) {
	ok := answered(1, "invoice.stamped", 204, 840*time.Microsecond, "", "")
	jsonOK := answered(4, "invoice.canceled", 200, 3200*time.Microsecond, "application/json; charset=utf-8", `{"received":true,"id":"`+eventID(4)+`","handledBy":"invoice-sync"}`)
	screens := []struct {
		name string
		msgs []tea.Msg
	}{
		// the moment the third event arrives, its forward under way
		{"InFlight", []tea.Msg{testReady(), ok, answered(2, "invoice.canceled", 500, 12*time.Millisecond, "text/html", errorPage),
			arrival(3, "invoice.cancellation_requested")}},
		// the details of an answered event, scrolled down to the answer
		{"DetailsScrolled", []tea.Msg{testReady(), ok, jsonOK, keyMsg("enter"), keyMsg("end")}},
		// a 500 with the development server's error page: `a` opens the details at the answer
		{"Answer500", []tea.Msg{testReady(), ok, answered(2, "invoice.canceled", 500, 12*time.Millisecond, "text/html; charset=utf-8", errorPage), keyMsg("a")}},
		// every kind of row, long types and ids
		{"Rows", []tea.Msg{testReady(), ok, answered(2, "invoice.canceled", 500, 12*time.Millisecond, "text/html", errorPage),
			answered(3, "invoice.cancellation_requested", 202, 1234*time.Millisecond, "", ""),
			failed(5, "invoice.stamped", "Timeout", fmt.Errorf("context deadline exceeded (Client.Timeout exceeded while awaiting headers)"), 10*time.Second),
			failed(6, "invoice.cancellation_rejected", "ConnectionFailed", fmt.Errorf("dial tcp [::1]:3000: connect: connection refused"), 300*time.Microsecond),
			unverified(7), arrival(8, "invoice.canceled")}},
	}
	for _, sc := range screens {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				goldenView(t, size[0], size[1], sc.msgs...)
			})
		}
	}
	catchUp := testReady()
	catchUp.Ready.Replaying = 3
	reconnected := catchUp
	reconnected.Reconnected, reconnected.Ready.Replaying = true, 2
	more := []struct {
		name string
		opts ListenOptions
		msgs []tea.Msg
	}{
		// two routes: an invoice to both, a person's event to the app only, an invoice the
		// accounting service refused (the header names that route), one under way to both
		{"RoutesOneFailed", routesOptions(), []tea.Msg{testReady(), routed(1, "invoice.stamped", 200, 204),
			answered(2, "person.created", 204, 900*time.Microsecond, "", ""), routed(3, "invoice.canceled", 200, 0),
			withTargets(arrival(4, "invoice.stamped"), routeApp, routeAccounting)}},
		// the details of the event one route failed: each route's answer
		{"RoutesDetails", routesOptions(), []tea.Msg{testReady(), routed(1, "invoice.stamped", 200, 204), routed(2, "invoice.canceled", 200, 0),
			keyMsg("enter")}},
		// an event that came past its deadline (the laptop slept), between forwarded ones
		{"Late", testOptions(), []tea.Msg{testReady(), answered(1, "invoice.stamped", 204, 840*time.Microsecond, "", ""), late(2, "invoice.canceled"),
			answered(3, "invoice.stamped", 200, 1500*time.Microsecond, "", "")}},
		{"LateDetails", testOptions(), []tea.Msg{testReady(), answered(1, "invoice.stamped", 204, 840*time.Microsecond, "", ""), late(2, "invoice.canceled"),
			keyMsg("enter")}},
		// a catch-up (--since): three replayed events, one failed, then a live one
		{"Replays", testOptions(), []tea.Msg{catchUp, replayed(answered(1, "invoice.stamped", 204, 840*time.Microsecond, "", "")),
			replayed(answered(2, "invoice.canceled", 500, 12*time.Millisecond, "text/html", errorPage)),
			replayed(answered(3, "invoice.stamped", 200, 950*time.Microsecond, "", "")), arrival(4, "invoice.canceled")}},
		// a reconnection's catch-up: what was missed while disconnected, replayed after the live
		// events before the drop
		{"ReconnectedReplays", testOptions(), []tea.Msg{testReady(), answered(1, "invoice.stamped", 204, 840*time.Microsecond, "", ""),
			DisconnectMsg{Err: fmt.Errorf("no message from the server for 10s"), RetryIn: 500 * time.Millisecond, Attempt: 1}, reconnected,
			replayed(answered(2, "invoice.canceled", 200, 1200*time.Microsecond, "", "")), replayed(arrival(3, "invoice.stamped"))}},
	}
	for _, sc := range more {
		for _, size := range goldenSizes {
			t.Run(fmt.Sprintf("%s/%dx%d", sc.name, size[0], size[1]), func(t *testing.T) {
				goldenViewOf(t, sc.opts, size[0], size[1], sc.msgs...)
			})
		}
	}
}

// withTargets is an arrival going to several routes.
func withTargets(e EventMsg, targets ...string) EventMsg {
	e.Targets = targets
	return e
}

// unverified is event n whose signature did not verify.
func unverified(n int) EventMsg {
	e := arrival(n, "invoice.stamped")
	e.Pending, e.Verified, e.VerifyError = false, false, fmt.Errorf("webhook: no signature matches")
	return e
}

// At any width from 50 columns the rows keep their columns aligned and every status code in
// sight: the id and the type are shortened first, then the status loses its text.
func TestRowsFitTheWidth(t *testing.T) {
	msgs := []tea.Msg{testReady(), answered(1, "invoice.stamped", 204, 840*time.Microsecond, "", ""),
		answered(2, "invoice.canceled", 500, 12*time.Millisecond, "text/html", errorPage),
		answered(3, "invoice.cancellation_requested", 202, 1234*time.Millisecond, "", ""),
		failed(5, "invoice.stamped", "Timeout", fmt.Errorf("deadline"), 10*time.Second), unverified(7), arrival(8, "invoice.canceled")}
	codes := map[string]string{eventID(1)[32:]: "→ 204", eventID(2)[32:]: "→ 500", eventID(3)[32:]: "→ 202", eventID(5)[32:]: "→ Timeout"}
	for w := 50; w <= 140; w++ {
		m, _ := update(t, NewListen(testOptions()), append([]tea.Msg{tea.WindowSizeMsg{Width: w, Height: 30}}, msgs...)...)
		var rows []string
		for _, l := range strings.Split(m.View(), "\n") {
			if strings.HasPrefix(l, "  12:") || strings.HasPrefix(l, "> 12:") {
				rows = append(rows, l)
			}
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("width %d: a line of %d: %q", w, lw, l)
			}
		}
		if len(rows) != 6 {
			t.Fatalf("width %d: %d rows:\n%s", w, len(rows), m.View())
		}
		col := -1
		for _, r := range rows {
			at := strings.IndexAny(r, "→✗⋯")
			if at < 0 {
				t.Fatalf("width %d: no outcome in %q", w, r)
			}
			at = ansi.StringWidth(r[:at])
			if col >= 0 && at != col {
				t.Errorf("width %d: the outcome starts at %d, at %d above:\n%s", w, at, col, strings.Join(rows, "\n"))
			}
			col = at
			for tail, code := range codes {
				if strings.Contains(r, tail) && !strings.Contains(r, code) {
					t.Errorf("width %d: the row of …%s lacks %q: %q", w, tail, code, r)
				}
			}
		}
	}
}

func TestGoldenTargetDown(t *testing.T) {
	goldenView(t, 80, 24, testReady(), TargetMsg{Err: fmt.Errorf("dial tcp [::1]:3000: connect: connection refused")})
}
