// Package storage keeps timbra's records: in one bbolt file (Open), or in PostgreSQL for several
// server nodes (OpenPostgres). It is the only package that imports bbolt or pgx; the rest of the
// program sees the Store and Tx interfaces. The collections, their indexes and counters, and the
// migrations are written once over ordered key-value buckets (kv.go) that each backend provides,
// so no rule lives in a backend (storagetest is the conformance suite every backend passes).
//
// The schema, every bucket and key layout in one place. Records are JSON values, except events
// and deliveries (binary since schema 14, codec.go; older ones stay JSON). Keys inside a
// tenant are "<tenantID>/<recordID>"; record IDs are UUID version 7, so key order is creation
// order. Secondary indexes are their own buckets, written and deleted in the same transaction as
// the record. An index without tenant prefix enforces uniqueness across the whole service.
//
//	meta                 "schema"                         → decimal schema version
//	                     "environment"                    → "test" | "production"
//	                     "created_at"                     → RFC 3339 time the database was made
//	                     "key_check"                      → a value sealed with the master key
//	                     "pac_certificate", "pac_key"     → the server's stamping certificate (DER) and key (sealed PKCS#8)
//	                     "pac_origin"                     → "generated" | "operator" (absent: generated)
//	                     "pac_previous"                   → JSON array of the stamping certificates replaced (DER, base64)
//	tenants              <tenantID>                       → Tenant
//	people               <tenantID>/<personID>            → Person
//	people_by_email      <normalized email>               → <tenantID>/<personID>   (all tenants)
//	apikeys              <tenantID>/<keyID>               → APIKey
//	apikeys_by_lookup    <lookup: the value's 6 time bytes + its HMAC, or the HMAC alone for a value of before> → <tenantID>/<keyID>/<personID>/<status>/<owner 0|1>
//	                                                        (all tenants; what authentication needs, in one Get)
//	apikeys_by_person    <tenantID>/<personID>/<keyID>    → empty
//	webhooks             <tenantID>/<webhookID>           → Webhook
//	events               <tenantID>/<eventID>             → Event (with the exact bytes delivered)
//	events_by_related    <tenantID>/<relatedID>/<eventID> → <type> (empty before schema 30)
//	events_by_type       <tenantID>/<type>/<eventID>      → empty
//	events_hours         <tenantID>/<type or empty>/<hour: 4-byte big-endian Unix hour>
//	                       → 8-byte big-endian count of the events of that hour (of that type, or of any)
//	events_related_hours <tenantID>/<relatedID>/<type or empty>/<hour> → the same, of one related object
//	deliveries           <tenantID>/<deliveryID>          → Delivery
//	deliveries_by_webhook <tenantID>/<webhookID>/<deliveryID> → empty
//	deliveries_pending   <tenantID>/<webhookID>/<deliveryID> → empty   (while status is pending)
//	deliveries_due       <tenantID>/<webhookID>/<due: 8-byte big-endian Unix ns><deliveryID>
//	                       → <kind>/<event type>/<eventID>/<synthetic 0|1>   (the outbox: while pending)
//	deliveries_pending_count <tenantID>/<webhookID>     → 8-byte big-endian count of pending deliveries
//	counts               <bucket name>/<tenantID>         → 8-byte big-endian count of the tenant's keys in that
//	                       bucket (people, apikeys, webhooks, invoices, products, tickets, download_rules, download_requests,
//	                       taxfiles_current): a list's total without a walk; and
//	                     deliveries_by_webhook/<tenantID>/<webhookID> → the webhook's deliveries
//	catalog_set          "current"                        → CatalogSet (version, source, tables, row counts)
//	catalog_rows         <table> (nested bucket)
//	                       <primary key values joined by 0x00> → the row's values (catalogs package encoding)
//	employers            <tenantID>/<personID>            → Employer (one per person)
//	employees            <tenantID>/<personID>            → Employee (one per person, under the employee)
//	taxfiles             <tenantID>/<fileID>              → TaxFile (current and deleted; content and password sealed)
//	taxfiles_by_person   <tenantID>/<personID>/<fileID>   → "c" current | "d" deleted
//	taxfiles_current     <tenantID>/<fileID>              → empty   (while the file is current)
//	products             <tenantID>/<productID>           → Product
//	invoices             <tenantID>/<invoiceID>           → Invoice (the stamped XML and the answer's fields)
//	invoices_by_uuid     <tenantID>/<UUID upper case>     → <invoiceID>
//	invoices_summary     <tenantID>/<invoiceID>           → InvoiceSummary (what lists filter by; rewritten by every Put)
//	invoices_canceling   <tenantID>/<invoiceID>           → cancellation request time (RFC 3339; while EnProcesoDeCancelacion)
//	invoices_by          <tenantID>/<field>/<len><folded value><invoiceID> → empty (one per filtered field; counted in counts)
//	invoices_pairs       <tenantID>/<field>/<len><folded value><field><len><folded value> → count (every pair of filtered fields; pairs.go)
//	invoices_days        <tenantID>/<field or *>/<len><folded value or *><YYYY-MM-DD of the CFDI's Fecha> → count
//	download_rules       <tenantID>/<ruleID>              → DownloadRule
//	download_requests    <tenantID>/<requestID>           → DownloadRequest (counted in counts)
//	download_requests_active <tenantID>/<requestID>       → its next attempt, 8-byte big-endian Unix ns (empty: now)
//	                       (while the worker has work on it; the worker picks the due ones without decoding them)
//	download_requests_by_query <tenantID>/<query key>/<requestID> → "a" active | "s" taken by the SAT | "-" neither
//	                       (query key: DownloadRequest.QueryKey, the SAT parameters hashed; SAT's duplicate rules)
//	download_packages    <tenantID>/<requestID>/<packageID>/<4-byte big-endian chunk> → 1 MiB of the ZIP as the SAT sent it
//	download_items       <tenantID>/<requestID>/<x|m>/<8-byte big-endian sequence> → x: where the CFDI is in its package
//	                       (binary, downloadrequests.xmlEntry; a DownloadXML in JSON before), m: DownloadMetadata (JSON)
//	download_requests_summary <tenantID>/<requestID>      → DownloadRequestSummary (length-prefixed strings; rewritten by every Put)
//	download_requests_by <tenantID>/<field>/<len><folded value><requestID> → empty (one per searched field, the
//	                       creation day in UTC among them; each value counted in counts)
//	download_requests_pairs <tenantID>/<field>/<len><folded value><field><len><folded value> → count (every pair of searched fields)
//	auto_invoice         <tenantID>                       → AutoInvoice (settings, portal name, previous name)
//	portal_names         <portal name>                    → <tenantID>   (all tenants; current and previous names)
//	tickets              <tenantID>/<ticketID>            → Ticket (Auto CFDI sale receipts)
//	tickets_by_number    <tenantID>/<number upper case>   → <ticketID>
//	tickets_by_paid      <tenantID>/<paid day>/<ticketID> → <issuer>/<recorder>/<status> (person ids; Mexico City day)
//	tickets_by_recorded  <tenantID>/<day>/<ticketID>      → <recorder personID>          (Mexico City day)
//	tickets_by           <tenantID>/<p|i|s>/<person or status>/<paid day>/<ticketID> → as tickets_by_paid
//	tickets_in_status    <tenantID>/<p|i>/<person>/<status> → count (a person's and an issuer's tickets by status)
//	                       (p: under the issuer and the recorder; i: the issuer; s: the status; each counted)
//	stamp_transactions   <tenantID>/<transactionID>       → StampTransaction (counted in counts; never changed)
//	manifests            <tenantID>/<personID>/<manifestID> → Manifest (every signed letter, the XML as signed; never changed)
//	leases               d/<tenantID>/<webhookID>         → 8-byte big-endian Unix ns until when, the node (which
//	                       node sends a destination's deliveries, when several share the database)
//	                     l/<tenantID>/<listenerID>        → the same, then 0x00 and the event types joined by ","
//	                       (the node a listen session is connected to)
//	nodes                <node name>                      → 8-byte big-endian Unix ns it last said it was up
//
// The outbox (deliveries_due) is an index of pending deliveries, one queue per webhook by due
// time, kept by Deliveries.Put in the same transaction as the delivery: a pending delivery is
// always in it, a finished one never. Its value carries what an attempt needs, so the delivery
// engine starts an attempt without decoding the delivery; the engine finds the webhooks with
// work by seeking from one webhook's queue to the next. deliveries_pending_count is kept by the
// same Put, so a queue's depth is one read.
//
// Events.Put and Delete keep events_by_type and events_hours in the event's transaction, so the
// list of events counts its range from at most 721 hourly counters and the events of the two
// hours at its ends (Events.Count), and reads a page by key without decoding what it passes.
//
// Employer and employee data are keyed by their person: deleting a person deletes both in the
// same transaction (DeletePersonEmployment).
//
// Tax files are never removed: a deletion erases the content and password and keeps the record
// (spec 2 §3). taxfiles_by_person finds a person's files (the default pair, the next sequence)
// and tells current from deleted without decoding; taxfiles_current lists a tenant's current
// files in creation order. TaxFiles.Put keeps both in the record's transaction; deleting a
// person soft-deletes its files in the same transaction (DeletePersonTaxFiles).
package storage

