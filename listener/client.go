package listener

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/webhook"
)

// SignatureTolerance is how far an event's webhook-timestamp may be from the client's clock.
const SignatureTolerance = 5 * time.Minute

// ErrorSignature is the Ack error of an event whose signature does not verify: it is not
// forwarded.
const ErrorSignature = "signature verification failed"

// Defaults of a Client.
const (
	DefaultMinBackoff = 500 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
	// DefaultForwardTimeout bounds one forward (see NewForwardClient).
	DefaultForwardTimeout = 10 * time.Second
	// ForwardBodyBytes is how much of a forward's answer is kept for the view (the Ack carries
	// its first 1 KB, the excerpt).
	ForwardBodyBytes = 64 << 10
)

const (
	clientWriteWait     = 10 * time.Second // one ack, ping or close frame
	clientCloseWait     = time.Second      // for the server's answer to our close frame
	clientReadLimit     = 4 << 20          // one message of the server
	clientRemembered    = 1024             // delivery ids kept against duplicates
	clientConcurrency   = 8                // forwards at once
	clientDialTimeout   = 15 * time.Second // TCP, TLS and the websocket handshake
	clientBackoffJitter = 0.2              // ±20% of each wait
)

var (
	// ErrReplaced ends Run when the server closed the session with CloseReplaced: a newer
	// session of the same person and name took over.
	ErrReplaced = errors.New("listener: replaced by a newer session of the same name")
	// ErrStop, returned by Client.OnReady, ends Run cleanly (Run returns nil).
	ErrStop = errors.New("listener: stop")
)

