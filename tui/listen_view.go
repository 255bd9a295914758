package tui

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/timbra-mx/timbra/listener"
)

// listenLayout is where the parts of the view go at the current size.
type listenLayout struct {
	width, height int
	top, bottom   []string
	// listRoom is the rows of events; detailRoom the details pane's, its title line included.
	listRoom, detailRoom int
}

// layout places the header (one line while the details are open), the banner of a lost
// connection, the events, the details pane, the status line and the help.
func (m ListenModel) layout() listenLayout {
	w, h := m.width, m.height
	if w <= 0 {
		w = defaultWidth
	}
	if h <= 0 {
		h = defaultHeight
	}
	l := listenLayout{width: w, height: h}
	if m.detail {
		l.top = []string{m.title() + "  " + m.forwardTo()}
	} else {
		l.top = m.header()
	}
	if m.state == reconnecting {
		l.top = append(l.top, m.banner())
	}
	l.top = append(l.top, "")
	if m.status != "" {
		l.bottom = append(l.bottom, m.styles.Status.Render(m.status))
	}
	hm := m.help
	hm.Width = w
	if m.focus == focusDetails {
		l.bottom = append(l.bottom, strings.Split(hm.View(detailsHelp{m.keys}), "\n")...)
	} else {
		l.bottom = append(l.bottom, strings.Split(hm.View(m.keys), "\n")...)
	}
	room := max(h-len(l.top)-len(l.bottom), 0)
	l.listRoom = room
	if m.detail {
		l.listRoom = min(max(room/4, 3), room)
		l.detailRoom = room - l.listRoom
	}
	return l
}

// View draws the layout, every line cut to the width.
func (m ListenModel) View() string {
	l := m.layout()
	lines := append(l.top, m.rows(l.width, l.listRoom)...)
	if m.detail && l.detailRoom > 0 {
		for len(lines) < len(l.top)+l.listRoom { // the pane stays in place
			lines = append(lines, "")
		}
		lines = append(lines, m.detailsTitle())
		if l.detailRoom > 1 {
			for _, line := range strings.Split(m.details.View(), "\n") {
				lines = append(lines, strings.TrimRight(line, " ")) // the viewport pads to its width
			}
		}
	}
	lines = append(lines, l.bottom...)
	if len(lines) > l.height {
		lines = lines[:l.height]
	}
	for i, line := range lines {
		lines[i] = ansi.Truncate(line, l.width, "…")
	}
	return strings.Join(lines, "\n")
}

// title is the name of the view and the state of the session.
func (m ListenModel) title() string {
	s := m.styles
	var st string
	switch m.state {
	case connecting:
		st = s.Connecting.Render("● Connecting…")
	case ready:
		st = s.Ready.Render("● Ready")
		if m.targetDown != "" && len(m.opts.Routes) > 1 {
			st = s.Pending.Render("▲ Connected; a route's target does not answer")
		} else if m.targetDown != "" {
			st = s.Pending.Render("▲ Connected; the target does not answer")
		}
	case reconnecting:
		st = s.Banner.Render("● Reconnecting…")
	}
	return s.Title.Render("timbra listen") + "  " + st
}

func (m ListenModel) forwardTo() string {
	if m.opts.ForwardTo == "" {
		return m.styles.Dim.Render("not forwarding (no --forward-to)")
	}
	to := m.opts.ForwardTo
	if len(m.opts.Routes) > 1 {
		to = strings.Join(m.opts.Routes, ", ")
	}
	if m.targetDown != "" {
		return "POST " + to + "  " + m.styles.Failed.Render("✗ "+m.targetDown)
	}
	return "POST " + to
}

// session names a session other than the default one.
func (m ListenModel) session() string {
	if m.opts.Session == "" || m.opts.Session == "default" {
		return ""
	}
	return m.styles.Dim.Render("  session ") + m.opts.Session
}

