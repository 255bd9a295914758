// Package tui holds the terminal views of timbra: the live view of `timbra listen` and the
// deliveries inspector of `timbra webhooks inspect`.
package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/timbra-mx/timbra/listener"
)

// state is the connection state of the session.
type state int

const (
	connecting state = iota
	ready
	reconnecting
)

// maxEvents bounds the events kept; the oldest go first.
const maxEvents = 1000

// Default size before the terminal tells its own.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// Messages the listener feeds the view (through tea.Program.Send).
type (
	// ReadyMsg is a session's Ready; Reconnected is false for the first.
	ReadyMsg struct {
		Ready       listener.Ready
		Reconnected bool
	}
	// EventMsg is one event as it arrives (Pending while it is forwarded) or with what was
	// done with it: the row of its delivery is added, or updated in place.
	EventMsg listener.EventResult
	// DisconnectMsg tells the connection dropped (Attempt 1) or a reconnection failed.
	DisconnectMsg struct {
		Err     error
		RetryIn time.Duration
		Attempt int
	}
	// ResendResultMsg is the outcome of a resend, answered by ListenOptions.Resend's command.
	ResendResultMsg struct {
		EventID    string
		DeliveryID string
		Err        error
	}
	// copiedMsg is the outcome of a copy to the clipboard.
	copiedMsg struct {
		id  string
		err error
	}
)

// ListenOptions describe the session shown.
type ListenOptions struct {
	BaseURL   string
	ForwardTo string   // "" when not forwarding
	Events    []string // the event types asked for; empty for all
	Location  *time.Location
	// Resend asks the server to deliver an event once more to this listener; its command
	// answers a ResendResultMsg. Nil when resending is not possible.
	Resend func(eventID string) tea.Cmd
	// Copy puts text on the clipboard; nil shows the text in the status line instead.
	Copy func(text string) error
}

// ListenModel is the view of `timbra listen`.
type ListenModel struct {
	opts   ListenOptions
	styles Styles
	keys   KeyMap
	help   help.Model

	state      state
	ready      listener.Ready
	disconnect DisconnectMsg

	list   eventList
	detail bool
	status string

	width, height int
}

// NewListen is the view of a session that is connecting.
func NewListen(opts ListenOptions) ListenModel {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	h := help.New()
	return ListenModel{opts: opts, styles: DefaultStyles(), keys: DefaultKeyMap(), help: h}
}

// Init starts nothing: the listener feeds the model.
func (m ListenModel) Init() tea.Cmd { return nil }

// Update is a pure function of the model and a message.
func (m ListenModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
		m.help.Width = m.width
	case ReadyMsg:
		m.state, m.ready = ready, msg.Ready
		if msg.Reconnected {
			m.status = "Reconnected."
		}
	case DisconnectMsg:
		m.state, m.disconnect = reconnecting, msg
	case EventMsg:
		m.list.put(listener.EventResult(msg))
	case ResendResultMsg:
		if msg.Err != nil {
			m.status = "Resend of " + msg.EventID + " failed: " + oneLine(msg.Err.Error())
		} else {
			m.status = "Resent " + msg.EventID + " (delivery " + msg.DeliveryID + ")"
		}
	case copiedMsg:
		if msg.err != nil {
			m.status = "Copy failed (" + oneLine(msg.err.Error()) + "); event id: " + msg.id
		} else {
			m.status = "Copied " + msg.id
		}
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m ListenModel) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Quit):
		return m, tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
	case key.Matches(msg, m.keys.Up):
		m.list.move(-1)
	case key.Matches(msg, m.keys.Down):
		m.list.move(1)
	case key.Matches(msg, m.keys.Details):
		if _, ok := m.list.current(); ok {
			m.detail = !m.detail
		}
	case key.Matches(msg, m.keys.Copy):
		r, ok := m.list.current()
		if !ok {
			m.status = "No event selected."
			break
		}
		id := r.Event.EventID
		if m.opts.Copy == nil {
			m.status = "Event id: " + id
			break
		}
		cp := m.opts.Copy
		return m, func() tea.Msg { return copiedMsg{id: id, err: cp(id)} }
	case key.Matches(msg, m.keys.Resend):
		r, ok := m.list.current()
		switch {
		case !ok:
			m.status = "No event selected."
		case m.opts.Resend == nil:
			m.status = "Resend is unavailable."
		default:
			m.status = "Resending " + r.Event.EventID + "…"
			return m, m.opts.Resend(r.Event.EventID)
		}
	}
	return m, nil
}

