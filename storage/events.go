package storage

import (
	"encoding/json"
	"time"
)

// Webhook is a URL webhook or a command-line listener.
type Webhook struct {
	ID                  string     `json:"id"`
	TenantID            string     `json:"tenantId"`
	Kind                string     `json:"kind"`
	URL                 *string    `json:"url,omitempty"`
	Description         string     `json:"description"`
	EnabledEvents       []string   `json:"enabledEvents"`
	PersonIDs           []string   `json:"personIds,omitempty"` // nil: every person
	Status              string     `json:"status"`
	DisabledReason      *string    `json:"disabledReason,omitempty"`
	DisabledAt          *time.Time `json:"disabledAt,omitempty"`
	FailingSince        *time.Time `json:"failingSince,omitempty"`
	ListenerPersonID    *string    `json:"listenerPersonId,omitempty"`
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
	ID                  string     `json:"id"`
	TenantID            string     `json:"tenantId"`
	WebhookID           string     `json:"webhookId"`
	EventID             string     `json:"eventId"`
	EventType           string     `json:"eventType"`
	Kind                string     `json:"kind"`   // automatic, manual, test
	Status              string     `json:"status"` // pending, succeeded, failed
	Attempts            int        `json:"attempts"`
	MaxAttempts         int        `json:"maxAttempts"`
	LastStatusCode      *int       `json:"lastStatusCode,omitempty"`
	LastError           *string    `json:"lastError,omitempty"`
	LastResponseExcerpt string     `json:"lastResponseExcerpt"`
	NextAttemptAt       *time.Time `json:"nextAttemptAt,omitempty"` // set while pending: its place in the outbox
	Claimed             bool       `json:"claimed,omitempty"`       // an engine holds it until NextAttemptAt (its lease)
	History             []Attempt  `json:"history,omitempty"`
	CreatedAt           time.Time  `json:"createdAt"`
	UpdatedAt           time.Time  `json:"updatedAt"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	At         time.Time `json:"at"`
	StatusCode *int      `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMS int64     `json:"durationMs"`
}

// DeliveryRef names a pending delivery in the outbox.
type DeliveryRef struct {
	Due        time.Time
	TenantID   string
	DeliveryID string
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
	Delete(id string) error
	// Newest calls fn for events created in [from, to], newest first, until fn returns false.
	Newest(from, to time.Time, fn func(Event) bool) error
	// NewestRelated is Newest for the events of one related object.
	NewestRelated(relatedObjectID string, from, to time.Time, fn func(Event) bool) error
	// Older calls fn for events created before t, oldest first, until fn returns false.
	Older(t time.Time, fn func(Event) bool) error
}

// Deliveries is the delivery log of one tenant.
type Deliveries interface {
	Get(id string) (Delivery, error)
	// Put saves a delivery and its indexes: by webhook, and the outbox entry while it is pending.
	Put(d Delivery) error
	Delete(id string) error
	// ByWebhook returns a webhook's deliveries newest first from offset, at most limit, and the
	// total count.
	ByWebhook(webhookID string, offset, limit int) ([]Delivery, int, error)
	// AllByWebhook calls fn for every delivery of a webhook, newest first, until fn returns false.
	AllByWebhook(webhookID string, fn func(Delivery) bool) error
	// Pending returns the pending deliveries of a webhook.
	Pending(webhookID string) ([]Delivery, error)
	// Older calls fn for deliveries created before t, oldest first, until fn returns false.
	Older(t time.Time, fn func(Delivery) bool) error
}

// Outbox is the queue of pending deliveries of every tenant, by due time.
type Outbox interface {
	// Due returns at most limit pending deliveries due at or before now, earliest first.
	Due(now time.Time, limit int) ([]DeliveryRef, error)
	// Next returns the earliest due time; ok is false when nothing is pending.
	Next() (due time.Time, ok bool)
}
