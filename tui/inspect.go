package tui

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/timbra-mx/timbra/internal/api"
)

// Defaults of InspectOptions.
const (
	DefaultInspectPageSize = 50              // the API's largest page
	DefaultRefreshEvery    = 3 * time.Second // while deliveries are pending
)

// InspectOptions describe what the inspector shows first and how it reaches the API.
type InspectOptions struct {
	API InspectAPI
	// Context bounds the requests; cancel it when the program ends. Nil is Background.
	Context  context.Context
	BaseURL  string
	Location *time.Location // zone of the times shown; nil is the local zone
	// WebhookID, when set, opens that webhook's deliveries at the start.
	WebhookID string
	// Status and EventType are the deliveries filter at the start.
	Status, EventType string
	PageSize          int           // deliveries and webhooks per request; 0 is the default
	RefreshEvery      time.Duration // refresh while deliveries are pending; 0 is the default
}

// screen is what the inspector shows.
type screen int

const (
	screenWebhooks   screen = iota // the webhooks the caller may see
	screenDeliveries               // the deliveries of one webhook
	screenDelivery                 // one delivery with its event
)

// webhookList is the webhooks screen: the pages of webhooks read so far.
type webhookList struct {
	items   []api.Webhook
	sel     int
	page    int  // pages read
	more    bool // the API has a next page
	loaded  bool
	loading bool
	seq     int
	matches map[string]int // deliveries found by a go-to, per webhook
}

// deliveryList is the deliveries screen: one webhook and the deliveries read so far.
type deliveryList struct {
	hook    api.Webhook
	items   []api.Delivery
	total   int
	sel     int
	loaded  bool
	loading bool
	seq     int
}

// hookQueue is the queue of the webhook whose deliveries show (GET …/queue), read with the
// webhook. A failed read is said on its line only: the queue is news, not the screen.
type hookQueue struct {
	webhookID string
	q         api.WebhookQueue
	loaded    bool
	reading   bool  // the latest read is on its way
	err       error // of the last read
	seq       int
}

// deliveryDetail is the delivery screen.
type deliveryDetail struct {
	d       api.Delivery
	hook    api.Webhook
	scroll  int
	loading bool
	seq     int
}

// shownSecret is a rotated secret, shown until the next key and then forgotten.
type shownSecret struct {
	target string
	secret string
}

// statusLine is the last news: what an action did, or an error of the API.
type statusLine struct {
	text string
	err  bool
}

// InspectModel is the deliveries inspector of `timbra webhooks inspect`. Update is a function of
// the model and a message; the API is called only by the commands it returns.
type InspectModel struct {
	opts   InspectOptions
	ctx    context.Context
	loc    *time.Location
	zone   string // the zone's name, as the header shows it
	styles Styles
	keys   InspectKeyMap
	help   help.Model

	screen   screen
	hooks    webhookList
	dlv      deliveryList
	queue    hookQueue
	detail   deliveryDetail
	filter   deliveryFilter
	events   map[string]eventResult // envelopes read, by event id
	prompt   *prompt
	secret   *shownSecret
	status   statusLine
	showHelp bool

	ticking bool // a refresh tick is on its way
	tick    func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

	width, height int
}

type eventResult struct {
	raw json.RawMessage
	err error
}

// NewInspect is the inspector before its first read.
func NewInspect(opts InspectOptions) InspectModel {
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultInspectPageSize
	}
	if opts.RefreshEvery <= 0 {
		opts.RefreshEvery = DefaultRefreshEvery
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	loc := opts.Location
	if loc == nil {
		loc = time.Local
	}
	zone := loc.String()
	if zone == "Local" {
		zone += " (" + time.Now().In(loc).Format("MST") + ")"
	}
	m := InspectModel{
		opts: opts, ctx: ctx, loc: loc, zone: zone, styles: DefaultStyles(), keys: DefaultInspectKeyMap(), help: help.New(),
		events: map[string]eventResult{}, tick: tea.Tick,
		filter: deliveryFilter{status: strings.ToLower(strings.TrimSpace(opts.Status)), eventType: strings.TrimSpace(opts.EventType)},
	}
	m.hooks.loading = true
	return m
}

// Init reads the first page of webhooks, and the webhook to open when one was named.
func (m InspectModel) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadWebhooks(m.hooks.seq, 1)}
	if m.opts.WebhookID != "" {
		cmds = append(cmds, m.loadStart(m.opts.WebhookID))
	}
	return tea.Batch(cmds...)
}

