package listener

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// Errors of Deliver.
var (
	ErrNotConnected = errors.New("ListenerNotConnected")
	ErrDropped      = errors.New("ListenerDisconnected")
	ErrAckTimeout   = errors.New("ListenerAckTimeout")
)

// Hub holds the open sessions, at most one per listener (a person's session name: each has its
// own listener webhook), known by the listener webhook's id.
//
// An attempt (Deliver) has a deadline, sent with its Event: the hub waits for the Ack until then
// and takes none after, and the client forwards nothing after it (see Event.Deadline). So that
// the server's record and what the client did agree, an Event written to a connection that
// drops is not failed at once: the client sends the Acks of a dropped connection on its next
// one, and the hub takes them, whatever connection of the listener they come on, until the
// deadline. A session replaced by a newer one of the same listener gets no new Event; it is
// closed with CloseReplaced once the attempts it was sent are acknowledged or past their
// deadlines.
type Hub struct {
	// PingEvery, PongWait and RenewEvery are the session's timings; zero uses the protocol's.
	// AckWait is how long an attempt waits for its Ack; zero uses the protocol's. Set them
	// before Serve.
	PingEvery, PongWait, RenewEvery, AckWait time.Duration
	// Now is the clock of deadlines; nil uses time.Now.
	Now func() time.Time
	// Changed, when set, is called when a listener's session opens (before its Ready is sent)
	// and when its last session closes: the other nodes of a shared database learn of it.
	Changed func(tenant, listenerID string)

	mu       sync.Mutex
	sessions map[string]*session
	waiting  map[string]chan Ack // by listener and delivery id: the attempts waiting for an Ack
	replays  map[string]bool     // by listener and delivery id: the deliveries of a catch-up
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{sessions: map[string]*session{}, waiting: map[string]chan Ack{}, replays: map[string]bool{}}
}

// MarkReplays notes deliveries to a listener as its session's catch-up: their Events carry
// Replay.
func (h *Hub) MarkReplays(tenant, listenerID string, deliveryIDs []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range deliveryIDs {
		h.replays[hubKey(tenant, listenerID)+"/"+id] = true
	}
}

type session struct {
	h      *Hub
	conn   *websocket.Conn
	key    string
	events []string
	out    chan outFrame
	closed chan struct{}
	once   sync.Once

	mu       sync.Mutex
	attempts int  // Deliver calls under way on this session
	retiring bool // replaced: closed once attempts is 0
}

// outFrame is a message to write; written, when set, is closed once it was handed to the
// connection (it may then have reached the client).
type outFrame struct {
	msg     []byte
	written chan struct{}
}

func hubKey(tenant, listenerID string) string { return tenant + "/" + listenerID }

func splitHubKey(key string) (tenant, listenerID string) {
	tenant, listenerID, _ = strings.Cut(key, "/")
	return tenant, listenerID
}

func (h *Hub) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// Serve runs a session on an upgraded connection until it ends: it sends ready, then pings,
// delivers events and routes acks; a client it does not hear from for PongWait is gone.
// onPong renews the listener while the client answers, at most once per RenewEvery. A session
// already open for the same listener is replaced: it gets no new event, and is closed with
// CloseReplaced once what it was sent is acknowledged or past its deadline.
func (h *Hub) Serve(conn *websocket.Conn, tenant, listenerID string, ready Ready, onPong func()) {
	h.ServeThen(conn, tenant, listenerID, ready, onPong, nil)
}