import "time"

var (
	bucketMeta            = []byte("meta")
	bucketTenants         = []byte("tenants")
	bucketPeople          = []byte("people")
	bucketPeopleByEmail   = []byte("people_by_email")
	bucketAPIKeys         = []byte("apikeys")
	bucketAPIKeysByLookup = []byte("apikeys_by_lookup")
	bucketAPIKeysByPerson = []byte("apikeys_by_person")

	bucketWebhooks               = []byte("webhooks")
	bucketEvents                 = []byte("events")
	bucketEventsByRelated        = []byte("events_by_related")
	bucketEventsByType           = []byte("events_by_type")
	bucketEventsHours            = []byte("events_hours")
	bucketEventsRelatedHours     = []byte("events_related_hours")
	bucketDeliveries             = []byte("deliveries")
	bucketDeliveriesByWebhook    = []byte("deliveries_by_webhook")
	bucketDeliveriesPending      = []byte("deliveries_pending")
	bucketOutbox                 = []byte("outbox") // until schema 13; see migrations
	bucketDeliveriesDue          = []byte("deliveries_due")
	bucketDeliveriesPendingCount = []byte("deliveries_pending_count")

	bucketCounts = []byte("counts")

	bucketLeases = []byte("leases")
	bucketNodes  = []byte("nodes")

	bucketCatalogSet  = []byte("catalog_set")
	bucketCatalogRows = []byte("catalog_rows")
)

