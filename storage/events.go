package storage

import (
	"encoding/json"
	"time"
)

// Webhook is a URL webhook or a command-line listener.
type Webhook struct {
	ID               string     `json:"id"`
	TenantID         string     `json:"tenantId"`
	Kind             string     `json:"kind"`
	URL              *string    `json:"url,omitempty"`
	Description      string     `json:"description"`
	EnabledEvents    []string   `json:"enabledEvents"`
	PersonIDs        []string   `json:"personIds,omitempty"` // nil: every person
	Status           string     `json:"status"`
	DisabledReason   *string    `json:"disabledReason,omitempty"`
	DisabledAt       *time.Time `json:"disabledAt,omitempty"`
	FailingSince     *time.Time `json:"failingSince,omitempty"`
	ListenerPersonID *string    `json:"listenerPersonId,omitempty"`
	// ListenerSession is the name of a listener's session (timbra listen --session); "" is the
	// session named default, as every listener stored before sessions had names.
	ListenerSession     string     `json:"listenerSession,omitempty"`
	SessionExpiresAt    *time.Time `json:"sessionExpiresAt,omitempty"`
	Secret              []byte     `json:"secret"`                   // sealed
	PreviousSecret      []byte     `json:"previousSecret,omitempty"` // sealed; signs too until PreviousSecretUntil
	PreviousSecretUntil *time.Time `json:"previousSecretUntil,omitempty"`
	CreatedAt           time.Time  `json:"createdAt"`
	UpdatedAt           time.Time  `json:"updatedAt"`
}

// Event is an event with the exact bytes of its envelope, as signed and delivered.
type Event struct {
	ID              string          `json:"id"`
	TenantID        string          `json:"tenantId"`
	Type            string          `json:"type"`
	PersonID        *string         `json:"personId,omitempty"`
	RelatedObjectID string          `json:"relatedObjectId"`
	Synthetic       bool            `json:"synthetic"` // made by a trigger or a test: its 2xx does not count for health
	CreatedAt       time.Time       `json:"createdAt"`
	Body            json.RawMessage `json:"body"`
}

// Delivery is one event sent (or to be sent) to one webhook.
type Delivery struct {
	ID             string  `json:"id"`
	TenantID       string  `json:"tenantId"`
	WebhookID      string  `json:"webhookId"`
	EventID        string  `json:"eventId"`
	EventType      string  `json:"eventType"`
	Kind           string  `json:"kind"`   // automatic, manual, test
	Status         string  `json:"status"` // pending, succeeded, failed
	Attempts       int     `json:"attempts"`
	MaxAttempts    int     `json:"maxAttempts"`
	LastStatusCode *int    `json:"lastStatusCode,omitempty"`
	LastError      *string `json:"lastError,omitempty"`
	// LastErrorDetail is the underlying error's text of the last attempt (webhook.Attempt.Detail).
	LastErrorDetail     string     `json:"lastErrorDetail,omitempty"`
	LastResponseExcerpt string     `json:"lastResponseExcerpt"`
	NextAttemptAt       *time.Time `json:"nextAttemptAt,omitempty"` // set while pending: its place in the outbox
	Synthetic           bool       `json:"synthetic,omitempty"`     // its event's Synthetic, kept for the outbox
	History             []Attempt  `json:"history,omitempty"`
	CreatedAt           time.Time  `json:"createdAt"`
	UpdatedAt           time.Time  `json:"updatedAt"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	At         time.Time `json:"at"`
	StatusCode *int      `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
	// ErrorDetail is the underlying error's text (webhook.Attempt.Detail); "" without one.
	ErrorDetail string `json:"errorDetail,omitempty"`
	DurationMS  int64  `json:"durationMs"`
}

// Queued is a pending delivery as the outbox holds it: what an attempt needs besides the event's
// body and the webhook, read without decoding the delivery.
type Queued struct {
	Due        time.Time
	TenantID   string
	WebhookID  string
	DeliveryID string
	EventID    string
	EventType  string
	Kind       string
	Synthetic  bool
}

// Destination is a webhook with pending deliveries, and the due time of its earliest one.
type Destination struct {
	TenantID  string
	WebhookID string
	Next      time.Time
}

// PendingStats is the queue of one webhook: how many deliveries are pending, and when the
// oldest of them was made.
type PendingStats struct {
	Count  int
	Oldest time.Time // zero when none is pending
}

