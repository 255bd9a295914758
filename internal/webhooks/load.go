package webhooks

import (
	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/loadquery"
)

// WebhookSchema describes a webhook to load queries (GET /api/v4/webhooks/load). Date-times
// are the strings the API answers, in the caller's zone.
var WebhookSchema = loadquery.NewSchema(
	loadquery.Field[*api.Webhook]{Name: "id", Kind: loadquery.String, Get: func(w *api.Webhook) any { return &w.ID }},
	loadquery.Field[*api.Webhook]{Name: "kind", Kind: loadquery.String, Get: func(w *api.Webhook) any { return &w.Kind }},
	loadquery.Field[*api.Webhook]{Name: "url", Kind: loadquery.String, Get: func(w *api.Webhook) any { return w.URL }},
	loadquery.Field[*api.Webhook]{Name: "description", Kind: loadquery.String, Get: func(w *api.Webhook) any { return &w.Description }},
	loadquery.Field[*api.Webhook]{Name: "enabledEvents", Kind: loadquery.List, Get: func(w *api.Webhook) any { return w.EnabledEvents }},
	loadquery.Field[*api.Webhook]{Name: "personIds", Kind: loadquery.List, Get: func(w *api.Webhook) any { return w.PersonIDs }},
	loadquery.Field[*api.Webhook]{Name: "status", Kind: loadquery.String, Get: func(w *api.Webhook) any { return &w.Status }},
	loadquery.Field[*api.Webhook]{Name: "disabledReason", Kind: loadquery.String, Get: func(w *api.Webhook) any { return w.DisabledReason }},
	loadquery.Field[*api.Webhook]{Name: "disabledAt", Kind: loadquery.Date, Get: func(w *api.Webhook) any { return w.DisabledAt }},
	loadquery.Field[*api.Webhook]{Name: "failingSince", Kind: loadquery.Date, Get: func(w *api.Webhook) any { return w.FailingSince }},
	loadquery.Field[*api.Webhook]{Name: "listenerPersonId", Kind: loadquery.String, Get: func(w *api.Webhook) any { return w.ListenerPersonID }},
	loadquery.Field[*api.Webhook]{Name: "sessionExpiresAt", Kind: loadquery.Date, Get: func(w *api.Webhook) any { return w.SessionExpiresAt }},
	loadquery.Field[*api.Webhook]{Name: "createdAt", Kind: loadquery.Date, Get: func(w *api.Webhook) any { return &w.CreatedAt }},
	loadquery.Field[*api.Webhook]{Name: "updatedAt", Kind: loadquery.Date, Get: func(w *api.Webhook) any { return &w.UpdatedAt }},
)

// DeliverySchema describes a delivery to load queries (GET /api/v4/webhooks/<id>/deliveries/load).
var DeliverySchema = loadquery.NewSchema(
	loadquery.Field[*api.Delivery]{Name: "id", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.ID }},
	loadquery.Field[*api.Delivery]{Name: "createdAt", Kind: loadquery.Date, Get: func(d *api.Delivery) any { return &d.CreatedAt }},
	loadquery.Field[*api.Delivery]{Name: "eventId", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.EventID }},
	loadquery.Field[*api.Delivery]{Name: "kind", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.Kind }},
	loadquery.Field[*api.Delivery]{Name: "status", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.Status }},
	loadquery.Field[*api.Delivery]{Name: "attempts", Kind: loadquery.Number, Get: func(d *api.Delivery) any { return &d.Attempts }},
	loadquery.Field[*api.Delivery]{Name: "lastStatusCode", Kind: loadquery.Number, Get: func(d *api.Delivery) any { return d.LastStatusCode }},
	loadquery.Field[*api.Delivery]{Name: "lastError", Kind: loadquery.String, Get: func(d *api.Delivery) any { return d.LastError }},
	loadquery.Field[*api.Delivery]{Name: "lastResponseExcerpt", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.LastResponseExcerpt }},
	loadquery.Field[*api.Delivery]{Name: "webhookId", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.WebhookID }},
	loadquery.Field[*api.Delivery]{Name: "eventType", Kind: loadquery.String, Get: func(d *api.Delivery) any { return &d.EventType }},
	loadquery.Field[*api.Delivery]{Name: "nextAttemptAt", Kind: loadquery.Date, Get: func(d *api.Delivery) any { return d.NextAttemptAt }},
	loadquery.Field[*api.Delivery]{Name: "history", Kind: loadquery.List, Get: func(d *api.Delivery) any { return d.History }},
)