// HandshakeError is the server's refusal of the websocket handshake: an HTTP answer other
// than 101, usually an API envelope (401 bad keys, 400 unknown event types).
type HandshakeError struct {
	StatusCode int
	Body       []byte // the start of the answer (at most 1 KB)
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("listener: the server refused the session: %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// permanent tells whether retrying cannot help: the server refused the client itself.
func (e *HandshakeError) permanent() bool {
	return e.StatusCode >= 400 && e.StatusCode < 500 &&
		e.StatusCode != http.StatusRequestTimeout && e.StatusCode != http.StatusTooManyRequests
}

// DialURL is the websocket URL of the endpoint under an API base URL (http becomes ws, https
// wss; a path of the base is kept), asking for the event types given (all when none).
func DialURL(baseURL string, events []string) (string, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(baseURL), "/"))
	if err != nil {
		return "", fmt.Errorf("listener: base URL %q: %v", baseURL, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("listener: base URL %q: want http:// or https://", baseURL)
	}
	if u.Host == "" {
		return "", fmt.Errorf("listener: base URL %q has no host", baseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/") + Path
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	if len(events) > 0 {
		u.RawQuery = url.Values{"events": {strings.Join(events, ",")}}.Encode()
	}
	return u.String(), nil
}

// Forwarder posts each verified event to a local URL, as a webhook delivery would: the exact
// body, the three Standard Webhooks headers, Content-Type application/json, plus Header.
type Forwarder struct {
	URL    string
	Header http.Header  // added to every forward (timbra listen --headers)
	Client *http.Client // see NewForwardClient
}

// NewForwardClient is the HTTP client of forwards: timeout per forward, redirects never
// followed (the 3xx is the answer), no proxy (targets are local by design), and with
// skipVerify any TLS certificate accepted. Unlike deliveries it has no address guard:
// forwarding to localhost is the point.
func NewForwardClient(timeout time.Duration, skipVerify bool) *http.Client {
	if timeout <= 0 {
		timeout = DefaultForwardTimeout
	}
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: skipVerify},
		TLSHandshakeTimeout: timeout,
		MaxIdleConnsPerHost: clientConcurrency,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ForwardResult is the outcome of forwarding one event.
type ForwardResult struct {
	URL string
	// RequestHeader is the header the forward sent: the event's Standard Webhooks headers,
	// Forwarder.Header, Content-Type and User-Agent.
	RequestHeader http.Header
	// StatusCode is the target's status; nil when no answer came.
	StatusCode *int
	// Header is the answer's header; nil when no answer came.
	Header http.Header
	// Error is "" for a complete answer, else webhook.ErrorTimeout, ErrorConnectionFailed or
	// ErrorTLSFailed, as a delivery's lastError.
	Error string
	// Excerpt is the first 1 KB of the answer; Body the first ForwardBodyBytes.
	Excerpt string
	Body    string
	// Latency is the time from the start of the forward to the end of reading its answer.
	Latency time.Duration
	// Err is the underlying error, for a diagnostic; nil with Error "".
	Err error
}

// ErrorText is the whole text of why a forward got no complete answer (the Go error, not
// only its class); "" with a complete answer.
func (fr *ForwardResult) ErrorText() string {
	switch {
	case fr.Error == "":
		return ""
	case fr.Err != nil:
		return fr.Error + ": " + fr.Err.Error()
	}
	return fr.Error
}

// ForwardHeader is the header a forward of e sends: the event's three Standard Webhooks
// headers, extra (timbra listen --headers), and Content-Type and User-Agent as a delivery has
// them.
func ForwardHeader(e Event, extra http.Header) http.Header {
	h := make(http.Header, 5+len(extra))
	for _, name := range []string{webhook.HeaderID, webhook.HeaderTimestamp, webhook.HeaderSignature} {
		if v, ok := clientEventHeader(e.Headers, name); ok {
			h.Set(name, v)
		}
	}
	for k, vs := range extra {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", webhook.UserAgent)
	return h
}

// Forward posts one event; it never fails, the outcome says what happened.
func (f *Forwarder) Forward(ctx context.Context, e Event) ForwardResult {
	h := ForwardHeader(e, f.Header)
	hc := f.Client
	if hc == nil {
		hc = NewForwardClient(DefaultForwardTimeout, false)
	}
	a := webhook.SendKeeping(ctx, hc, f.URL, h, []byte(e.Body), ForwardBodyBytes)
	return ForwardResult{URL: f.URL, RequestHeader: h, StatusCode: a.StatusCode, Header: a.Header, Error: a.Error,
		Excerpt: a.Excerpt, Body: string(a.Body), Latency: a.Duration, Err: a.Err}
}

// Route sends the events of some types to one target (timbra listen --forward-to
// 'invoice.*=URL').
type Route struct {
	// Types are the event types the route takes: exact types and "namespace.*" patterns; none
	// (or "*") takes every type.
	Types   []string
	Forward *Forwarder
}

// Takes tells whether the route takes events of type t.
func (r Route) Takes(t string) bool { return len(r.Types) == 0 || TypeMatches(r.Types, t) }

// TypeMatches tells whether the event type t is one of patterns: "*" is every type,
// "namespace.*" every type that starts with "namespace.", any other pattern that exact type.
func TypeMatches(patterns []string, t string) bool {
	for _, p := range patterns {
		if p == "*" || p == t {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasSuffix(prefix, ".") && strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// ReachTimeout bounds Reachable.
const ReachTimeout = 2 * time.Second

// Reachable tells whether something accepts TCP connections at the target's host and port (the
// scheme's default port when the URL has none): a check at the start of a session, so that a
// target where nothing listens is said at once rather than at the first event. It sends
// nothing.
func (f *Forwarder) Reachable(ctx context.Context) error {
	u, err := url.Parse(f.URL)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, ReachTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return err
	}
	return conn.Close()
}

// clientEventHeader reads a header of an Event whatever the case of its name.
func clientEventHeader(h map[string]string, name string) (string, bool) {
	if v, ok := h[name]; ok {
		return v, true
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// EventResult is what the client did with one event.
type EventResult struct {
	Event      Event
	ReceivedAt time.Time
	// Verified tells that the signature is the session secret's; VerifyError says why not.
	Verified    bool
	VerifyError error
	// Pending tells, in OnReceived, that the event is being forwarded: OnEvent follows with the
	// outcome.
	Pending bool
	// Targets are the URLs of the routes that take the event, in the order of the routes.
	Targets []string
	// Forwards are the outcomes of the forwards, one per target; Forward is the one the Ack
	// reports: the first that failed, else the first. Forward is nil when there is no target,
	// the event was not forwarded (its signature did not verify), or the forwards are pending.
	Forwards []ForwardResult
	Forward  *ForwardResult
	// Ack is the answer sent to the server.
	Ack Ack
	// Deadline is the attempt's deadline on the client's clock (zero when the server sent
	// none); Late tells that the event came (or waited for a forward slot) too close to it or
	// past it: it is not forwarded and not acknowledged, as the server records it failed
	// (ListenerAckTimeout).
	Deadline time.Time
	Late     bool
}

// Client is the client side of a listen session: it connects, verifies each event with the
// secret of the session's Ready, forwards it, acknowledges it, keeps the connection alive with
// pings, and reconnects (with backoff) when the connection drops or the server restarts. An
// event sent again with the same deliveryId (after a reconnection) is handled once: OnEvent
// sees it once, the server gets the same Ack again.
//
// A reconnection catches up: it asks the server (query since=) for the events of the session's
// types it did not receive since the last one it did (the greatest event id received; before
// any, the time of the last Ready), which come first, marked Replay. A replay, or an automatic
// delivery, of an event the client already handled (an event emitted as the session reopens is
// both sent live and listed for the catch-up; a restarted engine offers a pending attempt
// again) is not handled again: it is acknowledged with the outcome of the first, and
// OnReceived and OnEvent do not see it. The callbacks are never called concurrently.
type Client struct {
	// URL is the websocket URL (see DialURL); ReconnectURL, when set, the one of every
	// connection after the first Ready (without a catch-up's since=, say). A reconnection sets
	// its since= (see NoCatchUp).
	URL, ReconnectURL string
	// NoCatchUp leaves since= out of reconnections: what was missed while away comes only with
	// the engine's retries.
	NoCatchUp bool
	// Header is sent with each handshake: X-TENANT-KEY, X-API-KEY, User-Agent.
	Header http.Header
	// Dialer opens the connection; nil uses one with the proxy of the environment.
	Dialer *websocket.Dialer
	// Forward is where events go; nil acknowledges each verified event with no status and no
	// error. It is a route that takes every type, before Routes.
	Forward *Forwarder
	// Routes send each event to every target whose types it is of, at once; the Ack reports the
	// first that failed, else the first. An event no route takes is acknowledged with no status
	// and no error.
	Routes []Route
	// Now is the clock of signature checks; nil uses time.Now.
	Now func() time.Time

	// MinBackoff and MaxBackoff bound the wait before a reconnection: MinBackoff, doubling at
	// each failure up to MaxBackoff, each ±20%. Zero uses DefaultMinBackoff, DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// PingEvery and PongWait: how often to ping, and how long without any message, ping or pong
	// from the server before the connection counts as dropped. Zero uses the protocol's.
	PingEvery, PongWait time.Duration
	// DeadlineMargin: a forward ends this long before its Event's deadline at the latest, and
	// none starts later. Zero uses the protocol's.
	DeadlineMargin time.Duration

	// OnReady is called with each Ready; reconnected is false for the first. An error ends
	// Run: the session is closed normally and Run returns the error (nil for ErrStop).
	OnReady func(r Ready, reconnected bool) error
	// OnReceived is called once per delivery id (among the last 1024) the moment it arrives,
	// after the signature check and before the forward: Forward is nil, Pending true when a
	// forward follows. It runs on the connection's reading goroutine, so it must not block.
	OnReceived func(EventResult)
	// OnEvent is called once per delivery id (among the last 1024) with its outcome, before its
	// Ack is sent. (A forward cut short by the end of Run has no outcome: no OnEvent.)
	OnEvent func(EventResult)
	// OnDisconnect is called when the connection dropped (attempt 1) or a reconnection failed
	// (attempt 2, 3...), before waiting retryIn.
	OnDisconnect func(err error, retryIn time.Duration, attempt int)
}

// Run connects and serves the session until ctx ends (the close frame is sent; Run returns
// nil), the server replaces the session (ErrReplaced), OnReady returns an error, or the server
// refuses a handshake with a 4xx (*HandshakeError). The first connection is not retried: if it
// fails, Run returns why. Later drops are retried without end. Run returns once every event
// it started handling is done.
func (c *Client) Run(ctx context.Context) error {
	st := &clientState{seen: map[string]*clientSeen{}, events: map[string]*clientSeen{}, slots: make(chan struct{}, clientConcurrency)}
	defer st.wg.Wait()
	// Whatever ends Run also ends the forwards still running (before the Wait above).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	minWait, maxWait := c.MinBackoff, c.MaxBackoff
	if minWait <= 0 {
		minWait = DefaultMinBackoff
	}
	if maxWait <= 0 {
		maxWait = DefaultMaxBackoff
	}
	maxWait = max(maxWait, minWait)
	wait, attempt, everReady := minWait, 0, false
	for {
		readied, err := c.serve(ctx, st, everReady)
		if ctx.Err() != nil {
			return nil
		}
		var stop *clientStop
		if errors.As(err, &stop) {
			if errors.Is(stop.err, ErrStop) {
				return nil
			}
			return stop.err
		}
		if errors.Is(err, ErrReplaced) {
			return err
		}
		if readied {
			everReady, wait, attempt = true, minWait, 0
		}
		if !everReady {
			return err
		}
		var he *HandshakeError
		if errors.As(err, &he) && he.permanent() {
			return err
		}
		attempt++
		d := clientJitter(wait)
		if c.OnDisconnect != nil {
			st.cb.Lock()
			c.OnDisconnect(err, d, attempt)
			st.cb.Unlock()
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		wait = min(2*wait, maxWait)
	}
}

func clientJitter(d time.Duration) time.Duration {
	f := 1 + clientBackoffJitter*(2*rand.Float64()-1)
	return time.Duration(float64(d) * f)
}

// clientStop carries an error of OnReady out of serve.
type clientStop struct{ err error }

func (s *clientStop) Error() string { return s.err.Error() }

// clientState is what outlives one connection: the delivery ids seen, the Acks not yet sent,
// and the callbacks' lock.
type clientState struct {
	cb     sync.Mutex // held while a callback runs
	mu     sync.Mutex
	seen   map[string]*clientSeen // by delivery id
	events map[string]*clientSeen // by event id: the first delivery of each event handled
	order  []string               // ids in seen, oldest first
	// last is the greatest event id received (not late), and ready the server's time of the
	// last Ready: a reconnection catches up since the one, else the other.
	last, ready string
	wg          sync.WaitGroup
	slots       chan struct{} // one per forward running

	// conn is the connection Acks go to (nil between connections). kept are the Acks of
	// attempts whose deadline has not passed: a connection may drop after taking an Ack that
	// never reached the server (a write into a socket the server had closed succeeds), so each
	// new connection sends them again, and the server, which takes Acks until the deadline
	// whatever connection they come on, gets them (a second one changes nothing). offset is the
	// server's clock less ours, as of the last Ready.
	connMu sync.Mutex
	conn   *clientConn
	kept   []keptAck
	offset time.Duration
}

// keptAck is an Ack sent again on the next connection until its deadline (zero: until it is
// written once).
type keptAck struct {
	ack      Ack
	deadline time.Time
	written  bool
}

// send writes an Ack on the current connection, and keeps it for the next one.
func (st *clientState) send(a Ack, deadline time.Time) {
	st.connMu.Lock()
	defer st.connMu.Unlock()
	k := keptAck{ack: a, deadline: deadline}
	k.written = st.conn != nil && st.conn.send(a) == nil
	if !k.written || !deadline.IsZero() {
		st.kept = append(st.kept, k)
		if len(st.kept) > clientRemembered {
			st.kept = st.kept[1:]
		}
	}
}

// attach makes cc the connection of Acks (nil: none), and sends it those kept whose deadline
// has not passed.
func (st *clientState) attach(cc *clientConn, now time.Time) {
	st.connMu.Lock()
	defer st.connMu.Unlock()
	st.conn = cc
	if cc == nil {
		return
	}
	kept := st.kept[:0]
	for _, k := range st.kept {
		if !k.deadline.IsZero() && !now.Before(k.deadline) || k.deadline.IsZero() && k.written {
			continue
		}
		k.written = cc.send(k.ack) == nil
		if !k.written || !k.deadline.IsZero() {
			kept = append(kept, k)
		}
	}
	clear(st.kept[len(kept):])
	st.kept = kept
}

// forget drops a delivery id, so that the server may offer it (or its event) again (an Event
// dropped as late).
func (st *clientState) forget(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.seen[id]; ok && st.events[s.event] == s {
		delete(st.events, s.event)
	}
	delete(st.seen, id)
}

// received notes an event id received, for the since= of the next reconnection.
func (st *clientState) received(eventID string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if eventID > st.last {
		st.last = eventID
	}
}

// since is what a reconnection catches up from: the greatest event id received, else the time
// of the last Ready ("" when neither is known).
func (st *clientState) since() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.last != "" {
		return st.last
	}
	return st.ready
}

// clientSeen is one delivery id: done is closed once its Ack is known.
type clientSeen struct {
	done     chan struct{}
	event    string
	ack      Ack
	deadline time.Time
}

// claim returns the record of an Event's delivery id, and whether it is to be handled: not
// when its delivery id was seen, nor when it is a replay or an automatic delivery of an event
// already handled (the record is then the first delivery's).
func (st *clientState) claim(e Event) (*clientSeen, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.seen[e.DeliveryID]; ok {
		return s, false
	}
	if s, ok := st.events[e.EventID]; ok && (e.Replay || e.Kind == KindAutomatic) {
		return s, false
	}
	s := &clientSeen{done: make(chan struct{}), event: e.EventID}
	st.seen[e.DeliveryID] = s
	if _, ok := st.events[e.EventID]; !ok {
		st.events[e.EventID] = s
	}
	st.order = append(st.order, e.DeliveryID)
	if len(st.order) > clientRemembered {
		if old := st.seen[st.order[0]]; old != nil && st.events[old.event] == old {
			delete(st.events, old.event)
		}
		delete(st.seen, st.order[0])
		st.order = st.order[1:]
	}
	return s, true
}

// clientConn is one connection; its mutex orders the writes of acks.
type clientConn struct {
	ws *websocket.Conn
	mu sync.Mutex
}

func (cc *clientConn) send(a Ack) error {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	_ = cc.ws.SetWriteDeadline(time.Now().Add(clientWriteWait))
	// A failure means the connection is gone; the Ack goes on the next one.
	return cc.ws.WriteJSON(a)
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Client) dial(ctx context.Context, st *clientState, reconnect bool) (*websocket.Conn, error) {
	d := c.Dialer
	if d == nil {
		d = &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: clientDialTimeout}
	}
	u := c.URL
	if reconnect && c.ReconnectURL != "" {
		u = c.ReconnectURL
	}
	if since := st.since(); reconnect && !c.NoCatchUp && since != "" {
		u = withSince(u, since)
	}
	ws, resp, err := d.DialContext(ctx, u, c.Header)
	if err != nil {
		if errors.Is(err, websocket.ErrBadHandshake) && resp != nil {
			he := &HandshakeError{StatusCode: resp.StatusCode}
			if resp.Body != nil {
				he.Body, _ = io.ReadAll(io.LimitReader(resp.Body, 1024))
			}
			return nil, he
		}
		return nil, err
	}
	return ws, nil
}

// serve runs one connection; readied tells whether its Ready arrived. The error says why it
// ended.
func (c *Client) serve(ctx context.Context, st *clientState, reconnected bool) (readied bool, err error) {
	ws, err := c.dial(ctx, st, reconnected)
	if err != nil {
		return false, err
	}
	pongWait, pingEvery := c.PongWait, c.PingEvery
	if pongWait <= 0 {
		pongWait = PongWait
	}
	if pingEvery <= 0 {
		pingEvery = PingEvery
	}
	ws.SetReadLimit(clientReadLimit)
	alive := func() { _ = ws.SetReadDeadline(time.Now().Add(pongWait)) }
	alive()
	ws.SetPongHandler(func(string) error { alive(); return nil })
	ws.SetPingHandler(func(data string) error {
		alive()
		err := ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(clientWriteWait))
		var ne net.Error
		if err == websocket.ErrCloseSent || (errors.As(err, &ne) && ne.Timeout()) {
			return nil
		}
		return err
	})

	// While this connection runs: close it normally when ctx ends, and ping.
	done := make(chan struct{})
	var bg sync.WaitGroup
	bg.Add(2)
	go func() {
		defer bg.Done()
		select {
		case <-ctx.Done():
			clientCloseNormally(ws, done)
		case <-done:
		}
	}()
	go func() {
		defer bg.Done()
		t := time.NewTicker(pingEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(clientWriteWait)) != nil {
					return
				}
			}
		}
	}()
	defer func() {
		close(done)
		bg.Wait()
		ws.Close()
	}()

	ready, err := clientReadReady(ws)
	if err != nil {
		return false, clientReadError(err, pongWait)
	}
	alive()
	if t, err := time.Parse(time.RFC3339Nano, ready.ServerTime); err == nil {
		st.connMu.Lock()
		st.offset = t.Sub(c.now())
		st.connMu.Unlock()
		st.mu.Lock()
		st.ready = ready.ServerTime
		st.mu.Unlock()
	}
	if c.OnReady != nil {
		st.cb.Lock()
		err := c.OnReady(ready, reconnected)
		st.cb.Unlock()
		if err != nil {
			clientCloseNormally(ws, nil)
			return true, &clientStop{err}
		}
	}
	st.attach(&clientConn{ws: ws}, c.now())
	defer st.attach(nil, time.Time{})
	for {
		_, raw, err := ws.ReadMessage()
		if err != nil {
			return true, clientReadError(err, pongWait)
		}
		alive()
		var m struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Type != TypeEvent {
			continue // not for this client: newer servers may say more
		}
		var e Event
		if json.Unmarshal(raw, &e) != nil || e.DeliveryID == "" {
			continue
		}
		c.handle(ctx, st, ready.Secret, e, c.now())
	}
}

// clientCloseNormally sends a normal close frame and waits a moment for the server's answer (the
// end of the read loop, when done is given) before closing the connection.
func clientCloseNormally(ws *websocket.Conn, done <-chan struct{}) {
	_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(clientWriteWait))
	if done != nil {
		t := time.NewTimer(clientCloseWait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
		}
	}
	ws.Close()
}

func clientReadReady(ws *websocket.Conn) (Ready, error) {
	_, raw, err := ws.ReadMessage()
	if err != nil {
		return Ready{}, err
	}
	var r Ready
	if err := json.Unmarshal(raw, &r); err != nil || r.Type != TypeReady {
		return Ready{}, fmt.Errorf("listener: the server's first message is not a ready: %.100s", raw)
	}
	return r, nil
}

// clientReadError names why a connection ended.
func clientReadError(err error, pongWait time.Duration) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code == CloseReplaced {
		return ErrReplaced
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("no message from the server for %s", pongWait)
	}
	return err
}

// handle starts the work of one event: verify and report its arrival, then (in the background)
// forward, report, ack. A delivery id already seen is acknowledged again with its outcome, once
// that is known. An event past its deadline (the client was paused, or slept) is not forwarded
// and not acknowledged: the server has recorded the attempt failed.
func (c *Client) handle(ctx context.Context, st *clientState, secret string, e Event, receivedAt time.Time) {
	s, isNew := st.claim(e)
	var res EventResult
	if isNew {
		res = c.verify(secret, e, receivedAt)
		res.Deadline = c.localDeadline(st, e)
		if c.late(res.Deadline) {
			res.Late, res.Pending, res.Targets = true, false, nil
			st.forget(e.DeliveryID)
		} else {
			st.received(e.EventID)
		}
		if c.OnReceived != nil {
			st.cb.Lock()
			c.OnReceived(res)
			st.cb.Unlock()
		}
		if res.Late {
			return
		}
	}
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		if !isNew {
			// the same delivery again, or another delivery of an event handled: the first's
			// outcome, under this delivery's id, until this attempt's deadline
			deadline := c.localDeadline(st, e)
			select {
			case <-s.done:
				a := s.ack
				a.DeliveryID = e.DeliveryID
				if deadline.IsZero() {
					deadline = s.deadline
				}
				st.send(a, deadline)
			case <-ctx.Done():
			}
			return
		}
		if res.Pending {
			select {
			case st.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			if c.late(res.Deadline) { // it waited for a slot past its deadline
				<-st.slots
				res.Late, res.Pending = true, false
				st.forget(e.DeliveryID)
				if c.OnEvent != nil {
					st.cb.Lock()
					c.OnEvent(res)
					st.cb.Unlock()
				}
				return
			}
			fctx, cancel := ctx, context.CancelFunc(func() {})
			if !res.Deadline.IsZero() {
				fctx, cancel = context.WithDeadline(ctx, res.Deadline.Add(-c.margin()))
			}
			c.forward(fctx, &res)
			cancel()
			<-st.slots
		}
		if ctx.Err() != nil {
			return // interrupted: the forward was cut short, the session is closing
		}
		s.ack, s.deadline = res.Ack, res.Deadline
		close(s.done)
		if c.OnEvent != nil {
			st.cb.Lock()
			c.OnEvent(res)
			st.cb.Unlock()
		}
		st.send(res.Ack, res.Deadline)
	}()
}

// localDeadline is an Event's deadline on the client's clock (zero without one).
func (c *Client) localDeadline(st *clientState, e Event) time.Time {
	if e.Deadline == "" {
		return time.Time{}
	}
	d, err := time.Parse(time.RFC3339Nano, e.Deadline)
	if err != nil {
		return time.Time{}
	}
	st.connMu.Lock()
	defer st.connMu.Unlock()
	return d.Add(-st.offset)
}

// late tells whether a forward may no longer start before the deadline (zero: none).
func (c *Client) late(deadline time.Time) bool {
	return !deadline.IsZero() && !c.now().Before(deadline.Add(-c.margin()))
}

func (c *Client) margin() time.Duration {
	if c.DeadlineMargin > 0 {
		return c.DeadlineMargin
	}
	return DeadlineMargin
}

// verify checks one event's signature and makes its Ack, final unless the event is to be
// forwarded (Pending).
func (c *Client) verify(secret string, e Event, receivedAt time.Time) EventResult {
	res := EventResult{Event: e, ReceivedAt: receivedAt, Ack: Ack{Type: TypeAck, DeliveryID: e.DeliveryID}}
	h := make(http.Header, len(e.Headers))
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	if err := webhook.Verify(secret, h, []byte(e.Body), receivedAt, SignatureTolerance); err != nil {
		res.VerifyError = err
		res.Ack.Error = ErrorSignature
		return res
	}
	res.Verified = true
	for _, r := range c.routes() {
		if r.Takes(e.EventType) {
			res.Targets = append(res.Targets, r.Forward.URL)
		}
	}
	res.Pending = len(res.Targets) > 0
	return res
}

// routes are Forward (every type) and Routes.
func (c *Client) routes() []Route {
	if c.Forward == nil {
		return c.Routes
	}
	return append([]Route{{Forward: c.Forward}}, c.Routes...)
}

// forward posts a verified event to every route that takes it, at once, and puts the outcomes
// in its result and Ack.
func (c *Client) forward(ctx context.Context, res *EventResult) {
	var taken []Route
	for _, r := range c.routes() {
		if r.Takes(res.Event.EventType) {
			taken = append(taken, r)
		}
	}
	out := make([]ForwardResult, len(taken))
	var wg sync.WaitGroup
	for i, r := range taken {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = r.Forward.Forward(ctx, res.Event)
		}()
	}
	wg.Wait()
	res.Forwards, res.Pending = out, false
	if len(out) == 0 {
		return
	}
	res.Forward = &out[0]
	for i := range out {
		if !out[i].ok() {
			res.Forward = &out[i]
			break
		}
	}
	fr := res.Forward
	res.Ack.StatusCode, res.Ack.Excerpt, res.Ack.Error = fr.StatusCode, fr.Excerpt, clientTruncate(fr.Error, MaxErrorLength)
}

// ok tells whether the target answered 2xx in full.
func (fr *ForwardResult) ok() bool {
	return fr.Error == "" && fr.StatusCode != nil && *fr.StatusCode >= 200 && *fr.StatusCode <= 299
}

func clientTruncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// withSince is a websocket URL with its query since= set to since.
func withSince(u, since string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	q.Set("since", since)
	p.RawQuery = q.Encode()
	return p.String()
}
