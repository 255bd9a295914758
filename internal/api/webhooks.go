package api

import "encoding/json"

// Webhook kinds and statuses (spec 3 §2.2).
const (
	WebhookKindURL      = "url"
	WebhookKindListener = "cliListener"
	WebhookEnabled      = "enabled"
	WebhookDisabled     = "disabled"
)

// Webhook is a URL webhook or a command-line listener (spec 3 §2.2). Date-times are in the zone
// of X-TIME-ZONE without offset, or UTC with a trailing Z when none was sent.
type Webhook struct {
	ID               string   `json:"id"`
	Kind             string   `json:"kind"`
	URL              *string  `json:"url"`
	Description      string   `json:"description"`
	EnabledEvents    []string `json:"enabledEvents"`
	PersonIDs        []string `json:"personIds"`
	Status           string   `json:"status"`
	DisabledReason   *string  `json:"disabledReason"`
	DisabledAt       *string  `json:"disabledAt"`
	FailingSince     *string  `json:"failingSince"`
	ListenerPersonID *string  `json:"listenerPersonId"`
	// ListenerSession is a listener's session name (timbra listen --session; timbra's
	// extension); null for a URL webhook.
	ListenerSession  *string `json:"listenerSession"`
	SessionExpiresAt *string `json:"sessionExpiresAt"`
	CreatedAt        string  `json:"createdAt"`
	UpdatedAt        string  `json:"updatedAt"`
	Secret           string  `json:"secret,omitempty"` // only on create and rotation
}

// WebhookCreate is the body of POST /api/v4/webhooks.
type WebhookCreate struct {
	URL           *string  `json:"url"`
	Description   *string  `json:"description"`
	EnabledEvents []string `json:"enabledEvents"`
	PersonIDs     []string `json:"personIds"`
}

// WebhookUpdate is the body of PUT /api/v4/webhooks/<id>: the full model.
type WebhookUpdate struct {
	ID            *string  `json:"id"`
	URL           *string  `json:"url"`
	Description   *string  `json:"description"`
	EnabledEvents []string `json:"enabledEvents"`
	PersonIDs     []string `json:"personIds"`
	Status        *string  `json:"status"`
}

// Delivery is one event sent to one webhook (spec 3 §2.3), with timbra's further fields.
type Delivery struct {
	ID             string  `json:"id"`
	CreatedAt      string  `json:"createdAt"`
	EventID        string  `json:"eventId"`
	Kind           string  `json:"kind"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	LastStatusCode *int    `json:"lastStatusCode"`
	LastError      *string `json:"lastError"`
	// LastErrorDetail is why the last attempt failed in the words of the network or TLS layer
	// (connection refused, certificate signed by unknown authority); null when it did not fail
	// or gave no detail.
	LastErrorDetail     *string   `json:"lastErrorDetail"`
	LastResponseExcerpt string    `json:"lastResponseExcerpt"`
	WebhookID           string    `json:"webhookId"`
	EventType           string    `json:"eventType"`
	NextAttemptAt       *string   `json:"nextAttemptAt"`
	History             []Attempt `json:"history"`
}

// FailureText is an attempt's error class with its detail, as a person reads it:
// "TlsFailed (x509: certificate signed by unknown authority)"; "" without an error.
func FailureText(class, detail *string) string {
	c, d := Deref(class), Deref(detail)
	switch {
	case c == "":
		return ""
	case d == "":
		return c
	}
	return c + " (" + d + ")"
}

// LastFailure is FailureText of the delivery's last attempt.
func (d Delivery) LastFailure() string { return FailureText(d.LastError, d.LastErrorDetail) }

// Failure is FailureText of the attempt.
func (a Attempt) Failure() string { return FailureText(a.Error, a.ErrorDetail) }

// Attempt is one try of a delivery.
type Attempt struct {
	At          string  `json:"at"`
	StatusCode  *int    `json:"statusCode"`
	Error       *string `json:"error"`
	ErrorDetail *string `json:"errorDetail"` // as Delivery.LastErrorDetail, for this attempt
	DurationMS  int64   `json:"durationMs"`
}

// Event is the event envelope (spec 3 §2.4), exactly as signed and delivered.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt string    `json:"createdAt"`
	PersonID  *string   `json:"personId"`
	Data      EventData `json:"data"`
}

// EventData is the data of an event.
type EventData struct {
	RelatedObject  RelatedObject `json:"relatedObject"`
	Status         string        `json:"status"`
	PreviousStatus string        `json:"previousStatus"`
}

// RelatedObject is the resource an event is about.
type RelatedObject struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	URL  string `json:"url"`
}

// EventResend is the body of POST /api/v4/events/<id>/resend.
type EventResend struct {
	WebhookID *string `json:"webhookId"`
	// ListenerSession names the caller's listen session when webhookId is left out (timbra's
	// extension); left out too: the session named default if it is open, else the only one
	// open.
	ListenerSession *string `json:"listenerSession,omitempty"`
}

// EventTrigger is the body of POST /api/v4/events/trigger.
type EventTrigger struct {
	Type            *string `json:"type"`
	RelatedObjectID *string `json:"relatedObjectId"`
	PersonID        *string `json:"personId"`
	WebhookID       *string `json:"webhookId"`
}

// EventTriggered is the answer of a trigger.
type EventTriggered struct {
	EventID   string `json:"eventId"`
	WebhookID string `json:"webhookId"`
}

// EventResent is the answer of a resend.
type EventResent struct {
	DeliveryID string `json:"deliveryId"`
	WebhookID  string `json:"webhookId"`
}

// WebhookTested is the answer of a webhook test.
type WebhookTested struct {
	EventID    string `json:"eventId"`
	DeliveryID string `json:"deliveryId"`
}

// RawEvent keeps an event's exact bytes when decoding a list of them.
type RawEvent = json.RawMessage

// WebhookQueue is the state of one webhook's deliveries (GET /api/v4/webhooks/<id>/queue,
// timbra's own: the spec shows none): how many wait, how many are on the wire, how old the
// oldest is, and what the destination last answered. Date-times as in Webhook.
type WebhookQueue struct {
	WebhookID string `json:"webhookId"`
	// Pending counts the deliveries not yet finished (in flight included).
	Pending int `json:"pending"`
	// InFlight counts the attempts on the wire now; Concurrency is the most the server allows
	// one destination at once.
	InFlight    int `json:"inFlight"`
	Concurrency int `json:"concurrency"`
	// OldestPendingAt is when the oldest pending delivery was made; null when none is pending.
	OldestPendingAt         *string `json:"oldestPendingAt"`
	OldestPendingAgeSeconds float64 `json:"oldestPendingAgeSeconds"`
	// LastAttemptAt, LastStatusCode: the latest attempt since the server started (null before).
	LastAttemptAt  *string `json:"lastAttemptAt"`
	LastStatusCode *int    `json:"lastStatusCode"`
	// LastError is the latest failure since the server started (null when none), and when.
	LastError   *string `json:"lastError"`
	LastErrorAt *string `json:"lastErrorAt"`
}
