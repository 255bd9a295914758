package listener

import (
	"context"
	"encoding/json"
	"errors"
	"net"
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
type Hub struct {
	// PingEvery, PongWait and RenewEvery are the session's timings; zero uses the protocol's.
	// Set them before Serve.
	PingEvery, PongWait, RenewEvery time.Duration

	mu       sync.Mutex
	sessions map[string]*session
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{sessions: map[string]*session{}} }

type session struct {
	h       *Hub
	conn    *websocket.Conn
	key     string
	events  []string
	out     chan []byte
	closed  chan struct{}
	once    sync.Once
	mu      sync.Mutex
	waiting map[string]chan Ack
}

func hubKey(tenant, listenerID string) string { return tenant + "/" + listenerID }

// Serve runs a session on an upgraded connection until it ends: it sends ready, then pings,
// delivers events and routes acks; a client it does not hear from for PongWait is gone.
// onPong renews the listener while the client answers, at most once per RenewEvery. A session
// already open for the same listener is closed with CloseReplaced.
func (h *Hub) Serve(conn *websocket.Conn, tenant, listenerID string, ready Ready, onPong func()) {
	s := &session{h: h, conn: conn, key: hubKey(tenant, listenerID), events: ready.Events,
		out: make(chan []byte, 16), closed: make(chan struct{}), waiting: map[string]chan Ack{}}
	h.mu.Lock()
	old := h.sessions[s.key]
	h.sessions[s.key] = s
	h.mu.Unlock()
	if old != nil {
		old.close(CloseReplaced, "replaced by a newer timbra listen of the same session")
	}
	defer func() {
		h.mu.Lock()
		if h.sessions[s.key] == s {
			delete(h.sessions, s.key)
		}
		h.mu.Unlock()
		s.close(websocket.CloseNormalClosure, "")
	}()
	ready.Type = TypeReady
	msg, _ := json.Marshal(ready)
	s.out <- msg
	go s.write()
	s.read(onPong)
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

// Deliver sends an event to a listener's session and waits for its ack.
func (h *Hub) Deliver(ctx context.Context, tenant, listenerID string, ev Event) (Ack, error) {
	h.mu.Lock()
	s := h.sessions[hubKey(tenant, listenerID)]
	h.mu.Unlock()
	if s == nil {
		return Ack{}, ErrNotConnected
	}
	ev.Type = TypeEvent
	msg, err := json.Marshal(ev)
	if err != nil {
		return Ack{}, err
	}
	ch := make(chan Ack, 1)
	s.mu.Lock()
	s.waiting[ev.DeliveryID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, ev.DeliveryID)
		s.mu.Unlock()
	}()
	select {
	case s.out <- msg:
	case <-s.closed:
		return Ack{}, ErrDropped
	case <-ctx.Done():
		return Ack{}, ctx.Err()
	}
	t := time.NewTimer(AckWait)
	defer t.Stop()
	select {
	case a := <-ch:
		return a, nil
	case <-s.closed:
		return Ack{}, ErrDropped
	case <-t.C:
		return Ack{}, ErrAckTimeout
	case <-ctx.Done():
		return Ack{}, ctx.Err()
	}
}

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
		case msg := <-s.out:
			s.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if err := s.conn.WriteMessage(websocket.TextMessage, msg); err != nil {
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
		s.mu.Lock()
		ch := s.waiting[a.DeliveryID]
		s.mu.Unlock()
		if ch != nil {
			select {
			case ch <- a:
			default:
			}
		}
	}
}
