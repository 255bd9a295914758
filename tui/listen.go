// Package tui holds the terminal views of timbra: the live view of `timbra listen` and the
// deliveries inspector of `timbra webhooks inspect`.
package tui

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/timbra-mx/timbra/internal/webhook"
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
	// TargetMsg is the outcome of a check of the forward target (ListenOptions.CheckTarget):
	// nil when something listens there.
	TargetMsg struct{ Err error }
	// recheckMsg asks for another check of a target that did not answer.
	recheckMsg struct{}
	// copiedMsg is the outcome of a copy to the clipboard.
	copiedMsg struct {
		what, id string
		err      error
	}
)

// ListenOptions describe the session shown.
type ListenOptions struct {
	BaseURL   string
	Session   string // the session's name; "" or "default" are not shown
	ForwardTo string // the first route's URL; "" when not forwarding
	// Routes are every route (its URL and the types it takes) when there are several.
	Routes   []string
	Header   http.Header // added to every forward (--headers): for the details and the curl command
	Events   []string    // the event types asked for; empty for all
	Location *time.Location
	// Resend asks the server to deliver an event once more to this listener; its command
	// answers a ResendResultMsg. Nil when resending is not possible.
	Resend func(eventID string) tea.Cmd
	// Copy puts text on the clipboard; nil shows the event id in the status line instead.
	Copy func(text string) error
	// CheckTarget tells whether something listens at ForwardTo (it may block for a moment);
	// the view checks at start, and again every TargetRecheck while nothing does. Nil: never.
	CheckTarget func() error
}

// TargetRecheck is how often a forward target that did not answer is checked again.
const TargetRecheck = 3 * time.Second

// focus is the pane that the movement keys act on.
type focus int

const (
	focusList focus = iota
	focusDetails
)

// ListenModel is the view of `timbra listen`.
type ListenModel struct {
	opts   ListenOptions
	styles Styles
	keys   KeyMap
	help   help.Model

	state      state
	ready      listener.Ready
	disconnect DisconnectMsg

	// targetDown says why nothing answers at the forward target ("" when it answers or was
	// not checked); recheck tells a new check is on its way.
	targetDown string
	recheck    bool

	list   eventList
	detail bool  // the details pane is open
	focus  focus // focusDetails only while it is open
	status string

	// details is the scrollable pane of the selected event; detailsOf is the delivery it shows
	// (another one starts at the top), answerAt the line where the answer starts, and jump asks
	// the next sync to scroll there.
	details   viewport.Model
	detailsOf string
	answerAt  int
	jump      bool

	width, height int
}

// NewListen is the view of a session that is connecting.
func NewListen(opts ListenOptions) ListenModel {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	return ListenModel{opts: opts, styles: DefaultStyles(), keys: DefaultKeyMap(), help: help.New(), details: viewport.New(0, 0)}
}

// Init checks the forward target; the listener feeds the rest.
func (m ListenModel) Init() tea.Cmd { return m.checkTarget() }

func (m ListenModel) checkTarget() tea.Cmd {
	if m.opts.CheckTarget == nil || m.opts.ForwardTo == "" {
		return nil
	}
	check := m.opts.CheckTarget
	return func() tea.Msg { return TargetMsg{Err: check()} }
}

// targetFailed notes that nothing answers at the target, and schedules a new check.
func (m *ListenModel) targetFailed(why string) tea.Cmd {
	m.targetDown = why
	if m.recheck || m.opts.CheckTarget == nil {
		return nil
	}
	m.recheck = true
	return tea.Tick(TargetRecheck, func(time.Time) tea.Msg { return recheckMsg{} })
}

// Update is a pure function of the model and a message.
func (m ListenModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
		m.help.Width = m.width
	case ReadyMsg:
		m.state, m.ready = ready, msg.Ready
		if msg.Reconnected {
			m.status = "Reconnected."
		}
		if n := msg.Ready.Replaying; n > 0 {
			m.status = "Catching up on " + strconv.Itoa(n) + " missed events (↺) first, oldest first."
		}
	case DisconnectMsg:
		m.state, m.disconnect = reconnecting, msg
	case EventMsg:
		m.list.put(listener.EventResult(msg))
		if fr := msg.Forward; fr != nil && fr.StatusCode != nil {
			m.targetDown = "" // it answered
		} else if fr != nil && fr.Error == webhook.ErrorConnectionFailed {
			why := fr.ErrorText()
			if len(m.opts.Routes) > 1 { // name the route, as CheckTarget does
				why = fr.URL + ": " + why
			}
			cmd = m.targetFailed(why)
		}
	case TargetMsg:
		if msg.Err != nil {
			cmd = m.targetFailed(oneLine(msg.Err.Error()))
		} else {
			m.targetDown = ""
		}
	case recheckMsg:
		m.recheck = false
		if m.targetDown != "" {
			cmd = m.checkTarget()
		}
	case ResendResultMsg:
		if msg.Err != nil {
			m.status = "Resend of " + msg.EventID + " failed: " + oneLine(msg.Err.Error())
		} else {
			m.status = "Resent " + msg.EventID + " (delivery " + msg.DeliveryID + ")"
		}
	case copiedMsg:
		switch {
		case msg.err != nil && msg.what == copyID:
			m.status = "Copy failed (" + oneLine(msg.err.Error()) + "); event id: " + msg.id
		case msg.err != nil:
			m.status = "Copy failed (" + oneLine(msg.err.Error()) + ")"
		case msg.what == copyID:
			m.status = "Copied " + msg.id
		default:
			m.status = "Copied " + msg.what + " " + msg.id
		}
	case tea.KeyMsg:
		m, cmd = m.key(msg)
	}
	m.syncDetails()
	return m, cmd
}