// Update handles one message, then keeps a refresh tick coming while pending deliveries show.
func (m InspectModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := m.update(msg)
	if tick := m.armTick(); tick != nil {
		m.ticking = true
		cmd = tea.Batch(cmd, tick)
	}
	return m, cmd
}

func (m InspectModel) update(msg tea.Msg) (InspectModel, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
	case tea.KeyMsg:
		if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
			// keys typed faster than they are read come as one message: take them one by one
			cmds := make([]tea.Cmd, 0, len(msg.Runes))
			for _, r := range msg.Runes {
				var cmd tea.Cmd
				m, cmd = m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
				cmds = append(cmds, cmd)
			}
			return m, tea.Batch(cmds...)
		}
		return m.key(msg)
	case webhooksMsg:
		return m.gotWebhooks(msg)
	case startMsg:
		if msg.err != nil {
			m.setErr("Could not open webhook "+m.opts.WebhookID, msg.err)
			return m, nil
		}
		return m.openWebhook(msg.webhook)
	case webhookMsg:
		if msg.err != nil {
			m.setErr("Could not read the webhook", msg.err)
			return m, nil
		}
		m.replaceWebhook(msg.webhook)
	case queueMsg:
		if msg.seq == m.queue.seq && msg.webhookID == m.queue.webhookID {
			m.queue.reading, m.queue.err = false, msg.err
			if msg.err == nil {
				m.queue.q, m.queue.loaded = msg.queue, true
			}
		}
	case deliveriesMsg:
		return m.gotDeliveries(msg)
	case deliveryMsg:
		if msg.seq != m.detail.seq || msg.id != m.detail.d.ID {
			return m, nil
		}
		m.detail.loading = false
		switch {
		case msg.err != nil:
			m.setErr("Could not read the delivery", msg.err)
		case msg.found:
			m.detail.d = msg.d
			m.dlv.items = replaceDelivery(m.dlv.items, msg.d)
		}
	case eventMsg:
		m.events[msg.id] = eventResult{raw: msg.raw, err: msg.err}
	case actionMsg:
		return m.actionDone(msg)
	case rotatedMsg:
		if msg.err != nil {
			m.setErr("Could not rotate the secret", msg.err)
			return m, nil
		}
		w := msg.webhook
		m.secret = &shownSecret{target: webhookTarget(w), secret: w.Secret}
		w.Secret = "" // kept only in the box shown once
		m.replaceWebhook(w)
		m.status = statusLine{}
	case jumpMsg:
		return m.jumped(msg)
	case refreshTickMsg:
		m.ticking = false
		if !m.pendingShown() || m.waiting() {
			return m, nil // the read on its way arms the next tick
		}
		return m.refresh()
	}
	return m, nil
}

// armTick is the next refresh tick when pending deliveries show, no read is on its way (its
// answer arms the tick) and no tick is.
func (m InspectModel) armTick() tea.Cmd {
	if m.ticking || m.waiting() || !m.pendingShown() {
		return nil
	}
	return m.tick(m.opts.RefreshEvery, func(time.Time) tea.Msg { return refreshTickMsg{} })
}

// pendingShown tells whether the screen shows a delivery that is still pending, or a queue
// with deliveries pending (some may be filtered out of the list).
func (m InspectModel) pendingShown() bool {
	switch m.screen {
	case screenDeliveries:
		if q := m.queue; q.webhookID == m.dlv.hook.ID && q.loaded && q.err == nil && q.q.Pending > 0 {
			return true
		}
		for _, d := range m.dlv.items {
			if d.Status == api.DeliveryPending {
				return true
			}
		}
	case screenDelivery:
		return m.detail.d.Status == api.DeliveryPending
	}
	return false
}

// busy tells whether the screen waits for a read.
func (m InspectModel) busy() bool {
	switch m.screen {
	case screenWebhooks:
		return m.hooks.loading
	case screenDeliveries:
		return m.dlv.loading
	default:
		return m.detail.loading
	}
}

// waiting tells whether a read is on its way whose answer may change what pendingShown sees:
// the screen's, or the queue of the webhook whose deliveries show.
func (m InspectModel) waiting() bool {
	return m.busy() || (m.screen == screenDeliveries && m.queue.reading)
}

func (m *InspectModel) setErr(what string, err error) {
	m.status = statusLine{text: what + ": " + errText(err), err: true}
}