// View draws the header, the banner of a lost connection, the events, the details of the
// selected one, the status line and the help, every line cut to the width.
func (m ListenModel) View() string {
	w, h := m.width, m.height
	if w <= 0 {
		w = defaultWidth
	}
	if h <= 0 {
		h = defaultHeight
	}
	top := m.header()
	if m.state == reconnecting {
		top = append(top, m.banner())
	}
	top = append(top, "")
	m.help.Width = w
	bottom := []string{}
	if m.status != "" {
		bottom = append(bottom, m.styles.Status.Render(m.status))
	}
	bottom = append(bottom, strings.Split(m.help.View(m.keys), "\n")...)

	room := max(h-len(top)-len(bottom), 0)
	var details []string
	listRoom := room
	if m.detail {
		if r, ok := m.list.current(); ok {
			listRoom = min(max(room/3, 3), room)
			details = m.details(r)
			details = details[:min(len(details), max(room-listRoom, 0))]
		}
	}
	lines := append(top, m.rows(w, listRoom)...)
	lines = append(lines, details...)
	lines = append(lines, bottom...)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func (m ListenModel) header() []string {
	s := m.styles
	var st string
	switch m.state {
	case connecting:
		st = s.Connecting.Render("● Connecting…")
	case ready:
		st = s.Ready.Render("● Ready")
	case reconnecting:
		st = s.Banner.Render("● Disconnected")
	}
	secret := "(waiting for the server)"
	if m.ready.Secret != "" {
		secret = SecretHint(m.ready.Secret) + s.Dim.Render("  (timbra listen --print-secret)")
	}
	events := m.ready.Events
	if len(events) == 0 {
		events = m.opts.Events
	}
	filter := strings.Join(events, ",")
	if filter == "" || filter == "*" {
		filter = "all events"
	}
	forward := s.Dim.Render("not forwarding (no --forward-to)")
	if m.opts.ForwardTo != "" {
		forward = "POST " + m.opts.ForwardTo
	}
	label := func(l string) string { return s.Label.Render(fmt.Sprintf("%-8s", l)) }
	return []string{
		s.Title.Render("timbra listen") + "  " + st,
		label("Server") + " " + m.opts.BaseURL,
		label("Secret") + " " + secret,
		label("Events") + " " + filter,
		label("Forward") + " " + forward,
	}
}

func (m ListenModel) banner() string {
	d := m.disconnect
	msg := fmt.Sprintf("Disconnected — reconnecting in %s (attempt %d)", roundDuration(d.RetryIn), d.Attempt)
	if d.Err != nil {
		msg += ": " + oneLine(d.Err.Error())
	}
	return m.styles.Banner.Render(msg)
}

// rows are the visible events, the selected one marked.
func (m ListenModel) rows(w, n int) []string {
	if n <= 0 {
		return nil
	}
	if len(m.list.items) == 0 {
		return []string{m.styles.Dim.Render("Waiting for events…")}
	}
	from, to := m.list.window(n)
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		line := m.row(m.list.items[i])
		if i == m.list.selected {
			out = append(out, m.styles.Selected.Render(ansi.Truncate("> "+ansi.Strip(line), w, "…")))
		} else {
			out = append(out, "  "+line)
		}
	}
	return out
}

// row is one event: when, type, event id, and what the forward did.
func (m ListenModel) row(r listener.EventResult) string {
	head := fmt.Sprintf("%s  %-22s %s", r.ReceivedAt.In(m.opts.Location).Format("15:04:05"), r.Event.EventType, r.Event.EventID)
	return head + "  " + m.outcome(r)
}

// outcome is what became of an event, coloured.
func (m ListenModel) outcome(r listener.EventResult) string {
	s := m.styles
	fr := r.Forward
	switch {
	case !r.Verified:
		return s.Unverified.Render("✗ signature NOT verified: not forwarded")
	case r.Pending:
		return s.Pending.Render("⋯ forwarding…")
	case fr == nil:
		return s.Dim.Render("(not forwarded)")
	}
	latency := Latency(fr.Latency)
	if fr.StatusCode == nil {
		msg := fr.Error
		if msg == "" {
			msg = "no answer"
		}
		return s.Failed.Render("→ "+msg) + "  " + latency
	}
	code := *fr.StatusCode
	st := s.Failed
	if code >= 200 && code <= 299 {
		st = s.OK
	}
	text := "→ " + strconv.Itoa(code) + " " + http.StatusText(code)
	if fr.Error != "" {
		text += " (" + fr.Error + ")"
	}
	return st.Render(text) + "  " + latency
}