func (m ListenModel) header() []string {
	s := m.styles
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
	label := func(l string) string { return s.Label.Render(fmt.Sprintf("%-8s", l)) }
	return []string{
		m.title(),
		label("Server") + " " + m.opts.BaseURL + m.session(),
		label("Secret") + " " + secret,
		label("Events") + " " + filter,
		label("Forward") + " " + m.forwardTo(),
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

// Widths of a row: the selection mark, the time and the gaps between the four columns; the
// narrowest event id (an ellipsis and its last 8 characters, which differ from event to event
// where a UUID v7's first ones do not) and type.
const (
	rowFixed   = 2 + 8 + 2 + 2 + 2
	minIDCol   = 9
	tinyIDCol  = 5
	minTypeCol = 12
)

// rowColumns are the widths of the type and event id columns of the rows shown, and the room
// left for the outcome, which takes its short form (the status code without its text) when
// its long one does not fit.
type rowColumns struct {
	typeW, idW, outRoom int
}

// columns fits the visible rows to the width, trying in turn: everything in full; the id cut
// (to its last 8 characters); the types without their namespace too (…canceled); the outcome
// without the status text (the code stays), kept by the rows whose text fits; the types cut
// to 12; the id to its last 4. While every outcome is whole, the id takes what room is left.
func (m ListenModel) columns(items []listener.EventResult, w int) rowColumns {
	var typeW, nsW, idW, full, short int
	for _, r := range items {
		t := []rune(r.Event.EventType)
		typeW, idW = max(typeW, len(t)), max(idW, len([]rune(r.Event.EventID)))
		ns := len(t)
		if _, name, ok := strings.Cut(r.Event.EventType, "."); ok {
			ns = len([]rune(name)) + 1
		}
		nsW = max(nsW, ns)
		o := m.outcomeOf(r)
		full, short = max(full, o.width(false)), max(short, o.width(true))
	}
	budget := max(w-rowFixed, 0)
	nsW = min(nsW, typeW)
	fitType := clamp(budget-min(idW, minIDCol)-short, min(typeW, minTypeCol), typeW)
	var c rowColumns
	for _, try := range []struct{ typeW, idMin, out int }{
		{typeW, idW, full}, {typeW, minIDCol, full}, {nsW, minIDCol, full},
		{typeW, minIDCol, short}, {nsW, minIDCol, short}, {fitType, minIDCol, short}, {fitType, tinyIDCol, short},
	} {
		c = rowColumns{typeW: try.typeW, idW: min(idW, try.idMin)}
		if try.out == full { // else the room left goes to the rows whose long outcome fits
			c.idW = clamp(budget-try.typeW-try.out, c.idW, idW)
		}
		if c.typeW+c.idW+try.out <= budget {
			break
		}
	}
	c.outRoom = budget - c.typeW - c.idW
	return c
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// rows are the visible events, the selected one marked, in aligned columns.
func (m ListenModel) rows(w, n int) []string {
	if n <= 0 {
		return nil
	}
	if len(m.list.items) == 0 {
		return []string{m.styles.Dim.Render("Waiting for events…")}
	}
	from, to := m.list.window(n)
	c := m.columns(m.list.items[from:to], w)
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		line := m.row(m.list.items[i], c)
		if i == m.list.selected {
			out = append(out, m.styles.Selected.Render(ansi.Truncate("> "+ansi.Strip(line), w, "…")))
		} else {
			out = append(out, "  "+line)
		}
	}
	return out
}

// row is one event: when, type, event id, and what the forward did.
func (m ListenModel) row(r listener.EventResult, c rowColumns) string {
	o := m.outcomeOf(r)
	short := o.width(false) > c.outRoom
	return r.ReceivedAt.In(m.opts.Location).Format("15:04:05") + "  " + typeCell(r.Event.EventType, c.typeW) + "  " +
		cell(r.Event.EventID, c.idW) + "  " + o.render(short)
}

// cell is text in a column of width w, cut at its start (the end of an id or an event type is
// what tells it apart), padded at its end.
func cell(text string, w int) string {
	r := []rune(text)
	switch {
	case len(r) <= w:
		return text + strings.Repeat(" ", w-len(r))
	case w <= 0:
		return ""
	}
	return "…" + string(r[len(r)-w+1:])
}

// typeCell is an event type in a column of width w: cut, it loses its namespace first
// (invoice.canceled: …canceled).
func typeCell(typ string, w int) string {
	if _, name, ok := strings.Cut(typ, "."); ok && len([]rune(typ)) > w && len([]rune(name))+1 <= w {
		return cell("…"+name, w)
	}
	return cell(typ, w)
}

// outcomeCell is what became of an event, in a long and a short form.
type outcomeCell struct {
	style       lipgloss.Style
	full, short string
	latency     string // "" when nothing was timed
}

func (o outcomeCell) width(short bool) int {
	text := o.full
	if short {
		text = o.short
	}
	w := ansi.StringWidth(text)
	if o.latency != "" {
		w += 2 + ansi.StringWidth(o.latency)
	}
	return w
}

func (o outcomeCell) render(short bool) string {
	text := o.full
	if short {
		text = o.short
	}
	if o.latency == "" {
		return o.style.Render(text)
	}
	return o.style.Render(text) + "  " + o.latency
}

func (m ListenModel) outcomeOf(r listener.EventResult) outcomeCell {
	o := m.outcomeOfEvent(r)
	if r.Event.Replay { // a catch-up's event
		o.full, o.short = "↺ "+o.full, "↺ "+o.short
	}
	return o
}

func (m ListenModel) outcomeOfEvent(r listener.EventResult) outcomeCell {
	s := m.styles
	fr := r.Forward
	switch {
	case r.Late:
		return outcomeCell{style: s.Pending, full: "↯ late: not forwarded", short: "↯ late"}
	case !r.Verified:
		return outcomeCell{style: s.Unverified, full: "✗ signature NOT verified", short: "✗ bad signature"}
	case r.Pending:
		return outcomeCell{style: s.Pending, full: "⋯ forwarding…", short: "⋯ forwarding…"}
	case fr == nil:
		return outcomeCell{style: s.Dim, full: "(not forwarded)", short: "(not forwarded)"}
	}
	o := m.forwardOutcome(fr)
	if n := len(r.Forwards); n > 1 {
		failed := 0
		for i := range r.Forwards {
			if !forwardOK(&r.Forwards[i]) {
				failed++
			}
		}
		if failed == 0 {
			o.full += fmt.Sprintf(" · %d routes", n)
			o.short += fmt.Sprintf(" ·%d", n)
		} else {
			o.full += fmt.Sprintf(" · %d of %d routes failed", failed, n)
			o.short += fmt.Sprintf(" ·%d/%d", failed, n)
		}
	}
	return o
}

// forwardOK tells whether a target answered 2xx in full.
func forwardOK(fr *listener.ForwardResult) bool {
	return fr.Error == "" && fr.StatusCode != nil && *fr.StatusCode >= 200 && *fr.StatusCode <= 299
}

// forwardOutcome is what one target answered.
func (m ListenModel) forwardOutcome(fr *listener.ForwardResult) outcomeCell {
	s := m.styles
	latency := Latency(fr.Latency)
	if fr.StatusCode == nil {
		msg := fr.Error
		if msg == "" {
			msg = "no answer"
		}
		return outcomeCell{style: s.Failed, full: "→ " + msg, short: "→ " + msg, latency: latency}
	}
	code := *fr.StatusCode
	o := outcomeCell{style: s.Failed, latency: latency}
	if code >= 200 && code <= 299 {
		o.style = s.OK
	}
	o.short = "→ " + strconv.Itoa(code)
	o.full = o.short + " " + http.StatusText(code)
	if fr.Error != "" {
		o.full += " (" + fr.Error + ")"
		o.short += " (" + fr.Error + ")"
	}
	return o
}

// outcome is what became of an event, coloured, in full.
func (m ListenModel) outcome(r listener.EventResult) string { return m.outcomeOf(r).render(false) }

// detailsTitle is the line above the details: whose they are, where the scroll is, and
// whether they have the focus.
func (m ListenModel) detailsTitle() string {
	vp := m.details
	total := vp.TotalLineCount()
	where := fmt.Sprintf("all %d lines", total)
	if total > vp.Height {
		from := vp.YOffset + 1
		where = fmt.Sprintf("lines %d–%d of %d", from, min(vp.YOffset+vp.Height, total), total)
	}
	if m.focus == focusDetails {
		return m.styles.Section.Render("━━ Details") + m.styles.Dim.Render("  "+where+" · esc close · tab list")
	}
	return m.styles.Dim.Render("── Details  " + where + " · tab to scroll")
}

// detailLines are the details of an event at width w: the event, the request forwarded
// (headers and pretty-printed body) and the answer (status, timing, headers, body).
// answerAt is the line where the answer starts.
func (m ListenModel) detailLines(r listener.EventResult, w int) (lines []string, answerAt int) {
	s := m.styles
	e := r.Event
	var out []string
	section := func(text string) { out = append(out, ansi.Truncate(s.Section.Render(text), w, "…")) }
	// add wraps text to the width, indented by two; style may be nil.
	add := func(style *lipgloss.Style, text string) {
		for _, l := range strings.Split(text, "\n") {
			for _, part := range strings.Split(ansi.Wrap(sanitize(l), max(w-2, 8), ""), "\n") {
				if style != nil {
					part = style.Render(part)
				}
				out = append(out, "  "+part)
			}
		}
	}
	section("Event " + e.EventID)
	kind := e.Kind
	if e.Replay {
		kind += " (replay)"
	}
	add(nil, e.EventType+" · kind "+kind+" · delivery "+e.DeliveryID)
	if r.Late {
		add(&s.Pending, "came past its attempt's deadline (the session was paused or asleep): not forwarded; the server recorded it failed")
	}
	add(nil, "received "+r.ReceivedAt.In(m.opts.Location).Format("2006-01-02 15:04:05.000"))
	if r.Verified {
		add(&s.OK, "signature verified with the listener's secret")
	} else {
		msg := "signature NOT verified: not forwarded"
		if r.VerifyError != nil {
			msg += " (" + oneLine(r.VerifyError.Error()) + ")"
		}
		add(&s.Unverified, msg)
	}

	if len(r.Forwards) > 1 {
		section("Routes")
		for i := range r.Forwards {
			f := &r.Forwards[i]
			st := s.Failed
			if forwardOK(f) {
				st = s.OK
			}
			add(nil, "POST "+f.URL+"  "+st.Render(ansi.Strip(m.forwardOutcome(f).render(false))))
		}
	} else if len(r.Targets) > 1 && r.Pending {
		section("Routes")
		for _, t := range r.Targets {
			add(&s.Pending, "POST "+t+"  ⋯")
		}
	}

	fr := r.Forward
	url := m.opts.ForwardTo
	if fr != nil {
		url = fr.URL
	}
	if url != "" && r.Verified {
		section("Request  POST " + url)
	} else {
		section("Request")
	}
	add(nil, strings.TrimSuffix(headerText(m.requestHeader(r)), "\n"))
	section("Body")
	add(nil, prettyJSON(e.Body))

	answerAt = len(out)
	switch {
	case fr == nil && r.Pending:
		section("Answer")
		add(&s.Pending, "⋯ waiting for "+url)
		return out, answerAt
	case fr == nil:
		section("Answer")
		add(&s.Dim, "none: "+ansi.Strip(m.outcome(r)))
		return out, answerAt
	}
	if fr.StatusCode == nil {
		section("Answer")
		add(&s.Failed, "none after "+Latency(fr.Latency)+": "+fr.ErrorText())
		return out, answerAt
	}
	code := *fr.StatusCode
	st := s.Failed
	if code >= 200 && code <= 299 && fr.Error == "" {
		st = s.OK
	}
	section("Answer")
	add(&st, strconv.Itoa(code)+" "+http.StatusText(code)+" in "+Latency(fr.Latency))
	if fr.Error != "" {
		add(&s.Failed, "cut short: "+fr.ErrorText())
	}
	add(&s.Dim, strings.TrimSuffix(headerText(fr.Header), "\n"))
	body := fr.Body
	if body == "" {
		body = fr.Excerpt
	}
	switch {
	case body == "":
		add(&s.Dim, "(no body)")
	default:
		out = append(out, "")
		add(nil, strings.TrimRight(prettyJSON(body), "\n"))
		if len(fr.Body) >= listener.ForwardBodyBytes {
			add(&s.Dim, fmt.Sprintf("(the first %d KB)", listener.ForwardBodyBytes>>10))
		}
	}
	return out, answerAt
}