func (m *InspectModel) say(text string) { m.status = statusLine{text: text} }

// ---- keys

func (m InspectModel) key(msg tea.KeyMsg) (InspectModel, tea.Cmd) {
	k := m.keys
	if msg.Type == tea.KeyCtrlC {
		return m, tea.Quit
	}
	if m.secret != nil { // any key hides the secret, for good
		m.secret = nil
		m.say("The new secret is no longer shown. The previous one keeps signing for 24 hours.")
		return m, nil
	}
	if m.prompt != nil {
		return m.promptKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = !m.showHelp
		return m, nil
	case key.Matches(msg, k.Refresh):
		m.status = statusLine{}
		return m.refresh()
	case key.Matches(msg, k.Jump):
		m.prompt = &prompt{kind: promptJump, question: "Go to event or related object ID: "}
		return m, nil
	}
	switch m.screen {
	case screenWebhooks:
		return m.webhooksKey(msg)
	case screenDeliveries:
		return m.deliveriesKey(msg)
	default:
		return m.deliveryKey(msg)
	}
}

func (m InspectModel) promptKey(msg tea.KeyMsg) (InspectModel, tea.Cmd) {
	p := *m.prompt
	k := m.keys
	if p.kind == promptConfirm {
		switch {
		case key.Matches(msg, k.Yes):
			m.prompt = nil
			m.say(p.busy)
			return m, p.run
		case key.Matches(msg, k.No):
			m.prompt = nil
			m.say("Cancelled.")
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		m.prompt = nil
		return m, nil
	case key.Matches(msg, k.Submit):
		m.prompt = nil
		text := strings.TrimSpace(p.text())
		if p.kind == promptFilter {
			return m.applyFilter(text)
		}
		if text == "" {
			return m, nil
		}
		var hooks []api.Webhook
		if m.screen == screenWebhooks {
			hooks = slices.Clone(m.hooks.items)
		}
		m.say("Looking for " + text + "…")
		return m, m.jumpCmd(text, hooks)
	}
	if p.edit(msg) {
		m.prompt = &p
	}
	return m, nil
}

// confirm asks a question; y runs the action.
func (m InspectModel) confirm(question, busy string, run tea.Cmd) (InspectModel, tea.Cmd) {
	m.prompt = &prompt{kind: promptConfirm, question: question + " [y/n]", busy: busy, run: run}
	return m, nil
}

// webhookActions are the keys that act on a webhook (t, e, s); ok is false for other keys.
func (m InspectModel) webhookActions(msg tea.KeyMsg, w api.Webhook) (InspectModel, tea.Cmd, bool) {
	k := m.keys
	target := webhookTarget(w)
	switch {
	case key.Matches(msg, k.Test):
		mm, cmd := m.confirm("Send a webhook.test event to "+target+"?", "Sending a test to "+target+"…", m.testCmd(w))
		return mm, cmd, true
	case key.Matches(msg, k.Toggle):
		q := "Disable " + target + "? Deliveries waiting for it are closed unsent."
		busy := "Disabling " + target + "…"
		if w.Status == webhookDisabled {
			q, busy = "Enable "+target+"?", "Enabling "+target+"…"
		}
		mm, cmd := m.confirm(q, busy, m.toggleCmd(w))
		return mm, cmd, true
	case key.Matches(msg, k.Rotate):
		mm, cmd := m.confirm("Rotate the signing secret of "+target+"? The new one is shown once; the old one keeps signing for 24 hours.",
			"Rotating the secret of "+target+"…", m.rotateCmd(w))
		return mm, cmd, true
	}
	return m, nil, false
}

func (m InspectModel) webhooksKey(msg tea.KeyMsg) (InspectModel, tea.Cmd) {
	k := m.keys
	l := &m.hooks
	if d, ok := moveKey(k, msg, m.listRows()); ok {
		l.sel = clampSel(l.sel+d, len(l.items))
		return m.moreWebhooks()
	}
	w, ok := m.currentWebhook()
	switch {
	case key.Matches(msg, k.Back):
		if m.filter.active() {
			return m.setFilter(deliveryFilter{}, "Filter cleared.")
		}
		return m, nil
	case key.Matches(msg, k.Filter):
		m.say("Filters apply to deliveries: open a webhook first (enter).")
		return m, nil
	case !ok:
		if key.Matches(msg, k.Open, k.Test, k.Toggle, k.Rotate) {
			m.say("No webhook selected.")
		}
		return m, nil
	case key.Matches(msg, k.Open):
		return m.openWebhook(w)
	case key.Matches(msg, k.Resend):
		m.say("Open a webhook (enter) and pick the delivery to resend.")
		return m, nil
	}
	mm, cmd, _ := m.webhookActions(msg, w)
	return mm, cmd
}

func (m InspectModel) deliveriesKey(msg tea.KeyMsg) (InspectModel, tea.Cmd) {
	k := m.keys
	l := &m.dlv
	if d, ok := moveKey(k, msg, m.listRows()); ok {
		l.sel = clampSel(l.sel+d, len(l.items))
		return m.moreDeliveries()
	}
	switch {
	case key.Matches(msg, k.Back):
		if m.filter.active() {
			return m.setFilter(deliveryFilter{}, "Filter cleared.")
		}
		m.screen = screenWebhooks
		return m, nil
	case key.Matches(msg, k.Filter):
		m.prompt = &prompt{kind: promptFilter, question: "Filter (status and/or event type, e.g. failed invoice.canceled; empty clears): ",
			value: []rune(m.filter.input())}
		return m, nil
	case key.Matches(msg, k.Open):
		d, ok := m.currentDelivery()
		if !ok {
			m.say("No delivery selected.")
			return m, nil
		}
		return m.openDelivery(d)
	case key.Matches(msg, k.Resend):
		d, ok := m.currentDelivery()
		if !ok {
			m.say("No delivery selected.")
			return m, nil
		}
		return m.confirmResend(d)
	}
	mm, cmd, _ := m.webhookActions(msg, m.dlv.hook)
	return mm, cmd
}

func (m InspectModel) deliveryKey(msg tea.KeyMsg) (InspectModel, tea.Cmd) {
	k := m.keys
	if d, ok := moveKey(k, msg, m.bodyRows()); ok {
		last := max(len(m.detailLines())-m.bodyRows(), 0)
		m.detail.scroll = min(max(m.detail.scroll+d, 0), last)
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenDeliveries
		m.dlv.items = replaceDelivery(m.dlv.items, m.detail.d)
		return m, nil
	case key.Matches(msg, k.Filter):
		m.screen = screenDeliveries
		return m.deliveriesKey(msg)
	case key.Matches(msg, k.Resend):
		return m.confirmResend(m.detail.d)
	}
	mm, cmd, _ := m.webhookActions(msg, m.detail.hook)
	return mm, cmd
}

func (m InspectModel) confirmResend(d api.Delivery) (InspectModel, tea.Cmd) {
	w := m.dlv.hook
	if m.screen == screenDelivery {
		w = m.detail.hook
	}
	target := webhookTarget(w)
	q := "Resend event " + d.EventID + " (" + d.EventType + ") to " + target + "? One new signed attempt, no retries."
	return m.confirm(q, "Resending event "+d.EventID+"…", m.resendCmd(d, w))
}

// moveKey is how many rows a key moves the cursor (rows is a page); ok is false for other keys.
func moveKey(k InspectKeyMap, msg tea.KeyMsg, rows int) (int, bool) {
	page := max(rows-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Top):
		return -1 << 30, true
	case key.Matches(msg, k.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

func clampSel(i, n int) int {
	if n == 0 {
		return 0
	}
	return min(max(i, 0), n-1)
}

// ---- navigation and reads

func (m InspectModel) currentWebhook() (api.Webhook, bool) {
	if m.hooks.sel < 0 || m.hooks.sel >= len(m.hooks.items) {
		return api.Webhook{}, false
	}
	return m.hooks.items[m.hooks.sel], true
}

func (m InspectModel) currentDelivery() (api.Delivery, bool) {
	if m.dlv.sel < 0 || m.dlv.sel >= len(m.dlv.items) {
		return api.Delivery{}, false
	}
	return m.dlv.items[m.dlv.sel], true
}

// moreWebhooks reads the next page of webhooks when the cursor is on the last one read.
func (m InspectModel) moreWebhooks() (InspectModel, tea.Cmd) {
	l := &m.hooks
	if !l.more || l.loading || l.sel < len(l.items)-1 {
		return m, nil
	}
	l.loading = true
	return m, m.loadWebhooks(l.seq, l.page+1)
}

// moreDeliveries reads the next deliveries when the cursor is on the last one read.
func (m InspectModel) moreDeliveries() (InspectModel, tea.Cmd) {
	l := &m.dlv
	if l.loading || !l.loaded || len(l.items) >= l.total || l.sel < len(l.items)-1 {
		return m, nil
	}
	l.loading = true
	return m, m.loadDeliveries(l.seq, l.hook.ID, m.filter.query(len(l.items), m.opts.PageSize))
}

func (m InspectModel) gotWebhooks(msg webhooksMsg) (InspectModel, tea.Cmd) {
	l := &m.hooks
	if msg.seq != l.seq {
		return m, nil
	}
	l.loading = false
	if msg.err != nil {
		m.setErr("Could not read the webhooks", msg.err)
		return m, nil
	}
	if msg.page == 1 {
		var keep string
		if w, ok := m.currentWebhook(); ok {
			keep = w.ID
		}
		l.items = slices.Clone(msg.list.Items)
		l.sel = 0
		for i, w := range l.items {
			if w.ID == keep {
				l.sel = i
			}
		}
	} else if msg.page == l.page+1 {
		l.items = append(slices.Clip(l.items), msg.list.Items...)
	} else {
		return m, nil
	}
	l.page, l.more, l.loaded = msg.page, msg.list.HasNextPage && len(msg.list.Items) > 0, true
	l.sel = clampSel(l.sel, len(l.items))
	return m, nil
}

// openWebhook shows a webhook's deliveries, under the current filter, and its queue.
func (m InspectModel) openWebhook(w api.Webhook) (InspectModel, tea.Cmd) {
	m.screen = screenDeliveries
	m.dlv = deliveryList{hook: w, seq: m.dlv.seq + 1, loading: true}
	return m, tea.Batch(m.loadDeliveries(m.dlv.seq, w.ID, m.filter.query(0, m.opts.PageSize)), m.readQueue(w.ID))
}

// readQueue reads a webhook's queue again; only the answer to the latest read is shown. The
// queue of another webhook is forgotten meanwhile.
func (m *InspectModel) readQueue(id string) tea.Cmd {
	if m.queue.webhookID != id {
		m.queue = hookQueue{webhookID: id, seq: m.queue.seq}
	}
	m.queue.seq++
	m.queue.reading = true
	return m.loadQueue(m.queue.seq, id)
}

// setFilter changes the deliveries filter and reads the deliveries again.
func (m InspectModel) setFilter(f deliveryFilter, news string) (InspectModel, tea.Cmd) {
	m.filter = f
	if len(f.events.ids) == 0 {
		m.hooks.matches = nil
	}
	m.say(news)
	if m.screen == screenWebhooks {
		return m, nil
	}
	m.screen = screenDeliveries
	return m.openWebhook(m.dlv.hook)
}

func (m InspectModel) applyFilter(text string) (InspectModel, tea.Cmd) {
	status, eventType, err := parseFilter(text)
	if err != nil {
		m.status = statusLine{text: "Filter: " + err.Error(), err: true}
		return m, nil
	}
	f := m.filter
	f.status, f.eventType = status, eventType
	news := "Filter: " + f.text() + "."
	if !f.active() {
		news = "Filter cleared."
	}
	return m.setFilter(f, news)
}

func (m InspectModel) gotDeliveries(msg deliveriesMsg) (InspectModel, tea.Cmd) {
	l := &m.dlv
	if msg.seq != l.seq || msg.webhookID != l.hook.ID {
		return m, nil
	}
	l.loading = false
	if msg.err != nil {
		m.setErr("Could not read the deliveries", msg.err)
		return m, nil
	}
	switch {
	case msg.skip == 0:
		var keep string
		if d, ok := m.currentDelivery(); ok {
			keep = d.ID
		}
		l.items = slices.Clone(msg.page.Data)
		l.sel = 0
		for i, d := range l.items {
			if d.ID == keep {
				l.sel = i
			}
		}
	case msg.skip == len(l.items):
		l.items = append(slices.Clip(l.items), msg.page.Data...)
	default:
		return m, nil
	}
	l.total, l.loaded = msg.page.TotalCount, true
	if len(msg.page.Data) == 0 && msg.skip > 0 {
		l.total = len(l.items) // the log got shorter meanwhile
	}
	l.sel = clampSel(l.sel, len(l.items))
	if m.screen == screenDelivery {
		for _, d := range l.items {
			if d.ID == m.detail.d.ID {
				m.detail.d = d
			}
		}
	}
	return m, nil
}

func (m InspectModel) openDelivery(d api.Delivery) (InspectModel, tea.Cmd) {
	m.screen = screenDelivery
	m.detail = deliveryDetail{d: d, hook: m.dlv.hook, seq: m.detail.seq + 1}
	if r, ok := m.events[d.EventID]; ok && r.err == nil {
		return m, nil
	}
	delete(m.events, d.EventID)
	return m, m.loadEvent(d.EventID)
}

// refresh reads again what the screen shows (for deliveries, as many as were read).
func (m InspectModel) refresh() (InspectModel, tea.Cmd) {
	switch m.screen {
	case screenWebhooks:
		m.hooks.seq++
		m.hooks.loading = true
		return m, m.loadWebhooks(m.hooks.seq, 1)
	case screenDeliveries:
		l := &m.dlv
		l.seq++
		l.loading = true
		size := m.opts.PageSize
		take := max((len(l.items)+size-1)/size, 1) * size
		return m, tea.Batch(m.loadDeliveries(l.seq, l.hook.ID, m.filter.query(0, take)), m.reloadWebhook(l.hook.ID),
			m.readQueue(l.hook.ID))
	default:
		d := &m.detail
		d.seq++
		d.loading = true
		cmds := []tea.Cmd{m.loadDelivery(d.seq, d.hook.ID, d.d.ID), m.reloadWebhook(d.hook.ID), m.readQueue(d.hook.ID)}
		if r, ok := m.events[d.d.EventID]; !ok || r.err != nil {
			cmds = append(cmds, m.loadEvent(d.d.EventID))
		}
		return m, tea.Batch(cmds...)
	}
}

// replaceWebhook puts the latest copy of a webhook wherever it shows.
func (m *InspectModel) replaceWebhook(w api.Webhook) {
	for i, x := range m.hooks.items {
		if x.ID == w.ID {
			m.hooks.items = slices.Clone(m.hooks.items)
			m.hooks.items[i] = w
			break
		}
	}
	if m.dlv.hook.ID == w.ID {
		m.dlv.hook = w
	}
	if m.detail.hook.ID == w.ID {
		m.detail.hook = w
	}
}

func replaceDelivery(items []api.Delivery, d api.Delivery) []api.Delivery {
	for i, x := range items {
		if x.ID == d.ID {
			items = slices.Clone(items)
			items[i] = d
			break
		}
	}
	return items
}

func (m InspectModel) actionDone(msg actionMsg) (InspectModel, tea.Cmd) {
	if msg.err != nil {
		m.setErr(msg.failed, msg.err)
		return m, nil
	}
	m.say(msg.text)
	if msg.webhook != nil {
		m.replaceWebhook(*msg.webhook)
	}
	if msg.webhookID == "" || msg.webhookID != m.dlv.hook.ID || m.screen == screenWebhooks {
		return m, nil
	}
	// the new delivery shows at the top of the list, also when coming back from a delivery, and
	// in the queue
	l := &m.dlv
	l.seq++
	l.loading = true
	size := m.opts.PageSize
	take := max((len(l.items)+size-1)/size, 1) * size
	return m, tea.Batch(m.loadDeliveries(l.seq, l.hook.ID, m.filter.query(0, take)), m.readQueue(l.hook.ID))
}

func (m InspectModel) jumped(msg jumpMsg) (InspectModel, tea.Cmd) {
	if msg.err != nil {
		m.setErr("Go to", msg.err)
		return m, nil
	}
	f := m.filter
	f.events = msg.filter
	if msg.matches == nil { // asked from a webhook's deliveries
		return m.setFilter(f, "Showing the deliveries of "+msg.filter.label+".")
	}
	switch len(msg.matches) {
	case 0:
		m.say("No delivery of " + msg.filter.label + " to the webhooks listed.")
		return m, nil
	case 1:
		for i, w := range m.hooks.items {
			if msg.matches[w.ID] > 0 {
				m.hooks.sel = i
				m.filter = f
				m.hooks.matches = msg.matches
				m.say("Showing the deliveries of " + msg.filter.label + ".")
				return m.openWebhook(w)
			}
		}
	}
	m.filter = f
	m.hooks.matches = msg.matches
	m.say(msg.filter.label + ": delivered to " + strconv.Itoa(len(msg.matches)) + " webhooks (marked ★); open one.")
	return m, nil
}
