// Package listener is the protocol of `timbra listen`: the messages a command-line listener and
// the server exchange over one websocket, the server's hub of open sessions, and (for the
// client) a session that reconnects.
//
// The session: the client opens GET /api/v4/listen (a websocket upgrade) with X-TENANT-KEY and
// X-API-KEY, and the query `events=a,b` (event types to receive, default all; "namespace.*"
// takes a namespace) and `session=NAME` (default "default"). Each session name of a person is
// its own listener webhook, with its own deliveries and types, so one person may run several
// sessions at once. The server answers one Ready, then sends an Event for every delivery to
// the session's listener; the client forwards it and answers one Ack per Event. With the query
// `probe=1` the server answers the Ready and closes at once, leaving an open session of the
// same name alone (the client reads the listener's secret that way). Both sides ping every
// PingEvery and answer the other's pings; each side drops a connection it has not heard from
// (a message, a ping or a pong) for PongWait, so a dead connection is noticed within PongWait
// on both sides (the client then reconnects). These are timings, not messages: a side of older
// timings (pings every 15 s, 45 s of silence) still works with one of these. A newer session
// of the same person and name replaces the older one, which is closed with CloseReplaced. All
// messages are JSON text frames with a `type`.
package listener

import "time"

// Path is the websocket endpoint.
const Path = "/api/v4/listen"

// ProbeQuery is the query parameter of a session that only reads its Ready.
const ProbeQuery = "probe"

// Message types.
const (
	TypeReady = "ready"
	TypeEvent = "event"
	TypeAck   = "ack"
)

// Timing of a session.
const (
	PingEvery = 3 * time.Second
	PongWait  = 10 * time.Second
	// RenewEvery is how often, at most, the server renews a listener while its session answers
	// pings.
	RenewEvery = time.Minute
	// AckWait bounds how long the server waits for a client's Ack of one event: the client's
	// forward timeout plus some slack; past it (the Event's Deadline) the delivery fails.
	AckWait = 40 * time.Second
	// DeadlineMargin is how long before an Event's Deadline the client's forward must end (and
	// after which it starts none): room for the Ack's way back and for the clocks' skew.
	DeadlineMargin = 2 * time.Second
	// SessionLifetime is how long a session's listener stays valid without a renewal; an open
	// session renews it on every pong, so it expires only when the client is gone.
	SessionLifetime = 10 * time.Minute
)

// MaxErrorLength is the longest error text a client may report in an Ack (spec 3 §2.3).
const MaxErrorLength = 64

// CloseReplaced is the close code sent to a session replaced by a newer one of the same person
// and name.
const CloseReplaced = 4001

// Ready is the server's first message.
type Ready struct {
	Type             string   `json:"type"` // "ready"
	WebhookID        string   `json:"webhookId"`
	Session          string   `json:"session,omitempty"` // the session's name (query session=, default "default")
	Secret           string   `json:"secret"`            // whsec_… that signs every event of this listener
	Events           []string `json:"events"`
	SessionExpiresAt string   `json:"sessionExpiresAt"`
	// ServerTime is the server's clock when it sent the Ready (UTC, to the millisecond): the
	// client reads each Event's Deadline against it. Older servers leave it out.
	ServerTime string `json:"serverTime,omitempty"`
	// Replaying counts the events the session catches up on (query since=), sent first, one
	// after the other, oldest first, each an Event with Replay set.
	Replaying int `json:"replaying,omitempty"`
}

// Event is one delivery to the listener: the exact body and the Standard Webhooks headers.
type Event struct {
	Type       string            `json:"type"` // "event"
	DeliveryID string            `json:"deliveryId"`
	EventID    string            `json:"eventId"`
	EventType  string            `json:"eventType"`
	Kind       string            `json:"kind"` // KindAutomatic, manual, test
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"` // the exact bytes that were signed
	// Deadline ends the attempt (the server's clock, UTC to the millisecond): the server takes
	// no Ack after it and records the attempt failed (ListenerAckTimeout), so the client starts
	// no forward after it and ends its forward before it. Older servers leave it out.
	Deadline string `json:"deadline,omitempty"`
	// Replay marks an event the session asked to catch up on (query since=).
	Replay bool `json:"replay,omitempty"`
}

// KindAutomatic is the Kind of an event's own delivery (the engine's, retried on failure), as
// opposed to a manual one (a resend, a catch-up) or a test.
const KindAutomatic = "automatic"

// Ack is the client's outcome of forwarding one Event.
type Ack struct {
	Type       string `json:"type"` // "ack"
	DeliveryID string `json:"deliveryId"`
	// StatusCode is the forward target's status; nil when there was no answer (or no target).
	StatusCode *int `json:"statusCode"`
	// Excerpt is the first 1 KB of the answer.
	Excerpt string `json:"excerpt"`
	// Error says why there was no complete answer (at most MaxErrorLength characters); empty
	// with an answer. A listener without --forward-to acknowledges with status null, no error.
	Error string `json:"error"`
}