// Meta keys.
const (
	MetaSchema      = "schema"
	MetaEnvironment = "environment"
	MetaCreatedAt   = "created_at"
	MetaKeyCheck    = "key_check"
)

// Tenant is the space that holds people, credits and data.
type Tenant struct {
	ID            string    `json:"id"`
	OwnerPersonID string    `json:"ownerPersonId"`
	CreatedAt     time.Time `json:"createdAt"`
	// Subscription is what the operator set; nil until then (accounts.SubscriptionOf gives the
	// environment's default).
	Subscription *Subscription `json:"subscription,omitempty"`
}

// Person is a person of a tenant as stored. Secrets are sealed; the sign-in password is a hash.
type Person struct {
	ID               string     `json:"id"`
	TenantID         string     `json:"tenantId"`
	LegalName        string     `json:"legalName"`
	Email            string     `json:"email"`
	PhoneNumber      *string    `json:"phoneNumber,omitempty"`
	PasswordHash     string     `json:"passwordHash,omitempty"`
	SatTaxRegimeID   *string    `json:"satTaxRegimeId,omitempty"`
	SatCfdiUseID     *string    `json:"satCfdiUseId,omitempty"`
	UserTypeID       string     `json:"userTypeId"`
	Tin              *string    `json:"tin,omitempty"`
	Curp             *string    `json:"curp,omitempty"`
	ZipCode          *string    `json:"zipCode,omitempty"`
	CountryID        *string    `json:"countryId,omitempty"`
	ForeignTin       *string    `json:"foreignTin,omitempty"`
	Base64Photo      *string    `json:"base64Photo,omitempty"`
	TaxPassword      []byte     `json:"taxPassword,omitempty"` // sealed
	Balances         []Balance  `json:"balances,omitempty"`    // sorted by credit type
	IsOwner          bool       `json:"isOwner"`
	ValidTo          *time.Time `json:"validTo,omitempty"`
	ManifestStatusID string     `json:"manifestStatusId"`
	CreatedAt        time.Time  `json:"createdAt"`
	UpdatedAt        time.Time  `json:"updatedAt"`
}

// Balance is the available amount of one credit type.
type Balance struct {
	CreditType int   `json:"creditType"`
	Available  int64 `json:"available"`
}

// APIKey is an API key. Its value is sealed; Lookup is what finds it (accounts' lookupOf).
type APIKey struct {
	ID          string `json:"id"`
	TenantID    string `json:"tenantId"`
	PersonID    string `json:"personId"`
	Environment string `json:"environment"`
	Value       []byte `json:"value"` // sealed
	Lookup      []byte `json:"lookup"`
	Status      int    `json:"status"`
	// PersonIsOwner copies the owner flag of the key's person into the lookup index, so a
	// request authenticates with one read. The owner of a tenant never changes.
	PersonIsOwner bool      `json:"personIsOwner"`
	Description   *string   `json:"description,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}
