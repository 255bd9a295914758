package server

import (
	"net/http"
	"reflect"

	"github.com/timbra-mx/timbra/internal/api"
	"github.com/timbra-mx/timbra/internal/invoices"
	"github.com/timbra-mx/timbra/internal/loadquery"
	"github.com/timbra-mx/timbra/internal/taxfiles"
)

// routeDocs documents the route table, one entry per registered pattern (the catch-all "/" that
// answers 404 and 405 is not a route). A route added to the table fails TestOpenAPIRoutes until
// it has an entry here: give its pattern exactly as registered, who may call it, its body and
// answer types, and the error statuses it answers besides those of its security (401, 429, 500,
// and 400 for the X-TIME-ZONE of the API) and its body (400, 413).
var routeDocs = []routeDoc{
	// Health and this document.
	{pattern: "GET /healthz", summary: "Server status, version, environment and database", tag: "Health", sec: secPublic, data: of[api.Health](), errors: []int{503},
		notes: "Answers once the database has answered a read; 503 when it does not within 2 s."},
	{pattern: "GET /healthz/catalogs", summary: "Status of the imported SAT catalogs", tag: "Health", sec: secPublic, data: of[api.CatalogsStatus]()},
	{pattern: "GET " + OpenAPIPath, summary: "This OpenAPI document", tag: "Health", sec: secPublic, media: "application/json"},

	// Operator API.
	{pattern: "GET /metrics", summary: "Prometheus metrics", tag: "Operator", sec: secOperator, media: "text/plain"},
	{pattern: "GET /admin/v1/backup", summary: "A consistent copy of the database", tag: "Operator", sec: secOperator, media: "application/octet-stream", errors: []int{409},
		notes: "Streams the bbolt file as of the start of the request; the master key is never in it. A server on PostgreSQL answers 409: its database is backed up with pg_dump."},
	{pattern: "GET /admin/v1/tenants", summary: "List tenants", tag: "Operator", sec: secOperator, data: of[[]api.Tenant]()},
	{pattern: "POST /admin/v1/tenants", summary: "Create a tenant and its owner", tag: "Operator", sec: secOperator, body: of[api.TenantCreate](), data: of[api.Credentials]()},
	{pattern: "POST /admin/v1/tenants/{tenantKey}/credits", summary: "Grant or withdraw credits", tag: "Operator", sec: secOperator, body: of[api.CreditGrant](), data: of[api.CreditBalances](), errors: []int{404}},
	{pattern: "GET /admin/v1/tenants/{tenantKey}/subscription", summary: "A tenant's subscription", tag: "Operator", sec: secOperator, data: of[api.Subscription](), errors: []int{404}},
	{pattern: "PUT /admin/v1/tenants/{tenantKey}/subscription", summary: "Change a tenant's subscription", tag: "Operator", sec: secOperator, body: of[api.SubscriptionUpdate](), data: of[api.Subscription](), errors: []int{404}},
	{pattern: "PUT /admin/v1/tenants/{tenantKey}/download-rules/{id}/status", summary: "Approve, reject or reset a download rule", tag: "Operator", sec: secOperator, body: of[api.DownloadRuleStatusUpdate](), data: of[api.DownloadRule](), errors: []int{404}},

	// People (spec 2 §4.3).
	{pattern: "GET /api/v4/people", summary: "List people", tag: "People", data: of[api.PagedList[api.Person]](), query: pageParams},
	{pattern: "POST /api/v4/people", summary: "Create a person", tag: "People", body: of[api.PersonInput](), data: of[api.Person](), errors: []int{403}},
	{pattern: "GET /api/v4/people/{id}", summary: "Get a person", tag: "People", data: of[api.Person](), errors: []int{404}},
	{pattern: "PUT /api/v4/people/{id}", summary: "Update a person", tag: "People", body: of[api.PersonInput](), data: of[api.Person](), errors: []int{403, 404}},
	{pattern: "DELETE /api/v4/people/{id}", summary: "Delete a person (revokes its API keys)", tag: "People", data: of[bool](), errors: []int{403, 404}},

	// API keys.
	{pattern: "GET /api/v4/apikeys", summary: "List API keys", tag: "API keys", data: of[api.PagedList[api.APIKey]](), query: pageParams},
	{pattern: "POST /api/v4/apikeys", summary: "Create an API key", tag: "API keys", body: of[api.APIKeyCreate](), data: of[api.APIKey](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/apikeys/{id}", summary: "Get an API key", tag: "API keys", data: of[api.APIKey](), errors: []int{403, 404}},
	{pattern: "PUT /api/v4/apikeys/{id}", summary: "Update an API key", tag: "API keys", body: of[api.APIKeyUpdate](), data: of[api.APIKey](), errors: []int{403, 404}},
	{pattern: "DELETE /api/v4/apikeys/{id}", summary: "Delete an API key", tag: "API keys", data: of[bool](), errors: []int{403, 404}},

	// Webhooks (spec 3 §4.4).
	{pattern: "POST /api/v4/webhooks", summary: "Create a webhook", tag: "Webhooks", status: http.StatusCreated, body: of[api.WebhookCreate](), data: of[api.Webhook](), errors: []int{403, 409}},
	{pattern: "GET /api/v4/webhooks", summary: "List webhooks", tag: "Webhooks", data: of[api.PagedList[api.Webhook]](), query: pageParams, errors: []int{403}},
	{pattern: "GET /api/v4/webhooks/load", summary: "Load query over webhooks", tag: "Webhooks", bare: true, data: of[loadquery.Result](), query: loadParams, errors: []int{403}},
	{pattern: "GET /api/v4/webhooks/{id}", summary: "Get a webhook", tag: "Webhooks", data: of[api.Webhook](), errors: []int{403, 404}},
	{pattern: "PUT /api/v4/webhooks/{id}", summary: "Replace a webhook", tag: "Webhooks", body: of[api.WebhookUpdate](), data: of[api.Webhook](), errors: []int{403, 404, 409}},
	{pattern: "DELETE /api/v4/webhooks/{id}", summary: "Delete a webhook", tag: "Webhooks", data: of[bool](), errors: []int{403, 404, 409}},
	{pattern: "POST /api/v4/webhooks/{id}/test", summary: "Send a test event (family BusinessWrite)", tag: "Webhooks", status: http.StatusAccepted, data: of[api.WebhookTested](), errors: []int{403, 404, 409}},
	{pattern: "POST /api/v4/webhooks/{id}/rotate-secret", summary: "Rotate the signing secret", tag: "Webhooks", data: of[api.Webhook](), errors: []int{403, 404, 409}},
	{pattern: "GET /api/v4/webhooks/{id}/queue", summary: "A webhook's queue: pending deliveries, attempts in flight, the oldest pending, the last error (timbra's own)", tag: "Webhooks", data: of[api.WebhookQueue](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/webhooks/{id}/deliveries", summary: "List a webhook's deliveries", tag: "Webhooks", data: of[api.PagedList[api.Delivery]](), query: pageParams, errors: []int{403, 404}},
	{pattern: "GET /api/v4/webhooks/{id}/deliveries/load", summary: "Load query over a webhook's deliveries", tag: "Webhooks", bare: true, data: of[loadquery.Result](), query: loadParams, errors: []int{403, 404}},

	// Events (spec 3 §4.5).
	{pattern: "GET /api/v4/events", summary: "List events (last 30 days)", tag: "Events", data: of[api.PagedList[api.Event]](), errors: []int{403},
		query: append(pageParams[:len(pageParams):len(pageParams)],
			queryParam{name: "type", desc: "Event type."},
			queryParam{name: "relatedObjectId", desc: "Id of the resource the event is about."},
			queryParam{name: "from", desc: "Earliest creation date-time."},
			queryParam{name: "to", desc: "Latest creation date-time (at most 30 days after from)."})},
	{pattern: "GET /api/v4/events/{id}", summary: "Get an event", tag: "Events", data: of[api.Event](), errors: []int{403, 404}},
	{pattern: "POST /api/v4/events/{id}/resend", summary: "Send an event again (family BusinessWrite)", tag: "Events", status: http.StatusAccepted, body: of[api.EventResend](), data: of[api.EventResent](), errors: []int{403, 404, 409}},
	{pattern: "POST /api/v4/events/trigger", summary: "Trigger an event (family BusinessWrite)", tag: "Events", status: http.StatusAccepted, body: of[api.EventTrigger](), data: of[api.EventTriggered](), errors: []int{403, 404, 409}},

	// The listener session of timbra listen.
	{pattern: "GET /api/v4/listen", summary: "Open the caller's listener session (websocket)", tag: "Events", status: http.StatusSwitchingProtocols, errors: []int{403, 409},
		notes: "A websocket upgrade; a plain request answers 400. The protocol (Ready, Event, Ack) is the listener package's.",
		query: []queryParam{{name: "events", desc: "Comma-separated event types to receive (all when absent); namespace.* takes a namespace."},
			{name: "session", desc: "The session's name (default \"default\"): each name of a person is its own listener webhook; only a session of the same name is replaced."},
			{name: "since", desc: "Catch up first: an instant (RFC 3339) or an event id; the session is sent, oldest first and one at a time, the events since then of its types that it has not received successfully (at most 1000, the most recent), marked replay."},
			{name: "probe", desc: "1 or true: send the Ready and close.", typ: "string"}}},

	// The tenant's live request log of timbra logs tail.
	{pattern: requestLogPattern, summary: "Follow the tenant's API requests as they are answered (Server-Sent Events)", tag: "Logs",
		media: "text/event-stream", data: of[api.RequestLogEntry](),
		notes: "A stream of Server-Sent Events: `ready` ({tenantId, personId, scope}), then one `request` per answered request " +
			"of the tenant (the owner) or of the caller (anyone else), the last 20 first; `: ping` comments every 15 s. " +
			"The schema is the data of a `request` event. An entry holds the method, the path without its query, the names " +
			"of the query's parameters (never their values), the status, the latency, the request id (traceIdentifier) and the " +
			"error text of a failure; never a body or a header. A reader more than 256 entries behind is sent `dropped` and " +
			"the stream ends: requests never wait for a reader."},

	// Catalogs (spec 3 §4.2, §4.3).
	{pattern: "GET /api/v4/catalogs", summary: "Names of the catalogs", tag: "Catalogs", data: of[[]string]()},
	{pattern: "GET /api/v4/catalogs/{name}/load", summary: "Load query over a catalog", tag: "Catalogs", bare: true, data: of[loadquery.Result](), query: loadParams, errors: []int{404, 503}},
	{pattern: "GET /api/v4/catalogs/{name}/key/{id}", summary: "A catalog record by id", tag: "Catalogs", data: of[api.CatalogRecord](), errors: []int{404, 503}},
	{pattern: "GET /api/v4/catalogs/{name}/{term}", summary: "Search a catalog", tag: "Catalogs", data: of[api.PagedList[api.CatalogRecord]](), query: pageParams, errors: []int{404, 503}},
	{pattern: "GET /api/v4/download-catalogs", summary: "Names of the bulk-download catalogs", tag: "Catalogs", data: of[[]string]()},
	{pattern: "GET /api/v4/download-catalogs/{name}", summary: "A bulk-download catalog", tag: "Catalogs", data: of[[]api.CatalogRecord](), errors: []int{404}},

	// Employer and employee data (spec 2 §4.4, §4.5).
	{pattern: "GET /api/v4/people/{id}/employer", summary: "A person's employer data", tag: "Employment", data: of[api.Employer](), errors: []int{404}},
	{pattern: "POST /api/v4/people/{id}/employer", summary: "Create a person's employer data", tag: "Employment", body: of[api.EmployerInput](), data: of[api.Employer](), errors: []int{403, 404, 409}},
	{pattern: "PUT /api/v4/people/{id}/employer", summary: "Replace a person's employer data", tag: "Employment", body: of[api.EmployerInput](), data: of[api.Employer](), errors: []int{403, 404}},
	{pattern: "DELETE /api/v4/people/{id}/employer", summary: "Delete a person's employer data", tag: "Employment", data: of[bool](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/people/{id}/employee", summary: "A person's employee data", tag: "Employment", data: of[api.Employee](), errors: []int{404}},
	{pattern: "POST /api/v4/people/{id}/employee", summary: "Create a person's employee data", tag: "Employment", body: of[api.EmployeeInput](), data: of[api.Employee](), errors: []int{403, 404, 409}},
	{pattern: "PUT /api/v4/people/{id}/employee", summary: "Replace a person's employee data", tag: "Employment", body: of[api.EmployeeInput](), data: of[api.Employee](), errors: []int{403, 404}},
	{pattern: "DELETE /api/v4/people/{id}/employee", summary: "Delete a person's employee data", tag: "Employment", data: of[bool](), errors: []int{403, 404}},

	// Credits.
	{pattern: "POST /api/v4/stamps", summary: "Transfer credits between two people (owner only)", tag: "Credits", body: of[api.StampTransfer](), data: of[bool](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/stamps", summary: "List the credit movements (grants, transfers, consumption) with the balances after each: the owner's every one, another person's its own", tag: "Credits", data: of[api.PagedList[api.StampTransaction]](), query: pageParams},
	{pattern: "POST /api/v4/manifests", summary: "Sign the caller's carta manifiesto with its own e.firma (the person becomes Signed); answers the signed letter (XML), kept as the person's newest", tag: "People", body: of[api.SignManifestRequest](), data: of[api.FileResponse]()},
	{pattern: "GET /api/v4/manifests/{personId}", summary: "A person's newest signed carta manifiesto, as signed (the person and the owner)", tag: "People", data: of[api.FileResponse](), errors: []int{404}},
	{pattern: "GET /api/v4/manifests/{personId}/versions", summary: "A person's signed cartas manifiesto, newest first, without the XML (the person and the owner)", tag: "People", data: of[api.PagedList[api.Manifest]](), query: pageParams, errors: []int{404}},
	{pattern: "GET /api/v4/manifests/{personId}/versions/{id}", summary: "One signed carta manifiesto of a person, as signed (the person and the owner)", tag: "People", data: of[api.FileResponse](), errors: []int{404}},
	{pattern: "GET /api/v4/stamps/{id}", summary: "Get a credit movement", tag: "Credits", data: of[api.StampTransaction](), errors: []int{404}},

	// Tax files (spec 2 §4.2).
	{pattern: "GET /api/v4/tax-files", summary: "List tax files", tag: "Tax files", data: of[api.PagedList[api.TaxFile]](), query: pageParams},
	{pattern: "POST /api/v4/tax-files", summary: "Upload a certificate or private key", tag: "Tax files", body: of[taxfiles.Upload](), data: of[api.TaxFile](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/tax-files/{id}", summary: "Get a tax file", tag: "Tax files", data: of[api.TaxFile](), errors: []int{403, 404}},
	{pattern: "DELETE /api/v4/tax-files/{id}", summary: "Delete a tax file (soft)", tag: "Tax files", data: of[bool](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/tax-files/{personId}/default-values", summary: "A person's default pair, with contents", tag: "Tax files", data: of[[]api.TaxFile](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/tax-files/{personId}/default-references", summary: "A person's default pair, without contents", tag: "Tax files", data: of[[]api.TaxFile](), errors: []int{403, 404}},

	// Products.
	{pattern: "GET /api/v4/products", summary: "List products", tag: "Products", data: of[api.PagedList[api.Product]](), query: pageParams},
	{pattern: "POST /api/v4/products", summary: "Create a product", tag: "Products", body: of[api.ProductInput](), data: of[api.Product](), errors: []int{503}},
	{pattern: "GET /api/v4/products/{id}", summary: "Get a product", tag: "Products", data: of[api.Product](), errors: []int{404}},
	{pattern: "PUT /api/v4/products/{id}", summary: "Update a product", tag: "Products", body: of[api.ProductInput](), data: of[api.Product](), errors: []int{404, 503}},
	{pattern: "DELETE /api/v4/products/{id}", summary: "Delete a product", tag: "Products", data: of[bool](), errors: []int{404}},

	// Bulk-download rules (spec 2 §4.6).
	{pattern: "GET /api/v4/download-rules", summary: "List download rules", tag: "Download rules", data: of[api.PagedList[api.DownloadRule]](), query: pageParams},
	{pattern: "POST /api/v4/download-rules", summary: "Create a download rule", tag: "Download rules", body: of[api.DownloadRuleInput](), data: of[api.DownloadRule](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/download-rules/{id}", summary: "Get a download rule", tag: "Download rules", data: of[api.DownloadRule](), errors: []int{404}},
	{pattern: "PUT /api/v4/download-rules/{id}", summary: "Change a download rule's description", tag: "Download rules", body: of[api.DownloadRuleInput](), data: of[api.DownloadRule](), errors: []int{403, 404}},
	{pattern: "DELETE /api/v4/download-rules/{id}", summary: "Delete a download rule", tag: "Download rules", data: of[bool](), errors: []int{403, 404}},
	{pattern: "GET /api/v4/download-requests", summary: "List download requests", tag: "Download requests", data: of[api.PagedList[api.DownloadRequest]](), query: pageParams},
	{pattern: "POST /api/v4/download-requests", summary: "Create a download request (from a rule or explicit parameters); the server carries it out at the SAT", tag: "Download requests", body: of[api.DownloadRequestInput](), data: of[api.DownloadRequest]()},
	{pattern: "GET /api/v4/download-requests/search", summary: "Search download requests: createdAt (a UTC day, 2025-01-31) and any of downloadRequestStatusId, downloadTypeId, satQueryTypeId, downloadRequestTypeId, downloadRuleId, requesterTin; paged", tag: "Download requests", data: of[api.PagedList[api.DownloadRequest]](), query: searchDownloadParams},
	{pattern: "GET /api/v4/download-requests/{id}", summary: "Get a download request", tag: "Download requests", data: of[api.DownloadRequest](), errors: []int{404}},
	{pattern: "PUT /api/v4/download-requests/{id}", summary: "Update a download request: none of its SAT parameters, rule, type or dates changes once created; a field left out or equal is accepted, one that differs is refused (400); answers the request unchanged", tag: "Download requests", body: of[api.DownloadRequestInput](), data: of[api.DownloadRequest](), errors: []int{404}},
	{pattern: "DELETE /api/v4/download-requests/{id}", summary: "Delete a download request with its packages", tag: "Download requests", data: of[bool](), errors: []int{404}},
	{pattern: "GET /api/v4/download-requests/{id}/xmls", summary: "The CFDIs of a finished download request", tag: "Download requests", data: of[api.PagedList[api.DownloadXML]](), query: pageParams, errors: []int{404}},
	{pattern: "GET /api/v4/download-requests/{id}/meta-items", summary: "The metadata of a finished download request", tag: "Download requests", data: of[api.PagedList[api.DownloadMetadataItem]](), query: pageParams, errors: []int{404}},
	{pattern: "GET /api/v4/download-requests/{id}/package", summary: "The packages (ZIP) of a finished download request", tag: "Download requests", data: of[[]api.FileResponse](), errors: []int{404}},
	{pattern: "GET /api/v4/download-requests/{id}/raw-request", summary: "The query as sent to the SAT", tag: "Download requests", data: of[api.FileResponse](), errors: []int{404}},
	{pattern: "GET /api/v4/download-requests/{id}/raw-response", summary: "The SAT's answer to the query", tag: "Download requests", data: of[api.FileResponse](), errors: []int{404}},

	// SAT validations (spec 3 §4.7).
	{pattern: "GET /api/v4/sat-validations", summary: "Validation types", tag: "SAT validations", data: of[[]api.SatValidationType]()},
	{pattern: "POST /api/v4/sat-validations", summary: "Run SAT validations on an invoice", tag: "SAT validations", body: of[api.SatValidationRequest](), data: of[[]api.SatValidationResult](), errors: []int{403, 503}},
	{pattern: "GET /api/v4/sat-validations/{id}", summary: "A validation type", tag: "SAT validations", data: of[api.SatValidationType](), errors: []int{404}},
	{pattern: "GET /api/v4/sat-validations/{id}/statuses", summary: "The statuses a validation type answers", tag: "SAT validations", data: of[[]api.SatValidationTypeStatus](), errors: []int{404}},

	// Invoices (spec 3 §4.1).
	{pattern: "POST /api/v4/invoices", summary: "Stamp an invoice", tag: "Invoices", body: of[api.InvoiceInput](), data: of[api.Invoice](), errors: []int{403, 404, 503}},
	deprecatedInvoice("income"),
	deprecatedInvoice("credit-note"),
	deprecatedInvoice("payment"),
	deprecatedInvoice("payroll"),
	deprecatedInvoice("local-taxes"),
	{pattern: "POST /api/v4/invoices/pdf", summary: "An invoice as PDF", tag: "Invoices", body: of[invoices.PDFRequest](), data: of[api.InvoiceFile](), errors: []int{404}},
	{pattern: "GET /api/v4/invoices", summary: "List invoices", tag: "Invoices", data: of[api.PagedList[api.Invoice]](),
		query: append(pageParams[:len(pageParams):len(pageParams)],
			queryParam{name: "from", desc: "First day of the CFDI's date (inclusive)."},
			queryParam{name: "to", desc: "Last day of the CFDI's date (inclusive)."},
			queryParam{name: "issuerTin", desc: "Issuer RFC."},
			queryParam{name: "issuerId", desc: "Issuer person id."},
			queryParam{name: "recipientTin", desc: "Recipient RFC."},
			queryParam{name: "recipientId", desc: "Recipient person id."},
			queryParam{name: "typeCode", desc: "CFDI type (I, E, T, N, P)."},
			queryParam{name: "status", desc: "Invoice status."},
			queryParam{name: "series", desc: "Series."})},
	{pattern: "GET /api/v4/invoices/{id}", summary: "Get an invoice (id or UUID)", tag: "Invoices", data: of[api.Invoice](), errors: []int{404}},
	{pattern: "GET /api/v4/invoices/{id}/xml", summary: "An invoice's XML", tag: "Invoices", data: of[api.InvoiceFile](), errors: []int{404}},
	{pattern: "DELETE /api/v4/invoices", summary: "Cancel an invoice", tag: "Invoices", body: of[api.InvoiceCancel](), data: of[api.InvoiceCancelled](), errors: []int{404, 409}},
	{pattern: "POST /api/v4/invoices/{id}/cancellation-answer", summary: "The recipient's answer to a cancellation request", tag: "Invoices", body: of[api.InvoiceCancellationAnswer](), data: of[api.InvoiceStatus](), errors: []int{404, 409}},
	{pattern: "POST /api/v4/invoices/status", summary: "SAT status of an invoice", tag: "Invoices", body: of[api.InvoiceStatusQuery](), data: of[api.InvoiceStatus](), errors: []int{404}},
	{pattern: "POST /api/v4/invoices/send", summary: "Send an invoice by e-mail (XML and PDF)", tag: "Invoices", body: of[invoices.SendInput](), data: of[bool](), errors: []int{404, 502, 503}},
	{pattern: "GET /api/v4/stamping-certificate", summary: "The certificate stamps are made with (timbra's own)", tag: "Invoices", data: of[api.StampingCertificate](), errors: []int{503},
		notes: "Its number is the NoCertificadoSAT and its subject's RFC the RfcProvCertif of every stamp from now on; its public key verifies their SelloSAT. " +
			"In production it is the operator's PAC certificate (503 until the operator gives one); in test, the server's own, made on the first need."},

	// Auto CFDI (spec 3 §4.6).
	{pattern: "GET /api/v4/auto-invoice/settings", summary: "Auto CFDI settings", tag: "Auto CFDI", data: of[api.AutoInvoiceSettings]()},
	{pattern: "PUT /api/v4/auto-invoice/settings", summary: "Change the Auto CFDI settings (owner)", tag: "Auto CFDI", body: of[api.AutoInvoiceSettingsInput](), data: of[api.AutoInvoiceSettings](), errors: []int{403}},
	{pattern: "GET /api/v4/auto-invoice/portal-name", summary: "The portal name", tag: "Auto CFDI", data: of[api.PortalName]()},
	{pattern: "PUT /api/v4/auto-invoice/portal-name", summary: "Change the portal name (owner; once per 30 days)", tag: "Auto CFDI", body: of[api.PortalNameInput](), data: of[api.PortalName](), errors: []int{403, 409}},
	{pattern: "GET /api/v4/auto-invoice/portal-names/availability", summary: "Whether a portal name is available", tag: "Auto CFDI", data: of[api.PortalNameAvailability](),
		query: []queryParam{{name: "name", desc: "The portal name to check."}}},
	{pattern: "GET /api/v4/auto-invoice/reports/consumption", summary: "Auto CFDI usage report of a period", tag: "Auto CFDI", data: of[api.ConsumptionReport](), errors: []int{404},
		query: []queryParam{{name: "from", desc: "First day, YYYY-MM-DD (Mexico City), required."}, {name: "to", desc: "Last day, YYYY-MM-DD (Mexico City), required; at most 366 days in all."},
			{name: "personId", desc: "Only this person's tickets as issuer and credits as payer."}}},

	// Auto CFDI tickets and the customer portal (package tickets).
	{pattern: "POST /api/v4/auto-invoice/tickets", summary: "Record a ticket (one ticket credit of the caller)", tag: "Tickets", body: of[api.TicketInput](), data: of[api.Ticket](), errors: []int{403, 409, 503}},
	{pattern: "GET /api/v4/auto-invoice/tickets", summary: "List tickets, the latest paid first", tag: "Tickets", data: of[api.PagedList[api.Ticket]](),
		query: append([]queryParam{{name: "status", desc: "pending, invoicing, invoiced, globalizing, globalized or cancelled."}, {name: "issuerId", desc: "Only the tickets of this issuer."},
			{name: "from", desc: "Paid on or after this day, YYYY-MM-DD (Mexico City)."}, {name: "to", desc: "Paid on or before this day, YYYY-MM-DD (Mexico City)."}}, pageParams...)},
	{pattern: "GET /api/v4/auto-invoice/tickets/{id}", summary: "Get a ticket", tag: "Tickets", data: of[api.Ticket](), errors: []int{404}},
	{pattern: "POST /api/v4/auto-invoice/tickets/{id}/cancel", summary: "Cancel a pending ticket", tag: "Tickets", data: of[api.Ticket](), errors: []int{404, 409}},
	{pattern: "POST /api/v4/auto-invoice/tickets/{id}/invoice", summary: "Invoice a ticket for a customer (one stamp of the issuer)", tag: "Tickets", body: of[api.TicketInvoiceInput](), data: of[api.Invoice](), errors: []int{403, 404, 409, 503}},
	{pattern: "POST /api/v4/auto-invoice/global-invoices", summary: "Global invoice of an issuer's pending tickets of a period", tag: "Tickets", body: of[api.GlobalInvoiceInput](), data: of[api.GlobalInvoice](), errors: []int{403, 409, 503}},
	{pattern: "GET /portal/v1/{name}", summary: "What a customer portal shows", tag: "Tickets", sec: secPublic, data: of[api.Portal](), errors: []int{308, 404},
		notes: "A previous portal name answers 308 with the current one in Location."},
	{pattern: "POST /portal/v1/{name}/invoices", summary: "A customer invoices a ticket (number and total as printed)", tag: "Tickets", sec: secPublic, body: of[api.PortalInvoiceInput](), data: of[api.PortalInvoice](), errors: []int{308, 403, 404, 409, 503}},
}

// of is the type T (a routeDoc's body or data).
func of[T any]() reflect.Type { return reflect.TypeFor[T]() }

// pageParams are the page parameters of a paged list (spec 1 §8).
var pageParams = []queryParam{
	{name: "pageNumber", desc: "Page, from 1.", typ: "integer"},
	{name: "pageSize", desc: "Items per page (the default and maximum depend on the resource).", typ: "integer"},
}

// searchDownloadParams are the filters of a download request search, each optional.
var searchDownloadParams = append([]queryParam{
	{name: "createdAt", desc: "A day (UTC), 2025-01-31: requests created that day."},
	{name: "downloadRequestStatusId", desc: "Pending, InProgress, Completed or Failed."},
	{name: "downloadTypeId", desc: "Emitidos or Recibidos."},
	{name: "satQueryTypeId", desc: "CFDI or Metadata."},
	{name: "downloadRequestTypeId", desc: "Manual or Automatic."},
	{name: "downloadRuleId", desc: "The rule it came from."},
	{name: "requesterTin", desc: "The requester's RFC."},
}, pageParams...)

// loadParams are the six parameters of a load query (spec 1 §7.6), each JSON text.
var loadParams = []queryParam{
	{name: "sort", desc: "JSON: sort expressions."},
	{name: "filter", desc: "JSON: filter expression."},
	{name: "group", desc: "JSON: group expressions."},
	{name: "select", desc: "JSON: fields to return."},
	{name: "totalSummary", desc: "JSON: summaries over all records."},
	{name: "groupSummary", desc: "JSON: summaries per group."},
}

// deprecatedInvoice is a per-type invoice endpoint discontinued on 2026-01-01 (spec 1 §9).
func deprecatedInvoice(kind string) routeDoc {
	return routeDoc{pattern: "POST /api/v4/invoices/" + kind, summary: "Discontinued: use POST /api/v4/invoices", tag: "Invoices", deprecated: true, errors: []int{410}}
}