// Webhooks is the webhooks of one tenant.
type Webhooks interface {
	Get(id string) (Webhook, error)
	Put(w Webhook) error
	Delete(id string) error
	// List returns webhooks in creation order from offset, at most limit, and the total count.
	List(offset, limit int) ([]Webhook, int, error)
	All() ([]Webhook, error)
}

// Events is the events of one tenant, in time order (their ids are UUID version 7).
type Events interface {
	Get(id string) (Event, error)
	Put(e Event) error
	// Create saves a new event, its id just made, as Put does without reading anything; the
	// transaction fails if it is there after all.
	Create(e Event) error
	Delete(id string) error
	// Count is the number of events of type typ ("" any) created in [from, to] (to the
	// millisecond of their id), from kept counters: its cost does not grow with the events stored.
	Count(typ string, from, to time.Time) (int, error)
	// Page returns the events of type typ ("" any) created in [from, to], newest first, from
	// offset, at most limit; what it passes over is not decoded.
	Page(typ string, from, to time.Time, offset, limit int) ([]Event, error)
	// CountRelated is Count for the events of one related object.
	CountRelated(relatedObjectID, typ string, from, to time.Time) (int, error)
	// PageRelated is Page for the events of one related object.
	PageRelated(relatedObjectID, typ string, from, to time.Time, offset, limit int) ([]Event, error)
	// Older calls fn for events created before t, oldest first, until fn returns false.
	Older(t time.Time, fn func(Event) bool) error
	// Body returns the exact bytes of an event's envelope.
	Body(id string) ([]byte, error)
}

// Deliveries is the delivery log of one tenant.
type Deliveries interface {
	Get(id string) (Delivery, error)
	// Put saves a delivery and its indexes: by webhook, and the outbox entry while it is pending.
	Put(d Delivery) error
	// Update reads a delivery, lets fn change it and saves it as Put does, reading it once;
	// fn returning false leaves it as it was. It answers ErrNotFound for an absent delivery.
	Update(id string, fn func(d *Delivery) bool) error
	// Create saves new deliveries, their ids just made, as Put does without reading anything;
	// the transaction fails if one of them is there after all.
	Create(ds []Delivery) error
	// Finish saves each delivery of fs, made from the delivery as read while it was pending and
	// due at its Due, only if it still is (its outbox entry is there, so nothing changed it
	// since): ok[i] is false, and nothing is written of it, when it was closed or moved
	// meanwhile. It reads no record, and reads the outbox entries at once where the backend can.
	Finish(fs []Finished) (ok []bool, err error)
	Delete(id string) error
	// ByWebhook returns a webhook's deliveries created since since (to the millisecond of their
	// id), newest first from offset, at most limit, and their count: the webhook's kept count
	// less those before since not yet removed, so its cost does not grow with the deliveries.
	ByWebhook(webhookID string, since time.Time, offset, limit int) ([]Delivery, int, error)
	// AllByWebhook calls fn for every delivery of a webhook, newest first, until fn returns false.
	AllByWebhook(webhookID string, fn func(Delivery) bool) error
	// Pending returns a webhook's first limit pending deliveries, oldest first.
	Pending(webhookID string, limit int) ([]Delivery, error)
	// PendingStats counts a webhook's pending deliveries (a kept counter, not a walk) and tells
	// when the oldest was made.
	PendingStats(webhookID string) (PendingStats, error)
	// Older calls fn for deliveries created before t, oldest first, until fn returns false.
	Older(t time.Time, fn func(Delivery) bool) error
}

// Finished is a delivery after an attempt, and when it was due before it.
type Finished struct {
	Delivery Delivery
	Due      time.Time
}

// Outbox is the queue of pending deliveries of every tenant: one queue per webhook, by due time.
type Outbox interface {
	// Destinations calls fn for every webhook with pending deliveries, of one tenant (or of
	// every tenant when tenant is ""), with the due time of its earliest delivery, until fn
	// returns false. Its cost grows with the webhooks, not with the deliveries.
	Destinations(tenant string, fn func(Destination) bool) error
	// Due returns at most limit pending deliveries of one webhook due at or before now,
	// earliest first, after the entry after names (nil: from the first), leaving out those
	// skip names (nil skips none); next is the due time of the first one after now, zero when
	// there is none.
	Due(tenant, webhook string, after *Queued, now time.Time, limit int, skip func(deliveryID string) bool) (due []Queued, next time.Time, err error)
	// Empty tells whether no delivery is pending.
	Empty() bool
}
