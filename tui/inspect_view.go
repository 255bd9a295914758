package tui

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/webhook"
)

// Widths of the table columns; the webhook's target takes what is left.
const (
	colWebhookStatus = 25
	minEventsCol     = 16
	maxEventsCol     = 48
	colPeople        = 10
	colTime          = 19
	colMatches       = 5
	colKind          = 9
	colDeliveryState = 9
	colAttempts      = 3
	colLast          = 18
	colEventType     = 26
	minTarget        = 20
	labelWidth       = 10
)

// View draws the header, the screen, the status or prompt line and the help, every line cut to
// the width and the whole to the height.
func (m InspectModel) View() string {
	w, h := m.size()
	top := m.header()
	bottom := m.footer(w)
	room := max(h-len(top)-len(bottom), 0)
	var body []string
	switch {
	case m.secret != nil:
		body = m.secretBox()
	case m.screen == screenWebhooks:
		body = m.webhooksBody(w, room)
	case m.screen == screenDeliveries:
		body = m.deliveriesBody(w, room)
	default:
		body = m.deliveryBody(room)
	}
	if len(body) > room {
		body = body[:room]
	}
	lines := append(top, body...)
	for len(lines) < h-len(bottom) {
		lines = append(lines, "")
	}
	lines = append(lines, bottom...)
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func (m InspectModel) size() (int, int) {
	w, h := m.width, m.height
	if w <= 0 {
		w = defaultWidth
	}
	if h <= 0 {
		h = defaultHeight
	}
	return w, h
}

// bodyRows is the height left for the screen's body.
func (m InspectModel) bodyRows() int {
	w, h := m.size()
	return max(h-len(m.header())-len(m.footer(w)), 0)
}

// listRows is the number of rows a list shows (its page, for page up and down).
func (m InspectModel) listRows() int {
	rows := m.bodyRows() - 1 // the column header
	if m.screen == screenDeliveries {
		rows -= len(m.deliveriesInfo()) + 1
	}
	return max(rows, 1)
}

func (m InspectModel) header() []string {
	s := m.styles
	title := s.Title.Render("timbra inspect") + "  " + s.Dim.Render(m.opts.BaseURL) + "  " + s.Dim.Render("times in "+m.zone)
	if m.busy() {
		title += "  " + s.Pending.Render("loading…")
	}
	crumbs := []string{"Webhooks"}
	switch m.screen {
	case screenDeliveries:
		crumbs = append(crumbs, webhookTarget(m.dlv.hook))
	case screenDelivery:
		crumbs = append(crumbs, webhookTarget(m.detail.hook), "delivery "+m.detail.d.ID)
	}
	return []string{title, s.Label.Render(strings.Join(crumbs, " › ")), ""}
}

func (m InspectModel) footer(w int) []string {
	s := m.styles
	var line string
	switch {
	case m.prompt != nil && m.prompt.kind == promptConfirm:
		line = s.Prompt.Render(m.prompt.question)
	case m.prompt != nil:
		line = s.Prompt.Render(m.prompt.question) + m.prompt.text() + "█"
	case m.status.err:
		line = s.Error.Render("✗ " + m.status.text)
	case m.status.text != "":
		line = s.Status.Render(m.status.text)
	}
	h := m.help
	h.Width = w
	var helpText string
	switch {
	case m.secret != nil:
		helpText = h.ShortHelpView([]key.Binding{key.NewBinding(key.WithHelp("any key", "hide the secret"))})
	case m.prompt != nil && m.prompt.kind == promptConfirm:
		helpText = h.ShortHelpView([]key.Binding{m.keys.Yes, m.keys.No})
	case m.prompt != nil:
		helpText = h.ShortHelpView([]key.Binding{m.keys.Submit, m.keys.Cancel})
	case m.showHelp:
		helpText = h.FullHelpView(m.fullHelp())
	default:
		helpText = h.ShortHelpView(m.shortHelp())
	}
	return append([]string{line}, strings.Split(helpText, "\n")...)
}

func (m InspectModel) shortHelp() []key.Binding {
	k := m.keys
	switch m.screen {
	case screenWebhooks:
		return []key.Binding{k.Up, k.Down, k.Open, k.Test, k.Toggle, k.Jump, k.Refresh, k.Help, k.Quit}
	case screenDeliveries:
		return []key.Binding{k.Up, k.Down, k.Open, k.Resend, k.Filter, k.Jump, k.Back, k.Help, k.Quit}
	}
	return []key.Binding{k.Up, k.Down, k.Resend, k.Refresh, k.Back, k.Help, k.Quit}
}

func (m InspectModel) fullHelp() [][]key.Binding {
	k := m.keys
	move := []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
	general := []key.Binding{k.Jump, k.Refresh, k.Help, k.Quit}
	hook := []key.Binding{k.Test, k.Toggle, k.Rotate}
	switch m.screen {
	case screenWebhooks:
		return [][]key.Binding{move, append([]key.Binding{k.Open}, hook...), general}
	case screenDeliveries:
		return [][]key.Binding{move, {k.Open, k.Back, k.Resend, k.Filter}, hook, general}
	}
	return [][]key.Binding{move, {k.Back, k.Resend, k.Filter}, hook, general}
}

// ---- webhooks

func (m InspectModel) webhooksBody(w, room int) []string {
	s := m.styles
	l := m.hooks
	if !l.loaded {
		if l.loading {
			return []string{s.Dim.Render("Loading webhooks…")}
		}
		return nil
	}
	if len(l.items) == 0 {
		return []string{s.Dim.Render("No webhooks. Create one with timbra webhooks create, or open a session with timbra listen.")}
	}
	// the target and the event types share what the other columns leave
	rest := w - 2 - colWebhookStatus - colPeople - colTime - 8
	if l.matches != nil {
		rest -= colMatches + 2
	}
	events := min(max(rest/3, minEventsCol), maxEventsCol)
	target := max(rest-events-2, minTarget)
	head := "  "
	if l.matches != nil {
		head += fit("★", colMatches) + "  "
	}
	head += fit("STATUS", colWebhookStatus) + "  " + fit("TARGET", target) + "  " + fit("EVENTS", events) + "  " +
		fit("PEOPLE", colPeople) + "  " + "FAILING SINCE"
	out := []string{s.Column.Render(head)}
	from, to := window(l.sel, len(l.items), room-1)
	for i := from; i < to; i++ {
		out = append(out, m.selectable(i == l.sel, w, m.webhookRow(l.items[i], target, events)))
	}
	if l.loading && l.loaded {
		out = append(out, s.Dim.Render("  Loading more…"))
	}
	return out
}

func (m InspectModel) webhookRow(wh api.Webhook, target, events int) string {
	s := m.styles
	row := ""
	if m.hooks.matches != nil {
		mark := ""
		if n := m.hooks.matches[wh.ID]; n > 0 {
			mark = "★ " + strconv.Itoa(n)
		}
		row += fit(mark, colMatches) + "  "
	}
	st := s.OK
	if wh.Status != webhookEnabled {
		st = s.Failed
	}
	failing := ""
	if wh.FailingSince != nil {
		failing = s.Pending.Render(m.when(*wh.FailingSince))
	}
	return row + st.Render(fit(webhookStatus(wh), colWebhookStatus)) + "  " + fit(webhookTarget(wh), target) + "  " +
		fit(strings.Join(wh.EnabledEvents, ","), events) + "  " + fit(people(wh), colPeople) + "  " + failing
}

// webhookStatus is the status with the reason a webhook was disabled.
func webhookStatus(w api.Webhook) string {
	if w.Status == webhookDisabled && w.DisabledReason != nil {
		return w.Status + " (" + *w.DisabledReason + ")"
	}
	return w.Status
}

func people(w api.Webhook) string {
	switch {
	case w.Kind == kindListener:
		return "—"
	case w.PersonIDs == nil:
		return "everyone"
	case len(w.PersonIDs) == 1:
		return w.PersonIDs[0]
	}
	return strconv.Itoa(len(w.PersonIDs)) + " people"
}

// ---- deliveries

func (m InspectModel) deliveriesInfo() []string {
	s := m.styles
	wh := m.dlv.hook
	label := func(l string) string { return s.Label.Render(fmt.Sprintf("%-*s", labelWidth, l)) }
	st := s.OK
	if wh.Status != webhookEnabled {
		st = s.Failed
	}
	line := label("Webhook") + webhookTarget(wh) + "  " + st.Render(webhookStatus(wh))
	if wh.FailingSince != nil {
		line += "  " + s.Pending.Render("failing since "+m.when(*wh.FailingSince))
	}
	queue := label("Queue") + m.queueText()
	who := "everyone"
	if wh.Kind == kindListener {
		who = "its person"
	} else if wh.PersonIDs != nil {
		who = strings.Join(wh.PersonIDs, ", ")
	}
	events := label("Events") + strings.Join(wh.EnabledEvents, ",") + s.Dim.Render(" · of ") + who
	if wh.Description != "" {
		events += s.Dim.Render(" · " + wh.Description)
	}
	filter := label("Filter") + s.Dim.Render("none (/ to filter, g to go to an event or object)")
	if m.filter.active() {
		filter = label("Filter") + s.Pending.Render(m.filter.text()) + s.Dim.Render("  (esc clears)")
	}
	count := label("Showing")
	switch l := m.dlv; {
	case !l.loaded:
		count += s.Dim.Render("loading…")
	default:
		count += fmt.Sprintf("%d of %d deliveries of the last 30 days, newest first", len(l.items), l.total)
	}
	return []string{line, queue, events, filter, count}
}

// queueText is the queue of the webhook shown: how many deliveries wait, how many attempts are
// on the wire, how long the oldest has waited, and the last error since the server started.
func (m InspectModel) queueText() string {
	s := m.styles
	qs := m.queue
	switch {
	case qs.webhookID != m.dlv.hook.ID:
		return ""
	case qs.err != nil:
		return s.Dim.Render("not available (" + errText(qs.err) + ")")
	case !qs.loaded:
		return s.Dim.Render("loading…")
	}
	q := qs.q
	sep := s.Dim.Render(" · ")
	var parts []string
	if q.Pending == 0 {
		parts = append(parts, "empty")
	} else {
		parts = append(parts, s.Pending.Render(strconv.Itoa(q.Pending)+" pending"))
		if q.Concurrency > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d in flight", q.InFlight, q.Concurrency))
		} else {
			parts = append(parts, fmt.Sprintf("%d in flight", q.InFlight))
		}
		if q.OldestPendingAt != nil {
			parts = append(parts, "oldest "+waited(q.OldestPendingAgeSeconds))
		}
	}
	if q.LastError != nil && *q.LastError != "" {
		last := "last error " + oneLine(*q.LastError)
		if q.LastErrorAt != nil {
			last += " at " + m.when(*q.LastErrorAt)
		}
		parts = append(parts, s.Failed.Render(last))
	}
	return strings.Join(parts, sep)
}

