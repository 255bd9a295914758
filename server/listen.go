package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/websocket"

	"github.com/timbra-mx/timbra/internal/apierr"
	"github.com/timbra-mx/timbra/listener"
)

// MsgNotWebsocket answers a plain request to the listen endpoint.
const MsgNotWebsocket = "Esta ruta es un websocket: ábrela con timbra listen."

// MsgOriginRefused answers a listen request from a browser page (it sends Origin).
const MsgOriginRefused = "Una página web no puede abrir una sesión de timbra listen: conéctate sin el encabezado Origin (timbra listen no lo envía)."

// upgrader opens listen sessions; a handshake it refuses is answered in the envelope.
func (s *Server) upgrader() *websocket.Upgrader {
	return &websocket.Upgrader{
		ReadBufferSize:  4096,
		WriteBufferSize: 16 << 10,
		// The command-line client sends no Origin; a browser page does, and may not open sessions.
		CheckOrigin: func(r *http.Request) bool { return r.Header.Get("Origin") == "" },
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			s.writeError(w, r, &apierr.Error{Status: status, Details: reason.Error()})
		},
	}
}

// listen opens the caller's listener session (spec: timbra listen): it creates or renews the
// cliListener webhook of the person's session (query session=, default "default"), then serves
// the websocket until it closes.
func (s *Server) listen(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		s.writeError(w, r, apierr.BadRequest(MsgNotWebsocket))
		return
	}
	if r.Header.Get("Origin") != "" { // before anything is made for the session
		s.writeError(w, r, &apierr.Error{Status: http.StatusForbidden, Details: MsgOriginRefused})
		return
	}
	c := caller(r)
	var events []string
	if v, ok := query(r, "events"); ok {
		for _, e := range strings.Split(v, ",") {
			if e = strings.TrimSpace(e); e != "" {
				events = append(events, e)
			}
		}
	}
	session, _ := query(r, "session")
	since, _ := query(r, "since")
	ready, replay, err := s.webhooks.OpenListenerSince(r.Context(), c, strings.TrimSpace(session), events, strings.TrimSpace(since))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	conn, err := s.ws.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader answered the client
	}
	if v, _ := query(r, listener.ProbeQuery); v == "1" || v == "true" {
		listener.Probe(conn, ready) // the Ready only: an open session of this person stays
		return
	}
	s.log.Info("listener connected", "tenant", c.TenantID, "person", c.PersonID, "session", ready.Session, "webhook", ready.WebhookID, "events", ready.Events)
	renew := func() {
		if err := s.webhooks.RenewListener(context.Background(), c.TenantID, ready.WebhookID); err != nil {
			s.log.Warn("renew listener", "webhook", ready.WebhookID, "err", err)
		}
	}
	catchUp := func() {
		err := s.webhooks.Replay(context.Background(), c.TenantID, ready.WebhookID, replay, func(ids []string) {
			s.hub.MarkReplays(c.TenantID, ready.WebhookID, ids)
		})
		if err != nil {
			s.log.Warn("listener catch-up", "webhook", ready.WebhookID, "events", len(replay), "err", err)
		}
	}
	s.hub.ServeThen(conn, c.TenantID, ready.WebhookID, ready, renew, catchUp)
	s.log.Info("listener disconnected", "tenant", c.TenantID, "person", c.PersonID, "webhook", ready.WebhookID)
}

func (s *Server) listenRoutes() {
	s.ws = s.upgrader()
	s.mux.Handle("GET "+listener.Path, s.guard(s.standard, s.listen))
}