// ServeThen is Serve, calling onOpen (in its own goroutine) once the session is the listener's
// and its Ready is on its way: a catch-up starts then.
func (h *Hub) ServeThen(conn *websocket.Conn, tenant, listenerID string, ready Ready, onPong, onOpen func()) {
	s := &session{h: h, conn: conn, key: hubKey(tenant, listenerID), events: ready.Events,
		out: make(chan outFrame, 16), closed: make(chan struct{})}
	h.mu.Lock()
	old := h.sessions[s.key]
	h.sessions[s.key] = s
	h.mu.Unlock()
	if old != nil {
		old.retire()
	}
	if h.Changed != nil {
		h.Changed(tenant, listenerID) // before the Ready: the other nodes know once the client does
	}
	defer func() {
		h.mu.Lock()
		gone := h.sessions[s.key] == s
		if gone {
			delete(h.sessions, s.key)
		}
		h.mu.Unlock()
		s.close(websocket.CloseNormalClosure, "")
		if gone && h.Changed != nil {
			h.Changed(tenant, listenerID)
		}
	}()
	ready.Type = TypeReady
	ready.ServerTime = formatDeadline(h.now())
	msg, _ := json.Marshal(ready)
	s.out <- outFrame{msg: msg}
	go s.write()
	if onOpen != nil {
		go onOpen()
	}
	s.read(onPong)
}

// retire closes a replaced session once it has no attempt under way.
func (s *session) retire() {
	s.mu.Lock()
	s.retiring = true
	idle := s.attempts == 0
	s.mu.Unlock()
	if idle {
		s.close(CloseReplaced, "replaced by a newer timbra listen of the same session")
	}
}

// begin counts an attempt on the session; false when the session is replaced.
func (s *session) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retiring {
		return false
	}
	s.attempts++
	return true
}

func (s *session) end() {
	s.mu.Lock()
	s.attempts--
	closeNow := s.retiring && s.attempts == 0
	s.mu.Unlock()
	if closeNow {
		s.close(CloseReplaced, "replaced by a newer timbra listen of the same session")
	}
}

// Probe answers a probe session: the Ready, then a normal close, without touching the hub.
func Probe(conn *websocket.Conn, ready Ready) {
	ready.Type = TypeReady
	conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if conn.WriteJSON(ready) == nil {
		conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	}
	conn.Close()
}

// Each calls fn with every open session: its tenant, listener and event types.
func (h *Hub) Each(fn func(tenant, listenerID string, events []string)) {
	h.mu.Lock()
	type open struct {
		key    string
		events []string
	}
	all := make([]open, 0, len(h.sessions))
	for k, s := range h.sessions {
		all = append(all, open{k, s.events})
	}
	h.mu.Unlock()
	for _, o := range all {
		tenant, listenerID := splitHubKey(o.key)
		fn(tenant, listenerID, o.events)
	}
}

// Connected tells whether a listener has an open session, and the event types it asked for.
func (h *Hub) Connected(tenant, listenerID string) ([]string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sessions[hubKey(tenant, listenerID)]
	if s == nil {
		return nil, false
	}
	return s.events, true
}

// Deliver sends an event to a listener's session and waits for its ack, until the attempt's
// deadline (AckWait from now), which the Event carries. It fails at once (ErrDropped) only
// when the Event never left the server; an Event written to a connection that dropped waits
// for its Ack from the listener's next connection until the deadline (ErrAckTimeout).
func (h *Hub) Deliver(ctx context.Context, tenant, listenerID string, ev Event) (Ack, error) {
	key := hubKey(tenant, listenerID)
	h.mu.Lock()
	s := h.sessions[key]
	h.mu.Unlock()
	if s == nil || !s.begin() {
		return Ack{}, ErrNotConnected
	}
	defer s.end()
	wait := orDefault(h.AckWait, AckWait)
	deadline := h.now().Add(wait)
	ev.Type, ev.Deadline = TypeEvent, formatDeadline(deadline)
	ch := make(chan Ack, 1)
	wkey := key + "/" + ev.DeliveryID
	h.mu.Lock()
	h.waiting[wkey] = ch
	ev.Replay = h.replays[wkey]
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		if h.waiting[wkey] == ch {
			delete(h.waiting, wkey)
		}
		delete(h.replays, wkey)
		h.mu.Unlock()
	}()
	msg, err := json.Marshal(ev)
	if err != nil {
		return Ack{}, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	written := make(chan struct{})
	select {
	case s.out <- outFrame{msg: msg, written: written}:
	case <-s.closed:
		return Ack{}, ErrDropped
	case <-ctx.Done():
		return Ack{}, ctx.Err()
	}
	closed := s.closed
	for {
		select {
		case a := <-ch:
			return a, nil
		case <-closed:
			select {
			case <-written:
				closed = nil // it may have reached the client: its Ack may come on the next connection
			default:
				return Ack{}, ErrDropped
			}
		case <-t.C:
			return Ack{}, ErrAckTimeout
		case <-ctx.Done():
			return Ack{}, ctx.Err()
		}
	}
}

