// Package webhooks holds the rules of events, webhooks and deliveries (spec 3 §2.2–2.4, §3,
// §4.4, §4.5, §6): the event-type catalog, validation and its texts, the webhook state
// machine, and the delivery engine that sends the durable outbox.
package webhooks

import "strings"

// EventType describes one type of event: what its relatedObject is and the status it reports.
type EventType struct {
	Name           string
	RelatedType    string // data.relatedObject.type
	URLPrefix      string // data.relatedObject.url is URLPrefix + id
	Status         string // data.status
	PreviousStatus string // data.previousStatus
	Description    string
}

// TypeTest is the type of the event made by the webhook test endpoint; the trigger refuses it.
const TypeTest = "webhook.test"

// Catalog is every event type, in the order they are documented. Invoice statuses follow the
// InvoiceStatuses catalog (Vigente, Cancelado) with the in-between state of a cancellation that
// waits for the recipient's answer; download requests' the DownloadRequestStatuses catalog.
var Catalog = []EventType{
	{Name: "invoice.stamped", RelatedType: "invoice", URLPrefix: "/api/v4/invoices/", Status: "Vigente", PreviousStatus: "",
		Description: "An invoice was sealed and stamped (Timbre Fiscal Digital)."},
	{Name: "invoice.canceled", RelatedType: "invoice", URLPrefix: "/api/v4/invoices/", Status: "Cancelado", PreviousStatus: "Vigente",
		Description: "An invoice was cancelled before the SAT."},
	{Name: "invoice.cancellation_requested", RelatedType: "invoice", URLPrefix: "/api/v4/invoices/", Status: "EnProcesoDeCancelacion", PreviousStatus: "Vigente",
		Description: "A cancellation that needs the recipient's acceptance was requested."},
	{Name: "invoice.cancellation_rejected", RelatedType: "invoice", URLPrefix: "/api/v4/invoices/", Status: "Vigente", PreviousStatus: "EnProcesoDeCancelacion",
		Description: "The recipient rejected a cancellation: the invoice stays valid."},
	{Name: "download_request.completed", RelatedType: "download_request", URLPrefix: "/api/v4/download-requests/", Status: "Completed", PreviousStatus: "InProgress",
		Description: "A bulk download request finished at the SAT: its CFDIs or metadata are ready to download."},
	{Name: "download_request.failed", RelatedType: "download_request", URLPrefix: "/api/v4/download-requests/", Status: "Failed", PreviousStatus: "",
		Description: "The SAT refused a bulk download request (Pending or InProgress), or its e.firma is gone (satStatusCode, satMessage)."},
	{Name: TypeTest, RelatedType: "webhook", URLPrefix: "/api/v4/webhooks/", Status: "test", PreviousStatus: "",
		Description: "Sent by POST /api/v4/webhooks/<id>/test to that one webhook."},
}

// Lookup finds an event type by name (names are exact: case matters).
func Lookup(name string) (EventType, bool) {
	for _, t := range Catalog {
		if t.Name == name {
			return t, true
		}
	}
	return EventType{}, false
}

// Names lists the event type names.
func Names() []string {
	out := make([]string, len(Catalog))
	for i, t := range Catalog {
		out[i] = t.Name
	}
	return out
}

// Subscribed tells whether a webhook's enabledEvents include type t: "*" is every type, and a
// listen session's "namespace.*" every type of the namespace.
func Subscribed(enabled []string, t string) bool {
	for _, e := range enabled {
		if e == "*" || e == t {
			return true
		}
		if prefix, ok := strings.CutSuffix(e, "*"); ok && strings.HasSuffix(prefix, ".") && strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// isGUID tells whether s is a GUID in its usual 8-4-4-4-12 hexadecimal form.
func isGUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
	}
	return true
}