// waited is an age in seconds as the queue line shows it: 45s, 1m12s, 3h5m, 2d4h.
func waited(seconds float64) string {
	d := time.Duration(seconds * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Second:
		return "<1s"
	case d < time.Hour:
		return d.String()
	case d.Round(time.Minute) < 48*time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	d = d.Round(time.Hour)
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

func (m InspectModel) deliveriesBody(w, room int) []string {
	s := m.styles
	out := append(m.deliveriesInfo(), "")
	l := m.dlv
	if !l.loaded {
		return out
	}
	if len(l.items) == 0 {
		text := "No deliveries in the last 30 days."
		if m.filter.active() {
			text = "No delivery matches the filter."
		}
		return append(out, s.Dim.Render(text))
	}
	head := "  " + fit("TIME", colTime) + "  " + fit("KIND", colKind) + "  " + fit("STATUS", colDeliveryState) + "  " +
		fit("ATT", colAttempts) + "  " + fit("LAST", colLast) + "  " + fit("EVENT TYPE", colEventType) + "  EVENT"
	out = append(out, s.Column.Render(head))
	rows := room - len(out)
	if l.loading {
		rows-- // room for "Loading more…"
	}
	from, to := window(l.sel, len(l.items), rows)
	for i := from; i < to; i++ {
		out = append(out, m.selectable(i == l.sel, w, m.deliveryRow(l.items[i])))
	}
	if l.loading {
		out = append(out, s.Dim.Render("  Loading more…"))
	}
	return out
}

func (m InspectModel) deliveryRow(d api.Delivery) string {
	return fit(m.when(d.CreatedAt), colTime) + "  " + fit(d.Kind, colKind) + "  " +
		m.deliveryStyle(d.Status).Render(fit(d.Status, colDeliveryState)) + "  " +
		fmt.Sprintf("%*d", colAttempts, d.Attempts) + "  " + fit(lastResult(d), colLast) + "  " +
		fit(d.EventType, colEventType) + "  " + d.EventID
}

func (m InspectModel) deliveryStyle(status string) lipgloss.Style {
	switch status {
	case api.DeliverySucceeded:
		return m.styles.OK
	case api.DeliveryFailed:
		return m.styles.Failed
	}
	return m.styles.Pending
}

// lastResult is the HTTP code and the error of a delivery's last attempt.
func lastResult(d api.Delivery) string {
	var parts []string
	if d.LastStatusCode != nil {
		parts = append(parts, strconv.Itoa(*d.LastStatusCode))
	}
	if d.LastError != nil && *d.LastError != "" {
		parts = append(parts, *d.LastError)
	}
	return strings.Join(parts, " ")
}

// ---- one delivery

func (m InspectModel) deliveryBody(room int) []string {
	lines := m.detailLines()
	from := min(m.detail.scroll, max(len(lines)-room, 0))
	return lines[from:min(from+room, len(lines))]
}

// detailLines are all the lines of the delivery screen, before scrolling.
func (m InspectModel) detailLines() []string {
	s := m.styles
	d, wh := m.detail.d, m.detail.hook
	label := func(l string) string { return s.Label.Render(fmt.Sprintf("%-*s", labelWidth, l)) }
	attempts := strconv.Itoa(d.Attempts) + " attempts"
	if d.Attempts == 1 {
		attempts = "1 attempt"
	}
	out := []string{
		label("Delivery") + d.ID,
		label("Status") + m.deliveryStyle(d.Status).Render(d.Status) + " · " + attempts + " · kind " + d.Kind,
		label("Created") + m.when(d.CreatedAt),
	}
	if d.Status == api.DeliveryPending && d.NextAttemptAt != nil {
		out = append(out, label("Next try")+m.when(*d.NextAttemptAt))
	}
	last := s.Dim.Render("no attempt yet")
	if d.Attempts > 0 || d.LastStatusCode != nil || d.LastError != nil {
		last = describeResult(d.LastStatusCode, d.LastFailure())
	}
	out = append(out,
		label("Last")+last,
		label("Event")+d.EventID+" · "+d.EventType,
		label("Webhook")+webhookTarget(wh)+"  "+webhookStatus(wh),
		"", s.Section.Render("Signed headers"))
	out = append(out, "  "+webhook.HeaderID+": "+d.EventID+s.Dim.Render("  (the event id, the same on every attempt)"))
	if ts, ok := m.lastSigned(d); ok {
		out = append(out, "  "+webhook.HeaderTimestamp+": "+strconv.FormatInt(ts, 10)+
			s.Dim.Render("  (≈ when the last attempt was signed; each attempt is signed anew)"))
	} else {
		out = append(out, "  "+webhook.HeaderTimestamp+": "+s.Dim.Render("set when the first attempt is signed"))
	}
	out = append(out, "  "+webhook.HeaderSignature+": v1,…"+
		s.Dim.Render("  (HMAC-SHA256 with the webhook's secret, which the API never shows)"))
	if wh.Kind == kindListener {
		out = append(out, s.Dim.Render("  sent through the timbra listen session, which forwards the body with these headers"))
	} else {
		out = append(out, "  content-type: application/json", "  user-agent: "+webhook.UserAgent)
	}
	out = append(out, "", s.Section.Render("Response of the last attempt"))
	switch excerpt := strings.TrimRight(d.LastResponseExcerpt, "\r\n"); {
	case excerpt != "":
		for _, l := range strings.Split(excerpt, "\n") {
			out = append(out, "  "+sanitize(strings.TrimRight(l, "\r")))
		}
	default:
		out = append(out, s.Dim.Render("  (no body)"))
	}
	out = append(out, "", s.Section.Render(fmt.Sprintf("Attempts (%d)", len(d.History))))
	if len(d.History) == 0 {
		out = append(out, s.Dim.Render("  none yet"))
	}
	for i := len(d.History) - 1; i >= 0; i-- { // newest first, as the deliveries
		a := d.History[i]
		out = append(out, fmt.Sprintf("  %s  %-32s %6d ms", m.when(a.At), describeResult(a.StatusCode, a.Failure()), a.DurationMS))
	}
	out = append(out, "", s.Section.Render("Event")+s.Dim.Render("  GET /api/v4/events/"+d.EventID))
	r, ok := m.events[d.EventID]
	switch {
	case !ok:
		out = append(out, s.Dim.Render("  loading…"))
	case r.err != nil:
		out = append(out, "  "+s.Error.Render(errText(r.err)))
	default:
		for _, l := range strings.Split(prettyJSON(string(r.raw)), "\n") {
			out = append(out, "  "+l)
		}
	}
	return out
}

// describeResult is an attempt's outcome: the HTTP status and its text, or the error.
func describeResult(code *int, failure string) string {
	var parts []string
	if code != nil {
		parts = append(parts, strconv.Itoa(*code)+" "+http.StatusText(*code))
	}
	if failure != "" {
		parts = append(parts, oneLine(failure))
	}
	if len(parts) == 0 {
		return "no response"
	}
	return strings.Join(parts, " · ")
}

// lastSigned is about when the last attempt was signed, as webhook-timestamp carries it: the
// attempt is recorded when it ends, and lasted its duration.
func (m InspectModel) lastSigned(d api.Delivery) (int64, bool) {
	if len(d.History) == 0 {
		return 0, false
	}
	a := d.History[len(d.History)-1]
	t, err := parseAPITime(a.At, m.loc)
	if err != nil {
		return 0, false
	}
	return t.Add(-time.Duration(a.DurationMS) * time.Millisecond).Unix(), true
}

func (m InspectModel) secretBox() []string {
	s := m.styles
	sec := m.secret
	return []string{
		s.Section.Render("New signing secret of " + sec.target),
		"",
		"  " + s.Secret.Render(sec.secret),
		"",
		"Store it now where your receiver reads it: it is shown only this once.",
		"The previous secret keeps signing too for 24 hours, so the receiver can switch without losing events.",
		"",
		s.Dim.Render("Press any key to hide it."),
	}
}

// ---- shared

// selectable is a row, marked and reversed when selected.
func (m InspectModel) selectable(selected bool, w int, row string) string {
	if selected {
		return m.styles.Selected.Render(ansi.Truncate("> "+ansi.Strip(row), w, "…"))
	}
	return "  " + row
}

// window is the range of n items shown in rows rows, keeping sel in sight.
func window(sel, n, rows int) (from, to int) {
	if rows <= 0 {
		return 0, 0
	}
	if sel >= rows {
		from = sel - rows + 1
	}
	if n-from < rows {
		from = max(n-rows, 0)
	}
	return from, min(from+rows, n)
}

// fit cuts s to w cells and pads it to w.
func fit(s string, w int) string {
	s = ansi.Truncate(oneLine(s), w, "…")
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// when shows a date-time of the API in the inspector's zone. The API writes webhook and
// delivery times in the zone asked for (X-TIME-ZONE) without offset, or in UTC with a Z.
func (m InspectModel) when(s string) string {
	t, err := parseAPITime(s, m.loc)
	if err != nil {
		return s
	}
	return t.In(m.loc).Format("2006-01-02 15:04:05")
}

func parseAPITime(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.ParseInLocation("2006-01-02T15:04:05.999999999", s, loc)
}