// route hands an Ack to the attempt waiting for it, if one is.
func (h *Hub) route(key string, a Ack) {
	h.mu.Lock()
	ch := h.waiting[key+"/"+a.DeliveryID]
	h.mu.Unlock()
	if ch != nil {
		select {
		case ch <- a:
		default:
		}
	}
}

// formatDeadline is a time as the protocol writes it: UTC, RFC 3339 to the millisecond.
func formatDeadline(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

// CloseAll ends every session (the server is stopping): clients reconnect to the next one.
func (h *Hub) CloseAll() {
	h.mu.Lock()
	all := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		all = append(all, s)
	}
	h.mu.Unlock()
	for _, s := range all {
		s.close(websocket.CloseGoingAway, "server stopping")
	}
}

func (s *session) close(code int, text string) {
	s.once.Do(func() {
		close(s.closed)
		s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
		s.conn.Close()
	})
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func (s *session) write() {
	ping := time.NewTicker(orDefault(s.h.PingEvery, PingEvery))
	defer ping.Stop()
	for {
		select {
		case f := <-s.out:
			if f.written != nil {
				close(f.written) // before the write: from here the client may have it
			}
			s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if err := s.conn.WriteMessage(websocket.TextMessage, f.msg); err != nil {
				s.close(websocket.CloseAbnormalClosure, "")
				return
			}
		case <-ping.C:
			if err := s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second)); err != nil {
				s.close(websocket.CloseAbnormalClosure, "")
				return
			}
		case <-s.closed:
			return
		}
	}
}

func (s *session) read(onPong func()) {
	pongWait, renewEvery := orDefault(s.h.PongWait, PongWait), orDefault(s.h.RenewEvery, RenewEvery)
	alive := func() { s.conn.SetReadDeadline(time.Now().Add(pongWait)) }
	var renewed time.Time
	s.conn.SetReadLimit(64 << 10)
	alive()
	s.conn.SetPongHandler(func(string) error {
		alive()
		if onPong != nil && time.Since(renewed) >= renewEvery {
			renewed = time.Now()
			onPong()
		}
		return nil
	})
	s.conn.SetPingHandler(func(data string) error {
		alive()
		err := s.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(10*time.Second))
		var ne net.Error
		if err == websocket.ErrCloseSent || errors.As(err, &ne) {
			return nil // as gorilla's own ping handler: the read loop sees a dead connection
		}
		return err
	})
	for {
		typ, raw, err := s.conn.ReadMessage()
		if err != nil {
			return
		}
		if typ == websocket.TextMessage && !utf8.Valid(raw) {
			// RFC 6455 §8.1: a text frame must be UTF-8; the session ends with 1007
			s.close(websocket.CloseInvalidFramePayloadData, "text frame is not UTF-8")
			return
		}
		alive()
		var a Ack
		if json.Unmarshal(raw, &a) != nil || a.Type != TypeAck {
			continue // not an ack: ignored, the session goes on
		}
		if len([]rune(a.Error)) > MaxErrorLength {
			a.Error = string([]rune(a.Error)[:MaxErrorLength])
		}
		s.h.route(s.key, a)
	}
}