// details are the lines of the details pane of an event.
func (m ListenModel) details(r listener.EventResult) []string {
	s := m.styles
	e := r.Event
	out := []string{s.Section.Render("Event " + e.EventID), fmt.Sprintf("delivery %s · kind %s · received %s",
		e.DeliveryID, e.Kind, r.ReceivedAt.In(m.opts.Location).Format("2006-01-02 15:04:05"))}
	if !r.Verified && r.VerifyError != nil {
		out = append(out, s.Unverified.Render("Signature: "+oneLine(r.VerifyError.Error())))
	}
	out = append(out, s.Section.Render("Headers"))
	names := make([]string, 0, len(e.Headers))
	for k := range e.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out = append(out, "  "+k+": "+e.Headers[k])
	}
	out = append(out, s.Section.Render("Body"))
	for _, l := range strings.Split(prettyJSON(e.Body), "\n") {
		out = append(out, "  "+l)
	}
	out = append(out, s.Section.Render("Forward"))
	fr := r.Forward
	if fr == nil {
		if r.Pending {
			out = append(out, "  POST "+m.opts.ForwardTo+"  "+m.outcome(r))
		} else {
			out = append(out, "  "+m.outcome(r))
		}
		return out
	}
	out = append(out, "  POST "+fr.URL+"  "+m.outcome(r))
	if fr.Err != nil {
		out = append(out, "  "+s.Failed.Render("error: "+oneLine(fr.Err.Error())))
	}
	if fr.Excerpt != "" {
		for _, l := range strings.Split(strings.TrimRight(fr.Excerpt, "\n"), "\n") {
			out = append(out, "  "+s.Dim.Render(sanitize(l)))
		}
	}
	return out
}

// eventList is the events received and the selected one.
type eventList struct {
	items    []listener.EventResult
	selected int
}

// put adds an event, or updates the row of its delivery (its forward ended).
func (l *eventList) put(r listener.EventResult) {
	for i := len(l.items) - 1; i >= 0; i-- {
		if l.items[i].Event.DeliveryID == r.Event.DeliveryID {
			l.items[i] = r
			return
		}
	}
	l.add(r)
}

func (l *eventList) add(r listener.EventResult) {
	follow := l.selected == len(l.items)-1 || len(l.items) == 0
	l.items = append(l.items, r)
	if len(l.items) > maxEvents {
		drop := len(l.items) - maxEvents
		l.items = append(l.items[:0:0], l.items[drop:]...)
		l.selected = max(l.selected-drop, 0)
	}
	if follow {
		l.selected = len(l.items) - 1
	}
}

func (l *eventList) move(d int) {
	if len(l.items) == 0 {
		return
	}
	l.selected = min(max(l.selected+d, 0), len(l.items)-1)
}

func (l *eventList) current() (listener.EventResult, bool) {
	if l.selected < 0 || l.selected >= len(l.items) {
		return listener.EventResult{}, false
	}
	return l.items[l.selected], true
}

// window is the range of items shown in n rows, keeping the selected one in sight. (It is
// computed from the selection at each View so that resizing needs no bookkeeping.)
func (l *eventList) window(n int) (from, to int) {
	if l.selected >= n {
		from = l.selected - n + 1
	}
	if len(l.items)-from < n {
		from = max(len(l.items)-n, 0)
	}
	return from, min(from+n, len(l.items))
}

// SecretHint shows the start of a secret, enough to tell two apart.
func SecretHint(s string) string {
	const show = len("whsec_") + 4
	if len(s) <= show {
		return "…"
	}
	return s[:show] + "…"
}

func prettyJSON(body string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(body), "", "  "); err != nil {
		return sanitize(body)
	}
	return buf.String()
}

// sanitize drops control characters (but newlines) that would upset the terminal.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || (r >= ' ' && r != 0x7f && (r < 0x80 || r > 0x9f)) {
			return r
		}
		if r == '\t' {
			return ' '
		}
		return -1
	}, s)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(sanitize(s)), " ")
}

// Latency is a forward's duration for people, to two or three significant digits: 420µs,
// 4.2ms, 12ms, 1.23s; never 0s.
func Latency(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return "<1µs"
	case d < time.Millisecond:
		d = d.Round(time.Microsecond)
	case d < 10*time.Millisecond:
		d = d.Round(100 * time.Microsecond)
	case d < time.Second:
		d = d.Round(time.Millisecond)
	default:
		d = d.Round(10 * time.Millisecond)
	}
	return d.String()
}

func roundDuration(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}