func (m ListenModel) key(msg tea.KeyMsg) (ListenModel, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		return m, nil
	case key.Matches(msg, k.Copy):
		return m.copy(copyID)
	case key.Matches(msg, k.CopyBody):
		return m.copy(copyBody)
	case key.Matches(msg, k.CopyHeaders):
		return m.copy(copyHeaders)
	case key.Matches(msg, k.CopyCurl):
		return m.copy(copyCurl)
	case key.Matches(msg, k.Resend):
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
		return m, nil
	case key.Matches(msg, k.Answer):
		if _, ok := m.list.current(); ok {
			m.detail, m.focus, m.jump = true, focusDetails, true
		}
		return m, nil
	}
	if m.focus == focusDetails {
		vp := &m.details
		switch {
		case key.Matches(msg, k.Up):
			vp.ScrollUp(1)
		case key.Matches(msg, k.Down):
			vp.ScrollDown(1)
		case key.Matches(msg, k.PageUp):
			vp.PageUp()
		case key.Matches(msg, k.PageDown):
			vp.PageDown()
		case key.Matches(msg, k.Top):
			vp.GotoTop()
		case key.Matches(msg, k.Bottom):
			vp.GotoBottom()
		case key.Matches(msg, k.Focus):
			m.focus = focusList
		case key.Matches(msg, k.Back), key.Matches(msg, k.Details):
			m.detail, m.focus = false, focusList
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Up):
		m.list.move(-1)
	case key.Matches(msg, k.Down):
		m.list.move(1)
	case key.Matches(msg, k.PageUp):
		m.list.move(-max(m.layout().listRoom, 1))
	case key.Matches(msg, k.PageDown):
		m.list.move(max(m.layout().listRoom, 1))
	case key.Matches(msg, k.Top):
		m.list.move(-len(m.list.items))
	case key.Matches(msg, k.Bottom):
		m.list.move(len(m.list.items))
	case key.Matches(msg, k.Details), key.Matches(msg, k.Focus):
		if _, ok := m.list.current(); ok {
			m.detail, m.focus = true, focusDetails
		}
	case key.Matches(msg, k.Back):
		m.detail = false
	}
	return m, nil
}

// syncDetails fits the details pane to the selected event and to the room it has: its content
// made again, the scroll kept (at the top for another event, at the answer when asked).
func (m *ListenModel) syncDetails() {
	r, ok := m.list.current()
	if !m.detail || !ok {
		m.detail, m.focus, m.jump = false, focusList, false
		return
	}
	l := m.layout()
	lines, answerAt := m.detailLines(r, l.width)
	vp := &m.details
	vp.Width, vp.Height = l.width, max(l.detailRoom-1, 0)
	vp.SetContent(strings.Join(lines, "\n"))
	if r.Event.DeliveryID != m.detailsOf {
		m.detailsOf = r.Event.DeliveryID
		vp.SetYOffset(0)
	}
	m.answerAt = answerAt
	if m.jump {
		m.jump = false
		vp.SetYOffset(answerAt)
	}
	vp.SetYOffset(vp.YOffset) // within the content at this height
}

// What the copy keys copy (as the status line names it).
const (
	copyID      = "event id"
	copyBody    = "the body of"
	copyHeaders = "the request headers of"
	copyCurl    = "a curl command replaying"
)

// copy puts a part of the selected event on the clipboard.
func (m ListenModel) copy(what string) (ListenModel, tea.Cmd) {
	r, ok := m.list.current()
	if !ok {
		m.status = "No event selected."
		return m, nil
	}
	id := r.Event.EventID
	var text string
	switch what {
	case copyID:
		text = id
	case copyBody:
		text = r.Event.Body
	case copyHeaders:
		text = headerText(m.requestHeader(r))
	case copyCurl:
		url := m.opts.ForwardTo
		if r.Forward != nil {
			url = r.Forward.URL
		}
		if url == "" {
			m.status = "Nothing to replay: not forwarding (no --forward-to)."
			return m, nil
		}
		text = curlCommand(url, m.requestHeader(r), r.Event.Body)
	}
	if m.opts.Copy == nil {
		if what == copyID {
			m.status = "Event id: " + id
		} else {
			m.status = "Copy is unavailable."
		}
		return m, nil
	}
	cp := m.opts.Copy
	return m, func() tea.Msg { return copiedMsg{what: what, id: id, err: cp(text)} }
}

// requestHeader is what the forward of an event sends (or sent).
func (m ListenModel) requestHeader(r listener.EventResult) http.Header {
	if r.Forward != nil && r.Forward.RequestHeader != nil {
		return r.Forward.RequestHeader
	}
	return listener.ForwardHeader(r.Event, m.opts.Header)
}

// headerText is a header as lines of NAME: VALUE, sorted by name.
func headerText(h http.Header) string {
	var b strings.Builder
	for _, k := range sortedKeys(h) {
		for _, v := range h[k] {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	return b.String()
}

func sortedKeys(h http.Header) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// curlCommand is a shell command that posts the same request again (its signature stays
// valid for the receiver's tolerance, five minutes in the Standard Webhooks libraries).
func curlCommand(url string, h http.Header, body string) string {
	var b strings.Builder
	b.WriteString("curl -sS -i -X POST " + shellQuote(url))
	for _, k := range sortedKeys(h) {
		for _, v := range h[k] {
			b.WriteString(" \\\n  -H " + shellQuote(k+": "+v))
		}
	}
	b.WriteString(" \\\n  --data-binary " + shellQuote(body) + "\n")
	return b.String()
}

// shellQuote quotes a word for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
