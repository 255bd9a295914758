package tui

import (
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/timbra-mx/timbra/listener"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

var t0 = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

func code(n int) *int { return &n }

func testOptions() ListenOptions {
	return ListenOptions{BaseURL: "http://127.0.0.1:8080", ForwardTo: "http://localhost:3000/hooks", Location: time.UTC}
}

func testReady() ReadyMsg {
	return ReadyMsg{Ready: listener.Ready{WebhookID: "wh_1", Secret: "whsec_abcdefghijkl", Events: []string{"invoice.created"}}}
}

func testEvent(id string, status *int, verified bool) EventMsg {
	r := listener.EventResult{
		Event: listener.Event{DeliveryID: "dlv_" + id, EventID: id, EventType: "invoice.created", Kind: "automatic",
			Headers: map[string]string{"webhook-id": "msg_" + id, "webhook-timestamp": "1741608000"},
			Body:    `{"id":"` + id + `","type":"invoice.created","data":{"total":"116.00"}}`},
		ReceivedAt: t0, Verified: verified,
	}
	if !verified {
		r.VerifyError = errors.New("no matching signature")
	} else if status != nil {
		r.Forward = &listener.ForwardResult{URL: "http://localhost:3000/hooks", StatusCode: status, Excerpt: "ok", Latency: 12 * time.Millisecond}
	}
	return EventMsg(r)
}

// pending is an event as it arrives, its forward under way.
func pending(e EventMsg) EventMsg {
	e.Forward, e.Pending = nil, true
	return e
}

func update(t *testing.T, m tea.Model, msgs ...tea.Msg) (ListenModel, tea.Cmd) {
	t.Helper()
	var cmd tea.Cmd
	for _, msg := range msgs {
		m, cmd = m.Update(msg)
	}
	return m.(ListenModel), cmd
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "home":
		return tea.KeyMsg{Type: tea.KeyHome}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestReadyEventsSelectDetails(t *testing.T) {
	m, _ := update(t, NewListen(testOptions()), tea.WindowSizeMsg{Width: 100, Height: 30})
	if m.state != connecting {
		t.Fatalf("state %v, want connecting", m.state)
	}
	m, _ = update(t, m, testReady(), testEvent("evt_1", code(200), true), testEvent("evt_2", code(500), true), testEvent("evt_3", nil, false))
	if m.state != ready || len(m.list.items) != 3 || m.list.selected != 2 {
		t.Fatalf("state %v, %d events, selected %d", m.state, len(m.list.items), m.list.selected)
	}
	m, _ = update(t, m, keyMsg("up"), keyMsg("k"))
	if m.list.selected != 0 {
		t.Fatalf("selected %d, want 0", m.list.selected)
	}
	m, _ = update(t, m, keyMsg("k"), keyMsg("j"))
	if m.list.selected != 1 {
		t.Fatalf("selected %d, want 1", m.list.selected)
	}
	if v := m.View(); !strings.Contains(v, "whsec_abcd…") {
		t.Errorf("view lacks the secret's hint:\n%s", v)
	}
	m, _ = update(t, m, keyMsg("enter"))
	if !m.detail || m.focus != focusDetails {
		t.Fatal("enter did not open and focus the details")
	}
	v := m.View()
	for _, want := range []string{"Event evt_2", "Webhook-Id: msg_evt_2", `"total": "116.00"`, "→ 500 Internal Server Error", "500 Internal Server Error in 12ms"} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	// A new event while an older one is selected keeps the selection.
	m, _ = update(t, m, testEvent("evt_4", code(204), true))
	if m.list.selected != 1 {
		t.Fatalf("selected %d after a new event, want 1", m.list.selected)
	}
	m, _ = update(t, m, keyMsg("enter"))
	if m.detail || m.focus != focusList {
		t.Fatal("enter did not close the details")
	}
}

// An event shows as a pending row the moment it arrives; its forward's outcome updates that
// row in place, whichever row is selected.
func TestArrivalThenOutcomeInPlace(t *testing.T) {
	m, _ := update(t, NewListen(testOptions()), tea.WindowSizeMsg{Width: 100, Height: 30}, testReady(),
		testEvent("evt_1", code(200), true), pending(testEvent("evt_2", code(500), true)))
	v := m.View()
	if len(m.list.items) != 2 || !strings.Contains(v, "evt_2  ⋯ forwarding…") || strings.Contains(v, "500") {
		t.Fatalf("%d rows, the pending one not shown as such:\n%s", len(m.list.items), v)
	}
	m, _ = update(t, m, keyMsg("up"), testEvent("evt_2", code(500), true))
	v = m.View()
	if len(m.list.items) != 2 || m.list.selected != 0 || strings.Contains(v, "forwarding") || !strings.Contains(v, "evt_2  → 500 Internal Server Error  12ms") {
		t.Fatalf("%d rows, selected %d, not updated in place:\n%s", len(m.list.items), m.list.selected, v)
	}
}

func TestLatency(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "<1µs", 420 * time.Nanosecond: "<1µs", 420 * time.Microsecond: "420µs", 999*time.Microsecond + 700: "1ms",
		4230 * time.Microsecond: "4.2ms", 12 * time.Millisecond: "12ms", 999 * time.Millisecond: "999ms",
		1234 * time.Millisecond: "1.23s", 65 * time.Second: "1m5s",
	} {
		if got := Latency(d); got != want {
			t.Errorf("Latency(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestDisconnectBanner(t *testing.T) {
	m, _ := update(t, NewListen(testOptions()), testReady(),
		DisconnectMsg{Err: errors.New("websocket: close 1006"), RetryIn: 2 * time.Second, Attempt: 3})
	if m.state != reconnecting {
		t.Fatalf("state %v", m.state)
	}
	if v := m.View(); !strings.Contains(v, "Disconnected — reconnecting in 2s (attempt 3)") {
		t.Fatalf("no banner:\n%s", v)
	}
	m, _ = update(t, m, ReadyMsg{Ready: testReady().Ready, Reconnected: true})
	if v := m.View(); m.state != ready || strings.Contains(v, "reconnecting in") || !strings.Contains(v, "Reconnected.") {
		t.Fatalf("state %v after the reconnection:\n%s", m.state, v)
	}
}

func TestResizeTiny(t *testing.T) {
	m, _ := update(t, NewListen(testOptions()), testReady(), testEvent("evt_1", code(200), true),
		DisconnectMsg{Err: errors.New("x"), RetryIn: time.Second, Attempt: 1}, keyMsg("a"), keyMsg("?"))
	for _, size := range [][2]int{{0, 0}, {1, 1}, {2, 0}, {0, 5}, {5, 2}, {10, 3}, {-1, -1}, {300, 2}} {
		m, _ = update(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		v := m.View()
		if size[0] > 0 {
			for _, l := range strings.Split(v, "\n") {
				if w := lipgloss.Width(l); w > size[0] {
					t.Errorf("size %v: line %q is %d wide", size, l, w)
				}
			}
		}
		if size[1] > 0 && strings.Count(v, "\n")+1 > size[1] {
			t.Errorf("size %v: %d lines", size, strings.Count(v, "\n")+1)
		}
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := update(t, NewListen(testOptions()), keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s: the command is not tea.Quit", k)
		}
	}
}

func TestCopyAndResend(t *testing.T) {
	m, _ := update(t, NewListen(testOptions()), testReady(), testEvent("evt_1", code(200), true), keyMsg("r"))
	if m.status != "Resend is unavailable." {
		t.Fatalf("status %q", m.status)
	}
	m, _ = update(t, m, keyMsg("c"))
	if m.status != "Event id: evt_1" {
		t.Fatalf("status %q", m.status)
	}

	var copied, resent string
	o := testOptions()
	o.Copy = func(s string) error { copied = s; return nil }
	o.Resend = func(id string) tea.Cmd {
		return func() tea.Msg { resent = id; return ResendResultMsg{EventID: id, DeliveryID: "dlv_9"} }
	}
	m, cmd := update(t, NewListen(o), testEvent("evt_1", nil, true), keyMsg("c"))
	m, _ = update(t, m, cmd())
	if copied != "evt_1" || m.status != "Copied evt_1" {
		t.Fatalf("copied %q, status %q", copied, m.status)
	}
	m, cmd = update(t, m, keyMsg("r"))
	m, _ = update(t, m, cmd())
	if resent != "evt_1" || m.status != "Resent evt_1 (delivery dlv_9)" {
		t.Fatalf("resent %q, status %q", resent, m.status)
	}
	m, _ = update(t, m, ResendResultMsg{EventID: "evt_1", Err: errors.New("404 not found")})
	if m.status != "Resend of evt_1 failed: 404 not found" {
		t.Fatalf("status %q", m.status)
	}
}

func TestGoldenConnecting(t *testing.T) { goldenView(t, 80, 24) }

func TestGoldenEvents(t *testing.T) {
	goldenView(t, 80, 24, testReady(), testEvent("evt_1", code(200), true), testEvent("evt_2", code(500), true),
		testEvent("evt_3", nil, false), testEvent("evt_4", nil, true))
}

func TestGoldenDetails(t *testing.T) {
	goldenView(t, 80, 24, testReady(), testEvent("evt_1", code(200), true), keyMsg("enter"),
		DisconnectMsg{Err: errors.New("websocket: close 1006"), RetryIn: 2 * time.Second, Attempt: 3})
}

// The details scroll with their own keys while they have the focus; the list moves with the
// same keys when it has it; another event's details start at the top.
func TestDetailsScroll(t *testing.T) {
	m, _ := update(t, NewListen(testOptions()), tea.WindowSizeMsg{Width: 80, Height: 24}, testReady(),
		answered(1, "invoice.stamped", 204, time.Millisecond, "", ""),
		answered(2, "invoice.canceled", 500, 12*time.Millisecond, "text/html", errorPage))
	m, _ = update(t, m, keyMsg("enter"))
	vp := m.details
	if !m.detail || m.focus != focusDetails || vp.YOffset != 0 || vp.Height <= 0 || vp.TotalLineCount() <= vp.Height {
		t.Fatalf("details %v focus %v: offset %d, height %d, lines %d", m.detail, m.focus, vp.YOffset, vp.Height, vp.TotalLineCount())
	}
	steps := []struct {
		key  string
		want func(ListenModel) bool
	}{
		{"down", func(m ListenModel) bool { return m.details.YOffset == 1 }},
		{"j", func(m ListenModel) bool { return m.details.YOffset == 2 }},
		{"k", func(m ListenModel) bool { return m.details.YOffset == 1 }},
		{"pgdown", func(m ListenModel) bool { return m.details.YOffset == 1+m.details.Height }},
		{"end", func(m ListenModel) bool { return m.details.AtBottom() && m.details.YOffset > 0 }},
		{"home", func(m ListenModel) bool { return m.details.YOffset == 0 }},
		{"a", func(m ListenModel) bool {
			return m.details.YOffset == min(m.answerAt, m.details.TotalLineCount()-m.details.Height)
		}},
		{"tab", func(m ListenModel) bool { return m.detail && m.focus == focusList }},
		{"up", func(m ListenModel) bool { return m.list.selected == 0 && m.details.YOffset == 0 }},
		{"end", func(m ListenModel) bool { return m.list.selected == 1 && m.details.YOffset == 0 }},
		{"tab", func(m ListenModel) bool { return m.focus == focusDetails }},
		{"esc", func(m ListenModel) bool { return !m.detail && m.focus == focusList }},
		{"home", func(m ListenModel) bool { return m.list.selected == 0 }},
	}
	for i, st := range steps {
		m, _ = update(t, m, keyMsg(st.key))
		if !st.want(m) {
			t.Fatalf("step %d (%s): offset %d of %d lines (height %d, answer at %d), selected %d, details %v, focus %v",
				i, st.key, m.details.YOffset, m.details.TotalLineCount(), m.details.Height, m.answerAt, m.list.selected, m.detail, m.focus)
		}
	}
	// at the answer the view shows the status and the page's first lines
	m, _ = update(t, m, keyMsg("end"), keyMsg("a"))
	v := m.View()
	for _, want := range []string{"Answer", "500 Internal Server Error in 12ms", "Content-Type: text/html", "<title>Error</title>"} {
		if !strings.Contains(v, want) {
			t.Errorf("the answer lacks %q:\n%s", want, v)
		}
	}
}

// b, h and C copy the body as signed, the request headers, and a curl command that replays
// the forward; c the event id.
func TestCopyBodyHeadersCurl(t *testing.T) {
	var copied []string
	o := testOptions()
	o.Header = http.Header{"Authorization": {"Bearer it's-me"}}
	o.Copy = func(s string) error { copied = append(copied, s); return nil }
	e := arrival(1, "invoice.canceled") // pending: the headers are the ones the forward sends
	m, _ := update(t, NewListen(o), e)
	for _, k := range []string{"c", "b", "h", "C"} {
		var cmd tea.Cmd
		m, cmd = update(t, m, keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no copy", k)
		}
		m, _ = update(t, m, cmd())
	}
	if m.status != "Copied a curl command replaying "+e.Event.EventID {
		t.Errorf("status %q", m.status)
	}
	if len(copied) != 4 || copied[0] != e.Event.EventID || copied[1] != e.Event.Body {
		t.Fatalf("copied %q", copied)
	}
	wantHeaders := "Authorization: Bearer it's-me\nContent-Type: application/json\nUser-Agent: timbra-webhooks/1\n" +
		"Webhook-Id: " + e.Event.EventID + "\nWebhook-Signature: " + e.Event.Headers["webhook-signature"] + "\nWebhook-Timestamp: 1741608000\n"
	if copied[2] != wantHeaders {
		t.Errorf("headers %q\nwant %q", copied[2], wantHeaders)
	}
	curl := copied[3]
	for _, want := range []string{"curl -sS -i -X POST 'http://localhost:3000/hooks'", `-H 'Authorization: Bearer it'\''s-me'`,
		"-H 'Webhook-Id: " + e.Event.EventID + "'", "--data-binary '" + e.Event.Body + "'"} {
		if !strings.Contains(curl, want) {
			t.Errorf("curl lacks %q:\n%s", want, curl)
		}
	}
	// the command runs in a shell: it parses back into the same words
	out, err := exec.Command("sh", "-c", "printf '%s\\n' "+strings.TrimPrefix(strings.ReplaceAll(curl, "\\\n", ""), "curl")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if words := string(out); !strings.Contains(words, "\nAuthorization: Bearer it's-me\n") || !strings.Contains(words, "\n"+e.Event.Body+"\n") {
		t.Errorf("the shell reads:\n%s", words)
	}

	// without a target there is nothing to replay
	o.ForwardTo = ""
	m, cmd := update(t, NewListen(o), testEvent("evt_1", nil, true), keyMsg("C"))
	if cmd != nil || m.status != "Nothing to replay: not forwarding (no --forward-to)." {
		t.Fatalf("status %q", m.status)
	}
}

// A target where nothing listens is said in place of Ready, checked again until it answers; an
// answer to a forward clears it at once.
func TestTargetDown(t *testing.T) {
	checks := 0
	o := testOptions()
	o.CheckTarget = func() error { checks++; return errors.New("dial tcp [::1]:3000: connect: connection refused") }
	m := NewListen(o)
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("no check at start")
	}
	m, tick := update(t, m, testReady(), cmd())
	v := m.View()
	if checks != 1 || tick == nil || !strings.Contains(v, "▲ Connected; the target does not answer") ||
		!strings.Contains(v, "✗ dial tcp [::1]:3000: connect: conn") || strings.Contains(v, "● Ready") {
		t.Fatalf("%d checks, tick %v:\n%s", checks, tick != nil, v)
	}
	// a failed forward while a check is scheduled schedules no other one
	fail := testEvent("evt_1", nil, true)
	fail.Forward = &listener.ForwardResult{URL: o.ForwardTo, Error: "ConnectionFailed", Err: errors.New("dial tcp: connection refused")}
	if m, cmd = update(t, m, fail); cmd != nil {
		t.Fatal("a second check scheduled")
	}
	m, cmd = update(t, m, recheckMsg{})
	if cmd == nil {
		t.Fatal("no check when the tick came")
	}
	m, _ = update(t, m, cmd())
	if checks != 2 || m.targetDown == "" {
		t.Fatalf("%d checks, down %q", checks, m.targetDown)
	}
	m, _ = update(t, m, testEvent("evt_2", code(200), true))
	if v := m.View(); !strings.Contains(v, "● Ready") || strings.Contains(v, "does not answer") {
		t.Fatalf("an answer did not clear the warning:\n%s", v)
	}
	// no target, no check
	o.ForwardTo = ""
	if NewListen(o).Init() != nil {
		t.Fatal("a check without a target")
	}
}
